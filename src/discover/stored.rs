//! The plan kept between runs, `{metadata_path}/rspec_scout/plan.bin`: the last plan
//! `discover` made with the facts cache on, and what it was made from (each file's path,
//! stamp and content digest, how git saw it and its base version's digest, and a digest of
//! the settings). A run whose files all carry the recorded stamps (outside git's racy
//! window), or whose files read back with the recorded digests, over the same settings,
//! answers this plan: planning is pure (facts in, plan out), so the plan made again would
//! be the same, byte for byte.
//!
//! - **Build**: the header holds a format number and the build's identity (the crate
//!   version and a fingerprint of every source file and `Cargo.lock` made by `build.rs`,
//!   with the facts cache's identity); a plan of another build is never read.
//! - **Checked whole**: a length and a checksum over the payload; decoding checks every
//!   length, tag and index (a file, an item, a class number) and answers `None` for
//!   anything that does not read back whole, so a truncated, foreign or hand-edited file
//!   is ignored and made again, never trusted and never a failure of the command.
//!
//! Does not: read or stat files (`app::discover` compares the inputs with the tree), or
//! write (the caller writes [`encode`]'s bytes through the guard).

use std::sync::Arc;

use crate::git::ChangeKind;
use crate::index::cache::codec::{Reader, Writer};
use crate::index::cache::frame;
use crate::index::stamp::Stamp;
use crate::index::{MethodKind, NameList};

use super::deps::Deps;
use super::{FilePlan, Item, MethodMode, Plan, Rare, Stopped, Zone};

/// The file's name in `{metadata_path}/rspec_scout/`.
pub const FILE_NAME: &str = "plan.bin";

/// The first bytes of a stored plan.
const MAGIC: &[u8; 8] = b"RSSPLAN\0";

/// The layout of the file; raised whenever it changes.
const FORMAT: u32 = 4;

/// What a build's stored plans say about the build: another build's is not read.
pub fn identity() -> String {
    format!(
        "rspec-scout {} plan {} {}",
        env!("CARGO_PKG_VERSION"),
        env!("RSPEC_SCOUT_PLAN_HASH"),
        crate::index::cache::identity()
    )
}

/// One file a plan was made from, as it was then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Its path relative to the project root.
    pub rel: String,
    /// Its stamp, taken before it was read.
    pub stamp: Stamp,
    /// When the stamp was taken (nanoseconds since the epoch): a file modified within
    /// git's racy window of it is compared by its digest, not its stamp.
    pub made_ns: i128,
    /// The content digest of its content ([`crate::index::content_digest`]).
    pub digest: crate::index::ContentDigest,
    /// How git saw it.
    pub change: Option<ChangeKind>,
    /// Its path in the base, for renames.
    pub old_path: Option<String>,
    /// The content digest of the base version the plan compared it with, when it read one.
    pub base: Option<crate::index::ContentDigest>,
}

/// What git's answer in all mode depends on besides the walked files: when all of it is
/// as recorded (and the walked files are), git's answer is the recorded one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSeen {
    /// When the files below were measured (before git read them), in nanoseconds since
    /// the epoch.
    pub made_ns: i128,
    /// The index file, the repository's config, its `info/attributes` (`None`: not
    /// there), by path.
    pub files: Vec<(String, Option<Stamp>)>,
    /// The base as it was resolved: its ref, the ref's commit, the commit compared with.
    pub reference: String,
    /// The ref's commit id.
    pub ref_commit: Vec<u8>,
    /// The commit compared with (`None`: the repository had no commits).
    pub commit: Option<Vec<u8>>,
    /// The index's Ruby files the walk did not find, with their stamps (`None`: not a
    /// file there).
    pub outside: Vec<(String, Option<Stamp>)>,
    /// How a file compares with its base version when no filter can apply to any file
    /// (`None`: one could): a file whose stamp moved is then told by its content alone.
    pub plain: Option<crate::git::Plain>,
}

/// A file that did not parse whole, as the answer names it (its methods are the plan's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unparsable {
    /// Path.
    pub path: String,
    /// The first error's line.
    pub line: u32,
    /// The first error's message.
    pub message: String,
    /// How many errors.
    pub errors: usize,
}

