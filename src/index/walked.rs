//! The stored walk: the files in scope under the root, kept between runs in
//! `{metadata_path}/rspec_scout/walk.bin` with what decides them, so a run on a tree whose
//! folders did not change reads no folder (git's untracked cache does the same).
//!
//! - **What decides a walk**: the entries of each folder it read (a folder's modification
//!   time moves when an entry is made, removed or renamed in it; its change time when it
//!   is made unreadable), the ignore files it applied (each folder's `.gitignore`, a
//!   repository's `info/exclude`, the same in the root's parents), git's global config
//!   files and excludes file, and the settings (the root, the scope's rules, the
//!   environment that names config files).
//! - **Recorded before read**: each folder's mark and its ignore files' marks are taken
//!   before the walk reads them, so a change during the walk shows as a changed mark next
//!   time. A mark within [`RACY`] of the walk's start is not trusted (git's racy rule).
//! - **Checked**: every recorded folder and ignore file is measured again (one `lstat`
//!   each, in parallel). When none changed, the stored files are the walk's answer. When
//!   some folders changed, only they are walked again, each with everything below it; a
//!   change above the root or in the global config walks everything.
//! - **Not recorded**: a walk that warned (an unreadable folder, a loop), a path that is
//!   not UTF-8 (the walk could not name it), a `.git` file whose repository cannot be
//!   opened. Those runs walk every time.
//! - **Safety of the file**: [`frame`]d as the other caches are (this build's, whole,
//!   checksummed); decoding checks every length. Anything else is ignored and walked again.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::cache::codec::{Reader, Writer};
use super::cache::frame;
#[cfg(doc)]
use super::stamp::RACY;
use super::stamp::{nanos_since_epoch, racy_window_ns};
use super::walk::{self, Found, Scope, SourceFile};

/// The stored walk's file name in `{metadata_path}/rspec_scout/`.
pub const FILE_NAME: &str = "walk.bin";

const MAGIC: &[u8; 8] = b"RSSWALK\0";

/// The layout of the file; raised whenever it changes.
const FORMAT: u32 = 1;

/// The environment that names git's config files (and so the global excludes file).
const ENV: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
];

/// What the file system says of a path without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    mtime_ns: i128,
    ctime_ns: i128,
    size: u64,
    inode: u64,
    /// 1 file, 2 folder, 3 link, 0 anything else.
    kind: u8,
}

impl Mark {
    /// The mark of `path` itself (a link is not followed); `None`: nothing there.
    fn of(path: &Path) -> Option<Mark> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        let since = |t: std::io::Result<SystemTime>| t.ok().map_or(0, nanos_since_epoch);
        #[cfg(unix)]
        let (ctime_ns, inode) = {
            use std::os::unix::fs::MetadataExt;
            (
                i128::from(meta.ctime())
                    .saturating_mul(1_000_000_000)
                    .saturating_add(i128::from(meta.ctime_nsec())),
                meta.ino(),
            )
        };
        #[cfg(not(unix))]
        let (ctime_ns, inode) = (since(meta.created()), 0);
        let kind = if meta.file_type().is_symlink() {
            3
        } else if meta.is_dir() {
            2
        } else if meta.is_file() {
            1
        } else {
            0
        };
        Some(Mark {
            mtime_ns: since(meta.modified()),
            ctime_ns,
            size: if meta.is_dir() { 0 } else { meta.len() },
            inode,
            kind,
        })
    }

    /// Changed within [`RACY`] of `made_ns` (or after it): a second change in the same
    /// tick would not show.
    fn racy(&self, made_ns: i128) -> bool {
        self.mtime_ns
            .max(self.ctime_ns)
            .saturating_add(racy_window_ns())
            >= made_ns
    }
}

/// A path whose mark, or absence, the walk depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Watch {
    path: PathBuf,
    mark: Option<Mark>,
}

impl Watch {
    fn of(path: PathBuf) -> Watch {
        let mark = Mark::of(&path);
        Watch { path, mark }
    }

