//! `rspec-scout test-config FILE`: decides `test_config` for every method of a metadata file
//! (the pipeline's `derive_test_config.rb`) and writes it back, with `target.kind` and
//! `automation.isolation_decider_completed: true`.
//!
//! FILE is the metadata file, or a source file (`*.rb`) whose metadata is located. The
//! project type comes from `--project-type`, else the configuration, else it is detected
//! at the project root (the original stops with an error instead; a detected type adds a
//! `project_type detected: ...` line to each decision trace). When a method comes out with
//! low confidence and `--low-confidence` is not given, nothing is written: the answer is
//! the original's `needs_decision` (exit 2). The read, the decisions and the write happen
//! under the metadata folder's lock, and the write is atomic.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{Config, PIPELINE_CONFIG_FILE};
use crate::error::{Error, Result};
use crate::metadata;
use crate::report::Answer;
use crate::spec::test_config::{self as decisions, Decisions, Inputs, Problem, ProjectFacts};
use crate::vocab::{ProjectType, TestLevel};

/// Options of `test-config`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The metadata file (or a source file, whose metadata is located).
    pub metadata: PathBuf,
    /// Overrides the config.
    pub project_type: Option<ProjectType>,
    /// The answer to a `needs_decision`.
    pub low_confidence: Option<TestLevel>,
    /// Instead of `metadata`: every analyzed file of the last plan, or of every metadata
    /// file.
    pub batch: Option<super::over_plan::Batch>,
    /// Where each phase of a batch is reported (nothing by default).
    pub progress: crate::report::OnPhase,
    /// How large the printed answer of a batch may be (default: whole).
    pub answer: crate::report::AnswerSize,
}

/// Runs the command.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    if let Some(batch) = options.batch {
        return run_over_plan(config, options, batch);
    }
    let named = &options.metadata;
    if named.extension().is_some_and(|e| e == "rb") && !named.exists() {
        return Err(Error::SourceNotFound {
            path: named.clone(),
        });
    }
    let target = resolve(config, named);
    if !target.path.exists() {
        return Err(Error::MetadataNotFound {
            path: PathBuf::from(&target.shown),
        });
    }
    let cleared = crate::guard::metadata_file(&config.root, &target.path)?;
    let _lock = metadata::lock(&cleared)?;
    let Some(mut map) = metadata::load(&target.path)? else {
        return Err(Error::MetadataNotFound {
            path: PathBuf::from(&target.shown),
        });
    };
    if let Some(reason) = metadata::analysis_skip(&map) {
        // The analyzer found nothing to test: neither is there anything to decide. The
        // stage completes as a skip (the contract's `{agent}_skipped`), as `analyze` did.
        metadata::set_skipped(&mut map, "isolation_decider", &reason);
        metadata::write_atomic(&cleared, &map)?;
        return Ok(with_warnings(skipped(&target, reason), config));
    }
    if let Some(reason) = metadata::fields::selection_changed(&map) {
        return Err(Error::AnalysisStale {
            path: target.path.clone(),
            reason,
        });
    }
    let (project_type, detected) =
        project_type(config, options.project_type, &target.project_root)?;
    let inputs = Inputs {
        project_type,
        detected,
    };
    let mut decided = match decisions::decide(&map, &inputs) {
        Ok(d) => d,
        Err(Problem::InvalidMethod(idx)) => return Ok(invalid_method(&target, idx)),
        Err(problem) => {
            return Err(Error::MetadataInvalid {
                path: target.path.clone(),
                reason: problem.message().to_string(),
            })
        }
    };
    let low: Vec<String> = decided
        .low_confidence()
        .iter()
        .map(|m| m.method_id.clone())
        .collect();
    if !low.is_empty() {
        match options.low_confidence {
            None => return Ok(with_warnings(needs_decision(&decided), config)),
            Some(choice) => decided.resolve(choice),
        }
    }
    let updated = decisions::apply(&mut map, &decided);
    metadata::write_atomic(&cleared, &map)?;
    Ok(with_warnings(
        success(&target, &inputs, &decided, updated, low),
        config,
    ))
}

fn skipped(target: &Target, reason: String) -> Answer {
    super::analysis_skipped(&target.shown, reason)
}

/// The metadata file to work on.
struct Target {
    path: PathBuf,
    /// As the answer names it: as given, or (when located from a source file) relative to
    /// the current directory when below it.
    shown: String,
    project_root: PathBuf,
}

fn resolve(config: &Config, file: &Path) -> Target {
    if file.extension().is_some_and(|e| e == "rb") {
        let location = config.locate(file);
        let cwd = std::env::current_dir()
            .map(|d| crate::index::walk::absolute(&d))
            .unwrap_or_default();
        let shown = crate::index::walk::relative_to(&cwd, &location.path)
            .unwrap_or_else(|| location.path.display().to_string());
        Target {
            path: location.path,
            shown,
            project_root: location.project_root,
        }
    } else {
        Target {
            path: file.to_path_buf(),
            shown: file.display().to_string(),
            project_root: super::validate::project_root_of_metadata(config, file),
        }
    }
}

