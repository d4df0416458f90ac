//! The facts cache on disk: each Ruby file's facts (as [`super::extract_with`] made them,
//! without method bodies) kept between runs in one file,
//! `{metadata_path}/rspec_scout/facts.bin`, so a command run again on a tree where little
//! changed parses only what changed.
//!
//! - **Key**: the file's root-relative path, its [`Stamp`] (mtime in nanoseconds, size,
//!   inode) and the [`super::content_digest`] of its content. A file is not read when its stamp is the one
//!   recorded and it was not modified within [`RACY`] of the moment it was recorded (git's
//!   racy-clean rule); otherwise it is read and its digest compared, and parsed only when
//!   the digest differs.
//! - **Build**: the header holds a format number and the build's identity (the crate
//!   version, a fingerprint of `src/index/` and `Cargo.lock` made by `build.rs`, and this
//!   build's method digest of a probe text); anything else, a bad checksum, a truncated or
//!   hand-edited file is ignored whole and the cache made again.
//! - **Load and save**: one read at the start; entries are decoded only when asked for.
//!   Written atomically (temp file and rename, through the guard; no `fsync`, as a file cut
//!   short by a crash fails its check) when something changed;
//!   a write that fails or is refused leaves the answer as it is (the cache is only not
//!   written). Entries of files that are gone are dropped when the run looked at most of
//!   the cache; [`MAX_ENTRIES`] and [`MAX_BYTES`] bound it.
//!
//! Does not: decide what to index, or hold anything for analyze (its body trees are
//! always made again). The facts it answers are exactly what extraction answers now.

pub mod codec;
pub(crate) mod frame;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

#[cfg(doc)]
use super::stamp::RACY;
use super::stamp::{nanos_since_epoch, Stamp};
use super::walk::SourceFile;
use super::{ContentDigest, ExtractOptions, FileFacts};

/// The cache file's name in `{metadata_path}/rspec_scout/`.
pub const FILE_NAME: &str = "facts.bin";

/// Files kept at most (the oldest untouched ones go first).
pub const MAX_ENTRIES: usize = 500_000;

/// Bytes of facts kept at most.
pub const MAX_BYTES: usize = 512 * 1024 * 1024;

/// The first bytes of a cache file.
const MAGIC: &[u8; 8] = b"RSSFACTS";

/// The layout of the file; raised whenever [`codec`] or the entry layout changes.
const FORMAT: u32 = 4;

/// What a build's cache files say about the build: another build's cache is not read.
pub fn identity() -> String {
    format!(
        "rspec-scout {} facts {} probe {:016x}",
        env!("CARGO_PKG_VERSION"),
        env!("RSPEC_SCOUT_FACTS_HASH"),
        super::digest_normalized(b"def probe\n  x = 1\nend\n")
    )
}

/// One file's entry as loaded.
#[derive(Debug, Clone)]
struct Entry {
    stamp: Stamp,
    /// When the stamp was taken (nanoseconds since the epoch).
    made_ns: i128,
    digest: ContentDigest,
    /// Whether its methods carry digests ([`ExtractOptions::digests`]).
    digests: bool,
    /// The encoded facts.
    blob: Blob,
}

#[derive(Debug, Clone)]
enum Blob {
    /// A range of the loaded file.
    Loaded(std::ops::Range<usize>),
    /// Encoded in this run.
    Fresh(Vec<u8>),
}

/// What this run did with a path.
#[derive(Debug)]
enum Use {
    /// The loaded entry answered as it was.
    Kept,
    /// A new or re-stamped entry.
    Put(Entry),
    /// The file could not be read: no entry.
    Dropped,
}

/// What identifies the version of a file some facts are of, as the cache records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The file's stamp, taken before it was read.
    pub stamp: Stamp,
    /// When the stamp was taken (nanoseconds since the epoch): an entry whose file was
    /// modified within [`super::stamp::RACY`] of it is verified by its digest.
    pub made_ns: i128,
    /// The content digest of the content ([`super::content_digest`]).
    pub digest: ContentDigest,
    /// Whether the facts carry method digests.
    pub digests: bool,
}

