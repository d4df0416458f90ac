//! Bad input, crashes and lost data: hostile sources, hostile metadata, hostile git
//! repositories and a writer killed at random points. Every input is generated here (no
//! committed blobs); every test asserts exact exit codes, messages that name the file, and
//! that metadata which existed before an error is left byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{bin, git_command, Project, Run};

/// Deterministic pseudo-random bytes (xorshift64), so failures reproduce.
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.extend_from_slice(&seed.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The entry of `files` (a `symbols` answer) for `path`.
fn file_entry<'a>(answer: &'a serde_yaml::Value, path: &str) -> &'a serde_yaml::Value {
    answer["files"]
        .as_sequence()
        .expect("files")
        .iter()
        .find(|f| f["path"].as_str() == Some(path))
        .unwrap_or_else(|| panic!("{path} missing in {answer:?}"))
}

fn skipped_reason(answer: &serde_yaml::Value, path: &str) -> String {
    answer["skipped_files"]
        .as_sequence()
        .expect("skipped_files")
        .iter()
        .find(|f| f["path"].as_str() == Some(path))
        .and_then(|f| f["reason"].as_str())
        .unwrap_or_else(|| panic!("{path} not in skipped_files: {answer:?}"))
        .to_string()
}

/// Checks an `analyze` error answer: `UNREADABLE`, naming `path`; returns its suggestion.
fn unreadable_suggestion<'a>(answer: &'a serde_yaml::Value, path: &str) -> &'a str {
    assert_eq!(
        answer["error_code"].as_str(),
        Some("UNREADABLE"),
        "{answer:?}"
    );
    let error = answer["error"].as_str().unwrap_or_default();
    assert!(error.contains(path), "{error}");
    answer["suggestion"].as_str().unwrap_or_default()
}

fn warnings(answer: &serde_yaml::Value) -> Vec<String> {
    answer["warnings"]
        .as_sequence()
        .map(|w| {
            w.iter()
                .filter_map(|x| x.as_str())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// Every `*.yml` file directly in `dir`, by name, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".yml") && e.file_type().unwrap().is_file() {
            out.insert(name, std::fs::read(e.path()).unwrap());
        }
    }
    out
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp."))
        .collect()
}

pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

pub(crate) fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs the binary so that file modes apply: as `nobody` through `setpriv` when the tests
/// run as root (root reads a mode 000 file), else directly. `None` when running as root
/// without setpriv: the caller skips the permission assertions and says so.
pub(crate) fn run_unprivileged(p: &Project, args: &[&str]) -> Option<Run> {
    let mut command = if is_root() {
        if Command::new("setpriv").arg("--version").output().is_err() {
            return None;
        }
        set_mode(p.root(), 0o755);
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(bin());
        c
    } else {
        Command::new(bin())
    };
    let output = command
        .args(args)
        .current_dir(p.root())
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    Some(Run::from(output))
}

/// Makes every folder under the project (and the project) writable by `nobody`, so an
/// unprivileged run can write metadata except where a test takes the right away.
pub(crate) fn open_to_everyone(dir: &Path) {
    set_mode(dir, 0o777);
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            open_to_everyone(&e.path());
        } else if e.file_type().unwrap().is_file() {
            set_mode(&e.path(), 0o666);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hostile source files
// ---------------------------------------------------------------------------------------

#[test]
fn a_binary_file_named_rb_is_skipped_everywhere_and_named_with_the_fix() {
    let p = Project::new();
    p.write("app/models/good.rb", "class Good\n  def ok; end\nend\n");
    let mut blob = noise(8192, 0x9e37_79b9_7f4a_7c15);
    blob[100] = 0; // at least one NUL, wherever the noise put others
    p.write("app/models/blob.rb", &blob);

    let answer = p.run(&["symbols", "app"]).expect_code(0).yaml();
    let entry = file_entry(&answer, "app/models/blob.rb");
    assert_eq!(entry["parse"].as_str(), Some("skipped"));
    assert_eq!(
        entry["reason"].as_str(),
        Some("binary file (contains NUL bytes); not parsed")
    );
    assert_eq!(answer["summary"]["files_skipped"].as_u64(), Some(1));

    let answer = p
        .run(&["discover", "--all", "--no-metadata", "app"])
        .expect_code(0)
        .yaml();
    assert_eq!(
        skipped_reason(&answer, "app/models/blob.rb"),
        "binary file (contains NUL bytes); not parsed"
    );
    assert_eq!(answer["summary"]["total_files"].as_u64(), Some(1));

    // Named explicitly: an error that names the file and says the file is not Ruby,
    // not that its permissions are wrong (they are fine).
    let run = p.run(&["analyze", "app/models/blob.rb"]).expect_code(1);
    let answer = run.yaml();
    assert_eq!(answer["error_code"].as_str(), Some("UNREADABLE"));
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains("app/models/blob.rb"), "{error}");
    assert!(
        error.contains("binary file (contains NUL bytes)"),
        "{error}"
    );
    assert_eq!(
        answer["suggestion"].as_str(),
        Some("it is not Ruby source: leave it out, or add it to `exclude:` in .rspec-scout.yml")
    );
    assert!(
        run.stderr.starts_with("rspec-scout: app/models/blob.rb: "),
        "{}",
        run.stderr
    );
    assert!(!p.exists("tmp/rspec_metadata/app_models_blob.yml"));
}

