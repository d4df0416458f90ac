//! The discovery stage: which methods changed (`method_mode`), how complex each file is
//! (zones), who depends on whom (cross-class graph, absorbed private methods), in which
//! order to test (waves), what is selected, and whether to stop (red zone with only new
//! code). [`plan`] is pure: facts in, plan out; `app::discover` does the I/O.

pub(crate) mod deps;
pub(crate) mod modes;
pub mod select;
pub mod stored;
pub mod waves;
pub(crate) mod zones;

use std::collections::BTreeSet;

use rayon::prelude::*;

use crate::git::ChangeKind;
use crate::index::{Diagnostic, FileFacts, MethodKind, NameList};
use crate::naming;
use crate::vocab::ControllerLayout;

pub use deps::{ClassNames, Deps};
pub use modes::MethodMode;
pub use zones::{Zone, ZoneThresholds};

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
    pub spec_policy: ControllerLayout,
    /// Proceed past the red-zone stop.
    pub allow_red: bool,
}

/// One wave item: a public method.
#[derive(Debug, Clone)]
pub struct Item {
    /// Index into [`Plan::files`] ([`Item::file`]; a plan never holds 4 billion files).
    pub(crate) file: u32,
    /// Index into that file's `facts.methods`.
    pub method: u32,
    /// `Class#name` or `Class.name`: the owning class and the method name are read from it
    /// ([`Item::class_name`], [`Item::method_name`]), not kept twice.
    pub method_id: Box<str>,
    /// Length of the class name at the start of `method_id`.
    owner_len: u32,
    /// The class's number among the classes in scope (`None`: not a class statement of
    /// the files planned, such as `Object` for top-level defs).
    class_id: Option<u32>,
    /// Instance or singleton.
    pub kind: MethodKind,
    /// `[def, end]`.
    pub line_range: (u32, u32),
    /// New, modified or unchanged.
    pub mode: MethodMode,
    /// Whether the pipeline should analyze it.
    pub selected: bool,
    /// Why it is not selected, and what Rails calls it through: both rare, so kept
    /// outside the item (a plan holds hundreds of thousands of items).
    rare: Option<Box<Rare>>,
    /// Classes in scope it depends on, with the methods called on them.
    pub deps: Deps,
    /// Private and protected methods it calls, transitively.
    pub absorbed: NameList,
    /// Its wave.
    pub wave: usize,
}

/// The rare fields of an [`Item`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rare {
    skip_reason: Option<Box<str>>,
    trigger: Option<Box<str>>,
}

impl Item {
    /// Why the pipeline should not analyze it, when not selected.
    pub fn skip_reason(&self) -> Option<&str> {
        self.rare.as_ref()?.skip_reason.as_deref()
    }

    /// For a private method Rails calls (a callback, validation, filter or handler): what
    /// calls it (`before_create`, `before_action (only: create)`).
    pub fn trigger(&self) -> Option<&str> {
        self.rare.as_ref()?.trigger.as_deref()
    }

    /// The index into [`Plan::files`] of its file.
    pub fn file(&self) -> usize {
        self.file as usize
    }

    /// Owning class.
    pub fn class_name(&self) -> &str {
        self.method_id
            .get(..self.owner_len as usize)
            .unwrap_or_default()
    }

    /// Method name.
    pub fn method_name(&self) -> &str {
        self.method_id
            .get(self.owner_len as usize + 1..)
            .unwrap_or_default()
    }
}

/// One file of the plan: what the answer and the metadata say about it. Its methods'
/// facts are gone by now (planning reads them from [`Prepared`] files).
#[derive(Debug, Clone)]
pub struct FilePlan {
    /// Path relative to the project root.
    pub path: String,
    /// Code lines.
    pub loc: u32,
    /// Number of methods (every `def`, any visibility).
    pub methods: usize,
    /// How it changed, if it did.
    pub change: Option<ChangeKind>,
    /// Its path in the base, for renames.
    pub old_path: Option<String>,
    /// The class under test (Rails naming, else the first class with methods).
    pub class_name: Option<String>,
    /// Complexity zone.
    pub zone: Zone,
    /// Spec path by the pipeline's rules.
    pub spec_path: Option<String>,
    /// Every method of the file is new (the red-zone stop rule reads it).
    pub all_new: bool,
    /// Indices into [`Plan::items`] of this file's wave items, in line order.
    pub items: Vec<usize>,
    /// Its class and module statements, in file order, as numbers into [`Plan::classes`]:
    /// a plan is patched for an edited file only when these stay the same (then every
    /// other file's dependencies resolve as before).
    pub classes: Vec<u32>,
    /// The warning about its changed methods no plan covers, if any.
    pub warning: Option<String>,
}

