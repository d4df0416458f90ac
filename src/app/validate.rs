//! `rspec-scout validate` (not implemented yet).

use std::path::PathBuf;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;

/// Options of `validate`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Metadata files (or YAML files with `yaml`).
    pub files: Vec<PathBuf>,
    /// `discovery-agent`, `code-analyzer` or `spec-writer`.
    pub stage: Option<String>,
    /// Only check that each input loads (validate_yaml.rb).
    pub yaml: bool,
    /// With `yaml`: read standard input too.
    pub stdin: bool,
    /// Add the checks the original validator never made, as errors.
    pub strict: bool,
}

/// Runs the command.
pub fn run(_config: &Config, _options: &Options) -> Result<Answer> {
    Err(Error::Usage {
        message: "`validate` is not implemented yet".to_string(),
    })
}
