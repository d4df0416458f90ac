//! `rspec-scout skeleton` (not implemented yet).

use std::path::PathBuf;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;

/// Options of `skeleton`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The metadata file (or a source file, whose metadata is located).
    pub metadata: PathBuf,
    /// `full`, `blocks` or `outline`; with `--stdout` only (default `blocks` there).
    pub mode: Option<String>,
    /// Print the generated structure instead of writing the spec file.
    pub stdout: bool,
    /// Spec path overriding the metadata's `spec_path`.
    pub spec: Option<PathBuf>,
    /// `rails|web|service|library`, overriding the config.
    pub project_type: Option<String>,
    /// `request|controller|ask`, overriding `rails.controllers.spec_policy`.
    pub controllers_policy: Option<String>,
    /// `request|controller`: the answer to a controller spec policy decision.
    pub controllers_choice: Option<String>,
    /// `keep|delete`: what to do with a legacy controller spec.
    pub controllers_legacy: Option<String>,
    /// `ask|overwrite|skip`: default for new methods whose block already exists.
    pub on_new_conflict: Option<String>,
    /// `METHOD_ID=overwrite|skip`, per method (split at the last `=`, so setters work).
    pub new_conflict: Vec<String>,
    /// Only these method ids.
    pub only: Vec<String>,
    /// Shared-examples threshold (default 3, at least 2).
    pub shared_examples_threshold: Option<usize>,
}

/// Runs the command.
pub fn run(_config: &Config, _options: &Options) -> Result<Answer> {
    Err(Error::Usage {
        message: "`skeleton` is not implemented yet".to_string(),
    })
}
