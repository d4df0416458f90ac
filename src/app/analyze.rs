//! `rspec-scout analyze FILE...` / `analyze --from-metadata`: analyzes the selected methods
//! of each file (every public method when there is no discovery metadata), writes the
//! code-analyzer fields into its metadata, and answers in the code-analyzer shape
//! (`status`, `data`). A valid cached analysis (same mtime and content digest) is reused
//! unless `--force`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::analyze::{self, Selected};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::index::{self, ExtractOptions, MethodKind};
use crate::metadata::{self, fields};
use crate::report::discover::{fit, shell_word, whole_text, FullAnswerOut};
use crate::report::{millis, Answer, AnswerSize, OnPhase, Sizing, Whole};
use crate::yaml::{Mapping, Value};

/// Options of `analyze`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Source files (or folders, walked for in-scope `.rb` files) to analyze.
    pub files: Vec<PathBuf>,
    /// Analyze the files of the last plan (`discover`'s record), or every file with
    /// metadata under the root when there is no record or `all_metadata` is set.
    pub from_metadata: bool,
    /// With `from_metadata`: every metadata file, not only the last plan's.
    pub all_metadata: bool,
    /// Re-analyze even when the cached analysis is valid.
    pub force: bool,
    /// Add the time of each phase to the answer.
    pub timings: bool,
    /// Where each phase is reported (nothing by default).
    pub progress: OnPhase,
    /// How large the printed answer may be (default: whole).
    pub answer: AnswerSize,
}

/// The result for one file.
#[derive(Debug, Serialize)]
pub struct FileResult {
    /// `success`, `skipped` or `error`.
    pub status: &'static str,
    /// The source file.
    pub source_file: String,
    /// The metadata file.
    pub metadata: String,
    /// The analysis was reused (`source_mtime` and `source_digest` match).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// The code-analyzer fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    /// The error, for `status: error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<&'static str>,
    /// What to do about the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// Problems that did not stop the analysis.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl FileResult {
    /// A success for `source_file` (empty when no source is known) and its metadata file,
    /// with nothing else set yet.
    fn new(source_file: String, metadata: String) -> Self {
        FileResult {
            status: "success",
            source_file,
            metadata,
            cached: false,
            data: None,
            skip_reason: None,
            error: None,
            error_code: None,
            suggestion: None,
            warnings: Vec::new(),
        }
    }

    /// The source file, or the metadata file when no source is known (metadata that does
    /// not load).
    fn label(&self) -> &str {
        if self.source_file.is_empty() {
            &self.metadata
        } else {
            &self.source_file
        }
    }
}

/// Milliseconds per phase.
#[derive(Debug, Serialize, Default, Clone)]
pub struct Timings {
    /// Reading, parsing and analyzing (in parallel).
    pub analyze_ms: u64,
    /// Writing metadata.
    pub metadata_ms: u64,
    /// Everything.
    pub total_ms: u64,
}

/// The answer for one file: the seed's `status` + `data`.
#[derive(Debug, Serialize)]
struct SingleAnswer<'a> {
    status: &'static str,
    #[serde(flatten)]
    result: &'a FileResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    timings: Option<Timings>,
}

/// The answer for several files.
#[derive(Debug, Serialize)]
struct ManyAnswer<'a> {
    status: &'static str,
    results: &'a [FileResult],
    summary: Summary,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    timings: Option<Timings>,
}

#[derive(Debug, Serialize, Clone, Copy)]
struct Summary {
    analyzed: usize,
    cached: usize,
    skipped: usize,
    errors: usize,
}

/// One file's work, before the metadata write.
enum Work {
    Analyzed(Box<fields::Analysis>, Vec<String>),
    Cached(Value),
    /// Nothing to analyze (recorded in the metadata as the stage's skip).
    Skipped(String),
    /// A file a folder walk found that cannot be read as Ruby (binary, too large): left
    /// out with the reason, its metadata untouched.
    NotRead(String),
    Failed(Error),
}