    /// Whether the path is as recorded, and was recorded outside the racy window.
    fn holds(&self, made_ns: i128) -> bool {
        match &self.mark {
            None => Mark::of(&self.path).is_none(),
            Some(mark) => !mark.racy(made_ns) && Mark::of(&self.path).as_ref() == Some(mark),
        }
    }
}

/// A folder the walk read: its mark and the ignore files in it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Folder {
    /// Root-relative, `""` for the root.
    rel: String,
    mark: Mark,
    /// Its `.gitignore` (when there is one), its repository's `info/exclude` (when it
    /// holds a `.git`).
    watches: Vec<Watch>,
}

/// Whether `rel` is `folder` or below it (`""` is the root, above everything).
fn covers(folder: &str, rel: &str) -> bool {
    folder.is_empty()
        || rel == folder
        || (rel.len() > folder.len()
            && rel.as_bytes().get(folder.len()) == Some(&b'/')
            && rel.starts_with(folder))
}

/// A stored walk.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Record {
    settings: [u8; 32],
    /// When the walk started, in nanoseconds since the epoch.
    made_ns: i128,
    /// Outside the root: its parents' ignore files, git's config and excludes files.
    global: Vec<Watch>,
    /// Sorted by `rel`.
    folders: Vec<Folder>,
    /// Root-relative, sorted.
    files: Vec<String>,
}

/// The stored walk of one project, for one run.
pub struct WalkStore {
    settings: [u8; 32],
    stored: Option<Record>,
}

/// What [`WalkStore::collect_all`] found, and the bytes to store when they differ from the
/// stored walk's.
pub struct Walked {
    /// The files, as the walk finds them.
    pub found: Found,
    /// The stored walk to write, when it changed.
    pub store: Option<Vec<u8>>,
    /// How many folders were read again (all of them on a first walk).
    pub folders_read: usize,
}

impl WalkStore {
    /// Opens the stored walk in `dir` for a walk of `root` under `scope`: one read.
    pub fn open(dir: &Path, root: &Path, scope: &Scope) -> WalkStore {
        let settings = settings_digest(root, scope);
        let stored = std::fs::read(dir.join(FILE_NAME))
            .ok()
            .and_then(|bytes| decode(&bytes))
            .filter(|r| r.settings == settings);
        WalkStore { settings, stored }
    }

    /// Every in-scope file under `root`, as [`walk::collect_all`] finds it: from the stored
    /// walk where its folders did not change, walking the rest.
    pub fn collect_all(&self, root: &Path, scope: &Scope, threads: usize) -> Walked {
        let made_ns = nanos_since_epoch(SystemTime::now());
        let Some(stored) = &self.stored else {
            return self.walk_all(root, scope, threads, made_ns);
        };
        let global_holds = stored.global.iter().all(|w| w.holds(stored.made_ns));
        if !global_holds {
            return self.walk_all(root, scope, threads, made_ns);
        }
        let changed: Vec<bool> = super::in_pool(threads, || {
            stored
                .folders
                .par_iter()
                .map(|f| {
                    let path = join(root, &f.rel);
                    f.mark.racy(stored.made_ns)
                        || Mark::of(&path).as_ref() != Some(&f.mark)
                        || !f.watches.iter().all(|w| w.holds(stored.made_ns))
                })
                .collect()
        });
        // The changed folders not below another changed one: each is walked again whole.
        let mut again: Vec<&str> = Vec::new();
        for (folder, changed) in stored.folders.iter().zip(&changed) {
            if *changed && !again.iter().any(|top| covers(top, &folder.rel)) {
                again.push(&folder.rel);
            }
        }
        if again.is_empty() {
            let found = Found {
                files: stored
                    .files
                    .iter()
                    .map(|rel| SourceFile {
                        path: join(root, rel),
                        rel: rel.clone(),
                    })
                    .collect(),
                warnings: Vec::new(),
            };
            return Walked {
                found,
                store: None,
                folders_read: 0,
            };
        }
        if again.contains(&"") {
            return self.walk_all(root, scope, threads, made_ns);
        }
        // Each changed folder walked again; the rest kept.
        let mut found = Found::default();
        let mut folders: Vec<Folder> = Vec::new();
        let mut recordable = true;
        for rel in &again {
            let (walked, seen) = walk_recorded(root, &join(root, rel), scope, threads);
            found.files.extend(walked.files);
            found.warnings.extend(walked.warnings);
            match seen {
                Some(seen) => folders.extend(seen),
                None => recordable = false,
            }
        }
        let fresh = |rel: &str| !again.iter().any(|top| covers(top, rel));
        folders.extend(stored.folders.iter().filter(|f| fresh(&f.rel)).cloned());
        found.files.extend(
            stored
                .files
                .iter()
                .filter(|rel| fresh(rel))
                .map(|rel| SourceFile {
                    path: join(root, rel),
                    rel: rel.clone(),
                }),
        );
        found.files.sort();
        found.files.dedup_by(|a, b| a.rel == b.rel);
        found.warnings.sort();
        folders.sort_by(|a, b| a.rel.cmp(&b.rel));
        let folders_read = again.len();
        let store = (recordable && found.warnings.is_empty())
            .then(|| self.record(root, &found, made_ns, stored.global.clone(), folders))
            .flatten();
        Walked {
            found,
            store,
            folders_read,
        }
    }

