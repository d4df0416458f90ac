//! The `discover` answer: the discovery-agent contract (`status`, `slugs`, `method_waves`,
//! `files`, `dependency_graph`, `summary`, `warnings`), plus `stop` details, the mode and
//! base, skipped files and timings.
//!
//! The answer owns the plan and is written straight from it when it is printed
//! ([`crate::report::Streamed`]): on a large codebase the wave items, files and graph are
//! hundreds of MB of YAML, so they are never held as a value tree or a string. YAML is
//! written by [`DiscoverAnswer::write_yaml`] with the streaming [`crate::yaml::Writer`]
//! that also writes every other YAML document; JSON is serialized from the answer's
//! `Serialize` form.

use std::fmt::Write as _;
use std::io::Write;
use std::time::Instant;

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;

use crate::discover::{waves, FilePlan, Item, Plan, Zone};
use crate::git::ChangeKind;
use crate::index::{MethodKind, NameList};
use crate::yaml::{Block, Writer};

use super::{millis, Format, Streamed};

/// The answer, owning the plan it is written from.
#[derive(Debug)]
pub struct DiscoverAnswer {
    /// `success` or `stop`.
    pub status: &'static str,
    /// `red_zone_new_code` when stopped.
    pub reason: Option<&'static str>,
    /// Human-readable explanation when stopped.
    pub message: Option<String>,
    /// The files that caused the stop.
    pub stopped_files: Vec<StoppedFile>,
    /// What to do about a stop.
    pub suggestions: Vec<String>,
    /// `branch`, `staged`, `single` or `all`.
    pub mode: &'static str,
    /// What the working tree was compared with.
    pub base: Option<BaseInfo>,
    /// Slugs of the metadata files written (or that would be written).
    pub slugs: Vec<String>,
    /// The plan: `method_waves`, `files` and `dependency_graph` are written from it.
    pub plan: Plan,
    pub summary: Summary,
    /// Files not planned (deleted, binary, too large, unreadable).
    pub skipped_files: Vec<SkippedFile>,
    /// Files with syntax errors: planned from what the parser recovered, so their methods
    /// may be missing or wrong (`status: partial`).
    pub unparsable: Vec<UnparsableFile>,
    /// Problems that did not stop the run.
    pub warnings: Vec<String>,
    /// What to run next.
    pub next_suggestions: Vec<String>,
    /// Phase times, with `--timings`; `output_ms`, `total_ms` and `peak_rss_kb` are filled
    /// in when the answer is written, from `started`.
    pub timings: Option<Timings>,
    /// When the run started.
    pub started: Instant,
    /// Threads for rendering the long lists of the YAML answer (0: one per core).
    pub threads: usize,
    /// The part of the plan printed (`--wave`, `--file`), when not the whole: `plan` then
    /// holds only that part, `summary` still counts the whole plan.
    pub page: Option<PageInfo>,
    /// Metadata files of the whole plan (`slugs` lists only the page's).
    pub metadata_files: usize,
}

/// Which part of the plan an answer prints.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// Only this wave.
    pub wave: Option<usize>,
    /// Only these source files (project-relative).
    pub files: Vec<String>,
}

impl Page {
    /// Whether it is the whole plan.
    pub fn is_whole(&self) -> bool {
        self.wave.is_none() && self.files.is_empty()
    }
}

/// The page an answer printed.
#[derive(Debug, Clone, Serialize)]
pub struct PageInfo {
    /// `--wave`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wave: Option<usize>,
    /// `--file`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Methods on the page.
    pub methods: usize,
    /// Selected methods on the page.
    pub selected_methods: usize,
}

/// Keeps only the page's items and the files that have one (indices remapped; every item
/// keeps its wave and dependencies). Returns what the page holds.
pub fn restrict(plan: &mut Plan, page: &Page) -> PageInfo {
    let keep_file: Vec<bool> = plan
        .files
        .iter()
        .map(|f| page.files.is_empty() || page.files.contains(&f.path))
        .collect();
    let keep = |item: &Item| {
        page.wave.is_none_or(|w| item.wave == w)
            && keep_file.get(item.file()).copied() == Some(true)
    };
    let mut new_item: Vec<Option<usize>> = Vec::with_capacity(plan.items.len());
    let mut next = 0;
    for item in &plan.items {
        if keep(item) {
            new_item.push(Some(next));
            next += 1;
        } else {
            new_item.push(None);
        }
    }
    let mut index = 0;
    plan.items.retain(|_| {
        let kept = new_item.get(index).copied().flatten().is_some();
        index += 1;
        kept
    });
    let mut new_file: Vec<Option<usize>> = Vec::with_capacity(plan.files.len());
    let mut next_file = 0;
    for file in &mut plan.files {
        file.items = file
            .items
            .iter()
            .filter_map(|&i| new_item.get(i).copied().flatten())
            .collect();
        if file.items.is_empty() {
            new_file.push(None);
        } else {
            new_file.push(Some(next_file));
            next_file += 1;
        }
    }
    plan.files.retain(|f| !f.items.is_empty());
    for item in &mut plan.items {
        item.file = new_file
            .get(item.file())
            .copied()
            .flatten()
            .and_then(|f| u32::try_from(f).ok())
            .unwrap_or(0);
    }
    PageInfo {
        wave: page.wave,
        files: page.files.clone(),
        methods: plan.items.len(),
        selected_methods: plan.items.iter().filter(|i| i.selected).count(),
    }
}

/// A stopped file.
#[derive(Debug, Serialize)]
pub struct StoppedFile {
    pub path: String,
    pub loc: u32,
    pub methods: usize,
    /// The red-zone limits it crosses, with both numbers (`13 methods (red above 12)`).
    pub crossed: Vec<String>,
}