impl FilePlan {
    /// The file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Union of the classes its main class's items depend on (`classes`: the plan's).
    pub fn dependencies(&self, items: &[Item], classes: &deps::ClassNames) -> Vec<String> {
        let mut all = BTreeSet::new();
        for &i in &self.items {
            if let Some(item) = items.get(i) {
                if Some(item.class_name()) == self.class_name.as_deref() {
                    all.extend(item.deps.keys(classes).map(str::to_string));
                }
            }
        }
        all.into_iter().collect()
    }
}

/// A parsed file reduced to what planning reads, made by [`prepare`] right after parsing,
/// on the parsing thread: the facts of a whole codebase (every method's calls, constants,
/// parameters; private methods; class-level DSL calls) are never held at once, only these.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Path relative to the project root.
    pub path: String,
    /// Code lines.
    pub loc: u32,
    /// Number of methods.
    pub methods: usize,
    /// How it changed, if it did.
    pub change: Option<ChangeKind>,
    class_name: Option<String>,
    all_new: bool,
    /// The class statements, for constant resolution.
    scopes: deps::Scopes,
    /// The plan's units (public methods, and private ones Rails calls), in file order.
    public: Vec<PublicMethod>,
    /// What few files have (a skip, parse errors, a rename, unplanned changes): kept
    /// apart, a large codebase holds tens of thousands of these until planning.
    rare: Option<Box<PreparedRare>>,
}

/// The rare fields of a [`Prepared`] file.
#[derive(Debug, Clone, Default)]
struct PreparedRare {
    skipped: Option<String>,
    first_diagnostic: Option<Diagnostic>,
    diagnostic_count: usize,
    old_path: Option<String>,
    unplanned: Vec<Box<str>>,
}

impl Prepared {
    /// Why the file was not parsed, if it was not.
    pub fn skipped(&self) -> Option<&str> {
        self.rare.as_ref()?.skipped.as_deref()
    }

    /// The first syntax error, if any.
    pub fn first_diagnostic(&self) -> Option<&Diagnostic> {
        self.rare.as_ref()?.first_diagnostic.as_ref()
    }

    /// Number of syntax errors.
    pub fn diagnostic_count(&self) -> usize {
        self.rare.as_ref().map_or(0, |r| r.diagnostic_count)
    }

    /// Names of the file's class and module statements (for constant resolution).
    pub fn class_names(&self) -> impl Iterator<Item = &str> {
        self.scopes.classes()
    }
}

/// A public method of a [`Prepared`] file. Its id, references and absorbed names share one
/// buffer: a large codebase keeps hundreds of thousands of these until planning.
#[derive(Debug, Clone)]
struct PublicMethod {
    index: u32,
    /// The method id, then the references ([`deps::Refs`]), then the absorbed methods'
    /// names (each followed by a newline).
    text: Box<str>,
    /// Length of the id at the start of `text`; the owner is its first `owner_len` bytes.
    id_len: u32,
    owner_len: u32,
    /// Length of the references after the id.
    refs_len: u32,
    kind: MethodKind,
    line_range: (u32, u32),
    mode: MethodMode,
    /// For a private method Rails calls: what calls it (`before_create`).
    trigger: Option<Box<str>>,
}

impl PublicMethod {
    fn new(id: &str, owner_len: usize, refs: &str, absorbed: &NameList) -> Self {
        let mut text = String::with_capacity(id.len() + refs.len());
        text.push_str(id);
        text.push_str(refs);
        for name in absorbed.iter() {
            text.push_str(name);
            text.push('\n');
        }
        // Nothing near 4 GiB: files over max_file_size are not parsed.
        let len = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        PublicMethod {
            index: 0,
            text: text.into_boxed_str(),
            id_len: len(id.len()),
            owner_len: len(owner_len),
            refs_len: len(refs.len()),
            kind: MethodKind::Instance,
            line_range: (0, 0),
            mode: MethodMode::New,
            trigger: None,
        }
    }

    fn id(&self) -> &str {
        self.text.get(..self.id_len as usize).unwrap_or_default()
    }

    fn owner(&self) -> &str {
        self.text.get(..self.owner_len as usize).unwrap_or_default()
    }

    fn refs(&self) -> &str {
        let start = self.id_len as usize;
        self.text
            .get(start..start + self.refs_len as usize)
            .unwrap_or_default()
    }

    fn absorbed(&self) -> NameList {
        let start = self.id_len as usize + self.refs_len as usize;
        self.text
            .get(start..)
            .unwrap_or_default()
            .split_terminator('\n')
            .collect()
    }
}

