//! The answer of `status`: per source file, which pipeline stages are done, what they
//! recorded (`automation.errors`/`warnings`), and whether the cached analysis still matches
//! the source; as data, and as a table a person reads at a glance.

use serde::Serialize;

use crate::report::discover::FullAnswerOut;
use crate::report::{Answer, SizeRule, Whole};

/// The whole answer.
#[derive(Debug, Clone, Serialize)]
pub struct StatusAnswer {
    /// Always `success` (unreadable metadata is reported per file).
    pub status: &'static str,
    /// The project root (`--root`).
    pub root: String,
    /// The last plan, when `files` are its files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanInfo>,
    /// One entry per metadata file (or named source file), sorted by source path.
    pub files: Vec<FileStatus>,
    /// Counts over `files`.
    pub summary: Summary,
    /// The metadata files outside the last plan, when `files` are the plan's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leftovers: Option<Leftovers>,
}

/// The last plan, as `discover` recorded it.
#[derive(Debug, Clone, Serialize)]
pub struct PlanInfo {
    /// `branch`, `staged`, `single` or `all`.
    pub mode: String,
    /// What it compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<crate::metadata::plan::RecordedBase>,
    /// Its files.
    pub files: usize,
    /// Its selected methods.
    pub selected_methods: usize,
    /// The record's path.
    pub record: String,
}

/// Metadata files outside the last plan.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Leftovers {
    /// How many.
    pub count: usize,
    /// How many of them name a source file that is gone.
    pub source_gone: usize,
    /// Each of them.
    pub files: Vec<Leftover>,
}

/// A metadata file outside the last plan.
#[derive(Debug, Clone, Serialize)]
pub struct Leftover {
    /// The metadata file.
    pub metadata: String,
    /// The source it names (empty when it names none or does not load).
    pub source_file: String,
    /// `not in the last plan`, `source gone`, `names no source` or `does not load`.
    pub reason: &'static str,
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

/// Builds the answer (exit 0) with its text table; with a size rule, also its compact
/// form (the summary, the count of files at each next stage, the files that need a look
/// first, the leftovers' counts).
pub fn answer(
    root: String,
    files: Vec<FileStatus>,
    plan: Option<PlanInfo>,
    leftovers: Option<Leftovers>,
    rule: Option<SizeRule>,
) -> Answer {
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
    let body = StatusAnswer {
        status: "success",
        root,
        plan,
        files,
        summary,
        leftovers,
    };
    let text = text(
        &body.files,
        &summary,
        body.plan.as_ref(),
        body.leftovers.as_ref(),
    );
    let answer = Answer::new(&body, text, 0);
    match rule {
        None => answer,
        Some(rule) => {
            let body = std::sync::Arc::new(body);
            answer.sized(rule.with(std::sync::Arc::new(move |whole| compact(&body, whole))))
        }
    }
}

/// Whether a file needs a look before the others: it does not load, its analysis is
/// stale, or a stage recorded errors.
fn needs_a_look(f: &FileStatus) -> bool {
    f.state != "ok"
        || f.cache.starts_with("stale")
        || f.cache == "missing source"
        || !f.errors.is_empty()
}

#[derive(Debug, Serialize)]
struct CompactStatus<'a> {
    status: &'static str,
    answer: &'static str,
    root: &'a str,
    full_answer: FullAnswerOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<&'a PlanInfo>,
    summary: Summary,
    next_stages: std::collections::BTreeMap<&'a str, usize>,
    files: Vec<CompactFile<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    more_files: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    leftovers: Option<LeftoverCounts>,
    next_suggestions: Vec<String>,
}

#[derive(Debug, Serialize)]
struct CompactFile<'a> {
    source_file: &'a str,
    state: &'a str,
    next_stage: &'a str,
    cache: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    errors: usize,
}