/// The comparison base.
#[derive(Debug, Serialize)]
pub struct BaseInfo {
    /// The ref (`main`, `origin/main`, `HEAD`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// The commit compared with (the merge-base in branch mode), shortened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Wave<'a> {
    /// Number, from 0.
    pub wave: usize,
    /// `Leaf methods (no dependencies)` or `Depends on wave N-1`.
    pub name: String,
    /// Methods in it, by file path then line.
    pub items: WaveItems<'a>,
}

/// The items of one wave, written one by one.
#[derive(Debug)]
pub struct WaveItems<'a> {
    plan: &'a Plan,
    items: &'a [Item],
}

impl Serialize for WaveItems<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.items.iter().map(|i| item_out(self.plan, i)))
    }
}

/// One method of a wave.
#[derive(Debug, Serialize)]
pub struct ItemOut<'a> {
    /// `Class#name` / `Class.name`.
    pub method_id: &'a str,
    pub class_name: &'a str,
    pub method_name: &'a str,
    pub source_file: &'a str,
    /// `[def, end]`.
    pub line_range: [u32; 2],
    /// `new|modified|unchanged`.
    pub method_mode: &'static str,
    /// Whether to analyze it.
    pub selected: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<&'a str>,
    /// In-scope classes it depends on.
    pub cross_class_deps: Vec<DepOut<'a>>,
    /// Private methods it calls, transitively.
    pub absorbed_private_methods: &'a NameList,
    /// An added field, for a private method Rails calls: what calls it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<&'a str>,
}

#[derive(Debug, Serialize)]
pub struct DepOut<'a> {
    pub class: &'a str,
    /// Methods called on it.
    pub methods: Vec<&'a str>,
}

#[derive(Debug, Serialize)]
pub struct FileOut<'a> {
    pub path: &'a str,
    /// The class under test.
    pub class_name: Option<&'a str>,
    /// Zone, LOC, methods and the yellow-zone warning.
    pub complexity: ComplexityOut,
    pub spec_path: Option<&'a str>,
    /// `added`, `modified`, `renamed`, or nothing for unchanged files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeKind>,
    /// The path in the base, for renames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<&'a str>,
    /// Its wave items.
    pub public_methods: Vec<PublicMethod<'a>>,
}

#[derive(Debug, Serialize)]
pub struct ComplexityOut {
    /// `green|yellow|red`.
    pub zone: &'static str,
    pub loc: u32,
    pub methods: usize,
    /// `Approaching complexity threshold` in the yellow zone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<&'static str>,
}

/// A public method of a file.
#[derive(Debug, Serialize)]
pub struct PublicMethod<'a> {
    pub name: &'a str,
    /// `instance` or `class`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub method_id: &'a str,
    /// `new|modified|unchanged`.
    pub method_mode: &'static str,
    pub wave: usize,
    pub selected: bool,
}

/// An edge of the dependency graph: method id → class.
#[derive(Debug, Serialize)]
pub struct Edge<'a> {
    pub from: &'a str,
    pub to: &'a str,
}

#[derive(Debug, Serialize)]
pub struct Summary {
    pub total_methods: usize,
    /// Selected wave items.
    pub selected_methods: usize,
    pub total_files: usize,
    pub waves_count: usize,
    /// Files per zone.
    pub by_zone: ByZone,
}

/// Files per zone.
#[derive(Debug, Serialize)]
pub struct ByZone {
    pub green: usize,
    pub yellow: usize,
    pub red: usize,
}

/// A file that was not planned.
#[derive(Debug, Serialize)]
pub struct SkippedFile {
    pub path: String,
    /// Why (`File deleted`, `binary file ...`).
    pub reason: String,
}

/// One unparsable file as the text answer says it.
pub fn unparsable_line(f: &UnparsableFile) -> String {
    format!(
        "unparsable {}:{}: {} ({}; its {} planned from what the parser recovered)",
        f.path,
        f.line,
        f.message,
        super::plural(f.errors, "syntax error"),
        super::plural(f.methods.len(), "method")
    )
}

/// A file that does not parse cleanly.
#[derive(Debug, Clone, Serialize)]
pub struct UnparsableFile {
    pub path: String,
    /// The first error's line.
    pub line: u32,
    /// The first error, as Ruby's parser gives it.
    pub message: String,
    /// How many errors the parser found.
    pub errors: usize,
    /// The method ids of the file that are in the plan (as recovered).
    pub methods: Vec<String>,
}

/// Milliseconds per phase.
#[derive(Debug, Serialize, Default, Clone)]
pub struct Timings {
    /// Finding files (walk).
    pub walk_ms: u64,
    /// Git: base, changes, base blobs; with `--all` or paths, the part of it the walk (run
    /// beside it) did not cover.
    pub git_ms: u64,
    /// Reading and parsing (current and base versions) into facts.
    pub parse_ms: u64,
    /// Modes, dependencies, graph and waves.
    pub graph_ms: u64,
    pub metadata_ms: u64,
    /// Writing the answer up to its `timings`.
    pub output_ms: u64,
    pub total_ms: u64,
    /// Folders the walk read (`--all` with the cache on: the stored walk answers for the
    /// others).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folders_read: Option<u64>,
    /// Whether git's answer was the stored plan's (nothing it depends on changed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_stored: Option<bool>,
    /// With `git_stored`: the files whose stamps moved, which git was asked about alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_asked: Option<u64>,
    /// Whether the stored plan was patched for the few files that changed, not made
    /// whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patched: Option<bool>,
    /// Peak resident memory of the process so far, in KiB (Linux only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_rss_kb: Option<u64>,
}

/// The contract's `type`.
pub fn kind_str(kind: MethodKind) -> &'static str {
    match kind {
        MethodKind::Instance => "instance",
        MethodKind::Singleton => "class",
    }
}

