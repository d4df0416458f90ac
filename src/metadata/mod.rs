//! The metadata files every stage reads and writes:
//! `{project root}/{metadata_path}/rspec_metadata/{slug}.yml`.
//!
//! This module owns locating them (the project root is the git root of the source file, so
//! a folder holding several repositories works), loading them as Psych would, and writing
//! them atomically (temp file + rename, under an advisory lock so two processes never
//! interleave a read-modify-write), keeping keys it does not know in their order.

pub mod fields;
pub mod plan;
pub mod validate;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::guard::{Folder, Target};
use crate::yaml::{self, Mapping, Value};

/// The pipeline's stages in order, by their marker prefix
/// (`automation.{stage}_completed`).
pub const STAGES: &[&str] = &[
    "discovery_agent",
    "code_analyzer",
    "isolation_decider",
    "spec_writer",
    "test_reviewer",
];

/// Where the metadata of a source file lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The project root the source belongs to (its git root, else the configured root).
    pub project_root: PathBuf,
    /// The source path relative to `project_root`, with `/` separators.
    pub source_rel: String,
    /// The slug: `source_rel` with `/` → `_`, no `.rb`.
    pub slug: String,
    /// The metadata file.
    pub path: PathBuf,
}

impl Location {
    /// The metadata file, cleared for writing by the guard: inside the project root, a
    /// `.yml` file in a `rspec_metadata` folder, no link out.
    pub fn target(&self) -> Result<Target> {
        crate::guard::metadata_file(&self.project_root, &self.path)
    }
}

/// The folder metadata files go in: `{project_root}/{metadata_path}/rspec_metadata`.
pub fn dir(project_root: &Path, metadata_path: &str) -> PathBuf {
    project_root.join(metadata_path).join("rspec_metadata")
}

/// Locates the metadata of `source` (absolute, or relative to the current directory): the
/// project root is its git root when that lies inside `default_root` (a folder holding
/// several repositories), else `default_root` (metadata is never written above it).
pub fn locate(default_root: &Path, metadata_path: &str, source: &Path) -> Location {
    let abs = crate::index::walk::absolute(source);
    let default_abs = crate::index::walk::absolute(default_root);
    let project_root = crate::git::root_of(&abs)
        .filter(|r| abs.starts_with(r) && r.starts_with(&default_abs))
        .unwrap_or_else(|| default_root.to_path_buf());
    let source_rel = crate::index::walk::relative_to(&project_root, &abs)
        .unwrap_or_else(|| source.to_string_lossy().replace('\\', "/"));
    locate_rel(&project_root, metadata_path, &source_rel)
}

/// Locates the metadata of a source path already relative to `project_root`: the first of
/// its [slug candidates](crate::naming::slug_candidate) whose file names this source,
/// else the first that no other source holds (see [`Owner`]). Two sources whose contract
/// slugs collide thus never share a file.
pub fn locate_rel(project_root: &Path, metadata_path: &str, source_rel: &str) -> Location {
    let folder = dir(project_root, metadata_path);
    let slug = resolve_slug(&folder, source_rel, |_| false);
    location_at(project_root, &folder, source_rel, slug)
}

/// The slug of `source_rel` in the metadata folder `folder`: the candidate whose file
/// names this source, else the first candidate that is free (or whose file names no
/// source) and not `claimed` by another file of the same run.
pub fn resolve_slug(folder: &Path, source_rel: &str, claimed: impl Fn(&str) -> bool) -> String {
    let mut first_open: Option<String> = None;
    let mut n = 0;
    loop {
        let slug = crate::naming::slug_candidate(source_rel, n);
        let owner = owner(&folder.join(format!("{slug}.yml")), source_rel);
        if owner == Owner::Mine {
            return slug;
        }
        let open = matches!(owner, Owner::Free | Owner::Unknown) && !claimed(&slug);
        // The first three candidates are always looked at (the file may live at a later
        // one while an earlier one is free again); past them, the first free one ends it.
        let done = n >= 2 && owner == Owner::Free && !claimed(&slug);
        if open && first_open.is_none() {
            first_open = Some(slug.clone());
        }
        if done {
            return first_open.unwrap_or(slug);
        }
        n += 1;
    }
}