/// The flag, else the project's configuration, else detection at the project root; with
/// the decision-trace line saying how it was detected. `skeleton` resolves it the same way.
pub(crate) fn project_type(
    config: &Config,
    flag: Option<ProjectType>,
    project_root: &Path,
) -> Result<(ProjectType, Option<String>)> {
    if let Some(flag) = flag {
        return Ok((flag, None));
    }
    let own = (project_root != config.root)
        .then(|| Config::load(project_root.to_path_buf(), None).ok())
        .flatten()
        .and_then(|c| c.project_type);
    let configured = own
        .or_else(|| config.project_type.clone())
        .filter(|t| !crate::ruby::strip(t).is_empty());
    if let Some(configured) = configured {
        let Some(kind) = ProjectType::parse(&configured) else {
            return Err(Error::ConfigInvalid {
                path: project_root.join(PIPELINE_CONFIG_FILE),
                reason: format!(
                    "project_type must be one of: {} (got {configured:?})",
                    ProjectType::NAMES.join(", ")
                ),
            });
        };
        return Ok((kind, None));
    }
    let (detected, line) = decisions::detect_project_type(&project_facts(project_root));
    Ok((detected, Some(line)))
}

pub(crate) fn project_facts(root: &Path) -> ProjectFacts {
    let mut gemspecs: Vec<String> = std::fs::read_dir(root)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".gemspec"))
                .collect()
        })
        .unwrap_or_default();
    gemspecs.sort();
    ProjectFacts {
        gemspec: gemspecs.into_iter().next(),
        gemfile: std::fs::read(root.join("Gemfile"))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned()),
        has_controllers: root.join("app/controllers").is_dir(),
    }
}

/// `test-config` without FILE: every analyzed file of the plan, each as `test-config FILE`
/// decides it (a file the analysis skipped completes as a skip, as it does alone).
fn run_over_plan(
    config: &Config,
    options: &Options,
    batch: super::over_plan::Batch,
) -> Result<Answer> {
    use super::over_plan::{self, Command, Outcome, Run};
    let found = over_plan::files(config, batch)?;
    let done_text = |answer: &crate::yaml::Value| match answer
        .get("status")
        .and_then(crate::yaml::Value::as_str)
    {
        Some("skipped") => "skipped (nothing to test)".to_string(),
        _ => format!(
            "{} decided",
            crate::report::plural(
                answer
                    .get("updated_methods")
                    .and_then(crate::yaml::Value::as_u64)
                    .map_or(0, |n| usize::try_from(n).unwrap_or(0)),
                "method"
            )
        ),
    };
    let command = Command {
        name: "test-config",
        done_key: "updated",
        done_text: &done_text,
        done_words: ("file", "updated"),
    };
    let how = Run {
        batch,
        progress: &options.progress,
        answer: options.answer,
    };
    let answer = over_plan::run(config, &command, &how, found, |path, _map| {
        let single = Options {
            metadata: path,
            batch: None,
            ..options.clone()
        };
        Outcome::Ran(run(config, &single))
    })?;
    Ok(with_warnings(answer, config))
}

fn with_warnings(mut answer: Answer, config: &Config) -> Answer {
    answer
        .stderr
        .extend(config.warnings.iter().map(|w| format!("Warning: {w}")));
    answer
}

/// The success answer, in the original's key order.
#[derive(Debug, Serialize)]
struct Success {
    status: &'static str,
    metadata: String,
    updated_methods: usize,
    low_confidence_methods: Vec<String>,
}

fn success(
    target: &Target,
    inputs: &Inputs,
    decided: &Decisions,
    updated: usize,
    low: Vec<String>,
) -> Answer {
    let mut text = format!(
        "{}: target.kind {}, project_type {}{}\n",
        target.shown,
        decided.file_type,
        inputs.project_type,
        if inputs.detected.is_some() {
            " (detected)"
        } else {
            ""
        }
    );
    let decided_methods: Vec<_> = decided.methods.iter().flatten().collect();
    let width = decided_methods
        .iter()
        .map(|m| m.method_id.chars().count())
        .max()
        .unwrap_or(0);
    for m in decided_methods {
        let overridden = if low.contains(&m.method_id) {
            "  (low confidence, resolved)"
        } else {
            ""
        };
        text.push_str(&format!(
            "  {:<width$}  {:<11}  db={:<7} external_http={:<7} queue={:<7} confidence={}{overridden}\n",
            m.method_id,
            m.test_level,
            m.isolation.db,
            m.isolation.external_http,
            m.isolation.queue,
            m.confidence,
        ));
    }
    let body = Success {
        status: "success",
        metadata: target.shown.clone(),
        updated_methods: updated,
        low_confidence_methods: low,
    };
    Answer::new(&body, text, 0)
}

/// The `needs_decision` answer, in the original's shape and key order.
#[derive(Debug, Serialize)]
struct NeedsDecision {
    status: &'static str,
    decisions: Vec<Decision>,
}

#[derive(Debug, Serialize)]
struct Decision {
    decision: &'static str,
    title: &'static str,
    question: String,
    recommended_action: TestLevel,
    context: DecisionContext,
    choices: Vec<Choice>,
}

