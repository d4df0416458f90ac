//! The discovery stage: which methods changed (`method_mode`), how complex each file is
//! (zones), who depends on whom (cross-class graph, absorbed private methods), in which
//! order to test (waves), what is selected, and whether to stop (red zone with only new
//! code). [`plan`] is pure: facts in, plan out; `app::discover` does the I/O.

pub mod deps;
pub mod modes;
pub mod select;
pub mod waves;
pub mod zones;

use std::collections::BTreeSet;

use rayon::prelude::*;

use crate::config::ZoneThresholds;
use crate::git::ChangeKind;
use crate::index::{FileFacts, MethodKind, Names};
use crate::naming::{self, ControllerSpecPolicy};

pub use deps::Deps;
pub use modes::MethodMode;
pub use zones::Zone;

/// The skip reason of methods that did not change.
pub const UNCHANGED: &str = "Custom: unchanged since the base";

/// What a file is compared with.
#[derive(Debug, Clone, PartialEq)]
pub enum BaseVersion {
    /// The file is not in the base: every method is new.
    Missing,
    /// The file is identical to the base: every method is unchanged.
    Same,
    /// The base version's facts.
    Facts(FileFacts),
    /// No history to compare with (not a repository): every method counts as new.
    Unknown,
}

/// One file to plan.
#[derive(Debug, Clone)]
pub struct Source {
    /// Its facts (current version).
    pub facts: FileFacts,
    /// Its base version.
    pub base: BaseVersion,
    /// How it changed, if it did.
    pub change: Option<ChangeKind>,
    /// Its path in the base, for renames.
    pub old_path: Option<String>,
}

/// Settings of a plan.
#[derive(Debug)]
pub struct Settings {
    /// Every method is selected (`--all`).
    pub select_all: bool,
    /// `--only` / `--exclude`.
    pub filter: select::Filter,
    /// Zone thresholds.
    pub zones: ZoneThresholds,
    /// Controller spec layout.
    pub spec_policy: ControllerSpecPolicy,
    /// Proceed past the red-zone stop.
    pub allow_red: bool,
}

/// One wave item: a public method.
#[derive(Debug, Clone)]
pub struct Item {
    /// Index into [`Plan::files`].
    pub file: usize,
    /// Index into that file's `facts.methods`.
    pub method: usize,
    /// `Class#name` or `Class.name`.
    pub method_id: String,
    /// Owning class.
    pub class_name: String,
    /// Method name.
    pub method_name: String,
    /// Instance or singleton.
    pub kind: MethodKind,
    /// `[def, end]`.
    pub line_range: (u32, u32),
    /// New, modified or unchanged.
    pub mode: MethodMode,
    /// Whether the pipeline should analyze it.
    pub selected: bool,
    /// Why not, when not selected.
    pub skip_reason: Option<String>,
    /// Classes in scope it depends on, with the methods called on them.
    pub deps: Deps,
    /// Private and protected methods it calls, transitively.
    pub absorbed: Vec<String>,
    /// Its wave.
    pub wave: usize,
}

/// One file of the plan.
#[derive(Debug, Clone)]
pub struct FilePlan {
    /// The source. Its methods keep their names, kinds, visibility, line ranges and
    /// digests; what only the dependency analysis reads (calls, constants, instance
    /// variables, receiver calls, parameters) is dropped once the file is planned, so a
    /// plan of a large codebase does not hold every method body's references.
    pub source: Source,
    /// The class under test (Rails naming, else the first class with methods).
    pub class_name: Option<String>,
    /// Complexity zone.
    pub zone: Zone,
    /// Spec path by the pipeline's rules.
    pub spec_path: Option<String>,
    /// The mode of every method of the file, aligned with `source.facts.methods`.
    pub modes: Vec<MethodMode>,
    /// Indices into [`Plan::items`] of this file's wave items, in line order.
    pub items: Vec<usize>,
}

impl FilePlan {
    /// The file's path.
    pub fn path(&self) -> &str {
        &self.source.facts.path
    }

