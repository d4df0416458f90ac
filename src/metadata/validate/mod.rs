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

mod analyzer;
mod discovery;
mod spec_writer;
mod tree;

use crate::ruby;
use crate::yaml::{Mapping, Value};

pub use crate::vocab::Stage;
pub use spec_writer::{has_marker, placeholders};

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

    pub(super) fn strict_one_of(&mut self, value: Option<&Value>, label: &str, allowed: &[&str]) {
        if !is_one_of(value, allowed) {
            self.strict
                .push(format!("{label} must be one of: {}", allowed.join(", ")));
        }
    }
}

fn is_one_of(value: Option<&Value>, allowed: &[&str]) -> bool {
    matches!(value, Some(Value::String(s)) if allowed.contains(&s.as_str()))
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