/// How [`FactsCache::lookup`] found a file's facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// From the cache by its stamp: not read.
    Hit,
    /// Read, and its digest was the recorded one: not parsed (`restamped` when the entry
    /// must be written again with the new stamp).
    Verified {
        /// The stamp differs from the recorded one, or is no longer racy.
        restamped: bool,
    },
    /// Read and parsed.
    Parsed,
    /// Could not be read (the facts say why).
    Unread,
}

/// A file's facts from [`FactsCache::lookup`].
#[derive(Debug)]
pub struct Found {
    /// The facts, as extraction answers them now.
    pub facts: FileFacts,
    /// The version they are of (`None` when the file could not be read).
    pub key: Option<Key>,
    /// How they were found.
    pub how: How,
}

/// What the cache did in a run (`--timings`, tests and benches).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Entries in the file loaded (0 when there was none or it was not trusted).
    pub loaded: usize,
    /// Files answered without being read.
    pub hits: usize,
    /// Files read whose digest matched the entry (not parsed).
    pub verified: usize,
    /// Files parsed.
    pub parsed: usize,
}

/// The facts cache of one project, for one run.
#[derive(Debug)]
pub struct FactsCache {
    root: PathBuf,
    dir: PathBuf,
    /// The time the run started: every stamp taken in it is taken after this.
    seen_ns: i128,
    bytes: Vec<u8>,
    entries: FxHashMap<String, Entry>,
    uses: Mutex<FxHashMap<String, Use>>,
    counters: Mutex<Counters>,
}

impl FactsCache {
    /// Opens the cache of `root` kept in `dir` (`{metadata_path}/rspec_scout`): one read
    /// of its file, taken only when it is whole and this build's.
    pub fn open(root: &Path, dir: &Path) -> FactsCache {
        let seen_ns = nanos_since_epoch(SystemTime::now());
        let bytes = std::fs::read(dir.join(FILE_NAME)).unwrap_or_default();
        let entries = read_entries(&bytes).unwrap_or_default();
        let counters = Counters {
            loaded: entries.len(),
            ..Counters::default()
        };
        FactsCache {
            root: root.to_path_buf(),
            dir: dir.to_path_buf(),
            seen_ns,
            bytes,
            entries,
            uses: Mutex::new(FxHashMap::default()),
            counters: Mutex::new(counters),
        }
    }

    /// What the cache did so far.
    pub fn counters(&self) -> Counters {
        *lock(&self.counters)
    }

    /// The facts of `file` as [`super::index_file_with`] gives them (bodies off; method
    /// digests when `digests`, and possibly when not: a caller that does not ask for them
    /// does not read them). What the run learnt is kept for [`FactsCache::save`].
    pub fn facts(&self, file: &SourceFile, max_size: u64, digests: bool) -> FileFacts {
        self.facts_keyed(file, max_size, digests).0
    }

    /// [`FactsCache::facts`], with what identifies the version they are of (`None` when
    /// the file could not be read).
    pub fn facts_keyed(
        &self,
        file: &SourceFile,
        max_size: u64,
        digests: bool,
    ) -> (FileFacts, Option<Key>) {
        let found = self.lookup(file, max_size, digests);
        let what = match (found.how, found.key) {
            (How::Unread, _) | (_, None) => Use::Dropped,
            (How::Hit, Some(_)) => Use::Kept,
            (How::Verified { restamped }, Some(key)) => match self.entries.get(&file.rel) {
                Some(entry) if restamped => Use::Put(Entry {
                    stamp: key.stamp,
                    made_ns: key.made_ns,
                    ..entry.clone()
                }),
                Some(_) => Use::Kept,
                None => Use::Dropped,
            },
            (How::Parsed, Some(key)) => {
                let mut blob = Vec::new();
                codec::encode(&found.facts, &mut blob);
                // Held until the cache is written: no room to spare.
                blob.shrink_to_fit();
                Use::Put(Entry {
                    stamp: key.stamp,
                    made_ns: key.made_ns,
                    digest: key.digest,
                    digests: key.digests,
                    blob: Blob::Fresh(blob),
                })
            }
        };
        self.put(&file.rel, what);
        (found.facts, found.key)
    }

