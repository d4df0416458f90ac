//! `discover`'s stored plan ([`crate::discover::stored`]): when the files are the ones the
//! last plan was made from (the same list, how git saw each, the same base versions, and
//! each file's stamp, or else its digest, the recorded one) under the same settings, that
//! plan is the answer and no file is read, decoded or planned again.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::discover::stored::{self, Input, Stored, Unparsable};
use crate::discover::Plan;
use crate::index;
use crate::index::stamp::Stamp;

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

    /// Whether the stored plan records exactly these inputs (nothing to write again).
    pub(super) fn records(&self, inputs: &[Input]) -> bool {
        self.stored
            .as_ref()
            .is_some_and(|s| s.settings == self.settings && s.inputs == inputs)
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
        unparsable: &[Unparsable],
        plan: &Plan,
    ) -> Vec<u8> {
        stored::encode(&self.settings, inputs, unparsable, plan)
    }

    /// Writes `bytes` as the stored plan, through the guard (never outside the project
    /// root, never under `.git/`). A write that fails or is refused is not an error: the
    /// next run only plans again.
    pub(super) fn write(root: &Path, dir: &Path, bytes: &[u8]) -> bool {
        let Ok(folder) = crate::guard::folder(root, dir) else {
            return false;
        };
        let Ok(target) = folder.file(stored::FILE_NAME) else {
            return false;
        };
        crate::metadata::write_cache_atomic(&target, bytes).is_ok()
    }

    /// Where the store is: the project root and the folder.
    pub(super) fn place(&self) -> (PathBuf, PathBuf) {
        (self.root.clone(), self.dir.clone())
    }
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
