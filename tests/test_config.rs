//! `rspec-scout test-config`: the decision table's answers and the file it writes, the
//! low-confidence handshake, project-type detection, and safe writes (concurrent runs,
//! read-only folders, failed writes).
//!
//! The expected JSON and files were checked against the pipeline's
//! `derive_test_config.rb` on the same inputs (same decisions, traces, key order).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{bin, Project};

const META: &str = "tmp/rspec_metadata/app_models_payment.yml";

const PAYMENT: &str = "source_file: app/models/payment.rb
class_name: Payment
complexity: {zone: green, loc: 40, methods: 3}
methods_to_analyze:
  - {name: charge, method_mode: new, line_range: [10, 19], selected: true}
  - {name: refund, method_mode: new, line_range: [21, 50], selected: true}
methods:
  - name: charge
    type: instance
    dependencies: [Gateway]
    side_effects: [{type: cache, behavior_id: caches}]
    characteristics:
      - {name: card, type: presence, level: 1, setup: {type: model, class: Card}, source: {kind: internal}}
  - name: refund
    type: instance
    dependencies: [Gateway, Ledger]
    side_effects: [{type: external_api, behavior_id: calls}, {type: webhook, behavior_id: hooks}]
    characteristics:
      - {name: gw, type: boolean, level: 1, setup: {type: data}, source: {kind: external, class: Faraday::Connection, method: post}}
  - name: total
    type: class
    characteristics: []
automation: {discovery_agent_completed: true, code_analyzer_completed: true}
spec_path: spec/models/payment_spec.rb
";

const PAYMENT_DONE: &str = r#"source_file: app/models/payment.rb
class_name: Payment
complexity:
  zone: green
  loc: 40
  methods: 3
methods_to_analyze:
  - name: charge
    method_mode: new
    line_range: [10, 19]
    selected: true
  - name: refund
    method_mode: new
    line_range: [21, 50]
    selected: true
methods:
  - name: charge
    type: instance
    dependencies: [Gateway]
    side_effects:
      - type: cache
        behavior_id: caches
    characteristics:
      - name: card
        type: presence
        level: 1
        setup:
          type: model
          class: Card
        source:
          kind: internal
    test_config:
      test_level: unit
      isolation:
        db: stubbed
        external_http: none
        queue: none
      confidence: high
      decision_trace:
        - "project_type: rails"
        - "file_type: model"
        - "base_test_level: unit"
        - "complexity.zone: green"
        - "loc: 10"
        - "dependencies.count: 1"
        - "side_effects: cache"
        - "uses_db: true (setup.type=model or side_effect cache)"
        - "rule: uses_db + small/simple => unit (db stubbed)"
  - name: refund
    type: instance
    dependencies: [Gateway, Ledger]
    side_effects:
      - type: external_api
        behavior_id: calls
      - type: webhook
        behavior_id: hooks
    characteristics:
      - name: gw
        type: boolean
        level: 1
        setup:
          type: data
        source:
          kind: external
          class: Faraday::Connection
          method: post
    test_config:
      test_level: unit
      isolation:
        db: none
        external_http: stubbed
        queue: stubbed
      confidence: high
      decision_trace:
        - "project_type: rails"
        - "file_type: model"
        - "base_test_level: unit"
        - "complexity.zone: green"
        - "loc: 30"
        - "dependencies.count: 2"
        - "side_effects: external_api, webhook"
        - "uses_external_http: true (side_effect external_api or HTTP client)"
        - "uses_queue: true (event/webhook/email)"
  - name: total
    type: class
    characteristics: []
    test_config:
      test_level: unit
      isolation:
        db: none
        external_http: none
        queue: none
      confidence: high
      decision_trace:
        - "project_type: rails"
        - "file_type: model"
        - "base_test_level: unit"
        - "complexity.zone: green"
        - "is_pure: true (no side effects, no db/http/queue)"
automation:
  discovery_agent_completed: true
  code_analyzer_completed: true
  isolation_decider_completed: true
spec_path: spec/models/payment_spec.rb
target:
  kind: model
"#;

const SUCCESS: &str = r#"{
  "status": "success",
  "metadata": "tmp/rspec_metadata/app_models_payment.yml",
  "updated_methods": 3,
  "low_confidence_methods": []
}
"#;

