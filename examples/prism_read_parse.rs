//! Prism alone on a tree, as a whole process: walks it as discover does, then reads and
//! parses every Ruby file on a pool of `THREADS` workers (default: one per core), the
//! yardstick `discover --all` is compared with (README, Benchmarks).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]
use rayon::prelude::*;
use rspec_scout::index::walk::{self, ScopeRules};
use rspec_scout::index::{self, in_pool};

fn main() {
    let root = std::path::PathBuf::from(std::env::args().nth(1).expect("root"));
    let threads: usize = std::env::var("THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let scope = walk::Scope::new(&ScopeRules::default()).unwrap();
    let start = std::time::Instant::now();
    let found = walk::collect_all(&root, &scope, threads);
    let walked = start.elapsed();
    let bytes: usize = in_pool(threads, || {
        found
            .files
            .par_iter()
            .map(|f| {
                let source = index::read_source(&f.path, index::DEFAULT_MAX_FILE_SIZE).unwrap();
                let result = ruby_prism::parse(&source);
                std::hint::black_box(result.node());
                source.len()
            })
            .sum()
    });
    let parsed = start.elapsed() - walked;
    // The phases as `discover --timings` names them: its `parse_ms` + `graph_ms` (the
    // engine) is compared with this read + parse.
    println!(
        "{} files, {bytes} bytes; walk {} ms, read + parse {} ms",
        found.files.len(),
        walked.as_millis(),
        parsed.as_millis()
    );
}