    /// The whole walk, recorded.
    fn walk_all(&self, root: &Path, scope: &Scope, threads: usize, made_ns: i128) -> Walked {
        let global = global_watches(root);
        let (mut found, seen) = walk_recorded(root, root, scope, threads);
        found.files.sort();
        found.warnings.sort();
        let folders_read = seen.as_ref().map_or(0, Vec::len);
        let store = match (global, seen) {
            (Some(global), Some(mut folders)) if found.warnings.is_empty() => {
                folders.sort_by(|a, b| a.rel.cmp(&b.rel));
                self.record(root, &found, made_ns, global, folders)
            }
            _ => None,
        };
        Walked {
            found,
            store,
            folders_read,
        }
    }

    /// The bytes of the record of a walk that started at `made_ns` and found `found`
    /// (`None` when a file's path is not its root-relative path under the root: the stored
    /// walk could not give it back).
    fn record(
        &self,
        root: &Path,
        found: &Found,
        made_ns: i128,
        global: Vec<Watch>,
        folders: Vec<Folder>,
    ) -> Option<Vec<u8>> {
        let mut files = Vec::with_capacity(found.files.len());
        for f in &found.files {
            if join(root, &f.rel) != f.path {
                return None;
            }
            files.push(f.rel.clone());
        }
        encode(&Record {
            settings: self.settings,
            made_ns,
            global,
            folders,
            files,
        })
    }

    /// Writes `bytes` as the stored walk, through the guard (never outside the project
    /// root, never under `.git/`). A write that fails or is refused is not an error: the
    /// next run only walks again.
    pub fn write(project_root: &Path, dir: &Path, bytes: &[u8]) -> bool {
        super::cache::write_beside(project_root, dir, FILE_NAME, bytes)
    }
}

/// `root` joined with a root-relative path (`""` is the root).
fn join(root: &Path, rel: &str) -> PathBuf {
    if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    }
}

/// What a stored walk must have been made under: the build's file format, the root, the
/// scope's rules and the environment that names git's config files.
fn settings_digest(root: &Path, scope: &Scope) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(root.as_os_str().as_encoded_bytes());
    hasher.update([0]);
    hasher.update(scope.rules_text().as_bytes());
    for name in ENV {
        hasher.update([0]);
        hasher.update(name.as_bytes());
        hasher.update([0]);
        if let Some(value) = std::env::var_os(name) {
            hasher.update([1]);
            hasher.update(value.as_encoded_bytes());
        }
    }
    hasher.finalize().into()
}