/// The contract's zone names.
pub fn zone_str(zone: Zone) -> &'static str {
    match zone {
        Zone::Green => "green",
        Zone::Yellow => "yellow",
        Zone::Red => "red",
    }
}

fn change_str(change: ChangeKind) -> &'static str {
    match change {
        ChangeKind::Added => "added",
        ChangeKind::Modified => "modified",
        ChangeKind::Renamed => "renamed",
        ChangeKind::Deleted => "deleted",
    }
}

/// A dependency list as the answer writes it.
pub fn deps_out<'a>(plan: &'a Plan, item: &'a Item) -> Vec<DepOut<'a>> {
    item.deps
        .iter(&plan.classes)
        .map(|(class, methods)| DepOut {
            class,
            methods: methods.collect(),
        })
        .collect()
}

fn item_out<'a>(plan: &'a Plan, item: &'a Item) -> ItemOut<'a> {
    ItemOut {
        method_id: &item.method_id,
        class_name: item.class_name(),
        method_name: item.method_name(),
        source_file: plan.files.get(item.file()).map_or("", FilePlan::path),
        line_range: [item.line_range.0, item.line_range.1],
        method_mode: item.mode.as_str(),
        selected: item.selected,
        skip_reason: item.skip_reason(),
        cross_class_deps: deps_out(plan, item),
        absorbed_private_methods: &item.absorbed,
        trigger: item.trigger(),
    }
}

fn file_out<'a>(plan: &'a Plan, file: &'a FilePlan) -> FileOut<'a> {
    FileOut {
        path: &file.path,
        class_name: file.class_name.as_deref(),
        complexity: ComplexityOut {
            zone: zone_str(file.zone),
            loc: file.loc,
            methods: file.methods,
            warning: (file.zone == Zone::Yellow).then_some("Approaching complexity threshold"),
        },
        spec_path: file.spec_path.as_deref(),
        change: file.change,
        renamed_from: file.old_path.as_deref(),
        public_methods: file
            .items
            .iter()
            .filter_map(|&i| plan.items.get(i))
            .map(|item| PublicMethod {
                name: item.method_name(),
                kind: kind_str(item.kind),
                method_id: &item.method_id,
                method_mode: item.mode.as_str(),
                wave: item.wave,
                selected: item.selected,
            })
            .collect(),
    }
}

/// The items of each wave (items are sorted by wave).
fn waves_of(plan: &Plan) -> impl Iterator<Item = Wave<'_>> {
    plan.items.chunk_by(|a, b| a.wave == b.wave).map(|items| {
        let wave = items.first().map_or(0, |i| i.wave);
        Wave {
            wave,
            name: waves::wave_name(wave),
            items: WaveItems { plan, items },
        }
    })
}

fn edges_of(plan: &Plan) -> impl Iterator<Item = Edge<'_>> {
    plan.items.iter().flat_map(|item| {
        item.deps.keys(&plan.classes).map(move |class| Edge {
            from: &item.method_id,
            to: class,
        })
    })
}

/// A lazily written sequence.
struct Seq<F>(F);

impl<F, I> Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq((self.0)())
    }
}

#[derive(Serialize)]
struct GraphOut<N: Serialize, E: Serialize> {
    nodes: N,
    edges: E,
}

/// Peak resident memory of this process in KiB (`VmHWM`), on Linux.
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

impl DiscoverAnswer {
    /// The timings as written now: `output_ms` since `render_started`, `total_ms` since the
    /// run started, the peak memory so far.
    fn timings_now(&self, render_started: Instant) -> Option<Timings> {
        self.timings.as_ref().map(|t| Timings {
            output_ms: millis(render_started),
            total_ms: millis(self.started),
            peak_rss_kb: peak_rss_kb(),
            ..t.clone()
        })
    }

    fn serialize_at<S: Serializer>(
        &self,
        serializer: S,
        render_started: Instant,
    ) -> Result<S::Ok, S::Error> {
        let plan = &self.plan;
        let mut s = serializer.serialize_struct("DiscoverAnswer", 18)?;
        s.serialize_field("status", self.status)?;
        match &self.reason {
            Some(reason) => s.serialize_field("reason", reason)?,
            None => s.skip_field("reason")?,
        }
        match &self.message {
            Some(message) => s.serialize_field("message", message)?,
            None => s.skip_field("message")?,
        }
        if self.stopped_files.is_empty() {
            s.skip_field("stopped_files")?;
        } else {
            s.serialize_field("stopped_files", &self.stopped_files)?;
        }
        if self.suggestions.is_empty() {
            s.skip_field("suggestions")?;
        } else {
            s.serialize_field("suggestions", &self.suggestions)?;
        }
        s.serialize_field("mode", self.mode)?;
        match &self.base {
            Some(base) => s.serialize_field("base", base)?,
            None => s.skip_field("base")?,
        }
        s.serialize_field("slugs", &self.slugs)?;
        s.serialize_field("method_waves", &Seq(|| waves_of(plan)))?;
        s.serialize_field(
            "files",
            &Seq(|| plan.files.iter().map(|f| file_out(plan, f))),
        )?;
        s.serialize_field(
            "dependency_graph",
            &GraphOut {
                nodes: Seq(|| plan.items.iter().map(|i| &*i.method_id)),
                edges: Seq(|| edges_of(plan)),
            },
        )?;
        s.serialize_field("summary", &self.summary)?;
        match &self.page {
            Some(page) => s.serialize_field("page", page)?,
            None => s.skip_field("page")?,
        }
        if self.skipped_files.is_empty() {
            s.skip_field("skipped_files")?;
        } else {
            s.serialize_field("skipped_files", &self.skipped_files)?;
        }
        if self.unparsable.is_empty() {
            s.skip_field("unparsable")?;
        } else {
            s.serialize_field("unparsable", &self.unparsable)?;
        }
        s.serialize_field("warnings", &self.warnings)?;
        s.serialize_field("next_suggestions", &self.next_suggestions)?;
        match self.timings_now(render_started) {
            Some(timings) => s.serialize_field("timings", &timings)?,
            None => s.skip_field("timings")?,
        }
        s.end()
    }

