//! One module per command: typed options in, an [`crate::report::Answer`] or an
//! [`crate::Error`] out. No printing here; `main.rs` renders and exits.

pub mod analyze;
pub mod arg_rules;
pub mod discover;
pub mod factories;
pub mod init;
pub mod outline;
pub mod over_plan;
pub mod prune;
pub mod skeleton;
pub mod status;
pub mod strip_markers;
pub mod symbols;
pub mod test_config;
pub mod validate;

use std::path::Path;
use std::sync::Arc;

use crate::error::Result;
use crate::git::{Base, Change, Repo};
use crate::index::cache::FactsCache;
use crate::index::walk::{self, Found, Scope, SourceFile};
use crate::index::{self, FileFacts};

/// What a command can take from an index that outlives it (the MCP server's warm index,
/// `crate::mcp`) instead of computing it again. Each method answers exactly what the
/// function it stands for would answer now.
pub trait Warm: Send + Sync {
    /// The in-scope files under `root`, as [`walk::collect_all`].
    fn files(&self, root: &Path, scope: &Scope, threads: usize) -> Found;
    /// The facts of a file on disk, as [`index::index_file`].
    fn facts(&self, file: &SourceFile, max_size: u64) -> FileFacts;
    /// The facts of a version held in memory (a base blob), as [`index::extract`].
    fn facts_of(&self, rel: &str, bytes: &[u8]) -> FileFacts;
    /// The working tree's changes, as [`Repo::working_tree_changes`].
    fn changes(&self, repo: &Repo, base: &Base) -> Result<Vec<Change>>;
}

/// A command's way to a [`Warm`] index: none on the command line (everything is computed),
/// the session's index in the MCP server; and to the facts cache on disk
/// ([`index::cache::FactsCache`]), which the command line opens unless `--no-cache`.
#[derive(Clone, Default)]
pub struct Cache {
    warm: Option<Arc<dyn Warm>>,
    disk: Option<Arc<FactsCache>>,
}

impl Cache {
    /// Answers from `warm`.
    pub fn new(warm: Arc<dyn Warm>) -> Self {
        Cache {
            warm: Some(warm),
            disk: None,
        }
    }

    /// This cache, with facts of files on disk from `disk` when no warm index answers.
    pub fn with_disk(&self, disk: Arc<FactsCache>) -> Self {
        Cache {
            warm: self.warm.clone(),
            disk: Some(disk),
        }
    }

    /// See [`Warm::files`].
    pub fn files(&self, root: &Path, scope: &Scope, threads: usize) -> Found {
        match &self.warm {
            Some(warm) => warm.files(root, scope, threads),
            None => walk::collect_all(root, scope, threads),
        }
    }

    /// See [`Warm::facts`]. Without a warm index, `digests: false` skips the method
    /// digests (for a file no other version of which is compared); a warm index keeps
    /// them, as later calls may compare. The facts cache on disk answers what extraction
    /// would.
    pub fn facts(&self, file: &SourceFile, max_size: u64, digests: bool) -> FileFacts {
        self.facts_keyed(file, max_size, digests).0
    }

    /// [`Cache::facts`], with what identifies the version they are of when the facts
    /// cache on disk answered (`None` otherwise, and for a file that could not be read).
    pub fn facts_keyed(
        &self,
        file: &SourceFile,
        max_size: u64,
        digests: bool,
    ) -> (FileFacts, Option<index::cache::Key>) {
        match (&self.warm, &self.disk) {
            (Some(warm), _) => (warm.facts(file, max_size), None),
            (None, Some(disk)) => disk.facts_keyed(file, max_size, digests),
            (None, None) => (
                index::index_file_with(
                    file,
                    max_size,
                    &index::ExtractOptions {
                        digests,
                        ..index::ExtractOptions::default()
                    },
                ),
                None,
            ),
        }
    }

    /// See [`Warm::facts_of`].
    pub fn facts_of(&self, rel: &str, bytes: &[u8]) -> FileFacts {
        match &self.warm {
            Some(warm) => warm.facts_of(rel, bytes),
            None => index::extract(rel, bytes),
        }
    }

    /// See [`Warm::changes`].
    pub fn changes(&self, repo: &Repo, base: &Base) -> Result<Vec<Change>> {
        match &self.warm {
            Some(warm) => warm.changes(repo, base),
            None => repo.working_tree_changes(base),
        }
    }

    /// Whether answers come from a warm index (which keeps the whole tree's status itself).
    pub fn is_warm(&self) -> bool {
        self.warm.is_some()
    }

    /// Whether a facts cache on disk is open.
    pub fn has_disk(&self) -> bool {
        self.disk.is_some()
    }

    /// Writes the facts cache on disk if one is open and this run changed it (see
    /// [`FactsCache::save`]).
    pub fn save(&self, threads: usize) {
        if let Some(disk) = &self.disk {
            // The write is the metadata layer's (atomic, no fsync: the reader checks the
            // file whole); the index only says what to write.
            disk.save(threads, &|target, bytes| {
                crate::metadata::write_cache_atomic(target, bytes).is_ok()
            });
        }
    }
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match (&self.warm, &self.disk) {
            (Some(_), _) => "Cache(warm)",
            (None, Some(_)) => "Cache(disk)",
            (None, None) => "Cache(none)",
        })
    }
}

/// The answer of a stage that has nothing to do because `analyze` skipped the file
/// (`test-config`, `skeleton`): `status: skipped`, the metadata file and why (exit 0).
/// The gems the project's `Gemfile.lock` resolves, sorted (`None` without a lockfile).
/// The facts cache of `project_root` (in `{metadata_path}/rspec_scout/`), opened when
/// `on`, added to `cache`.
pub(crate) fn with_facts_cache(
    config: &crate::config::Config,
    project_root: &Path,
    cache: &Cache,
    on: bool,
) -> Cache {
    if !on || cache.is_warm() {
        return cache.clone();
    }
    let dir = crate::metadata::plan::state_dir(project_root, &config.metadata_path);
    cache.with_disk(Arc::new(FactsCache::open(project_root, &dir)))
}

pub(crate) fn project_gems(root: &Path) -> Option<Vec<String>> {
    let text = std::fs::read(root.join("Gemfile.lock")).ok()?;
    Some(crate::analyze::clients::gems_of_lockfile(
        &String::from_utf8_lossy(&text),
    ))
}

pub(crate) fn analysis_skipped(metadata: &str, reason: String) -> crate::report::Answer {
    #[derive(serde::Serialize)]
    struct Skipped<'a> {
        status: &'static str,
        metadata: &'a str,
        skip_reason: String,
    }
    let text = format!("{metadata}: skipped: {reason}\n");
    crate::report::Answer::new(
        &Skipped {
            status: "skipped",
            metadata,
            skip_reason: reason,
        },
        text,
        0,
    )
}
