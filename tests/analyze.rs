//! `rspec-scout analyze`: characteristics, behaviors and side effects per method, the
//! metadata it writes, and its cache.

use std::path::Path;

use crate::util::Project;

/// `source_mtime` depends on when the fixture was copied.
fn redact_mtime(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("source_mtime: ") {
            Some(i) => format!("{}source_mtime: <mtime>", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// One snapshot per fixture file: the YAML answer. Each method's expected tree is
/// explained by a comment next to it in `fixtures/analyze_app`.
#[test]
fn fixture_app_analysis() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/analyze_app");
    insta::glob!("../fixtures/analyze_app", "{app,lib}/**/*.rb", |path| {
        let p = Project::new();
        p.copy_fixture("analyze_app");
        let rel = path
            .strip_prefix(&fixtures)
            .expect("inside fixtures")
            .to_string_lossy()
            .into_owned();
        let run = p.run(&["analyze", &rel]);
        assert!(run.code == 0, "{rel}: {}\n{}", run.stdout, run.stderr);
        insta::assert_snapshot!(redact_mtime(&run.stdout));
    });
}

#[test]
fn text_format_shows_the_contexts_the_skeleton_writes() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    let run = p
        .run(&[
            "analyze",
            "app/services/payment_processor.rb",
            "--format",
            "text",
        ])
        .expect_code(0);
    insta::assert_snapshot!(run.stdout, @"
    app/services/payment_processor.rb
      #process  (confidence 0.90)
        when payment status is any other payment status
          with payment gateway charge succeeds
            -> returns success result
          but payment gateway charge fails
            => returns failure result
        when payment status is completed
          => returns success result
        when payment status is failed
          => returns payment failed failure result
        side effect: sends payment completed notification
        side effect: sends receipt email
        side effect: calls the Stripe charge create API (via PaymentGateway#charge)
      #refund  (confidence 1.00)
        when refund eligible
          -> returns success result
        when NOT refund eligible
          => returns NOT refundable failure result
    ");
}

#[test]
fn metadata_is_written_and_passes_the_code_analyzer_checks() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    p.run(&["analyze", "app/services/checkout.rb"])
        .expect_code(0);
    let path = "tmp/rspec_metadata/app_services_checkout.yml";
    let run = p
        .run(&["validate", "--stage", "code-analyzer", path])
        .expect_code(0);
    assert_eq!(run.stdout, "OK\n");
    let meta = p.read(path);
    assert!(meta.contains("  code_analyzer_completed: true\n"), "{meta}");
    assert!(meta.contains("source_digest: sha256:"), "{meta}");
    // Every method renders a skeleton with at least one context or example.
    let skeleton = p
        .run(&["skeleton", path, "--stdout", "--mode", "outline"])
        .expect_code(0);
    assert!(
        skeleton.stdout.contains("describe '#call' do") && skeleton.stdout.contains("it '"),
        "{}",
        skeleton.stdout
    );
}

#[test]
fn the_cache_is_not_taken_when_a_parent_or_concern_the_analysis_read_changed() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    let file = "app/controllers/watchlists_controller.rb";
    let behaviors = |answer: &serde_yaml::Value| -> Vec<String> {
        answer["data"]["behaviors"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|b| b["description"].as_str().unwrap().to_string())
            .collect()
    };
    let first = p.run(&["analyze", file]).expect_code(0).yaml();
    assert!(behaviors(&first).contains(&"redirects to login path".to_string()));
    let second = p.run(&["analyze", file]).expect_code(0).yaml();
    assert_eq!(second["cached"].as_bool(), Some(true));

    // The concern's filter now redirects elsewhere: the controller's own bytes are the
    // same, its plan is not.
    p.edit(
        "app/controllers/concerns/authentication.rb",
        "format.html { redirect_to login_path }",
        "format.html { redirect_to sign_in_path }",
    );
    // status says so before analyze runs again.
    let status = p.run(&["status", file]).expect_code(0).yaml();
    assert_eq!(
        status["files"][0]["cache"].as_str(),
        Some("stale (app/controllers/concerns/authentication.rb changed)")
    );
    let third = p.run(&["analyze", file]).expect_code(0).yaml();
    assert!(third.get("cached").is_none());
    let now = behaviors(&third);
    assert!(
        now.contains(&"redirects to sign in path".to_string()),
        "{now:?}"
    );
    assert!(
        !now.contains(&"redirects to login path".to_string()),
        "{now:?}"
    );
    assert_eq!(
        p.run(&["analyze", file]).expect_code(0).yaml()["cached"].as_bool(),
        Some(true)
    );

    // Metadata another build analyzed, or made under other side-effect rules, is made again.
    let metadata = "tmp/rspec_metadata/app_controllers_watchlists_controller.yml";
    let text = p.read(metadata);
    let analyzer = text
        .lines()
        .find(|l| l.trim_start().starts_with("analyzer: "))
        .unwrap()
        .to_string();
    p.write(
        metadata,
        text.replace(&analyzer, "  analyzer: rspec-scout 0.0.1"),
    );
    let other_build = p.run(&["analyze", file]).expect_code(0).yaml();
    assert!(other_build.get("cached").is_none());
    p.write(
        ".rspec-scout.yml",
        "side_effects:\n  - {pattern: AuditLog.record, type: event, description: records an audit entry}\n",
    );
    let other_rules = p.run(&["analyze", file]).expect_code(0).yaml();
    assert!(other_rules.get("cached").is_none());

    // Without analysis_inputs: the pipeline's own analyzer's work is kept (cached), an
    // earlier rspec-scout's is made again.
    let without_inputs = |version: &str| {
        let mut m: serde_yaml::Value = serde_yaml::from_str(&p.read(metadata)).unwrap();
        let map = m.as_mapping_mut().unwrap();
        map.remove("analysis_inputs");
        map["automation"]["code_analyzer_version"] = version.into();
        p.write(metadata, serde_yaml::to_string(&m).unwrap());
    };
    without_inputs("code-analyzer 3.1");
    let pipelines = p.run(&["analyze", file]).expect_code(0).yaml();
    assert_eq!(pipelines["cached"].as_bool(), Some(true));
    without_inputs("rspec-scout 0.0.9");
    let earlier = p.run(&["analyze", file]).expect_code(0).yaml();
    assert!(earlier.get("cached").is_none());
}

#[test]
fn a_valid_cache_is_reused_until_the_source_changes_or_force() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    let first = p
        .run(&["analyze", "app/models/plan.rb"])
        .expect_code(0)
        .yaml();
    assert!(first.get("cached").is_none());
    let second = p
        .run(&["analyze", "app/models/plan.rb"])
        .expect_code(0)
        .yaml();
    assert_eq!(second["cached"].as_bool(), Some(true));
    assert_eq!(second["data"], first["data"]);
    let forced = p
        .run(&["analyze", "app/models/plan.rb", "--force"])
        .expect_code(0)
        .yaml();
    assert!(forced.get("cached").is_none());
    // Same mtime second, different bytes: the digest catches it.
    p.edit("app/models/plan.rb", "price_cents\n", "price_cents + 1\n");
    let changed = p
        .run(&["analyze", "app/models/plan.rb"])
        .expect_code(0)
        .yaml();
    assert!(changed.get("cached").is_none());
    assert_ne!(
        changed["data"]["source_digest"],
        first["data"]["source_digest"]
    );
}