/// Runs `analyze`.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    let started = Instant::now();
    let mut invalid = Vec::new();
    let mut notes = Vec::new();
    let sources: Vec<(PathBuf, bool)> = if options.from_metadata {
        let (sources, unusable) = sources_from_metadata(config, options.all_metadata, &mut notes)?;
        invalid = unusable;
        sources.into_iter().map(|s| (s, true)).collect()
    } else {
        named_sources(config, &options.files)?
    };
    let locations: Vec<(metadata::Location, bool)> = sources
        .iter()
        .map(|(s, named)| (config.locate(s), *named))
        .collect();
    let analyzing = options.progress.start("analyze", locations.len());
    // What every file's cache key shares, computed once: the analyzer, the rules' digest,
    // and the digests of the files several controllers read (their parents, concerns).
    let gems = super::project_gems(&config.root);
    let shared = Shared {
        analyzer: fields::AnalysisInputs::analyzer(),
        rules: fields::AnalysisInputs::rules_digest(&config.side_effects, gems.as_deref()),
        gems,
        classes: std::sync::Mutex::new(std::collections::HashMap::new()),
        max_file_size: config.max_file_size,
        digests: std::sync::Mutex::new(std::collections::HashMap::new()),
        routes: std::sync::Mutex::new(std::collections::HashMap::new()),
        factories: std::sync::Mutex::new(std::collections::HashMap::new()),
    };
    let work: Vec<Work> = index::in_pool(config.threads, || {
        locations
            .par_iter()
            .map(|(loc, named)| {
                let work = analyze_file(config, &shared, loc, options.force, *named);
                analyzing.tick();
                work
            })
            .collect()
    });
    analyzing.finish();
    let analyze_ms = millis(started);

    let phase = Instant::now();
    let writing = options.progress.start("metadata", locations.len());
    let mut results = Vec::with_capacity(work.len());
    let mut lock: Option<(PathBuf, metadata::Lock)> = None;
    for ((loc, _), item) in locations.iter().zip(work) {
        let rel = loc.source_rel.clone();
        let meta_path = crate::index::walk::relative_to(&loc.project_root, &loc.path)
            .unwrap_or_else(|| loc.path.display().to_string());
        let base = FileResult::new(rel, meta_path);
        let result = match item {
            Work::Cached(data) => FileResult {
                cached: true,
                data: Some(data),
                ..base
            },
            Work::Failed(e) => failed(base, &e),
            Work::Skipped(reason) => match write_skip(loc, &reason, &mut lock) {
                Ok(()) => FileResult {
                    status: "skipped",
                    skip_reason: Some(reason),
                    ..base
                },
                Err(e) => failed(base, &e),
            },
            Work::NotRead(reason) => FileResult {
                status: "skipped",
                skip_reason: Some(reason),
                ..base
            },
            Work::Analyzed(analysis, warnings) => match write_analysis(loc, &analysis, &mut lock) {
                Ok(()) => FileResult {
                    data: Some(Value::Mapping(analysis.data())),
                    warnings,
                    ..base
                },
                Err(e) => failed(base, &e),
            },
        };
        writing.tick();
        results.push(result);
    }
    drop(lock);
    writing.finish();
    // Metadata files that do not load name no source to analyze; each is an error of its
    // own instead of being passed over in silence.
    for (path, e) in invalid {
        let meta_path = crate::index::walk::relative_to(&config.root, &path)
            .unwrap_or_else(|| path.display().to_string());
        results.push(failed(FileResult::new(String::new(), meta_path), &e));
    }
    let timings = Timings {
        analyze_ms,
        metadata_ms: millis(phase),
        total_ms: millis(started),
    };
    let errors = results.iter().filter(|r| r.status == "error").count();
    let skipped = results.iter().filter(|r| r.status == "skipped").count();
    let status = if errors > 0 {
        "error"
    } else if skipped == results.len() && !results.is_empty() {
        "skipped"
    } else {
        "success"
    };
    let exit = u8::from(errors > 0);
    let text = text(&results, &notes);
    let timings = options.timings.then_some(timings);
    let summary = Summary {
        analyzed: results
            .iter()
            .filter(|r| r.status == "success" && !r.cached)
            .count(),
        cached: results.iter().filter(|r| r.cached).count(),
        skipped,
        errors,
    };
    let single = results.len() == 1 && !options.from_metadata;
    let mut answer = match results.as_slice() {
        [only] if single => Answer::new(
            &SingleAnswer {
                status,
                result: only,
                timings: timings.clone(),
            },
            text,
            exit,
        ),
        many => Answer::new(
            &ManyAnswer {
                status,
                results: many,
                summary,
                warnings: &notes,
                timings: timings.clone(),
            },
            text,
            exit,
        ),
    };
    for r in results.iter().filter(|r| r.status == "error") {
        answer.stderr.push(format!(
            "rspec-scout: {}: {} ({})",
            r.label(),
            r.error.as_deref().unwrap_or("error"),
            r.error_code.unwrap_or("ERROR")
        ));
    }
    if options.answer != AnswerSize::Full && !single {
        let rows: Vec<Row> = results.iter().map(Row::of).collect();
        let root = config.root.clone();
        answer = answer.sized(Sizing {
            size: options.answer,
            limit: config.answer_limit,
            full_path: Some(
                metadata::plan::state_dir(&root, &config.metadata_path).join("analyze"),
            ),
            root,
            no_file: None,
            compact: std::sync::Arc::new(move |whole| {
                compact(status, summary, &rows, &notes, timings.clone(), whole)
            }),
        });
    }
    Ok(answer)
}

