//! Build script: a fingerprint of the code that decides an analysis (`src/analyze/`,
//! `src/index/`, `src/rails/`: routes, schema types, callbacks and factories shape it too),
//! so metadata analyzed by another build of rspec-scout is not taken from the cache as if
//! this build had written it.

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
