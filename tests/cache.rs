//! The facts cache (`{metadata_path}/rspec_scout/facts.bin`): a warm run answers what a
//! cold run answers, byte for byte, whatever happened to the tree or to the cache file.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::robustness::{is_root, open_to_everyone, run_unprivileged, set_mode};
use crate::util::*;

const CACHE: &str = "tmp/rspec_scout/facts.bin";
const PLAN: &str = "tmp/rspec_scout/plan.bin";

/// The Rails fixture on a feature branch: one model changed and committed, one service
/// added, one edit in the working tree only.
fn app() -> Project {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.init_repo();
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.edit(
        "app/models/order.rb",
        "  class InvalidState < StandardError; end",
        "  def cancel!\n    return false if shipped?\n\n    update!(state: :cancelled)\n  end\n\n  class InvalidState < StandardError; end",
    );
    p.commit_all("order can be cancelled");
    p.write(
        "app/services/refunds/partial_refund.rb",
        "module Refunds\n  class PartialRefund\n    def initialize(payment, cents)\n      @payment = payment\n      @cents = cents\n    end\n\n    def call\n      raise ArgumentError, \"too much\" if @cents > @payment.amount_cents\n\n      Payment.transaction { @payment.refund!(@cents) }\n    end\n  end\nend\n",
    );
    p
}

/// Every Ruby file an hour old: out of the racy window, so a warm run reads none of them.
fn age_sources(dir: &Path) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != ".git" {
                age_sources(&path);
            }
        } else if path.extension().is_some_and(|e| e == "rb") {
            set_mtime(&path, old);
        }
    }
}