/// One file of a compact answer.
#[derive(Debug, Clone, Serialize)]
struct Row {
    source_file: String,
    status: &'static str,
    metadata: String,
    /// Methods analyzed.
    methods: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    cached: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    skip_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "is_zero")]
    warnings: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Row {
    fn of(r: &FileResult) -> Self {
        Row {
            source_file: r.label().to_string(),
            status: r.status,
            metadata: r.metadata.clone(),
            methods: r
                .data
                .as_ref()
                .and_then(|d| d.get("methods"))
                .and_then(Value::as_sequence)
                .map_or(0, Vec::len),
            cached: r.cached,
            skip_reason: r.skip_reason.clone(),
            error: r.error.clone(),
            warnings: r.warnings.len(),
        }
    }
}

#[derive(Debug, Serialize)]
struct CompactAnswer<'a> {
    status: &'static str,
    answer: &'static str,
    full_answer: FullAnswerOut,
    summary: Summary,
    files: Vec<&'a Row>,
    #[serde(skip_serializing_if = "is_zero")]
    more_files: usize,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: &'a [String],
    next_suggestions: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timings: Option<Timings>,
}

/// The compact answer: the summary, then files (errors first, then those with warnings,
/// then the rest, each with its method count), as many as fit, and where the whole
/// answer is.
fn compact(
    status: &'static str,
    summary: Summary,
    rows: &[Row],
    notes: &[String],
    timings: Option<Timings>,
    whole: &Whole,
) -> Answer {
    let mut order: Vec<&Row> = rows.iter().collect();
    order.sort_by_key(|r| (r.status != "error", r.warnings == 0, r.status == "skipped"));
    let fmt = match whole.format {
        crate::report::Format::Yaml => String::new(),
        other => format!(" --format {other}"),
    };
    let mut next = Vec::new();
    let first = order
        .iter()
        .find(|r| r.status != "skipped" && !r.source_file.ends_with(".yml"));
    if let Some(first) = first {
        next.push(format!(
            "rspec-scout analyze {}{fmt}",
            shell_word(&first.source_file)
        ));
    }
    next.push(format!(
        "rspec-scout analyze --from-metadata --answer full{fmt}"
    ));
    if let Some(first) = first.filter(|_| summary.errors == 0) {
        next.push(format!(
            "rspec-scout test-config {}",
            shell_word(&first.source_file)
        ));
    }
    fit(whole, |cap| {
        let files: Vec<&Row> = order.iter().take(cap).copied().collect();
        let body = CompactAnswer {
            status,
            answer: "compact",
            full_answer: FullAnswerOut::of(whole),
            summary,
            more_files: order.len() - files.len(),
            files,
            warnings: notes,
            next_suggestions: next.clone(),
            timings: timings.clone(),
        };
        let text = compact_text(&body, whole);
        Answer::new(&body, text, 0)
    })
}

fn compact_text(c: &CompactAnswer<'_>, whole: &Whole) -> String {
    use std::fmt::Write as _;
    let s = &c.summary;
    let mut out = format!(
        "analyze: {}: {} analyzed, {} cached, {} skipped, {} errors\n{}\n",
        crate::report::plural(c.files.len() + c.more_files, "file"),
        s.analyzed,
        s.cached,
        s.skipped,
        s.errors,
        whole_text(whole, "answer")
    );
    let width = c
        .files
        .iter()
        .map(|r| r.source_file.len())
        .max()
        .unwrap_or(0);
    for r in &c.files {
        let what = match r.status {
            "error" => format!("error: {}", r.error.as_deref().unwrap_or("")),
            "skipped" => format!("skipped: {}", r.skip_reason.as_deref().unwrap_or("")),
            _ => {
                let mut w = crate::report::plural(r.methods, "method");
                if r.cached {
                    w.push_str(" (cached)");
                }
                if r.warnings > 0 {
                    w.push_str(&format!(
                        ", {}",
                        crate::report::plural(r.warnings, "warning")
                    ));
                }
                w
            }
        };
        let _ = writeln!(out, "  {:<width$}  {what}", r.source_file);
    }
    if c.more_files > 0 {
        let _ = writeln!(
            out,
            "  ... {} more",
            crate::report::plural(c.more_files, "file")
        );
    }
    for w in c.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    for n in &c.next_suggestions {
        let _ = writeln!(out, "next: {n}");
    }
    out
}