#[test]
fn reanalysis_clears_later_stages_markers_and_keeps_other_keys() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    p.write(
        "tmp/rspec_metadata/app_models_plan.yml",
        "source_file: app/models/plan.rb\nclass_name: Plan\ncustom: keep me\nautomation:\n  discovery_agent_completed: true\n  code_analyzer_completed: true\n  isolation_decider_completed: true\n  spec_writer_completed: true\n",
    );
    p.run(&["analyze", "app/models/plan.rb"]).expect_code(0);
    let meta = p.read("tmp/rspec_metadata/app_models_plan.yml");
    assert!(
        meta.starts_with("source_file: app/models/plan.rb\nclass_name: Plan\ncustom: keep me\n"),
        "{meta}"
    );
    assert!(
        !meta.contains("isolation_decider_completed") && !meta.contains("spec_writer_completed"),
        "{meta}"
    );
    assert!(
        meta.contains("discovery_agent_completed: true")
            && meta.contains("code_analyzer_completed: true")
    );
}

#[test]
fn only_selected_methods_are_analyzed_and_none_selected_is_a_skip() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    p.write(
        "tmp/rspec_metadata/app_models_order.yml",
        "source_file: app/models/order.rb\nclass_name: Order\nmethods_to_analyze:\n  - {name: ship!, method_mode: modified, selected: true, line_range: [12, 21]}\n  - {name: paid?, method_mode: unchanged, selected: false, line_range: [37, 39]}\nautomation:\n  discovery_agent_completed: true\n",
    );
    let answer = p
        .run(&["analyze", "app/models/order.rb"])
        .expect_code(0)
        .yaml();
    let methods: Vec<(&str, &str)> = answer["data"]["methods"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap(),
                m["method_mode"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(methods, vec![("ship!", "modified")]);
    p.run(&[
        "validate",
        "--stage",
        "code-analyzer",
        "tmp/rspec_metadata/app_models_order.yml",
    ])
    .expect_code(0);

    p.edit(
        "tmp/rspec_metadata/app_models_order.yml",
        "selected: true",
        "selected: false",
    );
    let answer = p
        .run(&["analyze", "app/models/order.rb", "--force"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["status"].as_str(), Some("skipped"));
    assert_eq!(
        answer["skip_reason"].as_str(),
        Some("No testable methods found")
    );
    let meta = p.read("tmp/rspec_metadata/app_models_order.yml");
    assert!(
        meta.contains(
            "code_analyzer_skipped: true\n  code_analyzer_skip_reason: No testable methods found"
        ),
        "{meta}"
    );
}

#[test]
fn from_metadata_after_discover_analyzes_every_planned_file() {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.init_repo();
    p.run(&["discover", "--all"]).expect_code(0);
    let answer = p.run(&["analyze", "--from-metadata"]).expect_code(0).yaml();
    assert_eq!(answer["status"].as_str(), Some("success"));
    // 16 files with public methods, and ApplicationController, whose only units are its
    // filters (private methods Rails runs before actions).
    assert_eq!(answer["summary"]["analyzed"].as_u64(), Some(17));
    assert_eq!(answer["summary"]["errors"].as_u64(), Some(0));
    for entry in std::fs::read_dir(p.root().join("tmp/rspec_metadata")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yml") {
            let rel = path
                .strip_prefix(p.root())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let run = p.run(&["validate", "--stage", "code-analyzer", &rel]);
            assert!(run.code == 0 || run.code == 2, "{rel}: {}", run.stderr);
            p.run(&["skeleton", &rel, "--stdout"]).expect_code(0);
        }
    }
    // A second run reuses every analysis.
    let again = p.run(&["analyze", "--from-metadata"]).expect_code(0).yaml();
    assert_eq!(again["summary"]["cached"].as_u64(), Some(17));
}

#[test]
fn missing_and_broken_inputs_are_clear_errors() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    let run = p.run(&["analyze", "app/models/nope.rb"]).expect_code(1);
    assert_eq!(run.yaml()["error_code"].as_str(), Some("SOURCE_NOT_FOUND"));
    p.write(
        "tmp/rspec_metadata/app_models_plan.yml",
        "source_file: [oops\n",
    );
    let run = p.run(&["analyze", "app/models/plan.rb"]).expect_code(1);
    let answer = run.yaml();
    assert_eq!(answer["status"].as_str(), Some("error"));
    assert_eq!(answer["error_code"].as_str(), Some("METADATA_INVALID"));
    assert_eq!(
        p.read("tmp/rspec_metadata/app_models_plan.yml"),
        "source_file: [oops\n",
        "left untouched"
    );
    let run = p.run(&["analyze", "--from-metadata", "--root", "app"]);
    assert_eq!(run.code, 1);
}

