//! `rspec-scout status` (not implemented yet).

use std::path::PathBuf;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;

/// Options of `status`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Source files or folders (default: every metadata file under the root).
    pub paths: Vec<PathBuf>,
}

/// Runs the command.
pub fn run(_config: &Config, _options: &Options) -> Result<Answer> {
    Err(Error::Usage {
        message: "`status` is not implemented yet".to_string(),
    })
}
