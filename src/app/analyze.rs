//! `rspec-scout analyze` (not implemented yet).

use std::path::PathBuf;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;

/// Options of `analyze`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Source files to analyze.
    pub files: Vec<PathBuf>,
    /// Analyze every source file that has discovery metadata under the root.
    pub from_metadata: bool,
    /// Re-analyze even when the cached analysis is valid.
    pub force: bool,
    /// Add the time of each phase to the answer.
    pub timings: bool,
}

/// Runs the command.
pub fn run(_config: &Config, _options: &Options) -> Result<Answer> {
    Err(Error::Usage {
        message: "`analyze` is not implemented yet".to_string(),
    })
}
