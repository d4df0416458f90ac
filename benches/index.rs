//! Index building: walk + read + parse + facts, in MB/s and files/s, on 1 and 2 threads,
//! and prism alone on the same bytes for comparison.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rspec_scout::index::{self, IndexOptions};

fn bench_index(c: &mut Criterion) {
    let mut targets: Vec<(String, std::path::PathBuf)> = [1_000usize, 10_000]
        .iter()
        .map(|&n| (format!("synthetic-{n}"), common::synthetic_tree(n)))
        .collect();
    if let Some(real) = common::real_root() {
        targets.push(("real".to_string(), real));
    }
    let mut group = c.benchmark_group("index");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .warm_up_time(Duration::from_secs(1));
    for (name, root) in &targets {
        let (files, bytes) = common::files_of(root);
        let sources: Vec<Vec<u8>> = files
            .iter()
            .map(|f| std::fs::read(&f.path).expect("read"))
            .collect();
        group.throughput(Throughput::Bytes(bytes));
        for threads in [1usize, 2] {
            let options = IndexOptions {
                threads,
                ..IndexOptions::default()
            };
            group.bench_with_input(
                BenchmarkId::new(format!("{name}/threads"), threads),
                &files,
                |b, files| {
                    b.iter(|| black_box(index::index_files(files, &options)));
                },
            );
        }
        group.bench_with_input(
            BenchmarkId::new(format!("{name}/prism-only"), 1),
            &sources,
            |b, sources| {
                b.iter(|| {
                    for s in sources {
                        let result = ruby_prism::parse(s);
                        black_box(result.node());
                    }
                });
            },
        );
        group.throughput(Throughput::Elements(files.len() as u64));
        group.bench_with_input(
            BenchmarkId::new(format!("{name}/files"), 2),
            &files,
            |b, files| {
                let options = IndexOptions {
                    threads: 2,
                    ..IndexOptions::default()
                };
                b.iter(|| black_box(index::index_files(files, &options)));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench_index);
criterion_main!(benches);