const CONTROLLER: &str = "source_file: app/controllers/admin/users_controller.rb
class_name: Admin::UsersController
complexity: {zone: yellow}
methods_to_analyze:
  - {name: index, line_range: [3, 20]}
methods:
  - {name: index, type: instance}
  - {name: helper_thing, type: instance, side_effects: [{type: email}]}
  - 42
automation: done
";

const NEEDS_DECISION: &str = r#"{
  "status": "needs_decision",
  "decisions": [
    {
      "decision": "test_level_low_confidence",
      "title": "Test level is unclear",
      "question": "For Admin::UsersController methods, test level is unclear.\nFile: app/controllers/admin/users_controller.rb\n\nChoose default:",
      "recommended_action": "unit",
      "context": {
        "file": "app/controllers/admin/users_controller.rb",
        "class_name": "Admin::UsersController",
        "file_type": "controller",
        "methods": [
          {
            "method_id": "Admin::UsersController#index",
            "suggested_test_level": "unit",
            "signals": {
              "uses_db": false,
              "uses_external_http": false,
              "uses_queue": false,
              "is_pure": true
            },
            "decision_trace": [
              "project_type: rails",
              "file_type: controller",
              "base_test_level: request",
              "complexity.zone: yellow",
              "loc: 18",
              "is_pure: true (no side effects, no db/http/queue)"
            ]
          }
        ]
      },
      "choices": [
        {
          "action": "unit",
          "label": "Unit — faster, more stubs/mocks",
          "flag": "--low-confidence=unit"
        },
        {
          "action": "integration",
          "label": "Integration — real DB, external HTTP stubbed",
          "flag": "--low-confidence=integration"
        },
        {
          "action": "request",
          "label": "Request — full endpoint (controller)",
          "flag": "--low-confidence=request"
        }
      ]
    }
  ]
}
"#;