/// Reduces a parsed file (and its base version) to what planning reads: each method's
/// mode, the main class, and per public method its absorbed private methods and the
/// references its dependencies come from.
pub fn prepare(source: Source) -> Prepared {
    let Source {
        facts,
        base,
        change,
        old_path,
    } = source;
    // The plan's units: public methods, and the methods Rails calls (callbacks,
    // validations, filters, rescue_from handlers) even when private.
    let triggers = crate::rails::callbacks::triggers(&facts);
    // A `def` a later one of the same class replaces is never called: no unit.
    let redefined = crate::index::redefined(&facts.methods);
    let replaced = |i: usize| redefined.get(i).copied().unwrap_or(false);
    let unit = |i: usize, m: &crate::index::MethodFacts| {
        !replaced(i)
            && (m.is_public_api()
                || (m.name != "initialize" && triggers.get(i).is_some_and(Option::is_some)))
    };
    // What each unit absorbs, found once: the modes and the references read it.
    let absorber = crate::index::Absorber::new(&facts.methods);
    let absorbed_by: Vec<Vec<usize>> = facts
        .methods
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if unit(i, m) {
                absorber.absorbed(i)
            } else {
                Vec::new()
            }
        })
        .collect();
    drop(absorber);
    let absorbed = |i: usize| absorbed_by.get(i).map_or(&[][..], Vec::as_slice);
    let modes = match base {
        BaseVersion::Missing | BaseVersion::Unknown => modes::method_modes(&facts, None, absorbed),
        BaseVersion::Same => vec![MethodMode::Unchanged; facts.methods.len()],
        BaseVersion::Facts(base) => modes::method_modes(&facts, Some(&base), absorbed),
    };
    // A changed method that is no unit and that no unit calls is in no plan: say so.
    let mut unplanned: Vec<Box<str>> = Vec::new();
    for (i, m) in facts.methods.iter().enumerate() {
        let changed = modes
            .get(i)
            .is_some_and(|mode| *mode != MethodMode::Unchanged);
        if changed
            && !m.dynamic
            && !replaced(i)
            && m.name != "initialize"
            && !unit(i, m)
            && !absorbed_by.iter().any(|a| a.contains(&i))
        {
            unplanned.push(m.id().into_boxed_str());
        }
    }
    let mut public = Vec::new();
    let mut scratch = deps::RefsScratch::default();
    for ((i, m), absorbed) in facts.methods.iter().enumerate().zip(&absorbed_by) {
        if !unit(i, m) {
            continue;
        }
        let refs = deps::Refs::collect_in(&facts, i, absorbed, &mut scratch);
        let absorbed: NameList = absorbed
            .iter()
            .filter_map(|&j| facts.methods.get(j).map(|a| a.name.as_str()))
            .collect();
        let mut method = PublicMethod::new(&m.id(), m.owner.len(), refs.as_str(), &absorbed);
        method.index = u32::try_from(i).unwrap_or(u32::MAX);
        method.kind = m.kind;
        method.line_range = m.line_range;
        method.mode = modes.get(i).copied().unwrap_or(MethodMode::New);
        method.trigger = triggers
            .get(i)
            .and_then(Option::as_ref)
            .filter(|_| !m.is_public_api())
            .map(|t| t.text().into_boxed_str());
        public.push(method);
    }
    public.shrink_to_fit();
    let class_name = main_class(&facts);
    let all_new = !modes.is_empty() && modes.iter().all(|m| *m == MethodMode::New);
    let first_diagnostic = facts.diagnostics.first().cloned();
    let methods = facts.methods.len();
    let FileFacts {
        path,
        skipped,
        diagnostic_count,
        classes,
        loc,
        ..
    } = facts;
    let scopes = deps::Scopes::new(&classes);
    let rare = PreparedRare {
        skipped,
        first_diagnostic,
        diagnostic_count,
        old_path,
        unplanned,
    };
    let common = rare.skipped.is_none()
        && rare.first_diagnostic.is_none()
        && rare.diagnostic_count == 0
        && rare.old_path.is_none()
        && rare.unplanned.is_empty();
    Prepared {
        path,
        loc,
        methods,
        change,
        class_name,
        all_new,
        scopes,
        public,
        rare: (!common).then(|| Box::new(rare)),
    }
}

/// The waves of the plan's items, on the numbers their classes got when they were
/// resolved (no name is hashed here). Owners that are not class statements of the files
/// planned (`Object`) get numbers after the known classes.
fn number_and_compute(items: &[Item], known: &[std::sync::Arc<str>]) -> waves::Waves {
    let mut extra: Vec<&str> = items
        .iter()
        .filter(|i| i.class_id.is_none())
        .map(Item::class_name)
        .collect();
    extra.sort_unstable();
    extra.dedup();
    let first_extra = known.len();
    let mut numbered = waves::Numbered {
        nodes: first_extra + extra.len(),
        class: items
            .iter()
            .map(|i| {
                i.class_id.or_else(|| {
                    let at = extra.binary_search(&i.class_name()).ok()?;
                    u32::try_from(first_extra + at).ok()
                })
            })
            .collect(),
        dep_start: Vec::with_capacity(items.len() + 1),
        dep_nodes: Vec::with_capacity(items.iter().map(|i| i.deps.len()).sum()),
    };
    for item in items {
        numbered.dep_start.push(numbered.dep_nodes.len());
        numbered.dep_nodes.extend(item.deps.ids());
    }
    numbered.dep_start.push(numbered.dep_nodes.len());
    waves::compute_numbered(&numbered, |n| {
        let name = match n.checked_sub(first_extra) {
            None => known.get(n).map(|name| &**name),
            Some(at) => extra.get(at).copied(),
        };
        name.unwrap_or_default().to_string()
    })
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
    /// The known classes by number: what the items' [`Deps`] refer to.
    pub classes: Vec<std::sync::Arc<str>>,
}