fn set_mtime(path: &Path, time: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

fn mtime(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

/// The commands that index, each as a cold run would answer it.
const COMMANDS: &[&[&str]] = &[
    &["discover", "--all", "--no-metadata"],
    &["discover", "--all", "--no-metadata", "--answer", "full"],
    &["discover", "--no-metadata", "--answer", "full"],
    &["discover", "--all", "--no-metadata", "--format", "json"],
    &["discover", "app/models", "--no-metadata"],
    &["symbols", "app", "lib"],
];

fn with(args: &[&str], extra: &str) -> Vec<String> {
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.push(extra.to_string());
    all
}

fn run(p: &Project, args: &[String]) -> Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    p.run(&args)
}

/// Each command's answer without the cache, then with it (made, then warm): the same.
fn assert_warm_is_cold(p: &Project, what: &str) {
    for args in COMMANDS {
        let cold = run(p, &with(args, "--no-cache"));
        assert!(
            cold.code == 0 || cold.code == 2,
            "{what}: {args:?}: {}",
            cold.stderr
        );
        for round in ["first", "warm"] {
            let warm = p.run(args);
            assert_eq!(warm.code, cold.code, "{what}, {round} run: {args:?}");
            assert_eq!(warm.stdout, cold.stdout, "{what}, {round} run: {args:?}");
        }
    }
}

#[test]
fn warm_runs_answer_what_cold_runs_answer() {
    let p = app();
    age_sources(p.root());
    assert!(!p.exists(CACHE));
    assert_warm_is_cold(&p, "aged sources");
    assert!(p.exists(CACHE));
    // Nothing changed: the cache is not written again.
    let before = mtime(&p.root().join(CACHE));
    std::thread::sleep(Duration::from_millis(20));
    p.run(&["discover", "--all", "--no-metadata"])
        .expect_code(0);
    assert_eq!(
        mtime(&p.root().join(CACHE)),
        before,
        "written with nothing changed"
    );
    // Sources modified just now (inside the racy window) are read and digested.
    p.edit("app/models/user.rb", "def full_name", "def display_name");
    assert_warm_is_cold(&p, "a fresh edit");
    // The metadata-writing run answers the same too.
    let cold = p.run(&["discover", "--no-cache"]).expect_code(0).stdout;
    assert_eq!(p.run(&["discover"]).expect_code(0).stdout, cold);
    assert_eq!(p.run(&["discover"]).expect_code(0).stdout, cold);
}

#[test]
fn an_edit_that_keeps_size_and_mtime_is_seen_inside_the_racy_window() {
    let p = app();
    let rel = "app/models/order.rb";
    let path = p.root().join(rel);
    // Modified just before the run that records it: inside the racy window.
    set_mtime(&path, SystemTime::now());
    p.run(&["discover", "--all", "--no-metadata"])
        .expect_code(0);
    let stamp = mtime(&path);
    // `total_cents` becomes `total_dimes`: same size, same inode, same mtime.
    p.edit(rel, "def total_cents", "def total_dimes");
    set_mtime(&path, stamp);
    let full = ["discover", "--all", "--no-metadata", "--answer", "full"];
    let warm = p.run(&full).expect_code(0).stdout;
    assert!(warm.contains("Order#total_dimes"), "{warm}");
    assert!(!warm.contains("Order#total_cents"), "{warm}");
    let cold = p
        .run(&[
            "discover",
            "--all",
            "--no-metadata",
            "--answer",
            "full",
            "--no-cache",
        ])
        .expect_code(0)
        .stdout;
    assert_eq!(warm, cold);
}

#[test]
fn a_deleted_file_is_gone_from_the_answer_and_from_the_cache() {
    let p = app();
    age_sources(p.root());
    p.run(&["discover", "--all", "--no-metadata"])
        .expect_code(0);
    let cache = std::fs::read(p.root().join(CACHE)).unwrap();
    let name = b"app/mailers/payment_mailer.rb";
    assert!(cache.windows(name.len()).any(|w| w == name));
    p.remove("app/mailers/payment_mailer.rb");
    let warm = p
        .run(&["discover", "--all", "--no-metadata"])
        .expect_code(0)
        .stdout;
    let cold = p
        .run(&["discover", "--all", "--no-metadata", "--no-cache"])
        .expect_code(0)
        .stdout;
    assert_eq!(warm, cold);
    let cache = std::fs::read(p.root().join(CACHE)).unwrap();
    assert!(!cache.windows(name.len()).any(|w| w == name), "not pruned");
}

#[test]
fn a_bad_cache_file_is_ignored_and_made_again() {
    let p = app();
    age_sources(p.root());
    let args = ["discover", "--all", "--no-metadata"];
    let cold = p.run(&args).expect_code(0).stdout;
    let good = std::fs::read(p.root().join(CACHE)).unwrap();
    let flip = |at: usize| {
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        bad
    };
    // Another build: a byte of its identity differs.
    let mut foreign = good.clone();
    let at = good.windows(6).position(|w| w == b"facts ").unwrap() + 6;
    foreign[at] = if foreign[at] == b'0' { b'1' } else { b'0' };
    // Hand-edited: a method renamed in place.
    let mut edited = good.clone();
    let at = good.windows(8).rposition(|w| w == b"refund!\n").unwrap();
    edited[at] = b'R';
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("one byte short", good[..good.len() - 1].to_vec()),
        ("a flipped byte", flip(good.len() / 2)),
        ("another build", foreign),
        ("hand-edited", edited),
        ("not a cache file", b"--- {}\n".to_vec()),
    ];
    for (what, bytes) in cases {
        std::fs::write(p.root().join(CACHE), &bytes).unwrap();
        // Without the stored plan, which would answer without reading a file.
        let _ = std::fs::remove_file(p.root().join(PLAN));
        assert_eq!(p.run(&args).expect_code(0).stdout, cold, "{what}");
        let again = std::fs::read(p.root().join(CACHE)).unwrap();
        assert_eq!(again.len(), good.len(), "{what}: not made again");
        assert_eq!(&again[..8], b"RSSFACTS", "{what}");
    }
    // A folder where the file should be: the answer stands, nothing is written.
    std::fs::remove_file(p.root().join(CACHE)).unwrap();
    std::fs::create_dir(p.root().join(CACHE)).unwrap();
    assert_eq!(p.run(&args).expect_code(0).stdout, cold, "a folder");
}

