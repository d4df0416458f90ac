//! `rspec-scout skeleton` without METADATA: the skeleton of every analyzed file of the last
//! plan (`--all-metadata`: of every metadata file), one file after the other, each as
//! `skeleton METADATA` would write it. Files not analyzed yet are skipped with the reason;
//! a file that needs a decision writes nothing and the answer asks for it (exit 2).

use std::path::PathBuf;

use serde::Serialize;

use super::skeleton::{Batch, Options};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::index::walk;
use crate::metadata;
use crate::report::discover::{fit, shell_word, whole_text, FullAnswerOut};
use crate::report::{plural, Answer, AnswerSize, SizeRule, Whole};
use crate::yaml::Value;

#[derive(Debug, Clone, Serialize)]
struct FileResult {
    source_file: String,
    metadata: String,
    /// `success`, `needs_decision`, `skipped` or `error`.
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    skip_reason: Option<String>,
    /// The answer of `skeleton METADATA` for the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
}

#[derive(Debug, Clone, Copy, Serialize)]
struct Summary {
    written: usize,
    needs_decision: usize,
    skipped: usize,
    errors: usize,
}

#[derive(Debug, Serialize)]
struct BatchAnswer<'a> {
    status: &'static str,
    results: &'a [FileResult],
    summary: Summary,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: &'a [String],
}

/// Runs `skeleton` over the plan (or every metadata file).
pub fn run(config: &Config, options: &Options, batch: Batch) -> Result<Answer> {
    let root = &config.root;
    let dir = config.metadata_dir(root);
    let mut warnings = Vec::new();
    let record = match batch {
        Batch::Plan => metadata::plan::read(root, &config.metadata_path)?,
        Batch::AllMetadata => None,
    };
    let files: Vec<PathBuf> = match &record {
        Some(record) => record
            .files
            .iter()
            .map(|f| dir.join(format!("{}.yml", f.slug)))
            .collect(),
        None => {
            if batch == Batch::Plan {
                warnings.push(
                    "no plan recorded: every metadata file is used; `rspec-scout discover` records one"
                        .to_string(),
                );
            }
            metadata::files_in(&dir)
        }
    };
    if files.is_empty() {
        return Err(Error::NothingToDo {
            message: "No metadata to write specs from".to_string(),
            details: format!("no metadata file in {}", dir.display()),
            hint: None,
        });
    }
    let phase = options.progress.start("skeleton", files.len());
    let mut results = Vec::with_capacity(files.len());
    for path in files {
        results.push(one(config, options, path));
        phase.tick();
    }
    phase.finish();
    let count = |status: &str| results.iter().filter(|r| r.status == status).count();
    let summary = Summary {
        written: count("success"),
        needs_decision: count("needs_decision"),
        skipped: count("skipped"),
        errors: count("error"),
    };
    let (status, exit) = if summary.errors > 0 {
        ("error", 1)
    } else if summary.needs_decision > 0 {
        ("needs_decision", 2)
    } else {
        ("success", 0)
    };
    let text = text(&results, &summary, &warnings);
    let mut answer = Answer::new(
        &BatchAnswer {
            status,
            results: &results,
            summary,
            warnings: &warnings,
        },
        text,
        exit,
    );
    for r in results.iter().filter(|r| r.status == "error") {
        answer.stderr.push(format!(
            "rspec-scout: {}: {}",
            r.source_file,
            r.skip_reason.as_deref().unwrap_or("error")
        ));
    }
    if options.answer != AnswerSize::Full {
        let rule = SizeRule {
            size: options.answer,
            limit: config.answer_limit,
            full_path: Some(
                metadata::plan::state_dir(root, &config.metadata_path).join("skeleton"),
            ),
            root: root.clone(),
            no_file: None,
        };
        let rows = std::sync::Arc::new((results, warnings));
        answer = answer.sized(rule.with(std::sync::Arc::new(move |whole| {
            compact(status, summary, &rows.0, &rows.1, whole)
        })));
    }
    Ok(answer)
}