#[derive(Debug, Serialize)]
struct DecisionContext {
    file: String,
    class_name: String,
    file_type: &'static str,
    methods: Vec<LowMethod>,
}

#[derive(Debug, Serialize)]
struct LowMethod {
    method_id: String,
    suggested_test_level: TestLevel,
    signals: Signals,
    decision_trace: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Signals {
    uses_db: bool,
    uses_external_http: bool,
    uses_queue: bool,
    is_pure: bool,
}

#[derive(Debug, Serialize)]
struct Choice {
    action: TestLevel,
    label: &'static str,
    flag: String,
}

fn needs_decision(decided: &Decisions) -> Answer {
    let methods: Vec<LowMethod> = decided
        .low_confidence()
        .into_iter()
        .map(|m| LowMethod {
            method_id: m.method_id.clone(),
            suggested_test_level: m.test_level,
            signals: Signals {
                uses_db: m.uses_db,
                uses_external_http: m.uses_external_http,
                uses_queue: m.uses_queue,
                is_pure: m.is_pure,
            },
            decision_trace: m.decision_trace.clone(),
        })
        .collect();
    let choices: Vec<Choice> = decided
        .choices()
        .into_iter()
        .map(|(action, label)| Choice {
            action,
            label,
            flag: format!("--low-confidence={action}"),
        })
        .collect();
    let mut text = format!(
        "Test level is unclear for {} ({}); re-run with one of: {}\n",
        decided.class_name,
        decided.source_file,
        choices
            .iter()
            .map(|c| c.flag.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    text.push_str(&format!(
        "  recommended: {}\n",
        decided.recommended_action()
    ));
    for m in &methods {
        text.push_str(&format!(
            "  {}  suggested {}\n",
            m.method_id, m.suggested_test_level
        ));
    }
    let body = NeedsDecision {
        status: "needs_decision",
        decisions: vec![Decision {
            decision: "test_level_low_confidence",
            title: "Test level is unclear",
            question: format!(
                "For {} methods, test level is unclear.\nFile: {}\n\nChoose default:",
                decided.class_name, decided.source_file
            ),
            recommended_action: decided.recommended_action(),
            context: DecisionContext {
                file: decided.source_file.clone(),
                class_name: decided.class_name.clone(),
                file_type: decided.file_type,
                methods,
            },
            choices,
        }],
    };
    Answer::new(&body, text, 2)
}

/// The original's `invalid_method` error, with our error fields added.
#[derive(Debug, Serialize)]
struct InvalidMethod {
    status: &'static str,
    error: &'static str,
    message: &'static str,
    details: String,
    suggestion: &'static str,
    error_code: &'static str,
    recoverable: bool,
}

fn invalid_method(target: &Target, idx: usize) -> Answer {
    let message = Problem::InvalidMethod(idx).message();
    let body = InvalidMethod {
        status: "error",
        error: "invalid_method",
        message,
        details: format!("{}: methods[{idx}] has a blank name or type", target.shown),
        suggestion: "give every method a name and a type (instance or class), e.g. re-run `rspec-scout analyze`",
        error_code: "METADATA_INVALID",
        recoverable: true,
    };
    let text = format!("error: {message}\n  details: {}\n", body.details);
    let mut answer = Answer::new(&body, text, 1);
    answer
        .stderr
        .push(format!("rspec-scout: {message} (METADATA_INVALID)"));
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_files_are_located_and_metadata_files_taken_as_given() {
        let config = Config::defaults(PathBuf::from("/nonexistent-root"));
        let t = resolve(&config, Path::new("tmp/rspec_metadata/app_a.yml"));
        assert_eq!(t.path, PathBuf::from("tmp/rspec_metadata/app_a.yml"));
        assert_eq!(t.shown, "tmp/rspec_metadata/app_a.yml");
        let t = resolve(&config, Path::new("/nonexistent-root/app/models/a.rb"));
        assert_eq!(
            t.path,
            PathBuf::from("/nonexistent-root/tmp/rspec_metadata/app_models_a.yml")
        );
    }

    #[test]
    fn flag_beats_config_beats_detection() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::defaults(dir.path().to_path_buf());
        let mut options = Options {
            project_type: Some(ProjectType::Web),
            ..Options::default()
        };
        assert_eq!(
            project_type(&config, options.project_type, dir.path()).unwrap(),
            (ProjectType::Web, None)
        );
        options.project_type = None;
        config.project_type = Some("library".to_string());
        assert_eq!(
            project_type(&config, options.project_type, dir.path())
                .unwrap()
                .0,
            ProjectType::Library
        );
        config.project_type = Some("desktop".to_string());
        assert_eq!(
            project_type(&config, options.project_type, dir.path())
                .unwrap_err()
                .code(),
            "CONFIG_INVALID"
        );
        config.project_type = None;
        std::fs::write(dir.path().join("Gemfile"), "gem 'rails'\n").unwrap();
        assert_eq!(
            project_type(&config, options.project_type, dir.path()).unwrap(),
            (
                ProjectType::Rails,
                Some("project_type detected: rails (Gemfile has gem 'rails')".to_string())
            )
        );
    }
}