/// The ignore files of a folder: its `.gitignore` when there is one (one made later moves
/// the folder's mark), and its repository's `info/exclude` when it holds a `.git` (made
/// or not). `None`: a `.git` file whose repository does not open.
fn folder_watches(dir: &Path) -> Option<Vec<Watch>> {
    let mut watches = Vec::new();
    let gitignore = Watch::of(dir.join(".gitignore"));
    if gitignore.mark.is_some() {
        watches.push(gitignore);
    }
    let dot_git = dir.join(".git");
    match Mark::of(&dot_git).map(|m| m.kind) {
        None => {}
        Some(2) => watches.push(Watch::of(dot_git.join("info").join("exclude"))),
        Some(_) => {
            // A worktree's `.git` file names its repository: watch the file and the
            // repository's `info/exclude`.
            let repo = git2::Repository::open(dir).ok()?;
            watches.push(Watch::of(dot_git));
            watches.push(Watch::of(repo.commondir().join("info").join("exclude")));
        }
    }
    Some(watches)
}

/// What outside the root decides the walk: each parent's ignore files and repository
/// markers (`.git`, `.jj`), git's config files and its global excludes file. `None` when a
/// parent's `.git` file names no repository.
fn global_watches(root: &Path) -> Option<Vec<Watch>> {
    let mut watches = Vec::new();
    let canonical = root.canonicalize().ok()?;
    for parent in canonical.ancestors().skip(1) {
        watches.push(Watch::of(parent.join(".gitignore")));
        watches.push(Watch::of(parent.join(".git")));
        watches.push(Watch::of(parent.join(".jj")));
        watches.extend(
            folder_watches(parent)?
                .into_iter()
                .filter(|w| !w.path.ends_with(".gitignore")),
        );
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| !p.as_os_str().is_empty())
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(global) = std::env::var_os("GIT_CONFIG_GLOBAL").filter(|v| !v.is_empty()) {
        files.push(PathBuf::from(global));
    }
    if let Some(home) = &home {
        files.push(home.join(".gitconfig"));
    }
    if let Some(xdg) = &xdg {
        files.push(xdg.join("git").join("config"));
        files.push(xdg.join("git").join("ignore"));
    }
    files.push(
        std::env::var_os("GIT_CONFIG_SYSTEM")
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from("/etc/gitconfig"), PathBuf::from),
    );
    files.extend(ignore::gitignore::gitconfig_excludes_path());
    watches.extend(files.into_iter().map(Watch::of));
    Some(watches)
}

/// The walk of `dir` (the root or a folder below it), with a record of every folder it
/// read (`None` when one could not be recorded).
fn walk_recorded(
    root: &Path,
    dir: &Path,
    scope: &Scope,
    threads: usize,
) -> (Found, Option<Vec<Folder>>) {
    let seen: Arc<Mutex<Option<Vec<Folder>>>> = Arc::new(Mutex::new(Some(Vec::new())));
    let see = {
        let seen = Arc::clone(&seen);
        let root = root.to_path_buf();
        move |path: &Path| {
            let folder = (|| {
                let rel = walk::relative_to(&root, path)?;
                // Measured before the walk reads the folder or its ignore file.
                let mark = Mark::of(path)?;
                let watches = folder_watches(path)?;
                Some(Folder {
                    rel: if path == root { String::new() } else { rel },
                    mark,
                    watches,
                })
            })();
            let mut seen = seen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match folder {
                Some(folder) => {
                    if let Some(list) = seen.as_mut() {
                        list.push(folder);
                    }
                }
                None => *seen = None,
            }
        }
    };
    see(dir);
    let mut found = Found::default();
    walk::walk_observed(root, dir, scope, threads, &mut found, Some(Arc::new(see)));
    let seen = seen
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    (found, seen)
}

fn write_mark(w: &mut Writer<'_>, mark: Option<&Mark>) {
    match mark {
        None => w.byte(0),
        Some(m) => {
            w.byte(1);
            w.0.extend_from_slice(&m.mtime_ns.to_le_bytes());
            w.0.extend_from_slice(&m.ctime_ns.to_le_bytes());
            w.uint(m.size);
            w.uint(m.inode);
            w.byte(m.kind);
        }
    }
}

fn read_mark(r: &mut Reader<'_>) -> Option<Option<Mark>> {
    match r.byte()? {
        0 => Some(None),
        1 => Some(Some(Mark {
            mtime_ns: i128::from_le_bytes(r.take(16)?.try_into().ok()?),
            ctime_ns: i128::from_le_bytes(r.take(16)?.try_into().ok()?),
            size: r.uint()?,
            inode: r.uint()?,
            kind: r.byte()?,
        })),
        _ => None,
    }
}

