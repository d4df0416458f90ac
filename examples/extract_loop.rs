//! Runs fact extraction on one file many times (a profiling aid).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let mode = std::env::args().nth(2).unwrap_or_default();
    let src = std::fs::read(&path).unwrap();
    let t = std::time::Instant::now();
    let n: u32 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    for _ in 0..n {
        if mode == "parse" {
            let r = ruby_prism::parse(&src);
            std::hint::black_box(r.node());
        } else {
            std::hint::black_box(rspec_scout::index::extract("x.rb", &src));
        }
    }
    println!("{:?} per run", t.elapsed() / n);
}
