//! Everything rspec-scout asks git, through libgit2 (no `git` subprocess): which files
//! changed in branch or staged mode, where the base is (merge-base, base ref fallbacks,
//! shallow clones, unborn HEAD), and the base version of a file.
//!
//! Nothing else in the crate talks to git.

use std::path::{Path, PathBuf};

use git2::{Delta, DiffFindOptions, DiffOptions, ErrorCode, Oid, Repository};

use crate::error::{Error, Result};
use crate::index::stamp::Stamp;

pub use crate::vocab::ChangeKind;

/// The directory holding `.git` (a folder, or a file in worktrees and submodules) at or
/// above `start`.
pub fn root_of(start: &Path) -> Option<PathBuf> {
    let mut dir = if start.is_dir() {
        start.to_path_buf()
    } else {
        start.parent()?.to_path_buf()
    };
    loop {
        if dir.join(".git").exists() {
            return Some(dir);
        }
        if !dir.pop() {
            return None;
        }
    }
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
    /// Path relative to the repository root, `/`-separated (the new path for renames).
    pub path: String,
    /// The path in the base, for renames.
    pub old_path: Option<String>,
    /// How it changed.
    pub kind: ChangeKind,
}

/// The commit the working tree is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    /// The ref as resolved (`origin/main`, `main`, a sha), or `HEAD` in staged mode.
    pub reference: String,
    /// The commit the ref points to.
    pub ref_commit: Oid,
    /// The commit compared against: the merge-base of HEAD and the ref, or the ref itself
    /// when there is no merge-base (shallow clone, unrelated histories). `None` when the
    /// repository has no commits.
    pub commit: Option<Oid>,
}

/// [`Repo::working_tree_changes_measured`]'s answer.
pub struct Measured {
    /// The changes, as [`Repo::working_tree_changes_among`] gives them.
    pub changes: Vec<Change>,
    /// What was measured of each walked file, in the walk's order.
    pub measured: Vec<Option<std::fs::Metadata>>,
    /// The index's Ruby files the walk did not find, each with its stamp (`None`: not a
    /// file there); `None` when one of their paths is not UTF-8.
    pub outside: Option<Vec<(String, Option<Stamp>)>>,
}

/// An open repository.
pub struct Repo {
    repo: Repository,
    root: PathBuf,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo").field("root", &self.root).finish()
    }
}

fn git_error(e: &git2::Error) -> Error {
    Error::Git {
        message: e.message().to_string(),
    }
}

/// A git failure while reading one file's version: names the file and where it was read
/// from, so a corrupt object can be traced (`git fsck`) instead of guessed.
fn git_error_at(e: &git2::Error, path: &str, place: &str) -> Error {
    Error::Git {
        message: format!("reading {path} from {place}: {}", e.message()),
    }
}

fn entry_commit(commit: Option<Oid>) -> String {
    commit.map_or_else(
        || "HEAD".to_string(),
        |c| format!("commit {}", Repo::short(c)),
    )
}

impl Repo {
    /// Opens the repository containing `path`; `NOT_A_GIT_REPOSITORY` when there is none.
    pub fn discover(path: &Path) -> Result<Self> {
        let repo = Repository::discover(path).map_err(|e| match e.code() {
            ErrorCode::NotFound => Error::NotAGitRepository {
                path: path.to_path_buf(),
            },
            _ => git_error(&e),
        })?;
        let Some(workdir) = repo.workdir() else {
            return Err(Error::Git {
                message: format!(
                    "{} is a bare repository (no working tree)",
                    repo.path().display()
                ),
            });
        };
        let root = crate::index::walk::absolute(workdir);
        Ok(Repo { repo, root })
    }

    /// The working tree root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether HEAD points to a commit (false in a repository with no commits).
    pub fn has_commits(&self) -> bool {
        self.repo.head().ok().and_then(|h| h.target()).is_some()
    }