    /// The facts of `file`, as [`FactsCache::facts`], with what identifies the version
    /// they are of and how they were found; nothing is kept for [`FactsCache::save`] (a
    /// caller that holds the facts itself writes them with [`FactsCache::save_with`]).
    pub fn lookup(&self, file: &SourceFile, max_size: u64, digests: bool) -> Found {
        let options = ExtractOptions {
            digests,
            ..ExtractOptions::default()
        };
        let old = self
            .entries
            .get(&file.rel)
            .filter(|e| e.digests || !digests);
        if let Some(entry) = old {
            // A file the cache knows is measured first: unchanged, it is not opened.
            match std::fs::metadata(&file.path) {
                Ok(meta) if meta.is_file() && meta.len() <= max_size => {
                    let stamp = Stamp::from_meta(&meta);
                    if entry.stamp == stamp && !entry.stamp.racy_ns(entry.made_ns) {
                        if let Some(facts) = self.decode(&file.rel, &entry.blob) {
                            lock(&self.counters).hits += 1;
                            return Found {
                                facts,
                                key: Some(Key {
                                    stamp,
                                    made_ns: entry.made_ns,
                                    digest: entry.digest,
                                    digests: entry.digests,
                                }),
                                how: How::Hit,
                            };
                        }
                    }
                }
                _ => {}
            }
        }
        // The stamp is taken through the open file before it is read: a write after it
        // changes the stamp the next run sees.
        let (bytes, stamp) = match super::read_source_stamped(&file.path, max_size) {
            Ok(read) => read,
            Err(reason) => {
                return Found {
                    facts: super::unread(&file.rel, reason),
                    key: None,
                    how: How::Unread,
                }
            }
        };
        let digest = super::content_digest(&bytes);
        if let Some(entry) = old.filter(|e| e.digest == digest) {
            if let Some(facts) = self.decode(&file.rel, &entry.blob) {
                // Written again only when the stamp says more than before.
                let restamped = !(entry.stamp == stamp && stamp.racy_ns(self.seen_ns));
                lock(&self.counters).verified += 1;
                return Found {
                    facts,
                    key: Some(Key {
                        stamp,
                        made_ns: self.seen_ns,
                        digest,
                        digests: entry.digests,
                    }),
                    how: How::Verified { restamped },
                };
            }
        }
        let facts = super::extract_with(&file.rel, &bytes, &options);
        lock(&self.counters).parsed += 1;
        Found {
            facts,
            key: Some(Key {
                stamp,
                made_ns: self.seen_ns,
                digest,
                digests,
            }),
            how: How::Parsed,
        }
    }

    /// Writes the cache from facts a caller holds (the MCP server's warm index): `held`
    /// (path, key, facts) are encoded now; the loaded entries of other files are kept,
    /// those of files that are gone dropped when `held` covers most of the cache.
    pub fn save_with(
        &self,
        held: &[(String, Key, std::sync::Arc<FileFacts>)],
        write: &dyn Fn(&crate::guard::Target, &[u8]) -> bool,
    ) -> bool {
        let mut fresh: Vec<(&str, Entry)> = held
            .iter()
            .map(|(rel, key, facts)| {
                let mut blob = Vec::new();
                codec::encode(facts, &mut blob);
                (
                    rel.as_str(),
                    Entry {
                        stamp: key.stamp,
                        made_ns: key.made_ns,
                        digest: key.digest,
                        digests: key.digests,
                        blob: Blob::Fresh(blob),
                    },
                )
            })
            .collect();
        fresh.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let held_paths: rustc_hash::FxHashSet<&str> = fresh.iter().map(|(rel, _)| *rel).collect();
        let prune = fresh.len() >= self.entries.len() / 2;
        let mut kept: Vec<(&str, &Entry)> = fresh.iter().map(|(rel, e)| (*rel, e)).collect();
        let mut others: Vec<(&str, &Entry)> = self
            .entries
            .iter()
            .filter(|(rel, _)| !held_paths.contains(rel.as_str()))
            .filter(|(rel, _)| !prune || std::fs::symlink_metadata(self.root.join(rel)).is_ok())
            .map(|(rel, e)| (rel.as_str(), e))
            .collect();
        others.sort_unstable_by(|a, b| a.0.cmp(b.0));
        kept.extend(others);
        kept.truncate(MAX_ENTRIES);
        kept.sort_unstable_by(|a, b| a.0.cmp(b.0));
        self.write_entries(&kept, write)
    }

