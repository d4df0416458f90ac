//! `rspec-scout discover` on real git repositories built by the tests.

use crate::util::{git_command, ruby, Project};

/// The fixture app committed on `main`, with a `feature` branch checked out.
fn app_on_feature_branch() -> Project {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.init_repo();
    p.git(&["checkout", "-q", "-b", "feature"]);
    p
}

/// Commit ids depend on git's object format only, but keep snapshots readable.
fn redact(text: &str, p: &Project) -> String {
    let mut out = text.to_string();
    for rev in ["main", "HEAD"] {
        if let Ok(id) = git_command(p.root())
            .args(["rev-parse", rev])
            .current_dir(p.root())
            .output()
        {
            let id = String::from_utf8_lossy(&id.stdout).trim().to_string();
            if id.len() >= 12 {
                out = out.replace(&id[..12], "<commit>");
            }
        }
    }
    out
}

/// The scenario of the issue: a feature branch that adds, modifies, renames, deletes,
/// re-indents, moves a method, changes only a private method, adds an untracked file;
/// some changes committed, some staged, some only in the working tree.
fn feature_work(p: &Project) {
    // Committed: a changed public method, a changed private helper, a new method.
    p.edit(
        "app/models/payment.rb",
        "completed? && created_at > REFUND_WINDOW.ago",
        "completed? && created_at > REFUND_WINDOW.ago && !refunded?",
    );
    p.edit(
        "app/models/payment.rb",
        "(amount_cents * FEE_RATE).ceil",
        "(amount_cents * FEE_RATE).ceil + 30",
    );
    p.edit(
        "app/models/order.rb",
        "  class InvalidState < StandardError; end",
        "  def cancel!\n    return false if shipped?\n\n    update!(state: :cancelled)\n  end\n\n  class InvalidState < StandardError; end",
    );
    p.commit_all("payment and order changes");
    // Staged: a rename without content change, and a deletion.
    p.git(&[
        "mv",
        "app/services/refunds/refund_policy.rb",
        "app/services/refunds/eligibility_policy.rb",
    ]);
    p.git(&["rm", "-q", "app/jobs/payment_reminder_job.rb"]);
    // Working tree only: re-indented method, moved method, new untracked service.
    p.edit(
        "app/models/user.rb",
        "  def full_name\n    [first_name, last_name].compact.join(\" \").presence || email\n  end",
        "    def full_name\n\n        [first_name, last_name].compact.join(\" \").presence || email\n    end",
    );
    let subscription = p.read("app/models/subscription.rb");
    let renew = "  def renew!\n    return false if cancelled_at.present?\n\n    update!(renews_on: renews_on + 1.month)\n  end\n\n";
    let moved = subscription.replacen(renew, "", 1).replacen(
        "  end\nend\n",
        &format!(
            "  end\n\n{}end\n",
            renew.trim_end_matches('\n').to_string() + "\n"
        ),
        1,
    );
    std::fs::write(p.root().join("app/models/subscription.rb"), moved).expect("write");
    p.write(
        "app/services/payment_retrier.rb",
        "# frozen_string_literal: true\n\nclass PaymentRetrier\n  def call(payment)\n    return :skipped unless payment.failed?\n\n    PaymentProcessor.new.process(payment)\n  end\nend\n",
    );
}

#[test]
fn branch_mode_plans_committed_staged_unstaged_and_untracked_changes() {
    let p = app_on_feature_branch();
    feature_work(&p);
    let run = p.run(&["discover"]).expect_code(0);
    insta::assert_snapshot!(redact(&run.stdout, &p));
    // One metadata file per changed file with a public method; none for unchanged files.
    let mut written: Vec<String> = std::fs::read_dir(p.root().join("tmp/rspec_metadata"))
        .expect("metadata dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yml"))
        .collect();
    written.sort();
    assert_eq!(
        written,
        vec![
            "app_models_order.yml",
            "app_models_payment.yml",
            "app_models_subscription.yml",
            "app_models_user.yml",
            "app_services_payment_retrier.yml",
            "app_services_refunds_eligibility_policy.yml",
        ]
    );
    insta::assert_snapshot!(
        "payment_metadata",
        p.read("tmp/rspec_metadata/app_models_payment.yml")
    );
}

#[test]
fn output_is_byte_identical_across_runs() {
    let p = app_on_feature_branch();
    feature_work(&p);
    let first = p.run(&["discover", "--no-metadata"]).expect_code(0).stdout;
    for _ in 0..3 {
        assert_eq!(
            p.run(&["discover", "--no-metadata"]).expect_code(0).stdout,
            first
        );
    }
    let all = p
        .run(&["discover", "--all", "--no-metadata"])
        .expect_code(0)
        .stdout;
    assert_eq!(
        p.run(&["discover", "--all", "--no-metadata", "--threads", "1"])
            .expect_code(0)
            .stdout,
        all
    );
}

