//! Typed fields each stage writes into a metadata file: the only `Serialize` types for it.
//! Stages build these, convert them to YAML values and set them key by key, so keys the
//! tool does not know keep their place.

use serde::Serialize;

use super::set;
use crate::yaml::{Mapping, Value};

/// `complexity` of a file.
#[derive(Debug, Clone, Serialize)]
pub struct Complexity {
    /// `green|yellow|red`.
    pub zone: &'static str,
    /// Code lines.
    pub loc: u32,
    /// Every method defined in the file.
    pub methods: usize,
}

/// One entry of `methods_to_analyze`.
#[derive(Debug, Clone, Serialize)]
pub struct MethodToAnalyze {
    /// Method name.
    pub name: String,
    /// `instance` or `class` (added field: a class can have `#call` and `.call`).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// An added field: the method's class when it is not the file's `class_name` (a
    /// second or nested class of the file; every class of a file is planned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    /// `new|modified|unchanged`.
    pub method_mode: &'static str,
    /// `[def, end]`.
    pub line_range: [u32; 2],
    /// Whether to analyze it.
    pub selected: bool,
    /// Why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    /// An added field, for a private method Rails calls: what calls it
    /// (`before_create`, `before_action (only: create)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
}

/// What discovery writes.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// Project-relative source path.
    pub source_file: String,
    /// The class under test.
    pub class_name: String,
    /// Zone, LOC, methods.
    pub complexity: Complexity,
    /// Target spec path.
    pub spec_path: String,
    /// The file's public methods of its class.
    pub methods_to_analyze: Vec<MethodToAnalyze>,
    /// Classes in scope the class depends on.
    pub dependencies: Vec<String>,
    /// The metadata slug, when it is not the contract's (another source has that one).
    pub slug: Option<String>,
}

/// The marker version written next to each `*_completed` marker.
pub fn version() -> String {
    format!("rspec-scout {}", env!("CARGO_PKG_VERSION"))
}

impl Discovery {
    /// Sets the discovery fields and `automation.discovery_agent_completed: true`.
    pub fn apply(&self, map: &mut Mapping) {
        if let Some(slug) = &self.slug {
            set(map, "slug", Value::String(slug.clone()));
        }
        set(map, "source_file", Value::String(self.source_file.clone()));
        set(map, "class_name", Value::String(self.class_name.clone()));
        set(map, "complexity", crate::yaml::to_value(&self.complexity));
        set(map, "spec_path", Value::String(self.spec_path.clone()));
        set(
            map,
            "methods_to_analyze",
            crate::yaml::to_value(&self.methods_to_analyze),
        );
        set(
            map,
            "dependencies",
            crate::yaml::to_value(&self.dependencies),
        );
        super::with_automation(map, |auto| {
            set(auto, "discovery_agent_completed", Value::Bool(true));
            set(auto, "discovery_agent_version", Value::String(version()));
        });
    }
}

/// What the code-analyzer stage writes (the contract's fields, plus `source_digest`, and
/// per method `confidence`, `notes` and, for a method without characteristics, its own
/// `behavior_id`).
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The metadata slug.
    pub slug: String,
    /// Project-relative source path.
    pub source_file: String,
    /// The source's mtime in Unix seconds.
    pub source_mtime: i64,
    /// `sha256:<hex>` of the source bytes.
    pub source_digest: String,
    /// The class analyzed.
    pub class_name: String,
    /// The analysis.
    pub analysis: crate::analyze::FileAnalysis,
    /// What else the analysis was made from (the cache's key besides the source).
    pub inputs: AnalysisInputs,
    /// `factories_detected` (`None`: the project has no factories).
    pub factories: Option<crate::analyze::factories::Detected>,
}

/// What an analysis was made from besides its source file: the build's analysis code, the
/// config's side-effect rules, and the other files it read (a controller's parents and
/// concerns). Written to the metadata as `analysis_inputs` (an extension field); the cache
/// takes an analysis only when all of them are what they were.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalysisInputs {
    /// `rspec-scout X.Y.Z (analysis <fingerprint of src/analyze, src/index and src/rails>)`.
    pub analyzer: String,
    /// `sha256:<hex>` of the side-effect rules in effect.
    pub rules: String,
    /// `(project-relative path, sha256:<hex>)` of each other file read.
    pub files: Vec<(String, String)>,
    /// The selection it was made for ([`selection_of`]): a plan that selects other methods
    /// (or the same ones with other modes) needs another analysis.
    pub selection: String,
}

