//! The warm index: what the server keeps between calls so that a call re-reads only what
//! changed on disk.
//!
//! - **The tree**: every folder and every Ruby file of the working tree (`.gitignore`d
//!   ones left out, git-tracked ones always in) with its stamp (mtime, size, inode).
//!   [`Index::refresh`] runs once per tool call and notes which files changed. On Linux
//!   (with the `mcp` feature) the folders are watched with inotify, so a call costs what
//!   changed: the files named by the events are stat'ed again, and an event on a folder,
//!   a `.gitignore`, or a lost event queue means the tree is walked again. Elsewhere, or
//!   when the watches cannot be set up (the system's watch limit), every folder and file
//!   is stat'ed at each call (in parallel): a folder whose stamp changed, or a changed
//!   `.gitignore`, means the tree is walked again.
//! - **Facts** per file, kept with the stamp and the content digest (XXH3-128) they were
//!   made from: a file is read again only when its stamp changed, and parsed again only
//!   when its digest changed too. A stamp is not trusted for a file modified within
//!   [`RACY`] of being read (two writes in the same clock tick look alike): such a file
//!   is read and digested at each call until it is older.
//! - **The facts cache on disk** (`index::cache`, when the server was given one): a file
//!   the session has not seen yet is taken from it as the command line takes it (by its
//!   stamp, else by its digest, else parsed), so a new session over a tree a command
//!   already indexed parses only what changed. After a call that learnt something the
//!   session's facts are written back to it on a thread of its own (one write at a time;
//!   dropping the index waits for the last).
//! - **Base versions** (blobs from git) by digest.
//! - **The file list** of the last walk of the scope, and **git's changes** of the last
//!   call: when only file contents changed since, the changes are asked of git for those
//!   files alone ([`Repo::working_tree_changes_of`]), unless one of them takes part in a
//!   rename or could (then the whole tree is asked again, as it is when HEAD, the base,
//!   the git index or the tree's structure changed).
//!
//! Each answer is what the command line would compute now; the cache only decides how
//! little must be read to know it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

use crate::app::Warm;
use crate::error::Result;
use crate::git::{Base, Change, ChangeKind, Repo};
use crate::index::cache::{self as disk, FactsCache};
use crate::index::walk::{Found, Scope, SourceFile};
use crate::index::{self, FileFacts};

pub use crate::index::stamp::{Stamp, RACY};

/// Base versions kept (by digest) before the oldest are dropped.
const MAX_BLOBS: usize = 8192;

/// What the index did, for `status` and the bench.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Tool calls refreshed.
    pub refreshes: u64,
    /// Walks of the whole tree.
    pub walks: u64,
    /// Files read from disk.
    pub reads: u64,
    /// Files parsed (read and digest changed, or never seen).
    pub parses: u64,
    /// Files answered from memory.
    pub hits: u64,
    /// Changes asked of git for the whole tree.
    pub full_git_status: u64,
    /// Changes asked of git for the changed files only.
    pub partial_git_status: u64,
    /// Files first seen in the session whose facts the cache on disk answered (not
    /// parsed; `reads` counts those it had to read to verify).
    pub disk_hits: u64,
    /// Writes of the cache on disk.
    pub disk_writes: u64,
}

/// The session's warm index over one project root.
#[derive(Debug)]
pub struct Index {
    root: PathBuf,
    /// Folders never watched: the metadata folder, written by the commands themselves.
    skip: Vec<PathBuf>,
    /// Whether to watch folders with inotify when it is there (else stat at every call).
    watch: bool,
    /// The facts cache on disk, when there is one.
    disk: Option<Arc<FactsCache>>,
    /// The write of the cache on disk under way.
    saving: Mutex<Option<std::thread::JoinHandle<()>>>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    tree: Option<Tree>,
    /// Generation of the last refresh (1 after the first).
    generation: u64,
    /// Generation of the last walk (structure change).
    restructured: u64,
    /// Generation of the last time a Ruby file appeared or disappeared (watched mode).
    listed: u64,
    /// The inotify watches over the tree's folders, when they could be set up.
    #[cfg(all(feature = "mcp", target_os = "linux"))]
    watcher: Option<watch::Watcher>,
    /// Files whose stamp changed, with the generation it was seen in.
    edits: Vec<(u64, String)>,
    facts: FxHashMap<String, Entry>,
    blobs: FxHashMap<[u8; 32], Arc<FileFacts>>,
    files: Option<(u64, Vec<SourceFile>, Vec<String>)>,
    changes: Option<CachedChanges>,
    counters: Counters,
    /// Facts learnt since the cache on disk was last written.
    unsaved: bool,
}