/// A stored plan as loaded: its inputs read, the plan decoded only when asked for.
#[derive(Debug)]
pub struct Stored {
    bytes: Vec<u8>,
    /// The digest of the settings it was made with.
    pub settings: [u8; 32],
    /// What git's answer depended on, when it was recorded.
    pub git: Option<GitSeen>,
    /// The files it was made from, in the order they were walked.
    pub inputs: Vec<Input>,
    /// The files that did not parse whole.
    pub unparsable: Vec<Unparsable>,
    /// Where the plan's encoding starts in `bytes`.
    plan_at: usize,
}

impl Stored {
    /// Reads a stored plan from its file's bytes: `None` when it is not whole, not this
    /// build's, or not a stored plan at all.
    pub fn read(bytes: Vec<u8>) -> Option<Stored> {
        let (payload_at, settings, git, inputs, unparsable, plan_at) = {
            let (payload_at, payload) = frame::open(&bytes, MAGIC, FORMAT, &identity())?;
            let mut r = Reader::new(payload);
            let settings: [u8; 32] = r.take(32)?.try_into().ok()?;
            let git = match r.byte()? {
                0 => None,
                1 => Some(read_git(&mut r)?),
                _ => return None,
            };
            let n = r.len()?;
            let mut inputs = Vec::with_capacity(n);
            for _ in 0..n {
                inputs.push(read_input(&mut r)?);
            }
            let n = r.len()?;
            let mut unparsable = Vec::with_capacity(n);
            for _ in 0..n {
                unparsable.push(Unparsable {
                    path: r.str()?.to_string(),
                    line: r.u32()?,
                    message: r.str()?.to_string(),
                    errors: r.count()?,
                });
            }
            let plan_at = payload.len().checked_sub(r.rest_len())?;
            (payload_at, settings, git, inputs, unparsable, plan_at)
        };
        Some(Stored {
            plan_at: payload_at.checked_add(plan_at)?,
            bytes,
            settings,
            git,
            inputs,
            unparsable,
        })
    }

    /// This stored plan's bytes with `git` for what git's answer depended on (`None`
    /// when its plan's bytes are not there).
    pub fn with_git(&self, git: Option<&GitSeen>) -> Option<Vec<u8>> {
        let plan = self.bytes.get(self.plan_at..)?;
        Some(encode_with(
            &self.settings,
            git,
            &self.inputs,
            &self.unparsable,
            |w| w.0.extend_from_slice(plan),
        ))
    }

    /// The plan (`None` when it does not read back whole).
    pub fn plan(&self) -> Option<Plan> {
        let mut r = Reader::new(self.bytes.get(self.plan_at..)?);
        let plan = read_plan(&mut r)?;
        r.at_end().then_some(plan)
    }
}

/// The bytes of a stored plan: `plan`, made with the settings whose digest is `settings`
/// from `inputs`, with the files that did not parse whole.
pub fn encode(
    settings: &[u8; 32],
    git: Option<&GitSeen>,
    inputs: &[Input],
    unparsable: &[Unparsable],
    plan: &Plan,
) -> Vec<u8> {
    encode_with(settings, git, inputs, unparsable, |w| write_plan(w, plan))
}

/// [`encode`], the plan written by `plan`.
fn encode_with(
    settings: &[u8; 32],
    git: Option<&GitSeen>,
    inputs: &[Input],
    unparsable: &[Unparsable],
    plan: impl FnOnce(&mut Writer<'_>),
) -> Vec<u8> {
    let identity = identity();
    let mut out = Vec::with_capacity(64 + identity.len() + inputs.len() * 160);
    let sums_at = frame::begin(&mut out, MAGIC, FORMAT, &identity);
    let mut w = Writer(&mut out);
    w.0.extend_from_slice(settings);
    match git {
        None => w.byte(0),
        Some(git) => {
            w.byte(1);
            write_git(&mut w, git);
        }
    }
    w.len(inputs.len());
    for input in inputs {
        write_input(&mut w, input);
    }
    w.len(unparsable.len());
    for u in unparsable {
        w.str(&u.path);
        w.uint(u64::from(u.line));
        w.str(&u.message);
        w.len(u.errors);
    }
    plan(&mut w);
    frame::finish(&mut out, sums_at);
    out
}

fn write_stamp(w: &mut Writer<'_>, stamp: Option<&Stamp>) {
    match stamp {
        None => w.byte(0),
        Some(stamp) => {
            w.byte(1);
            w.0.extend_from_slice(&stamp.mtime_ns.to_le_bytes());
            w.uint(stamp.size);
            w.uint(stamp.inode);
            w.uint(u64::from(stamp.mode));
        }
    }
}

fn read_stamp(r: &mut Reader<'_>) -> Option<Option<Stamp>> {
    match r.byte()? {
        0 => Some(None),
        1 => Some(Some(Stamp {
            mtime_ns: i128::from_le_bytes(r.take(16)?.try_into().ok()?),
            size: r.uint()?,
            inode: r.uint()?,
            mode: r.u32()?,
        })),
        _ => None,
    }
}

fn write_paths(w: &mut Writer<'_>, paths: &[(String, Option<Stamp>)]) {
    w.len(paths.len());
    for (path, stamp) in paths {
        w.str(path);
        write_stamp(w, stamp.as_ref());
    }
}

fn read_paths(r: &mut Reader<'_>) -> Option<Vec<(String, Option<Stamp>)>> {
    let n = r.len()?;
    let mut out = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        out.push((r.str()?.to_string(), read_stamp(r)?));
    }
    Some(out)
}