/// The selection an analysis is made for, from a metadata file: `sha256:<hex>` of the
/// selected `methods_to_analyze` entries (name, type, method_mode, in order), or `all`
/// when the file has no such list (`analyze FILE` without discovery: every public method).
pub fn selection_of(metadata: Option<&Mapping>) -> String {
    let Some(Value::Sequence(items)) = metadata.and_then(|m| m.get("methods_to_analyze")) else {
        return "all".to_string();
    };
    let mut text = String::new();
    for item in items {
        let Some(m) = item.as_mapping() else {
            continue;
        };
        if m.get("selected").and_then(Value::as_bool) != Some(true) {
            continue;
        }
        for key in ["name", "type", "class_name", "method_mode"] {
            text.push_str(m.get(key).and_then(Value::as_str).unwrap_or_default());
            text.push('\t');
        }
        text.push('\n');
    }
    super::digest(text.as_bytes())
}

/// Why the analysis a metadata file holds no longer fits its plan: the selection it was
/// made for differs from the file's `methods_to_analyze` now (`None` when it fits, or when
/// no selection was recorded: an analysis another tool wrote).
pub fn selection_changed(metadata: &Mapping) -> Option<String> {
    let recorded = metadata
        .get("analysis_inputs")
        .and_then(Value::as_mapping)?
        .get("selection")
        .and_then(Value::as_str)?;
    if recorded == selection_of(Some(metadata)) {
        return None;
    }
    // A plan of what changed selects nothing of a file nothing in changed: analyzing again
    // plans nothing either, so say the step that plans its methods.
    let none_selected = metadata
        .get("methods_to_analyze")
        .and_then(Value::as_sequence)
        .is_some_and(|items| {
            !items.iter().any(|i| {
                i.as_mapping()
                    .and_then(|m| m.get("selected"))
                    .and_then(Value::as_bool)
                    == Some(true)
            })
        });
    Some(if none_selected {
        format!(
            "{NOTHING_SELECTED} (nothing in it changed against the base); run `rspec-scout discover --all {}` to plan every method of it, then `rspec-scout analyze` it",
            metadata
                .get("source_file")
                .and_then(Value::as_str)
                .unwrap_or("FILE")
        )
    } else {
        "the plan selects other methods than the analysis was made for (run `rspec-scout analyze --from-metadata`)".to_string()
    })
}

/// How [`selection_changed`] begins when the plan selects no method of the file.
pub const NOTHING_SELECTED: &str = "the plan selects no method of this file";

impl AnalysisInputs {
    /// This build's analyzer.
    pub fn analyzer() -> String {
        format!(
            "{} (analysis {})",
            version(),
            env!("RSPEC_SCOUT_ANALYSIS_HASH")
        )
    }

    /// `sha256:<hex>` of the side-effect rules in effect (of their `Debug` text: any change
    /// to a rule changes it) and of the gems the project resolves (an API SDK's constant
    /// is a client when its gem is there; a version bump changes nothing).
    pub fn rules_digest(rules: &impl std::fmt::Debug, gems: Option<&[String]>) -> String {
        match gems {
            None => super::digest(format!("{rules:?}").as_bytes()),
            Some(gems) => super::digest(format!("{rules:?}\ngems: {gems:?}").as_bytes()),
        }
    }

    /// The `analysis_inputs` mapping.
    pub fn value(&self) -> Value {
        let mut map = Mapping::new();
        set(&mut map, "analyzer", Value::String(self.analyzer.clone()));
        set(&mut map, "rules", Value::String(self.rules.clone()));
        let files = self
            .files
            .iter()
            .map(|(path, digest)| {
                let mut f = Mapping::new();
                set(&mut f, "path", Value::String(path.clone()));
                set(&mut f, "digest", Value::String(digest.clone()));
                Value::Mapping(f)
            })
            .collect();
        set(&mut map, "files", Value::Sequence(files));
        set(&mut map, "selection", Value::String(self.selection.clone()));
        Value::Mapping(map)
    }