#[test]
fn a_file_that_does_not_parse_is_an_error_not_a_plan() {
    // prism recovers `ok`, but `broken` swallows the class's end: a plan built from the
    // recovered tree would be presented as real. The file is an error; others go on.
    let p = Project::new();
    p.write(
        "app/services/half.rb",
        "class Half\n  def ok(x)\n    return nil unless x\n    x\n  end\n\n  def broken(\nend\n",
    );
    p.write(
        "app/services/whole.rb",
        "class Whole\n  def ok(x)\n    return nil unless x\n    x\n  end\nend\n",
    );
    let answer = p
        .run(&["analyze", "app/services/half.rb", "app/services/whole.rb"])
        .expect_code(1)
        .yaml();
    assert_eq!(answer["status"].as_str(), Some("error"));
    let results = answer["results"].as_sequence().unwrap();
    assert_eq!(results[0]["status"].as_str(), Some("error"));
    assert_eq!(results[0]["error_code"].as_str(), Some("SOURCE_UNPARSABLE"));
    assert_eq!(results[1]["status"].as_str(), Some("success"));
    assert_eq!(answer["summary"]["errors"].as_u64(), Some(1));
    assert!(!p.exists("tmp/rspec_metadata/app_services_half.yml"));
    assert!(p.exists("tmp/rspec_metadata/app_services_whole.yml"));
}

