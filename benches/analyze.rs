//! `analyze` through the library (`app::analyze::run` with `--force`: parse with bodies,
//! analyze every public method, write the metadata file atomically, render the answer):
//!
//! - one generated file of about 100 and about 300 lines (the "typical file");
//! - the files a feature branch changed in the generated 5k-file repository (20 files) and
//!   80 files, so growth is visible;
//! - the whole process for the 300-line file: the release binary started, analyzing and
//!   exiting (target: under 20 ms wall, process start included);
//! - the real codebase named by `RSPEC_SCOUT_BENCH_ROOT`, when set: its 20 largest files.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rspec_scout::app::analyze::{self, Options};
use rspec_scout::config::Config;

use common::{ms, Recorder};

/// Copies `files` (relative to `from`) into a fresh project folder; returns the folder and
/// the copied paths.
fn project(from: &Path, files: &[PathBuf]) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let copied = files
        .iter()
        .map(|rel| {
            let to = dir.path().join(rel);
            std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
            std::fs::copy(from.join(rel), &to).expect("copy");
            to
        })
        .collect();
    (dir, copied)
}

fn analyze_once(config: &Config, files: &[PathBuf]) -> usize {
    let options = Options {
        files: files.to_vec(),
        force: true,
        ..Options::default()
    };
    let answer = analyze::run(config, &options).expect("analyze");
    assert_eq!(
        answer.exit_code,
        0,
        "{}",
        answer.render(rspec_scout::report::Format::Yaml)
    );
    answer.render(rspec_scout::report::Format::Yaml).len()
}

/// The generated files, relative to `root`, with their line counts.
fn ruby_files(root: &Path) -> Vec<(PathBuf, usize)> {
    let (files, _) = common::files_of(root);
    let mut out: Vec<(PathBuf, usize)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f.path).unwrap_or_default();
            let rel = f.path.strip_prefix(root).expect("under root").to_path_buf();
            (rel, text.lines().count())
        })
        .collect();
    out.sort();
    out
}

/// The file whose line count is closest to `lines`.
fn closest(files: &[(PathBuf, usize)], lines: usize) -> (PathBuf, usize) {
    files
        .iter()
        .min_by_key(|(p, n)| (n.abs_diff(lines), p.clone()))
        .cloned()
        .expect("a file")
}

/// The files the feature branch changed (from the repository's own diff).
fn changed_files(root: &Path) -> Vec<PathBuf> {
    let repo = git2::Repository::open(root).expect("repo");
    let main = repo
        .revparse_single("main")
        .and_then(|o| o.peel_to_tree())
        .expect("main");
    let head = repo.head().and_then(|h| h.peel_to_tree()).expect("head");
    let diff = repo
        .diff_tree_to_tree(Some(&main), Some(&head), None)
        .expect("diff");
    let mut out: Vec<PathBuf> = diff
        .deltas()
        .filter_map(|d| d.new_file().path().map(Path::to_path_buf))
        .filter(|p| p.extension().is_some_and(|e| e == "rb"))
        .collect();
    out.sort();
    out
}

fn bench_analyze(c: &mut Criterion) {
    let repo = common::synthetic_repo(5_000, 16, 4);
    let all = ruby_files(&repo);
    let mut summary = Vec::new();

    let mut group = c.benchmark_group("analyze");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));

    let mut typical = None;
    for lines in [100usize, 300] {
        let (file, n) = closest(&all, lines);
        let (dir, copied) = project(&repo, std::slice::from_ref(&file));
        let config = Config::load(dir.path().to_path_buf(), None).expect("config");
        let times = Recorder::default();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("one-file/lines", n), |b| {
            b.iter_custom(|iters| times.time(iters, || analyze_once(&config, &copied)));
        });
        summary.push(format!(
            "analyze one file of {n} lines ({}): {}",
            file.display(),
            ms(times.median())
        ));
        if lines == 300 {
            typical = Some((dir, copied));
        }
    }

    let changed = changed_files(&repo);
    let mut sets = vec![("changed", changed.clone())];
    let mut more = changed;
    more.extend(all.iter().map(|(p, _)| p.clone()).take(60));
    more.sort();
    more.dedup();
    sets.push(("changed+60", more));
    if let Some(real) = common::real_root() {
        let mut largest = ruby_files(&real);
        largest.sort_by_key(|(p, n)| (std::cmp::Reverse(*n), p.clone()));
        let largest: Vec<PathBuf> = largest.into_iter().take(20).map(|(p, _)| p).collect();
        let (dir, copied) = project(&real, &largest);
        let config = Config::load(dir.path().to_path_buf(), None).expect("config");
        let times = Recorder::default();
        group.bench_function(BenchmarkId::new("real-largest", largest.len()), |b| {
            b.iter_custom(|iters| times.time(iters, || analyze_once(&config, &copied)));
        });
        summary.push(format!(
            "analyze the 20 largest files of {}: {}",
            real.display(),
            ms(times.median())
        ));
        drop(dir);
    }
    for (name, files) in sets {
        let (dir, copied) = project(&repo, &files);
        let config = Config::load(dir.path().to_path_buf(), None).expect("config");
        let times = Recorder::default();
        group.throughput(Throughput::Elements(files.len() as u64));
        group.bench_function(BenchmarkId::new(name, files.len()), |b| {
            b.iter_custom(|iters| times.time(iters, || analyze_once(&config, &copied)));
        });
        summary.push(format!(
            "analyze {} files ({name}): {}",
            files.len(),
            ms(times.median())
        ));
    }

    // The whole process, as an agent harness calls it.
    if let Some((dir, copied)) = typical {
        let bin = env!("CARGO_BIN_EXE_rspec-scout");
        let file = copied.first().expect("file").clone();
        let times = Recorder::default();
        group.throughput(Throughput::Elements(1));
        group.bench_function("process/one-file-300-lines", |b| {
            b.iter_custom(|iters| {
                times.time(iters, || {
                    let status = Command::new(bin)
                        .args(["analyze", "--force", "--quiet"])
                        .arg(&file)
                        .current_dir(dir.path())
                        .stdout(std::process::Stdio::null())
                        .status()
                        .expect("run");
                    assert!(status.success());
                })
            });
        });
        summary.push(format!(
            "rspec-scout analyze --force (process, 300-line file): {} (target < 20 ms)",
            ms(times.median())
        ));
    }
    group.finish();
    for line in summary {
        eprintln!("{line}");
    }
}

criterion_group!(benches, bench_analyze);
criterion_main!(benches);