    /// Writes the answer as YAML, laid out as [`crate::yaml::to_string`] lays out its
    /// `Serialize` form, without building it.
    pub fn write_yaml(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let render_started = Instant::now();
        let plan = &self.plan;
        let mut y = Writer::new(out);
        let mut top = Block::top();
        y.str(&mut top, "status", self.status)?;
        if let Some(reason) = self.reason {
            y.str(&mut top, "reason", reason)?;
        }
        if let Some(message) = &self.message {
            y.str(&mut top, "message", message)?;
        }
        if !self.stopped_files.is_empty() {
            let level = y.seq(&mut top, "stopped_files", false)?.unwrap_or(2);
            for f in &self.stopped_files {
                let mut m = y.item(level);
                y.str(&mut m, "path", &f.path)?;
                y.num(&mut m, "loc", f.loc);
                y.num(&mut m, "methods", f.methods);
                y.strings(&mut m, "crossed", f.crossed.iter())?;
            }
        }
        if !self.suggestions.is_empty() {
            y.strings(&mut top, "suggestions", self.suggestions.iter())?;
        }
        y.str(&mut top, "mode", self.mode)?;
        if let Some(base) = &self.base {
            let mut m = y.map(&mut top, "base")?;
            y.str(&mut m, "ref", &base.reference)?;
            if let Some(commit) = &base.commit {
                y.str(&mut m, "commit", commit)?;
            }
        }
        y.strings(&mut top, "slugs", self.slugs.iter())?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()
            .ok();
        if let Some(level) = y.seq(&mut top, "method_waves", plan.items.is_empty())? {
            for wave in waves_of(plan) {
                let mut m = y.item(level);
                y.num(&mut m, "wave", wave.wave);
                y.str(&mut m, "name", &wave.name)?;
                let Some(level) = y.seq(&mut m, "items", wave.items.items.is_empty())? else {
                    continue;
                };
                y.write_each(pool.as_ref(), wave.items.items, |y, item| {
                    write_item(y, level, &item_out(plan, item))
                })?;
            }
        }
        if let Some(level) = y.seq(&mut top, "files", plan.files.is_empty())? {
            y.write_each(pool.as_ref(), &plan.files, |y, file| {
                write_file(y, level, &file_out(plan, file))
            })?;
        }
        let mut graph = y.map(&mut top, "dependency_graph")?;
        y.strings(
            &mut graph,
            "nodes",
            plan.items.iter().map(|i| &*i.method_id),
        )?;
        let no_edges = plan.items.iter().all(|i| i.deps.is_empty());
        if let Some(level) = y.seq(&mut graph, "edges", no_edges)? {
            y.write_each(pool.as_ref(), &plan.items, |y, item| {
                for class in item.deps.keys(&plan.classes) {
                    let mut m = y.item(level);
                    y.str(&mut m, "from", &item.method_id)?;
                    y.str(&mut m, "to", class)?;
                }
                Ok(())
            })?;
        }
        let mut summary = y.map(&mut top, "summary")?;
        let s = &self.summary;
        y.num(&mut summary, "total_methods", s.total_methods);
        y.num(&mut summary, "selected_methods", s.selected_methods);
        y.num(&mut summary, "total_files", s.total_files);
        y.num(&mut summary, "waves_count", s.waves_count);
        let mut zones = y.map(&mut summary, "by_zone")?;
        y.num(&mut zones, "green", s.by_zone.green);
        y.num(&mut zones, "yellow", s.by_zone.yellow);
        y.num(&mut zones, "red", s.by_zone.red);
        if let Some(page) = &self.page {
            let mut m = y.map(&mut top, "page")?;
            if let Some(wave) = page.wave {
                y.num(&mut m, "wave", wave);
            }
            if !page.files.is_empty() {
                y.strings(&mut m, "files", page.files.iter())?;
            }
            y.num(&mut m, "methods", page.methods);
            y.num(&mut m, "selected_methods", page.selected_methods);
        }
        if !self.skipped_files.is_empty() {
            let level = y.seq(&mut top, "skipped_files", false)?.unwrap_or(2);
            for f in &self.skipped_files {
                let mut m = y.item(level);
                y.str(&mut m, "path", &f.path)?;
                y.str(&mut m, "reason", &f.reason)?;
            }
        }
        if !self.unparsable.is_empty() {
            let level = y.seq(&mut top, "unparsable", false)?.unwrap_or(2);
            for f in &self.unparsable {
                let mut m = y.item(level);
                y.str(&mut m, "path", &f.path)?;
                y.num(&mut m, "line", f.line as usize);
                y.str(&mut m, "message", &f.message)?;
                y.num(&mut m, "errors", f.errors);
                y.strings(&mut m, "methods", f.methods.iter())?;
            }
        }
        y.strings(&mut top, "warnings", self.warnings.iter())?;
        y.strings(&mut top, "next_suggestions", self.next_suggestions.iter())?;
        if let Some(t) = self.timings_now(render_started) {
            let mut m = y.map(&mut top, "timings")?;
            y.num(&mut m, "walk_ms", t.walk_ms);
            y.num(&mut m, "git_ms", t.git_ms);
            y.num(&mut m, "parse_ms", t.parse_ms);
            y.num(&mut m, "graph_ms", t.graph_ms);
            y.num(&mut m, "metadata_ms", t.metadata_ms);
            y.num(&mut m, "output_ms", t.output_ms);
            y.num(&mut m, "total_ms", t.total_ms);
            if let Some(kb) = t.peak_rss_kb {
                y.num(&mut m, "peak_rss_kb", kb);
            }
        }
        y.flush()
    }

