//! Stage validation of a metadata file: every check of the pipeline's
//! `validate_metadata_stage.rb`, with its message texts, labels and order, plus the
//! `--strict` checks the original never made. Pure: a loaded YAML value in, messages out
//! (the spec-writer stage reads the spec file through a callback the caller supplies).
//!
//! The original is Ruby, and several of its checks depend on Ruby semantics (`to_s` of any
//! value, `==` between Integer and Float, `String#[]` on a string where a Hash was
//! expected, Unicode word boundaries in its regular expressions); [`crate::ruby`] reproduces the
//! ones that decide a message. Where the original crashes on a malformed file (a Ruby
//! exception and a backtrace), we report the error the file deserves and go on.

use crate::ruby;
use crate::vocab::{
    BehaviorKind, CharType, Confidence, IsolationMode, MethodMode, MethodType, SetupType,
    SideEffectKind, SourceKind, TestLevel, Zone,
};
use crate::yaml::{Mapping, Value};

pub use crate::vocab::Stage;

/// What the spec-writer stage found at `spec_path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecFile {
    /// Nothing exists there.
    Missing,
    /// Something exists but cannot be read as a file (a folder, no permission); the reason.
    Unreadable(String),
    /// The file's text (invalid UTF-8 replaced).
    Text(String),
}

/// Errors and warnings, in the order the original collects them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Any error fails the stage (exit 1).
    pub errors: Vec<String>,
    /// Warnings alone pass with exit 2.
    pub warnings: Vec<String>,
}

/// How to validate.
pub struct Checks<'a> {
    /// Also report, as errors, the rules the original never checked.
    pub strict: bool,
    /// Reads `spec_path` (exactly as written in the metadata) for the spec-writer stage.
    pub spec_file: &'a dyn Fn(&str) -> SpecFile,
}

/// Contexts the leaf check walks at most before giving up: a metadata file whose
/// characteristics multiply beyond this is reported instead of hanging (the original
/// would run out of time or memory).
pub const MAX_CONTEXTS: usize = 100_000;

/// Validates a loaded metadata file for `stage`.
pub fn validate(stage: Stage, metadata: &Value, checks: &Checks<'_>) -> Outcome {
    let mut v = Validator::default();
    let Value::Mapping(map) = metadata else {
        v.errors.push("metadata must be a Hash".to_string());
        return v.finish();
    };
    match stage {
        Stage::DiscoveryAgent => v.discovery_agent(map, checks.strict),
        Stage::CodeAnalyzer => v.code_analyzer(map, checks.strict),
        Stage::SpecWriter => v.spec_writer(map, checks),
    }
    v.finish()
}

#[derive(Default)]
struct Validator {
    errors: Vec<String>,
    warnings: Vec<String>,
    /// `--strict` findings, appended after the original's errors.
    strict: Vec<String>,
}

/// `hash[key]`, `None` for a missing key.
fn get<'a>(map: &'a Mapping, key: &str) -> Option<&'a Value> {
    map.get(key)
}

/// Ruby's `hash[key] || default`-free lookup: `nil` for a missing key.
fn field(map: &Mapping, key: &str) -> Value {
    get(map, key).cloned().unwrap_or(Value::Null)
}

impl Validator {
    fn finish(mut self) -> Outcome {
        self.errors.append(&mut self.strict);
        Outcome {
            errors: self.errors,
            warnings: self.warnings,
        }
    }

    fn hash(&mut self, value: Option<&Value>, label: &str) {
        if !matches!(value, Some(Value::Mapping(_))) {
            self.errors.push(format!("{label} must be a Hash"));
        }
    }

    fn array(&mut self, value: Option<&Value>, label: &str) {
        if !matches!(value, Some(Value::Sequence(_))) {
            self.errors.push(format!("{label} must be an Array"));
        }
    }

    fn string(&mut self, value: Option<&Value>, label: &str) {
        if !ruby::is_present_string(value) {
            self.errors
                .push(format!("{label} must be a non-empty String"));
        }
    }

    fn boolean(&mut self, value: Option<&Value>, label: &str) {
        if !matches!(value, Some(Value::Bool(_))) {
            self.errors.push(format!("{label} must be boolean"));
        }
    }

    fn integer(&mut self, value: Option<&Value>, label: &str) {
        if !value.is_some_and(ruby::is_integer) {
            self.errors.push(format!("{label} must be an Integer"));
        }
    }

    fn one_of(&mut self, value: Option<&Value>, label: &str, allowed: &[&str]) {
        if !is_one_of(value, allowed) {
            self.errors
                .push(format!("{label} must be one of: {}", allowed.join(", ")));
        }
    }