fn path_bytes(path: &Path) -> Option<&[u8]> {
    #[cfg(unix)]
    {
        Some(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()))
    }
    #[cfg(not(unix))]
    {
        path.to_str().map(str::as_bytes)
    }
}

fn path_from(bytes: &[u8]) -> Option<PathBuf> {
    #[cfg(unix)]
    {
        Some(PathBuf::from(
            <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes),
        ))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(bytes).ok().map(PathBuf::from)
    }
}

fn write_watches(w: &mut Writer<'_>, watches: &[Watch]) -> Option<()> {
    w.len(watches.len());
    for watch in watches {
        let bytes = path_bytes(&watch.path)?;
        w.len(bytes.len());
        w.0.extend_from_slice(bytes);
        write_mark(w, watch.mark.as_ref());
    }
    Some(())
}

fn read_watches(r: &mut Reader<'_>) -> Option<Vec<Watch>> {
    let n = r.len()?;
    let mut watches = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        let len = r.len()?;
        let path = path_from(r.take(len)?)?;
        let mark = read_mark(r)?;
        watches.push(Watch { path, mark });
    }
    Some(watches)
}

fn encode(record: &Record) -> Option<Vec<u8>> {
    let identity = super::cache::identity();
    let mut out = Vec::with_capacity(64 + record.folders.len() * 80 + record.files.len() * 64);
    let sums_at = frame::begin(&mut out, MAGIC, FORMAT, &identity);
    let mut w = Writer(&mut out);
    w.0.extend_from_slice(&record.settings);
    w.0.extend_from_slice(&record.made_ns.to_le_bytes());
    write_watches(&mut w, &record.global)?;
    w.len(record.folders.len());
    for folder in &record.folders {
        w.str(&folder.rel);
        write_mark(&mut w, Some(&folder.mark));
        write_watches(&mut w, &folder.watches)?;
    }
    w.strs(&record.files);
    frame::finish(&mut out, sums_at);
    Some(out)
}

