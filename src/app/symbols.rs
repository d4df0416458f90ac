//! `rspec-scout symbols PATH...`: the classes, modules and methods of Ruby files.

use std::path::PathBuf;

use crate::config::Config;
use crate::error::Result;
use rayon::prelude::*;

use crate::index::{self, walk};
use crate::report::{self, Answer};

/// Indexes the files named by `paths` (folders are walked) and lists their symbols, with
/// the facts cache on disk unless `no_cache`.
pub fn run(config: &Config, paths: &[PathBuf], no_cache: bool) -> Result<Answer> {
    let cache = super::with_facts_cache(config, &config.root, &super::Cache::default(), !no_cache);
    let answer = run_cached(config, paths, &cache);
    cache.save(config.threads);
    answer
}

/// [`run`] with the facts of each file from `cache`.
pub fn run_cached(config: &Config, paths: &[PathBuf], cache: &super::Cache) -> Result<Answer> {
    let scope = config.scope()?;
    let found = walk::collect(&config.root, paths, &scope, config.threads)?;
    let max = config.max_file_size;
    let facts: Vec<_> = index::in_pool(config.threads, || {
        found
            .files
            .par_iter()
            .map(|f| cache.facts(f, max, false))
            .collect()
    });
    let mut warnings = config.warnings.clone();
    warnings.extend(found.warnings);
    Ok(report::symbols::answer(&facts, warnings))
}