    /// `metadata['automation'] || {}`, checked to be a Hash. A String automation is looked
    /// into the way Ruby's `String#[]` does; other non-Hash values read as empty.
    fn automation(&mut self, map: &Mapping) -> Value {
        let automation = match get(map, "automation") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => Value::Mapping(Mapping::new()),
            Some(other) => other.clone(),
        };
        self.hash(Some(&automation), "automation");
        automation
    }

    fn discovery_agent(&mut self, map: &Mapping, strict: bool) {
        let automation = self.automation(map);
        self.boolean(
            ruby::index(&automation, "discovery_agent_completed").as_ref(),
            "automation.discovery_agent_completed",
        );
        self.string(get(map, "source_file"), "source_file");
        self.string(get(map, "class_name"), "class_name");
        self.string(get(map, "spec_path"), "spec_path");

        let complexity = get(map, "complexity");
        self.hash(complexity, "complexity");
        if let Some(Value::Mapping(c)) = complexity {
            self.string(get(c, "zone"), "complexity.zone");
            if strict && ruby::is_present_string(get(c, "zone")) {
                self.strict_one_of(get(c, "zone"), "complexity.zone", Zone::NAMES);
            }
        }

        let methods = get(map, "methods_to_analyze");
        self.array(methods, "methods_to_analyze");
        let Some(Value::Sequence(methods)) = methods else {
            return;
        };
        if methods.is_empty() {
            self.errors
                .push("methods_to_analyze must not be empty".to_string());
            return;
        }
        for (idx, m) in methods.iter().enumerate() {
            let label = format!("methods_to_analyze[{idx}]");
            let Value::Mapping(m) = m else {
                self.errors.push(format!("{label} must be a Hash"));
                continue;
            };
            self.string(get(m, "name"), &format!("{label}.name"));
            self.one_of(
                get(m, "method_mode"),
                &format!("{label}.method_mode"),
                MethodMode::NAMES,
            );
            self.boolean(get(m, "selected"), &format!("{label}.selected"));
            let line_range = get(m, "line_range");
            self.array(line_range, &format!("{label}.line_range"));
            if let Some(Value::Sequence(range)) = line_range {
                if let [start, end] = range.as_slice() {
                    self.integer(Some(start), &format!("{label}.line_range[0]"));
                    self.integer(Some(end), &format!("{label}.line_range[1]"));
                    if strict {
                        if let (Some(s), Some(e)) = (ruby::as_f64(start), ruby::as_f64(end)) {
                            if ruby::is_integer(start) && ruby::is_integer(end) && s > e {
                                self.strict
                                    .push(format!("{label}.line_range must have start <= end"));
                            }
                        }
                    }
                } else {
                    self.errors
                        .push(format!("{label}.line_range must be [start, end]"));
                }
            }
            if strict {
                if let Some(reason) = get(m, "skip_reason").filter(|v| !v.is_null()) {
                    if !ruby::is_present_string(Some(reason)) {
                        self.strict
                            .push(format!("{label}.skip_reason must be a non-empty String"));
                    }
                }
            }
        }

        if ruby::to_s(&field(map, "spec_path")).starts_with("spec/controllers/") {
            self.warnings.push(
                "spec_path is under spec/controllers; prefer spec/requests for new Rails controllers tests"
                    .to_string(),
            );
        }
    }

    fn strict_one_of(&mut self, value: Option<&Value>, label: &str, allowed: &[&str]) {
        if !is_one_of(value, allowed) {
            self.strict
                .push(format!("{label} must be one of: {}", allowed.join(", ")));
        }
    }

    fn code_analyzer(&mut self, map: &Mapping, strict: bool) {
        let automation = self.automation(map);
        self.boolean(
            ruby::index(&automation, "code_analyzer_completed").as_ref(),
            "automation.code_analyzer_completed",
        );
        self.string(get(map, "slug"), "slug");
        self.string(get(map, "source_file"), "source_file");
        self.integer(get(map, "source_mtime"), "source_mtime");
        self.string(get(map, "class_name"), "class_name");

        let bank = self.behaviors(get(map, "behaviors"), strict);

        let methods = get(map, "methods");
        self.array(methods, "methods");
        let Some(Value::Sequence(methods)) = methods else {
            return;
        };
        if methods.is_empty() {
            self.errors.push("methods must not be empty".to_string());
            return;
        }

        self.selection(map, methods);

        let mut combinatorial = Vec::new();
        for (idx, m) in methods.iter().enumerate() {
            let Value::Mapping(m) = m else {
                self.errors.push(format!("methods[{idx}] must be a Hash"));
                continue;
            };
            self.method(idx, m, &bank, strict, &mut combinatorial);
        }
        if !combinatorial.is_empty() {
            self.warnings.append(&mut combinatorial);
            self.warnings.push(
                "AskUserQuestion recommended: continue generation vs pause and reduce scope"
                    .to_string(),
            );
        }
    }

    /// Checks the behavior bank and returns it: the String ids, first occurrence first.
    fn behaviors(&mut self, behaviors: Option<&Value>, strict: bool) -> Vec<String> {
        self.array(behaviors, "behaviors");
        let mut bank: Vec<String> = Vec::new();
        let Some(Value::Sequence(behaviors)) = behaviors else {
            return bank;
        };
        for (idx, b) in behaviors.iter().enumerate() {
            let label = format!("behaviors[{idx}]");
            let Value::Mapping(b) = b else {
                self.errors.push(format!("{label} must be a Hash"));
                continue;
            };
            self.string(get(b, "id"), &format!("{label}.id"));
            let enabled = get(b, "enabled") != Some(&Value::Bool(false));
            if enabled {
                self.string(get(b, "description"), &format!("{label}.description"));
            }
            if let (true, Some(Value::String(description))) = (enabled, get(b, "description")) {
                let description = ruby::strip(description);
                if ruby::has_any_word(
                    description,
                    &[
                        "should", "could", "would", "may", "might", "must", "can", "cannot",
                    ],
                ) {
                    self.errors.push(format!(
                        "{label}.description must not contain modal verbs (should/could/would/may/might/must/can/cannot)"
                    ));
                }
                if ruby::starts_with_word(description, &["it"]) {
                    self.errors.push(format!(
                        "{label}.description must not start with 'it' (RSpec adds it)"
                    ));
                }
                if ruby::words(description, "not").iter().any(|w| *w != "NOT") {
                    self.errors.push(format!(
                        "{label}.description must use 'NOT' (all caps) instead of 'not'"
                    ));
                }
            }
            if strict {
                self.strict_behavior(&label, b);
            }
            if let Some(Value::String(id)) = get(b, "id") {
                if bank.contains(id) {
                    self.errors
                        .push(format!("behaviors[].id must be unique; duplicate: {id}"));
                } else {
                    bank.push(id.clone());
                }
            }
        }
        bank
    }

    fn strict_behavior(&mut self, label: &str, b: &Mapping) {
        self.strict_one_of(
            get(b, "type"),
            &format!("{label}.type"),
            BehaviorKind::NAMES,
        );
        if get(b, "type").and_then(Value::as_str) == Some("side_effect") {
            self.strict_one_of(
                get(b, "subtype"),
                &format!("{label}.subtype"),
                SideEffectKind::NAMES,
            );
        }
        if let Some(enabled) = get(b, "enabled") {
            if !matches!(enabled, Value::Bool(_)) {
                self.strict.push(format!("{label}.enabled must be boolean"));
            }
        }
    }

    /// `methods[].name` must equal the selected `methods_to_analyze[].name`s.
    fn selection(&mut self, map: &Mapping, methods: &[Value]) {
        let Some(Value::Sequence(to_analyze)) = get(map, "methods_to_analyze") else {
            return;
        };
        let selected: Vec<Value> = to_analyze
            .iter()
            .filter_map(|m| match m {
                Value::Mapping(m) if get(m, "selected") == Some(&Value::Bool(true)) => {
                    get(m, "name").filter(|n| !n.is_null()).cloned()
                }
                _ => None,
            })
            .collect();
        if selected.is_empty() {
            return;
        }
        let names: Vec<Value> = methods
            .iter()
            .filter_map(|m| match m {
                Value::Mapping(m) => get(m, "name").filter(|n| !n.is_null()).cloned(),
                _ => None,
            })
            .collect();
        let missing = ruby::difference(&selected, &names);
        let extra = ruby::difference(&names, &selected);
        if !missing.is_empty() {
            self.errors.push(format!(
                "methods missing selected methods: {}",
                ruby::join(&missing, ", ")
            ));
        }
        if !extra.is_empty() {
            self.errors.push(format!(
                "methods contains unselected methods: {}",
                ruby::join(&extra, ", ")
            ));
        }
    }

    fn method(
        &mut self,
        idx: usize,
        m: &Mapping,
        bank: &[String],
        strict: bool,
        combinatorial: &mut Vec<String>,
    ) {
        let label = format!("methods[{idx}]");
        self.string(get(m, "name"), &format!("{label}.name"));
        self.one_of(get(m, "type"), &format!("{label}.type"), MethodType::NAMES);
        self.boolean(get(m, "analyzed"), &format!("{label}.analyzed"));
        self.one_of(
            get(m, "method_mode"),
            &format!("{label}.method_mode"),
            MethodMode::NAMES,
        );
        let characteristics = get(m, "characteristics");
        self.array(characteristics, &format!("{label}.characteristics"));

        // `m['side_effects'] || []`: the original's Array check can never fire, and a
        // non-Array value is silently ignored.
        let side_effects = match get(m, "side_effects") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => Some(&[][..]),
            Some(Value::Sequence(items)) => Some(items.as_slice()),
            Some(_) => None,
        };
        if strict && side_effects.is_none() {
            self.strict
                .push(format!("{label}.side_effects must be an Array"));
        }
        let side_effect_count = side_effects.map_or(0, <[Value]>::len);
        let name = ruby::to_s(&field(m, "name"));

        if let Some(Value::Sequence(chars)) = characteristics {
            for (cidx, c) in chars.iter().enumerate() {
                let clabel = format!("{label}.characteristics[{cidx}]");
                let Value::Mapping(c) = c else {
                    self.errors.push(format!("{clabel} must be a Hash"));
                    continue;
                };
                self.characteristic(&clabel, c, bank, strict);
            }

            let tree = Tree::build(chars);
            if tree.overflow {
                self.errors.push(format!(
                    "Context tree of method '{name}' has more than {MAX_CONTEXTS} contexts; reduce its characteristics"
                ));
            }
            for leaf in &tree.leaves {
                let behavior_id = ruby::index(leaf, "behavior_id").unwrap_or(Value::Null);
                if ruby::blank_value(Some(&behavior_id)) {
                    self.errors.push(format!(
                        "Missing values[].behavior_id on leaf value (method '{name}')"
                    ));
                    break;
                }
                let bid = ruby::to_s(&behavior_id);
                if !bank.contains(&bid) {
                    self.errors.push(format!(
                        "Unknown behavior_id '{bid}' on leaf value (method '{name}')"
                    ));
                }
            }
            let leaf_contexts = tree.leaves.len();
            let examples = leaf_contexts.saturating_mul(1 + side_effect_count);
            if chars.len() >= 5 || leaf_contexts >= 25 || examples >= 50 {
                combinatorial.push(format!(
                    "Potential combinatorial explosion for method '{name}': characteristics={}, leaf_contexts≈{leaf_contexts}, examples≈{examples}",
                    chars.len()
                ));
            }
            if strict {
                self.strict_tree(&label, chars, &tree);
            }
        }

        for (eidx, e) in side_effects.unwrap_or_default().iter().enumerate() {
            let elabel = format!("{label}.side_effects[{eidx}]");
            let Value::Mapping(e) = e else {
                self.errors.push(format!("{elabel} must be a Hash"));
                continue;
            };
            self.string(get(e, "behavior_id"), &format!("{elabel}.behavior_id"));
            let bid = ruby::to_s(&field(e, "behavior_id"));
            if !(ruby::strip(&bid).is_empty() || bank.contains(&bid)) {
                self.errors
                    .push(format!("Unknown behavior_id '{bid}' in {elabel}"));
            }
            if strict {
                self.strict_one_of(
                    get(e, "type"),
                    &format!("{elabel}.type"),
                    SideEffectKind::NAMES,
                );
            }
        }
    }

    fn characteristic(&mut self, label: &str, c: &Mapping, bank: &[String], strict: bool) {
        self.string(get(c, "name"), &format!("{label}.name"));
        self.string(get(c, "description"), &format!("{label}.description"));
        self.string(get(c, "type"), &format!("{label}.type"));
        self.integer(get(c, "level"), &format!("{label}.level"));
        self.array(get(c, "values"), &format!("{label}.values"));

        let source = get(c, "source");
        self.hash(source, &format!("{label}.source"));
        if let Some(Value::Mapping(source)) = source {
            self.one_of(
                get(source, "kind"),
                &format!("{label}.source.kind"),
                SourceKind::NAMES,
            );
            if strict && get(source, "kind").and_then(Value::as_str) == Some("external") {
                for key in ["class", "method"] {
                    if !ruby::is_present_string(get(source, key)) {
                        self.strict.push(format!(
                            "{label}.source.{key} must be a non-empty String for an external source"
                        ));
                    }
                }
            }
        }
        let setup = get(c, "setup");
        self.hash(setup, &format!("{label}.setup"));
        if let Some(Value::Mapping(setup)) = setup {
            self.one_of(
                get(setup, "type"),
                &format!("{label}.setup.type"),
                SetupType::NAMES,
            );
        }
        if strict {
            if ruby::is_present_string(get(c, "type")) {
                self.strict_one_of(get(c, "type"), &format!("{label}.type"), CharType::NAMES);
            }
            if let Some(when_parent) = get(c, "when_parent") {
                if !matches!(when_parent, Value::Sequence(_) | Value::Null) {
                    self.strict
                        .push(format!("{label}.when_parent must be an Array"));
                }
            }
        }

        let Some(Value::Sequence(values)) = get(c, "values") else {
            return;
        };
        if strict && values.is_empty() {
            self.strict
                .push(format!("{label}.values must have at least one value"));
        }
        let level = get(c, "level");
        let kind = ruby::to_s(&field(c, "type"));
        let binary =
            kind == "boolean" || kind == "presence" || (kind == "range" && values.len() == 2);
        let deep = level.is_some_and(|l| ruby::is_integer(l) && ruby::as_f64(l) >= Some(2.0));
        for (vidx, v) in values.iter().enumerate() {
            let vlabel = format!("{label}.values[{vidx}]");
            let Value::Mapping(v) = v else {
                self.errors.push(format!("{vlabel} must be a Hash"));
                continue;
            };
            self.boolean(get(v, "terminal"), &format!("{vlabel}.terminal"));
            self.string(get(v, "description"), &format!("{vlabel}.description"));
            let description = ruby::to_s(&field(v, "description"));
            let description = ruby::strip(&description);
            if ruby::starts_with_word(description, &["when", "with", "and", "but", "without"]) {
                self.errors.push(format!(
                    "{vlabel}.description must NOT start with a context word (when/with/and/but/without); generator adds it automatically"
                ));
            }
            if deep
                && binary
                && ruby::has_any_word(description, &["has", "have", "is", "are", "was", "were"])
            {
                self.errors.push(format!(
                    "{vlabel}.description must be a noun/adjective phrase for level>=2 binary contexts (avoid has/have/is/are/was/were)"
                ));
            }
            if get(v, "terminal") == Some(&Value::Bool(true)) {
                self.string(get(v, "behavior_id"), &format!("{vlabel}.behavior_id"));
            }
            if let Some(bid) = get(v, "behavior_id") {
                let bid = ruby::to_s(bid);
                if !ruby::strip(&bid).is_empty() && !bank.contains(&bid) {
                    self.errors
                        .push(format!("Unknown behavior_id '{bid}' in {vlabel}"));
                }
            }
            if strict {
                match get(v, "value") {
                    None => self.strict.push(format!("{vlabel}.value must be present")),
                    Some(Value::Sequence(_) | Value::Mapping(_)) => self.strict.push(format!(
                        "{vlabel}.value must be a scalar (boolean, String, Symbol, number or nil)"
                    )),
                    Some(_) => {}
                }
            }
        }
    }

    /// `--strict`: characteristics the generator never renders, and why.
    fn strict_tree(&mut self, label: &str, chars: &[Value], tree: &Tree<'_>) {
        for (cidx, c) in chars.iter().enumerate() {
            let Value::Mapping(c) = c else { continue };
            let visited = tree.visited.get(cidx).copied().unwrap_or(false);
            if visited || tree.overflow {
                continue;
            }
            let Some(level) = get(c, "level").filter(|l| ruby::is_integer(l)) else {
                continue;
            };
            let level = ruby::as_f64(level).unwrap_or(0.0);
            let clabel = format!("{label}.characteristics[{cidx}]");
            let cname = ruby::to_s(&field(c, "name"));
            let depends_on = field(c, "depends_on");
            let reason = if level < 1.0 {
                format!("level {level} is below 1")
            } else if level == 1.0 {
                if depends_on.is_null() {
                    continue;
                }
                "level 1 needs depends_on: null".to_string()
            } else if depends_on.is_null() {
                format!("level {level} needs depends_on naming its parent characteristic")
            } else {
                let parents: Vec<&Mapping> = chars
                    .iter()
                    .filter_map(|p| match p {
                        Value::Mapping(p) if ruby::eq(&field(p, "name"), &depends_on) => Some(p),
                        _ => None,
                    })
                    .collect();
                let dname = ruby::to_s(&depends_on);
                let at_level: Vec<&Mapping> = parents
                    .iter()
                    .copied()
                    .filter(|p| ruby::eq(&field(p, "level"), &Value::from(level - 1.0)))
                    .collect();
                if parents.is_empty() {
                    format!("depends_on '{dname}' names no characteristic of this method")
                } else if at_level.is_empty() {
                    let levels: Vec<String> = parents
                        .iter()
                        .map(|p| ruby::to_s(&field(p, "level")))
                        .collect();
                    self.strict.push(format!(
                        "{clabel}.level {level} skips a level: its parent '{dname}' is at level {} (a child must be one level below its parent)",
                        levels.join(", ")
                    ));
                    continue;
                } else {
                    let when_parent = field(c, "when_parent");
                    let parent_values: Vec<&Value> = at_level
                        .iter()
                        .filter_map(|p| match get(p, "values") {
                            Some(Value::Sequence(vs)) => Some(vs.iter()),
                            _ => None,
                        })
                        .flatten()
                        .collect();
                    let matching: Vec<&&Value> = parent_values
                        .iter()
                        .filter(|v| {
                            ruby::includes(
                                &when_parent,
                                &ruby::index(v, "value").unwrap_or(Value::Null),
                            )
                        })
                        .collect();
                    if matches!(&when_parent, Value::Null)
                        || matches!(&when_parent, Value::Sequence(s) if s.is_empty())
                    {
                        format!("when_parent is empty, so it never attaches under '{dname}'")
                    } else if matching.is_empty() {
                        let values: Vec<String> = parent_values
                            .iter()
                            .map(|v| ruby::inspect(&ruby::index(v, "value").unwrap_or(Value::Null)))
                            .collect();
                        format!(
                            "when_parent {} matches no value of '{dname}' ([{}]; types must match: true is not \"true\", :card is not \"card\")",
                            ruby::inspect(&when_parent),
                            values.join(", ")
                        )
                    } else if matching
                        .iter()
                        .all(|v| ruby::index(v, "terminal") == Some(Value::Bool(true)))
                    {
                        format!("it attaches only under terminal values of '{dname}'")
                    } else {
                        format!("its parent '{dname}' is unreachable")
                    }
                }
            };
            self.strict.push(format!(
                "{clabel} ('{cname}') is unreachable: {reason}; the generator never renders it"
            ));
        }
    }

    fn spec_writer(&mut self, map: &Mapping, checks: &Checks<'_>) {
        let automation = self.automation(map);
        for stage in ["code_analyzer", "isolation_decider", "spec_writer"] {
            let key = format!("{stage}_completed");
            self.boolean(
                ruby::index(&automation, &key).as_ref(),
                &format!("automation.{key}"),
            );
        }
        let methods = get(map, "methods");
        self.array(methods, "methods");
        let Some(Value::Sequence(methods)) = methods else {
            return;
        };
        for (idx, m) in methods.iter().enumerate() {
            let Value::Mapping(m) = m else { continue };
            let label = format!("methods[{idx}].test_config");
            let test_config = get(m, "test_config");
            self.hash(test_config, &label);
            let Some(Value::Mapping(tc)) = test_config else {
                continue;
            };
            self.one_of(
                get(tc, "test_level"),
                &format!("{label}.test_level"),
                TestLevel::NAMES,
            );
            self.one_of(
                get(tc, "confidence"),
                &format!("{label}.confidence"),
                Confidence::NAMES,
            );
            if checks.strict && get(tc, "confidence").and_then(Value::as_str) == Some("low") {
                self.strict.push(format!(
                    "{label}.confidence must not be low (answer the decision: test-config --low-confidence)"
                ));
            }
            let isolation = get(tc, "isolation");
            self.hash(isolation, &format!("{label}.isolation"));
            if let Some(Value::Mapping(isolation)) = isolation {
                for knob in ["db", "external_http", "queue"] {
                    self.one_of(
                        get(isolation, knob),
                        &format!("{label}.isolation.{knob}"),
                        IsolationMode::NAMES,
                    );
                }
            }
            self.array(
                get(tc, "decision_trace"),
                &format!("{label}.decision_trace"),
            );
        }

        let spec_path = get(map, "spec_path");
        self.string(spec_path, "spec_path");
        let Some(Value::String(spec_path)) = spec_path else {
            return;
        };
        if ruby::strip(spec_path).is_empty() {
            return;
        }
        let content = match (checks.spec_file)(spec_path) {
            SpecFile::Missing => {
                self.errors
                    .push(format!("spec_path does not exist: {spec_path}"));
                return;
            }
            SpecFile::Unreadable(reason) => {
                self.errors
                    .push(format!("spec_path cannot be read: {spec_path}: {reason}"));
                return;
            }
            SpecFile::Text(text) => text,
        };
        let placeholders = placeholders(&content);
        if !placeholders.is_empty() {
            self.errors.push(format!(
                "Spec still contains placeholders: {}",
                placeholders.join(", ")
            ));
        }
        if has_marker(&content) {
            self.errors.push(
                "Spec still contains rspec-testing markers (# rspec-testing:...)".to_string(),
            );
        }
    }
}

