//! The MCP server's warm index (`mcp::Server`, the tool calls without the stdio transport)
//! on a generated repository of 10,000 files whose feature branch changes 20:
//!
//! - the first call of a session (the index is cold: every file the command reads is read,
//!   git's changes are asked for the whole tree), next to the command line's
//!   `app::discover::run`, which works that way at every call;
//! - a warm call after one file changed on disk (the change is written before each
//!   iteration and not timed): `discover` of that file, `discover` in branch mode, `discover`
//!   of that file writing its metadata as the command does, `symbols` of the file and
//!   `references` of a class across the project. Target: a warm `discover` of one changed
//!   file under 20 ms.
//!
//! The repository is copied to a temporary folder (the bench edits a file), and its git
//! index refreshed (`git status`) so that git's stat cache holds for the copy. The
//! server watches folders with inotify (Linux, feature `mcp`, which this bench needs).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use rspec_scout::app::discover;
use rspec_scout::config::Config;
use rspec_scout::mcp::Server;
use serde_json::{json, Value};

use common::{ms, Recorder};

/// A copy of the generated repository, its git index refreshed.
fn copy_repo(files: usize) -> (tempfile::TempDir, PathBuf) {
    let source = common::synthetic_repo(files, 16, 4);
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("repo");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(&source)
        .arg(&root)
        .status()
        .expect("cp");
    assert!(status.success());
    // The copy has new inodes and change times: `git status` refreshes the index's stat
    // cache, as a working copy in use has it.
    let status = std::process::Command::new("git")
        .args(["status", "--short"])
        .current_dir(&root)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("git status");
    assert!(status.success());
    let root = std::fs::canonicalize(&root).expect("canonical");
    (dir, root)
}

fn config(root: &Path) -> Config {
    Config::load(root.to_path_buf(), None).expect("config")
}

fn call(server: &mut Server, tool: &str, args: Value) -> usize {
    let outcome = server.call(tool, args);
    assert!(!outcome.is_error, "{tool}: {}", outcome.text);
    outcome.text.len()
}

/// A file the branch did not change, and two versions of it (the second adds a method).
fn victim(root: &Path) -> (String, String, String) {
    let rel = "app/models/accounts/address_243.rb";
    let path = root.join(rel);
    let rel = if path.exists() {
        rel.to_string()
    } else {
        let (files, _) = common::files_of(root);
        files
            .iter()
            .find(|f| f.rel.starts_with("app/models/"))
            .expect("a model")
            .rel
            .clone()
    };
    let original = std::fs::read_to_string(root.join(&rel)).expect("read");
    let edited = original.replacen(
        "\n    private\n",
        "\n    def touched_by_bench\n      @record\n    end\n\n    private\n",
        1,
    );
    let edited = if edited == original {
        format!("{original}\n# touched\n")
    } else {
        edited
    };
    (rel, original, edited)
}

fn bench_mcp(c: &mut Criterion) {
    let (_dir, root) = copy_repo(10_000);
    std::env::set_current_dir(&root).expect("cd");
    let (file, original, edited) = victim(&root);
    let mut summary: Vec<String> = Vec::new();

    let mut group = c.benchmark_group("mcp-first-call");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(1));
    let cli_one = Recorder::default();
    group.bench_function("cli-discover-one-file", |b| {
        b.iter_custom(|iters| {
            cli_one.time(iters, || {
                let options = discover::Options {
                    paths: vec![PathBuf::from(&file)],
                    no_metadata: true,
                    ..discover::Options::default()
                };
                let answer = discover::run(&config(&root), &options).expect("discover");
                answer.render(rspec_scout::report::Format::Json).len()
            })
        });
    });
    let first = Recorder::default();
    group.bench_function("server-discover-one-file", |b| {
        b.iter_custom(|iters| {
            first.time(iters, || {
                let mut server = Server::new(config(&root)).expect("server");
                call(
                    &mut server,
                    "discover",
                    json!({"paths": [file], "no_metadata": true}),
                )
            })
        });
    });
    group.finish();
    summary.push(format!(
        "first call, discover of one file: server {} (index built), command line {}",
        ms(first.median()),
        ms(cli_one.median())
    ));

    let mut group = c.benchmark_group("mcp-warm-after-one-change");
    group
        .sample_size(20)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(8))
        .warm_up_time(Duration::from_secs(1));
    let mut server = Server::new(config(&root)).expect("server");
    call(&mut server, "discover", json!({"no_metadata": true}));
    let mut flip = false;
    let mut change = || {
        flip = !flip;
        std::fs::write(root.join(&file), if flip { &edited } else { &original }).expect("edit");
    };
    let cases: Vec<(&str, &str, Value)> = vec![
        (
            "discover-one-file",
            "discover",
            json!({"paths": [file], "no_metadata": true}),
        ),
        (
            "discover-one-file-writing-metadata",
            "discover",
            json!({"paths": [file]}),
        ),
        ("discover-branch", "discover", json!({"no_metadata": true})),
        ("symbols-one-file", "symbols", json!({"paths": [file]})),
        (
            "references-class",
            "references",
            json!({"name": "Accounts::Address243"}),
        ),
    ];
    for (name, tool, args) in cases {
        let times = std::cell::RefCell::new(Vec::new());
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    change();
                    let started = Instant::now();
                    std::hint::black_box(call(&mut server, tool, args.clone()));
                    let took = started.elapsed();
                    total += took;
                    times.borrow_mut().push(took);
                }
                total
            })
        });
        let mut times = times.into_inner();
        times.sort();
        let median = times.get(times.len() / 2).copied().unwrap_or_default();
        summary.push(format!(
            "warm {name} after one file changed: {} (median of {} calls)",
            ms(median),
            times.len()
        ));
    }
    group.finish();
    std::fs::write(root.join(&file), &original).expect("restore");
    summary.push(format!("index counters: {:?}", server.counters()));
    for line in summary {
        eprintln!("{line}");
    }
}

criterion_group!(benches, bench_mcp);
criterion_main!(benches);
