//! `discover` end to end through the library (`app::discover::run`, then the answer rendered
//! as YAML, as the binary prints it; no metadata written):
//!
//! - `--all` on generated repositories of 10k and 50k files, on 1 and 2 threads, next to
//!   prism alone reading and parsing the same files on the same threads (a rayon pool, as
//!   discover uses). The ratio discover / prism is printed after the group (target: at most
//!   1.25x), with the gain of the second thread (target: at least 1.7x) and the time per
//!   file at each size (linear growth), and the peak memory of the binary's own run at
//!   each size (target: under 300 MB at 50k).
//! - branch mode with 20 changed files (16 edited, 4 added) in repositories of 5k and 50k
//!   files (target: under 300 ms at 50k). The bytes read by the run are printed: branch mode
//!   must not read unchanged files.
//! - the real codebase named by `RSPEC_SCOUT_BENCH_ROOT`, when set.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

mod common;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use rayon::prelude::*;
use rspec_scout::app::discover::{self, Options};
use rspec_scout::config::Config;
use rspec_scout::index::{self, SourceFile};
use rspec_scout::report::Format;

use common::{ms, Recorder};

fn config(root: &Path, threads: usize) -> Config {
    let mut config = Config::load(root.to_path_buf(), None).expect("config");
    config.threads = threads;
    config
}

/// Counts the bytes written to it.
struct Count(usize);

impl std::io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One discovery, its answer written as YAML as the binary prints it (to a byte counter:
/// the 50k-file answer is hundreds of MB); returns the answer's size.
fn discover_once(config: &Config, all: bool) -> usize {
    let answer = discover::run(config, &options(all)).expect("discover");
    let mut out = Count(0);
    answer.write(Format::Yaml, &mut out).expect("write");
    out.0
}

fn options(all: bool) -> Options {
    Options {
        all,
        no_metadata: true,
        ..Options::default()
    }
}

/// How many files a discovery planned (`summary.total_files` of its answer).
fn files_planned(config: &Config, all: bool) -> u64 {
    let answer = discover::run(config, &options(all)).expect("discover");
    let value: serde_yaml::Value =
        serde_yaml::from_str(&answer.render(Format::Yaml)).expect("yaml answer");
    value
        .get("summary")
        .and_then(|s| s.get("total_files"))
        .and_then(serde_yaml::Value::as_u64)
        .unwrap_or(0)
}

/// Prism alone on the same files: read each file and parse it, on `threads` workers.
fn prism_alone(files: &[SourceFile], threads: usize) -> usize {
    index::in_pool(threads, || {
        files
            .par_iter()
            .map(|f| {
                let bytes = std::fs::read(&f.path).expect("read");
                let result = ruby_prism::parse(&bytes);
                black_box(result.node());
                bytes.len()
            })
            .sum()
    })
}

fn targets(sizes: &[usize]) -> Vec<(String, PathBuf)> {
    let mut targets: Vec<(String, PathBuf)> = sizes
        .iter()
        .map(|&n| (format!("synthetic-{n}"), common::synthetic_repo(n, 16, 4)))
        .collect();
    if let Some(real) = common::real_root() {
        targets.push(("real".to_string(), real));
    }
    targets
}

fn bench_all(c: &mut Criterion) {
    let mut group = c.benchmark_group("discover-all");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(1));
    let mut per_file: Vec<(String, usize, Duration)> = Vec::new();
    let mut summary: Vec<String> = Vec::new();
    for (name, root) in targets(&[10_000, 50_000]) {
        let (files, bytes) = common::files_of(&root);
        group.throughput(Throughput::Bytes(bytes));
        let mut medians = Vec::new();
        for threads in [1usize, 2] {
            let config = config(&root, threads);
            let ours = Recorder::default();
            group.bench_function(BenchmarkId::new(format!("{name}/threads"), threads), |b| {
                b.iter_custom(|iters| ours.time(iters, || discover_once(&config, true)));
            });
            let prism = Recorder::default();
            group.bench_function(
                BenchmarkId::new(format!("{name}/prism-read-parse/threads"), threads),
                |b| b.iter_custom(|iters| prism.time(iters, || prism_alone(&files, threads))),
            );
            let (d, p) = (ours.median(), prism.median());
            // A filtered run (`cargo bench -- NAME`) leaves some unmeasured.
            if d.is_zero() || p.is_zero() {
                continue;
            }
            summary.push(format!(
                "discover --all {name} ({} files, {:.1} MiB), {threads} thread(s): discover {} / prism {} = {:.2}x (target <= 1.25x)",
                files.len(),
                bytes as f64 / (1024.0 * 1024.0),
                ms(d),
                ms(p),
                d.as_secs_f64() / p.as_secs_f64()
            ));
            medians.push(d);
        }
        if let [one, two] = medians[..] {
            summary.push(format!(
                "discover --all {name}: 2 threads are {:.2}x 1 thread (target >= 1.7x)",
                one.as_secs_f64() / two.as_secs_f64()
            ));
            per_file.push((name.clone(), files.len(), two));
        }
    }
    group.finish();
    for (name, n, d) in &per_file {
        summary.push(format!(
            "discover --all {name}: {:.1} us per file on 2 threads",
            d.as_secs_f64() * 1e6 / *n as f64
        ));
    }
    for (name, root) in targets(&[10_000, 50_000]) {
        summary.push(peak_memory(&name, &root));
    }
    for line in summary {
        eprintln!("{line}");
    }
}

