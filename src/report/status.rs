//! The answer of `status`: per source file, which pipeline stages are done, what they
//! recorded (`automation.errors`/`warnings`), and whether the cached analysis still matches
//! the source; as data, and as a table a person reads at a glance.

use serde::Serialize;

use crate::report::Answer;

/// The whole answer.
#[derive(Debug, Clone, Serialize)]
pub struct StatusAnswer {
    /// Always `success` (unreadable metadata is reported per file).
    pub status: &'static str,
    /// The project root (`--root`).
    pub root: String,
    /// One entry per metadata file (or named source file), sorted by source path.
    pub files: Vec<FileStatus>,
    /// Counts over `files`.
    pub summary: Summary,
}

/// One source file.
#[derive(Debug, Clone, Serialize)]
pub struct FileStatus {
    /// The source path relative to its project root (empty when the metadata cannot be
    /// read and names none).
    pub source_file: String,
    /// The metadata file, relative to the root when below it (empty when there is none).
    pub metadata: String,
    /// `ok`, `invalid` (the metadata does not load) or `no metadata`.
    pub state: &'static str,
    /// `class_name`, when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    /// Which `automation.{stage}_completed` markers are `true`.
    pub stages: Stages,
    /// Stages marked `{stage}_skipped: true` (a skip counts as done).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// The first stage neither completed nor skipped (`done` when none is left): where
    /// the run stopped.
    pub next_stage: String,
    /// Whether the cached analysis still matches the source: `valid`,
    /// `stale (source changed)`, `stale (mtime only)`, `stale (mtime changed)`,
    /// `unverified (no source_digest)`, `missing source`, `unreadable source`,
    /// `no analysis`, or `unknown` for metadata that does not load.
    pub cache: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub methods: Option<MethodCounts>,
    /// `automation.errors`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// `automation.warnings`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// For `invalid`: the error code (`METADATA_INVALID`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<&'static str>,
    /// For `invalid`: what is wrong with the metadata file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The five stage markers, in pipeline order.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Stages {
    /// `discovery_agent_completed`.
    pub discovery_agent: bool,
    /// `code_analyzer_completed`.
    pub code_analyzer: bool,
    /// `isolation_decider_completed` (set by `test-config`).
    pub isolation_decider: bool,
    /// `spec_writer_completed`.
    pub spec_writer: bool,
    /// `test_reviewer_completed`.
    pub test_reviewer: bool,
}

impl Stages {
    /// The markers in pipeline order with their stage names.
    pub fn in_order(&self) -> [(&'static str, bool); 5] {
        [
            ("discovery_agent", self.discovery_agent),
            ("code_analyzer", self.code_analyzer),
            ("isolation_decider", self.isolation_decider),
            ("spec_writer", self.spec_writer),
            ("test_reviewer", self.test_reviewer),
        ]
    }
}

/// How many methods each stage handled.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct MethodCounts {
    /// `methods_to_analyze[]` with `selected: true`.
    pub selected: usize,
    /// `methods[]` entries (analyzed methods).
    pub analyzed: usize,
    /// `methods[]` entries with a `test_config`.
    pub test_config: usize,
}

/// Counts over the files.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Summary {
    pub files: usize,
    /// Every stage done.
    pub done: usize,
    /// Some stage left.
    pub in_progress: usize,
    /// The cached analysis no longer matches the source (any `stale`, `missing source`).
    pub stale: usize,
    /// Metadata that does not load.
    pub invalid: usize,
    /// Named source files without metadata.
    pub no_metadata: usize,
}

/// Builds the answer (exit 0) with its text table.
pub fn answer(root: String, files: Vec<FileStatus>) -> Answer {
    let mut summary = Summary {
        files: files.len(),
        ..Summary::default()
    };
    for f in &files {
        match f.state {
            "invalid" => summary.invalid += 1,
            "no metadata" => summary.no_metadata += 1,
            _ if f.next_stage == "done" => summary.done += 1,
            _ => summary.in_progress += 1,
        }
        if f.cache.starts_with("stale") || f.cache == "missing source" {
            summary.stale += 1;
        }
    }
    let text = text(&files, &summary);
    let body = StatusAnswer {
        status: "success",
        root,
        files,
        summary,
    };
    Answer::new(&body, text, 0)
}

