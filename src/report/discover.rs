//! The `discover` answer: the discovery-agent contract (`status`, `slugs`, `method_waves`,
//! `files`, `dependency_graph`, `summary`, `warnings`), plus `stop` details, the mode and
//! base, skipped files and timings.

use std::fmt::Write as _;

use serde::Serialize;

/// The answer.
#[derive(Debug, Serialize)]
pub struct DiscoverAnswer {
    /// `success` or `stop`.
    pub status: &'static str,
    /// `red_zone_new_code` when stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// Human-readable explanation when stopped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The files that caused the stop.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stopped_files: Vec<StoppedFile>,
    /// What to do about a stop.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// `branch`, `staged`, `single` or `all`.
    pub mode: &'static str,
    /// What the working tree was compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<BaseInfo>,
    /// Slugs of the metadata files written (or that would be written).
    pub slugs: Vec<String>,
    /// Methods by wave.
    pub method_waves: Vec<Wave>,
    /// Files with their public methods.
    pub files: Vec<FileOut>,
    /// Method → class edges.
    pub dependency_graph: Graph,
    /// Totals.
    pub summary: Summary,
    /// Files not planned (deleted, binary, too large, unreadable).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<SkippedFile>,
    /// Problems that did not stop the run.
    pub warnings: Vec<String>,
    /// What to run next.
    pub next_suggestions: Vec<String>,
    /// Phase times, with `--timings`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<Timings>,
}

/// A stopped file.
#[derive(Debug, Serialize)]
pub struct StoppedFile {
    /// Path.
    pub path: String,
    /// Code lines.
    pub loc: u32,
    /// Methods.
    pub methods: usize,
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

/// One wave.
#[derive(Debug, Serialize)]
pub struct Wave {
    /// Number, from 0.
    pub wave: usize,
    /// `Leaf methods (no dependencies)` or `Depends on wave N-1`.
    pub name: String,
    /// Methods in it, by file path then line.
    pub items: Vec<ItemOut>,
}

/// One method of a wave.
#[derive(Debug, Serialize)]
pub struct ItemOut {
    /// `Class#name` / `Class.name`.
    pub method_id: String,
    /// Owning class.
    pub class_name: String,
    /// Name.
    pub method_name: String,
    /// Source file.
    pub source_file: String,
    /// `[def, end]`.
    pub line_range: [u32; 2],
    /// `new|modified|unchanged`.
    pub method_mode: &'static str,
    /// Whether to analyze it.
    pub selected: bool,
    /// Why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    /// In-scope classes it depends on.
    pub cross_class_deps: Vec<DepOut>,
    /// Private methods it calls, transitively.
    pub absorbed_private_methods: Vec<String>,
}

/// A dependency.
#[derive(Debug, Serialize)]
pub struct DepOut {
    /// The class.
    pub class: String,
    /// Methods called on it.
    pub methods: Vec<String>,
}

/// One file.
#[derive(Debug, Serialize)]
pub struct FileOut {
    /// Path.
    pub path: String,
    /// The class under test.
    pub class_name: Option<String>,
    /// Zone, LOC, methods and the yellow-zone warning.
    pub complexity: ComplexityOut,
    /// Target spec.
    pub spec_path: Option<String>,
    /// `added`, `modified`, `renamed`, or nothing for unchanged files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<crate::git::ChangeKind>,
    /// The path in the base, for renames.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
    /// Its wave items.
    pub public_methods: Vec<PublicMethod>,
}

/// File complexity.
#[derive(Debug, Serialize)]
pub struct ComplexityOut {
    /// `green|yellow|red`.
    pub zone: &'static str,
    /// Code lines.
    pub loc: u32,
    /// Methods.
    pub methods: usize,
    /// `Approaching complexity threshold` in the yellow zone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<&'static str>,
}

/// A public method of a file.
#[derive(Debug, Serialize)]
pub struct PublicMethod {
    /// Name.
    pub name: String,
    /// `instance` or `class`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Full id.
    pub method_id: String,
    /// `new|modified|unchanged`.
    pub method_mode: &'static str,
    /// Its wave.
    pub wave: usize,
    /// Selected.
    pub selected: bool,
}

/// The dependency graph.
#[derive(Debug, Serialize)]
pub struct Graph {
    /// Method ids, in wave order.
    pub nodes: Vec<String>,
    /// `{from: method id, to: class}`.
    pub edges: Vec<Edge>,
}

/// An edge.
#[derive(Debug, Serialize)]
pub struct Edge {
    /// Method id.
    pub from: String,
    /// Class.
    pub to: String,
}

/// Totals.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Wave items.
    pub total_methods: usize,
    /// Selected wave items.
    pub selected_methods: usize,
    /// Files planned.
    pub total_files: usize,
    /// Waves.
    pub waves_count: usize,
    /// Files per zone.
    pub by_zone: ByZone,
}

