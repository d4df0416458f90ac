//! A command run over the plan: `skeleton` and `test-config` without a METADATA argument
//! work on every analyzed file of the last plan (`--all-metadata`: of every metadata file),
//! one file after the other, each as the command would on that one file. Files not
//! analyzed yet are skipped with the reason; a file that needs a decision changes nothing
//! and the answer asks for it (exit 2); a file that fails is an error (exit 1) and the
//! others go on.
//!
//! The command gives what is its own (its name, the words for a file done, and how to run
//! one file); this module finds the files, runs them, counts them and sizes the answer. It
//! calls no command.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::index::walk;
use crate::metadata;
use crate::report::discover::{fit, shell_word, whole_text, FullAnswerOut};
use crate::report::{plural, Answer, AnswerSize, OnPhase, SizeRule, Whole};
use crate::yaml::{Mapping, Value};

/// Which metadata files a command without METADATA works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Batch {
    /// The files of the last plan (`discover`'s record).
    Plan,
    /// Every metadata file.
    AllMetadata,
}

/// What a command run over the plan is.
pub struct Command<'a> {
    /// `skeleton`, `test-config`: in texts and the commands suggested.
    pub name: &'static str,
    /// The summary's key for files done (`written`, `updated`).
    pub done_key: &'static str,
    /// How a file done reads in the text answer (`created spec/x_spec.rb`), from the
    /// command's answer for it.
    pub done_text: &'a dyn Fn(&Value) -> String,
    /// The summary line's noun for files done (`spec`, `file`) and verb (`written`).
    pub done_words: (&'static str, &'static str),
}

/// What the command does with one analyzed file.
pub enum Outcome {
    /// Nothing to do, and why.
    Skip(String),
    /// The command's answer (or error) for the file.
    Ran(Result<Answer>),
}

/// How a run over the plan is carried out.
pub struct Run<'a> {
    /// `--all-metadata` or the plan.
    pub batch: Batch,
    /// Progress of the run.
    pub progress: &'a OnPhase,
    /// How large the printed answer may be.
    pub answer: AnswerSize,
}

#[derive(Debug, Clone, Serialize)]
struct FileResult {
    source_file: String,
    metadata: String,
    /// `success`, `needs_decision`, `skipped` or `error`.
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    skip_reason: Option<String>,
    /// The answer of the command on the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
}

#[derive(Debug, Clone, Copy)]
struct Summary {
    done_key: &'static str,
    done: usize,
    needs_decision: usize,
    skipped: usize,
    errors: usize,
}

impl Serialize for Summary {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = serializer.serialize_map(Some(4))?;
        m.serialize_entry(self.done_key, &self.done)?;
        m.serialize_entry("needs_decision", &self.needs_decision)?;
        m.serialize_entry("skipped", &self.skipped)?;
        m.serialize_entry("errors", &self.errors)?;
        m.end()
    }
}

#[derive(Debug, Serialize)]
struct BatchAnswer<'a> {
    status: &'static str,
    results: &'a [FileResult],
    summary: Summary,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: &'a [String],
}

/// The metadata files of a run over the plan, and the warnings about how they were found.
pub fn files(config: &Config, batch: Batch) -> Result<(Vec<PathBuf>, Vec<String>)> {
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
            message: "No metadata to work on".to_string(),
            details: format!("no metadata file in {}", dir.display()),
            hint: Some(
                "run `rspec-scout discover` and `rspec-scout analyze --from-metadata` first"
                    .to_string(),
            ),
        });
    }
    Ok((files, warnings))
}

