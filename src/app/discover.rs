//! `rspec-scout discover` (not implemented yet).

use std::path::PathBuf;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;

/// Options of `discover`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Files or folders for single mode (empty: branch, staged or all mode).
    pub paths: Vec<PathBuf>,
    /// Every in-scope file; every method selected.
    pub all: bool,
    /// The index against HEAD.
    pub staged: bool,
    /// The base ref for branch mode.
    pub base: Option<String>,
    /// Keep only methods whose id matches one of these globs.
    pub only: Vec<String>,
    /// Deselect methods whose id matches one of these globs.
    pub exclude: Vec<String>,
    /// Proceed past red-zone files whose methods are all new.
    pub allow_red: bool,
    /// Write no metadata.
    pub no_metadata: bool,
    /// Also write `discovery_debug/{slug}.yml`.
    pub debug: bool,
    /// Add the time of each phase to the answer.
    pub timings: bool,
    /// Progress reporting.
    pub progress: crate::report::Progress,
}

/// Runs the command.
pub fn run(_config: &Config, _options: &Options) -> Result<Answer> {
    Err(Error::Usage {
        message: "`discover` is not implemented yet".to_string(),
    })
}
