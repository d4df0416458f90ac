//! Shared bench inputs: generated codebases cached under `target/bench-corpus/`, and the
//! real codebase named by `RSPEC_SCOUT_BENCH_ROOT`.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr
)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rspec_scout::index::walk::ScopeRules;
use rspec_scout::index::walk::{self, Scope, SourceFile};
pub mod synth;

/// The binary's allocator, so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Bumped when the generator changes, so stale corpora are rebuilt.
const CORPUS_VERSION: &str = "v1";

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-corpus")
}

/// A generated tree of `files` files (no git), built once and reused.
pub fn synthetic_tree(files: usize) -> PathBuf {
    let dir = corpus_root().join(format!("tree-{files}-{CORPUS_VERSION}"));
    let marker = dir.join(".complete");
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        let generated = synth::generate(&synth::Spec::new(files));
        synth::write(&dir, &generated).expect("write corpus");
        std::fs::write(&marker, "").expect("marker");
    }
    dir
}

/// A generated repository of `files` files with a feature branch changing `changed` files
/// and adding `added` files, built once and reused.
pub fn synthetic_repo(files: usize, changed: usize, added: usize) -> PathBuf {
    let dir = corpus_root().join(format!("repo-{files}-{changed}-{added}-{CORPUS_VERSION}"));
    let marker = dir.join(".git/rspec-scout-complete");
    if !marker.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        synth::write_repo(&dir, &synth::Spec::new(files), changed, added).expect("repo");
        std::fs::write(&marker, "").expect("marker");
    }
    dir
}

/// The in-scope files of a tree and their total size in bytes.
pub fn files_of(root: &Path) -> (Vec<SourceFile>, u64) {
    let scope = Scope::new(&ScopeRules::default()).expect("scope");
    let found = walk::collect_all(root, &scope, 0);
    let bytes = found
        .files
        .iter()
        .map(|f| std::fs::metadata(&f.path).map(|m| m.len()).unwrap_or(0))
        .sum();
    (found.files, bytes)
}

/// The real codebase to bench, if `RSPEC_SCOUT_BENCH_ROOT` names one.
pub fn real_root() -> Option<PathBuf> {
    let root = PathBuf::from(std::env::var_os("RSPEC_SCOUT_BENCH_ROOT")?);
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!(
            "RSPEC_SCOUT_BENCH_ROOT={} is not a folder; skipped",
            root.display()
        );
        None
    }
}

/// Per-iteration times recorded alongside criterion's own statistics, so a bench can print
/// a ratio between two of its measurements (criterion keeps its estimates to itself).
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<Duration>>>);

impl Recorder {
    /// Times `iters` runs of `f` (for `Bencher::iter_custom`), recording the mean.
    pub fn time<T>(&self, iters: u64, mut f: impl FnMut() -> T) -> Duration {
        let start = Instant::now();
        for _ in 0..iters {
            std::hint::black_box(f());
        }
        let elapsed = start.elapsed();
        if iters > 0 {
            self.0
                .lock()
                .unwrap()
                .push(elapsed / u32::try_from(iters).unwrap_or(u32::MAX));
        }
        elapsed
    }

    /// The median of the recorded times (warm-up runs included; the median ignores them).
    pub fn median(&self) -> Duration {
        let mut times = self.0.lock().unwrap().clone();
        times.sort();
        times.get(times.len() / 2).copied().unwrap_or_default()
    }
}

/// Bytes this process has read through `read(2)` so far (Linux `/proc/self/io` `rchar`,
/// page cache included), or `None` elsewhere.
pub fn bytes_read() -> Option<u64> {
    let io = std::fs::read_to_string("/proc/self/io").ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("rchar:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Milliseconds with one decimal, for the printed summaries.
pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}