#[test]
fn no_cache_neither_reads_nor_writes_the_cache() {
    let p = app();
    age_sources(p.root());
    p.run(&["symbols", "app", "--no-cache"]).expect_code(0);
    p.run(&["discover", "--all", "--no-metadata", "--no-cache"])
        .expect_code(0);
    assert!(!p.exists(CACHE), "written with --no-cache");
    assert!(!p.exists(PLAN), "written with --no-cache");
    // A cache that would answer old facts: the edit keeps size and mtime of a file made
    // long before the cache (git's racy-clean rule trusts such a stamp).
    p.run(&["discover", "--all", "--no-metadata"])
        .expect_code(0);
    let cache = std::fs::read(p.root().join(CACHE)).unwrap();
    let rel = "app/models/order.rb";
    let path = p.root().join(rel);
    let stamp = mtime(&path);
    p.edit(rel, "def total_cents", "def total_dimes");
    set_mtime(&path, stamp);
    let answer = p
        .run(&[
            "discover",
            "--all",
            "--no-metadata",
            "--answer",
            "full",
            "--no-cache",
        ])
        .expect_code(0)
        .stdout;
    assert!(answer.contains("Order#total_dimes"), "read the cache");
    let symbols = p
        .run(&["symbols", "app/models", "--no-cache"])
        .expect_code(0)
        .stdout;
    assert!(symbols.contains("total_dimes"), "read the cache");
    assert_eq!(std::fs::read(p.root().join(CACHE)).unwrap(), cache);
    assert!(p.exists(PLAN));
    let plan = std::fs::read(p.root().join(PLAN)).unwrap();
    p.run(&["discover", "--all", "--no-metadata", "--no-cache"])
        .expect_code(0);
    assert_eq!(std::fs::read(p.root().join(PLAN)).unwrap(), plan);
}

#[test]
fn a_metadata_folder_linked_out_of_the_root_gets_no_cache() {
    let p = app();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(p.root().join("tmp")).unwrap();
    std::os::unix::fs::symlink(outside.path(), p.root().join("tmp/rspec_scout")).unwrap();
    let args = ["discover", "--all", "--no-metadata"];
    let warm = p.run(&args).expect_code(0).stdout;
    let cold = p
        .run(&["discover", "--all", "--no-metadata", "--no-cache"])
        .expect_code(0)
        .stdout;
    assert_eq!(warm, cold);
    p.run(&["symbols", "app"]).expect_code(0);
    let written: Vec<PathBuf> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(written.is_empty(), "written outside the root: {written:?}");
}

#[test]
fn a_read_only_metadata_folder_leaves_the_answer_alone() {
    // Not a git repository: git refuses a repository another user owns.
    let p = Project::new();
    p.copy_fixture("rails_app");
    open_to_everyone(p.root());
    let args = ["discover", "--all", "--no-metadata"];
    std::fs::create_dir_all(p.root().join("tmp/rspec_scout")).unwrap();
    set_mode(&p.root().join("tmp/rspec_scout"), 0o555);
    let Some(cold) = run_unprivileged(&p, &["discover", "--all", "--no-metadata", "--no-cache"])
    else {
        eprintln!("running as root without setpriv: the folder's mode is not checked");
        return;
    };
    let cold = cold.expect_code(0).stdout;
    let run = run_unprivileged(&p, &args).unwrap().expect_code(0);
    assert_eq!(run.stdout, cold);
    assert!(!run.stderr.contains("facts.bin"), "{}", run.stderr);
    if is_root() {
        // Unprivileged through setpriv: the folder's mode applied.
        assert!(!p.exists(CACHE));
    }
    set_mode(&p.root().join("tmp/rspec_scout"), 0o755);
}

/// `discover`'s answer without the cache.
fn cold(p: &Project, args: &[&str]) -> String {
    let run = run(p, &with(args, "--no-cache"));
    assert!(run.code == 0 || run.code == 2, "{args:?}: {}", run.stderr);
    run.stdout
}