    /// Writes the cache when this run changed it. A write that fails or that the guard
    /// refuses is not an error of the command: the cache is only not written.
    pub fn save(
        &self,
        threads: usize,
        write: &dyn Fn(&crate::guard::Target, &[u8]) -> bool,
    ) -> bool {
        let uses = std::mem::take(&mut *lock(&self.uses));
        let mut changed = uses.values().any(|u| !matches!(u, Use::Kept));
        // Entries this run did not look at: kept, unless the run looked at most of the
        // cache (a walk of the tree), where those of files that are gone are dropped.
        let untouched: Vec<&String> = {
            let mut keys: Vec<&String> = self
                .entries
                .keys()
                .filter(|k| !uses.contains_key(*k))
                .collect();
            keys.sort_unstable();
            keys
        };
        let gone: Vec<bool> = if !untouched.is_empty() && untouched.len() <= uses.len() {
            super::in_pool(threads, || {
                untouched
                    .par_iter()
                    .map(|rel| std::fs::symlink_metadata(self.root.join(rel)).is_err())
                    .collect()
            })
        } else {
            vec![false; untouched.len()]
        };
        changed |= gone.iter().any(|&g| g);
        if !changed {
            return false;
        }
        let mut kept: Vec<(&str, &Entry)> = Vec::with_capacity(self.entries.len() + uses.len());
        let mut paths: Vec<&String> = uses.keys().collect();
        paths.sort_unstable();
        for rel in paths {
            match uses.get(rel) {
                Some(Use::Put(entry)) => kept.push((rel, entry)),
                Some(Use::Kept) => {
                    if let Some(entry) = self.entries.get(rel) {
                        kept.push((rel, entry));
                    }
                }
                _ => {}
            }
        }
        for (rel, gone) in untouched.iter().zip(&gone) {
            if kept.len() >= MAX_ENTRIES {
                break;
            }
            if !gone {
                if let Some(entry) = self.entries.get(*rel) {
                    kept.push((rel, entry));
                }
            }
        }
        kept.truncate(MAX_ENTRIES);
        kept.sort_unstable_by(|a, b| a.0.cmp(b.0));
        self.write_entries(&kept, write)
    }

    /// Encodes `kept` (sorted by path) and writes the file through the guard.
    fn write_entries(
        &self,
        kept: &[(&str, &Entry)],
        write: &dyn Fn(&crate::guard::Target, &[u8]) -> bool,
    ) -> bool {
        let bytes = self.encode(kept);
        place(&self.root, &self.dir, FILE_NAME).is_some_and(|target| write(&target, &bytes))
    }

    fn put(&self, rel: &str, what: Use) {
        if matches!(what, Use::Dropped) && !self.entries.contains_key(rel) {
            return;
        }
        lock(&self.uses).insert(rel.to_string(), what);
    }

    fn blob<'a>(&'a self, blob: &'a Blob) -> Option<&'a [u8]> {
        match blob {
            Blob::Loaded(range) => self.bytes.get(range.clone()),
            Blob::Fresh(bytes) => Some(bytes),
        }
    }

    fn decode(&self, rel: &str, blob: &Blob) -> Option<FileFacts> {
        codec::decode(rel, self.blob(blob)?)
    }

    /// The whole file: header, then the entries.
    fn encode(&self, entries: &[(&str, &Entry)]) -> Vec<u8> {
        // At most this much besides the path and the facts: three varints, two times, the
        // digest and a flag.
        const PER_ENTRY: usize = 3 * 10 + 3 + 2 * 16 + 16 + 1;
        let mut total = 0usize;
        let mut written = Vec::with_capacity(entries.len());
        for &(rel, entry) in entries {
            let Some(blob) = self.blob(&entry.blob) else {
                continue;
            };
            let size = blob.len() + rel.len() + PER_ENTRY;
            if total.saturating_add(size) > MAX_BYTES {
                break;
            }
            total += size;
            written.push((rel, entry, blob));
        }
        // One buffer of its final size (the entries are written in place, after a header
        // whose length and checksum are filled in at the end): the facts are not copied
        // twice, nor held twice while a growing buffer moves.
        let identity = identity();
        let mut out = Vec::with_capacity(total + identity.len() + 64);
        let sums_at = frame::begin(&mut out, MAGIC, FORMAT, &identity);
        let mut w = codec::Writer(&mut out);
        w.len(written.len());
        for (rel, entry, blob) in written {
            w.str(rel);
            w.0.extend_from_slice(&entry.stamp.mtime_ns.to_le_bytes());
            w.uint(entry.stamp.size);
            w.uint(entry.stamp.inode);
            w.uint(u64::from(entry.stamp.mode));
            w.0.extend_from_slice(&entry.made_ns.to_le_bytes());
            w.0.extend_from_slice(&entry.digest);
            w.byte(u8::from(entry.digests));
            w.len(blob.len());
            w.0.extend_from_slice(blob);
        }
        frame::finish(&mut out, sums_at);
        out
    }
}

