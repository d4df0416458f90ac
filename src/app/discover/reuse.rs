//! `discover`'s stored plan ([`crate::discover::stored`]): when the files are the ones the
//! last plan was made from (the same list, how git saw each, the same base versions, and
//! each file's stamp, or else its digest, the recorded one) under the same settings, that
//! plan is the answer and no file is read, decoded or planned again.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::discover::stored::{self, GitSeen, Input, Stored, Unparsable};
use crate::discover::{Plan, Prepared, Settings};
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
    /// The content digest of each candidate's base version, when one was read.
    pub bases: &'a [Option<index::ContentDigest>],
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

    /// The stored plan as it was stored, with the files that did not parse whole (`None`
    /// when it does not read back whole). For a run whose files are all as recorded
    /// ([`PlanStore::edited`] found none).
    pub(super) fn as_stored(&self) -> Option<(Plan, Vec<Unparsable>)> {
        let stored = self.stored.as_ref()?;
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
        self.as_stored()
    }

    /// The files of this run that are not as the stored plan recorded them (a stamp that
    /// differs or is racy, another change, old path or base version), when the others are
    /// (the same files in the same order, under the same settings) and they are few: at
    /// most one in [`PATCHED_SHARE`] (a larger change is planned whole, through the facts
    /// cache). Empty when every file is as recorded.
    pub(super) fn edited(&self, seen: &Seen<'_>, threads: usize) -> Option<Vec<usize>> {
        let stored = self
            .stored
            .as_ref()
            .filter(|s| s.settings == self.settings)?;
        let n = stored.inputs.len();
        if n != seen.candidates.len()
            || n != seen.bases.len()
            || !stored
                .inputs
                .iter()
                .zip(seen.candidates)
                .all(|(input, c)| input.rel == c.rel)
        {
            return None;
        }
        let edited: Vec<usize> = index::in_pool(threads, || {
            stored
                .inputs
                .par_iter()
                .zip(seen.candidates.par_iter())
                .zip(seen.bases.par_iter())
                .enumerate()
                .filter(|(_, ((input, c), base))| {
                    let stamp = c.stamp.or_else(|| {
                        std::fs::metadata(&c.path)
                            .ok()
                            .filter(std::fs::Metadata::is_file)
                            .map(|meta| Stamp::from_meta(&meta))
                    });
                    !(input.change == c.change
                        && input.old_path == c.old_path
                        && input.base == **base
                        && stamp == Some(input.stamp)
                        && !input.stamp.racy_ns(input.made_ns))
                })
                .map(|(i, _)| i)
                .collect()
        });
        (edited.len() <= (n / PATCHED_SHARE).max(1)).then_some(edited)
    }

    /// The stored plan brought up to date for the `edited` files (see [`PlanStore::edited`]),
    /// read again as `fresh` (their facts reduced, and what identifies the version read):
    /// the plan, the files that did not parse whole, and the inputs to store. A file whose
    /// content and git's view are the recorded ones changes only its stamp. `None` when a
    /// file could not be read, or the plan cannot be patched
    /// ([`crate::discover::patch_prepared`]): it is then made whole.
    pub(super) fn patch(
        &self,
        seen: &Seen<'_>,
        edited: &[usize],
        fresh: Vec<(Prepared, Option<index::cache::Key>)>,
        settings: &Settings,
    ) -> Option<Patched> {
        let stored = self.stored.as_ref()?;
        let mut inputs = stored.inputs.clone();
        let mut unparsable = stored.unparsable.clone();
        let mut changed: Vec<Prepared> = Vec::new();
        for (&i, (prepared, key)) in edited.iter().zip(fresh) {
            let key = key?;
            if prepared.skipped().is_some() {
                return None;
            }
            let input = input_of(seen.candidates.get(i)?, &key, *seen.bases.get(i)?);
            let slot = inputs.get_mut(i)?;
            let same = slot.digest == input.digest
                && slot.change == input.change
                && slot.old_path == input.old_path
                && slot.base == input.base;
            *slot = input;
            if same {
                continue;
            }
            unparsable.retain(|u| u.path != prepared.path);
            if prepared.diagnostic_count() > 0 {
                let first = prepared.first_diagnostic();
                unparsable.push(Unparsable {
                    path: prepared.path.clone(),
                    line: first.map_or(1, |d| d.line),
                    message: first
                        .map_or_else(|| "syntax error".to_string(), |d| d.message.clone()),
                    errors: prepared.diagnostic_count(),
                });
            }
            changed.push(prepared);
        }
        let mut plan = stored.plan()?;
        if !changed.is_empty() {
            // In the order the files were read, as a plan made whole lists them.
            if unparsable.len() > 1 {
                let at: std::collections::HashMap<&str, usize> = inputs
                    .iter()
                    .enumerate()
                    .map(|(i, input)| (input.rel.as_str(), i))
                    .collect();
                unparsable.sort_by_key(|u| at.get(u.path.as_str()).copied().unwrap_or(usize::MAX));
            }
            plan = crate::discover::patch_prepared(plan, changed, settings)?;
        }
        Some(Patched {
            plan,
            unparsable,
            inputs,
        })
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
    /// git's answer could not have changed but for a few files: the same files, each
    /// other Ruby file of the index with its recorded stamp, outside the racy window (the
    /// caller checked the index, the config and the base with [`git_holds`]). The files
    /// whose stamps moved or are racy (at most one in [`PATCHED_SHARE`]) are listed: their
    /// candidates carry the recorded answer, which the caller asks git about again.
    pub(super) fn trusted(
        &self,
        files: &[index::SourceFile],
        threads: usize,
    ) -> Option<(Vec<Candidate>, Vec<usize>)> {
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
        let measured: Vec<(Candidate, bool)> = index::in_pool(threads, || {
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
                    let stamp = file_stamp(&file.path)?;
                    let moved = stamp != input.stamp || stamp.racy_ns(input.made_ns);
                    let candidate = Candidate {
                        rel: file.rel.clone(),
                        path: file.path.clone(),
                        change: input.change,
                        old_path: input.old_path.clone(),
                        stamp: Some(stamp),
                    };
                    Some((candidate, moved))
                })
                .collect()
        })?;
        let edited: Vec<usize> = measured
            .iter()
            .enumerate()
            .filter(|(_, (_, moved))| *moved)
            .map(|(i, _)| i)
            .collect();
        if edited.len() > (files.len() / PATCHED_SHARE).max(1) {
            return None;
        }
        Some((measured.into_iter().map(|(c, _)| c).collect(), edited))
    }

    /// The stored plan's bytes with `git` for what git's answer depended on, when that
    /// differs from what it records (the plan answered; git looked again).
    pub(super) fn with_git(&self, git: &GitSeen) -> Option<Vec<u8>> {
        let stored = self.stored.as_ref()?;
        (stored.git.as_ref() != Some(git)).then(|| stored.with_git(Some(git)))?
    }

    /// The content digest of each stored input's base version.
    pub(super) fn bases(&self) -> Vec<Option<index::ContentDigest>> {
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

    /// What to store for a plan made from `inputs`, once the plan is in the answer.
    pub(super) fn storing(
        &self,
        inputs: Vec<Input>,
        git: Option<GitSeen>,
        unparsable: Vec<Unparsable>,
    ) -> Storing {
        Storing {
            root: self.root.clone(),
            dir: self.dir.clone(),
            settings: self.settings,
            inputs,
            git,
            unparsable,
        }
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

/// A plan to store, with what it was made from: encoded and written once the answer
/// holds the plan, on a thread of its own while the answer is printed.
pub(super) struct Storing {
    root: PathBuf,
    dir: PathBuf,
    settings: [u8; 32],
    inputs: Vec<Input>,
    git: Option<GitSeen>,
    unparsable: Vec<Unparsable>,
}

impl Storing {
    /// The stored plan's bytes for `plan`.
    pub(super) fn bytes(&self, plan: &Plan) -> Vec<u8> {
        stored::encode(
            &self.settings,
            self.git.as_ref(),
            &self.inputs,
            &self.unparsable,
            plan,
        )
    }

    /// Writes `bytes` as the stored plan (see [`PlanStore::write`]).
    pub(super) fn write(&self, bytes: &[u8]) -> bool {
        PlanStore::write(&self.root, &self.dir, bytes)
    }
}

/// At most one file in this many is read again and planned anew on a stored plan; more
/// are planned whole.
const PATCHED_SHARE: usize = 16;

/// A stored plan brought up to date for the few files that changed.
pub(super) struct Patched {
    /// The plan.
    pub plan: Plan,
    /// The files that did not parse whole.
    pub unparsable: Vec<Unparsable>,
    /// What the plan was made from, to store.
    pub inputs: Vec<Input>,
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
        .map(|((candidate, base), key)| Some(input_of(candidate, key.as_ref()?, *base)))
        .collect()
}

/// What a plan is made from for one candidate: the version read (`key`), how git saw it,
/// the digest of its base version.
fn input_of(
    candidate: &Candidate,
    key: &index::cache::Key,
    base: Option<index::ContentDigest>,
) -> Input {
    Input {
        rel: candidate.rel.clone(),
        stamp: key.stamp,
        made_ns: key.made_ns,
        digest: key.digest,
        change: candidate.change,
        old_path: candidate.old_path.clone(),
        base,
    }
}