#[test]
fn the_stored_plan_answers_only_for_its_own_files_settings_and_history() {
    let p = app();
    age_sources(p.root());
    let full = ["discover", "--all", "--no-metadata", "--answer", "full"];
    p.run(&full).expect_code(0);
    assert!(p.exists(PLAN));
    // Nothing changed: the stored plan answers and no file is read, so the facts cache,
    // removed, is not made again.
    std::fs::remove_file(p.root().join(CACHE)).unwrap();
    let before = cold(&p, &full);
    assert_eq!(p.run(&full).expect_code(0).stdout, before);
    assert!(
        !p.exists(CACHE),
        "files were read: the stored plan did not answer"
    );

    // Other settings, one after the other: each answers as a cold run, and so does the
    // first again.
    p.write(
        ".rspec-scout.yml",
        "zones: {yellow_loc: 20, red_loc: 40, yellow_methods: 2, red_methods: 3}\n",
    );
    let zoned = cold(&p, &full);
    assert_ne!(zoned, before, "the zones changed nothing");
    assert_eq!(p.run(&full).stdout, zoned, "other zones");
    p.remove(".rspec-scout.yml");
    let settings: &[&[&str]] = &[
        &[
            "discover",
            "--all",
            "--no-metadata",
            "--answer",
            "full",
            "--only",
            "Order#*",
        ],
        &[
            "discover",
            "--all",
            "--no-metadata",
            "--answer",
            "full",
            "--exclude",
            "Order#*",
        ],
        &["discover", "--no-metadata", "--answer", "full"],
        &[
            "discover",
            "app/models",
            "--no-metadata",
            "--answer",
            "full",
        ],
        &full,
    ];
    for args in settings {
        let expected = cold(&p, args);
        for round in ["first", "again"] {
            assert_eq!(
                run(&p, &with(args, "--format=yaml")).stdout,
                expected,
                "{round}: {args:?}"
            );
        }
    }

    // The same files, changed against two bases: the order changed since `main` and since
    // the commit before, each time with another base version of it.
    p.edit(
        "app/models/order.rb",
        "line_items.sum(&:total_cents)",
        "line_items.sum(&:total_cents).to_i",
    );
    p.commit_all("an order's total is a whole number");
    age_sources(p.root());
    let on = |base: &str| -> Vec<String> {
        with(
            &[
                "discover",
                "--all",
                "--no-metadata",
                "--answer",
                "full",
                "--base",
            ],
            base,
        )
    };
    let on_main = run(
        &p,
        &with(
            &on("main").iter().map(String::as_str).collect::<Vec<_>>(),
            "--no-cache",
        ),
    )
    .stdout;
    let on_parent = run(
        &p,
        &with(
            &on("HEAD~1").iter().map(String::as_str).collect::<Vec<_>>(),
            "--no-cache",
        ),
    )
    .stdout;
    assert_ne!(on_main, on_parent, "the base version changed nothing");
    for round in ["first", "again"] {
        assert_eq!(run(&p, &on("main")).stdout, on_main, "{round}: base main");
        assert_eq!(
            run(&p, &on("HEAD~1")).stdout,
            on_parent,
            "{round}: base HEAD~1"
        );
    }
    let rebased = cold(&p, &full);
    p.git(&["branch", "-f", "main", "feature"]);
    let moved = cold(&p, &full);
    assert_ne!(moved, rebased, "moving the base changed nothing");
    assert_eq!(p.run(&full).expect_code(0).stdout, moved, "a moved base");
    p.git(&["branch", "-f", "main", "HEAD~2"]);
    assert_eq!(
        p.run(&full).expect_code(0).stdout,
        rebased,
        "the base moved back"
    );

    // Touched, not changed: read again, planned from the same digests.
    let now = SystemTime::now();
    for rel in ["app/models/order.rb", "app/models/user.rb"] {
        set_mtime(&p.root().join(rel), now);
    }
    assert_eq!(p.run(&full).expect_code(0).stdout, rebased, "touched");
    assert_eq!(
        p.run(&full).expect_code(0).stdout,
        rebased,
        "touched, again"
    );
}