/// The class a file is about: the one its path names by Rails conventions, else the first
/// class or module that defines a method, else the first one.
pub fn main_class(facts: &FileFacts) -> Option<String> {
    let names = facts.class_names();
    let expected = naming::PathConstant::of(&facts.path);
    if let Some(name) = names.iter().find(|n| expected.matches(n)) {
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

/// Builds the plan for `sources` ([`prepare`]d here, then [`plan_prepared`]).
pub fn plan(sources: Vec<Source>, settings: &Settings) -> Plan {
    let prepared: Vec<Prepared> = sources.into_par_iter().map(prepare).collect();
    plan_prepared(prepared, settings)
}

/// Builds the plan for prepared files (sorted by path here). Files are planned in parallel
/// (on the current rayon pool); the result does not depend on the number of threads.
pub fn plan_prepared(mut sources: Vec<Prepared>, settings: &Settings) -> Plan {
    sources.sort_by(|a, b| a.path.cmp(&b.path));
    let known = deps::Known::from_names(sources.iter().flat_map(Prepared::class_names));
    // Planned a slice of files at a time, so the items of a slice are copied into the
    // plan's list while the rest are not made yet: the whole list never exists twice.
    const SLICE: usize = 2048;
    let count = sources.len();
    let mut files: Vec<FilePlan> = Vec::with_capacity(count);
    let mut items: Vec<Item> = Vec::with_capacity(sources.iter().map(|s| s.public.len()).sum());
    while !sources.is_empty() {
        let first = count - sources.len();
        let take = sources.len().min(SLICE);
        let planned: Vec<(FilePlan, Vec<Item>)> = sources
            .par_drain(..take)
            .enumerate()
            .map(|(i, source)| plan_file(first + i, source, settings, &known))
            .collect();
        for (file, file_items) in planned {
            files.push(file);
            items.extend(file_items);
        }
        // The slice's files are freed: hand their pages back before the next slice's
        // items are written, or the run's peak holds the files and the items at once.
        crate::memory::release();
    }
    // The files' lists now live in the plan's: hand their memory back before the waves
    // are computed.
    drop(sources);
    crate::memory::release();
    // Only the names are needed from here (the cycles, and the items' dependencies).
    finish(files, items, known.into_names(), settings)
}

/// `plan` made again after the files of `edited` changed (each a file of the plan, by
/// path), equal to the plan [`plan_prepared`] makes from every file: the edited files are
/// planned again and the waves computed again over every item. `None` when an edited
/// file's class and module statements are not the ones it had (every file's constants
/// would then resolve anew), or is not a file of the plan.
pub fn patch_prepared(plan: Plan, edited: Vec<Prepared>, settings: &Settings) -> Option<Plan> {
    let Plan {
        mut files,
        mut items,
        classes,
        cycles,
        ..
    } = plan;
    let known = deps::Known::from_names(classes.iter().map(|c| &**c));
    let mut changed = vec![false; files.len()];
    let mut fresh: Vec<Item> = Vec::new();
    for source in edited {
        let index = files
            .binary_search_by(|f| f.path.as_str().cmp(&source.path))
            .ok()?;
        let ids: Vec<u32> = source
            .class_names()
            .map(|name| known.id(name))
            .collect::<Option<_>>()?;
        let slot = files.get_mut(index)?;
        if ids != slot.classes || std::mem::replace(changed.get_mut(index)?, true) {
            return None;
        }
        let (file, file_items) = plan_file(index, source, settings, &known);
        *slot = file;
        fresh.extend(file_items);
    }
    let names = known.into_names();
    // The same names in the same order, or the stored plan's classes were not a set.
    if names.len() != classes.len() {
        return None;
    }
    match same_graph(&items, &changed, fresh) {
        Ok(fresh) => {
            let items = merge_items(&mut files, items, &changed, fresh);
            Some(conclude(files, items, names, cycles, settings))
        }
        Err(fresh) => {
            items.retain(|item| !changed.get(item.file()).copied().unwrap_or(true));
            // The waves do not depend on the items' order (they are computed per class,
            // over sorted edges), and the items are sorted again after them.
            items.extend(fresh);
            for file in &mut files {
                file.items.clear();
            }
            Some(finish(files, items, names, settings))
        }
    }
}

/// What decides an item's wave: its class (by number, or by name for an owner that is no
/// class statement) and the classes it depends on. Items alike have the same wave.
type Shape<'a> = (Option<u32>, &'a str, &'a [u32]);

fn shape(item: &Item) -> Shape<'_> {
    let name = if item.class_id.is_none() {
        item.class_name()
    } else {
        ""
    };
    (item.class_id, name, item.deps.parts().0)
}

/// The edited files' new items with their waves, when the dependency graph cannot have
/// changed: the edited files' items have the same shapes as before (as a set), so every
/// class's highest wave, every cycle and every other item's wave is as stored, and a new
/// item's wave is that of an old item of its shape. `Err` (the items back) otherwise.
fn same_graph(
    items: &[Item],
    changed: &[bool],
    mut fresh: Vec<Item>,
) -> Result<Vec<Item>, Vec<Item>> {
    let edited = |item: &Item| changed.get(item.file()).copied().unwrap_or(true);
    let old: rustc_hash::FxHashMap<Shape<'_>, usize> = items
        .iter()
        .filter(|item| edited(item))
        .map(|item| (shape(item), item.wave))
        .collect();
    let new: rustc_hash::FxHashSet<Shape<'_>> = fresh.iter().map(shape).collect();
    if new.len() != old.len() || !new.iter().all(|s| old.contains_key(s)) {
        return Err(fresh);
    }
    let waves: Vec<usize> = fresh
        .iter()
        .map(|item| old.get(&shape(item)).copied().unwrap_or(0))
        .collect();
    drop(new);
    for (item, wave) in fresh.iter_mut().zip(waves) {
        item.wave = wave;
    }
    Ok(fresh)
}

/// The order of the plan's items: by wave, then file (files are numbered in path order),
/// line, id and the method's place in its file. The key is unique (a file's methods have
/// distinct indices), so an unstable sort gives one order whatever the number of threads.
fn item_order(a: &Item, b: &Item) -> std::cmp::Ordering {
    (a.wave, a.file, a.line_range.0, &a.method_id, a.method).cmp(&(
        b.wave,
        b.file,
        b.line_range.0,
        &b.method_id,
        b.method,
    ))
}

/// A file's items in line order (then by id), as indices into `items`.
fn sort_file_items(list: &mut [usize], items: &[Item]) {
    list.sort_by(|&a, &b| {
        let key = |i: usize| items.get(i).map(|it| (it.line_range.0, &it.method_id));
        key(a).cmp(&key(b))
    });
}

/// The stored items (in plan order) without the edited files' (`changed`), merged with
/// their new items (waves set) in plan order; each file's item list follows: an unchanged
/// file's items keep their order, moved to their new places.
fn merge_items(
    files: &mut [FilePlan],
    items: Vec<Item>,
    changed: &[bool],
    mut fresh: Vec<Item>,
) -> Vec<Item> {
    let edited = |item: &Item| changed.get(item.file()).copied().unwrap_or(true);
    fresh.sort_unstable_by(item_order);
    let mut moved = vec![usize::MAX; items.len()];
    let mut merged: Vec<Item> = Vec::with_capacity(items.len() + fresh.len());
    let mut fresh = fresh.into_iter().peekable();
    for (old, item) in items.into_iter().enumerate() {
        if edited(&item) {
            continue;
        }
        while let Some(next) = fresh.next_if(|f| item_order(f, &item).is_lt()) {
            merged.push(next);
        }
        if let Some(slot) = moved.get_mut(old) {
            *slot = merged.len();
        }
        merged.push(item);
    }
    merged.extend(fresh);
    for (f, file) in files.iter_mut().enumerate() {
        if changed.get(f).copied().unwrap_or(true) {
            file.items.clear();
        } else {
            for i in &mut file.items {
                *i = moved.get(*i).copied().unwrap_or(usize::MAX);
            }
        }
    }
    for (index, item) in merged.iter().enumerate() {
        if edited(item) {
            if let Some(file) = files.get_mut(item.file()) {
                file.items.push(index);
            }
        }
    }
    for (f, file) in files.iter_mut().enumerate() {
        if changed.get(f).copied().unwrap_or(true) {
            sort_file_items(&mut file.items, &merged);
        }
    }
    merged
}

/// The plan from its files and items (in any order): the waves, the cycles, the items
/// sorted by wave and each file's items, then [`conclude`].
fn finish(
    mut files: Vec<FilePlan>,
    mut items: Vec<Item>,
    names: Vec<std::sync::Arc<str>>,
    settings: &Settings,
) -> Plan {
    let computed = number_and_compute(&items, &names);
    // The graph's lists are garbage: the sort and the answer grow on top of them.
    crate::memory::release();
    for (item, wave) in items.iter_mut().zip(computed.wave.iter()) {
        item.wave = *wave;
    }
    // In place: no copy of the items.
    items.par_sort_unstable_by(item_order);
    for (index, item) in items.iter().enumerate() {
        if let Some(file) = files.get_mut(item.file()) {
            file.items.push(index);
        }
    }
    for file in &mut files {
        sort_file_items(&mut file.items, &items);
    }
    conclude(files, items, names, computed.cycles, settings)
}

/// The plan from its files and items in order, with its cycles: the number of waves,
/// the red-zone stops and the warnings (each file's, the cycles', the red zone's).
fn conclude(
    files: Vec<FilePlan>,
    items: Vec<Item>,
    names: Vec<std::sync::Arc<str>>,
    cycles: Vec<Vec<String>>,
    settings: &Settings,
) -> Plan {
    let mut warnings: Vec<String> = files.iter().filter_map(|f| f.warning.clone()).collect();
    for cycle in &cycles {
        warnings.push(cycle_warning(cycle));
    }
    let waves_count = items.iter().map(|i| i.wave + 1).max().unwrap_or(0);

    let mut stopped = Vec::new();
    for file in &files {
        if file.zone != Zone::Red {
            continue;
        }
        if file.all_new {
            if settings.allow_red {
                warnings.push(format!(
                    "{} is in the red zone ({} LOC, {} methods) with only new code; proceeding because of --allow-red",
                    file.path, file.loc, file.methods
                ));
            } else {
                stopped.push(Stopped {
                    path: file.path.clone(),
                    loc: file.loc,
                    methods: file.methods,
                });
            }
        } else {
            warnings.push(format!(
                "{} is in the red zone ({} LOC, {} methods): consider splitting it before adding tests",
                file.path, file.loc, file.methods
            ));
        }
    }

    Plan {
        files,
        items,
        waves_count,
        cycles,
        stopped,
        warnings,
        classes: names,
    }
}

/// One file's part of the plan: its zone and spec path, its wave items (with their
/// dependencies, wave 0 for now), and the warning about public methods of other classes.
fn plan_file(
    file_index: usize,
    source: Prepared,
    settings: &Settings,
    known: &deps::Known,
) -> (FilePlan, Vec<Item>) {
    let Prepared {
        path,
        loc,
        methods,
        change,
        class_name,
        all_new,
        scopes,
        public,
        rare,
    } = source;
    let PreparedRare {
        old_path,
        unplanned,
        ..
    } = rare.map(|r| *r).unwrap_or_default();
    let zone = zones::zone(loc, methods, &settings.zones);
    let spec_path = naming::spec_path(&path, settings.spec_policy);
    let mut warning = None;
    if !unplanned.is_empty() {
        warning = Some(format!(
            "{path}: {} changed, but no public method calls it and it is not a callback, validation or filter of its class in this file, so no plan covers it (registered from another class? test it through that class)",
            unplanned.iter().map(|id| id.as_ref()).collect::<Vec<_>>().join(", ")
        ));
    }
    let mut items = Vec::with_capacity(public.len());
    let mut scratch = deps::Scratch::default();
    for m in public {
        let deps = deps::resolve_refs(m.refs(), m.owner(), &scopes, known, &mut scratch);
        // Every class and module of the file is planned: a second or nested class's
        // methods are selected as the main class's are (their metadata entries name their
        // class).
        let (selected, skip_reason) = if !settings.filter.keeps(m.id()) {
            (false, Some(select::PATTERN_FILTER.into()))
        } else if settings.select_all || m.mode != MethodMode::Unchanged {
            (true, None)
        } else {
            (false, Some(UNCHANGED.into()))
        };
        let absorbed = m.absorbed();
        items.push(Item {
            file: u32::try_from(file_index).unwrap_or(u32::MAX),
            method: m.index,
            class_id: known.id(m.owner()),
            method_id: m.id().into(),
            owner_len: m.owner_len,
            kind: m.kind,
            line_range: m.line_range,
            mode: m.mode,
            selected,
            rare: (skip_reason.is_some() || m.trigger.is_some()).then(|| {
                Box::new(Rare {
                    skip_reason,
                    trigger: m.trigger,
                })
            }),
            deps,
            absorbed,
            wave: 0,
        });
    }
    let file = FilePlan {
        path,
        loc,
        methods,
        change,
        old_path,
        class_name,
        zone,
        spec_path,
        all_new,
        items: Vec::new(),
        classes: scopes.classes().filter_map(|name| known.id(name)).collect(),
        warning,
    };
    (file, items)
}

/// The warning for one dependency cycle. A cycle of hundreds of classes (an app whose
/// models all reach each other) names its first [`CYCLE_NAMED`] and counts the rest: a
/// line no one reads whole would crowd out every other warning.
fn cycle_warning(cycle: &[String]) -> String {
    if cycle.len() <= CYCLE_NAMED + 2 {
        return format!("Circular dependency detected: {}", cycle.join(" ↔ "));
    }
    format!(
        "Circular dependency detected: {} ↔ … ({} classes in the cycle; `--debug` writes each file's dependencies)",
        cycle.iter().take(CYCLE_NAMED).map(String::as_str).collect::<Vec<_>>().join(" ↔ "),
        cycle.len()
    )
}

/// The classes a cycle's warning names.
const CYCLE_NAMED: usize = 10;

#[cfg(test)]
mod tests {

    #[test]
    fn a_long_cycle_names_its_first_classes_and_counts_the_rest() {
        let short: Vec<String> = ["Author", "Book"].map(String::from).to_vec();
        assert_eq!(
            super::cycle_warning(&short),
            "Circular dependency detected: Author ↔ Book"
        );
        let long: Vec<String> = (0..400).map(|i| format!("M{i}")).collect();
        let warning = super::cycle_warning(&long);
        assert!(warning.starts_with("Circular dependency detected: M0 ↔ M1 ↔ "));
        assert!(
            warning.contains("M9 ↔ … (400 classes in the cycle;"),
            "{warning}"
        );
        assert!(!warning.contains("M10 "), "{warning}");
    }
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
            spec_policy: ControllerLayout::Request,
            allow_red: false,
        }
    }

    /// A small app whose files reach each other, with a cycle (Order ↔ Invoice).
    fn app() -> Vec<(&'static str, &'static str)> {
        vec![
            ("app/models/payment.rb", "class Payment\n  def capture; end\nend\n"),
            ("app/models/order.rb", "class Order\n  def total(invoice)\n    invoice.amount\n  end\n\n  def pay\n    Payment.new.capture\n  end\nend\n"),
            ("app/models/invoice.rb", "class Invoice\n  def amount\n    Order.new.total(self)\n  end\nend\n"),
            ("app/services/processor.rb", "module Billing\n  class Processor\n    def run(order)\n      order.pay\n    end\n  end\nend\n"),
            ("app/services/notifier.rb", "class Notifier\n  def call; end\n\n  private\n\n  def helper; end\nend\n"),
        ]
    }

    fn prepared(files: &[(&str, &str)], changed: &str) -> Vec<Prepared> {
        files
            .iter()
            .map(|(path, src)| {
                // The edited file is compared with a base where it was empty: its methods
                // are new, the others unchanged.
                let base = if *path == changed {
                    BaseVersion::Facts(extract(path, b""))
                } else {
                    BaseVersion::Same
                };
                prepare(source(path, src, base))
            })
            .collect()
    }

    #[test]
    fn a_patched_plan_is_the_plan_made_from_every_file() {
        let before = app();
        let stored = plan_prepared(prepared(&before, ""), &settings());
        let mut shapes_kept = Vec::new();
        let edits: [(&str, &str); 6] = [
            // Lines moved and a body changed, the same dependencies: the waves are kept.
            ("app/models/order.rb", "# Orders.\nclass Order\n\n  def total(invoice)\n    invoice.amount + 1\n  end\n\n  def pay\n    Payment.new.capture\n    true\n  end\nend\n"),
            // A method of a cycle's class moved down and changed.
            ("app/models/invoice.rb", "class Invoice\n  # What is due.\n\n  def amount\n    Order.new.total(self) * 2\n  end\nend\n"),
            // A new dependency: Notifier now waits for Payment.
            ("app/services/notifier.rb", "class Notifier\n  def call(payment)\n    payment.capture\n  end\n\n  private\n\n  def helper; end\nend\n"),
            // The cycle broken: Invoice no longer reaches Order.
            ("app/models/invoice.rb", "class Invoice\n  def amount\n    42\n  end\nend\n"),
            // A method gone, one added, lines moved.
            ("app/models/payment.rb", "class Payment\n\n  def refund(order)\n    order.total(nil)\n  end\nend\n"),
            // A changed private method no public method calls: the file's warning.
            ("app/services/notifier.rb", "class Notifier\n  def call; end\n\n  private\n\n  def helper\n    1\n  end\nend\n"),
        ];
        for (path, text) in edits {
            let after: Vec<(&str, &str)> = before
                .iter()
                .map(|&(p, s)| if p == path { (p, text) } else { (p, s) })
                .collect();
            let whole = plan_prepared(prepared(&after, path), &settings());
            let edited: Vec<Prepared> = prepared(&after, path)
                .into_iter()
                .filter(|p| p.path == path)
                .collect();
            // Whether the stored waves are kept: the edited file's items keep their shapes.
            let kept = {
                let index = stored.files.iter().position(|f| f.path == path).unwrap();
                let old: BTreeSet<String> = stored
                    .items
                    .iter()
                    .filter(|i| i.file() == index)
                    .map(|i| format!("{:?}", shape(i)))
                    .collect();
                let new: BTreeSet<String> = whole
                    .items
                    .iter()
                    .filter(|i| i.file() == index)
                    .map(|i| format!("{:?}", shape(i)))
                    .collect();
                old == new
            };
            shapes_kept.push(kept);
            let patched = patch_prepared(stored.clone(), edited, &settings())
                .expect("the same classes: patched");
            assert_ne!(
                format!("{whole:?}"),
                format!("{stored:?}"),
                "{path}: an edit"
            );
            assert_eq!(format!("{patched:?}"), format!("{whole:?}"), "{path}");
        }
        // Both ways are taken: the waves kept, and computed again.
        assert_eq!(shapes_kept, [true, true, false, false, false, true]);
        let warned = plan_prepared(prepared(&before, ""), &settings());
        assert!(warned
            .warnings
            .iter()
            .any(|w| w.starts_with("Circular dependency")));
    }

    #[test]
    fn a_plan_is_not_patched_when_a_file_declares_other_classes() {
        let stored = plan_prepared(prepared(&app(), ""), &settings());
        for text in [
            // A class added.
            "class Payment\n  def capture; end\nend\n\nclass Refund; end\n",
            // A class renamed.
            "class Charge\n  def capture; end\nend\n",
        ] {
            let edited = vec![prepare(source(
                "app/models/payment.rb",
                text,
                BaseVersion::Same,
            ))];
            assert!(
                patch_prepared(stored.clone(), edited, &settings()).is_none(),
                "{text}"
            );
        }
        let stranger = vec![prepare(source(
            "app/models/other.rb",
            "class Payment; end\n",
            BaseVersion::Same,
        ))];
        assert!(patch_prepared(stored, stranger, &settings()).is_none());
    }

    #[test]
    fn a_method_a_later_def_replaces_is_no_unit_of_the_plan() {
        let src = "class Condition\n  def arel_predicate\n    raise \"not implemented\"\n  end\n\n  def value; end\n\n  def arel_predicate\n    negative? ? attr.not_eq(value) : attr.eq(value)\n  end\nend\n";
        let facts = extract("app/models/condition.rb", src.as_bytes());
        assert_eq!(
            crate::index::redefined(&facts.methods),
            [true, false, false]
        );
        let all = Settings {
            select_all: true,
            ..settings()
        };
        let plan = plan(
            vec![source("app/models/condition.rb", src, BaseVersion::Missing)],
            &all,
        );
        let ids: Vec<(&str, u32)> = plan
            .items
            .iter()
            .map(|i| (&*i.method_id, i.line_range.0))
            .collect();
        assert_eq!(
            ids,
            [("Condition#value", 6), ("Condition#arel_predicate", 8)]
        );
        // A stand-in defined where the real one could not be (a `rescue`, an `if`) is an
        // alternative, not a replacement: both are listed.
        let src = "module Jemalloc\n  begin\n    attach_function :mallctl, [:string], :int\n    def self.mallctl!(name)\n      raise Error if mallctl(name) != 0\n    end\n  rescue FFI::NotFoundError\n    def self.mallctl!(...)\n      raise Error\n    end\n  end\n\n  if RUBY_VERSION > \"3\"\n    def self.version = \"5\"\n  else\n    def self.version = \"4\"\n  end\nend\n";
        let facts = extract("app/logical/jemalloc.rb", src.as_bytes());
        let conditional: Vec<bool> = facts.methods.iter().map(|m| m.conditional).collect();
        assert_eq!(conditional, [true, true, true, true]);
        assert_eq!(crate::index::redefined(&facts.methods), [false; 4]);
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
                    i.method_id.to_string(),
                    i.wave,
                    i.deps.keys(&plan.classes).map(str::to_string).collect(),
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
            .map(|i| (&*i.method_id, i.mode, i.selected, i.skip_reason()))
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

    #[test]
    fn a_dependency_reached_through_a_private_method_orders_the_waves() {
        let sources = vec![
            source(
                "app/models/ledger.rb",
                "class Ledger\n  def self.record(x); end\nend\n",
                BaseVersion::Missing,
            ),
            source(
                "app/services/refund.rb",
                "class Refund\n  def call\n    book\n  end\n\n  private\n\n  def book\n    Ledger.record(self)\n  end\nend\n",
                BaseVersion::Same,
            ),
        ];
        let mut s = settings();
        s.select_all = true;
        let plan = plan(sources, &s);
        type Listed<'a> = (&'a str, &'a str, &'a str, usize, Vec<String>, Vec<String>);
        let listed: Vec<Listed> = plan
            .items
            .iter()
            .map(|i| {
                (
                    &*i.method_id,
                    i.class_name(),
                    i.method_name(),
                    i.wave,
                    i.deps.keys(&plan.classes).map(str::to_string).collect(),
                    i.absorbed.to_vec(),
                )
            })
            .collect();
        assert_eq!(
            listed,
            vec![
                ("Ledger.record", "Ledger", "record", 0, vec![], vec![]),
                (
                    "Refund#call",
                    "Refund",
                    "call",
                    1,
                    vec!["Ledger".to_string()],
                    vec!["book".to_string()]
                ),
            ]
        );
        let refund = &plan.files[1];
        assert_eq!(
            (refund.path(), refund.methods, refund.all_new),
            ("app/services/refund.rb", 2, false)
        );
        assert_eq!(plan.items[1].mode, MethodMode::Unchanged);
    }
}
