//! Build script: a fingerprint of the code that decides an analysis (`src/analyze/`,
//! `src/index/`, `src/rails/`: routes, schema types, callbacks and factories shape it too),
//! so metadata analyzed by another build of rspec-scout is not taken from the cache as if
//! this build had written it; and one of the index's code and `Cargo.lock` for the facts
//! cache (`src/index/cache/`).

use std::path::Path;

fn main() {
    let mut files = Vec::new();
    for dir in ["src/analyze", "src/index", "src/rails"] {
        println!("cargo:rerun-if-changed={dir}");
        collect(Path::new(dir), &mut files);
    }
    files.sort();
    // FNV-1a over each file's path and bytes: stable across toolchains, unlike std's
    // hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_default();
        for b in path.to_string_lossy().bytes().chain([0]).chain(bytes) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=RSPEC_SCOUT_ANALYSIS_HASH={hash:016x}");

    // The facts cache's fingerprint: the index's code and every dependency's version
    // (prism's trees, FxHash's method digests), so another build's cache is not read.
    let mut facts = Vec::new();
    collect(Path::new("src/index"), &mut facts);
    facts.sort();
    facts.push("Cargo.lock".into());
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!(
        "cargo:rustc-env=RSPEC_SCOUT_FACTS_HASH={:016x}",
        fnv(&facts)
    );

    // The stored plan's fingerprint (`src/discover/stored.rs`): every source file, as
    // planning reads the index, git's answers, naming and the vocabulary, so a plan made by
    // another build is never answered as this build's.
    let mut all = Vec::new();
    println!("cargo:rerun-if-changed=src");
    collect(Path::new("src"), &mut all);
    all.sort();
    all.push("Cargo.lock".into());
    println!("cargo:rustc-env=RSPEC_SCOUT_PLAN_HASH={:016x}", fnv(&all));
}

/// FNV-1a over each file's path and bytes.
fn fnv(files: &[std::path::PathBuf]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for path in files {
        let bytes = std::fs::read(path).unwrap_or_default();
        for b in path.to_string_lossy().bytes().chain([0]).chain(bytes) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