fn is_one_of(value: Option<&Value>, allowed: &[&str]) -> bool {
    matches!(value, Some(Value::String(s)) if allowed.contains(&s.as_str()))
}

/// The `{PLACEHOLDER}`s of a spec (`/\{[A-Z0-9_]+\}/`), unique and sorted.
pub fn placeholders(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = std::collections::BTreeSet::new();
    let mut i = 0;
    while let Some(offset) = bytes.get(i..).and_then(|rest| memchr::memchr(b'{', rest)) {
        let start = i + offset;
        let body = bytes
            .get(start + 1..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_')
            .count();
        let close = start + 1 + body;
        if body > 0 && bytes.get(close) == Some(&b'}') {
            if let Some(p) = text.get(start..=close) {
                found.insert(p.to_string());
            }
            i = close + 1;
        } else {
            i = start + 1;
        }
    }
    found.into_iter().collect()
}

/// Whether a spec still holds a marker line (`/^\s*#\s*rspec-testing:/`; Ruby's `\s` also
/// crosses line ends).
pub fn has_marker(text: &str) -> bool {
    let bytes = text.as_bytes();
    let is_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c');
    let line_starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
    for start in line_starts {
        let rest = bytes.get(start..).unwrap_or_default();
        let skip = rest.iter().take_while(|b| is_space(b)).count();
        let Some(rest) = rest.get(skip..) else {
            continue;
        };
        let Some(rest) = rest.strip_prefix(b"#") else {
            continue;
        };
        let skip = rest.iter().take_while(|b| is_space(b)).count();
        if rest
            .get(skip..)
            .is_some_and(|r| r.starts_with(b"rspec-testing:"))
        {
            return true;
        }
    }
    false
}

/// The context tree of one method, built the way the generator builds it (digest §4.1):
/// children of a value are the characteristics one level deeper whose `depends_on` is the
/// value's characteristic name and whose `when_parent` includes the value (Ruby `==`, no
/// type coercion). Only the leaves (in pre-order) and which characteristics were reached
/// are kept.
struct Tree<'a> {
    /// Value objects that end a context path: terminal, or with no children.
    leaves: Vec<&'a Value>,
    /// Per characteristic index: rendered somewhere in the tree.
    visited: Vec<bool>,
    /// The walk stopped at [`MAX_CONTEXTS`].
    overflow: bool,
    nodes: usize,
}

