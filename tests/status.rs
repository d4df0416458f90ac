//! `rspec-scout status`: where each file's pipeline run stopped, what it recorded, and
//! whether the cached analysis still matches the source.

use std::time::{Duration, SystemTime};

use crate::util::Project;

const MTIME: u64 = 1_700_000_000;

fn set_mtime(p: &Project, rel: &str, secs: u64) {
    std::fs::File::options()
        .write(true)
        .open(p.root().join(rel))
        .unwrap()
        .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

const PAYMENT_SRC: &str = "class Payment\n  def charge; end\nend\n";

/// A project with four metadata files: done through test-config with a valid cache, one
/// whose source changed, one only discovered, and one that does not load.
fn project() -> Project {
    let p = Project::new();
    p.write("app/models/payment.rb", PAYMENT_SRC);
    set_mtime(&p, "app/models/payment.rb", MTIME);
    p.write(
        "app/models/refund.rb",
        "class Refund\n  def call; 1; end\nend\n",
    );
    set_mtime(&p, "app/models/refund.rb", MTIME);
    p.write("app/services/checkout.rb", "class Checkout; end\n");
    let digest = rspec_scout::metadata::digest(PAYMENT_SRC.as_bytes());
    p.write(
        "tmp/rspec_metadata/app_models_payment.yml",
        format!(
            "source_file: app/models/payment.rb\nclass_name: Payment\nsource_mtime: {MTIME}\nsource_digest: \"{digest}\"\nmethods_to_analyze: [{{name: charge, selected: true}}, {{name: void, selected: false}}]\nmethods:\n  - {{name: charge, test_config: {{test_level: unit}}}}\nautomation:\n  discovery_agent_completed: true\n  code_analyzer_completed: true\n  isolation_decider_completed: true\n  warnings: [refund guard is ambiguous]\n"
        ),
    );
    p.write(
        "tmp/rspec_metadata/app_models_refund.yml",
        format!("source_file: app/models/refund.rb\nclass_name: Refund\nsource_mtime: {MTIME}\nsource_digest: \"sha256:0000\"\nmethods: [{{name: call}}]\nautomation: {{discovery_agent_completed: true, code_analyzer_completed: true, errors: [analysis failed once]}}\n"),
    );
    p.write(
        "tmp/rspec_metadata/app_services_checkout.yml",
        "source_file: app/services/checkout.rb\nclass_name: Checkout\nmethods_to_analyze: [{name: call, selected: true}]\nautomation: {discovery_agent_completed: true}\n",
    );
    p.write(
        "tmp/rspec_metadata/app_models_broken.yml",
        "a: &x 1\nb: *x\n",
    );
    // Lock and temp files are not metadata.
    p.write("tmp/rspec_metadata/.rspec-scout.lock", "");
    p
}

#[test]
fn text_table_shows_where_each_file_stopped() {
    let p = project();
    let run = p.run(&["status", "--format", "text"]).expect_code(0);
    assert_eq!(
        run.stdout,
        "source                                    discover  analyze  test-config  spec  review  next               cache
app/models/payment.rb                     ✓         ✓        ✓            ·     ·       spec_writer        valid
    warning: refund guard is ambiguous
app/models/refund.rb                      ✓         ✓        ·            ·     ·       isolation_decider  stale (source changed)
    error: analysis failed once
app/services/checkout.rb                  ✓         ·        ·            ·     ·       code_analyzer      no analysis
tmp/rspec_metadata/app_models_broken.yml  invalid metadata (METADATA_INVALID): Cannot parse YAML: Psych::BadAlias: Unknown alias: x

4 files: 0 done, 3 in progress, 1 stale, 1 invalid
"
    );
}

#[test]
fn yaml_answer_lists_markers_counts_and_cache_per_file() {
    let p = project();
    let run = p.run(&["status", "app/models"]).expect_code(0);
    let root = p.root().canonicalize().unwrap();
    assert_eq!(
        run.stdout,
        format!(
            "status: success
root: {}
files:
  - source_file: app/models/payment.rb
    metadata: tmp/rspec_metadata/app_models_payment.yml
    state: ok
    class_name: Payment
    stages:
      discovery_agent: true
      code_analyzer: true
      isolation_decider: true
      spec_writer: false
      test_reviewer: false
    next_stage: spec_writer
    cache: valid
    methods:
      selected: 1
      analyzed: 1
      test_config: 1
    warnings: [refund guard is ambiguous]
  - source_file: app/models/refund.rb
    metadata: tmp/rspec_metadata/app_models_refund.yml
    state: ok
    class_name: Refund
    stages:
      discovery_agent: true
      code_analyzer: true
      isolation_decider: false
      spec_writer: false
      test_reviewer: false
    next_stage: isolation_decider
    cache: stale (source changed)
    methods:
      selected: 0
      analyzed: 1
      test_config: 0
    errors: [analysis failed once]
  - source_file: \"\"
    metadata: tmp/rspec_metadata/app_models_broken.yml
    state: invalid
    stages:
      discovery_agent: false
      code_analyzer: false
      isolation_decider: false
      spec_writer: false
      test_reviewer: false
    next_stage: \"-\"
    cache: unknown
    error_code: METADATA_INVALID
    error: \"Cannot parse YAML: Psych::BadAlias: Unknown alias: x\"
summary:
  files: 3
  done: 0
  in_progress: 2
  stale: 1
  invalid: 1
  no_metadata: 0
",
            root.display()
        )
    );
}

#[test]
fn cache_goes_stale_when_the_source_changes_or_only_its_mtime() {
    let p = project();
    let cache = |p: &Project| {
        let answer = p
            .run(&["status", "app/models/payment.rb"])
            .expect_code(0)
            .yaml();
        answer["files"][0]["cache"].as_str().unwrap().to_string()
    };
    assert_eq!(cache(&p), "valid");
    set_mtime(&p, "app/models/payment.rb", MTIME + 60);
    assert_eq!(cache(&p), "stale (mtime only)");
    p.write(
        "app/models/payment.rb",
        "class Payment\n  def charge(x); end\nend\n",
    );
    set_mtime(&p, "app/models/payment.rb", MTIME);
    assert_eq!(cache(&p), "stale (source changed)");
    std::fs::remove_file(p.root().join("app/models/payment.rb")).unwrap();
    assert_eq!(cache(&p), "missing source");
}

#[test]
fn named_files_without_metadata_and_typos() {
    let p = project();
    p.write("lib/tax.rb", "module Tax; end\n");
    let run = p
        .run(&[
            "status",
            "lib/tax.rb",
            "app/services/checkout.rb",
            "--format",
            "text",
        ])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "source                    discover  analyze  test-config  spec  review  next             cache
app/services/checkout.rb  ✓         ·        ·            ·     ·       code_analyzer    no analysis
lib/tax.rb                no metadata

2 files: 0 done, 1 in progress, 1 without metadata
"
    );
    let run = p.run(&["status", "app/models/nope.rb"]).expect_code(1);
    assert_eq!(
        run.stderr,
        "rspec-scout: path not found: app/models/nope.rb (SOURCE_NOT_FOUND)\n"
    );
}

#[test]
fn no_metadata_folder_is_an_empty_answer() {
    let p = Project::new();
    let run = p.run(&["status", "--format", "text"]).expect_code(0);
    assert_eq!(run.stdout, "no metadata files\n");
}
