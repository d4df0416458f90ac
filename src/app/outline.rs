//! `rspec-scout outline SPEC`: the describe/context/it outline of an existing spec, per
//! method block marked with `method_begin`/`method_end` (the pipeline generator's
//! `--outline-spec`, with `it` lines that the original never printed).

use std::path::PathBuf;

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;
use crate::spec::source::SpecText;

/// Options of `outline`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The spec file.
    pub spec: PathBuf,
    /// Only these method ids.
    pub only: Vec<String>,
}

#[derive(Debug, Serialize)]
struct OutlineAnswer {
    status: &'static str,
    spec_path: String,
    outline: String,
}

/// Runs the command.
pub fn run(_config: &Config, options: &Options) -> Result<Answer> {
    let text = read(&options.spec)?;
    let outline = crate::spec::outline::outline(&text, &options.only).map_err(|e| Error::Spec {
        message: format!("Cannot outline spec: {e}"),
        path: options.spec.clone(),
    })?;
    let answer = OutlineAnswer {
        status: "success",
        spec_path: options.spec.to_string_lossy().into_owned(),
        outline: outline.clone(),
    };
    Ok(Answer::new(&answer, format!("{outline}\n"), 0))
}

/// Reads a spec file named on the command line, with the pipeline's error texts.
pub(crate) fn read(path: &std::path::Path) -> Result<SpecText> {
    let spec_error = |message: String| Error::Spec {
        message,
        path: path.to_path_buf(),
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(spec_error(format!(
                "Spec file not found: {}",
                path.display()
            )))
        }
        Err(e) => {
            return Err(Error::Unreadable {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }
    };
    SpecText::from_bytes(&bytes).map_err(spec_error)
}
