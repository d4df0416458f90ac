//! `rspec-scout validate`: the pipeline validator's exact output (stdout, stderr, exit
//! code) on valid and broken metadata, multi-file and structured output, `--strict`,
//! and `--yaml`.
//!
//! The expected outputs of the parity table were produced by running the pipeline's own
//! `validate_metadata_stage.rb` (Ruby 3.1, Psych 4.0.3) on the same inputs; the scripts
//! themselves are not part of this repository.

use crate::util::Project;

const DISCOVERY: &str = r#"source_file: app/models/payment.rb
class_name: Payment
spec_path: spec/models/payment_spec.rb
complexity:
  zone: green
  loc: 40
  methods: 2
methods_to_analyze:
  - name: charge
    method_mode: new
    line_range: [3, 9]
    selected: true
  - name: refund
    method_mode: unchanged
    line_range: [11, 20]
    selected: false
    skip_reason: User deselected
automation:
  discovery_agent_completed: true
"#;

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

const WRITTEN: &str = r#"slug: app_services_checkout
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
    test_config:
      test_level: unit
      isolation: {db: stubbed, external_http: none, queue: stubbed}
      confidence: high
      decision_trace: ['project_type: rails']
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
spec_path: spec/services/checkout_spec.rb
target: {kind: service}
automation: {discovery_agent_completed: true, code_analyzer_completed: true, isolation_decider_completed: true, spec_writer_completed: true}
"#;

