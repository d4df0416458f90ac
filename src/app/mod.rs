//! One module per command: typed options in, an [`crate::report::Answer`] or an
//! [`crate::Error`] out. No printing here; `main.rs` renders and exits.

pub mod analyze;
pub mod discover;
pub mod outline;
pub mod prune;
pub mod skeleton;
pub mod skeleton_batch;
pub mod status;
pub mod strip_markers;
pub mod symbols;
pub mod test_config;
pub mod validate;
