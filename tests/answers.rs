//! Answers sized for their reader (compact past `answer_limit`, the whole answer in a file,
//! pages by wave and file) and the plan record (`analyze --from-metadata`, `status` and
//! `skeleton` work on the last plan; `prune` removes what no plan references).

use crate::util::{git_command, Project};

/// The fixture app committed on `main`, every later command on a `feature` branch.
fn app(limit: &str) -> Project {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.write(".rspec-scout.yml", format!("answer_limit: {limit}\n"));
    p.write(".gitignore", "tmp/\n");
    p.init_repo();
    p.git(&["checkout", "-q", "-b", "feature"]);
    p
}

/// Commit ids, and the milliseconds progress lines report, vary: keep snapshots stable.
fn redact(text: &str, p: &Project) -> String {
    let mut out = text.to_string();
    for rev in ["main", "HEAD"] {
        let id = git_command(p.root())
            .args(["rev-parse", rev])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        if id.len() >= 12 {
            out = out.replace(&id[..12], "<commit>");
        }
    }
    let mut redacted = String::new();
    let mut rest = out.as_str();
    while let Some(i) = rest.find("\"elapsed_ms\":") {
        let (head, tail) = rest.split_at(i + "\"elapsed_ms\":".len());
        redacted.push_str(head);
        redacted.push('_');
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    redacted.push_str(rest);
    redacted
}

#[test]
fn a_large_plan_is_printed_compact_and_written_whole() {
    let p = app("3000");
    let run = p.run(&["discover", "--all"]).expect_code(0);
    insta::assert_snapshot!("compact_discover", redact(&run.stdout, &p));
    // The whole answer is in the file, byte for byte what --answer full prints, which is
    // what the answer was before answers were sized.
    let full = p
        .run(&["discover", "--all", "--answer", "full"])
        .expect_code(0)
        .stdout;
    assert_eq!(p.read("tmp/rspec_scout/discover.yml"), full);
    p.write(".rspec-scout.yml", "answer_limit: 1MB\n");
    assert_eq!(p.run(&["discover", "--all"]).expect_code(0).stdout, full);
    assert!(
        full.len() > 20_000,
        "the fixture's plan is {} bytes",
        full.len()
    );

    // People get the compact text, and the whole text in its own file.
    p.write(".rspec-scout.yml", "answer_limit: 3000\n");
    let text = p
        .run(&["discover", "--all", "--format", "text"])
        .expect_code(0);
    insta::assert_snapshot!("compact_discover_text", redact(&text.stdout, &p));
    let full_text = p
        .run(&["discover", "--all", "--format", "text", "--answer", "full"])
        .expect_code(0)
        .stdout;
    assert_eq!(p.read("tmp/rspec_scout/discover.txt"), full_text);

    // --no-metadata writes no file: the compact answer says so, and does not render the
    // whole answer only to count it.
    let whole_json = p
        .run(&[
            "discover",
            "--all",
            "--no-metadata",
            "--format",
            "json",
            "--answer",
            "full",
        ])
        .expect_code(0)
        .stdout;
    let run = p
        .run(&["discover", "--all", "--no-metadata", "--format", "json"])
        .expect_code(0);
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(whole_json.len() > 3000, "{}", whole_json.len());
    assert_eq!(
        answer["full_answer"],
        serde_json::json!({"path": null, "limit": 3000, "note": "--no-metadata writes nothing"})
    );
    let text = p
        .run(&["discover", "--all", "--no-metadata", "--format", "text"])
        .expect_code(0)
        .stdout;
    assert!(
        text.contains("the whole plan (over the 3000-byte answer limit) was not written: --no-metadata writes nothing"),
        "{text}"
    );
}

#[test]
fn pages_print_one_wave_or_one_file_of_the_whole_plan() {
    let p = app("3000");
    let wave = p
        .run(&["discover", "--all", "--wave", "2", "--answer", "full"])
        .expect_code(0);
    insta::assert_snapshot!("page_wave_2", redact(&wave.stdout, &p));
    // A file's page is printed whole even past the limit: it is what was asked for.
    let file = p
        .run(&[
            "discover",
            "--all",
            "--file",
            "app/models/order.rb",
            "--format",
            "text",
        ])
        .expect_code(0);
    insta::assert_snapshot!("page_file_order", redact(&file.stdout, &p));
    // A page outside the plan says so.
    let none = p
        .run(&[
            "discover",
            "--all",
            "--file",
            "app/models/nope.rb",
            "--format",
            "json",
        ])
        .expect_code(0);
    let answer: serde_json::Value = serde_json::from_str(&none.stdout).unwrap();
    assert_eq!(answer["method_waves"], serde_json::json!([]));
    assert!(answer["warnings"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!(
            "--file app/models/nope.rb: not a file of the plan"
        )));
}

#[test]
fn analyze_status_and_skeleton_work_on_the_last_plan() {
    let p = app("1MB");
    p.run(&["discover", "--all"]).expect_code(0);
    let all = p.run(&["analyze", "--from-metadata"]).expect_code(0).yaml();
    // 16 files and ApplicationController, whose before_action is a unit of the plan.
    assert_eq!(all["summary"]["analyzed"].as_u64(), Some(17));

    // A branch that changes one method: its plan is one file.
    p.edit(
        "app/models/order.rb",
        "line_items.sum(&:total_cents)",
        "line_items.sum(&:total_cents).to_i",
    );
    p.commit_all("order total");
    let plan = p.run(&["discover"]).expect_code(0).yaml();
    assert_eq!(
        plan["slugs"],
        serde_yaml::from_str::<serde_yaml::Value>("[app_models_order]").unwrap()
    );
    insta::assert_snapshot!(redact(&p.read("tmp/rspec_scout/plan.yml"), &p), @r"
    mode: branch
    base:
      ref: main
      commit: <commit>
    files:
      - source_file: app/models/order.rb
        slug: app_models_order
        selected: [Order#total_cents]
    ");
    let analyzed = p.run(&["analyze", "--from-metadata"]).expect_code(0).yaml();
    assert_eq!(
        analyzed["summary"],
        serde_yaml::from_str::<serde_yaml::Value>(
            "{analyzed: 1, cached: 0, skipped: 0, errors: 0}"
        )
        .unwrap()
    );
    let every = p
        .run(&["analyze", "--from-metadata", "--all-metadata"])
        .expect_code(0)
        .yaml();
    // Every file but one is served from the cache: the one whose methods call `Order`,
    // whose analysis read order.rb (for the effects one call away), is made again.
    assert_eq!(every["summary"]["cached"].as_u64(), Some(16));
    assert_eq!(every["summary"]["analyzed"].as_u64(), Some(1));

    let status = p.run(&["status", "--format", "text"]).expect_code(0);
    insta::assert_snapshot!(redact(&status.stdout, &p), @r"
    plan: branch mode, base main (<commit>), 1 file, 1 method selected

    source               discover  analyze  test-config  spec  review  next               cache
    app/models/order.rb  ✓         ✓        ·            ·     ·       isolation_decider  valid

    1 file: 0 done, 1 in progress
    16 metadata files outside the last plan (0 whose source is gone): `rspec-scout status --all-metadata` lists them, `rspec-scout prune` removes them
    ");
    let every = p.run(&["status", "--all-metadata"]).expect_code(0).yaml();
    assert_eq!(every["summary"]["files"].as_u64(), Some(17));
    assert!(every.get("leftovers").is_none());

    let skeleton = p
        .run(&["skeleton", "--project-type", "rails", "--format", "text"])
        .expect_code(0);
    assert_eq!(
        skeleton.stdout,
        "app/models/order.rb: created spec/models/order_spec.rb\n1 spec written, 0 to decide, 0 skipped, 0 errors\n"
    );
    assert!(p.exists("spec/models/order_spec.rb"));
    assert!(!p.exists("spec/models/payment_spec.rb"), "not in the plan");

    // prune: a deleted source's metadata and everything outside the plan go; the plan's
    // file and everything else stay.
    p.remove("app/models/line_item.rb");
    let dry = p
        .run(&["prune", "--dry-run", "--format", "text"])
        .expect_code(0);
    assert_eq!(dry.stdout.lines().count(), 17, "{}", dry.stdout);
    assert_eq!(
        dry.stdout.lines().find(|l| l.contains("line_item")),
        Some("would remove tmp/rspec_metadata/app_models_line_item.yml (app/models/line_item.rb: source gone)")
    );
    assert_eq!(
        dry.stdout.lines().last(),
        Some("16 metadata files would be removed, 1 kept")
    );
    assert_eq!(metadata_files(&p).len(), 17, "a dry run removes nothing");
    let pruned = p.run(&["prune"]).expect_code(0).yaml();
    assert_eq!(
        pruned["summary"],
        serde_yaml::from_str::<serde_yaml::Value>("{removed: 16, kept: 1, unreadable: 0}").unwrap()
    );
    assert_eq!(metadata_files(&p), vec!["app_models_order.yml"]);
    assert!(p.exists("tmp/rspec_scout/plan.yml"));
    assert!(p.exists("spec/models/order_spec.rb"));
    let status = p.run(&["status"]).expect_code(0).yaml();
    assert_eq!(status["leftovers"]["count"].as_u64(), Some(0));
}

fn metadata_files(p: &Project) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(p.root().join("tmp/rspec_metadata"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yml"))
        .collect();
    names.sort();
    names
}

#[test]
fn analyze_and_status_of_many_files_are_compact_past_the_limit() {
    let p = app("1500");
    p.run(&["discover", "--all"]).expect_code(0);
    let analyze = p
        .run(&["analyze", "--from-metadata", "--format", "text"])
        .expect_code(0);
    insta::assert_snapshot!("compact_analyze_text", redact(&analyze.stdout, &p));
    // Again, from the cache: the file holds what --answer full prints.
    p.run(&["analyze", "--from-metadata", "--format", "text"])
        .expect_code(0);
    let whole = p
        .run(&[
            "analyze",
            "--from-metadata",
            "--format",
            "text",
            "--answer",
            "full",
        ])
        .expect_code(0)
        .stdout;
    assert_eq!(p.read("tmp/rspec_scout/analyze.txt"), whole);
    // The answer names the root (a temp folder): its path, and the size it adds to the
    // whole answer, are left out.
    let status = p.run(&["status"]).expect_code(0);
    let root = p.root().canonicalize().unwrap().display().to_string();
    let shown: String = redact(&status.stdout, &p)
        .replace(&root, "<root>")
        .lines()
        .map(|l| match l.strip_prefix("  bytes: ") {
            Some(_) => "  bytes: <bytes>".to_string(),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("compact_status", shown);
    // One file's analysis is whole whatever its size.
    let one = p
        .run(&["analyze", "app/services/payment_processor.rb"])
        .expect_code(0)
        .yaml();
    assert_eq!(one["cached"].as_bool(), Some(true));
    assert!(one.get("answer").is_none());
}

#[test]
fn json_progress_lines_cover_every_phase() {
    let p = app("1MB");
    let run = p
        .run(&["discover", "--all", "--progress", "json", "--threads", "1"])
        .expect_code(0);
    insta::assert_snapshot!("progress_discover", redact(&run.stderr, &p));
    let run = p
        .run(&[
            "analyze",
            "--from-metadata",
            "--progress",
            "json",
            "--threads",
            "1",
        ])
        .expect_code(0);
    insta::assert_snapshot!("progress_analyze", redact(&run.stderr, &p));
    // Not on a pipe by default, and never with --quiet.
    let run = p.run(&["discover", "--all"]).expect_code(0);
    assert_eq!(run.stderr, "");
    let run = p
        .run(&["discover", "--all", "--progress", "json", "--quiet"])
        .expect_code(0);
    assert_eq!(run.stderr, "");
}