    /// Whether the repository is a shallow clone.
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow()
    }

    fn head_commit(&self) -> Option<Oid> {
        self.repo
            .head()
            .ok()
            .and_then(|h| h.peel_to_commit().ok())
            .map(|c| c.id())
    }

    fn resolve(&self, spec: &str) -> Option<Oid> {
        self.repo
            .revparse_single(spec)
            .ok()
            .and_then(|o| o.peel_to_commit().ok())
            .map(|c| c.id())
    }

    /// The base for branch mode: `explicit` (`--base`), else `configured`, else the target
    /// of `origin/HEAD`, else `main`, else `master`. Returns the base and warnings.
    pub fn branch_base(
        &self,
        explicit: Option<&str>,
        configured: Option<&str>,
    ) -> Result<(Base, Vec<String>)> {
        let mut warnings = Vec::new();
        if !self.has_commits() {
            warnings
                .push("the repository has no commits yet: every file counts as added".to_string());
            return Ok((
                Base {
                    reference: "(no commits)".to_string(),
                    ref_commit: Oid::ZERO_SHA1,
                    commit: None,
                },
                warnings,
            ));
        }
        let (reference, ref_commit) = match explicit.or(configured) {
            Some(spec) => {
                let oid = self.resolve(spec).ok_or_else(|| Error::BadBaseRef {
                    reference: spec.to_string(),
                    reason: format!("`{spec}` does not name a commit in {}", self.root.display()),
                })?;
                (spec.to_string(), oid)
            }
            None => self.default_base()?,
        };
        let head = self.head_commit().ok_or_else(|| Error::Git {
            message: "HEAD does not point to a commit".to_string(),
        })?;
        let commit = match self.repo.merge_base(head, ref_commit) {
            Ok(oid) => oid,
            Err(e) if e.code() == ErrorCode::NotFound => {
                let why = if self.is_shallow() {
                    "this is a shallow clone and the merge-base is not in it"
                } else {
                    "HEAD and the base share no history"
                };
                warnings.push(format!(
                    "no merge-base of HEAD and {reference}: {why}; comparing against {reference} itself (fetch more history with `git fetch --unshallow` for exact results)"
                ));
                ref_commit
            }
            Err(e) => return Err(git_error(&e)),
        };
        Ok((
            Base {
                reference,
                ref_commit,
                commit: Some(commit),
            },
            warnings,
        ))
    }

    fn default_base(&self) -> Result<(String, Oid)> {
        if let Ok(reference) = self.repo.find_reference("refs/remotes/origin/HEAD") {
            if let Ok(Some(target)) = reference.symbolic_target() {
                let short = target
                    .strip_prefix("refs/remotes/")
                    .unwrap_or(target)
                    .to_string();
                if let Some(oid) = self.resolve(target) {
                    return Ok((short, oid));
                }
            }
        }
        for candidate in ["main", "master", "origin/main", "origin/master"] {
            if let Some(oid) = self.resolve(candidate) {
                return Ok((candidate.to_string(), oid));
            }
        }
        Err(Error::BadBaseRef {
            reference: "(default)".to_string(),
            reason:
                "no base ref found: tried origin/HEAD, main, master, origin/main, origin/master"
                    .to_string(),
        })
    }

    /// The base for staged mode and for files compared with HEAD: HEAD itself.
    pub fn head_base(&self) -> Base {
        let head = self.head_commit();
        Base {
            reference: "HEAD".to_string(),
            ref_commit: head.unwrap_or(Oid::ZERO_SHA1),
            commit: head,
        }
    }

    /// Ruby files that differ between `base` and the working tree: committed, staged,
    /// unstaged and untracked (not ignored) changes, with renames detected.
    pub fn working_tree_changes(&self, base: &Base) -> Result<Vec<Change>> {
        let tree = self.tree_of(base.commit)?;
        let mut opts = ruby_diff_options();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        let mut diff = self
            .repo
            .diff_tree_to_workdir_with_index(tree.as_ref(), Some(&mut opts))
            .map_err(|e| git_error(&e))?;
        find_renames(&mut diff, true)?;
        Ok(changes_of(&diff))
    }

    /// [`Repo::working_tree_changes`] for these paths only (exact, repository-relative):
    /// what the whole tree's answer says about them, as long as none of them takes part in
    /// a rename (renames pair files across the tree, so the caller checks that first).
    pub fn working_tree_changes_of(&self, base: &Base, paths: &[&str]) -> Result<Vec<Change>> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let tree = self.tree_of(base.commit)?;
        let mut opts = DiffOptions::new();
        for path in paths {
            opts.pathspec(path);
        }
        opts.disable_pathspec_match(true)
            .include_typechange(true)
            .ignore_submodules(true)
            .include_untracked(true)
            .recurse_untracked_dirs(true);
        let mut diff = self
            .repo
            .diff_tree_to_workdir_with_index(tree.as_ref(), Some(&mut opts))
            .map_err(|e| git_error(&e))?;
        find_renames(&mut diff, true)?;
        Ok(changes_of(&diff))
    }

    /// The first half of [`Repo::working_tree_changes`], for a caller that walks the tree
    /// itself ([`Repo::working_tree_changes_among`] is the second): the Ruby changes
    /// between `base` and the index, and the index's Ruby entries. Reads no working-tree
    /// file, so it runs while the tree is walked.
    pub fn index_changes(&self, base: &Base) -> Result<IndexChanges<'_>> {
        let tree = self.tree_of(base.commit)?;
        let index_file = self.repo.path().join("index");
        let before = std::fs::metadata(&index_file).ok();
        let index = self.repo.index().map_err(|e| git_error(&e))?;
        let after = std::fs::metadata(&index_file).ok();
        // The index file's time, for libgit2's racy-entry rule; unknown when the file
        // changed while it was read (nothing is then taken from the entries' stat data).
        let stamp = match (before, after) {
            (Some(b), Some(a)) if same_file_stat(&b, &a) => IndexStamp::of(&a),
            _ => None,
        };
        let ignore_case = self
            .repo
            .config()
            .and_then(|c| c.get_bool("core.ignorecase"))
            .unwrap_or(false);
        // Whether an entry could make git see a file other than by its content: an
        // attributes file (filters), or a flag that keeps git from looking at it.
        let mut special = false;
        let entries: Vec<git2::IndexEntry> = index
            .iter()
            .filter(|entry| {
                special |= entry.path.ends_with(b".gitattributes")
                    || entry.flags & INDEX_ENTRY_VALID != 0
                    || entry.flags_extended
                        & (INDEX_ENTRY_SKIP_WORKTREE | INDEX_ENTRY_INTENT_TO_ADD)
                        != 0;
                entry.path.ends_with(b".rb")
            })
            .collect();
        let mut opts = ruby_diff_options();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        let diff = self
            .repo
            .diff_tree_to_index(tree.as_ref(), Some(&index), Some(&mut opts))
            .map_err(|e| git_error(&e))?;
        let plain = (!special).then(|| self.plain()).flatten();
        Ok(IndexChanges {
            diff,
            index,
            entries,
            stamp: stamp.filter(|_| !ignore_case),
            plain,
        })
    }

    /// [`Repo::working_tree_changes`] from its first half ([`Repo::index_changes`]) and the
    /// Ruby files a walk found (repository-relative path, path on disk). Every walked file
    /// gets the whole tree's answer, renames included, without libgit2 looking at every
    /// file of the tree:
    /// - a file whose stat data equals its index entry's in every field libgit2 compares
    ///   (and more), and that is not racy (written before the index was), is unchanged in
    ///   the working tree, as libgit2 itself decides without reading it; the walked files
    ///   and the index's other Ruby files are checked so, in parallel;
    /// - libgit2 compares the index with the working tree for the rest: walked files it
    ///   does not know or that may have changed, and tracked files changed or deleted
    ///   outside the walk (a deletion can be the old side of a rename);
    /// - the two halves are merged as libgit2 merges them, then renames are found.
    ///
    /// The one difference from the whole tree's status: an untracked Ruby file outside the
    /// walk is not a rename candidate.
    ///
    /// Each walked Ruby file is measured once (`lstat`); what was measured of each walked
    /// file is handed back, in the order of `walked` (`None`: not a Ruby file, or gone), so
    /// a caller that needs the files' stamps does not measure them again.
    pub fn working_tree_changes_among(
        &self,
        first: IndexChanges<'_>,
        walked: &[(String, PathBuf)],
    ) -> Result<(Vec<Change>, Vec<Option<std::fs::Metadata>>)> {
        self.working_tree_changes_measured(first, walked)
            .map(|m| (m.changes, m.measured))
    }

    /// [`Repo::working_tree_changes_among`], with what was measured of the index's Ruby
    /// files the walk did not find ([`Measured::outside`]): what else the answer depends
    /// on, for a caller that keeps it.
    pub fn working_tree_changes_measured(
        &self,
        first: IndexChanges<'_>,
        walked: &[(String, PathBuf)],
    ) -> Result<Measured> {
        use rayon::prelude::*;
        let IndexChanges {
            mut diff,
            index,
            entries,
            stamp,
            plain: _,
        } = first;
        let clean = |entry: Option<&git2::IndexEntry>, meta: Option<&std::fs::Metadata>| matches!((entry, stamp, meta), (Some(e), Some(s), Some(m)) if unchanged_on_disk(e, m, s));
        let by_path: std::collections::HashMap<&[u8], &git2::IndexEntry> =
            entries.iter().map(|e| (e.path.as_slice(), e)).collect();
        let measured: Vec<Option<std::fs::Metadata>> = walked
            .par_iter()
            .map(|(rel, path)| {
                rel.ends_with(".rb")
                    .then(|| std::fs::symlink_metadata(path).ok())
                    .flatten()
            })
            .collect();
        let mut paths: Vec<&[u8]> = walked
            .par_iter()
            .zip(measured.par_iter())
            .filter(|((rel, _), _)| rel.ends_with(".rb"))
            .filter(|((rel, _), meta)| !clean(by_path.get(rel.as_bytes()).copied(), meta.as_ref()))
            .map(|((rel, _), _)| rel.as_bytes())
            .collect();
        let found: std::collections::HashSet<&[u8]> =
            walked.iter().map(|(rel, _)| rel.as_bytes()).collect();
        let root = self.root.as_path();
        // The index's other Ruby files, each measured once.
        let outside: Vec<(&git2::IndexEntry, Option<&str>, Option<std::fs::Metadata>)> = entries
            .par_iter()
            .filter(|e| !found.contains(e.path.as_slice()))
            .map(|e| {
                let rel = std::str::from_utf8(&e.path).ok();
                let meta = rel.and_then(|rel| std::fs::symlink_metadata(root.join(rel)).ok());
                (e, rel, meta)
            })
            .collect();
        paths.par_extend(
            outside
                .par_iter()
                .filter(|(e, rel, meta)| rel.is_none() || !clean(Some(e), meta.as_ref()))
                .map(|(e, _, _)| e.path.as_slice()),
        );
        let outside_stamps: Option<Vec<(String, Option<Stamp>)>> = outside
            .iter()
            .map(|(_, rel, meta)| {
                Some((
                    (*rel)?.to_string(),
                    meta.as_ref()
                        .filter(|m| m.file_type().is_file())
                        .map(Stamp::from_meta),
                ))
            })
            .collect();
        paths.sort_unstable();
        paths.dedup();
        if !paths.is_empty() {
            let mut opts = DiffOptions::new();
            for path in &paths {
                opts.pathspec(*path);
            }
            // Exact paths: libgit2's iterators skip every other entry of a folder without
            // a stat, and folders no path is under without reading them.
            opts.disable_pathspec_match(true)
                .include_typechange(true)
                .ignore_submodules(true)
                .include_untracked(true)
                .recurse_untracked_dirs(true);
            let workdir = self
                .repo
                .diff_index_to_workdir(Some(&index), Some(&mut opts))
                .map_err(|e| git_error(&e))?;
            diff.merge(&workdir).map_err(|e| git_error(&e))?;
        }
        find_renames(&mut diff, true)?;
        Ok(Measured {
            changes: changes_of(&diff),
            measured,
            outside: outside_stamps,
        })
    }

    /// The Ruby files in the index (tracked), repository-relative, sorted.
    pub fn tracked_ruby_files(&self) -> Result<Vec<String>> {
        let index = self.repo.index().map_err(|e| git_error(&e))?;
        let mut out: Vec<String> = index
            .iter()
            .filter(|entry| entry.path.ends_with(b".rb"))
            .map(|entry| String::from_utf8_lossy(&entry.path).into_owned())
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The `.git` folder (for worktrees, the worktree's own).
    pub fn git_dir(&self) -> &Path {
        self.repo.path()
    }

    /// The files besides the tree that git's look at the working tree depends on: the
    /// index, the repository's config, its `info/attributes`, and the user's and the
    /// system's attributes files.
    pub fn state_files(&self) -> Vec<PathBuf> {
        let common = self.repo.commondir();
        let mut files = vec![
            self.repo.path().join("index"),
            common.join("config"),
            common.join("info").join("attributes"),
        ];
        files.extend(self.outer_attributes());
        files
    }

    /// The attributes files outside the repository libgit2 reads: the user's
    /// (`core.attributesFile`, else `$XDG_CONFIG_HOME/git/attributes`, else
    /// `~/.config/git/attributes`) and the system's (`/etc/gitattributes`).
    fn outer_attributes(&self) -> Vec<PathBuf> {
        let named = self
            .repo
            .config()
            .and_then(|c| c.get_path("core.attributesFile"))
            .ok();
        let user = named.or_else(|| {
            let xdg = std::env::var_os("XDG_CONFIG_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME")
                        .filter(|v| !v.is_empty())
                        .map(|home| PathBuf::from(home).join(".config"))
                });
            xdg.map(|dir| dir.join("git").join("attributes"))
        });
        user.into_iter()
            .chain(std::iter::once(PathBuf::from("/etc/gitattributes")))
            .collect()
    }

    /// How git compares a working file with its base version when no filter can apply
    /// to any file (no attributes file in the index, the repository or outside it, and
    /// no `core.autocrlf`): `None` when one could. The caller has checked the index for
    /// attributes files and flags.
    fn plain(&self) -> Option<Plain> {
        let config = self.repo.config().ok()?;
        match config.get_bool("core.autocrlf") {
            Ok(false) => {}
            Err(e) if e.code() == ErrorCode::NotFound => {}
            _ => return None,
        }
        let common = self.repo.commondir();
        let attributes =
            std::iter::once(common.join("info").join("attributes")).chain(self.outer_attributes());
        for file in attributes {
            if std::fs::symlink_metadata(&file).is_ok() {
                return None;
            }
        }
        Some(Plain {
            filemode: config.get_bool("core.filemode").unwrap_or(true),
        })
    }

    /// Whether each of `files` (repository-relative path, path on disk; each a regular
    /// file the base has) differs from its base version, as
    /// [`Repo::working_tree_changes`] says, found without the index: its content hashed
    /// as a blob and its executable bit (under `core.filemode`) compared with the base's
    /// entry. Only where no filter can apply (`plain`, from a look that read the index,
    /// and no `.gitattributes` in a folder above the file now). `Ok(None)` when that
    /// cannot be told so: the base lacks a file or holds it as no regular file, an
    /// attributes file is above it, a file cannot be read or is over `max_size`.
    pub fn modified_plainly(
        &self,
        base: &Base,
        files: &[(&str, &Path)],
        plain: Plain,
        max_size: u64,
    ) -> Result<Option<Vec<bool>>> {
        use std::os::unix::fs::PermissionsExt;
        let Some(tree) = self.tree_of(base.commit)? else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(files.len());
        for (rel, path) in files {
            let Ok(entry) = tree.get_path(Path::new(rel)) else {
                return Ok(None);
            };
            let exec = match entry.filemode() {
                0o100644 => false,
                0o100755 => true,
                _ => return Ok(None),
            };
            // Attributes in a folder above the file (the repository's root included).
            let mut folder = Path::new(rel).parent();
            while let Some(dir) = folder {
                if std::fs::symlink_metadata(self.root.join(dir).join(".gitattributes")).is_ok() {
                    return Ok(None);
                }
                folder = dir.parent();
            }
            let Ok(meta) = std::fs::symlink_metadata(path) else {
                return Ok(None);
            };
            if !meta.is_file() || meta.len() > max_size {
                return Ok(None);
            }
            let Ok(bytes) = std::fs::read(path) else {
                return Ok(None);
            };
            let Ok(id) = Oid::hash_object(git2::ObjectType::Blob, &bytes) else {
                return Ok(None);
            };
            let mode_differs = plain.filemode && (meta.permissions().mode() & 0o100 != 0) != exec;
            out.push(id != entry.id() || mode_differs);
        }
        Ok(Some(out))
    }

    /// Ruby files that differ between HEAD and the index (`--staged`).
    pub fn staged_changes(&self) -> Result<Vec<Change>> {
        let tree = self.tree_of(self.head_commit())?;
        let index = self.repo.index().map_err(|e| git_error(&e))?;
        let mut opts = ruby_diff_options();
        let mut diff = self
            .repo
            .diff_tree_to_index(tree.as_ref(), Some(&index), Some(&mut opts))
            .map_err(|e| git_error(&e))?;
        find_renames(&mut diff, false)?;
        Ok(changes_of(&diff))
    }

    fn tree_of(&self, commit: Option<Oid>) -> Result<Option<git2::Tree<'_>>> {
        let Some(oid) = commit else { return Ok(None) };
        let commit = self.repo.find_commit(oid).map_err(|e| git_error(&e))?;
        commit.tree().map(Some).map_err(|e| git_error(&e))
    }

    /// The content of `path` (repository-relative) in `commit`; `Ok(None)` when the file
    /// does not exist there.
    pub fn blob_at(&self, commit: Option<Oid>, path: &str) -> Result<Option<Vec<u8>>> {
        let Some(tree) = self.tree_of(commit)? else {
            return Ok(None);
        };
        let entry = match tree.get_path(Path::new(path)) {
            Ok(entry) => entry,
            Err(e) if e.code() == ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(git_error_at(&e, path, &entry_commit(commit))),
        };
        let object = entry
            .to_object(&self.repo)
            .map_err(|e| git_error_at(&e, path, &entry_commit(commit)))?;
        Ok(object.as_blob().map(|b| b.content().to_vec()))
    }

    /// The content of `path` in the index (staged version), if it is there.
    pub fn index_blob(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let index = self.repo.index().map_err(|e| git_error(&e))?;
        let Some(entry) = index.get_path(Path::new(path), 0) else {
            return Ok(None);
        };
        let blob = self
            .repo
            .find_blob(entry.id)
            .map_err(|e| git_error_at(&e, path, "the index"))?;
        Ok(Some(blob.content().to_vec()))
    }

    /// Short hex of a commit.
    pub fn short(oid: Oid) -> String {
        let hex = oid.to_string();
        hex.get(..12).unwrap_or(&hex).to_string()
    }
}