#[test]
fn a_nul_byte_inside_ruby_is_treated_as_binary_and_named() {
    let p = Project::new();
    p.write(
        "app/models/nul.rb",
        b"class Nul\n  def a\n    \"x\0y\"\n  end\nend\n".as_slice(),
    );
    p.write("app/models/ok.rb", "class Ok\n  def a; end\nend\n");
    let answer = p
        .run(&["symbols", "app/models/nul.rb"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["files"][0]["parse"].as_str(), Some("skipped"));
    let answer = p
        .run(&["discover", "--all", "--no-metadata", "app"])
        .expect_code(0)
        .yaml();
    assert_eq!(
        skipped_reason(&answer, "app/models/nul.rb"),
        "binary file (contains NUL bytes); not parsed"
    );
    let answer = p
        .run(&["analyze", "app/models/nul.rb"])
        .expect_code(1)
        .yaml();
    assert!(unreadable_suggestion(&answer, "app/models/nul.rb").contains("exclude:"));
}

#[test]
fn latin1_and_mixed_encodings_parse_with_diagnostics_and_write_utf8_metadata() {
    let p = Project::new();
    // Latin-1 without a magic comment: Ruby refuses the é; prism recovers the method.
    p.write(
        "app/models/latin.rb",
        b"class Latin\n  def prix\n    \"caf\xe9\"\n  end\nend\n".as_slice(),
    );
    // With the magic comment it is valid Ruby.
    p.write(
        "app/models/declared.rb",
        b"# encoding: iso-8859-1\nclass Declared\n  def prix; \"caf\xe9\"; end\nend\n".as_slice(),
    );
    // UTF-8 and Latin-1 in one file.
    p.write(
        "app/models/mixed.rb",
        b"class Mixed\n  def a; \"caf\xc3\xa9\"; end\n  def b(x)\n    return \"caf\xe9\" if x\n    1\n  end\nend\n"
            .as_slice(),
    );
    let answer = p.run(&["symbols", "app"]).expect_code(0).yaml();
    let latin = file_entry(&answer, "app/models/latin.rb");
    assert_eq!(latin["parse"].as_str(), Some("error"));
    assert_eq!(
        latin["diagnostics"][0]["message"].as_str(),
        Some("invalid multibyte character 0xE9")
    );
    assert_eq!(latin["diagnostics"][0]["line"].as_u64(), Some(3));
    assert_eq!(latin["methods"][0]["id"].as_str(), Some("Latin#prix"));
    assert_eq!(
        file_entry(&answer, "app/models/declared.rb")["parse"].as_str(),
        Some("ok")
    );
    let mixed = file_entry(&answer, "app/models/mixed.rb");
    assert_eq!(mixed["parse"].as_str(), Some("error"));
    assert_eq!(mixed["methods"].as_sequence().unwrap().len(), 2);

    // A file that does not parse is planned from what the parser recovered, and the
    // answer says so: `status: partial`, the file in `unparsable`, exit code 2.
    let answer = p
        .run(&["discover", "--all", "--no-metadata", "app"])
        .expect_code(2)
        .yaml();
    assert_eq!(answer["status"].as_str(), Some("partial"));
    let unparsable: Vec<String> = answer["unparsable"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{} {} ({}) {:?}",
                f["path"].as_str().unwrap(),
                f["line"].as_u64().unwrap(),
                f["message"].as_str().unwrap(),
                f["errors"].as_u64().unwrap(),
                f["methods"]
                    .as_sequence()
                    .unwrap()
                    .iter()
                    .map(|m| m.as_str().unwrap())
                    .collect::<Vec<_>>()
            )
        })
        .collect();
    assert_eq!(
        unparsable,
        [
            "app/models/latin.rb:3 invalid multibyte character 0xE9 (1) [\"Latin#prix\"]",
            "app/models/mixed.rb:4 invalid multibyte character 0xE9 (1) [\"Mixed#a\", \"Mixed#b\"]"
        ]
    );

    // analyze does not present a plan built from a recovered parse: the file is an error,
    // nothing is written for it.
    let answer = p
        .run(&["analyze", "app/models/mixed.rb"])
        .expect_code(1)
        .yaml();
    assert_eq!(answer["error_code"].as_str(), Some("SOURCE_UNPARSABLE"));
    assert_eq!(
        answer["error"].as_str(),
        Some("app/models/mixed.rb does not parse: line 4: invalid multibyte character 0xE9")
    );
    assert!(!p.exists("tmp/rspec_metadata/app_models_mixed.yml"));

    // Valid Latin-1 (a magic comment) is analyzed; its metadata is UTF-8 YAML that loads.
    p.run(&["analyze", "app/models/declared.rb"]).expect_code(0);
    let meta = std::fs::read(p.root().join("tmp/rspec_metadata/app_models_declared.yml")).unwrap();
    let text = String::from_utf8(meta).expect("metadata is UTF-8");
    assert!(text.contains("class_name: Declared"), "{text}");
    p.run(&[
        "validate",
        "--stage",
        "code-analyzer",
        "tmp/rspec_metadata/app_models_declared.yml",
    ])
    .expect_code(0);
}