#[test]
fn a_large_answer_is_the_same_bytes_on_one_thread_and_on_four() {
    // Past a few hundred items the YAML answer's long lists are rendered in parallel
    // chunks; their order and bytes must not depend on the threads.
    let p = Project::new();
    let files = crate::synth::generate(&crate::synth::Spec::new(120));
    crate::synth::write(p.root(), &files).unwrap();
    let run = |threads: &str| {
        p.run(&[
            "discover",
            "--all",
            "--no-metadata",
            "--allow-red",
            "--answer",
            "full",
            "--threads",
            threads,
        ])
        .expect_code(0)
    };
    let one = run("1");
    let items = one.yaml()["summary"]["total_methods"].as_u64().unwrap();
    assert!(
        items > 600,
        "only {items} methods: the parallel path needs more"
    );
    let four = run("4");
    assert_eq!(one.stdout, four.stdout);
    let edges = one.yaml()["dependency_graph"]["edges"]
        .as_sequence()
        .map_or(0, Vec::len);
    assert!(edges > 256, "only {edges} edges");
}

#[test]
fn yaml_and_json_answers_hold_the_same_data() {
    // The YAML answer has its own streaming writer and the JSON one goes through serde:
    // both must say the same thing, in branch mode and with --all on the fixture app.
    let p = app_on_feature_branch();
    feature_work(&p);
    for args in [
        &["discover", "--no-metadata", "--answer", "full"][..],
        &["discover", "--all", "--no-metadata", "--answer", "full"][..],
    ] {
        let yaml = p.run(args).expect_code(0).yaml();
        let mut with_json = args.to_vec();
        with_json.extend(["--format", "json"]);
        let json: serde_json::Value =
            serde_json::from_str(&p.run(&with_json).expect_code(0).stdout).unwrap();
        let yaml_as_json: serde_json::Value = serde_json::to_value(&yaml).unwrap();
        assert_eq!(yaml_as_json, json, "{args:?}");
        assert!(json["method_waves"]
            .as_array()
            .is_some_and(|w| !w.is_empty()));
    }
}