    /// The text rendering: files grouped by wave, readable at a glance.
    pub fn text(&self) -> String {
        let render_started = Instant::now();
        let plan = &self.plan;
        let mut out = String::new();
        let base = self
            .base
            .as_ref()
            .map(|b| match &b.commit {
                Some(c) => format!(", base {} ({c})", b.reference),
                None => format!(", base {}", b.reference),
            })
            .unwrap_or_default();
        let _ = writeln!(out, "discover: {} mode{base}", self.mode);
        if let Some(page) = &self.page {
            let _ = writeln!(out, "{}", page_text(page));
        }
        if self.status == "stop" {
            let _ = writeln!(out, "STOP: {}", self.message.as_deref().unwrap_or(""));
            for f in &self.stopped_files {
                let _ = writeln!(
                    out,
                    "  {} ({} LOC, {} methods): {}",
                    f.path,
                    f.loc,
                    f.methods,
                    f.crossed.join(", ")
                );
            }
            for s in &self.suggestions {
                let _ = writeln!(out, "  - {s}");
            }
            for n in &self.next_suggestions {
                let _ = writeln!(out, "next: {n}");
            }
        }
        for wave in waves_of(plan) {
            let _ = writeln!(out, "\nwave {}: {}", wave.wave, wave.name);
            let mut current_file: Option<usize> = None;
            let width = wave
                .items
                .items
                .iter()
                .map(|i| i.method_id.len())
                .max()
                .unwrap_or(0);
            for item in wave.items.items {
                let file = plan.files.get(item.file());
                if current_file != Some(item.file()) {
                    current_file = Some(item.file());
                    let detail = file
                        .map(|f| {
                            let methods = f.methods;
                            let word = if methods == 1 { "method" } else { "methods" };
                            format!("  [{} {} LOC, {methods} {word}]", zone_str(f.zone), f.loc)
                        })
                        .unwrap_or_default();
                    let _ = writeln!(out, "  {}{detail}", file.map_or("", FilePlan::path));
                }
                let mark = if item.selected { "x" } else { " " };
                let deps: Vec<&str> = item.deps.keys(&plan.classes).collect();
                let mut deps = if deps.is_empty() {
                    String::new()
                } else {
                    format!("  -> {}", deps.join(", "))
                };
                if let Some(trigger) = item.trigger() {
                    deps.push_str(&format!("  ({trigger})"));
                }
                let line = format!(
                    "    [{mark}] {:<width$}  {:<9}{deps}",
                    item.method_id,
                    item.mode.as_str()
                );
                let _ = writeln!(out, "{}", line.trim_end());
            }
        }
        let s = &self.summary;
        let plural = super::plural;
        let _ = writeln!(
            out,
            "\n{} ({} selected) in {}, {}; zones: {} green, {} yellow, {} red",
            plural(s.total_methods, "method"),
            s.selected_methods,
            plural(s.total_files, "file"),
            plural(s.waves_count, "wave"),
            s.by_zone.green,
            s.by_zone.yellow,
            s.by_zone.red
        );
        for f in &self.skipped_files {
            let _ = writeln!(out, "skipped {}: {}", f.path, f.reason);
        }
        for f in &self.unparsable {
            let _ = writeln!(out, "{}", unparsable_line(f));
        }
        for w in &self.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
        if let Some(t) = self.timings_now(render_started) {
            let _ = write!(
                out,
                "timings: walk {} ms, git {} ms, parse {} ms, graph {} ms, metadata {} ms, output {} ms, total {} ms",
                t.walk_ms, t.git_ms, t.parse_ms, t.graph_ms, t.metadata_ms, t.output_ms, t.total_ms
            );
            if let Some(kb) = t.peak_rss_kb {
                let _ = write!(out, ", peak memory {} MiB", kb.div_ceil(1024));
            }
            out.push('\n');
        }
        out
    }
}

impl Serialize for DiscoverAnswer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize_at(serializer, Instant::now())
    }
}

/// The answer written with the render clock started when writing starts.
struct Rendering<'a>(&'a DiscoverAnswer, Instant);

impl Serialize for Rendering<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_at(serializer, self.1)
    }
}

impl Streamed for DiscoverAnswer {
    fn write(&self, format: Format, out: &mut dyn Write) -> std::io::Result<()> {
        match format {
            Format::Yaml => self.write_yaml(out),
            Format::Json => {
                let mut buffered = std::io::BufWriter::with_capacity(Writer::CHUNK, out);
                serde_json::to_writer_pretty(&mut buffered, &Rendering(self, Instant::now()))
                    .map_err(std::io::Error::other)?;
                buffered.write_all(b"\n")?;
                buffered.flush()
            }
            Format::Text => out.write_all(self.text().as_bytes()),
        }
    }
}

/// `page: wave 2, files app/models/payment.rb (3 methods, 3 selected)`
fn page_text(page: &PageInfo) -> String {
    let mut what = Vec::new();
    if let Some(wave) = page.wave {
        what.push(format!("wave {wave}"));
    }
    if !page.files.is_empty() {
        what.push(format!("files {}", page.files.join(", ")));
    }
    format!(
        "page: {} ({}, {} selected)",
        what.join(", "),
        super::plural(page.methods, "method"),
        page.selected_methods
    )
}

/// What the compact answer needs besides the answer: how to run the same command again.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// `rspec-scout discover --all` with the plan's flags, without paging or format flags.
    pub command: String,
    /// Whether metadata was written (so `analyze --from-metadata` has something to read).
    pub wrote_metadata: bool,
}