/// What [`Repo::index_changes`] found: the base-to-index diff, the index, its Ruby
/// entries and its file's time.
pub struct IndexChanges<'repo> {
    diff: git2::Diff<'repo>,
    index: git2::Index,
    entries: Vec<git2::IndexEntry>,
    /// `None`: no entry's stat data is trusted (the index changed while read, or paths
    /// compare without case).
    stamp: Option<IndexStamp>,
    /// How files compare with the base when no filter can apply to any.
    plain: Option<Plain>,
}

impl IndexChanges<'_> {
    /// How files compare with their base versions when no filter can apply to any file
    /// (see [`Repo::modified_plainly`]); `None` when one could.
    pub fn plain(&self) -> Option<Plain> {
        self.plain
    }
}

/// A repository where no filter applies to any file (no attributes file anywhere, no
/// `core.autocrlf`, no index entry flagged to be skipped): a file differs from its base
/// version exactly when its content or its executable bit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plain {
    /// `core.filemode`: whether the executable bit counts.
    pub filemode: bool,
}

/// An index entry's flag: assume unchanged.
const INDEX_ENTRY_VALID: u16 = 0x8000;
/// Extended flags: intent to add, skip the working tree.
const INDEX_ENTRY_INTENT_TO_ADD: u16 = 1 << 13;
const INDEX_ENTRY_SKIP_WORKTREE: u16 = 1 << 14;