/// The files named on the command line: each must exist and be Ruby; a folder stands for
/// its in-scope `.rb` files (`false`: found by a walk, so a file that cannot be read is
/// skipped with its reason instead of failing).
fn named_sources(config: &Config, files: &[PathBuf]) -> Result<Vec<(PathBuf, bool)>> {
    let mut out = Vec::new();
    for f in files {
        if f.is_dir() {
            let scope = config.scope()?;
            let found = index::walk::collect(
                &config.root,
                std::slice::from_ref(f),
                &scope,
                config.threads,
            )?;
            out.extend(found.files.into_iter().map(|s| (s.path, false)));
        } else if !f.exists() {
            return Err(Error::SourceNotFound { path: f.clone() });
        } else if !index::walk::is_ruby_file(f) {
            return Err(Error::NotRuby { path: f.clone() });
        } else {
            out.push((f.clone(), true));
        }
    }
    Ok(out)
}

fn failed(base: FileResult, e: &Error) -> FileResult {
    FileResult {
        status: "error",
        error: Some(e.message()),
        error_code: Some(e.code()),
        suggestion: Some(e.suggestion()),
        ..base
    }
}

/// Metadata files that cannot be used, with why.
type Unusable = Vec<(PathBuf, Error)>;

/// The source files of the last plan; with `all`, or when no plan was recorded (metadata
/// written by an older rspec-scout or by the pipeline itself), every source file named by
/// a metadata file under the root (each once), and the metadata files that cannot be used.
fn sources_from_metadata(
    config: &Config,
    all: bool,
    notes: &mut Vec<String>,
) -> Result<(Vec<PathBuf>, Unusable)> {
    if !all {
        match metadata::plan::read(&config.root, &config.metadata_path)? {
            Some(record) if !record.files.is_empty() => {
                return Ok((
                    record
                        .files
                        .iter()
                        .map(|f| config.root.join(&f.source_file))
                        .collect(),
                    Vec::new(),
                ))
            }
            Some(_) => {
                return Err(Error::NothingToDo {
                    message: "No metadata to analyze".to_string(),
                    details: "the last plan has no file".to_string(),
                    hint: None,
                })
            }
            None => notes.push(format!(
                "no plan recorded ({}): every metadata file is analyzed; `rspec-scout discover` records one",
                crate::index::walk::relative_to(
                    &config.root,
                    &metadata::plan::record_path(&config.root, &config.metadata_path)
                )
                .unwrap_or_default()
            )),
        }
    }
    let dir = config.metadata_dir(&config.root);
    let entries =
        std::fs::read_dir(&dir).map_err(|_| Error::MetadataNotFound { path: dir.clone() })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "yml")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    paths.sort();
    let mut sources = Vec::new();
    let mut invalid = Vec::new();
    for path in paths {
        let map = match metadata::load(&path) {
            Ok(Some(map)) => map,
            // Removed since the folder was listed.
            Ok(None) => continue,
            Err(e) => {
                invalid.push((path, e));
                continue;
            }
        };
        match map.get("source_file") {
            Some(Value::String(source)) if !source.is_empty() => {
                sources.push(config.root.join(source));
            }
            Some(other) => invalid.push((
                path.clone(),
                Error::MetadataInvalid {
                    path,
                    reason: format!(
                        "source_file must be a non-empty String (found {})",
                        crate::yaml::to_string(other).trim_end()
                    ),
                },
            )),
            None => {}
        }
    }
    // Two metadata files naming one source (a copy, a renamed slug) analyze it once.
    sources.sort();
    sources.dedup();
    if sources.is_empty() && invalid.is_empty() {
        return Err(Error::NothingToDo {
            message: "No metadata to analyze".to_string(),
            details: format!("no metadata file with a source_file in {}", dir.display()),
            hint: None,
        });
    }
    Ok((sources, invalid))
}

/// What the files of one run share for their cache keys.
struct Shared {
    analyzer: String,
    rules: String,
    /// Digests of files other than the analyzed one, by absolute path.
    digests: std::sync::Mutex<std::collections::HashMap<PathBuf, Option<String>>>,
    /// The routes of each project root, read once per run (for controllers).
    routes: std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<AppRoutes>>>,
    /// The gems of the configured root's `Gemfile.lock`.
    gems: Option<Vec<String>>,
    /// The files of classes other files' calls reach, parsed once per run, by (project
    /// root, class).
    classes: std::sync::Mutex<ClassFiles>,
    /// `max_file_size`.
    max_file_size: u64,
    /// The factories of each project root, read once per run when a file needs them.
    factories: std::sync::Mutex<
        std::collections::HashMap<PathBuf, std::sync::Arc<crate::rails::factories::FactoryIndex>>,
    >,
}