#[test]
fn an_empty_file_is_ok_and_has_nothing_to_test() {
    let p = Project::new();
    p.write("app/models/empty.rb", "");
    let answer = p
        .run(&["symbols", "app/models/empty.rb"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["files"][0]["parse"].as_str(), Some("ok"));
    assert_eq!(answer["summary"]["methods"].as_u64(), Some(0));
    let answer = p.run(&["discover", "--all"]).expect_code(1).yaml();
    assert_eq!(answer["error_code"].as_str(), Some("NO_TESTABLE_FILES"));
    assert_eq!(
        answer["details"].as_str(),
        Some("1 Ruby file(s) in scope, but none defines a public method")
    );
    assert!(!p.exists("tmp/rspec_metadata"));
    let answer = p
        .run(&["analyze", "app/models/empty.rb"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["status"].as_str(), Some("skipped"));
    assert_eq!(
        answer["skip_reason"].as_str(),
        Some("No class found in the file")
    );
}

/// A 50 MB source: refused by size (with the fix in the message) by discover and analyze,
/// and parsed when max_file_size allows it.
#[test]
fn a_50_mb_file_is_refused_by_size_with_the_fix_or_parsed_when_allowed() {
    let p = Project::new();
    let mut big = String::from("class Big\n  def first; 1; end\n");
    let line = "  # a comment line that pads the file to fifty megabytes...........\n";
    while big.len() < 50 * 1024 * 1024 {
        big.push_str(line);
    }
    big.push_str("  def last; 2; end\nend\n");
    p.write("app/models/big.rb", &big);
    p.write("app/models/small.rb", "class Small\n  def a; end\nend\n");
    let answer = p
        .run(&["discover", "--all", "--no-metadata", "app"])
        .expect_code(0)
        .yaml();
    assert_eq!(
        skipped_reason(&answer, "app/models/big.rb"),
        "file is 50.0 MB (over max_file_size, 16.0 MB); not parsed. Raise max_file_size in .rspec-scout.yml to include it"
    );
    let answer = p
        .run(&["analyze", "app/models/big.rb"])
        .expect_code(1)
        .yaml();
    assert_eq!(
        unreadable_suggestion(&answer, "app/models/big.rb"),
        "raise max_file_size in .rspec-scout.yml, or add the file to `exclude:`"
    );
    p.write(".rspec-scout.yml", "max_file_size: 64MB\n");
    let answer = p
        .run(&["symbols", "app/models/big.rb"])
        .expect_code(0)
        .yaml();
    let ids: Vec<&str> = answer["files"][0]["methods"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(ids, vec!["Big#first", "Big#last"]);
}

fn nested(kind: &str, n: usize) -> String {
    let (open, mid, close) = match kind {
        "blocks" => ("foo do\n", "1\n", "end\n"),
        "parens" => ("(", "1", ")"),
        _ => ("if a\n", "1\n", "end\n"),
    };
    format!(
        "class Deep\n  def x\n{}{mid}{}\n  end\n\n  def after; 2; end\nend\n",
        open.repeat(n),
        close.repeat(n)
    )
}

/// 10,000 nested blocks, parentheses and ifs: prism stops at its depth limit with a
/// diagnostic; every command reports it for the file instead of overflowing the stack.
#[test]
fn ten_thousand_nested_blocks_parens_and_ifs_are_diagnostics_not_crashes() {
    for kind in ["blocks", "parens", "ifs"] {
        let p = Project::new();
        let rel = "app/models/deep.rb";
        p.write(rel, nested(kind, 10_000));
        let answer = p.run(&["symbols", rel]).expect_code(0).yaml();
        let file = &answer["files"][0];
        assert_eq!(file["parse"].as_str(), Some("error"), "{kind}");
        assert!(
            file["diagnostics"]
                .as_sequence()
                .unwrap()
                .iter()
                .any(|d| d["message"].as_str() == Some("nesting too deep")),
            "{kind}: {file:?}"
        );

        let run = p.run(&["discover", rel, "--no-metadata", "--allow-red"]);
        let answer = run.expect_code(2).yaml();
        assert_eq!(answer["status"].as_str(), Some("partial"), "{kind}");
        let file = &answer["unparsable"][0];
        assert_eq!(file["path"].as_str(), Some("app/models/deep.rb"), "{kind}");
        assert_eq!(file["message"].as_str(), Some("nesting too deep"), "{kind}");
        assert!(!p.exists("tmp/rspec_metadata"));

        let root = p.root().to_str().unwrap().to_string();
        let answer = p
            .run(&["--root", &root, "analyze", rel])
            .expect_code(1)
            .yaml();
        assert_eq!(
            answer["error_code"].as_str(),
            Some("SOURCE_UNPARSABLE"),
            "{kind}: {answer:?}"
        );
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .ends_with("nesting too deep"),
            "{kind}: {answer:?}"
        );
        assert!(!p.exists("tmp/rspec_metadata/app_models_deep.yml"));
    }
}

/// The largest nested-blocks file is in the red zone: without --allow-red discover stops
/// with exit 3, names the file and writes nothing.
#[test]
fn deep_nesting_in_a_red_zone_file_stops_discover_with_exit_3() {
    let p = Project::new();
    p.write("app/models/deep.rb", nested("blocks", 10_000));
    let answer = p
        .run(&["discover", "app/models/deep.rb"])
        .expect_code(3)
        .yaml();
    assert_eq!(answer["status"].as_str(), Some("stop"));
    assert_eq!(answer["reason"].as_str(), Some("red_zone_new_code"));
    assert!(format!("{:?}", answer["stopped_files"]).contains("app/models/deep.rb"));
    assert!(!p.exists("tmp/rspec_metadata"));
}

/// 10,000 methods in one class through symbols, discover, analyze and skeleton.
#[test]
fn ten_thousand_methods_in_one_class() {
    let p = Project::new();
    let mut src = String::from("class Wide\n");
    for i in 0..10_000 {
        src.push_str(&format!(
            "  def m{i}(x)\n    return {i} if x\n    nil\n  end\n"
        ));
    }
    src.push_str("end\n");
    let rel = "app/services/wide.rb";
    p.write(rel, &src);
    let answer = p.run(&["symbols", rel]).expect_code(0).yaml();
    assert_eq!(answer["summary"]["methods"].as_u64(), Some(10_000));
    assert_eq!(
        answer["files"][0]["methods"][9_999]["line_range"],
        serde_yaml::from_str::<serde_yaml::Value>("[39998, 40001]").unwrap()
    );

    // Red zone with only new code (the stop is covered above): --allow-red writes the plan.
    let answer = p
        .run(&["discover", "--all", rel, "--allow-red"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["summary"]["total_methods"].as_u64(), Some(10_000));
    assert_eq!(answer["summary"]["selected_methods"].as_u64(), Some(10_000));
    let meta = "tmp/rspec_metadata/app_services_wide.yml";
    p.run(&["validate", "--stage", "discovery-agent", meta])
        .expect_code(0);

    let answer = p.run(&["analyze", rel]).expect_code(0).yaml();
    let methods = answer["data"]["methods"].as_sequence().unwrap();
    assert_eq!(methods.len(), 10_000);
    assert_eq!(methods[9_999]["name"].as_str(), Some("m9999"));
    assert_eq!(
        methods[9_999]["characteristics"][0]["values"][0]["behavior_id"].as_str(),
        Some("returns_9999")
    );

    let answer = p
        .run(&[
            "skeleton", meta, "--stdout", "--mode", "outline", "--format", "json",
        ])
        .expect_code(0);
    let outline: serde_json::Value = serde_json::from_str(&answer.stdout).unwrap();
    let text = outline["outline"].as_str().unwrap_or(&answer.stdout);
    assert_eq!(
        text.matches("describe '#m").count(),
        10_000,
        "{}",
        &text[..500.min(text.len())]
    );
}

#[test]
fn ten_thousand_flat_ifs_in_one_method_are_capped_with_a_note() {
    let p = Project::new();
    let mut src = String::from("class Flat\n  def pick(a)\n");
    for i in 0..10_000 {
        src.push_str(&format!("    return {i} if a == {i}\n"));
    }
    src.push_str("    -1\n  end\nend\n");
    p.write("app/services/flat.rb", &src);
    let answer = p
        .run(&["analyze", "app/services/flat.rb"])
        .expect_code(0)
        .yaml();
    let method = &answer["data"]["methods"][0];
    let chars = method["characteristics"].as_sequence().unwrap();
    // Guards on one subject read as enums of 32 values and `other`, each next one under
    // the previous one's `other`, down to the nesting limit (each enum takes two of its
    // levels: the chain and its `else`).
    assert_eq!(chars.len(), 50);
    assert_eq!(chars[49]["level"].as_u64(), Some(50));
    for c in chars {
        assert_eq!(c["type"].as_str(), Some("enum"));
        assert_eq!(c["values"].as_sequence().map(Vec::len), Some(33));
    }
    assert_eq!(
        method["notes"][0].as_str(),
        Some(
            "J01: the method nests more conditions than are followed; the rest of it reads as its last statement (more than 100)"
        )
    );
    assert_eq!(method["confidence"].as_f64(), Some(0.5));
    let run = p
        .run(&[
            "validate",
            "--stage",
            "code-analyzer",
            "tmp/rspec_metadata/app_services_flat.yml",
        ])
        .expect_code(2);
    assert!(
        run.stderr
            .contains("- Potential combinatorial explosion for method 'pick': characteristics=50"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_one_megabyte_line_is_parsed_and_its_text_kept_loadable() {
    let p = Project::new();
    let items = vec!["1"; 500_000].join(",");
    p.write(
        "app/services/long.rb",
        format!("class Long\n  def all\n    [{items}]\n  end\nend\n"),
    );
    let answer = p
        .run(&["symbols", "app/services/long.rb"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["files"][0]["parse"].as_str(), Some("ok"));
    assert_eq!(
        answer["files"][0]["methods"][0]["line_range"],
        serde_yaml::from_str::<serde_yaml::Value>("[2, 4]").unwrap()
    );
    let answer = p
        .run(&["analyze", "app/services/long.rb"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["data"]["methods"][0]["name"].as_str(), Some("all"));
    p.run(&[
        "validate",
        "--yaml",
        "tmp/rspec_metadata/app_services_long.yml",
    ])
    .expect_code(0);
}

/// Syntax errors give `parse: error` with prism's diagnostic and what it recovered; new
/// syntax parses cleanly.
/// (source, expected `parse`, first diagnostic (line, message), method ids).
type SyntaxCase = (
    &'static str,
    &'static str,
    Option<(u64, &'static str)>,
    &'static [&'static str],
);

#[test]
fn syntax_errors_are_diagnostics_and_new_syntax_parses() {
    let cases: &[SyntaxCase] = &[
        (
            "class S\n  def a\n    \"unterminated\n  end\nend\n",
            "error",
            Some((5, "unterminated string meets end of file")),
            &["S#a"],
        ),
        (
            "class S\n  def a\n    <<~EOS\n      text\n  end\nend\n",
            "error",
            Some((
                3,
                "unterminated heredoc; can't find string \"EOS\" anywhere before EOF",
            )),
            &["S#a"],
        ),
        (
            "class S\n  def a\n    1\nend\n",
            "error",
            Some((
                4,
                "unexpected end-of-input, assuming it is closing the parent top level context",
            )),
            &["S#a"],
        ),
        (
            "class S\n  def a; 1; end\nend\nend\n",
            "error",
            Some((4, "unexpected 'end', ignoring it")),
            &["S#a"],
        ),
        (
            "class S\n  def f(*) = g(*)\n  def g(*a) = a\nend\n",
            "ok",
            None,
            &["S#f", "S#g"],
        ),
        (
            "class S\n  def a(xs)\n    xs.map { it * 2 }\n  end\nend\n",
            "ok",
            None,
            &["S#a"],
        ),
        (
            "class S\n  def a(x)\n    case x\n    in {name: String => n} then n\n    in [Integer, *] then 1\n    else 0\n    end\n  end\nend\n",
            "ok",
            None,
            &["S#a"],
        ),
    ];
    for (i, (source, parse, diagnostic, ids)) in cases.iter().enumerate() {
        let p = Project::new();
        let rel = format!("app/models/case_{i}.rb");
        p.write(&rel, source);
        let answer = p.run(&["symbols", &rel]).expect_code(0).yaml();
        let file = &answer["files"][0];
        assert_eq!(file["path"].as_str(), Some(rel.as_str()));
        assert_eq!(file["parse"].as_str(), Some(*parse), "case {i}: {file:?}");
        if let Some((line, message)) = diagnostic {
            assert_eq!(
                file["diagnostics"][0]["line"].as_u64(),
                Some(*line),
                "case {i}"
            );
            assert_eq!(
                file["diagnostics"][0]["message"].as_str(),
                Some(*message),
                "case {i}"
            );
        } else {
            assert!(file["diagnostics"].is_null(), "case {i}: {file:?}");
        }
        let got: Vec<&str> = file["methods"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(|m| m["id"].as_str())
            .collect();
        assert_eq!(got, *ids, "case {i}");
        // Clean files analyze; a file with errors is an error naming its first one, and
        // nothing is written from what the parser recovered.
        if *parse == "error" {
            let answer = p.run(&["analyze", &rel]).expect_code(1).yaml();
            assert_eq!(
                answer["error_code"].as_str(),
                Some("SOURCE_UNPARSABLE"),
                "case {i}"
            );
            let (line, message) = diagnostic.unwrap();
            assert_eq!(
                answer["error"].as_str().unwrap(),
                format!("{rel} does not parse: line {line}: {message}"),
                "case {i}"
            );
            assert!(!p.exists(&format!("tmp/rspec_metadata/app_models_case_{i}.yml")));
        } else {
            let answer = p.run(&["analyze", &rel]).expect_code(0).yaml();
            assert_eq!(answer["status"].as_str(), Some("success"), "case {i}");
            assert!(warnings(&answer).is_empty(), "case {i}: {answer:?}");
        }
    }
}

#[test]
fn symlink_loops_inside_the_walked_folder_do_not_hang_discover() {
    let p = Project::new();
    p.write("app/models/a.rb", "class A\n  def a; end\nend\n");
    std::fs::create_dir_all(p.root().join("app/loop")).unwrap();
    std::os::unix::fs::symlink("../loop", p.root().join("app/loop/self")).unwrap();
    std::os::unix::fs::symlink(p.root().join("app"), p.root().join("app/models/up")).unwrap();
    std::os::unix::fs::symlink("b.rb", p.root().join("app/models/b.rb")).unwrap();
    let started = Instant::now();
    let answer = p
        .run(&["discover", "--all", "--no-metadata", "app"])
        .expect_code(0)
        .yaml();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(answer["summary"]["total_files"].as_u64(), Some(1));
    assert_eq!(answer["files"][0]["path"].as_str(), Some("app/models/a.rb"));
}

#[test]
fn unreadable_files_and_folders_are_reported_and_the_run_goes_on() {
    let p = Project::new();
    p.write("app/models/a.rb", "class A\n  def a; end\nend\n");
    p.write("app/models/locked.rb", "class Locked\n  def a; end\nend\n");
    p.write(
        "app/models/secret/hidden.rb",
        "class Hidden\n  def a; end\nend\n",
    );
    set_mode(&p.root().join("app/models/locked.rb"), 0o000);
    set_mode(&p.root().join("app/models/secret"), 0o000);
    let runs = (
        run_unprivileged(&p, &["symbols", "app"]),
        run_unprivileged(&p, &["discover", "--all", "--no-metadata", "app"]),
        run_unprivileged(&p, &["analyze", "app/models/locked.rb"]),
    );
    set_mode(&p.root().join("app/models/locked.rb"), 0o644);
    set_mode(&p.root().join("app/models/secret"), 0o755);
    let (Some(symbols), Some(discover), Some(analyze)) = runs else {
        eprintln!("note: running as root without setpriv: mode 000 does not stop root from reading; unreadable-file assertions skipped");
        return;
    };
    let answer = symbols.expect_code(0).yaml();
    let locked = file_entry(&answer, "app/models/locked.rb");
    assert_eq!(locked["parse"].as_str(), Some("skipped"));
    assert_eq!(
        locked["reason"].as_str(),
        Some("cannot read: permission denied")
    );
    let w = warnings(&answer);
    assert!(
        w.iter().any(|w| w.starts_with("could not walk: ")
            && w.contains("app/models/secret")
            && w.contains("Permission denied")),
        "{w:?}"
    );
    let answer = discover.expect_code(0).yaml();
    assert_eq!(
        skipped_reason(&answer, "app/models/locked.rb"),
        "cannot read: permission denied"
    );
    assert_eq!(answer["files"][0]["path"].as_str(), Some("app/models/a.rb"));
    let answer = analyze.expect_code(1).yaml();
    assert_eq!(
        unreadable_suggestion(&answer, "app/models/locked.rb"),
        "check the file's permissions"
    );
}

/// A read-only metadata folder: discover and analyze fail with WRITE_FAILED naming the
/// file, leave what was there byte for byte, and leave no temp files.
#[test]
fn a_read_only_metadata_folder_fails_discover_and_analyze_and_keeps_the_files() {
    let p = Project::new();
    p.write(
        "app/models/a.rb",
        "class A\n  def a(x)\n    return 1 if x\n    2\n  end\nend\n",
    );
    p.run(&["discover", "--all"]).expect_code(0);
    let dir = p.root().join("tmp/rspec_metadata");
    let before = snapshot(&dir);
    assert_eq!(before.len(), 1);
    p.edit("app/models/a.rb", "2\n", "3\n");
    open_to_everyone(p.root());
    set_mode(&dir, 0o555);
    let runs = (
        run_unprivileged(&p, &["discover", "--all"]),
        run_unprivileged(&p, &["analyze", "app/models/a.rb"]),
    );
    set_mode(&dir, 0o755);
    let (Some(discover), Some(analyze)) = runs else {
        eprintln!("note: running as root without setpriv: a read-only folder does not stop root; assertions skipped");
        return;
    };
    for (command, run) in [("discover", discover), ("analyze", analyze)] {
        let answer = run.expect_code(1).yaml();
        assert_eq!(
            answer["error_code"].as_str(),
            Some("WRITE_FAILED"),
            "{command}"
        );
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .contains("tmp/rspec_metadata"),
            "{command}: {answer:?}"
        );
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .ends_with("app_models_a.yml: permission denied"),
            "{command}: {answer:?}"
        );
        // analyze has no --no-metadata: the suggestion must not offer it as a flag to pass.
        assert_eq!(
            answer["suggestion"].as_str(),
            Some(
                "make the metadata folder writable (`discover --no-metadata` only prints the plan)"
            ),
            "{command}"
        );
    }
    assert_eq!(snapshot(&dir), before);
    assert!(temp_files(&dir).is_empty());
}

// ---------------------------------------------------------------------------------------
// Hostile metadata
// ---------------------------------------------------------------------------------------

const SOURCE: &str = "class Good\n  def ok(x)\n    return 1 if x\n    2\n  end\nend\n";

/// (name, content, what validate says on stderr, what the other commands say).
fn hostile_metadata() -> Vec<(&'static str, Vec<u8>, &'static str, &'static str)> {
    let mut huge = String::from("source_file: app/models/good.rb\nclass_name: Good\nnotes:\n");
    let line = format!("  - {}\n", "x".repeat(200));
    while huge.len() < 20 * 1024 * 1024 {
        huge.push_str(&line);
    }
    vec![
        ("empty", Vec::new(), "- metadata must be a Hash", "the file is empty"),
        (
            "truncated",
            b"source_file: app/models/good.rb\nmethods_to_analyze:\n  - name: ok\n    type: inst"
                .to_vec(),
            "- class_name must be a non-empty String",
            "metadata must include",
        ),
        (
            "truncated_flow",
            b"source_file: app/models/good.rb\nmethods: [{name: ok, ".to_vec(),
            "Psych::SyntaxError",
            "Psych::SyntaxError",
        ),
        (
            "not_yaml",
            b"{{{ not yaml ]]]\n\t\x01".to_vec(),
            "Psych::SyntaxError",
            "Psych::SyntaxError",
        ),
        (
            "alias",
            b"a: &x {source_file: app/models/good.rb}\nb: *x\n".to_vec(),
            "Psych::BadAlias: Unknown alias: x",
            "Psych::BadAlias: Unknown alias: x",
        ),
        (
            "tag",
            b"--- !ruby/object:Foo\nsource_file: app/models/good.rb\n".to_vec(),
            "Psych::DisallowedClass: Tried to load unspecified class: Foo",
            "Psych::DisallowedClass: Tried to load unspecified class: Foo",
        ),
        (
            "types",
            b"source_file: 42\nclass_name: [1]\nmethods_to_analyze: x\nmethods: {a: 1}\nautomation: [1]\ncomplexity: oops\nspec_path: 7\nbehaviors: 3\n"
                .to_vec(),
            "- automation must be a Hash",
            "metadata must include methods[]",
        ),
        (
            "huge",
            huge.into_bytes(),
            "- spec_path must be a non-empty String",
            "metadata must include",
        ),
    ]
}

#[test]
fn hostile_metadata_is_an_error_naming_the_file_and_is_never_changed() {
    for (name, content, validate_says, others_say) in hostile_metadata() {
        let p = Project::new();
        p.write("app/models/good.rb", SOURCE);
        let rel = format!("tmp/rspec_metadata/{name}.yml");
        p.write(&rel, &content);

        let run = p
            .run(&["validate", "--stage", "discovery-agent", &rel])
            .expect_code(1);
        assert!(run.stderr.contains(validate_says), "{name}: {}", run.stderr);

        for command in ["test-config", "skeleton"] {
            let run = p.run(&[command, &rel, "--format", "json"]).expect_code(1);
            let answer: serde_json::Value = serde_json::from_str(&run.stdout)
                .unwrap_or_else(|e| panic!("{name} {command}: {e}\n{}", run.stdout));
            assert_eq!(answer["error_code"], "METADATA_INVALID", "{name} {command}");
            let error = answer["error"].as_str().unwrap();
            assert!(error.contains(&rel), "{name} {command}: {error}");
            assert!(error.contains(others_say), "{name} {command}: {error}");
            assert!(answer["suggestion"]
                .as_str()
                .unwrap()
                .contains("delete it and re-run `rspec-scout discover`"));
            assert!(
                run.stderr.contains(&rel),
                "{name} {command}: {}",
                run.stderr
            );
        }
        assert_eq!(
            std::fs::read(p.root().join(&rel)).unwrap(),
            content,
            "{name}"
        );
    }
}

/// `status` lists metadata that does not load as `invalid` with the reason, and `analyze
/// --from-metadata` reports it as an error of its own (it used to be skipped silently)
/// while the good files are still analyzed.
#[test]
fn status_and_analyze_from_metadata_report_each_unloadable_metadata_file() {
    let p = Project::new();
    p.write("app/models/good.rb", SOURCE);
    p.run(&["discover", "--all"]).expect_code(0);
    let unloadable = ["alias", "empty", "not_yaml", "tag", "truncated_flow"];
    for (name, content, _, _) in hostile_metadata() {
        if unloadable.contains(&name) || name == "types" {
            p.write(&format!("tmp/rspec_metadata/{name}.yml"), &content);
        }
    }
    let dir = p.root().join("tmp/rspec_metadata");
    let before = snapshot(&dir);

    // Outside the plan: every metadata file, with --all-metadata.
    let answer = p.run(&["status", "--all-metadata"]).expect_code(0).yaml();
    let files = answer["files"].as_sequence().unwrap();
    for name in unloadable {
        let meta = format!("tmp/rspec_metadata/{name}.yml");
        let entry = files
            .iter()
            .find(|f| f["metadata"].as_str() == Some(meta.as_str()))
            .unwrap_or_else(|| panic!("{meta} not in status: {answer:?}"));
        assert_eq!(entry["state"].as_str(), Some("invalid"), "{name}");
        assert_eq!(
            entry["error_code"].as_str(),
            Some("METADATA_INVALID"),
            "{name}"
        );
    }
    assert_eq!(answer["summary"]["invalid"].as_u64(), Some(5));

    let run = p
        .run(&["analyze", "--from-metadata", "--all-metadata"])
        .expect_code(1);
    let answer = run.yaml();
    assert_eq!(answer["status"].as_str(), Some("error"));
    assert_eq!(answer["summary"]["analyzed"].as_u64(), Some(1));
    assert_eq!(answer["summary"]["errors"].as_u64(), Some(6));
    let results = answer["results"].as_sequence().unwrap();
    for name in unloadable.iter().chain(&["types"]) {
        let meta = format!("tmp/rspec_metadata/{name}.yml");
        let r = results
            .iter()
            .find(|r| r["metadata"].as_str() == Some(meta.as_str()))
            .unwrap_or_else(|| panic!("{meta} not reported: {answer:?}"));
        assert_eq!(r["status"].as_str(), Some("error"), "{name}");
        assert_eq!(r["error_code"].as_str(), Some("METADATA_INVALID"), "{name}");
        assert!(r["error"].as_str().unwrap().contains(&meta), "{name}");
        assert!(
            run.stderr
                .contains(&format!("rspec-scout: {meta}: invalid metadata")),
            "{name}: {}",
            run.stderr
        );
    }
    let types = results
        .iter()
        .find(|r| r["metadata"].as_str() == Some("tmp/rspec_metadata/types.yml"))
        .unwrap();
    assert!(types["error"]
        .as_str()
        .unwrap()
        .ends_with("source_file must be a non-empty String (found 42)"));
    // The good file was analyzed; the broken ones are byte for byte as they were.
    let after = snapshot(&dir);
    for (name, bytes) in &before {
        if name != "app_models_good.yml" {
            assert_eq!(after.get(name), Some(bytes), "{name} changed");
        }
    }
    assert!(String::from_utf8_lossy(&after["app_models_good.yml"])
        .contains("code_analyzer_completed: true"));
}

#[test]
fn wrong_types_in_well_formed_metadata_are_validator_messages() {
    let p = Project::new();
    p.write("app/models/good.rb", SOURCE);
    let rel = "tmp/rspec_metadata/app_models_good.yml";
    let content = "source_file: app/models/good.rb\nclass_name: Good\nspec_path: spec/models/good_spec.rb\ncomplexity: [1]\nmethods_to_analyze: {name: ok}\nmethods: 5\nbehaviors: [1, 2]\nautomation: true\nsource_mtime: soon\nslug: []\n";
    p.write(rel, content);
    let run = p
        .run(&["validate", "--stage", "discovery-agent", rel])
        .expect_code(1);
    assert!(
        run.stderr.starts_with("Metadata validation failed:\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("- automation must be a Hash"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("- complexity must be a Hash"),
        "{}",
        run.stderr
    );
    let run = p
        .run(&["validate", "--stage", "code-analyzer", rel])
        .expect_code(1);
    assert!(
        run.stderr.contains("- slug must be a non-empty String"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("- source_mtime must be an Integer"),
        "{}",
        run.stderr
    );
    let answer = p.run(&["status"]).expect_code(0).yaml();
    assert_eq!(
        answer["files"][0]["source_file"].as_str(),
        Some("app/models/good.rb")
    );
    assert_eq!(
        answer["files"][0]["stages"]["discovery_agent"].as_bool(),
        Some(false)
    );
    for command in ["test-config", "skeleton"] {
        let answer: serde_json::Value = serde_json::from_str(
            &p.run(&[command, rel, "--format", "json"])
                .expect_code(1)
                .stdout,
        )
        .unwrap();
        assert_eq!(answer["error_code"], "METADATA_INVALID", "{command}");
        assert!(answer["error"].as_str().unwrap().contains(rel), "{command}");
    }
    // analyze re-derives its fields from the source and keeps the foreign keys.
    p.run(&["analyze", "--from-metadata"]).expect_code(0);
    let after = p.read(rel);
    assert!(after.contains("code_analyzer_completed: true"), "{after}");
    assert!(
        after.contains("spec_path: spec/models/good_spec.rb"),
        "{after}"
    );
}

// ---------------------------------------------------------------------------------------
// Git
// ---------------------------------------------------------------------------------------

fn small_repo() -> Project {
    let p = Project::new();
    p.write("app/models/a.rb", "class A\n  def a; 1; end\nend\n");
    p.write("app/models/b.rb", "class B\n  def b; 1; end\nend\n");
    p.init_repo();
    p.git(&["checkout", "-q", "-b", "feature"]);
    p
}

#[test]
fn no_repository_and_empty_repository_in_branch_and_staged_mode() {
    let p = Project::new();
    p.write("app/models/a.rb", "class A\n  def a; end\nend\n");
    for args in [&["discover"][..], &["discover", "--staged"]] {
        let answer = p.run(args).expect_code(1).yaml();
        assert_eq!(
            answer["error_code"].as_str(),
            Some("NOT_A_GIT_REPOSITORY"),
            "{args:?}"
        );
        assert!(answer["details"]
            .as_str()
            .unwrap()
            .contains(p.root().file_name().unwrap().to_str().unwrap()));
    }
    p.git(&["init", "-q", "-b", "main"]);
    // Without commits there is nothing to compare with, whatever --base says: every file
    // is added, and the answer says why.
    let answer = p
        .run(&["discover", "--base", "nope", "--no-metadata"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["base"]["ref"].as_str(), Some("(no commits)"));
    assert_eq!(
        warnings(&answer),
        vec!["the repository has no commits yet: every file counts as added"]
    );
    p.git(&["add", "-A"]);
    let answer = p
        .run(&["discover", "--staged", "--no-metadata"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["files"][0]["path"].as_str(), Some("app/models/a.rb"));
    assert_eq!(answer["files"][0]["change"].as_str(), Some("added"));
}

#[test]
fn detached_head_without_any_branch_uses_the_base_given() {
    let p = small_repo();
    p.edit("app/models/a.rb", "1", "2");
    p.commit_all("change a");
    p.git(&["checkout", "-q", "--detach", "HEAD"]);
    p.git(&["branch", "-D", "feature"]);
    p.git(&["branch", "-m", "main", "trunk"]);
    // No main, no master, no origin/HEAD: the default base is missing, said so.
    let answer = p.run(&["discover"]).expect_code(1).yaml();
    assert_eq!(
        answer["error_code"].as_str(),
        Some("BAD_BASE_REF"),
        "{answer:?}"
    );
    assert!(answer["suggestion"].as_str().unwrap().contains("--base"));
    let answer = p
        .run(&["discover", "--base", "trunk", "--no-metadata"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["files"][0]["path"].as_str(), Some("app/models/a.rb"));
    assert_eq!(
        answer["files"][0]["public_methods"][0]["method_mode"].as_str(),
        Some("modified")
    );
}

#[test]
fn single_branch_shallow_clone_and_a_missing_base_ref() {
    let origin = small_repo();
    origin.edit("app/models/a.rb", "1", "2");
    origin.commit_all("feature work");
    let clone = Project::new();
    let url = format!("file://{}", origin.root().display());
    let out = git_command(clone.root())
        .args(["clone", "-q", "--depth", "1", &url, "repo"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let repo = clone.root().join("repo");
    let run = |args: &[&str]| {
        Run::from(
            Command::new(bin())
                .args(args)
                .current_dir(&repo)
                .output()
                .unwrap(),
        )
    };
    // Only `feature` was fetched: `main` does not exist here.
    let answer = run(&["discover", "--base", "main"]).expect_code(1).yaml();
    assert_eq!(answer["error_code"].as_str(), Some("BAD_BASE_REF"));
    assert_eq!(answer["error"].as_str(), Some("bad base ref: main"));
    let answer = run(&["discover", "--base", "nope"]).expect_code(1).yaml();
    assert_eq!(answer["error"].as_str(), Some("bad base ref: nope"));
    // HEAD itself as the base: nothing changed, the contract's error.
    let answer = run(&["discover", "--base", "HEAD"]).expect_code(1).yaml();
    assert_eq!(answer["error_code"].as_str(), Some("NO_TESTABLE_FILES"));
    // --all needs no history.
    let answer = run(&["discover", "--all", "--no-metadata"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["summary"]["total_files"].as_u64(), Some(2));
}

/// A corrupt loose object: an error that names the file and the commit it was read from
/// (it used to say only "failed to inflate loose object"), and no metadata is touched.
#[test]
fn a_corrupt_object_is_a_git_error_naming_the_file() {
    let p = small_repo();
    p.edit("app/models/a.rb", "1", "2");
    p.run(&["discover"]).expect_code(0);
    let dir = p.root().join("tmp/rspec_metadata");
    let before = snapshot(&dir);
    assert_eq!(before.len(), 1);
    let oid = p.git(&["rev-parse", "main:app/models/a.rb"]);
    let oid = oid.trim();
    let object = p
        .root()
        .join(".git/objects")
        .join(&oid[..2])
        .join(&oid[2..]);
    set_mode(&object, 0o644);
    std::fs::write(&object, b"garbage, not zlib").unwrap();
    p.edit("app/models/a.rb", "2", "3");
    let run = p.run(&["discover"]).expect_code(1);
    let answer = run.yaml();
    assert_eq!(answer["error_code"].as_str(), Some("GIT_ERROR"));
    let error = answer["error"].as_str().unwrap();
    assert!(
        error.starts_with("git: reading app/models/a.rb from commit "),
        "{error}"
    );
    assert!(error.ends_with("failed to inflate loose object"), "{error}");
    assert_eq!(
        answer["suggestion"].as_str(),
        Some("check the repository with `git fsck`; it may be corrupt")
    );
    assert_eq!(answer["recoverable"].as_bool(), Some(false));
    assert!(run.stderr.contains("app/models/a.rb"), "{}", run.stderr);
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn a_file_deleted_in_the_working_tree_is_skipped_and_its_metadata_kept() {
    let p = small_repo();
    p.edit("app/models/a.rb", "1", "2");
    p.edit("app/models/b.rb", "1", "2");
    p.run(&["discover"]).expect_code(0);
    let dir = p.root().join("tmp/rspec_metadata");
    let before = snapshot(&dir);
    p.remove("app/models/b.rb");
    let answer = p.run(&["discover"]).expect_code(0).yaml();
    assert_eq!(skipped_reason(&answer, "app/models/b.rb"), "File deleted");
    assert_eq!(answer["summary"]["total_files"].as_u64(), Some(1));
    assert_eq!(
        snapshot(&dir)["app_models_b.yml"],
        before["app_models_b.yml"]
    );
    // analyze of the deleted file: not found, named.
    let answer = p.run(&["analyze", "app/models/b.rb"]).expect_code(1).yaml();
    assert_eq!(answer["error_code"].as_str(), Some("SOURCE_NOT_FOUND"));
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("app/models/b.rb"));
}

#[test]
fn a_submodule_is_not_walked_into_and_does_not_break_discover() {
    let sub = Project::new();
    sub.write("app/models/inner.rb", "class Inner\n  def i; end\nend\n");
    sub.init_repo();
    let p = small_repo();
    let url = format!("file://{}", sub.root().display());
    p.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        &url,
        "vendored",
    ]);
    p.commit_all("submodule");
    std::fs::write(
        p.root().join("vendored/app/models/inner.rb"),
        "class Inner\n  def i; 2; end\nend\n",
    )
    .unwrap();
    p.edit("app/models/a.rb", "1", "2");
    let answer = p.run(&["discover", "--no-metadata"]).expect_code(0).yaml();
    let paths: Vec<&str> = answer["files"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(paths, vec!["app/models/a.rb"]);
}

#[test]
fn paths_with_spaces_and_unicode_go_through_every_stage() {
    let p = small_repo();
    let rel = "app/models/café order.rb";
    p.write(
        rel,
        "class CaféOrder\n  def total(x)\n    return 0 unless x\n    x * 2\n  end\nend\n",
    );
    let answer = p.run(&["discover"]).expect_code(0).yaml();
    assert_eq!(answer["files"][0]["path"].as_str(), Some(rel));
    assert_eq!(answer["files"][0]["change"].as_str(), Some("added"));
    let meta = "tmp/rspec_metadata/app_models_café order.yml";
    assert!(
        p.exists(meta),
        "{:?}",
        snapshot(&p.root().join("tmp/rspec_metadata")).keys()
    );
    p.run(&["validate", "--stage", "discovery-agent", meta])
        .expect_code(0);
    let answer = p.run(&["analyze", "--from-metadata"]).expect_code(0).yaml();
    assert_eq!(answer["results"][0]["source_file"].as_str(), Some(rel));
    assert_eq!(answer["summary"]["analyzed"].as_u64(), Some(1));
    p.run(&["validate", "--stage", "code-analyzer", meta])
        .expect_code(0);
    let answer = p.run(&["status", rel]).expect_code(0).yaml();
    assert_eq!(answer["files"][0]["source_file"].as_str(), Some(rel));
    assert_eq!(answer["files"][0]["cache"].as_str(), Some("valid"));
    p.run(&[
        "test-config",
        meta,
        "--project-type",
        "service",
        "--format",
        "json",
    ])
    .expect_code(0);
    let run = p
        .run(&["skeleton", meta, "--format", "json"])
        .expect_code(0);
    assert!(p.exists("spec/models/café order_spec.rb"), "{}", run.stdout);
}

// ---------------------------------------------------------------------------------------
// A writer killed at random points
// ---------------------------------------------------------------------------------------

fn write_sources(p: &Project, version: u32, n: usize) {
    for i in 0..n {
        let next = (i + 1) % n;
        let extra = if version == 2 {
            format!("\n  def v{version}(y)\n    y ? 1 : 2\n  end\n")
        } else {
            String::new()
        };
        p.write(
            &format!("app/models/m{i}.rb"),
            format!("class M{i}\n  def a(x)\n    return 1 if x\n    M{next}.new.a(x)\n  end\n\n  def b; {i}; end\n{extra}end\n"),
        );
    }
}

fn restore(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        std::fs::remove_file(e.path()).unwrap();
    }
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
}

/// Kills `discover --all` with SIGKILL at delays spread over its normal run time. After
/// each kill every metadata file is either its complete old version or its complete new
/// one, and the temp files a killed writer leaves are never read as metadata.
#[test]
fn a_writer_killed_at_any_point_leaves_old_or_new_complete_metadata() {
    const FILES: usize = 150;
    let p = Project::new();
    let dir: PathBuf = p.root().join("tmp/rspec_metadata");
    write_sources(&p, 1, FILES);
    p.run(&["discover", "--all"]).expect_code(0);
    let old = snapshot(&dir);
    assert_eq!(old.len(), FILES);
    write_sources(&p, 2, FILES);
    let started = Instant::now();
    p.run(&["discover", "--all"]).expect_code(0);
    let full = started.elapsed();
    let new = snapshot(&dir);
    assert_eq!(new.len(), FILES);
    for (name, bytes) in &new {
        assert_ne!(Some(bytes), old.get(name), "{name}: the change must show");
    }

    let rounds = 24u32;
    let (mut saw_old, mut saw_new) = (false, false);
    for round in 0..rounds {
        restore(&dir, &old);
        let delay = full.mul_f64(f64::from(round) / f64::from(rounds - 1) * 1.2);
        let mut child = Command::new(bin())
            .args(["discover", "--all"])
            .current_dir(p.root())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        let now = snapshot(&dir);
        assert_eq!(now.len(), FILES, "round {round}: files lost");
        for (name, bytes) in &now {
            if Some(bytes) == old.get(name) {
                saw_old = true;
            } else if Some(bytes) == new.get(name) {
                saw_new = true;
            } else {
                panic!(
                    "round {round} ({delay:?}): {name} is neither the old nor the new version:\n{}",
                    String::from_utf8_lossy(bytes)
                );
            }
            let parsed: serde_yaml::Value = serde_yaml::from_slice(bytes).unwrap();
            assert!(parsed["automation"]["discovery_agent_completed"].as_bool() == Some(true));
        }
    }
    assert!(saw_old && saw_new, "the delays never caught a run mid-way");

    // A temp file as a killed writer leaves it (named like write_atomic's, half written)
    // is not metadata to status, analyze or discover.
    let leftover = format!(".app_models_m0.yml.tmp.{}.0", std::process::id());
    std::fs::write(
        dir.join(&leftover),
        b"source_file: app/models/m0.rb\nclass_na",
    )
    .unwrap();
    let answer = p.run(&["status"]).expect_code(0).yaml();
    assert_eq!(answer["summary"]["files"].as_u64(), Some(FILES as u64));
    assert_eq!(answer["summary"]["invalid"].as_u64(), Some(0));
    assert!(!answer["files"]
        .as_sequence()
        .unwrap()
        .iter()
        .any(|f| f["metadata"].as_str().is_some_and(|m| m.contains(".tmp."))));
    let answer = p.run(&["discover", "--all"]).expect_code(0).yaml();
    assert!(warnings(&answer).is_empty() || !format!("{:?}", answer["warnings"]).contains(".tmp."));
    assert_eq!(snapshot(&dir), new);
    let answer = p
        .run(&["analyze", "--from-metadata", "--answer", "full"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["summary"]["errors"].as_u64(), Some(0));
    assert_eq!(answer["results"].as_sequence().unwrap().len(), FILES);
}

/// A run killed with SIGKILL between writing its temp file and the rename leaves the temp
/// file and the old metadata, whole; the next run that takes the folder's lock removes the
/// temp file. (Test builds hold each write before its rename while
/// RSPEC_SCOUT_TEST_PAUSE_BEFORE_RENAME_MS is set, so the kill lands exactly there.)
#[test]
fn temp_files_of_a_killed_run_are_removed_by_the_next_run_that_holds_the_lock() {
    if !cfg!(debug_assertions) {
        eprintln!("note: the write pause exists in debug builds only; skipped");
        return;
    }
    let p = Project::new();
    p.write("app/models/good.rb", SOURCE);
    p.run(&["discover", "--all"]).expect_code(0);
    let dir = p.root().join("tmp/rspec_metadata");
    let before = snapshot(&dir);
    let mut child = Command::new(bin());
    crate::util::without_git_env(&mut child);
    let mut child = child
        .args(["analyze", "--from-metadata"])
        .current_dir(p.root())
        .env("RSPEC_SCOUT_TEST_PAUSE_BEFORE_RENAME_MS", "60000")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while temp_files(&dir).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the run never wrote its temp file"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Child::kill is SIGKILL on Unix: no destructor, no cleanup runs.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
    let left = temp_files(&dir);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with(".app_models_good.yml.tmp."), "{left:?}");
    // The metadata is the old version, whole.
    assert_eq!(snapshot(&dir), before);

    // A run that only reads leaves it; the next one that takes the lock removes it.
    p.run(&["status"]).expect_code(0);
    assert_eq!(temp_files(&dir).len(), 1);
    let answer = p.run(&["analyze", "--from-metadata"]).expect_code(0).yaml();
    assert_eq!(answer["summary"]["analyzed"].as_u64(), Some(1));
    assert_eq!(temp_files(&dir), Vec::<String>::new());
    let map: serde_yaml::Value =
        serde_yaml::from_str(&p.read("tmp/rspec_metadata/app_models_good.yml")).unwrap();
    assert_eq!(
        map["automation"]["code_analyzer_completed"].as_bool(),
        Some(true)
    );
}

// ---------------------------------------------------------------------------------------
// Waves: properties over arbitrary graphs
// ---------------------------------------------------------------------------------------

mod waves_props {
    use std::collections::{BTreeMap, BTreeSet};

    use proptest::prelude::*;
    use rspec_scout::discover::waves::{compute, Item};

    /// Items over a pool of `classes` names; dependencies may name the item's own class
    /// (self-loop), an unknown class (`X{n}`, owning no item), or repeat.
    fn items_strategy() -> impl Strategy<Value = Vec<Item>> {
        (1usize..40).prop_flat_map(|classes| {
            let name = prop_oneof![
                8 => (0..classes).prop_map(|c| format!("C{c}")),
                1 => (0usize..5).prop_map(|x| format!("X{x}")),
            ];
            let item = (
                (0..classes).prop_map(|c| format!("C{c}")),
                proptest::collection::vec(name, 0..6),
            )
                .prop_map(|(class, deps)| Item { class, deps });
            proptest::collection::vec(item, 0..300)
        })
    }

    /// Classes reachable from each class over the dependency edges (other than to itself).
    fn reachability(items: &[Item]) -> BTreeMap<String, BTreeSet<String>> {
        let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for item in items {
            let out = edges.entry(item.class.as_str()).or_default();
            for d in &item.deps {
                if *d != item.class {
                    out.insert(d.as_str());
                }
            }
        }
        let mut reach = BTreeMap::new();
        for &start in edges.keys() {
            let mut seen: BTreeSet<String> = BTreeSet::new();
            let mut stack = vec![start];
            while let Some(n) = stack.pop() {
                for &m in edges.get(n).into_iter().flatten() {
                    if seen.insert(m.to_string()) {
                        stack.push(m);
                    }
                }
            }
            reach.insert(start.to_string(), seen);
        }
        reach
    }

    fn same_cycle(reach: &BTreeMap<String, BTreeSet<String>>, a: &str, b: &str) -> bool {
        a != b
            && reach.get(a).is_some_and(|r| r.contains(b))
            && reach.get(b).is_some_and(|r| r.contains(a))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn dependencies_point_to_earlier_waves_except_inside_a_cycle(items in items_strategy()) {
            let w = compute(&items);
            prop_assert_eq!(w.wave.len(), items.len());
            let reach = reachability(&items);
            let mut by_class: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
            for (i, item) in items.iter().enumerate() {
                by_class.entry(item.class.as_str()).or_default().push(i);
            }
            for (i, item) in items.iter().enumerate() {
                if item.deps.is_empty() {
                    prop_assert_eq!(w.wave[i], 0, "item {} has no dependencies", i);
                }
                for dep in &item.deps {
                    if *dep == item.class {
                        continue;
                    }
                    let cyclic = same_cycle(&reach, &item.class, dep);
                    for &j in by_class.get(dep.as_str()).into_iter().flatten() {
                        if cyclic {
                            prop_assert!(w.wave[j] <= w.wave[i],
                                "cycle {} -> {}: wave {} > {}", item.class, dep, w.wave[j], w.wave[i]);
                        } else {
                            prop_assert!(w.wave[j] < w.wave[i],
                                "{} (wave {}) -> {} (wave {})", item.class, w.wave[i], dep, w.wave[j]);
                        }
                    }
                }
            }
            // No inflation: a wave never exceeds the number of classes.
            let classes = by_class.len();
            prop_assert!(w.wave.iter().all(|&x| x <= classes));
        }

        #[test]
        fn cycles_are_exactly_the_strongly_connected_classes(items in items_strategy()) {
            let w = compute(&items);
            let reach = reachability(&items);
            let mut sorted = w.cycles.clone();
            sorted.sort();
            prop_assert_eq!(&sorted, &w.cycles, "cycle list sorted");
            let mut member_of: BTreeMap<&str, usize> = BTreeMap::new();
            for (c, cycle) in w.cycles.iter().enumerate() {
                prop_assert!(cycle.len() > 1);
                let mut s = cycle.clone();
                s.sort();
                prop_assert_eq!(&s, cycle, "each cycle sorted");
                for a in cycle {
                    prop_assert!(member_of.insert(a.as_str(), c).is_none(), "{} in two cycles", a);
                    for b in cycle {
                        prop_assert!(a == b || same_cycle(&reach, a, b), "{} and {} are not a cycle", a, b);
                    }
                }
            }
            for a in reach.keys() {
                for b in reach.keys() {
                    if same_cycle(&reach, a, b) {
                        prop_assert!(member_of.contains_key(a.as_str())
                            && member_of.get(a.as_str()) == member_of.get(b.as_str()),
                            "{} and {} form a cycle that is not reported", a, b);
                    }
                }
            }
        }

        #[test]
        fn deterministic_and_independent_of_input_order(
            items in items_strategy(),
            seed in any::<u64>(),
        ) {
            let first = compute(&items);
            prop_assert_eq!(&first, &compute(&items));
            // Permute the items (and each item's dependencies): the wave of each item
            // follows it, the cycles are the same.
            let mut order: Vec<usize> = (0..items.len()).collect();
            let mut s = seed | 1;
            for i in (1..order.len()).rev() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                order.swap(i, (s % (i as u64 + 1)) as usize);
            }
            let shuffled: Vec<Item> = order
                .iter()
                .map(|&i| {
                    let mut item = items[i].clone();
                    item.deps.reverse();
                    item
                })
                .collect();
            let second = compute(&shuffled);
            prop_assert_eq!(&first.cycles, &second.cycles);
            for (k, &i) in order.iter().enumerate() {
                prop_assert_eq!(first.wave[i], second.wave[k], "item {}", i);
            }
        }
    }

    #[test]
    fn edge_cases() {
        let empty: Vec<Item> = Vec::new();
        let w = compute(&empty);
        assert!(w.wave.is_empty() && w.cycles.is_empty());
        let item = |c: &str, d: &[&str]| Item {
            class: c.to_string(),
            deps: d.iter().map(|s| s.to_string()).collect(),
        };
        // Self-loop and duplicates: no cycle, wave 0; an unknown class adds nothing.
        let w = compute(&[item("A", &["A", "A", "Nope", "Nope"])]);
        assert_eq!(w.wave, vec![0]);
        assert!(w.cycles.is_empty());
        // A 3-cycle with a leaf under it and a class on top.
        let w = compute(&[
            item("A", &["B"]),
            item("B", &["C"]),
            item("C", &["A", "L"]),
            item("L", &[]),
            item("T", &["A", "A"]),
        ]);
        assert_eq!(w.wave, vec![1, 1, 1, 0, 2]);
        assert_eq!(
            w.cycles,
            vec![vec!["A".to_string(), "B".to_string(), "C".to_string()]]
        );
    }
}