/// The index file's modification time, as libgit2 keeps it for its racy-entry rule.
#[derive(Debug, Clone, Copy)]
struct IndexStamp {
    seconds: i64,
    nanoseconds: i64,
}

impl IndexStamp {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        Some(IndexStamp {
            seconds: meta.mtime(),
            nanoseconds: meta.mtime_nsec(),
        })
    }

    #[cfg(not(unix))]
    fn of(_meta: &std::fs::Metadata) -> Option<Self> {
        None
    }
}

#[cfg(unix)]
fn same_file_stat(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.ino(), a.size(), a.mtime(), a.mtime_nsec()) == (b.ino(), b.size(), b.mtime(), b.mtime_nsec())
}

#[cfg(not(unix))]
fn same_file_stat(_a: &std::fs::Metadata, _b: &std::fs::Metadata) -> bool {
    false
}

/// Whether the file measured `meta` is, for libgit2, unchanged from its index entry without
/// reading it: a plain stage-0 entry of a regular file, every stat field equal (libgit2
/// compares mode, size, mtime, ctime, inode, uid and gid; the device too here), and not
/// racy (modified before the index file was written). Anything else is left to libgit2.
#[cfg(unix)]
fn unchanged_on_disk(
    entry: &git2::IndexEntry,
    meta: &std::fs::Metadata,
    stamp: IndexStamp,
) -> bool {
    use std::os::unix::fs::MetadataExt;
    // Stage bits, assume-valid, extended flags (intent-to-add, skip-worktree).
    const NOT_PLAIN: u16 = 0x3000 | 0x8000 | 0x4000;
    if entry.flags & NOT_PLAIN != 0 || entry.flags_extended != 0 {
        return false;
    }
    if entry.mode != 0o100644 && entry.mode != 0o100755 {
        return false;
    }
    if !meta.file_type().is_file() {
        return false;
    }
    let mode = if meta.mode() & 0o100 != 0 {
        0o100755
    } else {
        0o100644
    };
    // The index keeps 32 bits of each field.
    let same = mode == entry.mode
        && meta.size() as u32 == entry.file_size
        && meta.mtime() as i32 == entry.mtime.seconds()
        && meta.mtime_nsec() as u32 == entry.mtime.nanoseconds()
        && meta.ctime() as i32 == entry.ctime.seconds()
        && meta.ctime_nsec() as u32 == entry.ctime.nanoseconds()
        && meta.ino() as u32 == entry.ino
        && meta.dev() as u32 == entry.dev
        && meta.uid() == entry.uid
        && meta.gid() == entry.gid;
    let racy = (meta.mtime(), meta.mtime_nsec()) >= (stamp.seconds, stamp.nanoseconds);
    same && !racy
}

