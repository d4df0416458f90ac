//! `rspec-scout symbols PATH...`: the classes, modules and methods of Ruby files.

use std::path::PathBuf;

use crate::config::Config;
use crate::error::Result;
use crate::index::{self, walk, IndexOptions};
use crate::report::{self, Answer};

/// Indexes the files named by `paths` (folders are walked) and lists their symbols.
pub fn run(config: &Config, paths: &[PathBuf]) -> Result<Answer> {
    let scope = config.scope()?;
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