fn write_git(w: &mut Writer<'_>, git: &GitSeen) {
    w.0.extend_from_slice(&git.made_ns.to_le_bytes());
    write_paths(w, &git.files);
    w.str(&git.reference);
    w.len(git.ref_commit.len());
    w.0.extend_from_slice(&git.ref_commit);
    match &git.commit {
        None => w.byte(0),
        Some(id) => {
            w.byte(1);
            w.len(id.len());
            w.0.extend_from_slice(id);
        }
    }
    write_paths(w, &git.outside);
    w.byte(match git.plain {
        None => 0,
        Some(crate::git::Plain { filemode: false }) => 1,
        Some(crate::git::Plain { filemode: true }) => 2,
    });
}

fn read_git(r: &mut Reader<'_>) -> Option<GitSeen> {
    let made_ns = i128::from_le_bytes(r.take(16)?.try_into().ok()?);
    let files = read_paths(r)?;
    let reference = r.str()?.to_string();
    let n = r.len()?;
    let ref_commit = r.take(n)?.to_vec();
    let commit = match r.byte()? {
        0 => None,
        1 => {
            let n = r.len()?;
            Some(r.take(n)?.to_vec())
        }
        _ => return None,
    };
    let outside = read_paths(r)?;
    let plain = match r.byte()? {
        0 => None,
        1 => Some(crate::git::Plain { filemode: false }),
        2 => Some(crate::git::Plain { filemode: true }),
        _ => return None,
    };
    Some(GitSeen {
        made_ns,
        files,
        reference,
        ref_commit,
        commit,
        outside,
        plain,
    })
}

fn write_input(w: &mut Writer<'_>, input: &Input) {
    w.str(&input.rel);
    w.0.extend_from_slice(&input.stamp.mtime_ns.to_le_bytes());
    w.uint(input.stamp.size);
    w.uint(input.stamp.inode);
    w.uint(u64::from(input.stamp.mode));
    w.0.extend_from_slice(&input.made_ns.to_le_bytes());
    w.0.extend_from_slice(&input.digest);
    w.opt_str(input.change.map(ChangeKind::as_str));
    w.opt_str(input.old_path.as_deref());
    match &input.base {
        None => w.byte(0),
        Some(digest) => {
            w.byte(1);
            w.0.extend_from_slice(digest);
        }
    }
}

fn read_input(r: &mut Reader<'_>) -> Option<Input> {
    let rel = r.str()?.to_string();
    let mtime_ns = i128::from_le_bytes(r.take(16)?.try_into().ok()?);
    let size = r.uint()?;
    let inode = r.uint()?;
    let mode = r.u32()?;
    let made_ns = i128::from_le_bytes(r.take(16)?.try_into().ok()?);
    let digest: crate::index::ContentDigest = r.take(16)?.try_into().ok()?;
    let change = match r.opt_str()? {
        None => None,
        Some(word) => Some(ChangeKind::parse(&word)?),
    };
    let old_path = r.opt_str()?;
    let base = match r.byte()? {
        0 => None,
        1 => Some(r.take(16)?.try_into().ok()?),
        _ => return None,
    };
    Some(Input {
        rel,
        stamp: Stamp {
            mtime_ns,
            size,
            inode,
            mode,
        },
        made_ns,
        digest,
        change,
        old_path,
        base,
    })
}

