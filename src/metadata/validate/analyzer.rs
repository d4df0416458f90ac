//! The code-analyzer stage: the behavior bank, `methods[]` with their characteristics and
//! side effects, the selection, and `--strict`'s reachability of every characteristic.

use crate::ruby;
use crate::vocab::{
    BehaviorKind, CharType, MethodMode, MethodType, SetupType, SideEffectKind, SourceKind,
};
use crate::yaml::{Mapping, Value};

use super::tree::Tree;
use super::{field, get, Validator, MAX_CONTEXTS};

impl Validator {
    pub(super) fn code_analyzer(&mut self, map: &Mapping, strict: bool) {
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
}