#[derive(Debug)]
struct Tree {
    dirs: Vec<(PathBuf, Option<Stamp>)>,
    /// Ruby files and `.gitignore` files by root-relative path.
    files: FxHashMap<String, Option<Stamp>>,
    /// When the stamps were taken.
    seen: SystemTime,
}

#[derive(Debug)]
struct Entry {
    stamp: Stamp,
    digest: index::ContentDigest,
    /// When the stamp was taken (nanoseconds since the epoch).
    seen_ns: i128,
    racy: bool,
    facts: Arc<FileFacts>,
}

#[derive(Debug)]
struct CachedChanges {
    key: ChangesKey,
    generation: u64,
    changes: Vec<Change>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ChangesKey {
    base: Option<String>,
    head: Option<String>,
    git_index: Option<Stamp>,
}

impl Index {
    /// An empty index over `root` (canonical); `skip` are folders never watched.
    pub fn new(root: PathBuf, skip: Vec<PathBuf>) -> Self {
        Index {
            root,
            skip,
            watch: true,
            disk: None,
            saving: Mutex::new(None),
            state: Mutex::new(State::default()),
        }
    }

    /// Starts from the facts cache on disk `disk`, and writes what the session learns back
    /// to it.
    pub fn with_disk(mut self, disk: Arc<FactsCache>) -> Self {
        self.disk = Some(disk);
        self
    }

    /// Writes the session's facts to the cache on disk when some were learnt since the
    /// last write, on a thread of its own (after the one before it finished). `write` is
    /// the atomic write; a failed or refused write only leaves the file as it was.
    pub fn save(&self, write: fn(&crate::guard::Target, &[u8]) -> bool) {
        let Some(disk) = &self.disk else {
            return;
        };
        let held: Vec<(String, disk::Key, Arc<FileFacts>)> = {
            let mut state = self.state();
            if !state.unsaved {
                return;
            }
            state.unsaved = false;
            state.counters.disk_writes += 1;
            state
                .facts
                .iter()
                .map(|(rel, e)| {
                    let key = disk::Key {
                        stamp: e.stamp,
                        made_ns: e.seen_ns,
                        digest: e.digest,
                        digests: true,
                    };
                    (rel.clone(), key, Arc::clone(&e.facts))
                })
                .collect()
        };
        let disk = Arc::clone(disk);
        let mut saving = self
            .saving
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(before) = saving.take() {
            let _ = before.join();
        }
        *saving = std::thread::Builder::new()
            .name("rspec-scout-cache".to_string())
            .spawn(move || {
                disk.save_with(&held, &write);
            })
            .ok();
    }

    /// Waits for the write of the cache on disk under way, if any.
    pub fn wait_for_save(&self) {
        let handle = self
            .saving
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }

    /// Never watches folders: every folder and file is stat'ed at each call (what happens
    /// without inotify).
    pub fn unwatched(mut self) -> Self {
        self.watch = false;
        self
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic in a call leaves the cache as it was: stale entries are only ever
        // re-checked, so the state stays usable.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// What the index did so far.
    pub fn counters(&self) -> Counters {
        self.state().counters
    }

    /// Forgets the walk of the scope (the configuration changed).
    pub fn forget_files(&self) {
        self.state().files = None;
    }

    /// Notes what changed on disk since the last call: stats every watched folder and
    /// file, walks the tree again when its structure changed. Runs once per tool call.
    pub fn refresh(&self) {
        let mut state = self.state();
        state.generation += 1;
        state.counters.refreshes += 1;
        let generation = state.generation;
        #[allow(unused_mut)]
        let mut restructure = state.tree.is_none();
        // Watched: the events say what changed.
        #[cfg(all(feature = "mcp", target_os = "linux"))]
        if !restructure && state.watcher.is_some() {
            if !self.watched_refresh(&mut state) {
                return;
            }
            restructure = true;
        }
        // Not watched: a folder whose stamp changed had files added, removed or renamed.
        let restructure = restructure
            || state.tree.as_ref().is_some_and(|tree| {
                tree.dirs.par_iter().any(|(dir, stamp)| {
                    let now = Stamp::of(dir);
                    now != *stamp || now.is_some_and(|s| s.racy(tree.seen))
                })
            });
        if restructure {
            let old = state.tree.take();
            #[cfg(all(feature = "mcp", target_os = "linux"))]
            let dropped = state.watcher.take();
            #[cfg(all(feature = "mcp", target_os = "linux"))]
            drop(dropped);
            let tree = walk_tree(&self.root, &self.skip);
            state.counters.walks += 1;
            #[cfg(all(feature = "mcp", target_os = "linux"))]
            let tree = {
                // Watches first, then the stamps again: a write between the walk and the
                // watches is seen either way.
                state.watcher = if self.watch {
                    watch::Watcher::new(tree.dirs.iter().map(|(d, _)| d.as_path()))
                } else {
                    None
                };
                let mut tree = tree;
                if state.watcher.is_some() {
                    let seen = SystemTime::now();
                    let root = &self.root;
                    let fresh: Vec<(String, Option<Stamp>)> = tree
                        .files
                        .par_iter()
                        .map(|(rel, _)| (rel.clone(), Stamp::of(&root.join(rel))))
                        .collect();
                    for (rel, stamp) in fresh {
                        tree.files.insert(rel, stamp);
                    }
                    tree.seen = seen;
                }
                tree
            };
            // Files new, changed or gone since the last walk.
            let mut edited: Vec<&String> = tree
                .files
                .iter()
                .filter(|(rel, stamp)| {
                    let before = old
                        .as_ref()
                        .and_then(|t| t.files.get(*rel))
                        .copied()
                        .flatten();
                    before != **stamp || stamp.is_some_and(|s| s.racy(tree.seen))
                })
                .map(|(rel, _)| rel)
                .collect();
            if let Some(old) = &old {
                edited.extend(
                    old.files
                        .keys()
                        .filter(|rel| !tree.files.contains_key(*rel)),
                );
            }
            edited.sort_unstable();
            let edited: Vec<(u64, String)> = edited
                .into_iter()
                .map(|rel| (generation, rel.clone()))
                .collect();
            state.edits.extend(edited);
            // Facts of files that are gone are dropped.
            state.facts.retain(|rel, _| tree.files.contains_key(rel));
            state.restructured = generation;
            state.tree = Some(tree);
            return;
        }
        let Some(tree) = state.tree.as_mut() else {
            return;
        };
        let seen = SystemTime::now();
        let files: Vec<(&String, &Option<Stamp>)> = tree.files.iter().collect();
        let root = &self.root;
        let changed: Vec<(String, Option<Stamp>)> = files
            .par_iter()
            .filter_map(|(rel, stamp)| {
                let now = Stamp::of(&root.join(rel));
                let racy = now.is_some_and(|s| s.racy(seen));
                (now != **stamp || racy).then(|| ((*rel).clone(), now))
            })
            .collect();
        let mut restructured = false;
        let mut edited = Vec::with_capacity(changed.len());
        for (rel, stamp) in changed {
            if rel.ends_with(".gitignore") {
                restructured = true;
            }
            tree.files.insert(rel.clone(), stamp);
            edited.push((generation, rel));
        }
        state.edits.extend(edited);
        if let Some(tree) = state.tree.as_mut() {
            tree.seen = seen;
        }
        if restructured {
            state.restructured = generation;
            state.tree = Some(walk_tree(&self.root, &self.skip));
            state.counters.walks += 1;
        }
        // The log only needs what a cache made before could still ask for.
        let oldest = [
            state.changes.as_ref().map(|c| c.generation),
            state.files.as_ref().map(|f| f.0),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(generation);
        state.edits.retain(|(g, _)| *g >= oldest);
    }

    /// The facts of a file on disk, shared with the index: read only when its stamp
    /// changed, parsed only when its digest changed too.
    pub fn shared_facts(&self, file: &SourceFile, max_size: u64) -> Arc<FileFacts> {
        let (stamp, cached) = {
            let state = self.state();
            let stamp = self.current_stamp(&state, &file.rel, &file.path);
            let cached = state.facts.get(&file.rel).and_then(|entry| {
                (Some(entry.stamp) == stamp && !entry.racy && entry.stamp.size <= max_size)
                    .then(|| Arc::clone(&entry.facts))
            });
            (stamp, cached)
        };
        if let Some(facts) = cached {
            self.state().counters.hits += 1;
            return facts;
        }
        let first_seen = !self.state().facts.contains_key(&file.rel);
        if let (true, Some(disk)) = (first_seen, &self.disk) {
            return self.first_from_disk(disk, file, max_size);
        }
        let seen = SystemTime::now();
        let bytes = match index::read_source(&file.path, max_size) {
            Ok(bytes) => bytes,
            // Not cached: the next call tries again, as the command line would.
            Err(_) => return Arc::new(index::index_file(file, max_size)),
        };
        let digest = index::content_digest(&bytes);
        let mut state = self.state();
        state.counters.reads += 1;
        let stamp = stamp.or_else(|| Stamp::of(&file.path));
        if let Some(entry) = state.facts.get_mut(&file.rel) {
            if entry.digest == digest {
                let mut restamped = false;
                if let Some(stamp) = stamp {
                    restamped = entry.stamp != stamp;
                    entry.stamp = stamp;
                    entry.seen_ns = index::stamp::nanos_since_epoch(seen);
                    entry.racy = stamp.racy(seen);
                }
                let facts = Arc::clone(&entry.facts);
                state.counters.hits += 1;
                state.unsaved |= restamped;
                drop(state);
                return facts;
            }
        }
        state.counters.parses += 1;
        drop(state);
        let facts = Arc::new(index::extract(&file.rel, &bytes));
        if let Some(stamp) = stamp {
            let entry = Entry {
                stamp,
                digest,
                seen_ns: index::stamp::nanos_since_epoch(seen),
                racy: stamp.racy(seen),
                facts: Arc::clone(&facts),
            };
            let mut state = self.state();
            state.facts.insert(file.rel.clone(), entry);
            state.unsaved = true;
        }
        facts
    }

    /// The facts of a file the session has not seen, as the cache on disk answers them.
    fn first_from_disk(
        &self,
        disk: &FactsCache,
        file: &SourceFile,
        max_size: u64,
    ) -> Arc<FileFacts> {
        let found = disk.lookup(file, max_size, true);
        let facts = Arc::new(found.facts);
        let mut state = self.state();
        match found.how {
            disk::How::Hit => state.counters.disk_hits += 1,
            disk::How::Verified { .. } => {
                state.counters.reads += 1;
                state.counters.disk_hits += 1;
            }
            disk::How::Parsed => {
                state.counters.reads += 1;
                state.counters.parses += 1;
            }
            // Not kept: the next call tries again, as the command line would.
            disk::How::Unread => return facts,
        }
        if let Some(key) = found.key {
            let racy = key.stamp.racy_ns(key.made_ns);
            state.facts.insert(
                file.rel.clone(),
                Entry {
                    stamp: key.stamp,
                    digest: key.digest,
                    seen_ns: key.made_ns,
                    racy,
                    facts: Arc::clone(&facts),
                },
            );
            if !matches!(found.how, disk::How::Hit) {
                state.unsaved = true;
            }
        }
        facts
    }

    /// Refresh from the inotify events: `true` when the tree must be walked again.
    #[cfg(all(feature = "mcp", target_os = "linux"))]
    fn watched_refresh(&self, state: &mut State) -> bool {
        let Some(watcher) = state.watcher.as_mut() else {
            return false;
        };
        let paths = match watcher.drain() {
            watch::Seen::Files(paths) => paths,
            watch::Seen::Everything => return true,
        };
        let generation = state.generation;
        let mut edited: Vec<(u64, String)> = Vec::new();
        let mut listed = false;
        for path in paths {
            let Some(rel) = crate::index::walk::relative_to(&self.root, &path) else {
                continue;
            };
            if rel.ends_with(".gitignore") {
                return true;
            }
            if !rel.ends_with(".rb") {
                continue;
            }
            let stamp = Stamp::of(&path);
            if let Some(tree) = state.tree.as_mut() {
                let before = tree.files.insert(rel.clone(), stamp);
                if before.flatten().is_some() != stamp.is_some() {
                    listed = true;
                }
            }
            edited.push((generation, rel));
        }
        edited.sort();
        edited.dedup();
        state.edits.extend(edited);
        if listed {
            state.listed = generation;
        }
        false
    }

    /// The stamp of a watched file as of this call's refresh, or a fresh stat.
    fn current_stamp(&self, state: &State, rel: &str, path: &Path) -> Option<Stamp> {
        match state.tree.as_ref().and_then(|t| t.files.get(rel)) {
            Some(stamp) => *stamp,
            None => Stamp::of(path),
        }
    }
}

impl Warm for Index {
    fn files(&self, root: &Path, scope: &Scope, threads: usize) -> Found {
        {
            let state = self.state();
            if let Some((generation, files, warnings)) = &state.files {
                if root == self.root
                    && *generation >= state.restructured
                    && *generation >= state.listed
                {
                    return Found {
                        files: files.clone(),
                        warnings: warnings.clone(),
                    };
                }
            }
        }
        let found = crate::index::walk::collect_all(root, scope, threads);
        if root == self.root {
            let mut state = self.state();
            state.files = Some((
                state.generation,
                found.files.clone(),
                found.warnings.clone(),
            ));
        }
        found
    }

    fn facts(&self, file: &SourceFile, max_size: u64) -> FileFacts {
        (*self.shared_facts(file, max_size)).clone()
    }

    fn facts_of(&self, rel: &str, bytes: &[u8]) -> FileFacts {
        let mut hasher = Sha256::new();
        hasher.update(rel.as_bytes());
        hasher.update([0u8]);
        hasher.update(bytes);
        let digest: [u8; 32] = hasher.finalize().into();
        let cached = self.state().blobs.get(&digest).cloned();
        if let Some(facts) = cached {
            self.state().counters.hits += 1;
            return (*facts).clone();
        }
        let facts = index::extract(rel, bytes);
        let mut state = self.state();
        state.counters.parses += 1;
        if state.blobs.len() >= MAX_BLOBS {
            state.blobs.clear();
        }
        state.blobs.insert(digest, Arc::new(facts.clone()));
        facts
    }

    fn changes(&self, repo: &Repo, base: &Base) -> Result<Vec<Change>> {
        if repo.root() != self.root {
            return repo.working_tree_changes(base);
        }
        let key = ChangesKey {
            base: base.commit.map(|c| c.to_string()),
            head: repo.head_base().commit.map(|c| c.to_string()),
            git_index: Stamp::of(&repo.git_dir().join("index")),
        };
        let (generation, edited, cached) = {
            let state = self.state();
            let usable = state
                .changes
                .as_ref()
                .filter(|c| c.key == key && c.generation >= state.restructured && c.generation > 0);
            let edited: Vec<String> = match usable {
                Some(c) => {
                    let mut edited: Vec<String> = state
                        .edits
                        .iter()
                        .filter(|(g, _)| *g > c.generation)
                        .map(|(_, rel)| rel.clone())
                        .collect();
                    edited.sort();
                    edited.dedup();
                    edited
                }
                None => Vec::new(),
            };
            (state.generation, edited, usable.map(|c| c.changes.clone()))
        };
        let changes = match cached {
            Some(changes) if edited.is_empty() => changes,
            Some(changes) => match patch(repo, base, changes, &edited)? {
                Some(patched) => {
                    self.state().counters.partial_git_status += 1;
                    patched
                }
                None => self.full_changes(repo, base)?,
            },
            None => self.full_changes(repo, base)?,
        };
        self.state().changes = Some(CachedChanges {
            key,
            generation,
            changes: changes.clone(),
        });
        Ok(changes)
    }
}

impl Index {
    fn full_changes(&self, repo: &Repo, base: &Base) -> Result<Vec<Change>> {
        self.state().counters.full_git_status += 1;
        repo.working_tree_changes(base)
    }
}

/// The changes of the last call, brought up to date for the `edited` files alone; `None`
/// when a rename could be involved (the whole tree must be asked again).
fn patch(
    repo: &Repo,
    base: &Base,
    mut changes: Vec<Change>,
    edited: &[String],
) -> Result<Option<Vec<Change>>> {
    let pairs_possible = changes
        .iter()
        .any(|c| matches!(c.kind, ChangeKind::Deleted | ChangeKind::Renamed));
    let was = |rel: &str| {
        changes
            .iter()
            .find(|c| c.path == rel || c.old_path.as_deref() == Some(rel))
            .map(|c| c.kind)
    };
    for rel in edited {
        match was(rel) {
            Some(ChangeKind::Renamed | ChangeKind::Deleted) => return Ok(None),
            Some(ChangeKind::Added) if pairs_possible => return Ok(None),
            _ => {}
        }
    }
    let paths: Vec<&str> = edited.iter().map(String::as_str).collect();
    let now = repo.working_tree_changes_of(base, &paths)?;
    for change in &now {
        match change.kind {
            ChangeKind::Renamed | ChangeKind::Deleted => return Ok(None),
            ChangeKind::Added if pairs_possible => return Ok(None),
            _ => {}
        }
    }
    changes.retain(|c| !edited.contains(&c.path));
    changes.extend(now);
    changes.sort();
    changes.dedup_by(|a, b| a.path == b.path);
    Ok(Some(changes))
}

/// Every folder, Ruby file and `.gitignore` under `root` that git would look at (ignored
/// files left out; hidden ones kept), plus every Ruby file git tracks.
fn walk_tree(root: &Path, skip: &[PathBuf]) -> Tree {
    let seen = SystemTime::now();
    let mut dirs = Vec::new();
    let mut files: FxHashMap<String, Option<Stamp>> = FxHashMap::default();
    let skip_dirs: Vec<PathBuf> = skip.to_vec();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .ignore(false)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .parents(true)
        .follow_links(false)
        .filter_entry(move |entry| {
            let name = entry.file_name();
            !(name == ".git" || skip_dirs.iter().any(|s| entry.path() == s))
        })
        .build();
    for entry in walker.flatten() {
        let Some(file_type) = entry.file_type() else {
            continue;
        };
        let stamp = entry.metadata().ok().map(|m| Stamp::from_meta(&m));
        if file_type.is_dir() {
            dirs.push((entry.path().to_path_buf(), stamp));
        } else if file_type.is_file() {
            let name = entry.file_name();
            if name == ".gitignore" || entry.path().extension().is_some_and(|e| e == "rb") {
                if let Some(rel) = crate::index::walk::relative_to(root, entry.path()) {
                    files.insert(rel, stamp);
                }
            }
        }
    }
    // Tracked files that a `.gitignore` also matches still count for git.
    if let Ok(repo) = Repo::discover(root) {
        if repo.root() == root {
            for rel in repo.tracked_ruby_files().unwrap_or_default() {
                let path = root.join(&rel);
                files.entry(rel).or_insert_with(|| Stamp::of(&path));
            }
        }
    }
    Tree { dirs, files, seen }
}

/// The tree's folders watched with inotify.
#[cfg(all(feature = "mcp", target_os = "linux"))]
mod watch {
    use std::path::{Path, PathBuf};

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};
    use rustc_hash::FxHashMap;

    /// What happened since the last look.
    pub(super) enum Seen {
        /// These files were written, created, removed or renamed.
        Files(Vec<PathBuf>),
        /// A folder changed, or events were lost: walk again.
        Everything,
    }

    /// An inotify instance with a watch per folder.
    pub(super) struct Watcher {
        inotify: Inotify,
        dirs: FxHashMap<WatchDescriptor, PathBuf>,
        buffer: Vec<u8>,
    }

    impl std::fmt::Debug for Watcher {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "Watcher({} folders)", self.dirs.len())
        }
    }