    /// Whether the analysis a metadata file holds may be reused as far as its other inputs
    /// go: `Err` says why not. Its `analysis_inputs` must name `analyzer` and `rules`, and
    /// each file it lists must still have its digest (`digest_of` reads it now). Metadata
    /// without `analysis_inputs` that another analyzer wrote (the pipeline's own) is kept:
    /// its inputs are not ours to judge, and it may have cost an agent minutes; one an
    /// earlier rspec-scout wrote is made again.
    pub fn check(
        metadata: &Mapping,
        analyzer: &str,
        rules: &str,
        digest_of: impl Fn(&str) -> Option<String>,
    ) -> Result<(), String> {
        let Some(value) = metadata.get("analysis_inputs") else {
            let ours = metadata
                .get("automation")
                .and_then(Value::as_mapping)
                .and_then(|a| a.get("code_analyzer_version"))
                .and_then(Value::as_str)
                .is_some_and(|v| v.starts_with("rspec-scout"));
            return if ours {
                Err("analyzed by an earlier rspec-scout".to_string())
            } else {
                Ok(())
            };
        };
        let Some(map) = value.as_mapping() else {
            return Err("analysis_inputs is not a mapping".to_string());
        };
        let text = |k: &str| map.get(k).and_then(Value::as_str);
        if text("analyzer") != Some(analyzer) {
            return Err("analyzed by another rspec-scout build".to_string());
        }
        if text("rules") != Some(rules) {
            return Err("side_effects rules changed".to_string());
        }
        if text("selection") != Some(selection_of(Some(metadata)).as_str()) {
            return Err("the plan's selection changed".to_string());
        }
        let Some(Value::Sequence(files)) = map.get("files") else {
            return Err("analysis_inputs has no files list".to_string());
        };
        for f in files {
            let f = f.as_mapping();
            let get = |k: &str| f.and_then(|m| m.get(k)).and_then(Value::as_str);
            match (get("path"), get("digest")) {
                (Some(path), Some(digest)) if digest_of(path).as_deref() == Some(digest) => {}
                (Some(path), Some(_)) => return Err(format!("{path} changed")),
                _ => return Err("analysis_inputs lists a file without path or digest".to_string()),
            }
        }
        Ok(())
    }
}

impl Analysis {
    /// The contract's `data` mapping: slug, source_file, source_mtime, source_digest,
    /// class_name, behaviors, methods.
    pub fn data(&self) -> Mapping {
        // Behavior ids by text, built once (a scan of the bank per value was quadratic).
        let mut ids = Ids::new();
        for b in &self.analysis.behaviors {
            ids.entry(b.description.as_str()).or_insert(b.id.as_str());
        }
        let mut map = Mapping::new();
        set(&mut map, "slug", Value::String(self.slug.clone()));
        set(
            &mut map,
            "source_file",
            Value::String(self.source_file.clone()),
        );
        set(&mut map, "source_mtime", Value::from(self.source_mtime));
        set(
            &mut map,
            "source_digest",
            Value::String(self.source_digest.clone()),
        );
        set(
            &mut map,
            "class_name",
            Value::String(self.class_name.clone()),
        );
        set(
            &mut map,
            "behaviors",
            Value::Sequence(self.analysis.behaviors.iter().map(behavior_value).collect()),
        );
        set(
            &mut map,
            "methods",
            Value::Sequence(
                self.analysis
                    .methods
                    .iter()
                    .map(|m| method_value(m, &ids))
                    .collect(),
            ),
        );
        if let Some(f) = &self.factories {
            set(&mut map, "factories_detected", factories_value(f));
        }
        map
    }

    /// Sets the analyzer's fields, marks the stage complete, and clears later stages'
    /// markers (their work was based on an older analysis).
    pub fn apply(&self, map: &mut Mapping) {
        for (key, value) in self.data() {
            if let Value::String(k) = key {
                set(map, &k, value);
            }
        }
        set(map, "analysis_inputs", self.inputs.value());
        super::clear_later_markers(map, "code_analyzer");
        super::with_automation(map, |auto| {
            auto.remove("code_analyzer_skipped");
            auto.remove("code_analyzer_skip_reason");
            set(auto, "code_analyzer_completed", Value::Bool(true));
            set(auto, "code_analyzer_version", Value::String(version()));
        });
    }
}