fn write_plan(w: &mut Writer<'_>, plan: &Plan) {
    w.len(plan.classes.len());
    for class in &plan.classes {
        w.str(class);
    }
    w.len(plan.files.len());
    for f in &plan.files {
        w.str(&f.path);
        w.uint(u64::from(f.loc));
        w.len(f.methods);
        w.opt_str(f.change.map(ChangeKind::as_str));
        w.opt_str(f.old_path.as_deref());
        w.opt_str(f.class_name.as_deref());
        w.str(f.zone.as_str());
        w.opt_str(f.spec_path.as_deref());
        w.bool(f.all_new);
        w.len(f.items.len());
        for &i in &f.items {
            w.len(i);
        }
        w.len(f.classes.len());
        for &id in &f.classes {
            w.uint(u64::from(id));
        }
        w.opt_str(f.warning.as_deref());
    }
    w.len(plan.items.len());
    for item in &plan.items {
        w.uint(u64::from(item.file));
        w.uint(u64::from(item.method));
        w.str(&item.method_id);
        w.uint(u64::from(item.owner_len));
        match item.class_id {
            None => w.byte(0),
            Some(id) => {
                w.byte(1);
                w.uint(u64::from(id));
            }
        }
        w.byte(match item.kind {
            MethodKind::Instance => 0,
            MethodKind::Singleton => 1,
        });
        w.range(item.line_range);
        w.str(item.mode.as_str());
        w.bool(item.selected);
        match &item.rare {
            None => w.byte(0),
            Some(rare) => {
                w.byte(1);
                w.opt_str(rare.skip_reason.as_deref());
                w.opt_str(rare.trigger.as_deref());
            }
        }
        let (ids, methods) = item.deps.parts();
        w.len(ids.len());
        for &id in ids {
            w.uint(u64::from(id));
        }
        w.str(methods);
        w.str(item.absorbed.as_buffer());
        w.len(item.wave);
    }
    w.len(plan.waves_count);
    w.len(plan.cycles.len());
    for cycle in &plan.cycles {
        w.strs(cycle);
    }
    w.len(plan.stopped.len());
    for s in &plan.stopped {
        w.str(&s.path);
        w.uint(u64::from(s.loc));
        w.len(s.methods);
    }
    w.strs(&plan.warnings);
}