/// A new user's first try: `analyze FILE` before any `discover`, then `skeleton FILE`. The
/// metadata has an analysis and no spec path; skeleton says which step is missing and how
/// to run it, not that the file is broken, and after that step the pipeline goes on.
#[test]
fn skeleton_of_a_file_analyzed_but_never_discovered_says_to_discover_it() {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.init_repo();
    let file = "app/models/payment.rb";
    p.run(&["analyze", file]).expect_code(0);
    let run = p
        .run(&["skeleton", file, "--format", "yaml"])
        .expect_code(1);
    let answer = run.yaml();
    assert_eq!(answer["error_code"], "NOT_DISCOVERED", "{}", run.stdout);
    let suggestion = answer["suggestion"].as_str().unwrap_or_default();
    assert!(
        suggestion.contains(&format!("rspec-scout discover --all {file}")),
        "{suggestion}"
    );
    assert!(!p.exists("spec/models/payment_spec.rb"));
    // A plain discover plans what changed: nothing of this untouched file. The analysis
    // no longer fits, and the answer says the step that plans the file's methods, not one
    // that would plan nothing again.
    p.run(&["discover", file]).expect_code(0);
    let run = p
        .run(&["skeleton", file, "--format", "yaml"])
        .expect_code(1);
    let answer = run.yaml();
    assert_eq!(answer["error_code"], "ANALYSIS_STALE", "{}", run.stdout);
    let details = answer["details"].as_str().unwrap_or_default();
    assert!(
        details.contains(&format!("rspec-scout discover --all {file}")),
        "{details}"
    );
    assert!(
        answer["suggestion"]
            .as_str()
            .unwrap_or_default()
            .contains("discover --all"),
        "{}",
        run.stdout
    );
    // The suggested steps work.
    p.run(&["discover", "--all", file]).expect_code(0);
    p.run(&["analyze", file]).expect_code(0);
    p.run(&["skeleton", file]).expect_code(0);
    assert!(p.exists("spec/models/payment_spec.rb"));
}

