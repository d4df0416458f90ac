use super::*;
use crate::index::{extract_with, index_file_with};
use std::time::Duration;

const ORDER: &str = "class Order < ApplicationRecord\n  belongs_to :customer\n  def total\n    items.sum(&:amount)\n  end\nend\n";
const ORDER_EDITED: &str = "class Order < ApplicationRecord\n  belongs_to :customer\n  def totel\n    items.sum(&:amount)\n  end\nend\n";
const SERVICE: &str = "module Billing\n  class Charge\n    def call(order)\n      Gateway.charge(order.total)\n    end\n  end\nend\n";

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("app/models")).unwrap();
        std::fs::create_dir_all(root.join("app/services")).unwrap();
        Project { _dir: dir, root }
    }

    fn dir(&self) -> PathBuf {
        self.root.join("tmp/rspec_scout")
    }

    fn file(&self, rel: &str) -> SourceFile {
        SourceFile {
            rel: rel.to_string(),
            path: self.root.join(rel),
        }
    }

    /// Writes a file whose mtime is an hour old (not racy).
    fn write_old(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::write(&path, text).unwrap();
        set_mtime(&path, SystemTime::now() - Duration::from_secs(3600));
    }

    fn cache_file(&self) -> PathBuf {
        self.dir().join(FILE_NAME)
    }

    /// One run over `rels`: the facts and what the cache did.
    fn run(&self, rels: &[&str], digests: bool) -> (Vec<FileFacts>, Counters, bool) {
        let cache = FactsCache::open(&self.root, &self.dir());
        let facts = rels
            .iter()
            .map(|rel| cache.facts(&self.file(rel), 1 << 20, digests))
            .collect();
        let written = cache.save(1, &|target, bytes| {
            crate::metadata::write_cache_atomic(target, bytes).is_ok()
        });
        (facts, cache.counters(), written)
    }

    fn cold(&self, rel: &str, digests: bool) -> FileFacts {
        index_file_with(
            &self.file(rel),
            1 << 20,
            &ExtractOptions {
                digests,
                ..ExtractOptions::default()
            },
        )
    }
}

