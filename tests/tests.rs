//! Integration tests: one binary (as ripgrep does), one module per command.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod util;

mod analyze;
mod discover;
mod outline;
mod robustness;
mod skeleton;
mod status;
mod strip_markers;
mod symbols;
mod test_config;
mod validate;