type ClassFiles = std::collections::HashMap<
    (PathBuf, String),
    Option<(String, std::sync::Arc<index::FileFacts>)>,
>;

/// The project files of one root, as the analyzer reads them (`analyze::via`).
struct RootFiles<'s> {
    shared: &'s Shared,
    root: &'s Path,
}

impl std::fmt::Debug for RootFiles<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RootFiles({})", self.root.display())
    }
}

impl analyze::via::ProjectFiles for RootFiles<'_> {
    fn class_file(&self, class: &str) -> Option<(String, std::sync::Arc<index::FileFacts>)> {
        let key = (self.root.to_path_buf(), class.to_string());
        if let Ok(known) = self.shared.classes.lock() {
            if let Some(found) = known.get(&key) {
                return found.clone();
            }
        }
        let dirs = analyze::types::app_dirs(self.root);
        let read = |rel: String| {
            let bytes =
                index::read_source(&self.root.join(&rel), self.shared.max_file_size).ok()?;
            let facts = index::extract_with(&rel, &bytes, &ExtractOptions::with_bodies());
            // A file that does not parse says nothing reliable about its methods.
            (facts.diagnostic_count == 0 && facts.skipped.is_none())
                .then(|| (rel, std::sync::Arc::new(facts)))
        };
        // The class's own file, else the namespace file that defines it.
        let found = analyze::types::class_file_candidates(class, &dirs)
            .into_iter()
            .filter(|(rel, _, _)| self.root.join(rel).is_file())
            .find_map(|(rel, _, check)| {
                read(rel)
                    .filter(|(_, facts)| !check || facts.classes.iter().any(|c| c.name == class))
            });
        if let Ok(mut known) = self.shared.classes.lock() {
            known.insert(key, found.clone());
        }
        found
    }
}

/// An app's routes and the files they were read from (`config/routes.rb` and the files
/// it draws), which a controller's analysis depends on.
struct AppRoutes {
    routes: crate::rails::routes::Routes,
    files: Vec<String>,
}

impl Shared {
    /// The routes under `root`, read once per run.
    fn routes(&self, root: &Path) -> std::sync::Arc<AppRoutes> {
        if let Ok(known) = self.routes.lock() {
            if let Some(r) = known.get(root) {
                return r.clone();
            }
        }
        let routes = crate::rails::routes::Routes::load(root);
        let mut files: Vec<String> = vec!["config/routes.rb".to_string()];
        files.extend(routes.routes().iter().map(|r| r.file.clone()));
        files.sort();
        files.dedup();
        let loaded = std::sync::Arc::new(AppRoutes { routes, files });
        if let Ok(mut known) = self.routes.lock() {
            known.insert(root.to_path_buf(), loaded.clone());
        }
        loaded
    }

    /// The factories under `root`, read once per run (only when a file is analyzed, so a
    /// run served from the cache reads none).
    fn factories(
        &self,
        config: &Config,
        root: &Path,
    ) -> std::sync::Arc<crate::rails::factories::FactoryIndex> {
        // Held while the index is built: the other workers need the same one.
        let Ok(mut known) = self.factories.lock() else {
            return std::sync::Arc::new(crate::rails::factories::FactoryIndex::default());
        };
        known
            .entry(root.to_path_buf())
            .or_insert_with(|| std::sync::Arc::new(super::factories::load(config, root, false)))
            .clone()
    }

    /// `sha256:<hex>` of a project file, read once per run.
    fn digest(&self, root: &Path, rel: &str) -> Option<String> {
        let path = root.join(rel);
        if let Ok(known) = self.digests.lock() {
            if let Some(d) = known.get(&path) {
                return d.clone();
            }
        }
        let digest = std::fs::read(&path).ok().map(|b| metadata::digest(&b));
        if let Ok(mut known) = self.digests.lock() {
            known.insert(path, digest.clone());
        }
        digest
    }
}