    impl Watcher {
        /// Watches every folder; `None` when inotify or one watch cannot be set up.
        pub(super) fn new<'a>(dirs: impl Iterator<Item = &'a Path>) -> Option<Watcher> {
            let inotify = Inotify::init().ok()?;
            let mask = WatchMask::MODIFY
                | WatchMask::CLOSE_WRITE
                | WatchMask::ATTRIB
                | WatchMask::CREATE
                | WatchMask::DELETE
                | WatchMask::MOVED_FROM
                | WatchMask::MOVED_TO
                | WatchMask::DELETE_SELF
                | WatchMask::MOVE_SELF
                | WatchMask::ONLYDIR;
            let mut watches = inotify.watches();
            let mut map = FxHashMap::default();
            for dir in dirs {
                let wd = watches.add(dir, mask).ok()?;
                map.insert(wd, dir.to_path_buf());
            }
            Some(Watcher {
                inotify,
                dirs: map,
                buffer: vec![0u8; 64 * 1024],
            })
        }

        /// Every event since the last call, without waiting.
        pub(super) fn drain(&mut self) -> Seen {
            let mut files = Vec::new();
            loop {
                let events = match self.inotify.read_events(&mut self.buffer) {
                    Ok(events) => events,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(_) => return Seen::Everything,
                };
                let mut any = false;
                for event in events {
                    any = true;
                    let structural = EventMask::Q_OVERFLOW
                        | EventMask::IGNORED
                        | EventMask::DELETE_SELF
                        | EventMask::MOVE_SELF
                        | EventMask::ISDIR;
                    if event.mask.intersects(structural) {
                        return Seen::Everything;
                    }
                    let (Some(dir), Some(name)) = (self.dirs.get(&event.wd), event.name) else {
                        return Seen::Everything;
                    };
                    files.push(dir.join(name));
                }
                if !any {
                    break;
                }
            }
            Seen::Files(files)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("app/models")).unwrap();
        std::fs::write(
            root.join("app/models/payment.rb"),
            "class Payment\n  def amount; end\nend\n",
        )
        .unwrap();
        (dir, root)
    }

    fn source(root: &Path, rel: &str) -> SourceFile {
        SourceFile {
            rel: rel.to_string(),
            path: root.join(rel),
        }
    }

    /// The index as the server makes it (watched when inotify is built in), and unwatched.
    fn both(root: &Path) -> [Index; 2] {
        [
            Index::new(root.to_path_buf(), Vec::new()),
            Index::new(root.to_path_buf(), Vec::new()).unwatched(),
        ]
    }

    #[test]
    fn facts_are_read_again_only_when_the_file_changed() {
        let (_dir, root) = project();
        for index in both(&root) {
            facts_follow_the_file(&index);
        }
    }

    fn facts_follow_the_file(index: &Index) {
        let root = index.root.clone();
        std::fs::write(
            root.join("app/models/payment.rb"),
            "class Payment\n  def amount; end\nend\n",
        )
        .unwrap();
        let file = source(&root, "app/models/payment.rb");
        index.refresh();
        let first = index.facts(&file, 1 << 20);
        assert_eq!(first, index::index_file(&file, 1 << 20));
        std::fs::write(
            &file.path,
            "class Payment\n  def amount; end\n  def refund; end\nend\n",
        )
        .unwrap();
        index.refresh();
        let second = index.facts(&file, 1 << 20);
        let names: Vec<&str> = second.methods.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["amount", "refund"]);
        assert_eq!(second, index::index_file(&file, 1 << 20));
        // Just written, so racy: read and digested again, but not parsed again.
        let before = index.counters();
        index.refresh();
        assert_eq!(index.facts(&file, 1 << 20), second);
        let after = index.counters();
        assert_eq!(after.parses, before.parses);
    }

    #[test]
    fn an_old_unchanged_file_is_answered_from_memory() {
        let (_dir, root) = project();
        let path = root.join("app/models/payment.rb");
        let old = SystemTime::now() - Duration::from_secs(60);
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(old).unwrap();
        drop(file);
        for index in both(&root) {
            let source = source(&root, "app/models/payment.rb");
            index.refresh();
            let _ = index.facts(&source, 1 << 20);
            let before = index.counters();
            index.refresh();
            let _ = index.facts(&source, 1 << 20);
            let after = index.counters();
            assert_eq!((after.reads, after.hits), (before.reads, before.hits + 1));
        }
    }

    #[test]
    fn the_scope_listing_follows_files_added_and_removed() {
        let (_dir, root) = project();
        let scope = Scope::new(&crate::index::walk::ScopeRules::default()).unwrap();
        for index in both(&root) {
            let rels = |index: &Index| -> Vec<String> {
                index.refresh();
                index
                    .files(&root, &scope, 1)
                    .files
                    .into_iter()
                    .map(|f| f.rel)
                    .collect()
            };
            assert_eq!(rels(&index), ["app/models/payment.rb"]);
            std::fs::write(root.join("app/models/order.rb"), "class Order; end\n").unwrap();
            assert_eq!(
                rels(&index),
                ["app/models/order.rb", "app/models/payment.rb"]
            );
            std::fs::create_dir_all(root.join("app/services")).unwrap();
            std::fs::write(root.join("app/services/pay.rb"), "class Pay; end\n").unwrap();
            assert_eq!(
                rels(&index),
                [
                    "app/models/order.rb",
                    "app/models/payment.rb",
                    "app/services/pay.rb"
                ]
            );
            std::fs::remove_file(root.join("app/models/order.rb")).unwrap();
            std::fs::remove_dir_all(root.join("app/services")).unwrap();
            assert_eq!(rels(&index), ["app/models/payment.rb"]);
        }
    }

    fn write(target: &crate::guard::Target, bytes: &[u8]) -> bool {
        crate::metadata::write_cache_atomic(target, bytes).is_ok()
    }

    /// A session over `root` started from the facts cache on disk, as the server starts.
    fn session(root: &Path) -> Index {
        let dir = root.join("tmp/rspec_scout");
        Index::new(root.to_path_buf(), Vec::new())
            .unwatched()
            .with_disk(Arc::new(FactsCache::open(root, &dir)))
    }

    fn age(path: &Path) {
        let old = SystemTime::now() - Duration::from_secs(3600);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(old).unwrap();
    }

    #[test]
    fn a_session_starts_from_the_cache_on_disk_and_writes_back_what_it_learnt() {
        let (_dir, root) = project();
        std::fs::write(
            root.join("app/models/order.rb"),
            "class Order
  def total; end
  def cancel!; end
end
",
        )
        .unwrap();
        let rels = ["app/models/order.rb", "app/models/payment.rb"];
        for rel in rels {
            age(&root.join(rel));
        }
        let cache = root.join("tmp/rspec_scout/facts.bin");
        let all = |index: &Index| -> Vec<FileFacts> {
            index.refresh();
            rels.iter()
                .map(|rel| index.facts(&source(&root, rel), 1 << 20))
                .collect()
        };
        let cold: Vec<FileFacts> = rels
            .iter()
            .map(|rel| index::index_file(&source(&root, rel), 1 << 20))
            .collect();

        // The first session parses and writes the cache once its call is over.
        let first = session(&root);
        assert_eq!(all(&first), cold);
        assert_eq!(first.counters().parses, 2);
        first.save(write);
        first.wait_for_save();
        assert!(cache.is_file());
        assert_eq!(first.counters().disk_writes, 1);
        // Nothing learnt since: not written again.
        first.save(write);
        assert_eq!(first.counters().disk_writes, 1);

        // The next session parses nothing and reads nothing (the files are old).
        let second = session(&root);
        assert_eq!(all(&second), cold);
        let c = second.counters();
        assert_eq!((c.parses, c.reads, c.disk_hits), (0, 0, 2));
        // The command line reads what the server wrote.
        let cli = FactsCache::open(&root, &root.join("tmp/rspec_scout"));
        for rel in rels {
            let _ = cli.facts(&source(&root, rel), 1 << 20, true);
        }
        assert_eq!(cli.counters().hits, 2);

        // A file edited between sessions is parsed again, the other is not.
        std::fs::write(
            root.join("app/models/order.rb"),
            "class Order
  def total; end
  def refund!; end
end
",
        )
        .unwrap();
        let third = session(&root);
        let facts = all(&third);
        let names: Vec<&str> = facts[0].methods.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["total", "refund!"]);
        let c = third.counters();
        assert_eq!((c.parses, c.disk_hits), (1, 1));
        third.save(write);
        third.wait_for_save();

        // A session that looks at one file keeps the other's entry when it writes.
        age(&root.join("app/models/order.rb"));
        let fourth = session(&root);
        fourth.refresh();
        let _ = fourth.facts(&source(&root, "app/models/order.rb"), 1 << 20);
        fourth.save(write);
        fourth.wait_for_save();
        assert_eq!(
            fourth.counters().disk_writes,
            1,
            "the re-stamped entry is written"
        );
        let fifth = session(&root);
        let c = {
            let _ = all(&fifth);
            fifth.counters()
        };
        assert_eq!((c.parses, c.reads, c.disk_hits), (0, 0, 2));
    }

    #[test]
    fn the_same_bytes_elsewhere_are_their_own_facts() {
        let (_dir, root) = project();
        let index = Index::new(root, Vec::new());
        let a = index.facts_of("app/models/a.rb", b"class A; def x; end; end\n");
        let b = index.facts_of("app/models/b.rb", b"class A; def x; end; end\n");
        assert_eq!(a.path, "app/models/a.rb");
        assert_eq!(b.path, "app/models/b.rb");
        let again = index.facts_of("app/models/a.rb", b"class A; def x; end; end\n");
        assert_eq!(again, a);
        assert_eq!(index.counters().hits, 1);
    }
}