/// The README's example app: `discover --all; analyze --from-metadata; discover; analyze
/// --from-metadata` served the first analysis (all five of Payment's methods) from the cache
/// though the branch's plan selects one, and `skeleton` then wrote blocks for all five.
#[test]
fn the_cache_follows_the_plans_selection() {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.init_repo();
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.copy_fixture("example_feature");
    p.commit_all("feature");
    let methods = |p: &Project| -> Vec<String> {
        let meta: serde_yaml::Value =
            serde_yaml::from_str(&p.read("tmp/rspec_metadata/app_models_payment.yml")).unwrap();
        meta["methods"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap().to_string())
            .collect()
    };
    p.run(&["discover", "--all"]).expect_code(0);
    p.run(&["analyze", "--from-metadata"]).expect_code(0);
    assert_eq!(methods(&p).len(), 5);

    p.run(&["discover"]).expect_code(0);
    // Until analyze runs again, status says the analysis is stale and the stages after it
    // refuse the file.
    let status = p.run(&["status", "--format", "json"]).expect_code(0);
    let status: serde_json::Value = serde_json::from_str(&status.stdout).unwrap();
    let payment = status["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["source_file"] == "app/models/payment.rb")
        .unwrap()
        .clone();
    assert_eq!(
        payment["cache"], "stale (the plan's selection changed)",
        "{payment}"
    );
    for command in ["skeleton", "test-config"] {
        let run = p
            .run(&[command, "app/models/payment.rb", "--format", "yaml"])
            .expect_code(1);
        assert_eq!(run.yaml()["error_code"], "ANALYSIS_STALE", "{command}");
    }
    assert!(!p.exists("spec/models/payment_spec.rb"));

    let run = p
        .run(&["analyze", "--from-metadata", "--format", "text"])
        .expect_code(0);
    assert!(
        run.stdout.starts_with("app/models/payment.rb\n"),
        "{}",
        run.stdout
    );
    assert_eq!(methods(&p), ["total_with_fee"]);
    // The same plan again: now the cache serves it.
    let run = p
        .run(&["analyze", "--from-metadata", "--format", "text"])
        .expect_code(0);
    assert!(
        run.stdout.contains("app/models/payment.rb (cached)"),
        "{}",
        run.stdout
    );
    p.run(&["skeleton", "app/models/payment.rb"]).expect_code(0);
    let spec = p.read("spec/models/payment_spec.rb");
    assert!(spec.contains("describe '#total_with_fee'"));
    assert!(!spec.contains("describe '#refundable?'"), "{spec}");
}

/// The controller Rails' scaffold generator writes: the save decides, then the format
/// under each outcome, with what each answers (a redirect, 201 JSON, 422 and the errors).
/// It read `renders create template` with no context. The format asked under both
/// branches reads as the same subject (`request format`, not `request format 2`).
#[test]
fn the_scaffold_controller_plans_the_save_then_the_format() {
    let p = Project::new();
    p.copy_fixture("analyze_app");
    let run = p
        .run(&[
            "analyze",
            "app/controllers/posts_controller.rb",
            "--format",
            "text",
        ])
        .expect_code(0);
    let create: String = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("  #create"))
        .take_while(|l| !l.starts_with("  #update"))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!(create, @r"
      #create  (confidence 0.90)
        when post save succeeds
          and request format is HTML
            -> redirects to post
          and request format is JSON
            -> renders show template with 201 status
        when post save fails
          and request format is HTML
            => renders new template with 422 status
          and request format is JSON
            => renders the post errors as JSON with 422 status
    ");
    assert!(!run.stdout.contains("format 2"), "{}", run.stdout);
}

/// Types from what the app says: a boolean column of db/schema.rb is a true/false case (a
/// spec sets it to true or false), as is a keyword whose default is `false`; a comparison
/// returned with `<=>` has three outcomes.
#[test]
fn types_from_the_schema_keyword_defaults_and_comparisons() {
    let p = Project::new();
    p.write(
        "db/schema.rb",
        "ActiveRecord::Schema[7.1].define(version: 1) do\n  create_table \"versions\", force: :cascade do |t|\n    t.boolean \"prerelease\", default: false\n    t.string \"number\"\n  end\nend\n",
    );
    p.write(
        "app/models/version.rb",
        "class Version < ApplicationRecord\n  def label\n    if prerelease\n      \"#{number} (pre)\"\n    else\n      number\n    end\n  end\n\n  def summary\n    number ? \"v#{number}\" : \"unnumbered\"\n  end\n\n  def yank!(soft: false)\n    return false if soft\n\n    update!(yanked_at: Time.current)\n  end\n\n  def <=>(other)\n    sort_key <=> other.sort_key\n  end\nend\n",
    );
    let run = p
        .run(&["analyze", "app/models/version.rb", "--format", "text"])
        .expect_code(0);
    insta::assert_snapshot!(run.stdout, @r#"
    app/models/version.rb
      #label  (confidence 0.90)
        when prerelease
          -> returns the formatted text
        when NOT prerelease
          -> returns the number
      #summary  (confidence 0.90)
        when number present
          -> returns the formatted text
        when number missing
          -> returns "unnumbered"
      #yank!  (confidence 1.00)
        when NOT soft
          -> updates the version
        when soft
          => returns false
      #<=>  (confidence 0.90)
        when sort key is below other sort key
          -> returns -1
        when sort key is equal to other sort key
          -> returns 0
        when sort key is above other sort key
          -> returns 1
    "#);
}

#[test]
fn a_parent_controllers_filter_names_its_file_and_is_planned_once_when_it_calls_itself() {
    let p = Project::new();
    p.write(
        "app/controllers/admin_controller.rb",
        "class AdminController < ApplicationController\n  before_action :authenticate\n\n  private\n\n  def authenticate\n    if Settings.skip_admin_auth\n      session[:using_admin] = 1\n    elsif session[:using_admin].nil? || session[:admin_name].nil?\n      if params[:emergency].nil? || Settings.disable_emergency_user\n        if !authenticated?\n          redirect_to login_path\n        elsif @user.admin?\n          session[:using_admin] = 1\n        else\n          session[:user_id] = nil\n          authenticate\n        end\n      end\n    end\n  end\nend\n",
    );
    p.write(
        "app/controllers/application_controller.rb",
        "class ApplicationController < ActionController::Base\nend\n",
    );
    let file = "app/controllers/admin/reports_controller.rb";
    p.write(
        file,
        "class Admin::ReportsController < AdminController\n  def create\n    if Report.create(report_params)\n      redirect_to admin_reports_path\n    else\n      render :new, status: :unprocessable_entity\n    end\n  end\nend\n",
    );
    let answer = p.run(&["analyze", file]).expect_code(0).yaml();
    let create = answer["data"]["methods"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "create")
        .unwrap();
    let chars: Vec<(String, String)> = create["characteristics"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["source_line"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Every guard read from the parent names its file, the compound ones too (line 9 of
    // this controller is nothing of theirs).
    for (name, line) in &chars {
        if name.contains("session") || name.contains("emergency") || name.contains("auth") {
            assert!(
                line.starts_with("app/controllers/admin_controller.rb:"),
                "{name} at {line}: {chars:?}"
            );
        }
    }
    assert!(chars
        .iter()
        .any(|(_, l)| l == "app/controllers/admin_controller.rb:9"));
    // The filter calls itself after clearing the session: a retry, not a second copy of
    // its questions.
    assert!(
        !chars.iter().any(|(name, _)| name.ends_with("_2")),
        "{chars:?}"
    );
}
