//! Integration tests: one binary (as ripgrep does), one module per command.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod util;
// The generator of Rails-shaped codebases the benchmarks use (dev tooling, not the library).
#[path = "../benches/common/synth.rs"]
mod synth;

mod analyze;
mod answers;
mod cache;
mod discover;
mod example;
mod factories;
mod hand_written;
mod init;
mod layouts;
// Needs the server, which the `mcp` feature builds (`scripts/test` enables every feature).
#[cfg(feature = "mcp")]
mod mcp;
mod messages;
mod outline;
mod robustness;
mod safety;
mod skeleton;
mod slugs;
mod status;
mod strip_markers;
mod symbols;
mod test_config;
mod validate;