/// `factories_detected`: the factory of each class the file's tests set up, and the trait
/// (or the warning) for each characteristic value a trait would set up.
fn factories_value(f: &crate::analyze::factories::Detected) -> Value {
    let text = |s: &str| Value::String(s.to_string());
    let opt = |s: &Option<String>| s.as_deref().map_or(Value::Null, text);
    let mut map = Mapping::new();
    set(&mut map, "library", f.library.map_or(Value::Null, text));
    let classes = f
        .classes
        .iter()
        .map(|c| {
            let mut m = Mapping::new();
            set(&mut m, "class", text(&c.class));
            set(&mut m, "factory", opt(&c.factory));
            if c.factory.is_some() {
                set(&mut m, "file", opt(&c.file));
                set(&mut m, "line", c.line.map_or(Value::Null, Value::from));
                set(
                    &mut m,
                    "traits",
                    Value::Sequence(c.traits.iter().map(|t| text(t)).collect()),
                );
                if !c.other_factories.is_empty() {
                    set(
                        &mut m,
                        "other_factories",
                        Value::Sequence(c.other_factories.iter().map(|t| text(t)).collect()),
                    );
                }
            }
            Value::Mapping(m)
        })
        .collect();
    set(&mut map, "factories", Value::Sequence(classes));
    let values = f
        .values
        .iter()
        .map(|v| {
            let mut m = Mapping::new();
            set(&mut m, "method", text(&v.method));
            set(&mut m, "characteristic", text(&v.characteristic));
            set(&mut m, "value", v.value.clone());
            set(&mut m, "class", text(&v.class));
            set(&mut m, "attribute", text(&v.attribute));
            set(&mut m, "factory", text(&v.factory));
            set(&mut m, "trait", opt(&v.trait_name));
            set(&mut m, "status", text(v.status));
            if let Some(s) = &v.suggested_trait {
                set(&mut m, "suggested_trait", text(s));
            }
            Value::Mapping(m)
        })
        .collect();
    set(&mut map, "traits", Value::Sequence(values));
    set(
        &mut map,
        "warnings",
        Value::Sequence(f.warnings.iter().map(|w| text(w)).collect()),
    );
    Value::Mapping(map)
}

fn behavior_value(b: &crate::analyze::Behavior) -> Value {
    let mut map = Mapping::new();
    set(&mut map, "id", Value::String(b.id.clone()));
    set(
        &mut map,
        "description",
        Value::String(b.description.clone()),
    );
    set(&mut map, "type", Value::String(b.kind.as_str().to_string()));
    if let Some(subtype) = b.subtype {
        set(&mut map, "subtype", Value::String(subtype.to_string()));
    }
    set(&mut map, "enabled", Value::Bool(true));
    set(&mut map, "used_by", Value::from(b.used_by as u64));
    Value::Mapping(map)
}

/// Behavior ids by description, as [`crate::analyze::FileAnalysis::id_of`] finds them.
type Ids<'a> = std::collections::HashMap<&'a str, &'a str>;

fn method_value(m: &crate::analyze::model::MethodAnalysis, ids: &Ids<'_>) -> Value {
    let mut map = Mapping::new();
    set(&mut map, "name", Value::String(m.name.clone()));
    set(&mut map, "type", Value::String(m.kind.to_string()));
    // An added field: the method's class when it is not the file's `class_name` (a
    // second or nested class of the file).
    if let Some(class) = &m.class_name {
        set(&mut map, "class_name", Value::String(class.clone()));
    }
    set(
        &mut map,
        "method_mode",
        Value::String(m.method_mode.clone()),
    );
    set(&mut map, "analyzed", Value::Bool(true));
    let effects: Vec<Value> = m
        .side_effects
        .iter()
        .map(|e| {
            let mut em = Mapping::new();
            set(&mut em, "type", Value::String(e.kind.to_string()));
            set(&mut em, "behavior_id", id_value(ids, &e.behavior));
            // Added fields: the leaves that end with it expect it (not every context);
            // where it is reached from when it is not in the method's own code.
            if e.leaf {
                set(&mut em, "scope", Value::String("leaf".to_string()));
            }
            if let Some(via) = &e.via {
                set(&mut em, "via", Value::String(via.clone()));
            }
            Value::Mapping(em)
        })
        .collect();
    set(&mut map, "side_effects", Value::Sequence(effects));
    // An added field: what calls a private method Rails runs (the skeleton's subject).
    if let Some(trigger) = &m.trigger {
        set(&mut map, "trigger", Value::String(trigger.clone()));
    }
    // An added field: the rows the method writes (test-config's db decision).
    if !m.db_writes.is_empty() {
        let writes = m
            .db_writes
            .iter()
            .map(|w| {
                let mut wm = Mapping::new();
                set(&mut wm, "operation", Value::String(w.operation.clone()));
                set(&mut wm, "target", Value::String(w.target.clone()));
                // A write reached through another method is on a line of that method's
                // file: `via` names it instead.
                match &w.via {
                    None => set(&mut wm, "line", Value::from(w.line)),
                    Some(via) => set(&mut wm, "via", Value::String(via.clone())),
                }
                Value::Mapping(wm)
            })
            .collect();
        set(&mut map, "db_writes", Value::Sequence(writes));
    }
    let chars: Vec<Value> = m
        .characteristics
        .iter()
        .map(|c| characteristic_value(c, m, ids))
        .collect();
    set(&mut map, "characteristics", Value::Sequence(chars));
    set(
        &mut map,
        "dependencies",
        Value::Sequence(
            m.dependencies
                .iter()
                .map(|d| Value::String(d.clone()))
                .collect(),
        ),
    );
    if let Some(outcome) = &m.outcome {
        set(&mut map, "behavior_id", id_value(ids, outcome));
    }
    set(&mut map, "confidence", Value::from(m.confidence));
    set(
        &mut map,
        "notes",
        Value::Sequence(m.notes.iter().map(|n| Value::String(n.clone())).collect()),
    );
    Value::Mapping(map)
}