/// Runs `one` on each file (`files` found by [`files`]) and answers for all of them.
pub fn run(
    config: &Config,
    command: &Command<'_>,
    how: &Run<'_>,
    (files, warnings): (Vec<PathBuf>, Vec<String>),
    one: impl Fn(PathBuf, &Mapping) -> Outcome,
) -> Result<Answer> {
    let root = &config.root;
    let phase = how.progress.start(command.name, files.len());
    let mut results = Vec::with_capacity(files.len());
    for path in files {
        results.push(each(config, path, &one));
        phase.tick();
    }
    phase.finish();
    let count = |status: &str| results.iter().filter(|r| r.status == status).count();
    let summary = Summary {
        done_key: command.done_key,
        done: count("success"),
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
    let text = text(command, &results, &summary, &warnings);
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
    if how.answer != AnswerSize::Full {
        let rule = SizeRule {
            size: how.answer,
            limit: config.answer_limit,
            full_path: Some(
                metadata::plan::state_dir(root, &config.metadata_path).join(command.name),
            ),
            root: root.clone(),
            no_file: None,
        };
        let name = command.name;
        let done_words = command.done_words;
        let lines: Vec<String> = results.iter().map(|r| line(command, r)).collect();
        let rows = std::sync::Arc::new((results, warnings, lines));
        answer = answer.sized(rule.with(std::sync::Arc::new(move |whole| {
            compact(
                name, done_words, status, summary, &rows.0, &rows.1, &rows.2, whole,
            )
        })));
    }
    Ok(answer)
}

/// One file: skipped when it has no analysis, else what the command answers for it.
fn each(config: &Config, path: PathBuf, one: &impl Fn(PathBuf, &Mapping) -> Outcome) -> FileResult {
    let shown = shown(&config.root, &path);
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
    match one(path, &map) {
        Outcome::Skip(reason) => result.skip_reason = Some(reason),
        Outcome::Ran(Ok(answer)) => {
            result.status = answer
                .value
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("success")
                .to_string();
            result.result = Some(answer.value);
        }
        Outcome::Ran(Err(e)) => {
            result.status = "error".to_string();
            result.skip_reason = Some(format!("{} ({})", e.message(), e.code()));
        }
    }
    result
}

fn shown(root: &Path, path: &Path) -> String {
    walk::relative_to(root, path).unwrap_or_else(|| path.display().to_string())
}

/// One line per file: what was done, or why not.
fn line(command: &Command<'_>, r: &FileResult) -> String {
    let name = if r.source_file.is_empty() {
        &r.metadata
    } else {
        &r.source_file
    };
    let what = match r.status.as_str() {
        "success" => r.result.as_ref().map(command.done_text).unwrap_or_default(),
        "needs_decision" => format!(
            "needs a decision (run `rspec-scout {} {}` to see it)",
            command.name,
            shell_word(&r.metadata)
        ),
        other => format!("{other}: {}", r.skip_reason.as_deref().unwrap_or("")),
    };
    format!("{name}: {what}\n")
}

fn summary_text(done_words: (&str, &str), s: &Summary) -> String {
    format!(
        "{} {}, {} to decide, {} skipped, {} errors\n",
        plural(s.done, done_words.0),
        done_words.1,
        s.needs_decision,
        s.skipped,
        s.errors
    )
}

fn text(
    command: &Command<'_>,
    results: &[FileResult],
    summary: &Summary,
    warnings: &[String],
) -> String {
    let mut out = String::new();
    for w in warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    for r in results {
        out.push_str(&line(command, r));
    }
    out.push_str(&summary_text(command.done_words, summary));
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
#[allow(clippy::too_many_arguments)]
fn compact(
    name: &'static str,
    done_words: (&str, &str),
    status: &'static str,
    summary: Summary,
    results: &[FileResult],
    warnings: &[String],
    lines: &[String],
    whole: &Whole,
) -> Answer {
    let mut order: Vec<(&FileResult, &String)> = results.iter().zip(lines).collect();
    order.sort_by_key(|(r, _)| match r.status.as_str() {
        "error" => 0,
        "needs_decision" => 1,
        "skipped" => 3,
        _ => 2,
    });
    let mut next: Vec<String> = order
        .iter()
        .find(|(r, _)| r.status == "needs_decision")
        .map(|(r, _)| format!("rspec-scout {name} {}", shell_word(&r.metadata)))
        .into_iter()
        .collect();
    next.push(format!("rspec-scout {name} --answer full"));
    fit(whole, |cap| {
        let files: Vec<CompactRow<'_>> = order
            .iter()
            .take(cap)
            .map(|(r, _)| CompactRow {
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
        let mut text = format!("{name}: {}\n", whole_text(whole, "answer"));
        for (_, line) in order.iter().take(cap) {
            text.push_str(line);
        }
        if body.more_files > 0 {
            text.push_str(&format!("... {} more\n", plural(body.more_files, "file")));
        }
        text.push_str(&summary_text(done_words, &summary));
        for n in &body.next_suggestions {
            text.push_str(&format!("next: {n}\n"));
        }
        Answer::new(&body, text, 0)
    })
}
