//! Times the phases of indexing one tree on one thread (a profiling aid).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]
use std::time::Instant;

use rspec_scout::index::walk::ScopeRules;
use rspec_scout::index::{self, walk};

fn main() {
    let root = std::path::PathBuf::from(std::env::args().nth(1).expect("root"));
    let scope = walk::Scope::new(&ScopeRules::default()).unwrap();
    let t = Instant::now();
    let found = walk::collect_all(&root, &scope, 1);
    println!("walk: {:?} ({} files)", t.elapsed(), found.files.len());
    let t = Instant::now();
    let sources: Vec<Vec<u8>> = found
        .files
        .iter()
        .map(|f| index::read_source(&f.path, u64::MAX).unwrap())
        .collect();
    println!(
        "read: {:?} ({} bytes)",
        t.elapsed(),
        sources.iter().map(Vec::len).sum::<usize>()
    );
    let t = Instant::now();
    for s in &sources {
        let r = ruby_prism::parse(s);
        std::hint::black_box(r.node());
    }
    println!("prism parse: {:?}", t.elapsed());
    let t = Instant::now();
    for (s, f) in sources.iter().zip(&found.files) {
        std::hint::black_box(index::extract(&f.rel, s));
    }
    println!("extract, dropped at once: {:?}", t.elapsed());
    let t = Instant::now();
    let facts: Vec<_> = sources
        .iter()
        .zip(&found.files)
        .map(|(s, f)| index::extract(&f.rel, s))
        .collect();
    println!("extract (parse+facts): {:?}", t.elapsed());
    let t = Instant::now();
    drop(facts);
    println!("drop facts: {:?}", t.elapsed());
}
