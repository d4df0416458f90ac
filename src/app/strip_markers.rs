//! `rspec-scout strip-markers SPEC`: removes the `# rspec-testing:` marker lines from a
//! finished spec and prints `OK` (the pipeline's `strip_rspec_testing_markers`). Nothing
//! else in the file changes; a file without markers is not rewritten.

use std::path::PathBuf;

use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::report::Answer;

/// Options of `strip-markers`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The spec file.
    pub spec: PathBuf,
}

#[derive(Debug, Serialize)]
struct StripAnswer {
    status: &'static str,
    spec_path: String,
    removed_lines: usize,
}

/// Runs the command.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    // Cleared before it is read: a spec file inside the root (links resolved), never a
    // Gemfile, production code or anything under .git.
    let target = crate::guard::spec_file(&config.root, &options.spec, &config.spec_dir)?;
    let text = super::outline::read(&options.spec)?;
    let (stripped, removed) = crate::spec::strip::strip(&text);
    if removed > 0 {
        crate::metadata::write_text_atomic(&target, &stripped.to_bytes())?;
    }
    let answer = StripAnswer {
        status: "success",
        spec_path: options.spec.to_string_lossy().into_owned(),
        removed_lines: removed,
    };
    Ok(Answer::new(&answer, "OK\n".to_string(), 0))
}