impl<'a> Tree<'a> {
    fn build(chars: &'a [Value]) -> Self {
        let mut tree = Tree {
            leaves: Vec::new(),
            visited: vec![false; chars.len()],
            overflow: false,
            nodes: 0,
        };
        tree.walk(chars, 1, None);
        tree
    }

    /// Adds the contexts at `level` under `parent` (characteristic name, value); returns
    /// how many there were.
    fn walk(&mut self, chars: &'a [Value], level: i64, parent: Option<(&Value, &Value)>) -> usize {
        let mut count = 0;
        for (cidx, c) in chars.iter().enumerate() {
            // A String characteristic reads `nil` for 'level' (Ruby `String#[]`), so only
            // Hashes can be reached; the original crashes on other types.
            let Value::Mapping(c) = c else { continue };
            if !ruby::eq(&field(c, "level"), &Value::from(level)) {
                continue;
            }
            let depends_on = field(c, "depends_on");
            let attached = match parent {
                None => depends_on.is_null(),
                Some((name, state)) => {
                    let when_parent = match get(c, "when_parent") {
                        None | Some(Value::Null) | Some(Value::Bool(false)) => {
                            Value::Sequence(Vec::new())
                        }
                        Some(other) => other.clone(),
                    };
                    ruby::eq(&depends_on, name) && ruby::includes(&when_parent, state)
                }
            };
            if !attached {
                continue;
            }
            if let Some(slot) = self.visited.get_mut(cidx) {
                *slot = true;
            }
            let Some(Value::Sequence(values)) = get(c, "values") else {
                continue;
            };
            let name = get(c, "name").unwrap_or(&Value::Null);
            for v in values {
                if self.overflow {
                    return count;
                }
                self.nodes += 1;
                if self.nodes > MAX_CONTEXTS {
                    self.overflow = true;
                    return count;
                }
                count += 1;
                let terminal = ruby::index(v, "terminal") == Some(Value::Bool(true));
                if terminal {
                    self.leaves.push(v);
                    continue;
                }
                let state = ruby::index(v, "value").unwrap_or(Value::Null);
                let children = self.walk(chars, level.saturating_add(1), Some((name, &state)));
                if children == 0 {
                    self.leaves.push(v);
                }
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Value {
        crate::yaml::load(text.as_bytes(), "t.yml").expect("test YAML loads")
    }

    fn no_spec(_: &str) -> SpecFile {
        SpecFile::Missing
    }

    fn check(stage: Stage, text: &str) -> Outcome {
        validate(
            stage,
            &load(text),
            &Checks {
                strict: false,
                spec_file: &no_spec,
            },
        )
    }

    fn strict(stage: Stage, text: &str) -> Outcome {
        validate(
            stage,
            &load(text),
            &Checks {
                strict: true,
                spec_file: &no_spec,
            },
        )
    }

    const DISCOVERY: &str = "source_file: app/models/payment.rb\nclass_name: Payment\nspec_path: spec/models/payment_spec.rb\ncomplexity: {zone: green, loc: 20, methods: 2}\nmethods_to_analyze:\n  - {name: charge, method_mode: new, line_range: [3, 9], selected: true}\nautomation: {discovery_agent_completed: true}\n";

    const ANALYZED: &str = r#"slug: app_services_checkout
source_file: app/services/checkout.rb
source_mtime: 1700000000
class_name: Checkout
behaviors:
  - {id: raises_unauthorized, description: "raises UnauthorizedError", type: terminal, enabled: true}
  - {id: charges_card, description: "charges the card", type: success, enabled: true}
  - {id: returns_nil, description: "returns nil", type: terminal, enabled: true}
  - {id: sends_receipt, description: "sends receipt email", type: side_effect, subtype: email, enabled: true}
methods_to_analyze:
  - {name: call, method_mode: new, line_range: [1, 9], selected: true}
methods:
  - name: call
    type: instance
    method_mode: new
    analyzed: true
    side_effects: [{type: email, behavior_id: sends_receipt}]
    characteristics:
      - name: authenticated
        description: user is authenticated
        type: boolean
        level: 1
        source: {kind: internal}
        setup: {type: action, class: null}
        values:
          - {value: false, description: "not authenticated", terminal: true, behavior_id: raises_unauthorized}
          - {value: true, description: "authenticated", terminal: false}
      - name: card
        description: user has card
        type: presence
        level: 2
        depends_on: authenticated
        when_parent: [true]
        source: {kind: internal}
        setup: {type: model, class: Card}
        values:
          - {value: present, description: "saved card", terminal: false, behavior_id: charges_card}
          - {value: nil, description: "saved card", terminal: true, behavior_id: returns_nil}
automation: {discovery_agent_completed: true, code_analyzer_completed: true}
"#;

    #[test]
    fn valid_files_pass() {
        assert_eq!(check(Stage::DiscoveryAgent, DISCOVERY), Outcome::default());
        assert_eq!(check(Stage::CodeAnalyzer, ANALYZED), Outcome::default());
        assert_eq!(strict(Stage::CodeAnalyzer, ANALYZED), Outcome::default());
    }

    #[test]
    fn non_hash_root_is_one_error() {
        let out = check(Stage::CodeAnalyzer, "- a\n");
        assert_eq!(out.errors, vec!["metadata must be a Hash"]);
    }

    #[test]
    fn discovery_checks_in_order() {
        let out = check(
            Stage::DiscoveryAgent,
            "automation: [x]\nsource_file: ' '\ncomplexity: {zone: ''}\nspec_path: spec/controllers/a_spec.rb\nmethods_to_analyze:\n  - 1\n  - {name: a, method_mode: old, selected: 'yes', line_range: [1]}\n  - {name: b, method_mode: new, selected: true, line_range: [1.5, x]}\n",
        );
        assert_eq!(
            out.errors,
            vec![
                "automation must be a Hash",
                "automation.discovery_agent_completed must be boolean",
                "source_file must be a non-empty String",
                "class_name must be a non-empty String",
                "complexity.zone must be a non-empty String",
                "methods_to_analyze[0] must be a Hash",
                "methods_to_analyze[1].method_mode must be one of: new, modified, unchanged",
                "methods_to_analyze[1].selected must be boolean",
                "methods_to_analyze[1].line_range must be [start, end]",
                "methods_to_analyze[2].line_range[0] must be an Integer",
                "methods_to_analyze[2].line_range[1] must be an Integer",
            ]
        );
        assert_eq!(
            out.warnings,
            vec!["spec_path is under spec/controllers; prefer spec/requests for new Rails controllers tests"]
        );
    }

    #[test]
    fn empty_methods_to_analyze_stops() {
        let text = DISCOVERY.replace(
            "methods_to_analyze:\n  - {name: charge, method_mode: new, line_range: [3, 9], selected: true}\n",
            "methods_to_analyze: []\nspec_path: spec/controllers/x_spec.rb\n",
        );
        let out = check(Stage::DiscoveryAgent, &text);
        assert_eq!(out.errors, vec!["methods_to_analyze must not be empty"]);
        assert!(out.warnings.is_empty());
    }

    #[test]
    fn grammar_of_behaviors() {
        let text = ANALYZED.replace("\"charges the card\"", "\"It should not charge\"");
        let out = check(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors,
            vec![
                "behaviors[1].description must not contain modal verbs (should/could/would/may/might/must/can/cannot)",
                "behaviors[1].description must not start with 'it' (RSpec adds it)",
                "behaviors[1].description must use 'NOT' (all caps) instead of 'not'",
            ]
        );
        // Disabled behaviors are not checked; NOT is fine; "cannot" and "ſhould" are modal.
        let text = ANALYZED.replace(
            "\"charges the card\", type: success, enabled: true}",
            "\"it should\", type: success, enabled: false}",
        );
        assert!(check(Stage::CodeAnalyzer, &text).errors.is_empty());
        assert!(ruby::has_any_word("user cannot pay", &["can", "cannot"]));
        assert!(ruby::has_any_word("ſhould", &["should"]));
        assert!(!ruby::has_any_word("éshould", &["should"]));
        assert!(!ruby::has_any_word("canned", &["can", "cannot"]));
        assert_eq!(
            ruby::words("x not-ok Not NOT", "not"),
            vec!["not", "Not", "NOT"]
        );
        assert!(ruby::starts_with_word("without card", &["with", "without"]));
        assert!(!ruby::starts_with_word("withdrawn", &["with", "without"]));
    }

    #[test]
    fn duplicate_and_unknown_behavior_ids() {
        let text = ANALYZED
            .replace("{id: returns_nil,", "{id: charges_card,")
            .replace(
                "behavior_id: sends_receipt}]",
                "behavior_id: sends_recept}]",
            );
        let out = check(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors,
            vec![
                "behaviors[].id must be unique; duplicate: charges_card",
                "Unknown behavior_id 'returns_nil' in methods[0].characteristics[1].values[1]",
                "Unknown behavior_id 'returns_nil' on leaf value (method 'call')",
                "Unknown behavior_id 'sends_recept' in methods[0].side_effects[0]",
            ]
        );
    }

    #[test]
    fn leaf_without_behavior_is_reported_once_per_method() {
        // `when_parent: ["true"]` does not match `true`: `authenticated=true` becomes a leaf
        // without behavior_id, and `card` is unreachable.
        let text = ANALYZED.replace("when_parent: [true]", "when_parent: [\"true\"]");
        let out = check(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors,
            vec!["Missing values[].behavior_id on leaf value (method 'call')"]
        );
        let out = strict(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors.last().map(String::as_str),
            Some("methods[0].characteristics[1] ('card') is unreachable: when_parent [\"true\"] matches no value of 'authenticated' ([false, true]; types must match: true is not \"true\", :card is not \"card\"); the generator never renders it")
        );
    }

    #[test]
    fn level_two_binary_descriptions_are_phrases() {
        let text = ANALYZED.replace(
            "{value: present, description: \"saved card\"",
            "{value: present, description: \"with card that is saved\"",
        );
        let out = check(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors,
            vec![
                "methods[0].characteristics[1].values[0].description must NOT start with a context word (when/with/and/but/without); generator adds it automatically",
                "methods[0].characteristics[1].values[0].description must be a noun/adjective phrase for level>=2 binary contexts (avoid has/have/is/are/was/were)",
            ]
        );
    }

    #[test]
    fn selection_must_match() {
        let text = ANALYZED.replace(
            "  - {name: call, method_mode: new, line_range: [1, 9], selected: true}\n",
            "  - {name: call, selected: false}\n  - {name: refund, selected: true}\n  - {name: void, selected: true}\n",
        );
        let out = check(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors,
            vec![
                "methods missing selected methods: refund, void",
                "methods contains unselected methods: call",
            ]
        );
    }

    #[test]
    fn combinatorial_warning() {
        let mut text = String::from(ANALYZED);
        for i in 0..4 {
            let extra = format!(
                "      - name: extra{i}\n        description: extra\n        type: boolean\n        level: 1\n        source: {{kind: internal}}\n        setup: {{type: data}}\n        values:\n          - {{value: true, description: enabled, terminal: true, behavior_id: returns_nil}}\n"
            );
            text = text.replace("automation:", &format!("{extra}automation:"));
        }
        // The extra characteristics are appended to the last method's list.
        let out = check(Stage::CodeAnalyzer, &text);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(
            out.warnings,
            vec![
                "Potential combinatorial explosion for method 'call': characteristics=6, leaf_contexts≈7, examples≈14",
                "AskUserQuestion recommended: continue generation vs pause and reduce scope",
            ]
        );
    }

    #[test]
    fn spec_writer_reads_the_spec_through_the_callback() {
        let text = "automation: {code_analyzer_completed: true, isolation_decider_completed: true, spec_writer_completed: true}\nspec_path: spec/x_spec.rb\nmethods:\n  - name: a\n    test_config: {test_level: unit, confidence: high, isolation: {db: none, external_http: none, queue: real}, decision_trace: []}\n  - name: b\n    test_config: {test_level: system, isolation: {db: mocked}}\n";
        let spec = |path: &str| {
            assert_eq!(path, "spec/x_spec.rb");
            SpecFile::Text(
                "{SETUP_CODE}\n  {EXPECTATION} {x} {A_1}\n  #\n  rspec-testing:x\n".to_string(),
            )
        };
        let out = validate(
            Stage::SpecWriter,
            &load(text),
            &Checks {
                strict: false,
                spec_file: &spec,
            },
        );
        assert_eq!(
            out.errors,
            vec![
                "methods[1].test_config.test_level must be one of: unit, integration, request",
                "methods[1].test_config.confidence must be one of: high, medium, low",
                "methods[1].test_config.isolation.db must be one of: real, stubbed, none",
                "methods[1].test_config.isolation.external_http must be one of: real, stubbed, none",
                "methods[1].test_config.isolation.queue must be one of: real, stubbed, none",
                "methods[1].test_config.decision_trace must be an Array",
                "Spec still contains placeholders: {A_1}, {EXPECTATION}, {SETUP_CODE}",
                "Spec still contains rspec-testing markers (# rspec-testing:...)",
            ]
        );
        let out = check(Stage::SpecWriter, text);
        assert_eq!(
            out.errors.last().map(String::as_str),
            Some("spec_path does not exist: spec/x_spec.rb")
        );
    }

    #[test]
    fn strict_adds_the_unchecked_rules() {
        let text = ANALYZED
            .replace("type: success, enabled: true", "type: happy, enabled: 1")
            .replace("type: side_effect, subtype: email", "type: side_effect")
            .replace("[{type: email, behavior_id", "[{type: sms, behavior_id")
            .replace("type: presence", "type: optional")
            .replace(
                "source: {kind: internal}\n        setup: {type: model",
                "source: {kind: external, class: Card}\n        setup: {type: model",
            )
            .replace("{value: present, description", "{description");
        let out = strict(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors,
            vec![
                "behaviors[1].type must be one of: terminal, success, side_effect",
                "behaviors[1].enabled must be boolean",
                "behaviors[3].subtype must be one of: email, webhook, cache, event, external_api",
                "methods[0].characteristics[1].source.method must be a non-empty String for an external source",
                "methods[0].characteristics[1].type must be one of: boolean, presence, enum, range, sequential",
                "methods[0].characteristics[1].values[0].value must be present",
                "methods[0].side_effects[0].type must be one of: email, webhook, cache, event, external_api",
            ]
        );
        assert!(check(Stage::CodeAnalyzer, &text).errors.is_empty());
    }

    #[test]
    fn strict_explains_unreachable_characteristics() {
        let text = ANALYZED.replace(
            "level: 2\n        depends_on: authenticated",
            "level: 3\n        depends_on: authenticated",
        );
        let out = strict(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors,
            vec![
                "Missing values[].behavior_id on leaf value (method 'call')",
                "methods[0].characteristics[1].level 3 skips a level: its parent 'authenticated' is at level 1 (a child must be one level below its parent)",
            ]
        );
        let text = ANALYZED.replace("when_parent: [true]", "when_parent: [false]");
        assert_eq!(
            strict(Stage::CodeAnalyzer, &text).errors.last().map(String::as_str),
            Some("methods[0].characteristics[1] ('card') is unreachable: it attaches only under terminal values of 'authenticated'; the generator never renders it")
        );
        let text = ANALYZED.replace("        depends_on: authenticated\n", "");
        assert_eq!(
            strict(Stage::CodeAnalyzer, &text).errors.last().map(String::as_str),
            Some("methods[0].characteristics[1] ('card') is unreachable: level 2 needs depends_on naming its parent characteristic; the generator never renders it")
        );
    }

    #[test]
    fn ruby_semantics() {
        assert_eq!(ruby::strip("\0 a\u{a0}\t"), "a\u{a0}");
        assert!(ruby::eq(&Value::from(1), &Value::from(1.0)));
        assert!(!ruby::eq(
            &Value::from("card"),
            &crate::yaml::symbol("card")
        ));
        assert_eq!(
            ruby::to_s(&load("- a\n- 1\n- [b]\n- {k: v}\n- :s\n- 1.0\n- ~\n")),
            "[\"a\", 1, [\"b\"], {\"k\"=>\"v\"}, :s, 1.0, nil]"
        );
        assert_eq!(
            ruby::join(&[Value::from("a"), load("[b, [c]]")], ", "),
            "a, b, c"
        );
        assert_eq!(
            ruby::index(&Value::from("xterminalx"), "terminal"),
            Some(Value::from("terminal"))
        );
        assert!(ruby::includes(&Value::from("a b"), &Value::from("a")));
        assert!(!ruby::includes(&Value::from("1"), &Value::from(1)));
    }

    #[test]
    fn placeholders_and_markers() {
        assert_eq!(
            placeholders("{B} {A} {a} {} {{C}} {B}"),
            vec!["{A}", "{B}", "{C}"]
        );
        assert!(has_marker("x\n   # rspec-testing:example a=1\n"));
        assert!(has_marker("#rspec-testing:x"));
        assert!(!has_marker("x # rspec-testing:example\n"));
    }

    #[test]
    fn huge_trees_stop_with_an_error() {
        // 20 levels of a 2-valued characteristic, each attached under both values.
        let mut text = String::from("slug: s\nsource_file: a.rb\nsource_mtime: 1\nclass_name: A\nbehaviors: [{id: b, description: d}]\nmethods:\n  - name: m\n    type: instance\n    analyzed: true\n    method_mode: new\n    characteristics:\n");
        for level in 1..=20 {
            let depends = if level == 1 {
                "null".to_string()
            } else {
                format!("c{}", level - 1)
            };
            text.push_str(&format!("      - {{name: c{level}, description: d, type: boolean, level: {level}, depends_on: {depends}, when_parent: [true, false], source: {{kind: internal}}, setup: {{type: data}}, values: [{{value: true, description: x, terminal: false, behavior_id: b}}, {{value: false, description: y, terminal: false, behavior_id: b}}]}}\n"));
        }
        text.push_str("automation: {code_analyzer_completed: true}\n");
        let out = check(Stage::CodeAnalyzer, &text);
        assert_eq!(
            out.errors,
            vec!["Context tree of method 'm' has more than 100000 contexts; reduce its characteristics"]
        );
    }
}