fn read_plan(r: &mut Reader<'_>) -> Option<Plan> {
    let n = r.len()?;
    let mut classes: Vec<Arc<str>> = Vec::with_capacity(n);
    for _ in 0..n {
        classes.push(Arc::from(r.str()?));
    }
    let n = r.len()?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        let path = r.str()?.to_string();
        let loc = r.u32()?;
        let methods = r.count()?;
        let change = match r.opt_str()? {
            None => None,
            Some(word) => Some(ChangeKind::parse(&word)?),
        };
        let old_path = r.opt_str()?;
        let class_name = r.opt_str()?;
        let zone = Zone::parse(r.str()?)?;
        let spec_path = r.opt_str()?;
        let all_new = r.bool()?;
        let count = r.len()?;
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(r.count()?);
        }
        let count = r.len()?;
        let mut file_classes = Vec::with_capacity(count);
        for _ in 0..count {
            let id = r.u32()?;
            if id as usize >= classes.len() {
                return None;
            }
            file_classes.push(id);
        }
        let warning = r.opt_str()?;
        files.push(FilePlan {
            path,
            loc,
            methods,
            change,
            old_path,
            class_name,
            zone,
            spec_path,
            all_new,
            items,
            classes: file_classes,
            warning,
        });
    }
    let n = r.len()?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        let file = r.u32()?;
        let method = r.u32()?;
        let method_id: Box<str> = r.str()?.into();
        let owner_len = r.u32()?;
        // `Class#name`: the owner ends where the separator starts.
        if !matches!(
            method_id.as_bytes().get(owner_len as usize),
            Some(b'#' | b'.')
        ) {
            return None;
        }
        let class_id = match r.byte()? {
            0 => None,
            1 => {
                let id = r.u32()?;
                if id as usize >= classes.len() {
                    return None;
                }
                Some(id)
            }
            _ => return None,
        };
        let kind = match r.byte()? {
            0 => MethodKind::Instance,
            1 => MethodKind::Singleton,
            _ => return None,
        };
        let line_range = r.range()?;
        let mode = MethodMode::parse(r.str()?)?;
        let selected = r.bool()?;
        let rare = match r.byte()? {
            0 => None,
            1 => Some(Box::new(Rare {
                skip_reason: r.opt_str()?.map(String::into_boxed_str),
                trigger: r.opt_str()?.map(String::into_boxed_str),
            })),
            _ => return None,
        };
        let count = r.len()?;
        let mut ids = Vec::with_capacity(count);
        for _ in 0..count {
            let id = r.u32()?;
            if id as usize >= classes.len() {
                return None;
            }
            ids.push(id);
        }
        let deps = Deps::from_parts(ids.into_boxed_slice(), r.str()?.into());
        let absorbed = NameList::from_buffer(r.str()?)?;
        let wave = r.count()?;
        if file as usize >= files.len() {
            return None;
        }
        items.push(Item {
            file,
            method,
            method_id,
            owner_len,
            class_id,
            kind,
            line_range,
            mode,
            selected,
            rare,
            deps,
            absorbed,
            wave,
        });
    }
    if files
        .iter()
        .any(|f| f.items.iter().any(|&i| i >= items.len()))
    {
        return None;
    }
    let waves_count = r.count()?;
    let n = r.len()?;
    let mut cycles = Vec::with_capacity(n);
    for _ in 0..n {
        cycles.push(r.strs()?);
    }
    let n = r.len()?;
    let mut stopped = Vec::with_capacity(n);
    for _ in 0..n {
        stopped.push(Stopped {
            path: r.str()?.to_string(),
            loc: r.u32()?,
            methods: r.count()?,
        });
    }
    let warnings = r.strs()?;
    Some(Plan {
        files,
        items,
        waves_count,
        cycles,
        stopped,
        warnings,
        classes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::{plan, select, BaseVersion, Settings, Source, ZoneThresholds};
    use crate::index::extract;
    use crate::vocab::ControllerLayout;

    /// A plan that holds every field the codec carries: dependencies with methods called,
    /// absorbed private methods, a callback's trigger, skip reasons, a rename, a cycle, a
    /// red-zone warning and a file that does not parse.
    fn sample() -> Plan {
        let source = |path: &str, src: &str, change: Option<ChangeKind>| Source {
            facts: extract(path, src.as_bytes()),
            base: BaseVersion::Missing,
            change,
            old_path: (change == Some(ChangeKind::Renamed)).then(|| "app/models/old.rb".into()),
        };
        let many: String = (0..14).map(|i| format!("  def m{i}; end\n")).collect();
        let sources = vec![
            source(
                "app/models/payment.rb",
                "class Payment < ApplicationRecord\n  before_save :normalize\n  def capture(gateway)\n    Refund.new(self).undo if gateway.charge(amount)\n    audit\n  end\n\n  private\n\n  def audit; log; end\n  def log; end\n  def normalize; end\nend\n",
                Some(ChangeKind::Added),
            ),
            source(
                "app/models/refund.rb",
                "class Refund\n  def undo\n    Payment.find(1).capture(nil)\n  end\nend\n",
                Some(ChangeKind::Renamed),
            ),
            source("app/models/wide.rb", &format!("class Wide\n{many}end\n"), None),
            source("lib/broken.rb", "class Broken\n  def ok; end\n  def bad(\nend\n", None),
        ];
        let settings = Settings {
            select_all: false,
            filter: select::Filter::new(&[], &["Wide#m1".to_string()]).unwrap(),
            zones: ZoneThresholds::default(),
            spec_policy: ControllerLayout::Request,
            allow_red: true,
        };
        plan(sources, &settings)
    }

    fn inputs() -> Vec<Input> {
        vec![Input {
            rel: "app/models/payment.rb".into(),
            stamp: Stamp {
                mtime_ns: 1_700_000_000_123_456_789,
                size: 312,
                inode: 42,
                mode: 0o100755,
            },
            made_ns: 1_700_000_100_000_000_000,
            digest: [7; 16],
            change: Some(ChangeKind::Renamed),
            old_path: Some("app/models/old.rb".into()),
            base: Some([9; 16]),
        }]
    }

    fn unparsable() -> Vec<Unparsable> {
        vec![Unparsable {
            path: "lib/broken.rb".into(),
            line: 3,
            message: "unexpected end-of-input".into(),
            errors: 2,
        }]
    }

    #[test]
    fn a_plan_reads_back_exactly() {
        let plan = sample();
        // The sample holds what the codec must carry.
        assert!(plan.items.iter().any(|i| !i.deps.is_empty()));
        assert!(plan.items.iter().any(|i| !i.absorbed.is_empty()));
        assert!(plan.items.iter().any(|i| i.trigger().is_some()));
        assert!(plan.items.iter().any(|i| i.skip_reason().is_some()));
        assert!(plan.files.iter().any(|f| f.old_path.is_some()));
        assert!(!plan.cycles.is_empty() && !plan.warnings.is_empty());
        let bytes = encode(&[3; 32], None, &inputs(), &unparsable(), &plan);
        let stored = Stored::read(bytes).unwrap();
        assert_eq!(stored.settings, [3; 32]);
        assert_eq!(stored.inputs, inputs());
        assert_eq!(stored.unparsable, unparsable());
        let back = stored.plan().unwrap();
        assert_eq!(format!("{back:?}"), format!("{plan:?}"));
    }

    #[test]
    fn what_git_depended_on_reads_back_and_can_be_stored_anew_over_the_same_plan() {
        let git = GitSeen {
            made_ns: 5,
            files: vec![
                (
                    "/w/.git/index".to_string(),
                    Some(Stamp {
                        mtime_ns: 1,
                        size: 2,
                        inode: 3,
                        mode: 0o100644,
                    }),
                ),
                ("/w/.git/info/attributes".to_string(), None),
            ],
            reference: "origin/main".to_string(),
            ref_commit: vec![1; 20],
            commit: Some(vec![2; 20]),
            outside: vec![("script/x.rb".to_string(), None)],
            plain: Some(crate::git::Plain { filemode: true }),
        };
        let plan = sample();
        let stored = Stored::read(encode(
            &[3; 32],
            Some(&git),
            &inputs(),
            &unparsable(),
            &plan,
        ))
        .unwrap();
        assert_eq!(stored.git.as_ref(), Some(&git));
        let newer = GitSeen {
            made_ns: 6,
            plain: None,
            ..git.clone()
        };
        let again = Stored::read(stored.with_git(Some(&newer)).unwrap()).unwrap();
        assert_eq!(again.git.as_ref(), Some(&newer));
        assert_eq!(again.inputs, inputs());
        assert_eq!(again.unparsable, unparsable());
        assert_eq!(format!("{:?}", again.plan().unwrap()), format!("{plan:?}"));
        let none = Stored::read(stored.with_git(None).unwrap()).unwrap();
        assert!(none.git.is_none());
    }

    #[test]
    fn a_cut_a_flipped_byte_or_another_build_is_not_read() {
        let bytes = encode(&[3; 32], None, &inputs(), &unparsable(), &sample());
        for cut in (0..bytes.len()).step_by(7) {
            assert!(
                Stored::read(bytes[..cut].to_vec()).is_none(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Stored::read(longer).is_none());
        for at in (0..bytes.len()).step_by(5) {
            let mut bad = bytes.clone();
            bad[at] ^= 0x01;
            assert!(Stored::read(bad).is_none(), "flipped at {at}");
        }
        let at = bytes.windows(5).position(|w| w == b"plan ").unwrap() + 5;
        let mut foreign = bytes.clone();
        foreign[at] = if foreign[at] == b'0' { b'1' } else { b'0' };
        assert!(Stored::read(foreign).is_none());
    }

    #[test]
    fn indices_out_of_range_are_refused_even_in_a_whole_file() {
        // Written whole (a right checksum), yet naming what is not there: a hand-made file.
        let mut plan = sample();
        plan.items[0].file = 99;
        let stored = Stored::read(encode(&[0; 32], None, &[], &[], &plan)).unwrap();
        assert!(stored.plan().is_none(), "an item of no file");
        let mut plan = sample();
        plan.files[0].items.push(10_000);
        let stored = Stored::read(encode(&[0; 32], None, &[], &[], &plan)).unwrap();
        assert!(stored.plan().is_none(), "a file naming no item");
        let mut plan = sample();
        plan.classes.truncate(1);
        let stored = Stored::read(encode(&[0; 32], None, &[], &[], &plan)).unwrap();
        assert!(stored.plan().is_none(), "a dependency on no class");
        let mut plan = sample();
        plan.items[0].owner_len = 200;
        let stored = Stored::read(encode(&[0; 32], None, &[], &[], &plan)).unwrap();
        assert!(stored.plan().is_none(), "an owner longer than the id");
    }
}