/// The entries of a cache file, or `None` when it is not whole, not this build's, or not
/// a cache file at all.
fn read_entries(bytes: &[u8]) -> Option<FxHashMap<String, Entry>> {
    let (start, payload) = frame::open(bytes, MAGIC, FORMAT, &identity())?;
    let mut r = codec::Reader::new(payload);
    let n = r.len()?;
    let mut entries = FxHashMap::default();
    entries.reserve(n);
    for _ in 0..n {
        let rel = r.str()?.to_string();
        let mtime_ns = i128::from_le_bytes(r.take(16)?.try_into().ok()?);
        let size = r.uint()?;
        let inode = r.uint()?;
        let mode = r.u32()?;
        let made_ns = i128::from_le_bytes(r.take(16)?.try_into().ok()?);
        let digest: ContentDigest = r.take(16)?.try_into().ok()?;
        let digests = match r.byte()? {
            0 => false,
            1 => true,
            _ => return None,
        };
        let blob_len = r.len()?;
        let blob = r.take(blob_len)?;
        let offset = (blob.as_ptr() as usize).checked_sub(payload.as_ptr() as usize)?;
        let from = start.checked_add(offset)?;
        let entry = Entry {
            stamp: Stamp {
                mtime_ns,
                size,
                inode,
                mode,
            },
            made_ns,
            digest,
            digests,
            blob: Blob::Loaded(from..from.checked_add(blob_len)?),
        };
        if entries.insert(rel, entry).is_some() {
            return None;
        }
    }
    r.at_end().then_some(entries)
}

/// Where a file this module's kind keeps, `name` in `dir`, may be written: through the
/// guard, never outside the project `root`, never under `.git/` (`None`: refused).
/// The facts of `file`, parsed now, with what identifies the version read (`None` when it
/// could not be read), as [`FactsCache::lookup`] keys a file it parses: for a caller that
/// knows which few files changed and does not open the cache to ask about them.
pub fn read_keyed(file: &SourceFile, max_size: u64, digests: bool) -> (FileFacts, Option<Key>) {
    let seen_ns = nanos_since_epoch(SystemTime::now());
    match super::read_source_stamped(&file.path, max_size) {
        Ok((bytes, stamp)) => {
            let digest = super::content_digest(&bytes);
            let options = ExtractOptions {
                digests,
                ..ExtractOptions::default()
            };
            let facts = super::extract_with(&file.rel, &bytes, &options);
            let key = Key {
                stamp,
                made_ns: seen_ns,
                digest,
                digests,
            };
            (facts, Some(key))
        }
        Err(reason) => (super::unread(&file.rel, reason), None),
    }
}

pub(crate) fn place(root: &Path, dir: &Path, name: &str) -> Option<crate::guard::Target> {
    crate::guard::folder(root, dir).ok()?.file(name).ok()
}

/// Writes `bytes` as `name` in `dir` ([`place`], atomically). A write that fails or is
/// refused is not an error: the next run only makes the file again.
pub(crate) fn write_beside(root: &Path, dir: &Path, name: &str, bytes: &[u8]) -> bool {
    place(root, dir, name)
        .is_some_and(|target| crate::metadata::write_cache_atomic(&target, bytes).is_ok())
}

/// The payload's checksum: FxHash over its bytes (deterministic within a build, and only
/// read by the build that wrote it).
pub(crate) fn checksum(payload: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(payload);
    hasher.write_usize(payload.len());
    hasher.finish()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests;