#[test]
fn staged_mode_sees_only_the_index() {
    let p = app_on_feature_branch();
    p.edit(
        "app/models/user.rb",
        "deactivated_at.nil?",
        "deactivated_at.nil? && !banned?",
    );
    p.git(&["add", "app/models/user.rb"]);
    // Unstaged edit on top of the staged one, and an unstaged edit elsewhere: both ignored.
    p.edit(
        "app/models/user.rb",
        "def full_name",
        "def full_name # unstaged",
    );
    p.edit(
        "app/models/order.rb",
        "line_items.sum(&:total_cents)",
        "line_items.sum(&:total_cents) + 0",
    );
    let answer = p
        .run(&["discover", "--staged", "--no-metadata"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["mode"].as_str(), Some("staged"));
    let files: Vec<&str> = answer["files"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, vec!["app/models/user.rb"]);
    let modes: Vec<(String, String)> = answer["files"][0]["public_methods"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["method_mode"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        modes,
        vec![
            ("full_name".to_string(), "unchanged".to_string()),
            ("can_refund?".to_string(), "unchanged".to_string()),
            ("active?".to_string(), "modified".to_string()),
            ("deactivate!".to_string(), "unchanged".to_string()),
            // Callbacks Rails runs are units of the plan too.
            ("normalize_email".to_string(), "unchanged".to_string()),
            ("send_welcome_email".to_string(), "unchanged".to_string()),
        ]
    );
}

#[test]
fn single_mode_takes_named_files_with_modes_from_git() {
    let p = app_on_feature_branch();
    p.edit(
        "app/models/order.rb",
        "line_items.sum(&:total_cents)",
        "line_items.sum(&:total_cents).to_i",
    );
    let run = p.run(&[
        "discover",
        "app/models/order.rb",
        "app/models/line_item.rb",
        "--no-metadata",
        "--format",
        "text",
    ]);
    insta::assert_snapshot!(redact(&run.expect_code(0).stdout, &p));
}

#[test]
fn single_mode_with_all_selects_every_method_of_the_named_files_only() {
    let p = app_on_feature_branch();
    let items = |answer: &serde_yaml::Value| -> Vec<(String, String, bool)> {
        answer["method_waves"]
            .as_sequence()
            .unwrap()
            .iter()
            .flat_map(|w| w["items"].as_sequence().unwrap())
            .map(|i| {
                (
                    i["source_file"].as_str().unwrap().to_string(),
                    i["method_mode"].as_str().unwrap().to_string(),
                    i["selected"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    // Nothing changed since `main`: single mode alone selects nothing and says why.
    let plain = p
        .run(&[
            "discover",
            "app/services/payment_processor.rb",
            "--no-metadata",
        ])
        .expect_code(0)
        .yaml();
    let found = items(&plain);
    assert!(
        !found.is_empty()
            && found
                .iter()
                .all(|(_, mode, sel)| mode == "unchanged" && !sel)
    );
    assert_eq!(
        plain["next_suggestions"][0].as_str(),
        Some("no method changed against the base; add --all to select every method")
    );
    // With `--all`: the same file only, every method selected, modes still from git.
    let all = p
        .run(&[
            "discover",
            "--all",
            "app/services/payment_processor.rb",
            "--no-metadata",
        ])
        .expect_code(0)
        .yaml();
    assert_eq!(all["mode"].as_str(), Some("single"));
    let found = items(&all);
    assert!(!found.is_empty());
    assert!(found.iter().all(
        |(file, mode, sel)| file == "app/services/payment_processor.rb"
            && mode == "unchanged"
            && *sel
    ));
    assert_eq!(
        all["next_suggestions"][0].as_str(),
        Some("rspec-scout analyze --from-metadata")
    );
}

#[test]
fn all_mode_selects_every_method_and_orders_the_whole_app() {
    let p = app_on_feature_branch();
    let run = p
        .run(&["discover", "--all", "--format", "text"])
        .expect_code(0);
    insta::assert_snapshot!(redact(&run.stdout, &p));
    assert!(p.exists("tmp/rspec_metadata/app_services_payment_processor.yml"));
}

#[test]
fn all_mode_works_outside_git_with_every_method_new() {
    let p = Project::new();
    p.copy_fixture("rails_app");
    let answer = p
        .run(&["discover", "--all", "--no-metadata", "--answer", "full"])
        .expect_code(0)
        .yaml();
    assert!(answer.get("base").is_none());
    let modes: Vec<&str> = answer["method_waves"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|w| w["items"].as_sequence().unwrap())
        .map(|i| i["method_mode"].as_str().unwrap())
        .collect();
    assert!(!modes.is_empty() && modes.iter().all(|m| *m == "new"));
    assert!(answer["warnings"][0]
        .as_str()
        .unwrap()
        .contains("not in a git repository"));
}

#[test]
fn dependency_cycles_share_a_wave_and_warn() {
    let p = Project::new();
    p.write("app/models/author.rb", "class Author\n  def books_count\n    Book.where(author_id: id).count\n  end\n\n  def name; end\nend\n");
    p.write(
        "app/models/book.rb",
        "class Book\n  def author_name\n    Author.find(author_id).name\n  end\nend\n",
    );
    p.write(
        "app/services/catalog.rb",
        "class Catalog\n  def titles(book)\n    book.author_name\n  end\nend\n",
    );
    p.init_repo();
    let answer = p
        .run(&["discover", "--all", "--no-metadata", "--format", "text"])
        .expect_code(0)
        .stdout;
    insta::assert_snapshot!(redact(&answer, &p));
}

#[test]
fn red_zone_file_with_only_new_methods_stops_with_exit_3() {
    let p = app_on_feature_branch();
    let methods: String = (0..13)
        .map(|i| format!("  def step_{i}\n    {i}\n  end\n\n"))
        .collect();
    p.write(
        "app/services/giant_workflow.rb",
        format!("class GiantWorkflow\n{methods}end\n"),
    );
    let run = p.run(&["discover"]).expect_code(3);
    let answer = run.yaml();
    assert_eq!(answer["status"].as_str(), Some("stop"));
    assert_eq!(answer["reason"].as_str(), Some("red_zone_new_code"));
    // Red for its 13 methods, not its 52 lines: the message names the limit crossed
    // (the contract's text always cited ">300 LOC").
    assert_eq!(
        answer["message"].as_str(),
        Some("1 file(s) in red zone (>12 methods). Refactor before testing.")
    );
    assert_eq!(
        answer["stopped_files"][0]["crossed"],
        serde_yaml::from_str::<serde_yaml::Value>("['13 methods (red above 12)']").unwrap()
    );
    assert_eq!(
        run.stderr,
        "rspec-scout: stopped: app/services/giant_workflow.rb is in the red zone with 13 methods (red above 12) and only new methods. Split it, or plan it anyway with `rspec-scout discover --allow-red`\n"
    );
    assert_eq!(
        answer["stopped_files"][0]["path"].as_str(),
        Some("app/services/giant_workflow.rb")
    );
    assert_eq!(answer["stopped_files"][0]["methods"].as_u64(), Some(13));
    assert_eq!(answer["suggestions"].as_sequence().map(Vec::len), Some(3));
    assert!(
        !answer["method_waves"].as_sequence().unwrap().is_empty(),
        "the plan is there for inspection"
    );
    assert!(
        !p.exists("tmp/rspec_metadata"),
        "nothing is written on a stop"
    );
    // The text names the limit and the way on too.
    let text = p.run(&["discover", "--format", "text"]).expect_code(3);
    insta::assert_snapshot!(redact(&text.stdout, &p), @r"
    discover: branch mode, base main (<commit>)
    STOP: 1 file(s) in red zone (>12 methods). Refactor before testing.
      app/services/giant_workflow.rb (41 LOC, 13 methods): 13 methods (red above 12)
      - Split into smaller, focused classes
      - Extract concerns/modules
      - Apply Single Responsibility Principle
    next: split the stopped files, or plan them anyway: rspec-scout discover --allow-red

    wave 0: Leaf methods (no dependencies)
      app/services/giant_workflow.rb  [red 41 LOC, 13 methods]
        [x] GiantWorkflow#step_0   new
        [x] GiantWorkflow#step_1   new
        [x] GiantWorkflow#step_2   new
        [x] GiantWorkflow#step_3   new
        [x] GiantWorkflow#step_4   new
        [x] GiantWorkflow#step_5   new
        [x] GiantWorkflow#step_6   new
        [x] GiantWorkflow#step_7   new
        [x] GiantWorkflow#step_8   new
        [x] GiantWorkflow#step_9   new
        [x] GiantWorkflow#step_10  new
        [x] GiantWorkflow#step_11  new
        [x] GiantWorkflow#step_12  new

    13 methods (13 selected) in 1 file, 1 wave; zones: 0 green, 0 yellow, 1 red
    ");
    // --allow-red proceeds.
    let answer = p.run(&["discover", "--allow-red"]).expect_code(0).yaml();
    assert_eq!(answer["status"].as_str(), Some("success"));
    assert!(p.exists("tmp/rspec_metadata/app_services_giant_workflow.yml"));
}

#[test]
fn red_zone_file_with_older_methods_only_warns() {
    let p = Project::new();
    let methods: String = (0..13)
        .map(|i| format!("  def step_{i}\n    {i}\n  end\n\n"))
        .collect();
    p.write(
        "app/services/legacy.rb",
        format!("class Legacy\n{methods}end\n"),
    );
    p.init_repo();
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.edit("app/services/legacy.rb", "    3\n", "    33\n");
    let answer = p.run(&["discover", "--no-metadata"]).expect_code(0).yaml();
    assert_eq!(answer["status"].as_str(), Some("success"));
    assert_eq!(
        answer["warnings"][0].as_str(),
        Some("app/services/legacy.rb is in the red zone (41 LOC, 13 methods): consider splitting it before adding tests")
    );
}

#[test]
fn nothing_changed_is_the_contract_error() {
    let p = app_on_feature_branch();
    let run = p.run(&["discover"]).expect_code(1);
    insta::assert_snapshot!(run.stdout, @r#"
    status: error
    error: No testable Ruby files found
    details: no in-scope Ruby file differs from main
    suggestion: "check that changed files are .rb files under app/ or lib/, or pass --all or a path"
    error_code: NO_TESTABLE_FILES
    recoverable: true
    "#);
}

#[test]
fn branch_mode_outside_a_repository_is_an_error() {
    let p = Project::new();
    p.write("app/models/a.rb", "class A; def a; end; end\n");
    let answer = p.run(&["discover"]).expect_code(1).yaml();
    assert_eq!(answer["error_code"].as_str(), Some("NOT_A_GIT_REPOSITORY"));
    assert!(answer["suggestion"]
        .as_str()
        .unwrap()
        .contains("single mode"));
}

#[test]
fn unknown_base_ref_is_an_error() {
    let p = app_on_feature_branch();
    let answer = p
        .run(&["discover", "--base", "no-such-branch"])
        .expect_code(1)
        .yaml();
    assert_eq!(answer["error_code"].as_str(), Some("BAD_BASE_REF"));
    assert_eq!(
        answer["error"].as_str(),
        Some("bad base ref: no-such-branch")
    );
}

#[test]
fn base_from_the_config_file_and_from_origin_head() {
    let p = app_on_feature_branch();
    p.git(&["branch", "develop", "main"]);
    p.git(&["update-ref", "refs/remotes/origin/trunk", "main"]);
    p.git(&[
        "symbolic-ref",
        "refs/remotes/origin/HEAD",
        "refs/remotes/origin/trunk",
    ]);
    p.git(&["branch", "-m", "main", "old-main"]);
    p.edit("app/models/order.rb", "0\n    end", "1\n    end");
    let answer = p.run(&["discover", "--no-metadata"]).expect_code(0).yaml();
    assert_eq!(answer["base"]["ref"].as_str(), Some("origin/trunk"));
    p.write(".rspec-scout.yml", "base: develop\n");
    let answer = p.run(&["discover", "--no-metadata"]).expect_code(0).yaml();
    assert_eq!(answer["base"]["ref"].as_str(), Some("develop"));
}

#[test]
fn detached_head_works() {
    let p = app_on_feature_branch();
    p.edit(
        "app/models/line_item.rb",
        "unit_price_cents * quantity",
        "unit_price_cents * quantity.to_i",
    );
    p.commit_all("change");
    p.git(&["checkout", "-q", "--detach", "HEAD"]);
    let answer = p.run(&["discover", "--no-metadata"]).expect_code(0).yaml();
    assert_eq!(
        answer["files"][0]["path"].as_str(),
        Some("app/models/line_item.rb")
    );
    assert_eq!(
        answer["files"][0]["public_methods"][0]["method_mode"].as_str(),
        Some("modified")
    );
}

#[test]
fn shallow_clone_without_the_merge_base_falls_back_to_the_base_itself() {
    let origin = app_on_feature_branch();
    origin.git(&["checkout", "-q", "main"]);
    origin.edit(
        "app/models/line_item.rb",
        "unit_price_cents * quantity",
        "unit_price_cents * quantity.to_i",
    );
    origin.commit_all("main moves on");
    origin.git(&["checkout", "-q", "feature"]);
    origin.edit("app/models/order.rb", "0\n    end", "1\n    end");
    origin.commit_all("feature work");
    let clone = Project::new();
    let url = format!("file://{}", origin.root().display());
    let out = git_command(clone.root())
        .args([
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            &url,
            "repo",
        ])
        .output()
        .expect("clone");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let repo = clone.root().join("repo");
    let run = std::process::Command::new(crate::util::bin())
        .args(["discover", "--base", "origin/main", "--no-metadata"])
        .current_dir(&repo)
        .output()
        .expect("run");
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let answer: serde_yaml::Value = serde_yaml::from_slice(&run.stdout).expect("yaml");
    let warning = answer["warnings"][0].as_str().unwrap();
    assert!(
        warning.starts_with("no merge-base of HEAD and origin/main: this is a shallow clone"),
        "{warning}"
    );
    // Compared with origin/main itself, both files differ.
    let files: Vec<&str> = answer["files"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        vec!["app/models/line_item.rb", "app/models/order.rb"]
    );
}

#[test]
fn repository_without_commits_counts_every_file_as_added() {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.git(&["init", "-q", "-b", "main"]);
    let answer = p
        .run(&["discover", "--no-metadata", "--answer", "full"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["base"]["ref"].as_str(), Some("(no commits)"));
    assert_eq!(answer["summary"]["total_files"].as_u64(), Some(18));
    assert!(answer["warnings"][0]
        .as_str()
        .unwrap()
        .contains("no commits"));
    assert!(answer["files"]
        .as_sequence()
        .unwrap()
        .iter()
        .all(|f| f["change"].as_str() == Some("added")));
}

#[test]
fn only_and_exclude_deselect_with_the_contract_reason() {
    let p = app_on_feature_branch();
    feature_work(&p);
    let answer = p
        .run(&[
            "discover",
            "--no-metadata",
            "--only",
            "Payment#*",
            "--only",
            "Order#*",
            "--exclude",
            "*#total_with_fee",
            "--only",
            "Nothing#*",
        ])
        .expect_code(0)
        .yaml();
    let selected: Vec<&str> = answer["method_waves"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|w| w["items"].as_sequence().unwrap())
        .filter(|i| i["selected"].as_bool() == Some(true))
        .map(|i| i["method_id"].as_str().unwrap())
        .collect();
    assert_eq!(selected, vec!["Order#cancel!", "Payment#refundable?"]);
    let filtered = answer["method_waves"]
        .as_sequence()
        .unwrap()
        .iter()
        .flat_map(|w| w["items"].as_sequence().unwrap())
        .find(|i| i["method_id"].as_str() == Some("Payment#total_with_fee"))
        .unwrap();
    assert_eq!(
        filtered["skip_reason"].as_str(),
        Some("Custom: pattern filter")
    );
    assert!(answer["warnings"]
        .as_sequence()
        .unwrap()
        .iter()
        .any(|w| w.as_str() == Some("method pattern \"Nothing#*\" matched no method")));
}

#[test]
fn metadata_keeps_later_stages_fields_until_the_source_changes() {
    let p = app_on_feature_branch();
    p.edit(
        "app/models/line_item.rb",
        "unit_price_cents * quantity",
        "unit_price_cents * quantity.to_i",
    );
    p.run(&["discover"]).expect_code(0);
    let path = "tmp/rspec_metadata/app_models_line_item.yml";
    // Pretend the analyzer ran: its fields, markers and cache keys, plus a key we don't know.
    let source = p.root().join("app/models/line_item.rb");
    let mtime = std::fs::metadata(&source)
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let digest = rspec_scout::metadata::digest(&std::fs::read(&source).unwrap());
    let analyzed = format!(
        "{}slug: app_models_line_item\nsource_mtime: {mtime}\nsource_digest: \"{digest}\"\nbehaviors: []\ncustom_note: keep me\n",
        p.read(path)
    )
    .replace("  discovery_agent_version", "  code_analyzer_completed: true\n  spec_writer_completed: true\n  discovery_agent_version");
    p.write(path, &analyzed);
    // Same source: everything stays.
    p.run(&["discover"]).expect_code(0);
    let after = p.read(path);
    assert!(
        after.contains("code_analyzer_completed: true") && after.contains("custom_note: keep me"),
        "{after}"
    );
    // Changed source: later markers are cleared, the rest stays.
    p.edit(
        "app/models/line_item.rb",
        "quantity.to_i",
        "quantity.to_i.abs",
    );
    let answer = p.run(&["discover"]).expect_code(0).yaml();
    let after = p.read(path);
    assert!(
        !after.contains("code_analyzer_completed") && !after.contains("spec_writer_completed"),
        "{after}"
    );
    assert!(
        after.contains("custom_note: keep me") && after.contains("discovery_agent_completed: true")
    );
    assert!(answer["warnings"]
        .as_sequence()
        .unwrap()
        .iter()
        .any(|w| w.as_str() == Some("app/models/line_item.rb: the source changed since it was analyzed; cleared code_analyzer_completed, spec_writer_completed")));
}

#[test]
fn corrupt_metadata_is_left_untouched_with_a_warning() {
    let p = app_on_feature_branch();
    p.edit(
        "app/models/line_item.rb",
        "unit_price_cents * quantity",
        "unit_price_cents * quantity.to_i",
    );
    p.write(
        "tmp/rspec_metadata/app_models_line_item.yml",
        "source_file: [unclosed\n",
    );
    let answer = p.run(&["discover"]).expect_code(0).yaml();
    assert_eq!(
        p.read("tmp/rspec_metadata/app_models_line_item.yml"),
        "source_file: [unclosed\n"
    );
    let warning = answer["warnings"][0].as_str().unwrap();
    assert!(
        warning.contains("app_models_line_item.yml: Cannot parse YAML: Psych::SyntaxError"),
        "{warning}"
    );
    assert!(
        warning.ends_with("left untouched (fix it, or delete it to regenerate)"),
        "{warning}"
    );
}

#[test]
fn no_metadata_writes_nothing_and_debug_writes_the_debug_file() {
    let p = app_on_feature_branch();
    feature_work(&p);
    p.run(&["discover", "--no-metadata", "--no-cache"])
        .expect_code(0);
    assert!(!p.exists("tmp"));
    // The facts cache is kept with --no-metadata too, and it is all that is written.
    p.run(&["discover", "--no-metadata"]).expect_code(0);
    let written: Vec<String> = std::fs::read_dir(p.root().join("tmp"))
        .unwrap()
        .flat_map(|e| std::fs::read_dir(e.unwrap().path()).unwrap())
        .map(|e| {
            e.unwrap()
                .path()
                .strip_prefix(p.root())
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(written, ["tmp/rspec_scout/facts.bin"]);
    p.run(&["discover", "--debug"]).expect_code(0);
    insta::assert_snapshot!(p.read("tmp/discovery_debug/app_services_payment_retrier.yml"), @r#"
    source_file: app/services/payment_retrier.rb
    waves:
      - wave: 1
        methods: [PaymentRetrier#call]
    methods:
      - name: call
        method_id: PaymentRetrier#call
        wave: 1
        cross_class_deps:
          - class: Payment
            methods: ["failed?"]
        absorbed_private_methods: []
    "#);
}

#[test]
fn metadata_path_comes_from_the_pipeline_config() {
    let p = app_on_feature_branch();
    p.write(
        ".claude/rspec-testing-config.yml",
        "project_type: rails\nmetadata_path: .claude/metadata\n",
    );
    p.edit(
        "app/models/line_item.rb",
        "unit_price_cents * quantity",
        "unit_price_cents * quantity.to_i",
    );
    p.run(&["discover"]).expect_code(0);
    assert!(p.exists(".claude/metadata/rspec_metadata/app_models_line_item.yml"));
}

#[test]
fn every_metadata_file_loads_with_rubys_yaml() {
    let Some(ruby) = ruby() else { return };
    let p = app_on_feature_branch();
    p.run(&["discover", "--all", "--debug"]).expect_code(0);
    let script = "Dir['tmp/**/*.yml'].sort.each { |f| h = YAML.load_file(f); raise f unless h.is_a?(Hash) }; puts Dir['tmp/**/*.yml'].size";
    let out = std::process::Command::new(ruby)
        .args(["-ryaml", "-e", script])
        .current_dir(p.root())
        .output()
        .expect("ruby");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Metadata and debug files of the 32 public methods and the fixture's two callbacks
    // (`normalize_email`, `send_welcome_email`), the plan record, and the whole answer (the
    // one printed is compact).
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "36");
}

/// PyYAML (YAML 1.1) ends a plain scalar at `?` inside `[...]`: `[Foo#dry_run?]` in
/// plan.yml made every Python harness fail to read it.
#[test]
fn every_yaml_file_written_loads_with_pyyaml() {
    let Some(python) = crate::util::pyyaml() else {
        return;
    };
    let p = app_on_feature_branch();
    p.run(&["discover", "--all", "--debug"]).expect_code(0);
    p.run(&["analyze", "--from-metadata"]).expect_code(0);
    let script = "import glob, yaml, sys\nfiles = sorted(glob.glob('tmp/**/*.yml', recursive=True))\nfor f in files:\n    with open(f) as h:\n        d = yaml.safe_load(h)\n    assert isinstance(d, dict), f\nprint(len(files))\n";
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .current_dir(p.root())
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "37");
}

#[test]
fn timings_are_reported_when_asked() {
    let p = app_on_feature_branch();
    feature_work(&p);
    let answer = p
        .run(&["discover", "--timings", "--no-metadata"])
        .expect_code(0)
        .yaml();
    let t = &answer["timings"];
    for key in [
        "walk_ms",
        "git_ms",
        "parse_ms",
        "graph_ms",
        "metadata_ms",
        "total_ms",
    ] {
        assert!(t[key].as_u64().is_some(), "{key} missing in {t:?}");
    }
    let plain = p.run(&["discover", "--no-metadata"]).expect_code(0).yaml();
    assert!(plain.get("timings").is_none());
}

/// Regression: changing only a private `before_create` callback gave `11 methods (0
/// selected)`, no warning. Methods Rails calls are units of the plan with their trigger;
/// a changed private method nothing calls is named in `warnings`.
#[test]
fn a_changed_callback_is_selected_with_its_trigger_and_an_uncalled_change_is_explained() {
    let p = Project::new();
    p.write(
        "app/models/token.rb",
        "class Token < ApplicationRecord\n  belongs_to :user\n  before_create :delete_previous_tokens\n  validate :value_format\n\n  def self.find_active(value)\n    where(value: value).first\n  end\n\n  private\n\n  def delete_previous_tokens\n    Token.where(user_id: user_id).delete_all if user\n  end\n\n  def value_format\n    errors.add(:value, :invalid) if value.blank?\n  end\n\n  def leftover\n    1\n  end\nend\n",
    );
    p.init_repo();
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.edit(
        "app/models/token.rb",
        "delete_all if user",
        "delete_all if user&.active?",
    );
    p.edit("app/models/token.rb", "    1\n", "    2\n");
    let run = p
        .run(&["discover", "--format", "text", "--no-metadata"])
        .expect_code(0);
    insta::assert_snapshot!(redact(&run.stdout, &p), @"
    discover: branch mode, base main (<commit>)

    wave 0: Leaf methods (no dependencies)
      app/models/token.rb  [green 18 LOC, 4 methods]
        [ ] Token.find_active             unchanged
        [x] Token#delete_previous_tokens  modified   (before_create)
        [ ] Token#value_format            unchanged  (validate)

    3 methods (1 selected) in 1 file, 1 wave; zones: 1 green, 0 yellow, 0 red
    warning: app/models/token.rb: Token#leftover changed, but no public method calls it and it is not a callback, validation or filter of its class in this file, so no plan covers it (registered from another class? test it through that class)
    ");
    let yaml = p.run(&["discover", "--no-metadata"]).expect_code(0).yaml();
    let items = yaml["method_waves"][0]["items"].as_sequence().unwrap();
    let callback = items
        .iter()
        .find(|i| i["method_id"] == "Token#delete_previous_tokens")
        .unwrap();
    assert_eq!(callback["trigger"], "before_create");
    assert_eq!(callback["selected"], true);
    let validation = items
        .iter()
        .find(|i| i["method_id"] == "Token#value_format")
        .unwrap();
    assert_eq!(validation["trigger"], "validate");
    assert_eq!(validation["method_mode"], "unchanged");
}

/// Every Ruby file under `app/` and `lib/`, repository-relative, with its path on disk.
fn ruby_files_on_disk(p: &Project) -> Vec<(String, std::path::PathBuf)> {
    fn visit(
        root: &std::path::Path,
        dir: &std::path::Path,
        out: &mut Vec<(String, std::path::PathBuf)>,
    ) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                visit(root, &path, out);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "rb") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, path));
            }
        }
    }
    let mut out = Vec::new();
    for top in ["app", "lib"] {
        visit(p.root(), &p.root().join(top), &mut out);
    }
    out.sort();
    out
}

/// `discover`'s way to the working tree's changes (the walk's files, stat data trusted where
/// libgit2 would trust it) gives every walked file the answer of libgit2's whole-tree
/// status: committed, staged and unstaged renames, a rewrite that keeps size and mtime, a
/// mode change, deletions, untracked and ignored files, clean files old enough to be
/// trusted and racy ones.
#[test]
fn status_of_the_walked_files_is_the_whole_trees() {
    use rspec_scout::git::{ChangeKind, Repo};
    let p = Project::new();
    let body = |name: &str| {
        let mut text = format!("class {name}\n");
        for i in 0..30 {
            text.push_str(&format!(
                "  def {name}_{i}(value)\n    value * {i} + :{name}.size\n  end\n\n"
            ));
        }
        text.push_str("end\n");
        text
    };
    for name in [
        "account", "billing", "catalog", "delivery", "export", "feed", "gateway", "history",
    ] {
        p.write(&format!("app/models/{name}.rb"), body(name));
    }
    p.write("lib/tasks/cleanup.rb", body("cleanup"));
    p.write(
        "spec/models/account_spec.rb",
        "RSpec.describe Account do\nend\n",
    );
    p.write(".gitignore", "app/models/generated_*.rb\n");
    // Old enough that the index does not call them racy, as on any real checkout.
    let touch_old = |p: &Project| {
        for (_, path) in ruby_files_on_disk(p) {
            let status = std::process::Command::new("touch")
                .args(["-m", "-d", "2020-01-01 00:00:00"])
                .arg(&path)
                .status()
                .expect("touch");
            assert!(status.success());
        }
    };
    touch_old(&p);
    p.init_repo();
    // Tracked, though .gitignore matches it: the walk skips it.
    p.write("app/models/generated_base.rb", "class GeneratedBase\nend\n");
    p.git(&["add", "-f", "app/models/generated_base.rb"]);
    p.git(&["commit", "-q", "-m", "generated base"]);
    p.git(&["checkout", "-q", "-b", "feature"]);
    let repo = Repo::discover(p.root()).unwrap();
    let (base, _) = repo.branch_base(Some("main"), None).unwrap();
    // The answer for the walked files both ways, checked equal.
    let compare = || {
        let walked = ruby_files_on_disk(&p);
        let of_walked = |changes: &[rspec_scout::git::Change]| {
            let mut out: Vec<(String, ChangeKind, Option<String>)> = changes
                .iter()
                .filter(|c| walked.iter().any(|(rel, _)| *rel == c.path))
                .map(|c| (c.path.clone(), c.kind, c.old_path.clone()))
                .collect();
            out.sort_by(|a, b| a.0.cmp(&b.0));
            out
        };
        let repo = Repo::discover(p.root()).unwrap();
        let whole = of_walked(&repo.working_tree_changes(&base).unwrap());
        let (changes, measured) = repo
            .working_tree_changes_among(repo.index_changes(&base).unwrap(), &walked)
            .unwrap();
        let among = of_walked(&changes);
        assert_eq!(among, whole);
        // What was measured of each walked file is that file's, in the walk's order.
        assert_eq!(measured.len(), walked.len());
        for ((_, path), meta) in walked.iter().zip(&measured) {
            let meta = meta.as_ref().expect("a walked Ruby file is measured");
            let now = std::fs::symlink_metadata(path).unwrap();
            assert_eq!(
                (meta.len(), meta.modified().unwrap()),
                (now.len(), now.modified().unwrap())
            );
        }
        // Every in-scope change, deletions included, from a walk that (as the real one)
        // skips ignored files, tracked or not.
        let in_scope = |p: &str| p.starts_with("app/") || p.starts_with("lib/");
        let of_scope = |changes: &[rspec_scout::git::Change]| {
            let mut out: Vec<(String, ChangeKind, Option<String>)> = changes
                .iter()
                .filter(|c| in_scope(&c.path))
                .map(|c| (c.path.clone(), c.kind, c.old_path.clone()))
                .collect();
            out.sort_by(|a, b| a.0.cmp(&b.0));
            out
        };
        let not_ignored: Vec<(String, std::path::PathBuf)> = walked
            .iter()
            .filter(|(rel, _)| !rel.contains("generated_"))
            .cloned()
            .collect();
        let branch = of_scope(
            &repo
                .working_tree_changes_among(repo.index_changes(&base).unwrap(), &not_ignored)
                .unwrap()
                .0,
        );
        assert_eq!(branch, of_scope(&repo.working_tree_changes(&base).unwrap()));
        (among, branch)
    };
    let kind_of = |changes: &[(String, ChangeKind, Option<String>)], path: &str| {
        changes
            .iter()
            .find(|c| c.0 == path)
            .map(|c| (c.1, c.2.clone()))
    };
    let modified = Some((ChangeKind::Modified, None));

    // Nothing added anywhere (the stat data decides alone): a staged modification, an
    // unstaged rewrite keeping size and mtime, a mode change.
    p.write(
        "app/models/billing.rb",
        body("billing").replace("value * 3 ", "value * 4 "),
    );
    p.git(&["add", "app/models/billing.rb"]);
    touch_old(&p);
    // Refresh the index's stat data after the touch, and write it after every file.
    p.git(&["update-index", "--refresh"]);
    let account = p.root().join("app/models/account.rb");
    let keep = p.root().join("account.mtime");
    std::fs::copy(&account, &keep).unwrap();
    std::process::Command::new("touch")
        .arg("-r")
        .arg(&account)
        .arg(&keep)
        .status()
        .unwrap();
    p.write(
        "app/models/account.rb",
        body("account").replace("value * 5 ", "value * 6 "),
    );
    std::process::Command::new("touch")
        .arg("-r")
        .arg(&keep)
        .arg(&account)
        .status()
        .unwrap();
    std::fs::remove_file(&keep).unwrap();
    std::process::Command::new("chmod")
        .args(["+x"])
        .arg(p.root().join("lib/tasks/cleanup.rb"))
        .status()
        .unwrap();
    std::fs::remove_file(p.root().join("app/models/history.rb")).unwrap();
    p.write(
        "app/models/generated_base.rb",
        "class GeneratedBase\n  def kind = :base\nend\n",
    );
    let (first, first_branch) = compare();
    assert_eq!(
        kind_of(&first_branch, "app/models/history.rb"),
        Some((ChangeKind::Deleted, None))
    );
    assert_eq!(
        kind_of(&first_branch, "app/models/generated_base.rb"),
        modified
    );
    assert_eq!(kind_of(&first, "app/models/billing.rb"), modified);
    assert_eq!(kind_of(&first, "app/models/account.rb"), modified);
    assert_eq!(kind_of(&first, "lib/tasks/cleanup.rb"), modified);
    assert_eq!(first.len(), 4, "{first:?}");

    // Renames committed, staged and in the working tree only (deleted + untracked), an
    // addition, a deletion, an untracked file, an ignored one.
    p.git(&["mv", "app/models/catalog.rb", "app/models/catalogue.rb"]);
    p.write("app/models/invoice.rb", body("invoice"));
    p.remove("app/models/export.rb");
    p.git(&["add", "-A", "app/models"]);
    p.git(&["commit", "-q", "-m", "feature work"]);
    p.git(&["mv", "app/models/delivery.rb", "app/models/shipment.rb"]);
    std::fs::rename(
        p.root().join("app/models/feed.rb"),
        p.root().join("app/models/news_feed.rb"),
    )
    .unwrap();
    p.write("app/models/report.rb", "class Report\nend\n");
    p.write(
        "app/models/generated_schema.rb",
        "class GeneratedSchema\nend\n",
    );
    let (second, _) = compare();
    let renamed = |from: &str| Some((ChangeKind::Renamed, Some(from.to_string())));
    assert_eq!(
        kind_of(&second, "app/models/catalogue.rb"),
        renamed("app/models/catalog.rb")
    );
    assert_eq!(
        kind_of(&second, "app/models/shipment.rb"),
        renamed("app/models/delivery.rb")
    );
    assert_eq!(
        kind_of(&second, "app/models/news_feed.rb"),
        renamed("app/models/feed.rb")
    );
    assert_eq!(
        kind_of(&second, "app/models/invoice.rb"),
        Some((ChangeKind::Added, None))
    );
    assert_eq!(
        kind_of(&second, "app/models/report.rb"),
        Some((ChangeKind::Added, None))
    );
    assert_eq!(kind_of(&second, "app/models/billing.rb"), modified);
    assert_eq!(kind_of(&second, "app/models/account.rb"), modified);
    assert_eq!(kind_of(&second, "lib/tasks/cleanup.rb"), modified);
    assert_eq!(kind_of(&second, "app/models/gateway.rb"), None);
    assert_eq!(kind_of(&second, "app/models/generated_schema.rb"), None);
}