    /// Union of the classes its main class's items depend on.
    pub fn dependencies(&self, items: &[Item]) -> Vec<String> {
        let mut all = BTreeSet::new();
        for &i in &self.items {
            if let Some(item) = items.get(i) {
                if Some(&item.class_name) == self.class_name.as_ref() {
                    all.extend(item.deps.keys().cloned());
                }
            }
        }
        all.into_iter().collect()
    }
}

/// A red-zone file whose methods are all new.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// Path.
    pub path: String,
    /// Code lines.
    pub loc: u32,
    /// Methods.
    pub methods: usize,
}

/// The discovery plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Files, sorted by path.
    pub files: Vec<FilePlan>,
    /// Wave items, sorted by wave, path, line.
    pub items: Vec<Item>,
    /// Number of waves.
    pub waves_count: usize,
    /// Dependency cycles (sorted class names each).
    pub cycles: Vec<Vec<String>>,
    /// Red-zone files with only new methods (the stop rule), unless allowed.
    pub stopped: Vec<Stopped>,
    /// Problems that did not stop the plan.
    pub warnings: Vec<String>,
}

/// The class a file is about: the one its path names by Rails conventions, else the first
/// class or module that defines a method, else the first one.
pub fn main_class(facts: &FileFacts) -> Option<String> {
    let names = facts.class_names();
    if let Some(name) = names
        .iter()
        .find(|n| naming::constant_matches_path(n, &facts.path))
    {
        return Some((*name).to_string());
    }
    if let Some(m) = facts
        .methods
        .iter()
        .find(|m| !m.dynamic && m.owner != "Object")
    {
        return Some(m.owner.clone());
    }
    names.first().map(|n| (*n).to_string())
}

/// Builds the plan for `sources` (sorted by path here). Files are planned in parallel (on
/// the current rayon pool); the result does not depend on the number of threads.
pub fn plan(mut sources: Vec<Source>, settings: &Settings) -> Plan {
    sources.sort_by(|a, b| a.facts.path.cmp(&b.facts.path));
    let known = deps::Known::new(sources.iter().map(|s| &s.facts));
    let planned: Vec<(FilePlan, Vec<Item>, Option<String>)> = sources
        .into_par_iter()
        .enumerate()
        .map(|(file_index, source)| plan_file(file_index, source, settings, &known))
        .collect();
    let mut warnings = Vec::new();
    let mut files: Vec<FilePlan> = Vec::with_capacity(planned.len());
    let mut items: Vec<Item> = Vec::new();
    for (file, file_items, warning) in planned {
        files.push(file);
        items.extend(file_items);
        warnings.extend(warning);
    }

    let wave_items: Vec<waves::Item<&str>> = items
        .iter()
        .map(|i| waves::Item {
            class: i.class_name.as_str(),
            deps: i.deps.keys().map(String::as_str).collect(),
        })
        .collect();
    let computed = waves::compute(&wave_items);
    drop(wave_items);
    for (item, wave) in items.iter_mut().zip(computed.wave.iter()) {
        item.wave = *wave;
    }
    for cycle in &computed.cycles {
        warnings.push(format!(
            "Circular dependency detected: {}",
            cycle.join(" ↔ ")
        ));
    }
    // Files are numbered in path order (sorted above), so the file number orders by path
    // without comparing the paths' text.
    items.sort_by(|a, b| {
        (a.wave, a.file, a.line_range.0, &a.method_id).cmp(&(
            b.wave,
            b.file,
            b.line_range.0,
            &b.method_id,
        ))
    });
    for (index, item) in items.iter().enumerate() {
        if let Some(file) = files.get_mut(item.file) {
            file.items.push(index);
        }
    }
    for file in &mut files {
        file.items.sort_by(|&a, &b| {
            let key = |i: usize| items.get(i).map(|it| (it.line_range.0, &it.method_id));
            key(a).cmp(&key(b))
        });
    }
    let waves_count = items.iter().map(|i| i.wave + 1).max().unwrap_or(0);

    let mut stopped = Vec::new();
    for file in &files {
        if file.zone != Zone::Red {
            continue;
        }
        let facts = &file.source.facts;
        let all_new = !file.modes.is_empty() && file.modes.iter().all(|m| *m == MethodMode::New);
        if all_new {
            if settings.allow_red {
                warnings.push(format!(
                    "{} is in the red zone ({} LOC, {} methods) with only new code; proceeding because of --allow-red",
                    facts.path,
                    facts.loc,
                    facts.methods.len()
                ));
            } else {
                stopped.push(Stopped {
                    path: facts.path.clone(),
                    loc: facts.loc,
                    methods: facts.methods.len(),
                });
            }
        } else {
            warnings.push(format!(
                "{} is in the red zone ({} LOC, {} methods): consider splitting it before adding tests",
                facts.path,
                facts.loc,
                facts.methods.len()
            ));
        }
    }

    Plan {
        files,
        items,
        waves_count,
        cycles: computed.cycles,
        stopped,
        warnings,
    }
}