#[derive(Debug, Serialize)]
struct LeftoverCounts {
    count: usize,
    source_gone: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn compact(body: &StatusAnswer, whole: &Whole) -> Answer {
    let mut next_stages = std::collections::BTreeMap::new();
    for f in &body.files {
        *next_stages.entry(f.next_stage.as_str()).or_insert(0) += 1;
    }
    let mut order: Vec<&FileStatus> = body.files.iter().collect();
    order.sort_by_key(|f| !needs_a_look(f));
    let fmt = match whole.format {
        crate::report::Format::Yaml => String::new(),
        other => format!(" --format {other}"),
    };
    let mut next = Vec::new();
    if let Some(first) = order.first().filter(|f| !f.source_file.is_empty()) {
        next.push(format!(
            "rspec-scout status {}{fmt}",
            super::discover::shell_word(&first.source_file)
        ));
    }
    next.push(format!("rspec-scout status --answer full{fmt}"));
    if body.leftovers.as_ref().is_some_and(|l| l.count > 0) {
        next.push("rspec-scout prune --dry-run".to_string());
    }
    super::discover::fit(whole, |cap| {
        let files: Vec<CompactFile<'_>> = order
            .iter()
            .take(cap)
            .map(|f| CompactFile {
                source_file: if f.source_file.is_empty() {
                    &f.metadata
                } else {
                    &f.source_file
                },
                state: f.state,
                next_stage: &f.next_stage,
                cache: &f.cache,
                errors: f.errors.len(),
            })
            .collect();
        let c = CompactStatus {
            status: "success",
            answer: "compact",
            root: &body.root,
            full_answer: FullAnswerOut::of(whole),
            plan: body.plan.as_ref(),
            summary: body.summary,
            next_stages: next_stages.clone(),
            more_files: order.len() - files.len(),
            files,
            leftovers: body.leftovers.as_ref().map(|l| LeftoverCounts {
                count: l.count,
                source_gone: l.source_gone,
            }),
            next_suggestions: next.clone(),
        };
        let text = compact_text(&c, whole);
        Answer::new(&c, text, 0)
    })
}

fn compact_text(c: &CompactStatus<'_>, whole: &Whole) -> String {
    let mut out = String::new();
    if let Some(plan) = c.plan {
        out.push_str(&plan_line(plan));
    }
    out.push_str(&format!(
        "{}\n",
        super::discover::whole_text(whole, "status answer")
    ));
    let stages: Vec<String> = c
        .next_stages
        .iter()
        .map(|(stage, n)| format!("{stage} {n}"))
        .collect();
    out.push_str(&format!("next stage: {}\n", stages.join(", ")));
    let width = c
        .files
        .iter()
        .map(|f| f.source_file.len())
        .max()
        .unwrap_or(0);
    for f in &c.files {
        out.push_str(&format!(
            "  {:<width$}  {}  {}  {}\n",
            f.source_file, f.state, f.next_stage, f.cache
        ));
    }
    if c.more_files > 0 {
        out.push_str(&format!(
            "  ... {} more\n",
            super::plural(c.more_files, "file")
        ));
    }
    out.push_str(&summary_line(&c.summary));
    if let Some(l) = &c.leftovers {
        out.push_str(&leftovers_line(l.count, l.source_gone));
    }
    for n in &c.next_suggestions {
        out.push_str(&format!("next: {n}\n"));
    }
    out
}

/// `plan: branch mode, base main (0123abcd), 3 files, 5 methods selected`
fn plan_line(plan: &PlanInfo) -> String {
    let base = plan
        .base
        .as_ref()
        .map(|b| match &b.commit {
            Some(c) => format!(", base {} ({c})", b.reference),
            None => format!(", base {}", b.reference),
        })
        .unwrap_or_default();
    format!(
        "plan: {} mode{base}, {}, {} selected\n\n",
        plan.mode,
        super::plural(plan.files, "file"),
        super::plural(plan.selected_methods, "method")
    )
}

fn leftovers_line(count: usize, source_gone: usize) -> String {
    if count == 0 {
        return String::new();
    }
    format!(
        "{} outside the last plan ({source_gone} whose source is gone): `rspec-scout status --all-metadata` lists them, `rspec-scout prune` removes them\n",
        super::plural(count, "metadata file")
    )
}

fn summary_line(summary: &Summary) -> String {
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
    format!(
        "\n{}: {}\n",
        super::plural(summary.files, "file"),
        tail.join(", ")
    )
}

const HEADERS: [&str; 5] = ["discover", "analyze", "test-config", "spec", "review"];

fn text(
    files: &[FileStatus],
    summary: &Summary,
    plan: Option<&PlanInfo>,
    leftovers: Option<&Leftovers>,
) -> String {
    let plan_text = plan.map(plan_line).unwrap_or_default();
    let leftover_text = leftovers
        .map(|l| leftovers_line(l.count, l.source_gone))
        .unwrap_or_default();
    if files.is_empty() {
        return format!("{plan_text}no metadata files\n{leftover_text}");
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
    let mut out = format!("{plan_text}{:<width$}", "source");
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
    out.push_str(&summary_line(summary));
    out.push_str(&leftover_text);
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
        let answer = answer("/p".to_string(), vec![a, b], None, None, None);
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