const HEADERS: [&str; 5] = ["discover", "analyze", "test-config", "spec", "review"];

fn text(files: &[FileStatus], summary: &Summary) -> String {
    if files.is_empty() {
        return "no metadata files\n".to_string();
    }
    let name = |f: &FileStatus| {
        if f.source_file.is_empty() {
            f.metadata.clone()
        } else {
            f.source_file.clone()
        }
    };
    let width = files
        .iter()
        .map(|f| name(f).chars().count())
        .chain(std::iter::once("source".len()))
        .max()
        .unwrap_or(0);
    let next_width = files
        .iter()
        .map(|f| f.next_stage.len())
        .chain(std::iter::once("next".len()))
        .max()
        .unwrap_or(0);
    let mut out = format!("{:<width$}", "source");
    for h in HEADERS {
        out.push_str(&format!("  {h}"));
    }
    out.push_str(&format!("  {:<next_width$}  cache\n", "next"));
    for f in files {
        out.push_str(&format!("{:<width$}", name(f)));
        if f.state == "invalid" {
            out.push_str(&format!(
                "  invalid metadata ({}): {}\n",
                f.error_code.unwrap_or("METADATA_INVALID"),
                f.error.as_deref().unwrap_or_default()
            ));
            continue;
        }
        if f.state == "no metadata" {
            out.push_str("  no metadata\n");
            continue;
        }
        for ((stage, done), header) in f.stages.in_order().iter().zip(HEADERS) {
            let mark = if *done {
                "✓"
            } else if f.skipped.iter().any(|s| s == stage) {
                "skip"
            } else {
                "·"
            };
            out.push_str(&format!("  {mark:<w$}", w = header.len()));
        }
        out.push_str(&format!("  {:<next_width$}  {}\n", f.next_stage, f.cache));
        for e in &f.errors {
            out.push_str(&format!("    error: {e}\n"));
        }
        for w in &f.warnings {
            out.push_str(&format!("    warning: {w}\n"));
        }
    }
    let mut tail = vec![
        format!("{} done", summary.done),
        format!("{} in progress", summary.in_progress),
    ];
    if summary.stale > 0 {
        tail.push(format!("{} stale", summary.stale));
    }
    if summary.invalid > 0 {
        tail.push(format!("{} invalid", summary.invalid));
    }
    if summary.no_metadata > 0 {
        tail.push(format!("{} without metadata", summary.no_metadata));
    }
    out.push_str(&format!(
        "\n{}: {}\n",
        super::plural(summary.files, "file"),
        tail.join(", ")
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(source: &str, stages: Stages, next: &str, cache: &str) -> FileStatus {
        FileStatus {
            source_file: source.to_string(),
            metadata: format!("tmp/rspec_metadata/{}.yml", crate::naming::slug(source)),
            state: "ok",
            class_name: None,
            stages,
            skipped: Vec::new(),
            next_stage: next.to_string(),
            cache: cache.to_string(),
            methods: None,
            errors: Vec::new(),
            warnings: Vec::new(),
            error_code: None,
            error: None,
        }
    }

    #[test]
    fn table_shows_where_each_file_stopped() {
        let mut a = file(
            "app/models/payment.rb",
            Stages {
                discovery_agent: true,
                code_analyzer: true,
                ..Stages::default()
            },
            "isolation_decider",
            "stale (source changed)",
        );
        a.warnings.push("check the refund guard".to_string());
        let mut b = file("lib/x.rb", Stages::default(), "-", "unknown");
        b.state = "invalid";
        b.source_file = String::new();
        b.error_code = Some("METADATA_INVALID");
        b.error = Some("metadata must be a Hash".to_string());
        let answer = answer("/p".to_string(), vec![a, b]);
        assert_eq!(
            answer.text,
            "source                        discover  analyze  test-config  spec  review  next               cache\n\
             app/models/payment.rb         ✓         ✓        ·            ·     ·       isolation_decider  stale (source changed)\n    \
             warning: check the refund guard\n\
             tmp/rspec_metadata/lib_x.yml  invalid metadata (METADATA_INVALID): metadata must be a Hash\n\
             \n2 files: 0 done, 1 in progress, 1 stale, 1 invalid\n"
        );
    }
}