/// One file's part of the plan: its modes, zone and spec path, its wave items (with their
/// dependencies, wave 0 for now), and the warning about public methods of other classes.
fn plan_file(
    file_index: usize,
    source: Source,
    settings: &Settings,
    known: &deps::Known,
) -> (FilePlan, Vec<Item>, Option<String>) {
    let facts = &source.facts;
    let modes = match &source.base {
        BaseVersion::Missing | BaseVersion::Unknown => modes::method_modes(facts, None),
        BaseVersion::Same => vec![MethodMode::Unchanged; facts.methods.len()],
        BaseVersion::Facts(base) => modes::method_modes(facts, Some(base)),
    };
    let class_name = main_class(facts);
    let zone = zones::zone(facts.loc, facts.methods.len(), &settings.zones);
    let spec_path = naming::spec_path(&facts.path, settings.spec_policy);
    let mut items = Vec::new();
    let absorber = deps::Absorber::new(&facts.methods);
    for (i, m) in facts.methods.iter().enumerate() {
        if !m.is_public_api() {
            continue;
        }
        let absorbed = absorber.absorbed(i);
        let method_deps = deps::method_deps(facts, i, &absorbed, known);
        let mode = modes.get(i).copied().unwrap_or(MethodMode::New);
        let method_id = m.id();
        let (selected, skip_reason) = if Some(&m.owner) != class_name.as_ref() {
            (
                false,
                Some(format!(
                    "Custom: not the file's main class ({}); the pipeline handles one class per file",
                    class_name.as_deref().unwrap_or("none")
                )),
            )
        } else if !settings.filter.keeps(&method_id) {
            (false, Some(select::PATTERN_FILTER.to_string()))
        } else if settings.select_all || mode != MethodMode::Unchanged {
            (true, None)
        } else {
            (false, Some(UNCHANGED.to_string()))
        };
        items.push(Item {
            file: file_index,
            method: i,
            method_id,
            class_name: m.owner.clone(),
            method_name: m.name.clone(),
            kind: m.kind,
            line_range: m.line_range,
            mode,
            selected,
            skip_reason,
            deps: method_deps,
            absorbed: absorbed
                .iter()
                .filter_map(|&j| facts.methods.get(j).map(|a| a.name.clone()))
                .collect(),
            wave: 0,
        });
    }
    let mut warning = None;
    if let Some(class) = &class_name {
        let others: BTreeSet<&str> = facts
            .methods
            .iter()
            .filter(|m| m.is_public_api() && &m.owner != class)
            .map(|m| m.owner.as_str())
            .collect();
        if !others.is_empty() {
            warning = Some(format!(
                "{}: public methods of {} are listed but not selected: the metadata of a file holds one class ({class})",
                facts.path,
                others.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let mut source = source;
    for m in &mut source.facts.methods {
        m.calls = Names::default();
        m.constants = Vec::new();
        m.ivars = Names::default();
        m.receiver_calls = Names::default();
        m.params = Vec::new();
    }
    let file = FilePlan {
        source,
        class_name,
        zone,
        spec_path,
        modes,
        items: Vec::new(),
    };
    (file, items, warning)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::extract;

    fn source(path: &str, src: &str, base: BaseVersion) -> Source {
        Source {
            facts: extract(path, src.as_bytes()),
            base,
            change: None,
            old_path: None,
        }
    }

    fn settings() -> Settings {
        Settings {
            select_all: false,
            filter: select::Filter::default(),
            zones: ZoneThresholds::default(),
            spec_policy: ControllerSpecPolicy::Request,
            allow_red: false,
        }
    }

    #[test]
    fn main_class_follows_rails_naming() {
        let f = extract("app/services/billing/charge.rb", b"module Billing\n  class Helper; def x; end; end\n  class Charge; def call; end; end\nend\n");
        assert_eq!(main_class(&f).as_deref(), Some("Billing::Charge"));
        let f = extract(
            "lib/tools.rb",
            b"class Other; end\nclass Worker; def run; end; end\n",
        );
        assert_eq!(main_class(&f).as_deref(), Some("Worker"));
    }

    #[test]
    fn waves_follow_dependencies_across_files() {
        let sources = vec![
            source(
                "app/models/payment.rb",
                "class Payment\n  def capture; end\nend\n",
                BaseVersion::Missing,
            ),
            source(
                "app/services/processor.rb",
                "class Processor\n  def run(payment)\n    payment.capture\n  end\nend\n",
                BaseVersion::Missing,
            ),
        ];
        let plan = plan(sources, &settings());
        let listed: Vec<(String, usize, Vec<String>)> = plan
            .items
            .iter()
            .map(|i| {
                (
                    i.method_id.clone(),
                    i.wave,
                    i.deps.keys().cloned().collect(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            vec![
                ("Payment#capture".into(), 0, vec![]),
                ("Processor#run".into(), 1, vec!["Payment".into()]),
            ]
        );
        assert_eq!(plan.waves_count, 2);
    }

    #[test]
    fn unchanged_methods_are_not_selected_and_filters_deselect() {
        let base = extract(
            "app/models/a.rb",
            b"class A\n  def a; end\n  def b; end\nend\n",
        );
        let sources = vec![source(
            "app/models/a.rb",
            "class A\n  def a; end\n  def b; 1; end\n  def c; end\nend\n",
            BaseVersion::Facts(base),
        )];
        let mut s = settings();
        s.filter = select::Filter::new(&[], &["A#c".to_string()]).unwrap();
        let plan = plan(sources, &s);
        let listed: Vec<(&str, MethodMode, bool, Option<&str>)> = plan
            .items
            .iter()
            .map(|i| {
                (
                    i.method_id.as_str(),
                    i.mode,
                    i.selected,
                    i.skip_reason.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            vec![
                ("A#a", MethodMode::Unchanged, false, Some(UNCHANGED)),
                ("A#b", MethodMode::Modified, true, None),
                ("A#c", MethodMode::New, false, Some(select::PATTERN_FILTER)),
            ]
        );
    }

    #[test]
    fn red_zone_with_only_new_code_stops() {
        let body: String = (0..14).map(|i| format!("  def m{i}; end\n")).collect();
        let src = format!("class Big\n{body}end\n");
        let stopped = plan(
            vec![source("app/models/big.rb", &src, BaseVersion::Missing)],
            &settings(),
        );
        assert_eq!(stopped.stopped.len(), 1);
        let mut s = settings();
        s.allow_red = true;
        let allowed = plan(
            vec![source("app/models/big.rb", &src, BaseVersion::Missing)],
            &s,
        );
        assert!(allowed.stopped.is_empty());
        assert!(allowed.warnings.iter().any(|w| w.contains("--allow-red")));
    }
}
