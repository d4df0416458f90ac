//! One function per command: typed options in, an [`Answer`] or an [`Error`] out. No
//! printing here; `main.rs` renders and exits.

use std::path::PathBuf;

use crate::config::Config;
use crate::error::Result;
use crate::index::{self, walk, IndexOptions};
use crate::report::{self, Answer};

/// `rspec-scout symbols PATH...`
pub fn symbols(config: &Config, paths: &[PathBuf]) -> Result<Answer> {
    let scope = walk::Scope::new(&config.scope)?;
    let found = walk::collect(&config.root, paths, &scope, config.threads)?;
    let options = IndexOptions {
        threads: config.threads,
        max_file_size: config.max_file_size,
    };
    let facts = index::index_files(&found.files, &options);
    let mut warnings = config.warnings.clone();
    warnings.extend(found.warnings);
    Ok(report::symbols::answer(&facts, warnings))
}