/// One file: skipped when it has no analysis, else what `skeleton METADATA` answers.
fn one(config: &Config, options: &Options, path: PathBuf) -> FileResult {
    let shown =
        walk::relative_to(&config.root, &path).unwrap_or_else(|| path.display().to_string());
    let mut result = FileResult {
        source_file: String::new(),
        metadata: shown,
        status: "skipped".to_string(),
        skip_reason: None,
        result: None,
    };
    let map = match metadata::load(&path) {
        Ok(Some(map)) => map,
        Ok(None) => {
            result.skip_reason = Some("no metadata file (run `rspec-scout discover`)".to_string());
            return result;
        }
        Err(e) => {
            result.status = "error".to_string();
            result.skip_reason = Some(format!("{} ({})", e.message(), e.code()));
            return result;
        }
    };
    result.source_file = map
        .get("source_file")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if !metadata::is_completed(&map, "code_analyzer") {
        result.skip_reason =
            Some("not analyzed yet (run `rspec-scout analyze --from-metadata`)".to_string());
        return result;
    }
    // The same skip, in the same words, as `skeleton METADATA`.
    if let Some(reason) = metadata::analysis_skip(&map) {
        result.skip_reason = Some(reason);
        return result;
    }
    let single = Options {
        metadata: path,
        batch: None,
        ..options.clone()
    };
    match super::skeleton::run(config, &single) {
        Ok(answer) => {
            result.status = answer
                .value
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("success")
                .to_string();
            result.result = Some(answer.value);
        }
        Err(e) => {
            result.status = "error".to_string();
            result.skip_reason = Some(format!("{} ({})", e.message(), e.code()));
        }
    }
    result
}

/// One line per file: the spec written, or why not.
fn line(r: &FileResult) -> String {
    let name = if r.source_file.is_empty() {
        &r.metadata
    } else {
        &r.source_file
    };
    let what = match r.status.as_str() {
        "success" => {
            let spec = r
                .result
                .as_ref()
                .and_then(|v| v.get("spec_path"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let created = r
                .result
                .as_ref()
                .and_then(|v| v.get("created"))
                .and_then(Value::as_bool)
                == Some(true);
            format!("{} {spec}", if created { "created" } else { "patched" })
        }
        "needs_decision" => format!(
            "needs a decision (run `rspec-scout skeleton {}` to see it)",
            shell_word(&r.metadata)
        ),
        other => format!("{other}: {}", r.skip_reason.as_deref().unwrap_or("")),
    };
    format!("{name}: {what}\n")
}

fn summary_text(s: &Summary) -> String {
    format!(
        "{} written, {} to decide, {} skipped, {} errors\n",
        plural(s.written, "spec"),
        s.needs_decision,
        s.skipped,
        s.errors
    )
}

fn text(results: &[FileResult], summary: &Summary, warnings: &[String]) -> String {
    let mut out = String::new();
    for w in warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    for r in results {
        out.push_str(&line(r));
    }
    out.push_str(&summary_text(summary));
    out
}

#[derive(Debug, Serialize)]
struct CompactRow<'a> {
    source_file: &'a str,
    status: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    spec_path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skip_reason: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct CompactAnswer<'a> {
    status: &'static str,
    answer: &'static str,
    full_answer: FullAnswerOut,
    summary: Summary,
    files: Vec<CompactRow<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    more_files: usize,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: &'a [String],
    next_suggestions: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Files to decide and errors first, then the rest, as many as fit.
fn compact(
    status: &'static str,
    summary: Summary,
    results: &[FileResult],
    warnings: &[String],
    whole: &Whole,
) -> Answer {
    let mut order: Vec<&FileResult> = results.iter().collect();
    order.sort_by_key(|r| match r.status.as_str() {
        "error" => 0,
        "needs_decision" => 1,
        "skipped" => 3,
        _ => 2,
    });
    let mut next: Vec<String> = order
        .iter()
        .find(|r| r.status == "needs_decision")
        .map(|r| format!("rspec-scout skeleton {}", shell_word(&r.metadata)))
        .into_iter()
        .collect();
    next.push("rspec-scout skeleton --answer full".to_string());
    fit(whole, |cap| {
        let files: Vec<CompactRow<'_>> = order
            .iter()
            .take(cap)
            .map(|r| CompactRow {
                source_file: if r.source_file.is_empty() {
                    &r.metadata
                } else {
                    &r.source_file
                },
                status: &r.status,
                spec_path: r
                    .result
                    .as_ref()
                    .and_then(|v| v.get("spec_path"))
                    .and_then(Value::as_str),
                skip_reason: r.skip_reason.as_deref(),
            })
            .collect();
        let body = CompactAnswer {
            status,
            answer: "compact",
            full_answer: FullAnswerOut::of(whole),
            summary,
            more_files: order.len() - files.len(),
            files,
            warnings,
            next_suggestions: next.clone(),
        };
        let mut text = format!("skeleton: {}\n", whole_text(whole, "answer"));
        for r in order.iter().take(cap) {
            text.push_str(&line(r));
        }
        if body.more_files > 0 {
            text.push_str(&format!("... {} more\n", plural(body.more_files, "file")));
        }
        text.push_str(&summary_text(&summary));
        for n in &body.next_suggestions {
            text.push_str(&format!("next: {n}\n"));
        }
        Answer::new(&body, text, 0)
    })
}