/// Peak memory of the binary's `discover --all --no-metadata` on `root`, three runs (the
/// `peak_rss_kb` its `--timings` block reports; the answer goes to a file under `target/`).
fn peak_memory(name: &str, root: &Path) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let bin = env!("CARGO_BIN_EXE_rspec-scout");
    let out_path = root.with_extension("answer.yaml");
    let mut peaks: Vec<u64> = Vec::new();
    for _ in 0..3 {
        let out = std::fs::File::create(&out_path).expect("answer file");
        let status = std::process::Command::new(bin)
            .args([
                "discover",
                "--all",
                "--no-metadata",
                "--answer",
                "full",
                "--timings",
                "--root",
            ])
            .arg(root)
            .stdout(out)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("run rspec-scout");
        // 2: `status: partial` (a file that does not parse, as real trees have): still
        // the whole plan.
        assert!(
            matches!(status.code(), Some(0 | 2)),
            "discover --all failed on {name}"
        );
        let mut file = std::fs::File::open(&out_path).expect("answer");
        let len = file.metadata().expect("answer size").len();
        file.seek(SeekFrom::Start(len.saturating_sub(512)))
            .expect("seek");
        let mut tail = String::new();
        file.read_to_string(&mut tail).expect("answer tail");
        let peak = tail
            .lines()
            .find_map(|l| l.trim().strip_prefix("peak_rss_kb: "))
            .and_then(|v| v.parse().ok())
            .expect("peak_rss_kb in the answer");
        peaks.push(peak);
    }
    let _ = std::fs::remove_file(&out_path);
    peaks.sort_unstable();
    format!(
        "discover --all {name}, whole process: peak memory {} MB (three runs: {}) (target < 300 MB at 50k)",
        peaks.get(1).copied().unwrap_or(0) / 1024,
        peaks
            .iter()
            .map(|p| format!("{} MB", p / 1024))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn bench_branch(c: &mut Criterion) {
    let mut group = c.benchmark_group("discover-branch");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    let mut summary = Vec::new();
    for (name, root) in targets(&[5_000, 50_000]) {
        let config = config(&root, 0);
        // One run outside the measurement: what it planned and what it read.
        let before = common::bytes_read();
        let Ok(planned) = std::panic::catch_unwind(|| files_planned(&config, false)) else {
            eprintln!("discover (branch mode) {name}: failed; not benched");
            continue;
        };
        let read = common::bytes_read()
            .zip(before)
            .map(|(after, before)| after - before);
        let (_, corpus_bytes) = common::files_of(&root);
        let ours = Recorder::default();
        group.bench_function(BenchmarkId::new(name.clone(), "branch"), |b| {
            b.iter_custom(|iters| ours.time(iters, || discover_once(&config, false)));
        });
        summary.push(format!(
            "discover (branch mode) {name}: {} ({} files planned; read {} KiB of a {} KiB tree) (target < 300 ms at 50k)",
            ms(ours.median()),
            planned,
            read.map_or_else(|| "?".to_string(), |r| (r / 1024).to_string()),
            corpus_bytes / 1024
        ));
    }
    group.finish();
    for line in summary {
        eprintln!("{line}");
    }
}

/// `discover --all` with the facts cache (`tmp/rspec_scout/facts.bin`), the stored plan
/// (`plan.bin`) and the stored walk (`walk.bin`): made from nothing (each run starts
/// without any of them: the cold run's cost with their writes), warm (nothing changed
/// since the last run: the stored walk, git's stored answer and the stored plan answer)
/// and warm without the stored plan (every file's facts decoded and planned, git asked),
/// with prism's read + parse of the same files as the yardstick. The files are removed at
/// the end.
fn bench_warm(c: &mut Criterion) {
    let mut group = c.benchmark_group("discover-all-cache");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_secs(1));
    let mut summary = Vec::new();
    for (name, root) in targets(&[10_000, 50_000]) {
        let (files, bytes) = common::files_of(&root);
        group.throughput(Throughput::Bytes(bytes));
        let config = config(&root, 2);
        let cached = Options {
            facts_cache: true,
            ..options(true)
        };
        let cache_file = root.join("tmp/rspec_scout/facts.bin");
        let plan_file = root.join("tmp/rspec_scout/plan.bin");
        let walk_file = root.join("tmp/rspec_scout/walk.bin");
        let run = |options: &Options| {
            let answer = discover::run(&config, options).expect("discover");
            let mut out = Count(0);
            answer.write(Format::Yaml, &mut out).expect("write");
            out.0
        };
        let cold = Recorder::default();
        group.bench_function(BenchmarkId::new(name.clone(), "cold-with-cache"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let _ = std::fs::remove_file(&cache_file);
                    let _ = std::fs::remove_file(&plan_file);
                    let _ = std::fs::remove_file(&walk_file);
                    total += cold.time(1, || run(&cached));
                }
                total
            })
        });
        // Files and folders older than the racy window: made once more, then answered from
        // marks and stamps.
        std::thread::sleep(Duration::from_millis(2100));
        run(&cached);
        std::thread::sleep(Duration::from_millis(2100));
        run(&cached);
        let warm = Recorder::default();
        group.bench_function(BenchmarkId::new(name.clone(), "warm"), |b| {
            b.iter_custom(|iters| warm.time(iters, || run(&cached)))
        });
        // Warm facts without the stored plan: every file's facts decoded and planned.
        let facts_only = Recorder::default();
        group.bench_function(BenchmarkId::new(name.clone(), "warm-facts-only"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let _ = std::fs::remove_file(&plan_file);
                    total += facts_only.time(1, || run(&cached));
                }
                total
            })
        });
        // One file edited before each run: the stored plan patched for it. The file is
        // put back as it was afterwards (the generated trees are shared by the benches).
        let edited = files.first().map(|f| f.path.clone());
        let original = edited.as_ref().and_then(|f| std::fs::read(f).ok());
        let one_file = Recorder::default();
        if let (Some(path), Some(original)) = (&edited, &original) {
            run(&cached);
            let mut n = 0u64;
            group.bench_function(
                BenchmarkId::new(name.clone(), "warm-one-file-edited"),
                |b| {
                    b.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            n += 1;
                            let mut text = original.clone();
                            text.extend_from_slice(format!("# edit {n}\n").as_bytes());
                            std::fs::write(path, &text).expect("edit");
                            total += one_file.time(1, || run(&cached));
                        }
                        total
                    })
                },
            );
            std::fs::write(path, original).expect("restore");
        }
        let prism = Recorder::default();
        group.bench_function(BenchmarkId::new(name.clone(), "prism-read-parse"), |b| {
            b.iter_custom(|iters| prism.time(iters, || prism_alone(&files, 2)))
        });
        let _ = std::fs::remove_file(&cache_file);
        let _ = std::fs::remove_file(&plan_file);
        let _ = std::fs::remove_file(&walk_file);
        let (c, w, f, o, p) = (
            cold.median(),
            warm.median(),
            facts_only.median(),
            one_file.median(),
            prism.median(),
        );
        if c.is_zero() || w.is_zero() || f.is_zero() || p.is_zero() {
            continue;
        }
        let x = |d: Duration| d.as_secs_f64() / p.as_secs_f64();
        summary.push(format!(
            "discover --all {name}, 2 threads: cold with cache {} ({:.2}x prism), warm {} ({:.2}x prism; target <= 0.3x), one file edited {} ({:.2}x prism; target <= 0.4x), warm without the stored plan {} ({:.2}x), prism {}",
            ms(c),
            x(c),
            ms(w),
            x(w),
            ms(o),
            x(o),
            ms(f),
            x(f),
            ms(p)
        ));
    }
    group.finish();
    for line in summary {
        eprintln!("{line}");
    }
}

criterion_group!(benches, bench_all, bench_branch, bench_warm);
criterion_main!(benches);