#[cfg(not(unix))]
fn unchanged_on_disk(
    _entry: &git2::IndexEntry,
    _meta: &std::fs::Metadata,
    _stamp: IndexStamp,
) -> bool {
    false
}

fn ruby_diff_options() -> DiffOptions {
    let mut opts = DiffOptions::new();
    // Only Ruby files matter: libgit2 skips the rest without reading them.
    opts.pathspec("*.rb")
        .include_typechange(true)
        .ignore_submodules(true);
    opts
}

fn find_renames(diff: &mut git2::Diff<'_>, untracked: bool) -> Result<()> {
    let mut find = DiffFindOptions::new();
    find.renames(true).for_untracked(untracked);
    diff.find_similar(Some(&mut find))
        .map_err(|e| git_error(&e))
}

fn path_text(path: Option<&Path>) -> Option<String> {
    let path = path?;
    let mut out = String::new();
    for (i, c) in path.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&c.as_os_str().to_string_lossy());
    }
    Some(out)
}

fn changes_of(diff: &git2::Diff<'_>) -> Vec<Change> {
    let mut out = Vec::new();
    for delta in diff.deltas() {
        let new_path = path_text(delta.new_file().path());
        let old_path = path_text(delta.old_file().path());
        let change = match delta.status() {
            Delta::Added | Delta::Untracked => new_path.map(|path| Change {
                path,
                old_path: None,
                kind: ChangeKind::Added,
            }),
            Delta::Modified | Delta::Typechange => new_path.map(|path| Change {
                path,
                old_path: None,
                kind: ChangeKind::Modified,
            }),
            Delta::Renamed => new_path.map(|path| Change {
                path,
                old_path: old_path.clone(),
                kind: ChangeKind::Renamed,
            }),
            Delta::Copied => new_path.map(|path| Change {
                path,
                old_path: None,
                kind: ChangeKind::Added,
            }),
            Delta::Deleted => old_path.map(|path| Change {
                path,
                old_path: None,
                kind: ChangeKind::Deleted,
            }),
            _ => None,
        };
        if let Some(change) = change {
            if change.path.ends_with(".rb") {
                out.push(change);
            }
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.path == b.path);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A repository with two Ruby files committed, its working tree in a temporary folder.
    fn fresh_repo() -> (tempfile::TempDir, Repo) {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join("app/models")).unwrap();
        std::fs::write(
            dir.path().join("app/models/order.rb"),
            "class Order\n  def total; end\nend\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("app/models/user.rb"),
            "class User\n  def name; end\nend\n",
        )
        .unwrap();
        commit_all(&git, "first");
        let repo = Repo::discover(dir.path()).unwrap();
        (dir, repo)
    }

    fn commit_all(git: &Repository, message: &str) {
        let mut index = git.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        index.write().unwrap();
        let tree = git.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        let parents: Vec<git2::Commit<'_>> = git
            .head()
            .ok()
            .and_then(|h| h.peel_to_commit().ok())
            .into_iter()
            .collect();
        let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
        git.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
            .unwrap();
    }

    /// What libgit2 says of each file, and what the plain comparison says.
    fn both(repo: &Repo, dir: &Path, rels: &[&str]) -> (Vec<bool>, Option<Vec<bool>>) {
        let base = repo.head_base();
        let whole = repo.working_tree_changes(&base).unwrap();
        let git: Vec<bool> = rels
            .iter()
            .map(|rel| whole.iter().any(|c| c.path == *rel))
            .collect();
        let plain = repo
            .index_changes(&base)
            .unwrap()
            .plain()
            .expect("no filter can apply");
        let files: Vec<(&str, PathBuf)> = rels.iter().map(|r| (*r, dir.join(r))).collect();
        let files: Vec<(&str, &Path)> = files.iter().map(|(r, p)| (*r, p.as_path())).collect();
        let told = repo
            .modified_plainly(&base, &files, plain, 1 << 20)
            .unwrap();
        (git, told)
    }

    #[test]
    fn a_file_compared_by_its_content_is_changed_exactly_when_git_says_so() {
        let (dir, repo) = fresh_repo();
        let rels = ["app/models/order.rb", "app/models/user.rb"];
        // Nothing changed.
        let (git, told) = both(&repo, dir.path(), &rels);
        assert_eq!(git, vec![false, false]);
        assert_eq!(told, Some(git));
        // One edited, then its edit undone with a new inode and time.
        let order = dir.path().join(rels[0]);
        std::fs::write(&order, "class Order\n  def total; 1; end\nend\n").unwrap();
        let (git, told) = both(&repo, dir.path(), &rels);
        assert_eq!(git, vec![true, false]);
        assert_eq!(told, Some(git));
        std::fs::remove_file(&order).unwrap();
        std::fs::write(&order, "class Order\n  def total; end\nend\n").unwrap();
        let (git, told) = both(&repo, dir.path(), &rels);
        assert_eq!(git, vec![false, false]);
        assert_eq!(told, Some(git));
        // Made executable: the same content, a new mode.
        let user = dir.path().join(rels[1]);
        std::fs::set_permissions(&user, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (git, told) = both(&repo, dir.path(), &rels);
        assert_eq!(git, vec![false, true]);
        assert_eq!(told, Some(git));
    }

    #[test]
    fn a_filter_that_could_apply_leaves_the_comparison_to_git() {
        // An attributes file in the index.
        let (dir, repo) = fresh_repo();
        std::fs::write(dir.path().join(".gitattributes"), "*.rb text\n").unwrap();
        commit_all(&Repository::open(dir.path()).unwrap(), "attributes");
        let base = repo.head_base();
        assert_eq!(repo.index_changes(&base).unwrap().plain(), None);

        // `core.autocrlf`.
        let (dir, repo) = fresh_repo();
        let git = Repository::open(dir.path()).unwrap();
        git.config()
            .unwrap()
            .set_str("core.autocrlf", "input")
            .unwrap();
        assert_eq!(repo.index_changes(&repo.head_base()).unwrap().plain(), None);

        // The repository's own attributes file.
        let (dir, repo) = fresh_repo();
        std::fs::create_dir_all(dir.path().join(".git/info")).unwrap();
        std::fs::write(dir.path().join(".git/info/attributes"), "*.rb ident\n").unwrap();
        assert_eq!(repo.index_changes(&repo.head_base()).unwrap().plain(), None);

        // An attributes file in a folder above the file, not yet in the index: the
        // repository was plain when the index was read, the file is no longer.
        let (dir, repo) = fresh_repo();
        let base = repo.head_base();
        let plain = repo.index_changes(&base).unwrap().plain().unwrap();
        std::fs::write(dir.path().join("app/.gitattributes"), "*.rb ident\n").unwrap();
        let path = dir.path().join("app/models/order.rb");
        let told = repo
            .modified_plainly(&base, &[("app/models/order.rb", &path)], plain, 1 << 20)
            .unwrap();
        assert_eq!(told, None);
        // A file the base does not have is not told either.
        let new = dir.path().join("app/models/coupon.rb");
        std::fs::write(&new, "class Coupon; end\n").unwrap();
        std::fs::remove_file(dir.path().join("app/.gitattributes")).unwrap();
        let told = repo
            .modified_plainly(&base, &[("app/models/coupon.rb", &new)], plain, 1 << 20)
            .unwrap();
        assert_eq!(told, None);
    }
}