/// The location of `source_rel` under the slug `slug`, in the metadata folder `folder`.
pub fn location_at(project_root: &Path, folder: &Path, source_rel: &str, slug: String) -> Location {
    Location {
        project_root: project_root.to_path_buf(),
        source_rel: source_rel.to_string(),
        path: folder.join(format!("{slug}.yml")),
        slug,
    }
}

/// Who a metadata file belongs to, as far as its `source_file` tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// No file: the slug is free.
    Free,
    /// Its `source_file` is the source asked about.
    Mine,
    /// It names another source: the slug is taken.
    Other(String),
    /// It does not load or names no source: taken by whoever claims it (its problem is
    /// reported where it is read).
    Unknown,
}

/// The owner of the metadata file at `path`, for `source_rel`. A top-level
/// `source_file: plain/path.rb` line is read without loading the whole file (locating
/// metadata reads one per file, `discover --no-metadata` one per file planned); any other
/// form of the key goes through [`load`].
pub fn owner(path: &Path, source_rel: &str) -> Owner {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Owner::Free,
        Err(_) => return Owner::Unknown,
    };
    if let Some(source) = plain_source_file(&bytes) {
        return if source == source_rel.as_bytes() {
            Owner::Mine
        } else {
            Owner::Other(String::from_utf8_lossy(source).into_owned())
        };
    }
    owner_of(&load(path), source_rel)
}

/// The value of a top-level `source_file:` line when it is a plain path (no quotes, no
/// comment, nothing YAML would read otherwise).
fn plain_source_file(bytes: &[u8]) -> Option<&[u8]> {
    let line = bytes
        .split(|&b| b == b'\n')
        .find_map(|line| line.strip_prefix(b"source_file:"))?;
    let value = line.trim_ascii();
    let plain = !value.is_empty()
        && value
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+@".contains(b))
        && !value.starts_with(b"-")
        && !value.starts_with(b".");
    plain.then_some(value)
}

/// The owner of a loaded metadata file, for `source_rel`.
pub fn owner_of(loaded: &Result<Option<Mapping>>, source_rel: &str) -> Owner {
    match loaded {
        Ok(None) => Owner::Free,
        Ok(Some(map)) => match map.get("source_file").and_then(Value::as_str) {
            Some(s) if s == source_rel => Owner::Mine,
            Some(s) if !s.is_empty() => Owner::Other(s.to_string()),
            _ => Owner::Unknown,
        },
        Err(_) => Owner::Unknown,
    }
}

/// Loads a metadata file. `Ok(None)` when it does not exist; `METADATA_INVALID` when it
/// cannot be read, is not YAML Psych would load, or is not a mapping.
pub fn load(path: &Path) -> Result<Option<Mapping>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::MetadataInvalid {
                path: path.to_path_buf(),
                reason: if e.raw_os_error() == Some(21) {
                    "is a directory, not a file".to_string()
                } else {
                    e.to_string()
                },
            })
        }
    };
    let value =
        yaml::load(&bytes, &path.display().to_string()).map_err(|e| Error::MetadataInvalid {
            path: path.to_path_buf(),
            reason: format!("Cannot parse YAML: {e}"),
        })?;
    match value {
        Value::Mapping(map) => Ok(Some(map)),
        Value::Null => Err(Error::MetadataInvalid {
            path: path.to_path_buf(),
            reason: "the file is empty".to_string(),
        }),
        _ => Err(Error::MetadataInvalid {
            path: path.to_path_buf(),
            reason: "metadata must be a Hash".to_string(),
        }),
    }
}

/// An exclusive advisory lock on a metadata file, held while it is read, changed and
/// written. Dropping it releases the lock.
#[derive(Debug)]
pub struct Lock {
    _file: std::fs::File,
}

/// Takes the lock that guards the metadata folder holding `target` (one
/// `.rspec-scout.lock` per folder, so a bulk write takes it once and no lock file is left
/// per metadata file), creating the folder when needed. Blocks until another process
/// releases it.
pub fn lock(target: &Target) -> Result<Lock> {
    lock_dir(&target.folder())
}

