//! `rspec-scout test-config` (not implemented yet).

use std::path::PathBuf;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;

/// Options of `test-config`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The metadata file (or a source file, whose metadata is located).
    pub metadata: PathBuf,
    /// `rails|web|service|library`, overriding the config.
    pub project_type: Option<String>,
    /// The answer to a `needs_decision`: `unit|integration|request`.
    pub low_confidence: Option<String>,
}

/// Runs the command.
pub fn run(_config: &Config, _options: &Options) -> Result<Answer> {
    Err(Error::Usage {
        message: "`test-config` is not implemented yet".to_string(),
    })
}