#[test]
fn a_bad_stored_plan_is_ignored_and_made_again() {
    let p = app();
    age_sources(p.root());
    let args = ["discover", "--all", "--no-metadata", "--answer", "full"];
    let cold = p.run(&args).expect_code(0).stdout;
    let good = std::fs::read(p.root().join(PLAN)).unwrap();
    let flip = |at: usize| {
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        bad
    };
    let mut foreign = good.clone();
    let at = good.windows(5).position(|w| w == b"plan ").unwrap() + 5;
    foreign[at] = if foreign[at] == b'0' { b'1' } else { b'0' };
    // Hand-edited: a method renamed in place (the checksum no longer holds).
    let mut edited = good.clone();
    let at = good.windows(11).rposition(|w| w == b"total_cents").unwrap();
    edited[at] = b'T';
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("one byte short", good[..good.len() - 1].to_vec()),
        ("a flipped byte", flip(good.len() / 2)),
        ("another build", foreign),
        ("hand-edited", edited),
        ("not a stored plan", b"--- {}\n".to_vec()),
    ];
    for (what, bytes) in cases {
        std::fs::write(p.root().join(PLAN), &bytes).unwrap();
        assert_eq!(p.run(&args).expect_code(0).stdout, cold, "{what}");
        let again = std::fs::read(p.root().join(PLAN)).unwrap();
        assert_eq!(again.len(), good.len(), "{what}: not made again");
        assert_eq!(&again[..8], b"RSSPLAN\0", "{what}");
    }
    // A folder where the file should be: the answer stands, nothing is written.
    std::fs::remove_file(p.root().join(PLAN)).unwrap();
    std::fs::create_dir(p.root().join(PLAN)).unwrap();
    assert_eq!(p.run(&args).expect_code(0).stdout, cold, "a folder");
    assert_eq!(p.run(&args).expect_code(0).stdout, cold, "a folder, again");
}

/// The racy window a test runs with: long enough for the file system's clock tick, short
/// enough not to wait two seconds before a stored walk is trusted.
const RACY_MS: &str = "150";

fn settle() {
    // A release build has no test hook (`RSPEC_SCOUT_TEST_RACY_MS` is read in debug builds
    // only): there the real two-second window has to pass.
    let wait = if cfg!(debug_assertions) { 200 } else { 2_100 };
    std::thread::sleep(Duration::from_millis(wait));
}

/// `discover --all`'s full answer with the cache on, its timings apart.
/// `discover --all`'s full answer, with the cache (`last`: `--timings`) or without
/// (`--no-cache`), its timings apart.
fn answer_all(p: &Project, last: &str) -> (String, serde_json::Value) {
    let run = p.run_env(
        &[
            "discover",
            "--all",
            "--no-metadata",
            "--answer",
            "full",
            "--format",
            "json",
            last,
        ],
        &[("RSPEC_SCOUT_TEST_RACY_MS", RACY_MS)],
    );
    assert!(run.code == 0 || run.code == 2, "{}", run.stderr);
    let mut answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let timings = answer
        .as_object_mut()
        .and_then(|o| o.remove("timings"))
        .unwrap_or_default();
    (answer.to_string(), timings)
}

fn warm_all(p: &Project) -> (String, serde_json::Value) {
    answer_all(p, "--timings")
}

fn cold_all(p: &Project) -> String {
    answer_all(p, "--no-cache").0
}

/// A change to the tree, then warm runs until the stored walk and git's answer are
/// trusted again: each answers what a cold run answers.
fn assert_follows(p: &Project, what: &str) -> String {
    let cold = cold_all(p);
    let (first, _) = warm_all(p);
    assert_eq!(first, cold, "{what}: the first run after the change");
    settle();
    let (again, _) = warm_all(p);
    assert_eq!(again, cold, "{what}: the run that stores it");
    settle();
    let (trusted, timings) = warm_all(p);
    assert_eq!(trusted, cold, "{what}: the run from what is stored");
    assert_eq!(timings["folders_read"], 0, "{what}: {timings}");
    assert_eq!(timings["git_stored"], true, "{what}: {timings}");
    cold
}

