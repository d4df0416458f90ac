//! `rspec-scout outline` (not implemented yet).

use std::path::PathBuf;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;

/// Options of `outline`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The spec file.
    pub spec: PathBuf,
    /// Only these method ids.
    pub only: Vec<String>,
}

/// Runs the command.
pub fn run(_config: &Config, _options: &Options) -> Result<Answer> {
    Err(Error::Usage {
        message: "`outline` is not implemented yet".to_string(),
    })
}