fn decode(bytes: &[u8]) -> Option<Record> {
    let (_, payload) = frame::open(bytes, MAGIC, FORMAT, &super::cache::identity())?;
    let mut r = Reader::new(payload);
    let settings: [u8; 32] = r.take(32)?.try_into().ok()?;
    let made_ns = i128::from_le_bytes(r.take(16)?.try_into().ok()?);
    let global = read_watches(&mut r)?;
    let n = r.len()?;
    let mut folders = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let rel = r.str()?.to_string();
        let mark = read_mark(&mut r)??;
        let watches = read_watches(&mut r)?;
        folders.push(Folder { rel, mark, watches });
    }
    let n = r.len()?;
    let mut files = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        files.push(r.str()?.to_string());
    }
    // As a walk writes it: sorted and unique, plain relative paths, each file in a folder
    // the walk read. Anything else was not written by a walk.
    let plain = |rel: &str| {
        !rel.is_empty()
            && !rel.contains(['\\', '\0'])
            && rel
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != "..")
    };
    let folder_known = |rel: &str| {
        folders
            .binary_search_by(|f| f.rel.as_str().cmp(rel))
            .is_ok()
    };
    let sorted = folders
        .iter()
        .zip(folders.iter().skip(1))
        .all(|(a, b)| a.rel < b.rel)
        && files.iter().zip(files.iter().skip(1)).all(|(a, b)| a < b)
        && folders.iter().all(|f| f.rel.is_empty() || plain(&f.rel))
        && files
            .iter()
            .all(|f| plain(f) && folder_known(f.rsplit_once('/').map_or("", |(dir, _)| dir)));
    (r.at_end() && sorted).then_some(Record {
        settings,
        made_ns,
        global,
        folders,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(n: u8) -> Mark {
        Mark {
            mtime_ns: 1_000 + i128::from(n),
            ctime_ns: 2_000,
            size: 0,
            inode: u64::from(n),
            kind: 2,
        }
    }

    fn record() -> Record {
        Record {
            settings: [7; 32],
            made_ns: 99,
            global: vec![
                Watch {
                    path: PathBuf::from("/home/dev/.gitconfig"),
                    mark: Some(mark(1)),
                },
                Watch {
                    path: PathBuf::from("/work/.gitignore"),
                    mark: None,
                },
            ],
            folders: vec![
                Folder {
                    rel: String::new(),
                    mark: mark(2),
                    watches: vec![Watch {
                        path: PathBuf::from("/work/app/.git/info/exclude"),
                        mark: None,
                    }],
                },
                Folder {
                    rel: "app".to_string(),
                    mark: mark(3),
                    watches: Vec::new(),
                },
            ],
            files: vec!["app/a.rb".to_string(), "app/b.rb".to_string()],
        }
    }

    #[test]
    fn a_record_reads_back_and_nothing_cut_flipped_or_unsorted_does() {
        let bytes = encode(&record()).unwrap();
        assert_eq!(decode(&bytes), Some(record()));
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        for at in (0..bytes.len()).step_by(3) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x04;
            assert!(decode(&bad).is_none(), "flipped at {at}");
        }
        // Whole, yet not what a walk writes: files out of order, a path climbing out.
        let mut unsorted = record();
        unsorted.files.reverse();
        assert!(decode(&encode(&unsorted).unwrap()).is_none());
        for bad in [
            "app/../../etc/passwd",
            "/etc/passwd",
            "app//a.rb",
            "app/./a.rb",
            "lib/x.rb",
        ] {
            // Climbing out, absolute, not plain, or in a folder the walk did not read.
            let mut hand_made = record();
            hand_made.files.push(bad.to_string());
            hand_made.files.sort();
            assert!(decode(&encode(&hand_made).unwrap()).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_folder_covers_itself_and_what_is_below_it_only() {
        assert!(covers("", "app/models"));
        assert!(covers("app", "app"));
        assert!(covers("app", "app/models/user.rb"));
        assert!(!covers("app", "apps/x.rb"));
        assert!(!covers("app", "ap"));
        assert!(!covers("app/models", "app"));
    }

    #[test]
    fn a_mark_is_racy_within_the_window_of_its_making_by_either_time() {
        let window = racy_window_ns();
        let m = Mark {
            mtime_ns: 10,
            ctime_ns: 10,
            size: 0,
            inode: 1,
            kind: 1,
        };
        assert!(m.racy(10 + window));
        assert!(!m.racy(11 + window));
        // A change of mode moves only the change time.
        let chmod = Mark { ctime_ns: 500, ..m };
        assert!(chmod.racy(500 + window));
    }

    #[test]
    fn the_stored_walk_answers_as_a_walk_and_follows_a_changed_folder() {
        let dir = std::env::temp_dir().join(format!("rspec-scout-walked-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let root = dir.join("app_root");
        for (rel, text) in [
            ("app/models/user.rb", "class User; end\n"),
            ("app/models/concerns/named.rb", "module Named; end\n"),
            ("lib/tasks/one.rb", "x = 1\n"),
            ("spec/models/user_spec.rb", "x\n"),
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let state = dir.join("state");
        std::fs::create_dir_all(&state).unwrap();
        let scope = Scope::new(&walk::ScopeRules::default()).unwrap();
        let walked = WalkStore::open(&state, &root, &scope).collect_all(&root, &scope, 2);
        assert_eq!(
            walked.found.files,
            walk::collect_all(&root, &scope, 2).files
        );
        std::fs::write(state.join(FILE_NAME), walked.store.unwrap()).unwrap();
        // Every folder is racy yet (just made): each is read again, with the same answer.
        std::fs::write(root.join("app/models/account.rb"), "class Account; end\n").unwrap();
        let again = WalkStore::open(&state, &root, &scope).collect_all(&root, &scope, 2);
        assert_eq!(again.found.files, walk::collect_all(&root, &scope, 2).files);
        assert!(again
            .found
            .files
            .iter()
            .any(|f| f.rel == "app/models/account.rb"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