#[test]
fn the_stored_walk_reads_only_changed_folders_and_answers_as_a_walk_would() {
    let p = app();
    p.write(".gitignore", "/tmp/\n");
    p.commit_all("ignore tmp");
    age_sources(p.root());
    settle();
    let before = assert_follows(&p, "as made");

    // A file made in a folder: that folder alone is read again.
    p.write(
        "app/models/coupon.rb",
        "class Coupon < ApplicationRecord\n  def usable?\n    !expired? && uses_left.positive?\n  end\nend\n",
    );
    let cold = cold_all(&p);
    assert_ne!(cold, before, "the new model changed nothing");
    let (warm, timings) = warm_all(&p);
    assert_eq!(warm, cold, "a new file");
    assert_eq!(timings["folders_read"], 1, "{timings}");
    assert_follows(&p, "a new file");

    // A file removed; a folder made with a file in it; a folder renamed.
    p.remove("app/services/refunds/partial_refund.rb");
    assert_follows(&p, "a removed file");
    p.write(
        "app/models/pricing/tier.rb",
        "module Pricing\n  class Tier\n    def discount(total)\n      total > 100 ? 10 : 0\n    end\n  end\nend\n",
    );
    assert_follows(&p, "a new folder");
    std::fs::rename(
        p.root().join("app/models/pricing"),
        p.root().join("app/models/tiers"),
    )
    .unwrap();
    assert_follows(&p, "a renamed folder");

    // Ignore rules edited in place (no folder changes): the root's, a nested one, the
    // repository's exclude file.
    let ignored = |p: &Project, rule_file: &str, rule: &str, what: &str| {
        let before = cold_all(p);
        let path = p.root().join(rule_file);
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str(rule);
        text.push('\n');
        std::fs::write(&path, text).unwrap();
        let after = assert_follows(p, what);
        assert_ne!(after, before, "{what}: the rule changed nothing");
    };
    ignored(
        &p,
        ".gitignore",
        "app/models/coupon.rb",
        "the root's .gitignore",
    );
    p.write("app/services/.gitignore", "# generated\n");
    assert_follows(&p, "a nested .gitignore made");
    ignored(
        &p,
        "app/services/.gitignore",
        "payment_gateway.rb",
        "a nested .gitignore",
    );
    ignored(&p, ".git/info/exclude", "app/jobs/", "info/exclude");
}

#[test]
fn the_stored_git_answer_holds_only_while_what_git_reads_holds() {
    let p = app();
    // A tracked Ruby file outside the walk, alike the untracked service: deleted, it is
    // the service's old side (a rename).
    let service = p.read("app/services/refunds/partial_refund.rb");
    p.write("script/partial_refund.rb", &service);
    p.git(&["add", "script/partial_refund.rb"]);
    p.git(&["commit", "-q", "-m", "a script"]);
    // The base has it.
    p.git(&["branch", "-f", "main", "feature"]);
    age_sources(p.root());
    settle();
    let before = assert_follows(&p, "as made");

    // The index: a file staged.
    p.git(&["add", "app/services/refunds/partial_refund.rb"]);
    assert_follows(&p, "a file staged");
    p.git(&["reset", "-q"]);
    assert_follows(&p, "unstaged");

    // A tracked file outside the walk deleted: the walked files are as they were, yet
    // git now sees the service as that file, moved.
    p.remove("script/partial_refund.rb");
    let moved = assert_follows(&p, "a tracked file outside the walk deleted");
    assert_ne!(moved, before, "the deletion changed nothing");
    p.git(&["checkout", "-q", "--", "script/partial_refund.rb"]);
    assert_follows(&p, "restored");

    // A commit (the index and HEAD move), and the base moved.
    p.commit_all("the refund service");
    let committed = assert_follows(&p, "committed");
    p.git(&["branch", "-f", "main", "HEAD~3"]);
    let rebased = assert_follows(&p, "the base moved");
    assert_ne!(rebased, committed, "moving the base changed nothing");

    // The repository's config.
    p.git(&["config", "core.ignorecase", "true"]);
    assert_follows(&p, "the config changed");
}