/// A metadata file: a base document with text replacements (each applied once), or bytes.
enum Input {
    Edit(&'static str, &'static [(&'static str, &'static str)]),
    Raw(&'static [u8]),
}

impl Input {
    fn bytes(&self, name: &str) -> Vec<u8> {
        match self {
            Input::Raw(bytes) => bytes.to_vec(),
            Input::Edit(base, edits) => {
                let mut text = base.to_string();
                for (old, new) in *edits {
                    assert!(text.contains(old), "{name}: {old:?} not in the document");
                    text = text.replacen(old, new, 1);
                }
                text.into_bytes()
            }
        }
    }
}

/// One parity case: what the original printed and exited with.
struct Case {
    name: &'static str,
    stage: &'static str,
    input: Input,
    code: i32,
    stdout: &'static str,
    stderr: &'static str,
}

/// A project with the spec files the spec-writer cases name.
fn project() -> Project {
    let p = Project::new();
    p.write(
        "spec/services/checkout_spec.rb",
        "RSpec.describe Checkout do\n  it 'works' do\n    expect(1).to eq(1)\n  end\nend\n",
    );
    p.write(
        "spec/services/placeholder_spec.rb",
        "RSpec.describe Checkout do\n  {COMMON_SETUP}\n  it 'x' do\n    {EXPECTATION}\n    {EXPECTATION} {THRESHOLD_VALUE} {lower}\n  end\nend\n",
    );
    p.write(
        "spec/services/marker_spec.rb",
        "RSpec.describe Checkout do\n  it 'x' do\n    # rspec-testing:example behavior_id=\"x\" kind=\"success\" path=\"\"\n  end\nend\n",
    );
    p
}

#[test]
fn parity_with_the_original_validator() {
    let p = project();
    let mut failures = Vec::new();
    for case in CASES {
        let rel = format!("cases/{}.yml", case.name);
        p.write(&rel, case.input.bytes(case.name));
        let run = p.run(&["validate", "--stage", case.stage, &rel]);
        if (run.code, run.stdout.as_str(), run.stderr.as_str())
            != (case.code, case.stdout, case.stderr)
        {
            failures.push(format!(
                "{} ({}): expected exit {} stdout {:?} stderr {:?}\n  got exit {} stdout {:?} stderr {:?}",
                case.name, case.stage, case.code, case.stdout, case.stderr, run.code, run.stdout, run.stderr
            ));
        }
    }
    assert!(CASES.len() >= 95);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn clear_errors_where_the_original_crashes() {
    let p = project();
    p.write("spec/services/binary_spec.rb", b"x \xff {SETUP_CODE}\n");
    let mut failures = Vec::new();
    for case in CRASH_CASES {
        let rel = format!("cases/{}.yml", case.name);
        p.write(&rel, case.input.bytes(case.name));
        let run = p.run(&["validate", "--stage", case.stage, &rel]);
        if (run.code, run.stdout.as_str(), run.stderr.as_str())
            != (case.code, case.stdout, case.stderr)
        {
            failures.push(format!(
                "{}: expected {:?}\n  got exit {} stdout {:?} stderr {:?}",
                case.name, case.stderr, run.code, run.stdout, run.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_directory_or_a_missing_file_is_one_error_line() {
    let p = project();
    std::fs::create_dir_all(p.root().join("cases/dir.yml")).unwrap();
    let run = p
        .run(&["validate", "--stage", "code-analyzer", "cases/dir.yml"])
        .expect_code(1);
    assert_eq!(run.stdout, "");
    // The original crashes here (Errno::EISDIR and a Ruby backtrace).
    assert_eq!(
        run.stderr,
        "Error: Cannot read metadata file: cases/dir.yml: is a directory\n"
    );
    let run = p
        .run(&["validate", "--stage", "code-analyzer", "cases/none.yml"])
        .expect_code(1);
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        ("", "Error: Metadata file not found: cases/none.yml\n")
    );
    let run = p
        .run(&["validate", "--stage", "code-analyzer"])
        .expect_code(1);
    assert_eq!(run.stderr, "Error: a metadata FILE is required\n");
}

fn write_three(p: &Project) {
    p.write("m/ok.yml", DISCOVERY);
    p.write(
        "m/warn.yml",
        DISCOVERY.replace(
            "spec/models/payment_spec.rb",
            "spec/controllers/payments_controller_spec.rb",
        ),
    );
    p.write("m/bad.yml", DISCOVERY.replace("class_name: Payment\n", ""));
}

#[test]
fn several_files_get_one_block_each_and_the_worst_exit_code() {
    let p = project();
    write_three(&p);
    let run = p
        .run(&[
            "validate",
            "--stage",
            "discovery-agent",
            "m/ok.yml",
            "m/warn.yml",
            "m/none.yml",
        ])
        .expect_code(1);
    assert_eq!(run.stdout, "m/ok.yml: OK\nm/warn.yml: OK\n");
    assert_eq!(
        run.stderr,
        "m/warn.yml: Metadata validation warnings:\n- spec_path is under spec/controllers; prefer spec/requests for new Rails controllers tests\nm/none.yml: Error: Metadata file not found: m/none.yml\n"
    );
    let run = p
        .run(&[
            "validate",
            "--stage",
            "discovery-agent",
            "m/ok.yml",
            "m/warn.yml",
        ])
        .expect_code(2);
    assert_eq!(run.stdout, "m/ok.yml: OK\nm/warn.yml: OK\n");
    let run = p
        .run(&[
            "validate",
            "--stage",
            "discovery-agent",
            "m/ok.yml",
            "m/ok.yml",
        ])
        .expect_code(0);
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        ("m/ok.yml: OK\nm/ok.yml: OK\n", "")
    );
}

#[test]
fn yaml_and_json_formats_give_the_findings_as_data() {
    let p = project();
    write_three(&p);
    let run = p
        .run(&[
            "validate",
            "--stage",
            "discovery-agent",
            "m/ok.yml",
            "m/warn.yml",
            "m/bad.yml",
            "m/none.yml",
            "--format",
            "yaml",
            "--quiet",
        ])
        .expect_code(1);
    assert_eq!(run.stderr, "");
    assert_eq!(
        run.stdout,
        "status: failed
stage: discovery-agent
strict: false
files:
  - path: m/ok.yml
    status: ok
    errors: []
    warnings: []
  - path: m/warn.yml
    status: warnings
    errors: []
    warnings:
      - spec_path is under spec/controllers; prefer spec/requests for new Rails controllers tests
  - path: m/bad.yml
    status: failed
    errors: [class_name must be a non-empty String]
    warnings: []
  - path: m/none.yml
    status: failed
    error_code: METADATA_NOT_FOUND
    errors: [\"Metadata file not found: m/none.yml\"]
    warnings: []
"
    );
    let run = p
        .run(&[
            "validate",
            "--stage",
            "discovery-agent",
            "m/warn.yml",
            "--format",
            "json",
        ])
        .expect_code(2);
    assert_eq!(
        run.stdout,
        r#"{
  "status": "warnings",
  "stage": "discovery-agent",
  "strict": false,
  "files": [
    {
      "path": "m/warn.yml",
      "status": "warnings",
      "errors": [],
      "warnings": [
        "spec_path is under spec/controllers; prefer spec/requests for new Rails controllers tests"
      ]
    }
  ]
}
"#
    );
    // The protocol lines still go to stderr (use --quiet to drop them).
    assert_eq!(
        run.stderr,
        "Metadata validation warnings:\n- spec_path is under spec/controllers; prefer spec/requests for new Rails controllers tests\n"
    );
}

#[test]
fn strict_reports_the_rules_the_original_never_checked() {
    let p = project();
    let text = ANALYZED
        .replace("type: success, enabled: true", "type: happy, enabled: true")
        .replace("when_parent: [true]", "when_parent: ['true']")
        .replace("[{type: email, behavior_id", "[{type: sms, behavior_id")
        .replace(
            "{value: true, description: \"authenticated\", terminal: false}",
            "{value: true, description: \"authenticated\", terminal: false, behavior_id: charges_card}",
        );
    p.write("m.yml", &text);
    let run = p
        .run(&["validate", "--stage", "code-analyzer", "m.yml"])
        .expect_code(0);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("OK\n", ""));
    let run = p
        .run(&["validate", "--stage", "code-analyzer", "--strict", "m.yml"])
        .expect_code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "Metadata validation failed:
- behaviors[1].type must be one of: terminal, success, side_effect
- methods[0].characteristics[1] ('card') is unreachable: when_parent [\"true\"] matches no value of 'authenticated' ([false, true]; types must match: true is not \"true\", :card is not \"card\"); the generator never renders it
- methods[0].side_effects[0].type must be one of: email, webhook, cache, event, external_api
"
    );
    // Valid files stay valid under --strict.
    p.write("ok.yml", ANALYZED);
    p.run(&["validate", "--stage", "code-analyzer", "--strict", "ok.yml"])
        .expect_code(0);
}

#[test]
fn spec_path_is_relative_to_the_project_root_of_the_metadata() {
    let p = project();
    p.write("tmp/rspec_metadata/app_services_checkout.yml", WRITTEN);
    std::fs::create_dir_all(p.root().join("app/services")).unwrap();
    // From a subfolder the original would look for app/services/spec/...; we look from
    // the folder holding tmp/rspec_metadata.
    let output = std::process::Command::new(crate::util::bin())
        .args([
            "validate",
            "--stage",
            "spec-writer",
            "../../tmp/rspec_metadata/app_services_checkout.yml",
        ])
        .current_dir(p.root().join("app/services"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "OK\n");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn yaml_mode_checks_only_that_inputs_load() {
    let p = project();
    p.write("a.yml", "a: 1\n");
    p.write("b.yml", "a: &x 1\nb: *x\n");
    p.write("c.yml", "when: 2024-01-15\n");
    let run = p.run(&["validate", "--yaml", "a.yml"]).expect_code(0);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), ("OK\n", ""));
    let run = p
        .run(&["validate", "--yaml", "a.yml", "b.yml", "c.yml", "none.yml"])
        .expect_code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "YAML validation failed (3):
- b.yml: Psych::BadAlias: Unknown alias: x
- c.yml: Psych::DisallowedClass: Tried to load unspecified class: Date
- none.yml: file not found
"
    );
    let output = std::process::Command::new(crate::util::bin())
        .args(["validate", "--yaml", "--stdin", "a.yml"])
        .current_dir(p.root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"a: 1\n b: 2\n")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "YAML validation failed (1):\n- (stdin): Psych::SyntaxError: (<unknown>): mapping values are not allowed in this context at line 2 column 3\n"
    );
}

const CASES: &[Case] = &[
    Case {
        name: "c_automation_missing",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"automation: {discovery_agent_completed: true, code_analyzer_completed: true}
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation.code_analyzer_completed must be boolean
"#,
    },
    Case {
        name: "c_behavior_id_int",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"behavior_id: returns_nil}"#, r#"behavior_id: 5}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].values[1].behavior_id must be a non-empty String
- Unknown behavior_id '5' in methods[0].characteristics[1].values[1]
- Unknown behavior_id '5' on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_behavior_items",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"  - {id: sends_receipt,"#, r#"  - just a string
  - {id: '', description: ''}
  - {id: 7, enabled: false}
  - {id: sends_receipt,"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors[3] must be a Hash
- behaviors[4].id must be a non-empty String
- behaviors[4].description must be a non-empty String
- behaviors[5].id must be a non-empty String
"#,
    },
    Case {
        name: "c_behaviors_hash",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"behaviors:
  - {id: raises_unauthorized"#, r#"behaviors:
  x: 1
old:
  - {id: raises_unauthorized"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors must be an Array
- Unknown behavior_id 'raises_unauthorized' in methods[0].characteristics[0].values[0]
- Unknown behavior_id 'charges_card' in methods[0].characteristics[1].values[0]
- Unknown behavior_id 'returns_nil' in methods[0].characteristics[1].values[1]
- Unknown behavior_id 'raises_unauthorized' on leaf value (method 'call')
- Unknown behavior_id 'charges_card' on leaf value (method 'call')
- Unknown behavior_id 'returns_nil' on leaf value (method 'call')
- Unknown behavior_id 'sends_receipt' in methods[0].side_effects[0]
"#,
    },
    Case {
        name: "c_behaviors_missing",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"behaviors:
"#, r#"behaviours:
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors must be an Array
- Unknown behavior_id 'raises_unauthorized' in methods[0].characteristics[0].values[0]
- Unknown behavior_id 'charges_card' in methods[0].characteristics[1].values[0]
- Unknown behavior_id 'returns_nil' in methods[0].characteristics[1].values[1]
- Unknown behavior_id 'raises_unauthorized' on leaf value (method 'call')
- Unknown behavior_id 'charges_card' on leaf value (method 'call')
- Unknown behavior_id 'returns_nil' on leaf value (method 'call')
- Unknown behavior_id 'sends_receipt' in methods[0].side_effects[0]
"#,
    },
    Case {
        name: "c_binary_phrase",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"{value: present, description: "saved card""#, r#"{value: present, description: "card is saved""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].values[0].description must be a noun/adjective phrase for level>=2 binary contexts (avoid has/have/is/are/was/were)
"#,
    },
    Case {
        name: "c_char_fields",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"        description: user has card
        type: presence
        level: 2
"#, r#"        type: ''
        level: '2'
"#), (r#"source: {kind: internal}
        setup: {type: model, class: Card}"#, r#"source: internal
        setup: {type: factory}"#), (r#"      - name: card
"#, r#"      - name: ''
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].name must be a non-empty String
- methods[0].characteristics[1].description must be a non-empty String
- methods[0].characteristics[1].type must be a non-empty String
- methods[0].characteristics[1].level must be an Integer
- methods[0].characteristics[1].source must be a Hash
- methods[0].characteristics[1].setup.type must be one of: model, data, action
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_characteristics_missing",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"    characteristics:
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
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics must be an Array
"#,
    },
    Case {
        name: "c_combinatorial",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"    characteristics:
"#, r#"    characteristics:
      - {name: g0, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g1, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g2, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g3, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g4, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g5, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g6, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g7, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g8, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g9, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g10, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
      - {name: g11, description: d, type: boolean, level: 1, source: {kind: internal}, setup: {type: data}, values: [{value: true, description: ok, terminal: true, behavior_id: returns_nil}, {value: false, description: bad, terminal: true, behavior_id: returns_nil}]}
"#)]),
        code: 2,
        stdout: r#"OK
"#,
        stderr: r#"Metadata validation warnings:
- Potential combinatorial explosion for method 'call': characteristics=14, leaf_contexts≈27, examples≈54
- AskUserQuestion recommended: continue generation vs pause and reduce scope
"#,
    },
    Case {
        name: "c_disabled_behavior",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"{id: charges_card, description: "charges the card", type: success, enabled: true}"#, r#"{id: charges_card, type: success, enabled: false}"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "c_dup_ids",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"{id: returns_nil,"#, r#"{id: charges_card,"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors[].id must be unique; duplicate: charges_card
- Unknown behavior_id 'returns_nil' in methods[0].characteristics[1].values[1]
- Unknown behavior_id 'returns_nil' on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_empty_characteristics",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"    characteristics:
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
"#, r#"    characteristics: []
"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "c_grammar",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#""charges the card""#, r#""It should not charge; it can't""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors[1].description must not contain modal verbs (should/could/would/may/might/must/can/cannot)
- behaviors[1].description must not start with 'it' (RSpec adds it)
- behaviors[1].description must use 'NOT' (all caps) instead of 'not'
"#,
    },
    Case {
        name: "c_grammar2",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#""charges the card""#, r#""charge cannot fail, NOT really""#), (r#""returns nil""#, r#""its result may be nil""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors[1].description must not contain modal verbs (should/could/would/may/might/must/can/cannot)
- behaviors[2].description must not contain modal verbs (should/could/would/may/might/must/can/cannot)
"#,
    },
    Case {
        name: "c_grammar_unicode",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#""charges the card""#, r#""ſhould charge éis Not""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors[1].description must not contain modal verbs (should/could/would/may/might/must/can/cannot)
- behaviors[1].description must use 'NOT' (all caps) instead of 'not'
"#,
    },
    Case {
        name: "c_int_values",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"when_parent: [true]"#, r#"when_parent: [1.0]"#), (r#"{value: true, description: "authenticated""#, r#"{value: 1, description: "authenticated""#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "c_leaf_missing_two",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#", terminal: true, behavior_id: returns_nil}"#, r#", terminal: true, behavior_id: ""}"#), (r#"terminal: false, behavior_id: charges_card}"#, r#"terminal: false}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].values[1].behavior_id must be a non-empty String
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_level_float",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"level: 1
"#, r#"level: 1.0
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0].level must be an Integer
"#,
    },
    Case {
        name: "c_level_gap",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"level: 2"#, r#"level: 3"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_method_fields",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"    type: instance
    method_mode: new
    analyzed: true
"#, r#"    type: singleton
    method_mode: changed
    analyzed: 'yes'
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].type must be one of: instance, class
- methods[0].analyzed must be boolean
- methods[0].method_mode must be one of: new, modified, unchanged
"#,
    },
    Case {
        name: "c_method_not_hash",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"methods:
  - name: call"#, r#"methods:
  - call
  - name: call"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0] must be a Hash
"#,
    },
    Case {
        name: "c_methods_empty",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"methods:
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
"#, r#"methods: []
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods must not be empty
"#,
    },
    Case {
        name: "c_methods_missing",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"methods:
  - name: call"#, r#"methodz:
  - name: call"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods must be an Array
"#,
    },
    Case {
        name: "c_mtime_float",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"source_mtime: 1700000000"#, r#"source_mtime: 1700000000.5"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- source_mtime must be an Integer
"#,
    },
    Case {
        name: "c_selection",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"  - {name: call, method_mode: new, line_range: [1, 9], selected: true}
"#, r#"  - {name: call, selected: false}
  - {name: refund, selected: true}
  - {name: refund, selected: true}
  - {name: 5, selected: true}
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods missing selected methods: refund, refund, 5
- methods contains unselected methods: call
"#,
    },
    Case {
        name: "c_side_effects",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"side_effects: [{type: email, behavior_id: sends_receipt}]"#, r#"side_effects: [oops, {type: sms}, {behavior_id: ' '}, {behavior_id: nope}]"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].side_effects[0] must be a Hash
- methods[0].side_effects[1].behavior_id must be a non-empty String
- methods[0].side_effects[2].behavior_id must be a non-empty String
- Unknown behavior_id 'nope' in methods[0].side_effects[3]
"#,
    },
    Case {
        name: "c_side_effects_string",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"side_effects: [{type: email, behavior_id: sends_receipt}]"#, r#"side_effects: email"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "c_source_kind",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"source: {kind: internal}
        setup: {type: action"#, r#"source: {kind: :internal}
        setup: {type: action"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::SyntaxError: (cases/c_source_kind.yml): did not find expected node content while parsing a flow node at line 23 column 24
"#,
    },
    Case {
        name: "c_symbols",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"when_parent: [true]"#, r#"when_parent: [:yes]"#), (r#"{value: true, description: "authenticated""#, r#"{value: :yes, description: "authenticated""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::SyntaxError: (cases/c_symbols.yml): did not find expected node content while parsing a flow node at line 27 column 21
"#,
    },
    Case {
        name: "c_terminal_no_behavior",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#", terminal: true, behavior_id: returns_nil}"#, r#", terminal: true}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].values[1].behavior_id must be a non-empty String
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_top_fields",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"slug: app_services_checkout
"#, r#""#), (r#"source_mtime: 1700000000"#, r#"source_mtime: '1700000000'"#), (r#"class_name: Checkout"#, r#"class_name: ''"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- slug must be a non-empty String
- source_mtime must be an Integer
- class_name must be a non-empty String
"#,
    },
    Case {
        name: "c_unknown_behavior",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"behavior_id: returns_nil}"#, r#"behavior_id: returns_none}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Unknown behavior_id 'returns_none' in methods[0].characteristics[1].values[1]
- Unknown behavior_id 'returns_none' on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_valid",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "c_value_fields",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"{value: true, description: "authenticated", terminal: false}"#, r#"{value: true, description: "When authenticated", terminal: "false"}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0].values[1].terminal must be boolean
- methods[0].characteristics[0].values[1].description must NOT start with a context word (when/with/and/but/without); generator adds it automatically
"#,
    },
    Case {
        name: "c_value_not_hash",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"          - {value: true, description: "authenticated", terminal: false}
"#, r#"          - {value: true, description: "authenticated", terminal: false}
          - oops
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0].values[2] must be a Hash
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_values_not_array",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"        values:
          - {value: present"#, r#"        values: {}
        old_values:
          - {value: present"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].values must be an Array
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_when_parent_missing",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"        when_parent: [true]
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "c_when_parent_string_true",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"when_parent: [true]"#, r#"when_parent: ['true']"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "d_automation_false",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"automation:
  discovery_agent_completed: true
"#, r#"automation: false
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation.discovery_agent_completed must be boolean
"#,
    },
    Case {
        name: "d_automation_string",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"automation:
  discovery_agent_completed: true
"#, r#"automation: done
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation must be a Hash
- automation.discovery_agent_completed must be boolean
"#,
    },
    Case {
        name: "d_blank_strings",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"source_file: app/models/payment.rb"#, r#"source_file: '   '"#), (r#"class_name: Payment"#, r#"class_name: :Payment"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- source_file must be a non-empty String
- class_name must be a non-empty String
"#,
    },
    Case {
        name: "d_complexity_list",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"complexity:
  zone: green
  loc: 40
  methods: 2
"#, r#"complexity: [green]
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- complexity must be a Hash
"#,
    },
    Case {
        name: "d_complexity_missing",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"complexity:
  zone: green
  loc: 40
  methods: 2
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- complexity must be a Hash
"#,
    },
    Case {
        name: "d_controllers_warning",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"spec/models/payment_spec.rb"#, r#"spec/controllers/payments_controller_spec.rb"#)]),
        code: 2,
        stdout: r#"OK
"#,
        stderr: r#"Metadata validation warnings:
- spec_path is under spec/controllers; prefer spec/requests for new Rails controllers tests
"#,
    },
    Case {
        name: "d_controllers_warning_and_error",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"spec/models/payment_spec.rb"#, r#"spec/controllers/payments_controller_spec.rb"#), (r#"class_name: Payment
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- class_name must be a non-empty String
"#,
    },
    Case {
        name: "d_line_range_reversed",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"[3, 9]"#, r#"[9, 3]"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "d_marker_string",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"discovery_agent_completed: true"#, r#"discovery_agent_completed: 'true'"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation.discovery_agent_completed must be boolean
"#,
    },
    Case {
        name: "d_marker_yes",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"discovery_agent_completed: true"#, r#"discovery_agent_completed: yes"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "d_mta_empty",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"methods_to_analyze:
  - name: charge
    method_mode: new
    line_range: [3, 9]
    selected: true
  - name: refund
    method_mode: unchanged
    line_range: [11, 20]
    selected: false
    skip_reason: User deselected
"#, r#"methods_to_analyze: []
"#), (r#"spec/models/payment_spec.rb"#, r#"spec/controllers/payments_controller_spec.rb"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods_to_analyze must not be empty
"#,
    },
    Case {
        name: "d_mta_hash",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"methods_to_analyze:
  - name: charge"#, r#"methods_to_analyze:
  charge:
    name: charge
  x:
  - name: charge"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods_to_analyze must be an Array
"#,
    },
    Case {
        name: "d_mta_items",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"  - name: refund
    method_mode: unchanged
    line_range: [11, 20]
    selected: false
"#, r#"  - refund
  - ~
  - name: ''
    method_mode: :new
    line_range: [11]
    selected: 1
  - name: x
    method_mode: New
    line_range: 11-20
  - name: y
    method_mode: modified
    selected: false
    line_range: ['11', 20.0]
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods_to_analyze[1] must be a Hash
- methods_to_analyze[2] must be a Hash
- methods_to_analyze[3].name must be a non-empty String
- methods_to_analyze[3].method_mode must be one of: new, modified, unchanged
- methods_to_analyze[3].selected must be boolean
- methods_to_analyze[3].line_range must be [start, end]
- methods_to_analyze[4].method_mode must be one of: new, modified, unchanged
- methods_to_analyze[4].selected must be boolean
- methods_to_analyze[4].line_range must be an Array
- methods_to_analyze[5].line_range[0] must be an Integer
- methods_to_analyze[5].line_range[1] must be an Integer
"#,
    },
    Case {
        name: "d_no_automation",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"automation:
  discovery_agent_completed: true
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation.discovery_agent_completed must be boolean
"#,
    },
    Case {
        name: "d_spec_path_int",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"spec_path: spec/models/payment_spec.rb"#, r#"spec_path: 42"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- spec_path must be a non-empty String
"#,
    },
    Case {
        name: "d_valid",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "d_zone_missing",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"  zone: green
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- complexity.zone must be a non-empty String
"#,
    },
    Case {
        name: "e_automation_string_marker",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"automation: {discovery_agent_completed: true, code_analyzer_completed: true}"#, r#"automation: code_analyzer_completed"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation must be a Hash
- automation.code_analyzer_completed must be boolean
"#,
    },
    Case {
        name: "e_big_description_unicode",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#""charges the card""#, r#""charges the card ＮＯＴ not… NOT""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors[1].description must use 'NOT' (all caps) instead of 'not'
"#,
    },
    Case {
        name: "e_depends_on_empty",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"depends_on: authenticated"#, r#"depends_on: ''"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "e_description_array",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"{value: present, description: "saved card""#, r#"{value: present, description: ["card is saved", x]"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].values[0].description must be a non-empty String
- methods[0].characteristics[1].values[0].description must be a noun/adjective phrase for level>=2 binary contexts (avoid has/have/is/are/was/were)
"#,
    },
    Case {
        name: "e_description_symbol",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"{value: true, description: "authenticated""#, r#"{value: true, description: !ruby/symbol with_card"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0].values[1].description must be a non-empty String
"#,
    },
    Case {
        name: "e_enabled_string",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"{id: charges_card, description: "charges the card", type: success, enabled: true}"#, r#"{id: charges_card, description: "", type: success, enabled: "false"}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors[1].description must be a non-empty String
"#,
    },
    Case {
        name: "e_id_blank_bank",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"{id: returns_nil,"#, r#"{id: ' ',"#), (r#"behavior_id: returns_nil}"#, r#"behavior_id: ' '}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- behaviors[2].id must be a non-empty String
- methods[0].characteristics[1].values[1].behavior_id must be a non-empty String
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "e_level_string_child",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"level: 2"#, r#"level: '2'"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].level must be an Integer
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "e_mta_not_array_ca",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"methods_to_analyze:
  - {name: call, method_mode: new, line_range: [1, 9], selected: true}
"#, r#"methods_to_analyze: {name: call}
"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "e_nil_name_child",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"      - name: authenticated
"#, r#"      - description2: x
"#), (r#"        depends_on: authenticated
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0].name must be a non-empty String
"#,
    },
    Case {
        name: "e_none_selected",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"selected: true}"#, r#"selected: false}"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "e_range_binary",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"type: presence"#, r#"type: range"#), (r#"{value: present, description: "saved card""#, r#"{value: present, description: "amount is high""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].values[0].description must be a noun/adjective phrase for level>=2 binary contexts (avoid has/have/is/are/was/were)
"#,
    },
    Case {
        name: "e_range_three",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"type: presence"#, r#"type: range"#), (r#"          - {value: nil, description: "saved card", terminal: true, behavior_id: returns_nil}
"#, r#"          - {value: nil, description: "saved card", terminal: true, behavior_id: returns_nil}
          - {value: x, description: "it is x", terminal: true, behavior_id: returns_nil}
"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "e_root_depends_false",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"        level: 1
"#, r#"        level: 1
        depends_on: false
"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "e_selection_arrays",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"  - {name: call, method_mode: new, line_range: [1, 9], selected: true}
"#, r#"  - {name: [a, [b, c]], selected: true}
  - {name: {k: v}, selected: true}
  - {name: :sym, selected: true}
  - {name: false, selected: true}
  - {name: 1.5, selected: true}
"#), (r#"  - name: call
"#, r#"  - name: 1
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::SyntaxError: (cases/e_selection_arrays.yml): did not find expected node content while parsing a flow node at line 13 column 12
"#,
    },
    Case {
        name: "e_side_effect_bid_symbol",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"side_effects: [{type: email, behavior_id: sends_receipt}]"#, r#"side_effects: [{type: email, behavior_id: !ruby/symbol sends_receipt}]"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].side_effects[0].behavior_id must be a non-empty String
"#,
    },
    Case {
        name: "e_side_effects_hash",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"side_effects: [{type: email, behavior_id: sends_receipt}]"#, r#"side_effects: {type: email}"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "e_value_string_behavior",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"          - {value: true, description: "authenticated", terminal: false}
"#, r#"          - has behavior_id here
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0].values[1] must be a Hash
- Unknown behavior_id 'behavior_id' on leaf value (method 'call')
"#,
    },
    Case {
        name: "e_value_string_obj",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"          - {value: true, description: "authenticated", terminal: false}
"#, r#"          - a terminal value
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0].values[1] must be a Hash
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "e_when_parent_hash",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"when_parent: [true]"#, r#"when_parent: {true: 1}"#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "e_when_parent_string",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"when_parent: [true]"#, r#"when_parent: 'yes please'"#), (r#"{value: true, description: "authenticated""#, r#"{value: "yes", description: "authenticated""#)]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "s_isolation_values",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"isolation: {db: stubbed, external_http: none, queue: stubbed}"#, r#"isolation: {db: mocked, external_http: real}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].test_config.isolation.db must be one of: real, stubbed, none
- methods[0].test_config.isolation.queue must be one of: real, stubbed, none
"#,
    },
    Case {
        name: "s_markers",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"spec/services/checkout_spec.rb"#, r#"spec/services/marker_spec.rb"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Spec still contains rspec-testing markers (# rspec-testing:...)
"#,
    },
    Case {
        name: "s_markers_missing",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"automation: {discovery_agent_completed: true, code_analyzer_completed: true, isolation_decider_completed: true, spec_writer_completed: true}"#, r#"automation: {spec_writer_completed: 1}"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation.code_analyzer_completed must be boolean
- automation.isolation_decider_completed must be boolean
- automation.spec_writer_completed must be boolean
"#,
    },
    Case {
        name: "s_methods_missing",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"methods:
  - name: call"#, r#"methodz:
  - name: call"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods must be an Array
"#,
    },
    Case {
        name: "s_no_spec",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"spec/services/checkout_spec.rb"#, r#"spec/services/missing_spec.rb"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- spec_path does not exist: spec/services/missing_spec.rb
"#,
    },
    Case {
        name: "s_placeholders",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"spec/services/checkout_spec.rb"#, r#"spec/services/placeholder_spec.rb"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Spec still contains placeholders: {COMMON_SETUP}, {EXPECTATION}, {THRESHOLD_VALUE}
"#,
    },
    Case {
        name: "s_spec_path_blank",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"spec_path: spec/services/checkout_spec.rb"#, r#"spec_path: ''"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- spec_path must be a non-empty String
"#,
    },
    Case {
        name: "s_test_config_bad",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"      test_level: unit
      isolation: {db: stubbed, external_http: none, queue: stubbed}
      confidence: high
      decision_trace: ['project_type: rails']
"#, r#"      test_level: system
      isolation: [db]
      confidence: unsure
      decision_trace: none
"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].test_config.test_level must be one of: unit, integration, request
- methods[0].test_config.confidence must be one of: high, medium, low
- methods[0].test_config.isolation must be a Hash
- methods[0].test_config.decision_trace must be an Array
"#,
    },
    Case {
        name: "s_test_config_missing",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[(r#"    test_config:
      test_level: unit
      isolation: {db: stubbed, external_http: none, queue: stubbed}
      confidence: high
      decision_trace: ['project_type: rails']
"#, r#""#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].test_config must be a Hash
"#,
    },
    Case {
        name: "s_valid",
        stage: "spec-writer",
        input: Input::Edit(WRITTEN, &[]),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "y_alias",
        stage: "code-analyzer",
        input: Input::Raw(b"a: &x 1\nb: *x\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::BadAlias: Unknown alias: x
"#,
    },
    Case {
        name: "y_bom",
        stage: "discovery-agent",
        input: Input::Raw(b"\xef\xbb\xbfsource_file: app/models/payment.rb\nclass_name: Payment\nspec_path: spec/models/payment_spec.rb\ncomplexity:\n  zone: green\n  loc: 40\n  methods: 2\nmethods_to_analyze:\n  - name: charge\n    method_mode: new\n    line_range: [3, 9]\n    selected: true\n  - name: refund\n    method_mode: unchanged\n    line_range: [11, 20]\n    selected: false\n    skip_reason: User deselected\nautomation:\n  discovery_agent_completed: true\n"),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "y_comment_only",
        stage: "discovery-agent",
        input: Input::Raw(b"# nothing here\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- metadata must be a Hash
"#,
    },
    Case {
        name: "y_date",
        stage: "discovery-agent",
        input: Input::Raw(b"source_file: app/models/payment.rb\nclass_name: Payment\nspec_path: spec/models/payment_spec.rb\ncomplexity:\n  zone: green\n  loc: 40\n  methods: 2\nmethods_to_analyze:\n  - name: charge\n    method_mode: new\n    line_range: [3, 9]\n    selected: true\n  - name: refund\n    method_mode: unchanged\n    line_range: [11, 20]\n    selected: false\n    skip_reason: User deselected\nautomation:\n  discovery_agent_completed: true\ninitialized_at: 2024-01-15\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::DisallowedClass: Tried to load unspecified class: Date
"#,
    },
    Case {
        name: "y_dup_keys",
        stage: "discovery-agent",
        input: Input::Raw(b"source_file: app/models/payment.rb\nclass_name: Payment\nspec_path: spec/models/payment_spec.rb\ncomplexity:\n  zone: green\n  loc: 40\n  methods: 2\nmethods_to_analyze:\n  - name: charge\n    method_mode: new\n    line_range: [3, 9]\n    selected: true\n  - name: refund\n    method_mode: unchanged\n    line_range: [11, 20]\n    selected: false\n    skip_reason: User deselected\nautomation:\n  discovery_agent_completed: true\nclass_name: ''\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- class_name must be a non-empty String
"#,
    },
    Case {
        name: "y_empty",
        stage: "code-analyzer",
        input: Input::Raw(b""),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- metadata must be a Hash
"#,
    },
    Case {
        name: "y_invalid_utf8",
        stage: "discovery-agent",
        input: Input::Raw(b"a: \xff\xfe\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::SyntaxError: (cases/y_invalid_utf8.yml): invalid leading UTF-8 octet at line 1 column 1
"#,
    },
    Case {
        name: "y_list_root",
        stage: "spec-writer",
        input: Input::Raw(b"- a\n- b\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- metadata must be a Hash
"#,
    },
    Case {
        name: "y_multi_doc",
        stage: "discovery-agent",
        input: Input::Raw(b"source_file: app/models/payment.rb\nclass_name: Payment\nspec_path: spec/models/payment_spec.rb\ncomplexity:\n  zone: green\n  loc: 40\n  methods: 2\nmethods_to_analyze:\n  - name: charge\n    method_mode: new\n    line_range: [3, 9]\n    selected: true\n  - name: refund\n    method_mode: unchanged\n    line_range: [11, 20]\n    selected: false\n    skip_reason: User deselected\nautomation:\n  discovery_agent_completed: true\n---\nfoo: bar\n"),
        code: 0,
        stdout: r#"OK
"#,
        stderr: r#""#,
    },
    Case {
        name: "y_omap",
        stage: "discovery-agent",
        input: Input::Raw(b"a: !!omap\n  - b: 1\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation.discovery_agent_completed must be boolean
- source_file must be a non-empty String
- class_name must be a non-empty String
- spec_path must be a non-empty String
- complexity must be a Hash
- methods_to_analyze must be an Array
"#,
    },
    Case {
        name: "y_regexp",
        stage: "discovery-agent",
        input: Input::Raw(b"a: !ruby/regexp /x/\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::DisallowedClass: Tried to load unspecified class: Regexp
"#,
    },
    Case {
        name: "y_ruby_hash_tag",
        stage: "discovery-agent",
        input: Input::Raw(b"--- !ruby/hash:ActiveSupport::HashWithIndifferentAccess\na: 1\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::DisallowedClass: Tried to load unspecified class: ActiveSupport::HashWithIndifferentAccess
"#,
    },
    Case {
        name: "y_ruby_object",
        stage: "code-analyzer",
        input: Input::Raw(b"x: !ruby/object:OpenStruct\n  a: 1\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::DisallowedClass: Tried to load unspecified class: OpenStruct
"#,
    },
    Case {
        name: "y_scalar_root",
        stage: "discovery-agent",
        input: Input::Raw(b"just text\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- metadata must be a Hash
"#,
    },
    Case {
        name: "y_set",
        stage: "discovery-agent",
        input: Input::Raw(b"a: !!set\n  ? b\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::DisallowedClass: Tried to load unspecified class: Psych::Set
"#,
    },
    Case {
        name: "y_symbol_tag",
        stage: "discovery-agent",
        input: Input::Edit(DISCOVERY, &[(r#"class_name: Payment"#, r#"class_name: !ruby/symbol Payment"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- class_name must be a non-empty String
"#,
    },
    Case {
        name: "y_syntax",
        stage: "code-analyzer",
        input: Input::Raw(b"a: 1\n b: 2\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::SyntaxError: (cases/y_syntax.yml): mapping values are not allowed in this context at line 2 column 3
"#,
    },
    Case {
        name: "y_tab",
        stage: "discovery-agent",
        input: Input::Raw(b"a:\n\t- b\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::SyntaxError: (cases/y_tab.yml): found character that cannot start any token while scanning for the next token at line 2 column 1
"#,
    },
    Case {
        name: "y_time",
        stage: "discovery-agent",
        input: Input::Raw(b"source_file: app/models/payment.rb\nclass_name: Payment\nspec_path: spec/models/payment_spec.rb\ncomplexity:\n  zone: green\n  loc: 40\n  methods: 2\nmethods_to_analyze:\n  - name: charge\n    method_mode: new\n    line_range: [3, 9]\n    selected: true\n  - name: refund\n    method_mode: unchanged\n    line_range: [11, 20]\n    selected: false\n    skip_reason: User deselected\nautomation:\n  discovery_agent_completed: true\ninitialized_at: 2024-01-15 10:20:30\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::DisallowedClass: Tried to load unspecified class: Time
"#,
    },
    Case {
        name: "y_unclosed",
        stage: "code-analyzer",
        input: Input::Raw(b"a: [1, 2\n"),
        code: 1,
        stdout: r#""#,
        stderr: r#"Error: Cannot parse YAML: Psych::SyntaxError: (cases/y_unclosed.yml): did not find expected ',' or ']' while parsing a flow sequence at line 1 column 4
"#,
    },
];

/// Inputs on which the original crashes with a Ruby exception (a backtrace on stderr,
/// exit 1): what we report instead.
const CRASH_CASES: &[Case] = &[
    Case {
        name: "e_spec_dir",
        stage: "spec-writer",
        input: Input::Edit(
            WRITTEN,
            &[(r#"spec/services/checkout_spec.rb"#, r#"spec/services"#)],
        ),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- spec_path cannot be read: spec/services: is a directory
"#,
    },
    Case {
        name: "x_automation_array",
        stage: "code-analyzer",
        input: Input::Edit(
            ANALYZED,
            &[(
                r#"automation: {discovery_agent_completed: true, code_analyzer_completed: true}"#,
                r#"automation: [1]"#,
            )],
        ),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- automation must be a Hash
- automation.code_analyzer_completed must be boolean
"#,
    },
    Case {
        name: "x_char_nil",
        stage: "code-analyzer",
        input: Input::Edit(
            ANALYZED,
            &[(
                r#"    characteristics:
"#,
                r#"    characteristics:
      - ~
"#,
            )],
        ),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0] must be a Hash
"#,
    },
    Case {
        name: "x_spec_invalid_utf8",
        stage: "spec-writer",
        input: Input::Edit(
            WRITTEN,
            &[(
                r#"spec/services/checkout_spec.rb"#,
                r#"spec/services/binary_spec.rb"#,
            )],
        ),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Spec still contains placeholders: {SETUP_CODE}
"#,
    },
    Case {
        name: "x_value_int",
        stage: "code-analyzer",
        input: Input::Edit(
            ANALYZED,
            &[(
                r#"          - {value: true, description: "authenticated", terminal: false}
"#,
                r#"          - 5
"#,
            )],
        ),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[0].values[1] must be a Hash
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "x_values_hash",
        stage: "code-analyzer",
        input: Input::Edit(
            ANALYZED,
            &[(
                r#"        values:
          - {value: present"#,
                r#"        values: {a: 1}
        oldvalues:
          - {value: present"#,
            )],
        ),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- methods[0].characteristics[1].values must be an Array
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
    Case {
        name: "x_when_parent_int",
        stage: "code-analyzer",
        input: Input::Edit(ANALYZED, &[(r#"when_parent: [true]"#, r#"when_parent: 5"#)]),
        code: 1,
        stdout: r#""#,
        stderr: r#"Metadata validation failed:
- Missing values[].behavior_id on leaf value (method 'call')
"#,
    },
];
