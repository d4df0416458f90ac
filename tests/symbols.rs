//! `rspec-scout symbols`: the inventory an agent reads instead of asking an IDE.

use std::path::Path;
use std::process::Command;

use crate::util::{bin, Project};

/// One snapshot per fixture file: the whole YAML answer, reviewed line by line.
#[test]
fn fixture_app_inventory() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rails_app");
    insta::glob!("../fixtures/rails_app", "**/*.rb", |path| {
        // `--no-cache`: nothing is written into the fixtures.
        let output = Command::new(bin())
            .args(["symbols", "--no-cache", "--root"])
            .arg(&root)
            .arg(path)
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(0));
        insta::assert_snapshot!(String::from_utf8_lossy(&output.stdout));
    });
}

#[test]
fn text_format_lists_methods_under_their_file() {
    let p = Project::new();
    p.write(
        "app/models/invoice.rb",
        "class Invoice < ApplicationRecord\n  def total; end\n\n  private\n\n  def tax; end\nend\n",
    );
    let run = p
        .run(&["symbols", "app", "--format", "text"])
        .expect_code(0);
    insta::assert_snapshot!(run.stdout, @r"
    app/models/invoice.rb  (5 loc, 2 methods)
      class Invoice < ApplicationRecord  1-7
        Invoice#total  public     2-2
        Invoice#tax    private    6-6
    1 file, 1 classes/modules, 2 methods (0 with parse errors, 0 skipped)
    ");
}

#[test]
fn json_format_is_the_same_answer() {
    let p = Project::new();
    p.write(
        "lib/slugger.rb",
        "module Slugger\n  def self.call(s) = s.downcase\nend\n",
    );
    let yaml = p.run(&["symbols", "lib"]).expect_code(0).yaml();
    let json: serde_json::Value = serde_json::from_str(
        &p.run(&["symbols", "lib", "--format", "json"])
            .expect_code(0)
            .stdout,
    )
    .expect("json");
    let yaml_as_json: serde_json::Value = serde_json::to_value(&yaml).expect("convert");
    assert_eq!(json, yaml_as_json);
}

#[test]
fn missing_path_is_an_error_with_code() {
    let p = Project::new();
    let run = p.run(&["symbols", "app/models/nope.rb"]).expect_code(1);
    insta::assert_snapshot!(run.stdout, @r#"
    status: error
    error: "path not found: app/models/nope.rb"
    details: app/models/nope.rb does not exist
    suggestion: check the path; paths are relative to the current directory
    error_code: SOURCE_NOT_FOUND
    recoverable: true
    "#);
    assert_eq!(
        run.stderr,
        "rspec-scout: path not found: app/models/nope.rb (SOURCE_NOT_FOUND)\n"
    );
}

#[test]
fn walking_honours_scope_and_gitignore() {
    let p = Project::new();
    std::fs::create_dir(p.root().join(".git")).expect("fake git dir");
    p.write(".gitignore", "app/models/generated/\n");
    p.write("app/models/kept.rb", "class Kept; end\n");
    p.write("app/models/generated/skipped.rb", "class Skipped; end\n");
    p.write("app/models/kept_spec.rb", "describe Kept do; end\n");
    p.write("spec/models/kept_spec.rb", "describe Kept do; end\n");
    p.write("db/migrate/001_create.rb", "class Create; end\n");
    p.write("vendor/gems/x/lib/x.rb", "module X; end\n");
    p.write("lib/tasks/thing.rake", "task :x\n");
    p.write("lib/tools.rb", "module Tools; end\n");
    let answer = p.run(&["symbols", "."]).expect_code(0).yaml();
    let paths: Vec<&str> = answer["files"]
        .as_sequence()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert_eq!(paths, vec!["app/models/kept.rb", "lib/tools.rb"]);
}

#[test]
fn config_file_changes_the_scope() {
    let p = Project::new();
    p.write(".rspec-scout.yml", "include: ['src/**/*.rb']\n");
    p.write("src/engine.rb", "class Engine; end\n");
    p.write("app/models/ignored.rb", "class Ignored; end\n");
    let answer = p.run(&["symbols", "."]).expect_code(0).yaml();
    assert_eq!(answer["summary"]["files"].as_u64(), Some(1));
    assert_eq!(answer["files"][0]["path"].as_str(), Some("src/engine.rb"));
}

#[test]
fn bad_config_is_a_clear_error() {
    let p = Project::new();
    p.write(".rspec-scout.yml", "incldue: ['src/**/*.rb']\n");
    p.write("app/a.rb", "class A; end\n");
    let run = p.run(&["symbols", "app"]).expect_code(1);
    let answer = run.yaml();
    assert_eq!(answer["error_code"].as_str(), Some("CONFIG_INVALID"));
    assert_eq!(
        answer["details"].as_str(),
        Some("unknown key `incldue` (keys: include, exclude, base, metadata_path, max_file_size, threads, zones, side_effects, project_type, controllers_spec_policy, rspec_helper, answer_limit)"),
        "{}",
        run.stdout
    );
}

/// Every kind of bad file gets its own message and the run goes on for the others.
#[test]
fn hostile_files_are_reported_per_file_and_the_run_continues() {
    let p = Project::new();
    p.write("app/models/good.rb", "class Good\n  def ok; end\nend\n");
    p.write(
        "app/models/binary.rb",
        b"\x7fELF\x02\x01\x01\0\0\0\0binary\0data".as_slice(),
    );
    p.write(
        "app/models/latin1.rb",
        b"# encoding: iso-8859-1\nclass Caf\xe9\n  def prix; end\nend\n".as_slice(),
    );
    p.write(
        "app/models/invalid_utf8.rb",
        b"class Bad\n  def x; \"\xff\xfe\"; end\nend\n".as_slice(),
    );
    p.write("app/models/empty.rb", "");
    p.write(
        "app/models/broken.rb",
        "class Broken\n  def kept; end\n  def broken(\nend\n",
    );
    let big = "# padding line for a huge file\n".repeat(2_000_000);
    p.write("app/models/huge.rb", big.as_bytes());
    let run = p.run(&["symbols", "app"]).expect_code(0);
    let answer = run.yaml();
    let files = answer["files"].as_sequence().expect("files");
    let by_path = |path: &str| {
        files
            .iter()
            .find(|f| f["path"].as_str() == Some(path))
            .unwrap_or_else(|| panic!("{path} missing in {}", run.stdout))
    };
    assert_eq!(by_path("app/models/good.rb")["parse"].as_str(), Some("ok"));
    let binary = by_path("app/models/binary.rb");
    assert_eq!(binary["parse"].as_str(), Some("skipped"));
    assert_eq!(
        binary["reason"].as_str(),
        Some("binary file (contains NUL bytes); not parsed")
    );
    let latin1 = by_path("app/models/latin1.rb");
    assert_eq!(latin1["parse"].as_str(), Some("ok"));
    assert_eq!(latin1["methods"][0]["name"].as_str(), Some("prix"));
    assert_eq!(
        by_path("app/models/invalid_utf8.rb")["parse"].as_str(),
        Some("error")
    );
    assert_eq!(by_path("app/models/empty.rb")["parse"].as_str(), Some("ok"));
    let broken = by_path("app/models/broken.rb");
    assert_eq!(broken["parse"].as_str(), Some("error"));
    assert!(broken["diagnostics"][0]["line"].as_u64().is_some());
    assert_eq!(broken["methods"][0]["name"].as_str(), Some("kept"));
    let huge = by_path("app/models/huge.rb");
    assert_eq!(huge["parse"].as_str(), Some("skipped"));
    assert_eq!(
        huge["reason"].as_str(),
        Some("file is 59.1 MB (over max_file_size, 16.0 MB); not parsed. Raise max_file_size in .rspec-scout.yml to include it")
    );
    assert_eq!(answer["summary"]["files"].as_u64(), Some(7));
}

#[test]
fn deeply_nested_code_is_reported_not_a_crash() {
    let p = Project::new();
    let nested = format!(
        "class Deep\n  def x\n{}1\n{}  end\nend\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    p.write("app/models/deep.rb", nested);
    let chain = format!(
        "class Chain\n  def x\n    {}1\n  end\nend\n",
        "a + ".repeat(250_000)
    );
    p.write("app/models/chain.rb", chain);
    let answer = p.run(&["symbols", "app"]).expect_code(0).yaml();
    for f in answer["files"].as_sequence().expect("files") {
        assert_eq!(f["parse"].as_str(), Some("error"), "{f:?}");
        assert!(f["diagnostics"]
            .as_sequence()
            .is_some_and(|d| !d.is_empty()));
    }
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_fifos_do_not_hang() {
    let p = Project::new();
    p.write("app/models/a.rb", "class A; end\n");
    std::os::unix::fs::symlink(p.root().join("app"), p.root().join("app/models/loop"))
        .expect("symlink");
    let fifo = p.root().join("app/models/pipe.rb");
    let status = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(status.success());
    let answer = p.run(&["symbols", "app"]).expect_code(0).yaml();
    assert_eq!(answer["summary"]["files"].as_u64(), Some(1));
    // Named explicitly, the FIFO is reported instead of read.
    let answer = p
        .run(&["symbols", "app/models/pipe.rb"])
        .expect_code(0)
        .yaml();
    assert_eq!(
        answer["files"][0]["reason"].as_str(),
        Some("not a regular file; not read")
    );
}

/// The inventory must agree with Ruby's own parser. Runs `scripts/crosscheck.rb` over the
/// fixture app (CI installs Ruby; set RSPEC_SCOUT_CROSSCHECK_ROOT to check any codebase).
#[test]
fn inventory_agrees_with_rubys_parser() {
    let Some(ruby) = crate::util::ruby() else {
        return;
    };
    let root = std::env::var("RSPEC_SCOUT_CROSSCHECK_ROOT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rails_app"));
    let config = tempfile::NamedTempFile::new().expect("config");
    std::fs::write(config.path(), "include: ['**/*.rb']\nexclude: []\n").expect("write");
    let symbols = Command::new(bin())
        .args(["symbols", "--no-cache", "--format", "json", "--root"])
        .arg(&root)
        .arg("--config")
        .arg(config.path())
        .arg(&root)
        .output()
        .expect("symbols");
    assert!(symbols.status.success());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/crosscheck.rb");
    let mut child = Command::new(ruby)
        .arg(script)
        .arg(&root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("ruby");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&symbols.stdout)
        .expect("pipe");
    let out = child.wait_with_output().expect("wait");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    assert!(report.contains("files that disagree: 0"), "{report}");
    assert!(!report.contains("files compared: 0\n"), "{report}");
}