/// A file of a wave, its methods in the wave and how many are selected.
type FileCount<'a> = (&'a FilePlan, usize, usize);

/// One file of a wave in a compact answer.
#[derive(Debug, Serialize)]
struct CompactFile<'a> {
    path: &'a str,
    methods: usize,
    selected: usize,
}

/// One wave in a compact answer: counts, and its files (the first `cap`).
#[derive(Debug, Serialize)]
struct CompactWave<'a> {
    wave: usize,
    name: String,
    methods: usize,
    selected: usize,
    files_count: usize,
    files: Vec<CompactFile<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    more_files: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Where the whole answer is.
#[derive(Debug, Serialize)]
pub struct FullAnswerOut {
    /// The file (relative to the root), or null when none was written.
    pub path: Option<String>,
    /// Its size in the format asked, when it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// `answer_limit`.
    pub limit: usize,
    /// Why no file was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl FullAnswerOut {
    /// From where the whole answer went.
    pub fn of(whole: &super::Whole) -> Self {
        FullAnswerOut {
            path: whole.path.clone(),
            bytes: whole.bytes,
            limit: whole.limit,
            note: whole.note.clone(),
        }
    }
}

#[derive(Debug, Serialize)]
struct CompactSummary<'a> {
    #[serde(flatten)]
    summary: &'a Summary,
    metadata_files: usize,
    skipped_files: usize,
    #[serde(skip_serializing_if = "is_zero")]
    unparsable_files: usize,
    warnings: usize,
}

#[derive(Debug, Serialize)]
struct CompactDiscover<'a> {
    status: &'static str,
    answer: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    stopped_files: &'a [StoppedFile],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    suggestions: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    unparsable: &'a [UnparsableFile],
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<&'a BaseInfo>,
    full_answer: FullAnswerOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<&'a PageInfo>,
    summary: CompactSummary<'a>,
    method_waves: Vec<CompactWave<'a>>,
    warnings: &'a [String],
    #[serde(skip_serializing_if = "is_zero")]
    more_warnings: usize,
    next_suggestions: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timings: Option<Timings>,
}