fn id_value(ids: &Ids<'_>, draft: &crate::analyze::model::BehaviorDraft) -> Value {
    ids.get(draft.description.as_str())
        .map_or(Value::Null, |id| Value::String((*id).to_string()))
}

fn characteristic_value(
    c: &crate::analyze::model::Characteristic,
    m: &crate::analyze::model::MethodAnalysis,
    ids: &Ids<'_>,
) -> Value {
    use crate::analyze::model::{CharType, Source};
    let mut map = Mapping::new();
    set(&mut map, "name", Value::String(c.name.clone()));
    set(
        &mut map,
        "description",
        Value::String(c.description.clone()),
    );
    set(&mut map, "type", Value::String(c.kind.as_str().to_string()));
    let mut source = Mapping::new();
    match &c.source {
        Source::Internal => set(&mut source, "kind", Value::String("internal".into())),
        Source::External { class, method } => {
            set(&mut source, "kind", Value::String("external".into()));
            set(&mut source, "class", Value::String(class.clone()));
            set(&mut source, "method", Value::String(method.clone()));
        }
    }
    set(&mut map, "source", Value::Mapping(source));
    let values: Vec<Value> = c
        .values
        .iter()
        .map(|v| {
            let mut vm = Mapping::new();
            set(&mut vm, "value", v.value.clone());
            set(&mut vm, "description", Value::String(v.description.clone()));
            set(&mut vm, "terminal", Value::Bool(v.terminal));
            if let Some(b) = &v.behavior {
                set(&mut vm, "behavior_id", id_value(ids, b));
            }
            Value::Mapping(vm)
        })
        .collect();
    set(&mut map, "values", Value::Sequence(values));
    set(
        &mut map,
        "source_line",
        Value::String(c.source_line.clone()),
    );
    let mut setup = Mapping::new();
    set(
        &mut setup,
        "type",
        Value::String(c.setup.kind.as_str().to_string()),
    );
    set(
        &mut setup,
        "class",
        c.setup.class.clone().map_or(Value::Null, Value::String),
    );
    set(&mut map, "setup", Value::Mapping(setup));
    set(&mut map, "level", Value::from(u64::from(c.level)));
    let parent = c.parent.and_then(|p| m.characteristics.get(p));
    set(
        &mut map,
        "depends_on",
        parent.map_or(Value::Null, |p| Value::String(p.name.clone())),
    );
    set(
        &mut map,
        "when_parent",
        if parent.is_some() {
            Value::Sequence(c.when_parent.clone())
        } else {
            Value::Null
        },
    );
    if c.kind == CharType::Range {
        set(
            &mut map,
            "threshold_value",
            c.threshold_value.clone().unwrap_or(Value::Null),
        );
        set(
            &mut map,
            "threshold_operator",
            c.threshold_operator
                .map_or(Value::Null, |o| Value::String(o.to_string())),
        );
    }
    Value::Mapping(map)
}