/// The change git sees in `file`, in a full `discover --all` answer.
fn change_of(answer: &str, file: &str) -> Option<String> {
    let answer: serde_json::Value = serde_json::from_str(answer).unwrap();
    let entry = answer["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == file)
        .unwrap_or_else(|| panic!("{file} is not in the answer"))
        .clone();
    entry["change"].as_str().map(str::to_string)
}

/// One change to the tree, then a warm run: it answers what a cold run answers, and says
/// whether it patched the stored plan and asked git about one file.
fn assert_patched(p: &Project, what: &str, patched: bool) -> String {
    let cold = cold_all(p);
    let (warm, timings) = warm_all(p);
    assert_eq!(warm, cold, "{what}");
    assert_eq!(timings["patched"] == true, patched, "{what}: {timings}");
    assert_eq!(timings["git_stored"], true, "{what}: {timings}");
    assert_eq!(timings["git_asked"], 1, "{what}: {timings}");
    settle();
    assert_follows(p, what);
    cold
}

#[test]
fn an_edited_file_patches_the_stored_plan_as_planning_every_file_would() {
    let p = app();
    p.write(".gitignore", "/tmp/\n");
    p.commit_all("ignore tmp");
    p.git(&["branch", "-f", "main", "feature"]);
    age_sources(p.root());
    settle();
    assert_follows(&p, "as made");
    let payment = "app/models/payment.rb";
    let committed = p.read(payment);

    // A body edited: the file is modified now, its methods planned again.
    p.edit(
        payment,
        "class Payment",
        "class Payment\n  def refundable?\n    captured? && !refunded?\n  end\n",
    );
    let edited = assert_patched(&p, "a method added", true);
    assert_eq!(change_of(&edited, payment).as_deref(), Some("modified"));

    // Back to the base's version: unchanged again.
    p.write(payment, &committed);
    let back = assert_patched(&p, "the edit undone", true);
    assert_eq!(change_of(&back, payment), None);

    // Made executable: same content, yet git sees the file changed.
    let path = p.root().join(payment);
    let mut mode = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&path, mode.clone()).unwrap();
    let executable = assert_patched(&p, "made executable", true);
    assert_eq!(change_of(&executable, payment).as_deref(), Some("modified"));
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o644);
    std::fs::set_permissions(&path, mode).unwrap();
    assert_patched(&p, "not executable again", true);

    // A syntax error: the file is listed as unparsable, as a cold run lists it.
    p.write(
        payment,
        committed.replacen(
            "class Payment",
            "class Payment\n  def broken\n    amount +\n  end\n",
            1,
        ),
    );
    let broken = assert_patched(&p, "a syntax error", true);
    assert!(broken.contains("\"unparsable\""), "{broken}");
    p.write(payment, &committed);
    assert_patched(&p, "the syntax error mended", true);

    // A class added: every file's constants may resolve anew, so the plan is made whole.
    p.write(
        payment,
        format!("{committed}\nclass PaymentError < StandardError; end\n"),
    );
    assert_patched(&p, "a class added", false);
}

#[test]
fn where_an_attributes_file_applies_git_itself_compares_an_edited_file() {
    let p = app();
    p.write(".gitignore", "/tmp/\n");
    p.write(".gitattributes", "*.rb text\n");
    p.commit_all("attributes");
    p.git(&["branch", "-f", "main", "feature"]);
    age_sources(p.root());
    settle();
    assert_follows(&p, "as made");
    let payment = "app/models/payment.rb";
    let text = p.read(payment);
    // Line ends as another system writes them: libgit2 decides through the filter.
    p.write(payment, text.replace('\n', "\r\n"));
    assert_patched(&p, "line ends changed", true);
    p.write(
        payment,
        text.replacen("class Payment", "class Payment\n  def void!; end\n", 1),
    );
    let edited = assert_patched(&p, "an edit under the filter", true);
    assert_eq!(change_of(&edited, payment).as_deref(), Some("modified"));
    p.write(payment, &text);
    let back = assert_patched(&p, "the edit undone", true);
    assert_eq!(change_of(&back, payment), None);
}
