//! The wave computation (`discover::waves::compute`) on generated dependency graphs of 10k
//! and 100k methods: classes of 8 methods each, every method depending on up to 4 classes
//! chosen among the 40 classes before it (a deep graph) and one edge in 200 pointing to one
//! of the next 3 classes (which makes small cycles), as a Rails app's models, services and
//! controllers do.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use rspec_scout::discover::waves::{self, Item};

/// A deterministic xorshift generator (no `rand` dependency for a bench input).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn graph(methods: usize) -> Vec<Item> {
    let classes = methods.div_ceil(8);
    let name = |c: usize| format!("App::Domain{}::Class{c}", c % 97);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    (0..methods)
        .map(|m| {
            let class = m / 8;
            let count = rng.below(5);
            let deps = (0..count)
                .map(|_| {
                    let target = if class == 0 || rng.below(200) == 0 {
                        // A reference to a close later class: small cycles, as two models
                        // that know each other make.
                        (class + 1 + rng.below(3)).min(classes - 1)
                    } else {
                        // Mostly nearby, earlier classes: long chains, as layers form them.
                        class - 1 - rng.below(class.min(40))
                    };
                    name(target)
                })
                .filter(|d| *d != name(class))
                .collect();
            Item {
                class: name(class),
                deps,
            }
        })
        .collect()
}

fn bench_waves(c: &mut Criterion) {
    let mut group = c.benchmark_group("waves");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    for methods in [10_000usize, 100_000] {
        let items = graph(methods);
        let edges: usize = items.iter().map(|i| i.deps.len()).sum();
        let result = waves::compute(&items);
        eprintln!(
            "waves {methods} methods, {edges} dependencies: {} waves, {} cycles",
            result.wave.iter().max().map_or(0, |w| w + 1),
            result.cycles.len()
        );
        group.throughput(Throughput::Elements(methods as u64));
        group.bench_with_input(BenchmarkId::new("methods", methods), &items, |b, items| {
            b.iter(|| black_box(waves::compute(items)));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_waves);
criterion_main!(benches);
