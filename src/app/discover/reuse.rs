//! `discover`'s stored plan ([`crate::discover::stored`]): when the files are the ones the
//! last plan was made from (the same list, how git saw each, the same base versions, and
//! each file's stamp, or else its digest, the recorded one) under the same settings, that
//! plan is the answer and no file is read, decoded or planned again.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::discover::stored::{self, GitSeen, Input, Stored, Unparsable};
use crate::discover::Plan;
use crate::index;
use crate::index::stamp::Stamp;

use crate::git::Base;

use super::Candidate;

/// The stored plan of one project, for one run.
pub(super) struct PlanStore {
    root: PathBuf,
    dir: PathBuf,
    /// The digest of this run's settings.
    settings: [u8; 32],
    /// The plan on disk, when it is whole and this build's.
    stored: Option<Stored>,
}

/// A stored plan being read on a thread of its own while the tree is walked and git
/// looks: the first to need it waits for it.
pub(super) struct Opening {
    handle: std::sync::Mutex<Option<std::thread::JoinHandle<PlanStore>>>,
    store: std::sync::OnceLock<Option<PlanStore>>,
}

impl Opening {
    /// Starts reading the stored plan in `dir` (see [`PlanStore::open`]).
    pub(super) fn start(root: PathBuf, dir: PathBuf, settings: String) -> Opening {
        let store = std::sync::OnceLock::new();
        let spawned = std::thread::Builder::new()
            .name("rspec-scout-plan-read".to_string())
            .spawn({
                let (root, dir, settings) = (root.clone(), dir.clone(), settings.clone());
                move || PlanStore::open(&root, &dir, &settings)
            });
        let handle = match spawned {
            Ok(handle) => Some(handle),
            Err(_) => {
                let _ = store.set(Some(PlanStore::open(&root, &dir, &settings)));
                None
            }
        };
        Opening {
            handle: std::sync::Mutex::new(handle),
            store,
        }
    }

    /// The stored plan, once read (`None` when the reading thread failed).
    pub(super) fn get(&self) -> Option<&PlanStore> {
        self.store
            .get_or_init(|| {
                let handle = self
                    .handle
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .take()?;
                handle.join().ok()
            })
            .as_ref()
    }
}

/// What a run found of its files, to compare with a stored plan and to store its own.
pub(super) struct Seen<'a> {
    pub candidates: &'a [Candidate],
    /// The sha256 of each candidate's base version, when one was read.
    pub bases: &'a [Option<[u8; 32]>],
}

impl PlanStore {
    /// Opens the stored plan in `dir` (`{metadata_path}/rspec_scout`): one read of its
    /// file. `settings` is every setting the plan depends on, as text.
    pub(super) fn open(root: &Path, dir: &Path, settings: &str) -> PlanStore {
        let stored = std::fs::read(dir.join(stored::FILE_NAME))
            .ok()
            .and_then(Stored::read);
        PlanStore {
            root: root.to_path_buf(),
            dir: dir.to_path_buf(),
            settings: Sha256::digest(settings.as_bytes()).into(),
            stored,
        }
    }

    /// The stored plan, when every file carries the stamp it had when the plan was made
    /// (and was not modified within git's racy window of that moment): measured, not read.
    pub(super) fn unchanged(
        &self,
        seen: &Seen<'_>,
        threads: usize,
    ) -> Option<(Plan, Vec<Unparsable>)> {
        let stored = self.same_files(seen)?;
        let fresh = index::in_pool(threads, || {
            stored
                .inputs
                .par_iter()
                .zip(seen.candidates.par_iter())
                .all(|(input, candidate)| {
                    // Measured once: git's look at the working tree did it, if it ran.
                    let stamp = candidate.stamp.or_else(|| {
                        std::fs::metadata(&candidate.path)
                            .ok()
                            .filter(std::fs::Metadata::is_file)
                            .map(|meta| Stamp::from_meta(&meta))
                    });
                    stamp == Some(input.stamp) && !input.stamp.racy_ns(input.made_ns)
                })
        });
        if !fresh {
            return None;
        }
        Some((stored.plan()?, stored.unparsable.clone()))
    }

    /// The stored plan, when the files read in this run have the digests it was made from
    /// (a `touch`, a checkout back and forth, or a file recorded inside the racy window).
    pub(super) fn same_digests(
        &self,
        seen: &Seen<'_>,
        inputs: &[Input],
    ) -> Option<(Plan, Vec<Unparsable>)> {
        let stored = self.same_files(seen)?;
        let same = stored.inputs.len() == inputs.len()
            && stored
                .inputs
                .iter()
                .zip(inputs)
                .all(|(old, new)| old.digest == new.digest);
        if !same {
            return None;
        }
        Some((stored.plan()?, stored.unparsable.clone()))
    }

    /// Whether the stored plan records exactly these inputs and git's (nothing to write
    /// again).
    pub(super) fn records(&self, inputs: &[Input], git: Option<&GitSeen>) -> bool {
        self.stored.as_ref().is_some_and(|s| {
            s.settings == self.settings && s.inputs == inputs && s.git.as_ref() == git
        })
    }

    /// What git's answer depended on when the stored plan was made (when it was made
    /// under these settings).
    pub(super) fn git_seen(&self) -> Option<&GitSeen> {
        self.stored
            .as_ref()
            .filter(|s| s.settings == self.settings)
            .and_then(|s| s.git.as_ref())
    }