impl DiscoverAnswer {
    /// The compact answer: the summary, each wave as its files with counts, where the
    /// whole answer is, and the commands that page it. As many files per wave and
    /// warnings as fit `whole.limit` in the format asked.
    pub fn compact(&self, whole: &super::Whole, how: &Invocation) -> super::Answer {
        let plan = &self.plan;
        let waves: Vec<(usize, Vec<FileCount<'_>>)> = waves_of(plan)
            .map(|wave| {
                let mut files: Vec<FileCount<'_>> = Vec::new();
                for item in wave.items.items {
                    let Some(file) = plan.files.get(item.file()) else {
                        continue;
                    };
                    match files.last_mut() {
                        Some((f, methods, selected)) if std::ptr::eq(*f, file) => {
                            *methods += 1;
                            *selected += usize::from(item.selected);
                        }
                        _ => files.push((file, 1, usize::from(item.selected))),
                    }
                }
                (wave.wave, files)
            })
            .collect();
        let fmt = match whole.format {
            Format::Yaml => String::new(),
            other => format!(" --format {other}"),
        };
        let first_wave = waves.first().map(|(w, _)| *w);
        let first_file = waves
            .first()
            .and_then(|(_, files)| files.first())
            .map(|(f, _, _)| f.path.as_str());
        let mut next = Vec::new();
        let page_flags = |wave: Option<usize>, file: Option<&str>| {
            let mut flags = String::new();
            if let Some(w) = wave {
                flags.push_str(&format!(" --wave {w}"));
            }
            if let Some(f) = file {
                flags.push_str(&format!(" --file {}", shell_word(f)));
            }
            flags
        };
        let paged_wave = self.page.as_ref().and_then(|p| p.wave);
        if paged_wave.is_none() && waves.len() > 1 {
            next.push(format!(
                "{}{}{fmt}",
                how.command,
                page_flags(first_wave, None)
            ));
        }
        if let Some(file) = first_file {
            next.push(format!(
                "{}{}{fmt}",
                how.command,
                page_flags(paged_wave, Some(file))
            ));
        }
        next.push(format!(
            "{}{} --answer full{fmt}",
            how.command,
            page_flags(paged_wave, None)
        ));
        if self.status == "stop" {
            next.push(format!("{} --allow-red{fmt}", how.command));
        } else if how.wrote_metadata && self.summary.selected_methods > 0 {
            next.push("rspec-scout analyze --from-metadata".to_string());
        }
        let build = |cap: usize, warnings_cap: usize| {
            let shown = warnings_cap.min(self.warnings.len());
            let body = CompactDiscover {
                status: self.status,
                answer: "compact",
                reason: self.reason,
                message: self.message.as_deref(),
                stopped_files: &self.stopped_files,
                suggestions: &self.suggestions,
                // The first ten; the whole answer has them all.
                unparsable: self
                    .unparsable
                    .get(..self.unparsable.len().min(10))
                    .unwrap_or_default(),
                mode: self.mode,
                base: self.base.as_ref(),
                full_answer: FullAnswerOut::of(whole),
                page: self.page.as_ref(),
                summary: CompactSummary {
                    summary: &self.summary,
                    metadata_files: self.metadata_files,
                    skipped_files: self.skipped_files.len(),
                    unparsable_files: self.unparsable.len(),
                    warnings: self.warnings.len(),
                },
                method_waves: waves
                    .iter()
                    .map(|(wave, files)| CompactWave {
                        wave: *wave,
                        name: waves::wave_name(*wave),
                        methods: files.iter().map(|f| f.1).sum(),
                        selected: files.iter().map(|f| f.2).sum(),
                        files_count: files.len(),
                        files: files
                            .iter()
                            .take(cap)
                            .map(|(f, methods, selected)| CompactFile {
                                path: &f.path,
                                methods: *methods,
                                selected: *selected,
                            })
                            .collect(),
                        more_files: files.len().saturating_sub(cap),
                    })
                    .collect(),
                warnings: self.warnings.get(..shown).unwrap_or_default(),
                more_warnings: self.warnings.len() - shown,
                next_suggestions: next.clone(),
                timings: self.timings.clone(),
            };
            let text = compact_text(&body, whole);
            super::Answer::new(&body, text, 0)
        };
        // Every format prints each listed file's path whole: their lengths alone rule out
        // the caps that cannot fit, without building them (thousands of files a wave).
        let paths_bytes = |cap: usize| -> usize {
            waves
                .iter()
                .flat_map(|(_, files)| files.iter().take(cap))
                .map(|(f, _, _)| f.path.len())
                .sum()
        };
        fit_within(
            whole,
            |cap| paths_bytes(cap) > whole.limit,
            |cap| build(cap, cap.min(10)),
        )
    }
}

/// The first of the answers `build(cap)` gives, for caps from unlimited down to none, that
/// fits `whole.limit` in the format asked (the last when none does).
pub(crate) fn fit(whole: &super::Whole, build: impl Fn(usize) -> super::Answer) -> super::Answer {
    fit_within(whole, |_| false, build)
}

/// [`fit`], skipping the caps `too_big` (a lower bound of the answer's size) rules out.
fn fit_within(
    whole: &super::Whole,
    too_big: impl Fn(usize) -> bool,
    build: impl Fn(usize) -> super::Answer,
) -> super::Answer {
    for cap in [usize::MAX, 64, 32, 16, 8, 4, 2, 1] {
        if too_big(cap) {
            continue;
        }
        let candidate = build(cap);
        if candidate.render(whole.format).len() <= whole.limit {
            return candidate;
        }
    }
    build(0)
}

/// A path as one shell word (quoted when it holds anything but plain characters).
pub(crate) fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// What a person reads of a compact answer.
fn compact_text(c: &CompactDiscover<'_>, whole: &super::Whole) -> String {
    let mut out = String::new();
    let base = c
        .base
        .map(|b| match &b.commit {
            Some(commit) => format!(", base {} ({commit})", b.reference),
            None => format!(", base {}", b.reference),
        })
        .unwrap_or_default();
    let _ = writeln!(out, "discover: {} mode{base}", c.mode);
    if let Some(page) = c.page {
        let _ = writeln!(out, "{}", page_text(page));
    }
    let what = if c.page.is_some() { "page" } else { "plan" };
    let _ = writeln!(out, "{}", whole_text(whole, what));
    if c.status == "stop" {
        let _ = writeln!(out, "STOP: {}", c.message.unwrap_or(""));
        for f in c.stopped_files {
            let _ = writeln!(
                out,
                "  {} ({} LOC, {} methods): {}",
                f.path,
                f.loc,
                f.methods,
                f.crossed.join(", ")
            );
        }
    }
    for w in &c.method_waves {
        let _ = writeln!(
            out,
            "\nwave {}: {}: {} ({} selected) in {}",
            w.wave,
            w.name,
            super::plural(w.methods, "method"),
            w.selected,
            super::plural(w.files_count, "file")
        );
        let width = w.files.iter().map(|f| f.path.len()).max().unwrap_or(0);
        for f in &w.files {
            let _ = writeln!(
                out,
                "  {:<width$}  {}, {} selected",
                f.path,
                super::plural(f.methods, "method"),
                f.selected
            );
        }
        if w.more_files > 0 {
            let _ = writeln!(out, "  ... {} more", super::plural(w.more_files, "file"));
        }
    }
    let s = c.summary.summary;
    let _ = writeln!(
        out,
        "\n{} ({} selected) in {}, {}; zones: {} green, {} yellow, {} red",
        super::plural(s.total_methods, "method"),
        s.selected_methods,
        super::plural(s.total_files, "file"),
        super::plural(s.waves_count, "wave"),
        s.by_zone.green,
        s.by_zone.yellow,
        s.by_zone.red
    );
    if c.summary.skipped_files > 0 {
        let _ = writeln!(
            out,
            "{} skipped (listed in the whole answer)",
            super::plural(c.summary.skipped_files, "file")
        );
    }
    for f in c.unparsable {
        let _ = writeln!(out, "{}", unparsable_line(f));
    }
    if c.summary.unparsable_files > c.unparsable.len() {
        let _ = writeln!(
            out,
            "... {} more unparsable (in the whole answer)",
            super::plural(c.summary.unparsable_files - c.unparsable.len(), "file")
        );
    }
    for w in c.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    if c.more_warnings > 0 {
        let _ = writeln!(
            out,
            "... {} more (in the whole answer)",
            super::plural(c.more_warnings, "warning")
        );
    }
    for n in &c.next_suggestions {
        let _ = writeln!(out, "next: {n}");
    }
    out
}

/// `the whole plan (2210338 bytes, over the 20000-byte answer limit) is in tmp/...`
pub(crate) fn whole_text(whole: &super::Whole, what: &str) -> String {
    let size = match whole.bytes {
        Some(bytes) if bytes as usize > whole.limit => {
            format!("{bytes} bytes, over the {}-byte answer limit", whole.limit)
        }
        Some(bytes) => format!("{bytes} bytes"),
        None if whole.over_limit => format!("over the {}-byte answer limit", whole.limit),
        None => "not counted".to_string(),
    };
    match (&whole.path, &whole.note) {
        (Some(path), _) => format!("the whole {what} ({size}) is in {path}"),
        (None, Some(note)) => format!("the whole {what} ({size}) was not written: {note}"),
        (None, None) => format!("the whole {what} ({size}) was not written"),
    }
}

/// One wave item.
fn write_item(y: &mut Writer<'_>, level: usize, item: &ItemOut<'_>) -> std::io::Result<()> {
    let mut m = y.item(level);
    y.str(&mut m, "method_id", item.method_id)?;
    y.str(&mut m, "class_name", item.class_name)?;
    y.str(&mut m, "method_name", item.method_name)?;
    y.str(&mut m, "source_file", item.source_file)?;
    y.nums(&mut m, "line_range", &item.line_range);
    y.str(&mut m, "method_mode", item.method_mode)?;
    y.bool(&mut m, "selected", item.selected);
    if let Some(reason) = item.skip_reason {
        y.str(&mut m, "skip_reason", reason)?;
    }
    if let Some(level) = y.seq(&mut m, "cross_class_deps", item.cross_class_deps.is_empty())? {
        for dep in &item.cross_class_deps {
            let mut d = y.item(level);
            y.str(&mut d, "class", dep.class)?;
            y.strings(&mut d, "methods", dep.methods.iter().copied())?;
        }
    }
    y.strings(
        &mut m,
        "absorbed_private_methods",
        item.absorbed_private_methods.iter(),
    )?;
    if let Some(trigger) = item.trigger {
        y.str(&mut m, "trigger", trigger)?;
    }
    Ok(())
}

fn write_file(y: &mut Writer<'_>, level: usize, file: &FileOut<'_>) -> std::io::Result<()> {
    let mut m = y.item(level);
    y.str(&mut m, "path", file.path)?;
    y.opt_str(&mut m, "class_name", file.class_name)?;
    let mut c = y.map(&mut m, "complexity")?;
    y.str(&mut c, "zone", file.complexity.zone)?;
    y.num(&mut c, "loc", file.complexity.loc);
    y.num(&mut c, "methods", file.complexity.methods);
    if let Some(warning) = file.complexity.warning {
        y.str(&mut c, "warning", warning)?;
    }
    y.opt_str(&mut m, "spec_path", file.spec_path)?;
    if let Some(change) = file.change {
        y.str(&mut m, "change", change_str(change))?;
    }
    if let Some(from) = file.renamed_from {
        y.str(&mut m, "renamed_from", from)?;
    }
    if let Some(level) = y.seq(&mut m, "public_methods", file.public_methods.is_empty())? {
        for p in &file.public_methods {
            let mut pm = y.item(level);
            y.str(&mut pm, "name", p.name)?;
            y.str(&mut pm, "type", p.kind)?;
            y.str(&mut pm, "method_id", p.method_id)?;
            y.str(&mut pm, "method_mode", p.method_mode)?;
            y.num(&mut pm, "wave", p.wave);
            y.bool(&mut pm, "selected", p.selected);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::{select, BaseVersion, Settings, Source};
    use crate::index::extract;

    /// The streamed YAML and the `Serialize` form written by `yaml::to_string` are the same
    /// bytes: both go through one writer, with the same layout rules.
    #[test]
    fn the_streamed_answer_is_laid_out_as_its_value() {
        let file = |path: &str, src: &str| Source {
            facts: extract(path, src.as_bytes()),
            base: BaseVersion::Missing,
            change: Some(ChangeKind::Added),
            old_path: None,
        };
        let long: String = (0..20).map(|i| format!("    Payment.m{i}\n")).collect();
        let sources = vec![
            file("app/models/payment.rb", "class Payment\n  def capture; end\n  def self.for(x); end\nend\n"),
            file(
                "app/services/processor.rb",
                &format!("class Processor\n  def run(payment)\n    payment.capture\n{long}  end\n  def yes?; end\nend\n"),
            ),
        ];
        let settings = Settings {
            select_all: false,
            filter: select::Filter::default(),
            zones: crate::discover::ZoneThresholds::default(),
            spec_policy: crate::vocab::ControllerLayout::Request,
            allow_red: false,
        };
        let plan = crate::discover::plan(sources, &settings);
        let answer = DiscoverAnswer {
            status: "success",
            reason: None,
            message: None,
            stopped_files: Vec::new(),
            suggestions: Vec::new(),
            mode: "branch",
            base: Some(BaseInfo {
                reference: "main".to_string(),
                commit: Some("0123abcd".to_string()),
            }),
            slugs: vec!["app_models_payment".to_string()],
            summary: Summary {
                total_methods: plan.items.len(),
                selected_methods: 0,
                total_files: plan.files.len(),
                waves_count: plan.waves_count,
                by_zone: ByZone {
                    green: 2,
                    yellow: 0,
                    red: 0,
                },
            },
            plan,
            skipped_files: vec![SkippedFile {
                path: "app/x.rb".to_string(),
                reason: "binary file: 2024-01-01".to_string(),
            }],
            unparsable: vec![UnparsableFile {
                path: "app/y.rb".to_string(),
                line: 3,
                message:
                    "unexpected end-of-input; expected an `end` to close the `class` statement"
                        .to_string(),
                errors: 2,
                methods: vec!["Y#ok?".to_string(), "Y.all".to_string()],
            }],
            warnings: vec!["yes".to_string(), "a: b".to_string()],
            next_suggestions: Vec::new(),
            timings: None,
            started: Instant::now(),
            threads: 1,
            page: None,
            metadata_files: 1,
        };
        let mut streamed = Vec::new();
        answer.write_yaml(&mut streamed).unwrap();
        let streamed = String::from_utf8(streamed).unwrap();
        assert_eq!(
            streamed,
            crate::yaml::to_string(&super::super::to_value(&answer))
        );
        assert!(streamed.contains("              - m19\n"), "{streamed}");
    }
}