fn analyze_file(
    config: &Config,
    shared: &Shared,
    loc: &metadata::Location,
    force: bool,
    named: bool,
) -> Work {
    let source_path = loc.project_root.join(&loc.source_rel);
    let existing = match metadata::load(&loc.path) {
        Ok(m) => m,
        Err(e) => return Work::Failed(e),
    };
    let bytes = match index::read_source(&source_path, config.max_file_size) {
        Ok(b) => b,
        Err(reason) if !source_path.exists() => {
            let _ = reason;
            return Work::Failed(Error::SourceNotFound { path: source_path });
        }
        Err(reason) if !named => return Work::NotRead(reason),
        Err(reason) => {
            return Work::Failed(Error::Unreadable {
                path: source_path,
                reason,
            })
        }
    };
    let digest = metadata::digest(&bytes);
    let mtime = metadata::mtime(&source_path).unwrap_or(0);
    if let (false, Some(map)) = (force, &existing) {
        let inputs_hold = || {
            fields::AnalysisInputs::check(map, &shared.analyzer, &shared.rules, |path| {
                shared.digest(&loc.project_root, path)
            })
            .is_ok()
        };
        if cache_valid(map, mtime, &digest) && inputs_hold() {
            return Work::Cached(Value::Mapping(cached_data(map)));
        }
    }
    let facts = index::extract_with(&loc.source_rel, &bytes, &ExtractOptions::with_bodies());
    if let Some(reason) = &facts.skipped {
        if !named {
            return Work::NotRead(reason.clone());
        }
        return Work::Failed(Error::Unreadable {
            path: source_path,
            reason: reason.clone(),
        });
    }
    let mut warnings = Vec::new();
    if facts.diagnostic_count > 0 {
        // A plan built from what the parser recovered is not presented as a plan.
        let first = facts.diagnostics.first();
        return Work::Failed(Error::Unparsable {
            path: PathBuf::from(&loc.source_rel),
            line: first.map_or(1, |d| d.line),
            message: first.map_or_else(|| "syntax error".to_string(), |d| d.message.clone()),
            errors: facts.diagnostic_count,
        });
    }
    let class_name = existing
        .as_ref()
        .and_then(|m| m.get("class_name"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| crate::discover::main_class(&facts));
    let Some(class_name) = class_name else {
        return Work::Skipped("No class found in the file".to_string());
    };
    // Without discovery: every public method of every class and module of the file, and
    // the private ones Rails calls.
    let triggers = crate::rails::callbacks::triggers(&facts);
    let redefined = crate::index::redefined(&facts.methods);
    let selected = match existing.as_ref().and_then(|m| m.get("methods_to_analyze")) {
        Some(Value::Sequence(items)) => items.iter().filter_map(selected_entry).collect::<Vec<_>>(),
        _ => facts
            .methods
            .iter()
            .enumerate()
            .filter(|(i, m)| {
                !m.dynamic
                    && !redefined.get(*i).copied().unwrap_or(false)
                    && (m.is_public_api()
                        || (m.name != "initialize"
                            && triggers.get(*i).is_some_and(Option::is_some)))
            })
            .map(|(_, m)| m)
            .map(|m| Selected {
                name: m.name.clone(),
                class: (m.owner != class_name).then(|| m.owner.clone()),
                kind: Some(m.kind),
                // Without discovery there is no base to compare with: the skeleton will
                // upsert (replace an existing block) rather than insert.
                method_mode: "unchanged".to_string(),
            })
            .collect(),
    };
    if selected.is_empty() {
        return Work::Skipped("No testable methods found".to_string());
    }
    let controller = class_name.ends_with("Controller");
    let chain = if controller {
        analyze::controller::chain(&loc.project_root, &facts, &class_name)
    } else {
        Vec::new()
    };
    let routes = controller.then(|| shared.routes(&loc.project_root));
    let root_files = RootFiles {
        shared,
        root: &loc.project_root,
    };
    let request = analyze::Request {
        facts: &facts,
        class_name: class_name.clone(),
        methods: selected,
        root: Some(loc.project_root.clone()),
        rules: &config.side_effects,
        controller_chain: &chain,
        routes: routes.as_ref().map(|r| &r.routes),
        gems: shared.gems.as_deref(),
        project: Some(&root_files),
    };
    let analysis = analyze::analyze(&request);
    let factory_index = shared.factories(config, &loc.project_root);
    let factories = analyze::factories::detect(&class_name, &analysis.methods, &factory_index);
    let mut reached: Vec<String> = analysis
        .methods
        .iter()
        .flat_map(|m| m.reached_files.iter().cloned())
        .collect();
    reached.sort();
    reached.dedup();
    warnings.extend(analysis.warnings.iter().cloned());
    if let Some(f) = &factories {
        warnings.extend(f.warnings.iter().map(|w| format!("factory_detector: {w}")));
        // The factory files it read: the cached analysis is stale when one changes.
        reached.extend(f.files.iter().cloned());
        reached.sort();
        reached.dedup();
    }
    if analysis.methods.is_empty() {
        return Work::Skipped("None of the selected methods was found in the source".to_string());
    }
    Work::Analyzed(
        Box::new(fields::Analysis {
            slug: loc.slug.clone(),
            source_file: loc.source_rel.clone(),
            source_mtime: mtime,
            source_digest: digest,
            class_name,
            analysis,
            inputs: fields::AnalysisInputs {
                analyzer: shared.analyzer.clone(),
                rules: shared.rules.clone(),
                selection: fields::selection_of(existing.as_ref()),
                files: chain
                    .iter()
                    .map(|link| link.facts.path.as_str())
                    .chain(
                        routes
                            .iter()
                            .flat_map(|r| r.files.iter().map(String::as_str)),
                    )
                    // The classes its calls reach (their effects are in the plan).
                    .chain(reached.iter().map(String::as_str))
                    .filter(|path| *path != loc.source_rel)
                    .filter_map(|path| {
                        let digest = shared.digest(&loc.project_root, path)?;
                        Some((path.to_string(), digest))
                    })
                    .collect(),
            },
            factories,
        }),
        warnings,
    )
}

/// A `methods_to_analyze` entry that is selected.
fn selected_entry(item: &Value) -> Option<Selected> {
    let map = item.as_mapping()?;
    if map.get("selected").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    let name = map.get("name").and_then(Value::as_str)?.to_string();
    let kind = match map.get("type").and_then(Value::as_str) {
        Some("class") => Some(MethodKind::Singleton),
        Some("instance") => Some(MethodKind::Instance),
        _ => None,
    };
    let method_mode = map
        .get("method_mode")
        .and_then(Value::as_str)
        .unwrap_or("unchanged")
        .to_string();
    Some(Selected {
        // A method of another class of the file (an added field of discovery's entries).
        class: map
            .get("class_name")
            .and_then(Value::as_str)
            .map(str::to_string),
        name,
        kind,
        method_mode,
    })
}

/// The cache rule: the analysis is complete and was made on these very bytes.
fn cache_valid(map: &Mapping, mtime: i64, digest: &str) -> bool {
    metadata::is_completed(map, "code_analyzer")
        && map.get("source_mtime").and_then(Value::as_i64) == Some(mtime)
        && map.get("source_digest").and_then(Value::as_str) == Some(digest)
}

fn cached_data(map: &Mapping) -> Mapping {
    let mut data = Mapping::new();
    for key in [
        "slug",
        "source_file",
        "source_mtime",
        "source_digest",
        "class_name",
        "behaviors",
        "methods",
        "factories_detected",
    ] {
        if let Some(v) = map.get(key) {
            metadata::set(&mut data, key, v.clone());
        }
    }
    data
}

fn take_lock(
    target: &crate::guard::Target,
    lock: &mut Option<(PathBuf, metadata::Lock)>,
) -> Result<()> {
    let dir = target.folder().path().to_path_buf();
    if lock.as_ref().is_some_and(|(d, _)| *d == dir) {
        return Ok(());
    }
    // One folder lock at a time: release the previous folder's before taking another.
    *lock = None;
    let taken = metadata::lock(target)?;
    *lock = Some((dir, taken));
    Ok(())
}

/// Writes the analysis into the metadata (read again under the lock, so a concurrent
/// writer's keys are kept).
fn write_analysis(
    loc: &metadata::Location,
    analysis: &fields::Analysis,
    lock: &mut Option<(PathBuf, metadata::Lock)>,
) -> Result<()> {
    let target = loc.target()?;
    take_lock(&target, lock)?;
    let mut map = metadata::load(target.path())?.unwrap_or_default();
    analysis.apply(&mut map);
    metadata::write_atomic(&target, &map)
}

/// Records a skip: the stage completed with nothing to do (the contract's skip scenario).
fn write_skip(
    loc: &metadata::Location,
    reason: &str,
    lock: &mut Option<(PathBuf, metadata::Lock)>,
) -> Result<()> {
    let target = loc.target()?;
    take_lock(&target, lock)?;
    let Some(mut map) = metadata::load(target.path())? else {
        // Nothing to record against: no metadata and nothing analyzed.
        return Ok(());
    };
    metadata::set_skipped(&mut map, "code_analyzer", reason);
    metadata::write_atomic(&target, &map)
}

/// One context of the plan and its children, indented two spaces per level.
fn write_context(out: &mut String, c: &crate::spec::tree::Context, level: usize) {
    use crate::spec::tree::ExampleKind;
    use std::fmt::Write as _;
    let indent = "  ".repeat(level);
    let skipped = if c.skipped { "  (skipped)" } else { "" };
    let _ = writeln!(out, "{indent}{} {}{skipped}", c.word, c.text);
    for e in &c.examples {
        match e.kind {
            ExampleKind::Terminal => {
                let _ = writeln!(out, "{indent}  => {}", e.description);
            }
            ExampleKind::Success => {
                let _ = writeln!(out, "{indent}  -> {}", e.description);
            }
            // Said once per method.
            ExampleKind::SideEffect => {}
        }
    }
    for child in &c.children {
        write_context(out, child, level + 1);
    }
}

/// The side-effect examples of a method, once each, in order.
/// The side effects of each method of an analysis `data` (by descriptor, `#name`), as a
/// person reads them: those every context expects (the ones a leaf ends with are said by
/// that leaf), each with where it comes from when it is one call away.
fn effect_lines(data: &Mapping) -> std::collections::BTreeMap<String, Vec<String>> {
    let bank: std::collections::BTreeMap<&str, &str> = data
        .get("behaviors")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .filter_map(|b| Some((b.get("id")?.as_str()?, b.get("description")?.as_str()?)))
        .collect();
    let mut out = std::collections::BTreeMap::new();
    for m in data
        .get("methods")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
    {
        let class = m.get("type").and_then(Value::as_str) == Some("class");
        let name = m.get("name").and_then(Value::as_str).unwrap_or_default();
        let mut lines: Vec<String> = Vec::new();
        for e in m
            .get("side_effects")
            .and_then(Value::as_sequence)
            .into_iter()
            .flatten()
        {
            if e.get("scope").and_then(Value::as_str) == Some("leaf") {
                continue;
            }
            let id = e
                .get("behavior_id")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let text = bank.get(id).copied().unwrap_or(id);
            let line = match e.get("via").and_then(Value::as_str) {
                Some(via) => format!("{text} (via {via})"),
                None => text.to_string(),
            };
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        out.insert(format!("{}{name}", if class { "." } else { "#" }), lines);
    }
    out
}

/// People's text: per file, per method, its contexts as the skeleton lays them out.
fn text(results: &[FileResult], notes: &[String]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for n in notes {
        let _ = writeln!(out, "warning: {n}");
    }
    for r in results {
        match r.status {
            "error" => {
                let _ = writeln!(
                    out,
                    "{}: error: {}",
                    r.label(),
                    r.error.as_deref().unwrap_or("")
                );
                continue;
            }
            "skipped" => {
                let _ = writeln!(
                    out,
                    "{}: skipped: {}",
                    r.source_file,
                    r.skip_reason.as_deref().unwrap_or("")
                );
                continue;
            }
            _ => {}
        }
        let cached = if r.cached { " (cached)" } else { "" };
        let _ = writeln!(out, "{}{cached}", r.source_file);
        let Some(Value::Mapping(data)) = &r.data else {
            continue;
        };
        // The contexts exactly as the skeleton will write them (context word and text),
        // so a person reads the plan the spec will have.
        let trees = crate::spec::model::read(data).and_then(|meta| crate::spec::tree::build(&meta));
        let trees = match trees {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(out, "  (cannot lay out the plan: {e})");
                Vec::new()
            }
        };
        let confidences: std::collections::BTreeMap<String, f64> = data
            .get("methods")
            .and_then(Value::as_sequence)
            .into_iter()
            .flatten()
            .filter_map(|m| {
                let name = m.get("name").and_then(Value::as_str)?;
                let class = m.get("type").and_then(Value::as_str) == Some("class");
                let descriptor = format!("{}{name}", if class { "." } else { "#" });
                Some((descriptor, m.get("confidence").and_then(Value::as_f64)?))
            })
            .collect();
        let effects_by_method = effect_lines(data);
        for tree in &trees {
            let confidence = confidences.get(&tree.descriptor).copied().unwrap_or(1.0);
            let _ = writeln!(out, "  {}  (confidence {confidence:.2})", tree.descriptor);
            if let Some(trigger) = &tree.trigger {
                let _ = writeln!(out, "    runs as {trigger}");
            }
            let effects = effects_by_method
                .get(&tree.descriptor)
                .map(Vec::as_slice)
                .unwrap_or_default();
            for e in &tree.examples {
                if e.kind != crate::spec::tree::ExampleKind::SideEffect {
                    let _ = writeln!(out, "    -> {}", e.description);
                }
            }
            for c in &tree.contexts {
                write_context(&mut out, c, 2);
            }
            for e in effects {
                let _ = writeln!(out, "    side effect: {e}");
            }
        }
        for w in &r.warnings {
            let _ = writeln!(out, "  warning: {w}");
        }
    }
    out
}