fn set_mtime(path: &Path, time: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

const BOTH: [&str; 2] = ["app/models/order.rb", "app/services/charge.rb"];

fn two_files() -> Project {
    let p = Project::new();
    p.write_old("app/models/order.rb", ORDER);
    p.write_old("app/services/charge.rb", SERVICE);
    p
}

#[test]
fn a_second_run_reads_nothing_and_answers_the_same_facts() {
    let p = two_files();
    let (cold, counters, written) = p.run(&BOTH, true);
    assert_eq!(counters.parsed, 2);
    assert!(written);
    assert_eq!(cold, BOTH.map(|r| p.cold(r, true)).to_vec());
    let (warm, counters, written) = p.run(&BOTH, true);
    assert_eq!(
        counters,
        Counters {
            loaded: 2,
            hits: 2,
            verified: 0,
            parsed: 0
        }
    );
    assert!(!written, "nothing changed: nothing written");
    assert_eq!(warm, cold);
}

#[test]
fn an_edited_file_is_parsed_again() {
    let p = two_files();
    p.run(&BOTH, true);
    p.write_old("app/models/order.rb", ORDER_EDITED);
    let (facts, counters, written) = p.run(&BOTH, true);
    assert_eq!((counters.hits, counters.parsed), (1, 1));
    assert!(written);
    assert_eq!(facts.first(), Some(&p.cold("app/models/order.rb", true)));
    assert_eq!(
        facts.first().unwrap().methods.first().unwrap().name,
        "totel"
    );
}

#[test]
fn a_racy_entry_is_verified_by_its_digest_and_a_same_stamp_edit_is_seen() {
    let p = Project::new();
    let rel = "app/models/order.rb";
    let path = p.root.join(rel);
    std::fs::write(&path, ORDER).unwrap();
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    p.run(&[rel], true);
    // Same size, same inode, the same mtime: only the content tells.
    assert_eq!(ORDER.len(), ORDER_EDITED.len());
    std::fs::write(&path, ORDER_EDITED).unwrap();
    set_mtime(&path, mtime);
    let (facts, counters, _) = p.run(&[rel], true);
    assert_eq!((counters.hits, counters.parsed), (0, 1));
    assert_eq!(facts, vec![p.cold(rel, true)]);
    // Unchanged and still racy: read and digested, not parsed.
    let (again, counters, _) = p.run(&[rel], true);
    assert_eq!(
        (counters.hits, counters.verified, counters.parsed),
        (0, 1, 0)
    );
    assert_eq!(again, facts);
}

#[test]
fn an_entry_made_after_the_racy_window_is_trusted_without_reading() {
    let p = Project::new();
    let rel = "app/models/order.rb";
    std::fs::write(p.root.join(rel), ORDER).unwrap();
    p.run(&[rel], true);
    // Older now: the digest checked once more, and the entry made again outside the window.
    set_mtime(
        &p.root.join(rel),
        SystemTime::now() - Duration::from_secs(60),
    );
    let (_, counters, written) = p.run(&[rel], true);
    assert_eq!((counters.verified, counters.parsed), (1, 0));
    assert!(written);
    let (_, counters, _) = p.run(&[rel], true);
    assert_eq!(counters.hits, 1);
}

#[test]
fn entries_without_method_digests_do_not_answer_a_caller_that_needs_them() {
    let p = two_files();
    let (plain, _, _) = p.run(&BOTH, false);
    assert_eq!(plain, BOTH.map(|r| p.cold(r, false)).to_vec());
    let (digested, counters, _) = p.run(&BOTH, true);
    assert_eq!(counters.parsed, 2);
    assert_eq!(digested, BOTH.map(|r| p.cold(r, true)).to_vec());
    // Digested entries answer both.
    let (_, counters, _) = p.run(&BOTH, false);
    assert_eq!(counters.hits, 2);
}

#[test]
fn a_deleted_file_is_pruned_when_the_run_covers_the_cache() {
    let p = two_files();
    p.run(&BOTH, true);
    std::fs::remove_file(p.root.join("app/services/charge.rb")).unwrap();
    let (_, _, written) = p.run(&["app/models/order.rb"], true);
    assert!(written);
    let cache = FactsCache::open(&p.root, &p.dir());
    assert_eq!(cache.counters().loaded, 1);
    assert!(cache.entries.contains_key("app/models/order.rb"));
}

#[test]
fn an_unreadable_file_answers_as_cold_and_leaves_no_entry() {
    let p = two_files();
    p.run(&BOTH, true);
    let rel = "app/models/order.rb";
    std::fs::remove_file(p.root.join(rel)).unwrap();
    let (facts, _, written) = p.run(&[rel], true);
    assert!(written);
    assert_eq!(facts, vec![p.cold(rel, true)]);
    assert!(facts.first().unwrap().skipped.is_some());
    let cache = FactsCache::open(&p.root, &p.dir());
    assert!(!cache.entries.contains_key(rel));
}

/// Each way a cache file can be bad: not read at all, the facts made again, the answer
/// unchanged, and a good file written in its place.
#[test]
fn a_bad_cache_file_is_ignored_and_made_again() {
    let p = two_files();
    p.run(&BOTH, true);
    let good = std::fs::read(p.cache_file()).unwrap();
    let expected = BOTH.map(|r| p.cold(r, true)).to_vec();
    let flip = |at: usize| {
        let mut bad = good.clone();
        *bad.get_mut(at).unwrap() ^= 0x01;
        bad
    };
    let identity_at = good
        .windows(identity().len())
        .position(|w| w == identity().as_bytes())
        .unwrap();
    let mut foreign = good.clone();
    // Another build: the same layout, another identity of the same length.
    *foreign.get_mut(identity_at + 12).unwrap() ^= 0x01;
    let mut newer_format = good.clone();
    *newer_format.get_mut(8).unwrap() = FORMAT as u8 + 1;
    // Hand-edited: a method name changed inside the payload.
    let name_at = good.windows(5).rposition(|w| w == b"total").unwrap();
    let mut edited = good.clone();
    edited.splice(name_at..name_at + 5, b"TOTAL".iter().copied());
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated header", good.get(..10).unwrap().to_vec()),
        (
            "truncated payload",
            good.get(..good.len() - 7).unwrap().to_vec(),
        ),
        ("one byte more", [good.as_slice(), b"x"].concat()),
        ("flipped byte in the payload", flip(good.len() - 20)),
        ("flipped checksum", flip(identity_at + identity().len() + 9)),
        ("wrong magic", flip(0)),
        ("foreign build", foreign),
        ("other format", newer_format),
        ("hand-edited", edited),
        ("garbage", (0..4096u32).map(|i| (i * 7 + 3) as u8).collect()),
        ("text", b"facts: {}\n".to_vec()),
    ];
    for (what, bytes) in cases {
        std::fs::write(p.cache_file(), &bytes).unwrap();
        let (facts, counters, written) = p.run(&BOTH, true);
        assert_eq!(counters.loaded, 0, "{what}: loaded");
        assert_eq!(counters.parsed, 2, "{what}");
        assert_eq!(facts, expected, "{what}: facts");
        assert!(written, "{what}: made again");
        let again = FactsCache::open(&p.root, &p.dir());
        assert_eq!(again.counters().loaded, 2, "{what}: rewritten");
    }
}

#[test]
fn a_read_only_folder_or_a_link_out_of_the_root_leaves_the_answer_alone() {
    let p = two_files();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(p.root.join("tmp")).unwrap();
    std::os::unix::fs::symlink(outside.path(), p.dir()).unwrap();
    let (facts, _, written) = p.run(&BOTH, true);
    assert!(!written, "refused by the guard");
    assert_eq!(facts, BOTH.map(|r| p.cold(r, true)).to_vec());
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn extracted_facts_decode_from_a_loaded_file_at_their_offsets() {
    let p = two_files();
    p.run(&BOTH, true);
    let cache = FactsCache::open(&p.root, &p.dir());
    for rel in BOTH {
        let entry = cache.entries.get(rel).unwrap();
        let source = std::fs::read(p.root.join(rel)).unwrap();
        assert_eq!(
            cache.decode(rel, &entry.blob),
            Some(extract_with(rel, &source, &ExtractOptions::default()))
        );
    }
}