/// Takes the lock of the metadata folder `dir` (see [`lock`]), creating the folder when
/// needed. Temp files that runs killed mid-write left behind are removed once it is held.
/// The lock file is never opened through a link.
pub fn lock_dir(dir: &Folder) -> Result<Lock> {
    let dir = dir.path();
    std::fs::create_dir_all(dir).map_err(|e| write_failed(dir, &e))?;
    let lock_path = dir.join(".rspec-scout.lock");
    let mut open = std::fs::OpenOptions::new();
    open.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NOFOLLOW);
    }
    let file = open
        .open(&lock_path)
        .map_err(|e| write_failed(&lock_path, &e))?;
    file.lock().map_err(|e| write_failed(&lock_path, &e))?;
    remove_dead_temp_files(dir);
    Ok(Lock { _file: file })
}

/// The metadata files of a folder: its `*.yml` files (not the lock and temp files, whose
/// names start with a dot), sorted; none when it cannot be read.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .map(|n| n.to_string_lossy())
                        .is_some_and(|n| n.ends_with(".yml") && !n.starts_with('.'))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Removes the temp files ([`write_text_atomic`]'s `.{name}.tmp.{pid}.{n}`) of processes
/// that are gone: a run killed between writing its temp file and renaming it leaves one
/// behind. Called with the folder's lock held, so no live writer of the folder is
/// mid-write but this process (whose files are kept, as are those of any process that
/// still runs).
fn remove_dead_temp_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let own = std::process::id();
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name();
        let Some(pid) = temp_file_pid(&name.to_string_lossy()) else {
            continue;
        };
        if pid != own && !process_alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The process id in a temp file name `.{name}.tmp.{pid}.{n}`.
fn temp_file_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (head, n) = rest.rsplit_once('.')?;
    let (head, pid) = head.rsplit_once('.')?;
    if !head.ends_with(".tmp") || !n.bytes().all(|b| b.is_ascii_digit()) || n.is_empty() {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` runs. Where `/proc` cannot tell (not Linux), every other process
/// counts as gone: every writer of a metadata folder holds its lock while it writes.
fn process_alive(pid: u32) -> bool {
    let proc_root = Path::new("/proc");
    proc_root.join("self").exists() && proc_root.join(pid.to_string()).exists()
}

/// Writes `map` to `path` atomically: a temp file in the same folder, flushed to disk, then
/// renamed over the target. A failure leaves the old file untouched. The text is loaded back
/// before it is written: a file that would not load (a hand-edited shape the writer cannot
/// express, e.g. hundreds of nested `? ` keys, past libyaml's limits) is refused and the
/// old file kept.
pub fn write_atomic(target: &Target, map: &Mapping) -> Result<()> {
    let path = target.path();
    let value = Value::Mapping(map.clone());
    let text = yaml::to_string(&value);
    // Within libyaml's limits the writer's round trip is exact (fuzzed by
    // fuzz/metadata_yaml); only text past them is loaded back, so the usual write does not
    // pay for a parse.
    if !past_libyaml_limits(&value, &text) {
        return write_text_atomic(target, text.as_bytes());
    }
    match yaml::load(text.as_bytes(), &path.display().to_string()) {
        Ok(again) if again == value || !same_shape_needed(&value) => {}
        Ok(_) => {
            return Err(Error::WriteFailed {
                path: path.to_path_buf(),
                reason:
                    "the YAML written would not read back as the same data; the old file is kept"
                        .to_string(),
            })
        }
        Err(e) => {
            return Err(Error::WriteFailed {
                path: path.to_path_buf(),
                reason: format!(
                    "the YAML written would not load ({}); the old file is kept",
                    e.message
                ),
            })
        }
    }
    write_text_atomic(target, text.as_bytes())
}

/// Collections nested over 100 deep or a written line over 1,000 columns: where libyaml's
/// limits (simple keys within 1024 characters, nesting) can make written text unreadable.
fn past_libyaml_limits(value: &Value, text: &str) -> bool {
    fn deeper_than(v: &Value, limit: usize) -> bool {
        if limit == 0 {
            return true;
        }
        match v {
            Value::Sequence(s) => s.iter().any(|x| deeper_than(x, limit - 1)),
            Value::Mapping(m) => m
                .iter()
                .any(|(k, x)| deeper_than(k, limit - 1) || deeper_than(x, limit - 1)),
            Value::Tagged(t) => deeper_than(&t.value, limit - 1),
            _ => false,
        }
    }
    deeper_than(value, 100) || text.lines().any(|l| l.len() > 1000)
}

/// NaN never equals itself: data holding one is only checked for loading.
fn same_shape_needed(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.as_f64().is_none_or(|f| !f.is_nan()),
        Value::Sequence(s) => s.iter().all(same_shape_needed),
        Value::Mapping(m) => m
            .iter()
            .all(|(k, v)| same_shape_needed(k) && same_shape_needed(v)),
        Value::Tagged(t) => same_shape_needed(&t.value),
        _ => true,
    }
}

/// Writes bytes atomically (see [`write_atomic`]).
pub fn write_text_atomic(target: &Target, bytes: &[u8]) -> Result<()> {
    write_bytes_atomic(target, bytes, true)
}

/// Writes a cache file atomically, without waiting for the disk (no `fsync`): a crash may
/// leave the old file, the new one, or one cut short, which is why only a file its reader
/// checks whole (the facts cache's length and checksum) is written this way.
pub fn write_cache_atomic(target: &Target, bytes: &[u8]) -> Result<()> {
    write_bytes_atomic(target, bytes, false)
}

fn write_bytes_atomic(target: &Target, bytes: &[u8], sync: bool) -> Result<()> {
    let path = target.path();
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| write_failed(dir, &e))?;
    let tmp = temp_path(path);
    let result = (|| {
        let mut file = create_new(&tmp)?;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        pause_before_rename();
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(write_failed(path, &e));
    }
    Ok(())
}

/// Test builds only: `RSPEC_SCOUT_TEST_PAUSE_BEFORE_RENAME_MS` holds every atomic write
/// between its temp file and the rename, so a test can kill the process there.
fn pause_before_rename() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("RSPEC_SCOUT_TEST_PAUSE_BEFORE_RENAME_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Writes a file atomically (see [`write_atomic`]) from what `write` streams into it,
/// under the lock of its folder; returns what `write` returned.
pub fn write_stream_atomic<T>(
    target: &Target,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<T>,
) -> Result<T> {
    let path = target.path();
    let _lock = lock(target)?;
    let tmp = temp_path(path);
    let result = (|| {
        let file = create_new(&tmp)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        let value = write(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        pause_before_rename();
        std::fs::rename(&tmp, path)?;
        Ok(value)
    })();
    result.map_err(|e: std::io::Error| {
        let _ = std::fs::remove_file(&tmp);
        write_failed(path, &e)
    })
}

/// Removes a file the guard cleared (a legacy spec the caller chose to delete, metadata no
/// plan references).
pub fn remove(target: &Target) -> Result<()> {
    std::fs::remove_file(target.path()).map_err(|e| write_failed(target.path(), &e))
}

/// The temp file of an atomic write of `path`: `.{name}.tmp.{pid}.{n}` beside it.
fn temp_path(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(".{name}.tmp.{}.{}", std::process::id(), unique()))
}

/// A new file, never one that exists (nor a link someone left under the temp file's name).
fn create_new(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

fn write_failed(path: &Path, e: &std::io::Error) -> Error {
    Error::WriteFailed {
        path: path.to_path_buf(),
        reason: match e.kind() {
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        },
    }
}

/// Sets `key` to `value`, keeping the key's position when it exists, appending otherwise.
pub fn set(map: &mut Mapping, key: &str, value: Value) {
    if let Some(slot) = map.get_mut(key) {
        *slot = value;
    } else {
        map.insert(Value::String(key.to_string()), value);
    }
}

/// Why a file has nothing for the later stages, when `analyze` skipped it and left no
/// methods (`automation.code_analyzer_skipped`, with its reason): `None` when there are
/// methods or no skip was recorded.
pub fn analysis_skip(map: &Mapping) -> Option<String> {
    let methods = map.get("methods").and_then(Value::as_sequence);
    if methods.is_some_and(|m| !m.is_empty()) {
        return None;
    }
    let automation = map.get("automation")?;
    if automation
        .get("code_analyzer_skipped")
        .and_then(Value::as_bool)
        != Some(true)
    {
        return None;
    }
    let why = automation
        .get("code_analyzer_skip_reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty());
    Some(match why {
        Some(why) => format!("the code analysis was skipped: {why}"),
        None => "the code analysis was skipped".to_string(),
    })
}

/// Records that `stage` (`code_analyzer`, `isolation_decider`) ran and had nothing to do:
/// `{stage}_completed`, `{stage}_skipped` and `{stage}_skip_reason` under `automation`
/// (the contract's skip; a skip counts as success).
pub fn set_skipped(map: &mut Mapping, stage: &str, reason: &str) {
    with_automation(map, |auto| {
        set(auto, &format!("{stage}_completed"), Value::Bool(true));
        set(auto, &format!("{stage}_skipped"), Value::Bool(true));
        set(
            auto,
            &format!("{stage}_skip_reason"),
            Value::String(reason.to_string()),
        );
    });
}

/// Runs `f` on the `automation` mapping, created (at the end) when missing or not a
/// mapping, and stores the result back in place.
pub fn with_automation<R>(map: &mut Mapping, f: impl FnOnce(&mut Mapping) -> R) -> R {
    let mut auto = match map.get("automation") {
        Some(Value::Mapping(m)) => m.clone(),
        _ => Mapping::new(),
    };
    let result = f(&mut auto);
    set(map, "automation", Value::Mapping(auto));
    result
}

/// Sets `automation.{stage}_completed: true`.
pub fn mark_completed(map: &mut Mapping, stage: &str) {
    with_automation(map, |auto| {
        set(auto, &format!("{stage}_completed"), Value::Bool(true))
    });
}

/// Whether `automation.{stage}_completed` is `true`.
pub fn is_completed(map: &Mapping, stage: &str) -> bool {
    map.get("automation")
        .and_then(|a| a.get(format!("{stage}_completed")))
        .and_then(Value::as_bool)
        == Some(true)
}

/// Removes the `*_completed` markers of every stage after `stage` (their work was done on
/// older input). Returns the markers removed.
pub fn clear_later_markers(map: &mut Mapping, stage: &str) -> Vec<String> {
    let Some(position) = STAGES.iter().position(|s| *s == stage) else {
        return Vec::new();
    };
    let Some(Value::Mapping(auto)) = map.get_mut("automation") else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for later in STAGES.iter().skip(position + 1) {
        let key = format!("{later}_completed");
        if auto.remove(key.as_str()).is_some() {
            removed.push(key);
        }
    }
    removed
}

/// The sha256 of a source file's bytes, as `sha256:<hex>` (the `source_digest` field).
pub fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// The file's modification time in whole Unix seconds (the `source_mtime` field).
pub fn mtime(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let secs = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    i64::try_from(secs).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_keeps_order_and_appends_new_keys() {
        let mut map: Mapping = serde_yaml::from_str("a: 1\nb: 2\n").unwrap();
        set(&mut map, "a", Value::from(3));
        set(&mut map, "c", Value::from(4));
        let keys: Vec<&str> = map.keys().filter_map(Value::as_str).collect();
        assert_eq!(keys, vec!["a", "b", "c"]);
        assert_eq!(map.get("a"), Some(&Value::from(3)));
    }

    #[test]
    fn clearing_later_markers_keeps_earlier_ones_and_other_keys() {
        let mut map: Mapping = serde_yaml::from_str(
            "automation:\n  discovery_agent_completed: true\n  code_analyzer_completed: true\n  spec_writer_completed: true\n  warnings: [x]\n",
        )
        .unwrap();
        let removed = clear_later_markers(&mut map, "discovery_agent");
        assert_eq!(
            removed,
            vec!["code_analyzer_completed", "spec_writer_completed"]
        );
        assert!(is_completed(&map, "discovery_agent"));
        assert!(!is_completed(&map, "code_analyzer"));
        assert!(map["automation"].get("warnings").is_some());
    }

    #[test]
    fn data_the_writer_cannot_express_is_refused_and_the_old_file_kept() {
        // Found by the metadata_yaml fuzzer: hundreds of nested `? ` keys load, but the
        // text written for them goes past libyaml's limits and does not load back.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yml");
        std::fs::write(&path, "source_file: app/a.rb\n").unwrap();
        let target = crate::guard::file(dir.path(), &path).unwrap();
        let mut key = Value::Null;
        for _ in 0..700 {
            let mut m = Mapping::new();
            m.insert(key, Value::Null);
            key = Value::Mapping(m);
        }
        let mut map = Mapping::new();
        map.insert(key, Value::Null);
        let text = yaml::to_string(&Value::Mapping(map.clone()));
        assert!(
            yaml::load(text.as_bytes(), "t").is_err(),
            "the shape now loads"
        );
        let err = write_atomic(&target, &map).unwrap_err();
        assert_eq!(err.code(), "WRITE_FAILED");
        assert!(err.to_string().contains("would not load"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "source_file: app/a.rb\n"
        );
        // NaN never equals itself, yet a file holding one is written.
        let mut nan = Mapping::new();
        set(&mut nan, "confidence", Value::from(f64::NAN));
        write_atomic(&target, &nan).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "confidence: .nan\n"
        );
    }

    #[test]
    fn atomic_write_replaces_whole_file_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m/rspec_metadata/a.yml");
        let target = crate::guard::metadata_file(dir.path(), &path).unwrap();
        let mut map = Mapping::new();
        set(&mut map, "source_file", Value::from("app/a.rb"));
        write_atomic(&target, &map).unwrap();
        set(&mut map, "class_name", Value::from("A"));
        write_atomic(&target, &map).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "source_file: app/a.rb\nclass_name: A\n"
        );
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp."))
            .collect();
        assert!(leftovers.is_empty());
    }

    #[test]
    fn load_reports_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.yml");
        assert!(load(&p).unwrap().is_none());
        std::fs::write(&p, "").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains("empty"));
        std::fs::write(&p, "- a\n").unwrap();
        assert!(load(&p).unwrap_err().to_string().contains("must be a Hash"));
        std::fs::write(&p, "a: &x 1\nb: *x\n").unwrap();
        assert!(load(&p)
            .unwrap_err()
            .to_string()
            .contains("Psych::BadAlias"));
        std::fs::create_dir(dir.path().join("d.yml")).unwrap();
        assert!(load(&dir.path().join("d.yml"))
            .unwrap_err()
            .to_string()
            .contains("directory"));
    }

    #[test]
    fn the_owner_is_read_from_a_plain_source_file_line_or_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yml");
        let owner_with = |text: &str| {
            std::fs::write(&path, text).unwrap();
            owner(&path, "app/models/a.rb")
        };
        assert_eq!(owner(&dir.path().join("none.yml"), "x"), Owner::Free);
        assert_eq!(owner_with("source_file: app/models/a.rb\n"), Owner::Mine);
        assert_eq!(
            owner_with("slug: s\nsource_file: app/models/b.rb\r\nclass_name: B\n"),
            Owner::Other("app/models/b.rb".to_string())
        );
        // Quoted, commented or nested: the whole file is loaded.
        assert_eq!(
            owner_with("source_file: \"app/models/a.rb\"\n"),
            Owner::Mine
        );
        assert_eq!(
            owner_with("source_file: app/models/a.rb # x\n"),
            Owner::Mine
        );
        assert_eq!(
            owner_with("x:\n  source_file: app/models/b.rb\n"),
            Owner::Unknown
        );
        assert_eq!(owner_with("a: &x 1\nb: *x\n"), Owner::Unknown);
    }

    #[test]
    fn temp_file_names_give_their_process() {
        assert_eq!(
            temp_file_pid(".app_helpers_application_helper.yml.tmp.6539.62"),
            Some(6539)
        );
        for other in [
            "app_models_a.yml",
            ".rspec-scout.lock",
            ".a.yml.tmp.x.1",
            ".a.yml.tmp.1.",
            ".a.yml.tmp.1.x",
            "a.yml.tmp.1.2",
        ] {
            assert_eq!(temp_file_pid(other), None, "{other}");
        }
    }

    #[test]
    fn digest_is_sha256() {
        assert_eq!(
            digest(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