#[test]
fn writes_the_decisions_and_keeps_every_other_key_in_order() {
    let p = Project::new();
    p.write(META, PAYMENT);
    let run = p
        .run(&[
            "test-config",
            META,
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .expect_code(0);
    assert_eq!((run.stdout.as_str(), run.stderr.as_str()), (SUCCESS, ""));
    assert_eq!(p.read(META), PAYMENT_DONE);
    // Running again gives the same file.
    p.run(&[
        "test-config",
        META,
        "--project-type",
        "rails",
        "--format",
        "json",
    ])
    .expect_code(0);
    assert_eq!(p.read(META), PAYMENT_DONE);
    // The result passes the spec-writer stage's test_config checks.
    p.write(
        "spec/models/payment_spec.rb",
        "RSpec.describe Payment do\nend\n",
    );
    let run = p
        .run(&["validate", "--stage", "spec-writer", META])
        .expect_code(1);
    assert_eq!(
        run.stderr,
        "Metadata validation failed:\n- automation.spec_writer_completed must be boolean\n"
    );
}

#[test]
fn a_source_file_finds_its_metadata() {
    let p = Project::new();
    p.write(META, PAYMENT);
    p.write("app/models/payment.rb", "class Payment; end\n");
    let run = p
        .run(&[
            "test-config",
            "app/models/payment.rb",
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .expect_code(0);
    assert_eq!(run.stdout, SUCCESS);
    assert_eq!(p.read(META), PAYMENT_DONE);
}

#[test]
fn low_confidence_needs_a_decision_and_writes_nothing() {
    let p = Project::new();
    p.write(META, CONTROLLER);
    let run = p
        .run(&[
            "test-config",
            META,
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .expect_code(2);
    assert_eq!(
        (run.stdout.as_str(), run.stderr.as_str()),
        (NEEDS_DECISION, "")
    );
    assert_eq!(p.read(META), CONTROLLER);

    let run = p
        .run(&[
            "test-config",
            META,
            "--project-type",
            "rails",
            "--low-confidence",
            "request",
            "--format",
            "json",
        ])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        r#"{
  "status": "success",
  "metadata": "tmp/rspec_metadata/app_models_payment.yml",
  "updated_methods": 2,
  "low_confidence_methods": [
    "Admin::UsersController#index"
  ]
}
"#
    );
    assert_eq!(
        p.read(META),
        r#"source_file: app/controllers/admin/users_controller.rb
class_name: Admin::UsersController
complexity:
  zone: yellow
methods_to_analyze:
  - name: index
    line_range: [3, 20]
methods:
  - name: index
    type: instance
    test_config:
      test_level: request
      isolation:
        db: real
        external_http: none
        queue: none
      confidence: high
      decision_trace:
        - "project_type: rails"
        - "file_type: controller"
        - "base_test_level: request"
        - "complexity.zone: yellow"
        - "loc: 18"
        - "is_pure: true (no side effects, no db/http/queue)"
        - "user_override_low_confidence: request"
  - name: helper_thing
    type: instance
    side_effects:
      - type: email
    test_config:
      test_level: request
      isolation:
        db: real
        external_http: none
        queue: stubbed
      confidence: medium
      decision_trace:
        - "project_type: rails"
        - "file_type: controller"
        - "base_test_level: request"
        - "complexity.zone: yellow"
        - "side_effects: email"
        - "uses_queue: true (event/webhook/email)"
  - 42
automation:
  isolation_decider_completed: true
target:
  kind: controller
"#
    );
}

#[test]
fn project_type_comes_from_the_config_else_it_is_detected() {
    let p = Project::new();
    p.write(META, PAYMENT);
    p.write(
        ".claude/rspec-testing-config.yml",
        "project_type: library\n",
    );
    p.run(&["test-config", META, "--format", "json"])
        .expect_code(0);
    assert!(p
        .read(META)
        .contains("- \"project_type: library\"\n        - \"file_type: model\""));

    let p = Project::new();
    p.write(META, PAYMENT);
    p.write(
        "Gemfile",
        "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\n",
    );
    let run = p
        .run(&["--format", "text", "test-config", META])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "tmp/rspec_metadata/app_models_payment.yml: target.kind model, project_type rails (detected)
  Payment#charge  unit         db=stubbed external_http=none    queue=none    confidence=high
  Payment#refund  unit         db=none    external_http=stubbed queue=stubbed confidence=high
  Payment.total   unit         db=none    external_http=none    queue=none    confidence=high
"
    );
    assert!(p.read(META).contains(
        "        - \"project_type: rails\"\n        - \"project_type detected: rails (Gemfile has gem 'rails')\"\n        - \"file_type: model\"\n"
    ));
}

#[test]
fn bad_input_is_a_clear_error_and_nothing_changes() {
    let p = Project::new();
    let run = p
        .run(&[
            "test-config",
            "tmp/rspec_metadata/none.yml",
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .expect_code(1);
    assert_eq!(
        run.stderr,
        "rspec-scout: metadata not found: tmp/rspec_metadata/none.yml (METADATA_NOT_FOUND)\n"
    );
    assert!(
        !p.root().join("tmp").exists(),
        "no folder created for a typo"
    );

    let broken = PAYMENT.replace(
        "  - name: total\n    type: class\n",
        "  - name: total\n    type: ''\n",
    );
    p.write(META, &broken);
    let run = p
        .run(&[
            "test-config",
            META,
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .expect_code(1);
    assert_eq!(
        run.stdout,
        r#"{
  "status": "error",
  "error": "invalid_method",
  "message": "Method missing name/type",
  "details": "tmp/rspec_metadata/app_models_payment.yml: methods[2] has a blank name or type",
  "suggestion": "give every method a name and a type (instance or class), e.g. re-run `rspec-scout analyze`",
  "error_code": "METADATA_INVALID",
  "recoverable": true
}
"#
    );
    assert_eq!(p.read(META), broken);

    for (text, reason, details) in [
        (
            "- a\n",
            "metadata must be a Hash",
            "metadata must be a Hash",
        ),
        (
            "class_name: A\nmethods: [{name: a, type: instance}]\n",
            "metadata must include source_file and class_name",
            "metadata must include source_file and class_name",
        ),
        (
            "source_file: a.rb\nclass_name: A\nmethods: []\n",
            "metadata must include methods[]",
            "\"metadata must include methods[]\"",
        ),
    ] {
        p.write(META, text);
        let run = p
            .run(&[
                "test-config",
                META,
                "--project-type",
                "rails",
                "--format",
                "yaml",
            ])
            .expect_code(1);
        assert_eq!(
            run.stdout,
            format!(
                "status: error\nerror: \"invalid metadata {META}: {reason}\"\ndetails: {details}\nsuggestion: \"fix the file by hand, or delete it and re-run `rspec-scout discover` to recreate it\"\nerror_code: METADATA_INVALID\nrecoverable: true\n"
            )
        );
        assert_eq!(p.read(META), text);
    }
}

/// Whether this process can write into a folder whose mode is 0555 (root can).
fn writes_ignore_permissions(dir: &Path) -> bool {
    let probe = dir.join(".probe");
    let written = std::fs::write(&probe, b"").is_ok();
    let _ = std::fs::remove_file(&probe);
    written
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp."))
        .collect()
}

#[test]
fn a_read_only_metadata_folder_gives_write_failed_and_keeps_the_file() {
    let p = Project::new();
    p.write(META, PAYMENT);
    let dir = p.root().join("tmp/rspec_metadata");
    set_mode(&dir, 0o555);
    let mut command = Command::new(bin());
    if writes_ignore_permissions(&dir) {
        // Root ignores the folder's mode: run as `nobody` instead (util-linux setpriv).
        if Command::new("setpriv").arg("--version").output().is_err() {
            set_mode(&dir, 0o755);
            eprintln!("note: running as root without setpriv; the read-only folder case is covered by a_failed_write_leaves_the_old_file_and_no_temp_files");
            return;
        }
        set_mode(p.root(), 0o755);
        command = Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(bin());
    }
    let output = command
        .args([
            "test-config",
            META,
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .current_dir(p.root())
        .output()
        .unwrap();
    set_mode(&dir, 0o755);
    assert_eq!(output.status.code(), Some(1));
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["error_code"], "WRITE_FAILED");
    assert_eq!(answer["details"], "permission denied");
    assert_eq!(p.read(META), PAYMENT);
    assert!(leftovers(&dir).is_empty());
}

#[test]
fn a_failed_write_leaves_the_old_file_and_no_temp_files() {
    // A file size limit of 0 bytes lets the temp file be created and makes writing it fail
    // (EFBIG), whoever runs the test.
    let p = Project::new();
    p.write(META, PAYMENT);
    let output = Command::new("sh")
        .args(["-c", "ulimit -f 0; trap '' XFSZ; exec \"$0\" \"$@\""])
        .arg(bin())
        .args([
            "test-config",
            META,
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .current_dir(p.root())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["error_code"], "WRITE_FAILED");
    assert_eq!(p.read(META), PAYMENT);
    assert!(leftovers(&p.root().join("tmp/rspec_metadata")).is_empty());
}

#[test]
fn concurrent_runs_never_leave_a_half_written_file() {
    let p = Project::new();
    p.write(META, PAYMENT);
    let path = p.root().join(META);
    for round in 0..4 {
        let children: Vec<_> = (0..8)
            .map(|i| {
                let mut args = vec![
                    "test-config",
                    META,
                    "--project-type",
                    "rails",
                    "--format",
                    "json",
                ];
                if i % 2 == 1 {
                    args.push("--low-confidence=unit");
                }
                Command::new(bin())
                    .args(&args)
                    .current_dir(p.root())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        // Read the file while the writers run: every read must be a whole document.
        let mut reads = 0;
        let mut running = children;
        let mut finished = Vec::new();
        while !running.is_empty() {
            let bytes = std::fs::read(&path).unwrap();
            let value = rspec_scout::yaml::load(&bytes, "m.yml")
                .unwrap_or_else(|e| panic!("round {round}: half-written file: {e}"));
            assert_eq!(value["class_name"], "Payment", "round {round}");
            reads += 1;
            let mut still = Vec::new();
            for mut child in running {
                match child.try_wait().unwrap() {
                    Some(_) => finished.push(child.wait_with_output().unwrap()),
                    None => still.push(child),
                }
            }
            running = still;
        }
        assert!(reads > 0);
        for output in finished {
            assert_eq!(
                output.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            assert_eq!(String::from_utf8_lossy(&output.stdout), SUCCESS);
        }
        assert_eq!(p.read(META), PAYMENT_DONE, "round {round}");
        assert!(leftovers(&p.root().join("tmp/rspec_metadata")).is_empty());
    }
}

/// Regression (a redmine-shaped service): it deletes tokens and sends mail through
/// `Mailer.deliver_*`, and test-config called it pure with `db: none`. Analyzed end to
/// end, the mail is a side effect and the delete a database write (`db_writes`, an added
/// field), so the database is used and the method is not pure.
#[test]
fn a_service_that_deletes_rows_and_sends_mail_is_not_pure() {
    let p = Project::new();
    p.write(".claude/rspec-testing-config.yml", "project_type: rails\n");
    p.write(
        "app/services/token_purge.rb",
        "class TokenPurge\n  def call(user)\n    Token.where(user: user, action: \"recovery\").delete_all\n    Mailer.deliver_tokens_purged(user)\n  end\nend\n",
    );
    p.run(&["analyze", "app/services/token_purge.rb"])
        .expect_code(0);
    let meta = p.read("tmp/rspec_metadata/app_services_token_purge.yml");
    assert!(
        meta.contains("    db_writes:\n      - operation: delete_all\n        target: Token\n        line: 3\n"),
        "{meta}"
    );
    let run = p
        .run(&[
            "test-config",
            "app/services/token_purge.rb",
            "--format",
            "json",
        ])
        .expect_code(0);
    let meta = p.read("tmp/rspec_metadata/app_services_token_purge.yml");
    let config = meta
        .split_once("test_config:")
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    let trace: Vec<&str> = config
        .lines()
        .filter(|l| l.trim_start().starts_with("- "))
        .map(|l| l.trim_start().trim_start_matches("- ").trim_matches('"'))
        .collect();
    assert!(
        trace.contains(&"uses_db: true (db writes: Token.delete_all)"),
        "{meta}\n{}",
        run.stdout
    );
    assert!(
        trace.contains(&"uses_queue: true (event/webhook/email)"),
        "{meta}"
    );
    assert!(!config.contains("is_pure"), "{meta}");
    assert!(
        config.contains("db: stubbed") || config.contains("db: real"),
        "{meta}"
    );
}

#[test]
fn a_file_the_analysis_skipped_is_skipped_too_and_says_why() {
    let p = Project::new();
    let skipped = "source_file: app/models/payment.rb
class_name: Payment
methods_to_analyze:
  - {name: charge, method_mode: unchanged, line_range: [10, 19], selected: false, skip_reason: User deselected}
automation:
  discovery_agent_completed: true
  code_analyzer_completed: true
  code_analyzer_skipped: true
  code_analyzer_skip_reason: No testable methods found
";
    p.write(META, skipped);
    let answer = p
        .run(&[
            "test-config",
            META,
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["status"].as_str(), Some("skipped"));
    assert_eq!(answer["metadata"].as_str(), Some(META));
    assert_eq!(
        answer["skip_reason"].as_str(),
        Some("the code analysis was skipped: No testable methods found")
    );
    let meta = p.read(META);
    assert!(
        meta.ends_with(
            "  code_analyzer_skip_reason: No testable methods found
  isolation_decider_completed: true
  isolation_decider_skipped: true
  isolation_decider_skip_reason: \"the code analysis was skipped: No testable methods found\"
"
        ),
        "{meta}"
    );
    // Run again: the same answer, the file unchanged.
    let again = p
        .run(&[
            "test-config",
            META,
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .expect_code(0)
        .yaml();
    assert_eq!(again, answer);
    assert_eq!(p.read(META), meta);

    // Without a recorded skip, missing methods are still the original's error.
    let unexplained = skipped
        .replace("  code_analyzer_skipped: true\n", "")
        .replace(
            "  code_analyzer_skip_reason: No testable methods found\n",
            "",
        );
    p.write(META, &unexplained);
    let run = p
        .run(&[
            "test-config",
            META,
            "--project-type",
            "rails",
            "--format",
            "json",
        ])
        .expect_code(1);
    assert!(
        run.stderr.contains("metadata must include methods[]"),
        "{}",
        run.stderr
    );
    assert_eq!(p.read(META), unexplained, "an error writes nothing");
}

/// Without FILE, every analyzed file of the last plan, as `skeleton` does (a 318-file
/// plan needed a shell loop).
#[test]
fn without_a_file_every_analyzed_file_of_the_plan_is_decided() {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.init_repo();
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.edit(
        "app/models/payment.rb",
        "  def amount\n",
        "  def fee_waived?\n    amount_cents < 100\n  end\n\n  def amount\n",
    );
    p.run(&["discover"]).expect_code(0);
    // Nothing analyzed yet: skipped, with the reason.
    let run = p.run(&["test-config", "--format", "text"]).expect_code(0);
    assert_eq!(
        run.stdout,
        "app/models/payment.rb: skipped: not analyzed yet (run `rspec-scout analyze --from-metadata`)\n0 files updated, 0 to decide, 1 skipped, 0 errors\n"
    );
    p.run(&["analyze", "--from-metadata"]).expect_code(0);
    let answer = p.run(&["test-config"]).expect_code(0).yaml();
    assert_eq!(answer["status"].as_str(), Some("success"));
    assert_eq!(answer["summary"]["updated"].as_u64(), Some(1));
    assert_eq!(
        answer["results"][0]["result"]["updated_methods"].as_u64(),
        Some(1)
    );
    let meta = p.read("tmp/rspec_metadata/app_models_payment.yml");
    assert!(meta.contains("isolation_decider_completed: true"), "{meta}");
    // Every metadata file, not only the plan's.
    p.run(&["discover", "--all"]).expect_code(0);
    p.run(&["analyze", "--from-metadata"]).expect_code(0);
    p.run(&["discover"]).expect_code(0);
    p.run(&["analyze", "--from-metadata"]).expect_code(0);
    let answer = p.run(&["test-config"]).expect_code(0).yaml();
    assert_eq!(answer["summary"]["updated"].as_u64(), Some(1));
    let answer = p
        .run(&["test-config", "--all-metadata"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["summary"]["updated"].as_u64(), Some(17));
}

/// test-config reads exactly `side_effects` and `db_writes`: over every analyzed method of
/// the fixture app, the queue and HTTP isolation it decides agree with the effects the
/// metadata lists (a job's enqueue or a delivery a leaf ends with included).
#[test]
fn test_config_and_the_metadata_never_disagree() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    p.run(&["analyze", "app", "lib"]).expect_code(0);
    p.run(&[
        "test-config",
        "--all-metadata",
        "--low-confidence",
        "unit",
        "--project-type",
        "rails",
    ])
    .expect_code(0);
    let mut checked = 0;
    for entry in std::fs::read_dir(p.root().join("tmp/rspec_metadata")).unwrap() {
        let path = entry.unwrap().path();
        let meta: serde_yaml::Value =
            serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for m in meta["methods"].as_sequence().into_iter().flatten() {
            let types: Vec<&str> = m["side_effects"]
                .as_sequence()
                .into_iter()
                .flatten()
                .filter_map(|e| e["type"].as_str())
                .collect();
            let trace: Vec<&str> = m["test_config"]["decision_trace"]
                .as_sequence()
                .unwrap()
                .iter()
                .filter_map(|t| t.as_str())
                .collect();
            let id = format!(
                "{}#{}",
                meta["class_name"].as_str().unwrap(),
                m["name"].as_str().unwrap()
            );
            let queue = types
                .iter()
                .any(|t| ["email", "event", "webhook"].contains(t));
            assert_eq!(
                trace.contains(&"uses_queue: true (event/webhook/email)"),
                queue,
                "{id}: {types:?} {trace:?}"
            );
            if types.contains(&"external_api") {
                assert!(
                    trace
                        .iter()
                        .any(|t| t.starts_with("uses_external_http: true")),
                    "{id}: {trace:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 40, "{checked}");
    // The shapes the issue names: a delivery that ends a method, effects one call away,
    // clients held by a method or a block.
    let meta = p.read("tmp/rspec_metadata/app_models_invitation.yml");
    assert!(meta.contains("queue: stubbed"), "{meta}");
    let meta = p.read("tmp/rspec_metadata/app_services_repo_sync.yml");
    assert!(meta.contains("external_http: stubbed"), "{meta}");
    let meta = p.read("tmp/rspec_metadata/app_controllers_invitations_controller.yml");
    assert!(meta.contains("via: Invitation#resend!"), "{meta}");
}