/// Files per zone.
#[derive(Debug, Serialize)]
pub struct ByZone {
    /// Green files.
    pub green: usize,
    /// Yellow files.
    pub yellow: usize,
    /// Red files.
    pub red: usize,
}

/// A file that was not planned.
#[derive(Debug, Serialize)]
pub struct SkippedFile {
    /// Path.
    pub path: String,
    /// Why (`File deleted`, `binary file ...`).
    pub reason: String,
}

/// Milliseconds per phase.
#[derive(Debug, Serialize, Default, Clone)]
pub struct Timings {
    /// Finding files (walk).
    pub walk_ms: u64,
    /// Git: base, changes, base blobs.
    pub git_ms: u64,
    /// Reading and parsing (current and base versions) into facts.
    pub parse_ms: u64,
    /// Modes, dependencies, graph and waves.
    pub graph_ms: u64,
    /// Writing metadata.
    pub metadata_ms: u64,
    /// Everything.
    pub total_ms: u64,
}

/// The text rendering: files grouped by wave, readable at a glance.
pub fn text(a: &DiscoverAnswer) -> String {
    let mut out = String::new();
    let base = a
        .base
        .as_ref()
        .map(|b| match &b.commit {
            Some(c) => format!(", base {} ({c})", b.reference),
            None => format!(", base {}", b.reference),
        })
        .unwrap_or_default();
    let _ = writeln!(out, "discover: {} mode{base}", a.mode);
    if a.status == "stop" {
        let _ = writeln!(out, "STOP: {}", a.message.as_deref().unwrap_or(""));
        for f in &a.stopped_files {
            let _ = writeln!(out, "  {} ({} LOC, {} methods)", f.path, f.loc, f.methods);
        }
        for s in &a.suggestions {
            let _ = writeln!(out, "  - {s}");
        }
    }
    for wave in &a.method_waves {
        let _ = writeln!(out, "\nwave {}: {}", wave.wave, wave.name);
        let mut current_file: Option<&str> = None;
        let width = wave
            .items
            .iter()
            .map(|i| i.method_id.len())
            .max()
            .unwrap_or(0);
        for item in &wave.items {
            if current_file != Some(item.source_file.as_str()) {
                current_file = Some(item.source_file.as_str());
                let file = a.files.iter().find(|f| f.path == item.source_file);
                let detail = file
                    .map(|f| {
                        let methods = if f.complexity.methods == 1 {
                            "method"
                        } else {
                            "methods"
                        };
                        format!(
                            "  [{} {} LOC, {} {methods}]",
                            f.complexity.zone, f.complexity.loc, f.complexity.methods
                        )
                    })
                    .unwrap_or_default();
                let _ = writeln!(out, "  {}{detail}", item.source_file);
            }
            let mark = if item.selected { "x" } else { " " };
            let deps: Vec<&str> = item
                .cross_class_deps
                .iter()
                .map(|d| d.class.as_str())
                .collect();
            let deps = if deps.is_empty() {
                String::new()
            } else {
                format!("  -> {}", deps.join(", "))
            };
            let line = format!(
                "    [{mark}] {:<width$}  {:<9}{deps}",
                item.method_id, item.method_mode
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    let s = &a.summary;
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
    for f in &a.skipped_files {
        let _ = writeln!(out, "skipped {}: {}", f.path, f.reason);
    }
    for w in &a.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    if let Some(t) = &a.timings {
        let _ = writeln!(
            out,
            "timings: walk {} ms, git {} ms, parse {} ms, graph {} ms, metadata {} ms, total {} ms",
            t.walk_ms, t.git_ms, t.parse_ms, t.graph_ms, t.metadata_ms, t.total_ms
        );
    }
    out
}
