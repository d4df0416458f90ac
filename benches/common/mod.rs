//! Shared bench inputs: generated codebases cached under `target/bench-corpus/`, and the
//! real codebase named by `RSPEC_SCOUT_BENCH_ROOT`.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr
)]

use std::path::{Path, PathBuf};

use rspec_scout::config::ScopeRules;
use rspec_scout::index::walk::{self, Scope, SourceFile};
use rspec_scout::synth;

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