    /// The walked files as the stored plan's candidates, with how git saw each then, when
    /// git's answer could not have changed: the same files, each and every other Ruby
    /// file of the index with its recorded stamp, outside the racy window (the caller
    /// checked the index, the config and the base with [`git_holds`]).
    pub(super) fn trusted(
        &self,
        files: &[index::SourceFile],
        threads: usize,
    ) -> Option<Vec<Candidate>> {
        let stored = self
            .stored
            .as_ref()
            .filter(|s| s.settings == self.settings)?;
        let git = stored.git.as_ref()?;
        if stored.inputs.len() != files.len()
            || !stored.inputs.iter().zip(files).all(|(i, f)| i.rel == f.rel)
        {
            return None;
        }
        index::in_pool(threads, || {
            let outside_holds = git.outside.par_iter().all(|(rel, stamp)| {
                let now = file_stamp(&self.root.join(rel));
                now == *stamp && stamp.is_none_or(|s| !s.racy_ns(git.made_ns))
            });
            if !outside_holds {
                return None;
            }
            stored
                .inputs
                .par_iter()
                .zip(files.par_iter())
                .map(|(input, file)| {
                    let stamp = file_stamp(&file.path)
                        .filter(|s| *s == input.stamp && !s.racy_ns(input.made_ns))?;
                    Some(Candidate {
                        rel: file.rel.clone(),
                        path: file.path.clone(),
                        change: input.change,
                        old_path: input.old_path.clone(),
                        stamp: Some(stamp),
                    })
                })
                .collect()
        })
    }

    /// The stored plan's bytes with `git` for what git's answer depended on, when that
    /// differs from what it records (the plan answered; git looked again).
    pub(super) fn with_git(&self, git: &GitSeen) -> Option<Vec<u8>> {
        let stored = self.stored.as_ref()?;
        (stored.git.as_ref() != Some(git)).then(|| stored.with_git(Some(git)))?
    }

    /// The sha256 of each stored input's base version.
    pub(super) fn bases(&self) -> Vec<Option<[u8; 32]>> {
        self.stored
            .as_ref()
            .map(|s| s.inputs.iter().map(|i| i.base).collect())
            .unwrap_or_default()
    }

    /// The stored plan, when it was made with these settings from these files as git saw
    /// them, with the same base versions.
    fn same_files(&self, seen: &Seen<'_>) -> Option<&Stored> {
        let stored = self.stored.as_ref()?;
        let same = stored.settings == self.settings
            && stored.inputs.len() == seen.candidates.len()
            && stored.inputs.len() == seen.bases.len()
            && stored
                .inputs
                .iter()
                .zip(seen.candidates)
                .zip(seen.bases)
                .all(|((input, candidate), base)| {
                    input.rel == candidate.rel
                        && input.change == candidate.change
                        && input.old_path == candidate.old_path
                        && input.base == *base
                });
        same.then_some(stored)
    }

    /// The bytes to store for `plan`, made from `inputs`.
    pub(super) fn encode(
        &self,
        inputs: &[Input],
        git: Option<&GitSeen>,
        unparsable: &[Unparsable],
        plan: &Plan,
    ) -> Vec<u8> {
        stored::encode(&self.settings, git, inputs, unparsable, plan)
    }

    /// Writes `bytes` as the stored plan, through the guard (never outside the project
    /// root, never under `.git/`). A write that fails or is refused is not an error: the
    /// next run only plans again.
    pub(super) fn write(root: &Path, dir: &Path, bytes: &[u8]) -> bool {
        index::cache::write_beside(root, dir, stored::FILE_NAME, bytes)
    }

    /// Where the store is: the project root and the folder.
    pub(super) fn place(&self) -> (PathBuf, PathBuf) {
        (self.root.clone(), self.dir.clone())
    }
}

/// A regular file's stamp (`None`: not a file there; a link is not followed).
fn file_stamp(path: &Path) -> Option<Stamp> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.file_type().is_file())
        .map(|m| Stamp::from_meta(&m))
}

/// Whether git's answer's other inputs are as `seen` recorded them: the index, the
/// config and the attributes file with their stamps (outside the racy window), and the
/// base resolved to the same commits.
pub(super) fn git_holds(seen: &GitSeen, files: &[(String, Option<Stamp>)], base: &Base) -> bool {
    seen.files == files
        && files
            .iter()
            .all(|(_, stamp)| stamp.is_none_or(|s| !s.racy_ns(seen.made_ns)))
        && seen.reference == base.reference
        && seen.ref_commit == base.ref_commit.as_bytes()
        && seen.commit.as_deref() == base.commit.as_ref().map(git2::Oid::as_bytes)
}

/// The stamps of git's state files, by path (see [`crate::git::Repo::state_files`]).
pub(super) fn state_stamps(paths: &[PathBuf]) -> Vec<(String, Option<Stamp>)> {
    paths
        .iter()
        .map(|p| (p.to_string_lossy().into_owned(), file_stamp(p)))
        .collect()
}

/// The inputs of a plan: each candidate with the version its facts are of (`None` when a
/// file could not be read, or the facts cache did not answer: such a plan is not stored).
pub(super) fn inputs(seen: &Seen<'_>, keys: &[Option<index::cache::Key>]) -> Option<Vec<Input>> {
    if keys.len() != seen.candidates.len() {
        return None;
    }
    seen.candidates
        .iter()
        .zip(seen.bases)
        .zip(keys)
        .map(|((candidate, base), key)| {
            let key = key.as_ref()?;
            Some(Input {
                rel: candidate.rel.clone(),
                stamp: key.stamp,
                made_ns: key.made_ns,
                digest: key.digest,
                change: candidate.change,
                old_path: candidate.old_path.clone(),
                base: *base,
            })
        })
        .collect()
}
