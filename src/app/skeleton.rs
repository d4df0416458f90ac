//! `rspec-scout skeleton`: metadata → RSpec skeleton. Without `--stdout` it creates or
//! patches the spec file method by method (the pipeline's materialize step) and answers
//! with the JSON result. With `--stdout` it prints instead of writing: `--mode blocks`
//! and `outline` are the pipeline generator's output, `--mode full` the spec file exactly
//! as it would be written (helper `require`, the existing spec patched).
//! `--placeholders pending` writes placeholders as Ruby that runs (`spec::placeholders`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::metadata;
use crate::report::Answer;
use crate::ruby;
use crate::spec::materialize::{self, ConflictAction, ControllerState, Decision, HandWritten};
use crate::spec::patch::{self, Conflict, Existing, PatchError, PatchMode};
use crate::spec::source::{self, SpecText};
use crate::spec::{self, Mode};
use crate::vocab::{
    ControllerLayout, ControllerPolicy, LegacySpec, Placeholders, ProjectType, TestFrameworkChoice,
};
use crate::yaml::{Mapping, Value};

/// Options of `skeleton`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The metadata file (or a source file, whose metadata is located).
    pub metadata: PathBuf,
    /// With `--stdout` only (default `blocks` there).
    pub mode: Option<Mode>,
    /// Print the generated structure instead of writing the spec file.
    pub stdout: bool,
    /// Spec path overriding the metadata's `spec_path`.
    pub spec: Option<PathBuf>,
    /// Overrides the config.
    pub project_type: Option<ProjectType>,
    /// Overrides `rails.controllers.spec_policy`.
    pub controllers_policy: Option<ControllerPolicy>,
    /// The answer to a controller spec policy decision.
    pub controllers_choice: Option<ControllerLayout>,
    /// What to do with a legacy controller spec.
    pub controllers_legacy: Option<LegacySpec>,
    /// Write RSpec specs though the project tests with Minitest only.
    pub test_framework: Option<TestFrameworkChoice>,
    /// The test framework question was already settled for this run (a run over the plan
    /// asks it once, not per file).
    pub test_framework_settled: bool,
    /// `ask`, `overwrite` or `skip`: default for new methods whose block already exists.
    pub on_new_conflict: Option<ConflictAction>,
    /// `METHOD_ID=overwrite|skip|beside`, per method (split at the last `=`, so setters
    /// work).
    pub new_conflict: Vec<String>,
    /// Default for methods whose block is hand-written.
    pub on_hand_written: Option<ConflictAction>,
    /// `METHOD_ID=beside|overwrite|skip`, per method, for hand-written blocks.
    pub hand_written: Vec<String>,
    /// Only these method ids.
    pub only: Vec<String>,
    /// Shared-examples threshold (default 3, at least 2).
    pub shared_examples_threshold: Option<usize>,
    /// How placeholders are written.
    pub placeholders: Placeholders,
    /// Instead of `metadata`: every analyzed file of the last plan, or of every metadata
    /// file.
    pub batch: Option<Batch>,
    /// Where each phase of a batch is reported (nothing by default).
    pub progress: crate::report::OnPhase,
    /// How large the printed answer of a batch may be (default: whole).
    pub answer: crate::report::AnswerSize,
}

pub use super::over_plan::Batch;

/// The question to ask before writing RSpec specs into a project that tests with Minitest
/// and shows no sign of RSpec, unless it was answered: `--test-framework rspec` now (then
/// remembered in the plan record), earlier (the record), or by setting up the pipeline
/// (its `.claude/rspec-testing-config.yml` exists).
pub(crate) fn test_framework_question(
    config: &Config,
    options: &Options,
    root: &Path,
) -> Result<Option<Decision>> {
    if options.test_framework == Some(TestFrameworkChoice::Rspec) {
        metadata::plan::remember(
            root,
            &config.metadata_path,
            FRAMEWORK_DECISION,
            ".",
            TestFrameworkChoice::Rspec.as_str(),
        )?;
        return Ok(None);
    }
    if root.join(crate::config::PIPELINE_CONFIG_FILE).is_file() {
        return Ok(None);
    }
    let remembered = metadata::plan::read(root, &config.metadata_path)
        .ok()
        .flatten()
        .is_some_and(|r| r.answer(FRAMEWORK_DECISION, ".").is_some());
    if remembered {
        return Ok(None);
    }
    let found =
        crate::project::test_framework(&crate::project::ProjectFiles::read(root, &config.spec_dir));
    Ok(found
        .minitest_only()
        .then(|| materialize::test_framework_minitest(&found.minitest)))
}

/// The plan record's name for the answer to `test_framework` (about the project: `.`).
const FRAMEWORK_DECISION: &str = "test_framework";

/// The plan record's name for the answer to `controllers_legacy_cleanup`.
const LEGACY_DECISION: &str = "controllers_legacy_cleanup";

/// The answer of `skeleton --stdout` in YAML/JSON.
#[derive(Debug, Serialize)]
struct StructureAnswer {
    status: &'static str,
    mode: &'static str,
    /// With `--mode full`: the spec file the text would be written to.
    #[serde(skip_serializing_if = "Option::is_none")]
    spec_path: Option<String>,
    class_name: String,
    methods: Vec<String>,
    structure: String,
}

/// The result of writing a spec (the pipeline's materialize JSON).
#[derive(Debug, Serialize)]
struct WriteAnswer {
    status: &'static str,
    spec_path: String,
    created: bool,
    created_by: Option<&'static str>,
    /// Always null: the Rails generator is never run.
    rails_generator: Option<String>,
    deleted_legacy_controller_spec: Option<String>,
    operations: Vec<OperationAnswer>,
    outline: String,
    /// What the person should know about the file written (a helper it requires that does
    /// not exist; a hand-written spec that no longer loads until placeholders are filled).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
struct OperationAnswer {
    method_id: String,
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    status: &'static str,
}

#[derive(Debug, Serialize)]
struct DecisionAnswer {
    status: &'static str,
    decisions: Vec<Decision>,
}

/// Runs the command.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    if let Some(batch) = options.batch {
        return run_over_plan(config, options, batch);
    }
    let threshold = options
        .shared_examples_threshold
        .unwrap_or(spec::shared::DEFAULT_THRESHOLD);
    if threshold < 2 {
        return Err(usage("--shared-examples-threshold must be >= 2"));
    }
    if options.mode.is_some() && !options.stdout {
        return Err(usage(
            "--mode only applies with --stdout (without it the spec file is patched with method blocks)",
        ));
    }
    let (metadata_path, project_root) = resolve_metadata(config, &options.metadata)?;
    let map = metadata::load(&metadata_path)?.ok_or_else(|| Error::MetadataNotFound {
        path: metadata_path.clone(),
    })?;
    if let Some(reason) = metadata::analysis_skip(&map) {
        // Nothing was analyzed: no spec to write (`skeleton` without METADATA skips these
        // files the same way).
        let cwd = std::env::current_dir()
            .map(|d| crate::index::walk::absolute(&d))
            .unwrap_or_default();
        let shown = crate::index::walk::relative_to(&cwd, &metadata_path)
            .unwrap_or_else(|| metadata_path.display().to_string());
        return Ok(super::analysis_skipped(&shown, reason));
    }
    // An analysis made for another selection (the plan changed since) would write blocks
    // for methods the plan does not ask for.
    if let Some(reason) = metadata::fields::selection_changed(&map) {
        return Err(Error::AnalysisStale {
            path: metadata_path.clone(),
            reason,
        });
    }
    let mode = options.mode.unwrap_or_default();
    if !options.stdout && !options.test_framework_settled {
        if let Some(decision) = test_framework_question(config, options, &project_root)? {
            return Ok(needs_decision(vec![decision]));
        }
    }
    if options.stdout && mode != Mode::Full {
        let requests = stdout_requests(config, options, &project_root, &map);
        return structure(
            &metadata_path,
            &map,
            mode,
            threshold,
            options,
            requests.as_ref(),
        );
    }
    Write {
        config,
        options,
        metadata_path: &metadata_path,
        root: &project_root,
        map: &map,
        threshold,
        dry_run: options.stdout,
    }
    .run()
}

/// `skeleton` without METADATA: every analyzed file of the plan, each as `skeleton
/// METADATA` writes it. The Minitest question is asked once, before any file is written.
fn run_over_plan(config: &Config, options: &Options, batch: Batch) -> Result<Answer> {
    use super::over_plan::{self, Command, Outcome, Run};
    let found = over_plan::files(config, batch)?;
    if let Some(decision) = test_framework_question(config, options, &config.root)? {
        return Ok(needs_decision(vec![decision]));
    }
    let done_text = |answer: &Value| {
        let spec = answer
            .get("spec_path")
            .and_then(Value::as_str)
            .unwrap_or("");
        let created = answer.get("created").and_then(Value::as_bool) == Some(true);
        format!("{} {spec}", if created { "created" } else { "patched" })
    };
    let command = Command {
        name: "skeleton",
        done_key: "written",
        done_text: &done_text,
        done_words: ("spec", "written"),
    };
    let how = Run {
        batch,
        progress: &options.progress,
        answer: options.answer,
    };
    over_plan::run(config, &command, &how, found, |path, map| {
        // The same skip, in the same words, as `skeleton METADATA`.
        if let Some(reason) = metadata::analysis_skip(map) {
            return Outcome::Skip(reason);
        }
        let single = Options {
            metadata: path,
            batch: None,
            test_framework_settled: true,
            ..options.clone()
        };
        Outcome::Ran(run(config, &single))
    })
}

fn usage(message: &str) -> Error {
    Error::Usage {
        message: message.to_string(),
    }
}

/// The metadata file and the project root its paths are relative to. A `.rb` argument is a
/// source file whose metadata is located; anything else is the metadata file itself, and
/// its project is its git root when that lies inside the configured root.
fn resolve_metadata(config: &Config, arg: &Path) -> Result<(PathBuf, PathBuf)> {
    if arg.extension().is_some_and(|e| e == "rb") {
        if !arg.exists() {
            return Err(Error::SourceNotFound {
                path: arg.to_path_buf(),
            });
        }
        let location = config.locate(arg);
        return Ok((location.path, location.project_root));
    }
    let abs = crate::index::walk::absolute(arg);
    let root = crate::git::root_of(&abs)
        .filter(|r| r.starts_with(&config.root) && abs.starts_with(r))
        .unwrap_or_else(|| config.root.clone());
    Ok((arg.to_path_buf(), root))
}

/// The routes a Rails controller's request spec is written from, for `--stdout --mode
/// blocks|outline` (which ask no question): a controller of a Rails project whose specs
/// are request specs (`--controllers-choice`, else the policy; `ask` writes request specs
/// unless answered otherwise). `None` otherwise: the methods keep the unit form.
fn stdout_requests(
    config: &Config,
    options: &Options,
    root: &Path,
    map: &Mapping,
) -> Option<spec::Requests> {
    let source_file = map.get("source_file").map(ruby::to_s).unwrap_or_default();
    materialize::controller_paths(&source_file)?;
    let (project_type, _) =
        super::test_config::project_type(config, options.project_type, root).ok()?;
    let policy = options
        .controllers_policy
        .or_else(|| (config.controllers_spec_policy.as_deref()).and_then(ControllerPolicy::parse))
        .unwrap_or(ControllerPolicy::Request);
    let layout = options.controllers_choice.unwrap_or(policy.layout());
    let class_name = map.get("class_name").map(ruby::to_s).unwrap_or_default();
    (project_type == ProjectType::Rails && layout == ControllerLayout::Request)
        .then(|| spec::Requests::load(root, &source_file, &class_name))
}

/// `--stdout --mode blocks|outline`: the generator's text.
fn structure(
    path: &Path,
    map: &Mapping,
    mode: Mode,
    threshold: usize,
    options: &Options,
    requests: Option<&spec::Requests>,
) -> Result<Answer> {
    let only = &options.only;
    let invalid = |reason: String| Error::MetadataInvalid {
        path: path.to_path_buf(),
        reason,
    };
    let pending = options.placeholders == Placeholders::Pending;
    let mut text =
        spec::generate_with(map, mode, threshold, only, requests, pending).map_err(invalid)?;
    if options.placeholders == Placeholders::Pending {
        text = spec::placeholders::pending_text(&text);
    }
    let meta = spec::model::read(map).map_err(invalid)?;
    let methods = meta
        .methods
        .iter()
        .map(|m| m.method_id(&meta.class_name))
        .filter(|id| only.is_empty() || only.contains(id))
        .collect();
    let answer = StructureAnswer {
        status: "success",
        mode: mode.as_str(),
        spec_path: None,
        class_name: meta.class_name,
        methods,
        structure: format!("{text}\n"),
    };
    Ok(Answer::new(&answer, format!("{text}\n"), 0))
}

/// Creating or patching the spec file.
struct Write<'a> {
    config: &'a Config,
    options: &'a Options,
    metadata_path: &'a Path,
    root: &'a Path,
    map: &'a Mapping,
    threshold: usize,
    /// `--stdout --mode full`: answer with the text that would be written, write nothing.
    dry_run: bool,
}

/// A selected method.
struct Selected {
    method_id: String,
    /// Its class: the file's, or another class of the file (its own example group).
    class: String,
    descriptor: String,
    new: bool,
    /// `method_mode` as the metadata gives it.
    mode: String,
}

/// The answers the flags give to conflicts with blocks already in the spec.
struct Actions {
    /// `--on-new-conflict`.
    on_new: ConflictAction,
    /// `--new-conflict`, per method.
    new: Vec<(String, ConflictAction)>,
    /// `--on-hand-written`.
    on_hand: ConflictAction,
    /// `--hand-written`, per method.
    hand: Vec<(String, ConflictAction)>,
}

impl Actions {
    fn read(options: &Options) -> Result<Self> {
        let on_new = match options.on_new_conflict {
            None => ConflictAction::Ask,
            Some(ConflictAction::Beside) => {
                return Err(usage(
                    "--on-new-conflict must be one of: ask, overwrite, skip",
                ))
            }
            Some(a) => a,
        };
        let on_hand = options.on_hand_written.unwrap_or(ConflictAction::Ask);
        Ok(Actions {
            on_new,
            new: materialize::parse_new_conflicts(&options.new_conflict).map_err(|m| usage(&m))?,
            on_hand,
            hand: materialize::parse_hand_written(&options.hand_written).map_err(|m| usage(&m))?,
        })
    }

    fn lookup(list: &[(String, ConflictAction)], id: &str) -> Option<ConflictAction> {
        list.iter().find(|(m, _)| m == id).map(|(_, a)| *a)
    }

    /// For a generated (marked) block: only new methods ask (the contract upserts the
    /// others): `--new-conflict`, else `--on-new-conflict`.
    fn for_marked(&self, method: &Selected) -> ConflictAction {
        Self::lookup(&self.new, &method.method_id).unwrap_or(self.on_new)
    }

    /// For a hand-written block, whatever the mode: `--hand-written`, else (new methods)
    /// `--new-conflict`, else `--on-hand-written`, else (new methods) `--on-new-conflict`.
    fn for_hand_written(&self, method: &Selected) -> ConflictAction {
        let id = &method.method_id;
        let given = |a: ConflictAction| Some(a).filter(|a| *a != ConflictAction::Ask);
        Self::lookup(&self.hand, id)
            .or_else(|| Self::lookup(&self.new, id).filter(|_| method.new))
            .or_else(|| given(self.on_hand))
            .or_else(|| given(self.on_new).filter(|_| method.new))
            .unwrap_or(ConflictAction::Ask)
    }

    /// The decision to ask about a method's existing block, if its action is `ask`; an
    /// error when `beside` was asked for a generated block.
    fn decision(
        &self,
        spec_rel: &str,
        method: &Selected,
        block: &Found,
    ) -> Option<Result<Decision>> {
        match &block.hand {
            // A block with the pipeline's markers is the pipeline's own: never a question
            // (regenerated while untouched, kept once an expectation is written).
            None => match self.for_marked(method) {
                ConflictAction::Beside => Some(Err(usage(&format!(
                    "beside applies only to hand-written blocks: the block of {} has rspec-testing markers (choose overwrite or skip)",
                    method.method_id
                )))),
                _ => None,
            },
            Some(hand) => match self.for_hand_written(method) {
                ConflictAction::Ask if method.new => Some(Ok(materialize::new_method_conflict(
                    spec_rel,
                    &method.method_id,
                    "describe",
                    Some(hand),
                ))),
                ConflictAction::Ask => Some(Ok(materialize::hand_written_block(
                    spec_rel,
                    &method.method_id,
                    &method.mode,
                    hand,
                ))),
                _ => None,
            },
        }
    }
}

fn conflict_of(action: ConflictAction) -> Conflict {
    match action {
        ConflictAction::Ask => Conflict::Error,
        ConflictAction::Overwrite => Conflict::Overwrite,
        ConflictAction::Skip => Conflict::Skip,
        ConflictAction::Beside => Conflict::Beside,
    }
}

/// A selected method's block found in the spec: generated (`hand: None`) or hand-written.
struct Found {
    hand: Option<HandWritten>,
    /// Some example of a generated block has its expectation written: the block holds
    /// work that regenerating it would lose.
    filled: bool,
}

impl Write<'_> {
    fn invalid(&self, reason: impl Into<String>) -> Error {
        Error::MetadataInvalid {
            path: self.metadata_path.to_path_buf(),
            reason: reason.into(),
        }
    }

    fn spec_error(&self, path: &Path, message: String) -> Error {
        Error::Spec {
            message,
            path: path.to_path_buf(),
        }
    }

    /// A Rails controller's spec paths and layout: the choice, else the policy; the
    /// decision to ask when the policy is `ask` and a legacy controller spec exists. `None`
    /// for a file that is not a controller.
    fn controller(
        &self,
        source_file: &str,
        policy: ControllerPolicy,
    ) -> std::result::Result<Option<(ControllerState, ControllerLayout)>, Box<Decision>> {
        let Some(paths) = materialize::controller_paths(source_file) else {
            return Ok(None);
        };
        let state = ControllerState {
            preferred_exists: self.root.join(&paths.preferred).exists(),
            legacy_exists: self.root.join(&paths.legacy).exists(),
            paths,
        };
        if policy == ControllerPolicy::Ask
            && self.options.controllers_choice.is_none()
            && state.legacy_exists
        {
            return Err(Box::new(if state.preferred_exists {
                materialize::controllers_dual_specs(source_file, &state)
            } else {
                materialize::controllers_spec_policy(source_file, &state)
            }));
        }
        let layout = self.options.controllers_choice.unwrap_or(policy.layout());
        Ok(Some((state, layout)))
    }

    fn run(&self) -> Result<Answer> {
        let options = self.options;
        let text_of = |key: &str| self.map.get(key).map(ruby::to_s).unwrap_or_default();
        let source_file = text_of("source_file");
        let class_name = text_of("class_name");
        let mut spec_rel = match &options.spec {
            Some(p) => {
                let abs = crate::index::walk::absolute(p);
                crate::index::walk::relative_to(self.root, &abs)
                    .unwrap_or_else(|| p.to_string_lossy().into_owned())
            }
            None => text_of("spec_path"),
        };
        // Printing needs no path: without one, the text is the spec as it would be created.
        // Analyzed without a plan (what `analyze` alone writes: its analysis and inputs,
        // none of discovery's fields): say which step is missing, not that the file is
        // broken. A file cut short or hand-edited stays invalid.
        let analyzed_only = self.map.get("analysis_inputs").is_some()
            && self.map.get("methods_to_analyze").is_none()
            && self.map.get("spec_path").is_none();
        if analyzed_only && !ruby::blank(&source_file) && options.spec.is_none() && !self.dry_run {
            return Err(Error::NotDiscovered {
                path: self.metadata_path.to_path_buf(),
                source_file: source_file.clone(),
            });
        }
        if (ruby::blank(&source_file) || ruby::blank(&spec_rel)) && !self.dry_run {
            return Err(self.invalid("metadata must include source_file and spec_path"));
        }
        if ruby::blank(&class_name) {
            return Err(self.invalid("metadata must include class_name"));
        }
        // The original stops when no project type is configured; like `test-config`, the
        // flag wins, then the configuration, then detection at the project root.
        let (project_type, _) =
            super::test_config::project_type(self.config, options.project_type, self.root)?;
        // A policy the config misspells writes request specs, as `request` does.
        let policy = options
            .controllers_policy
            .or_else(|| {
                (self.config.controllers_spec_policy.as_deref()).and_then(ControllerPolicy::parse)
            })
            .unwrap_or(ControllerPolicy::Request);
        let actions = Actions::read(options)?;
        // Rails controllers: request or legacy controller spec.
        let controller = if project_type == ProjectType::Rails {
            match self.controller(&source_file, policy) {
                Ok(found) => found,
                Err(decision) => return Ok(needs_decision(vec![*decision])),
            }
        } else {
            None
        };
        if let Some((state, layout)) = &controller {
            spec_rel = if *layout == ControllerLayout::Controller && state.legacy_exists {
                state.paths.legacy.clone()
            } else {
                state.paths.preferred.clone()
            };
        }
        let spec_abs = self.root.join(&spec_rel);
        // A request spec's methods make the request the app's routes give them.
        let requests = matches!(&controller, Some((_, ControllerLayout::Request)))
            .then(|| spec::Requests::load(self.root, &source_file, &class_name));

        let selected = self.selected(&class_name)?;
        // The guard clears the spec before it is read: a `*_spec.rb` file under the spec
        // folder, inside the root once links are resolved, never under .git. Printing
        // (`--stdout --mode full`) writes nothing but reads the same file, so it is checked
        // the same way.
        let spec_target = if ruby::blank(&spec_rel) {
            None
        } else {
            Some(crate::guard::spec_file(
                &self.config.root,
                &spec_abs,
                &self.config.spec_dir,
            )?)
        };

        // Every decision is asked before any file is touched.
        let mut decisions = Vec::new();
        let existing = match &spec_target {
            None => None,
            Some(target) => read_spec(target.path()).map_err(|m| self.spec_error(&spec_abs, m))?,
        };
        // The legacy controller spec: the answer given now, else the one the plan record
        // remembers; what deleting it would lose decides what is offered.
        let remembered = metadata::plan::read(self.root, &self.config.metadata_path)
            .ok()
            .flatten()
            .and_then(|r| r.answer(LEGACY_DECISION, &source_file).map(str::to_string))
            .and_then(|a| LegacySpec::parse(&a));
        let legacy_choice = options.controllers_legacy.or(remembered);
        let mut legacy_target = None;
        if let Some((state, mode)) = &controller {
            if *mode == ControllerLayout::Request
                && state.legacy_exists
                && legacy_choice != Some(LegacySpec::Keep)
            {
                let legacy_abs = self.root.join(&state.paths.legacy);
                let target =
                    crate::guard::spec_file(&self.config.root, &legacy_abs, &self.config.spec_dir)?;
                let legacy_text = read_spec(target.path())
                    .map_err(|m| self.spec_error(&legacy_abs, m))?
                    .unwrap_or_else(|| SpecText::from_text(""));
                let loss = materialize::legacy_loss(&legacy_text, existing.as_ref())
                    .map_err(|m| self.spec_error(&legacy_abs, m))?;
                match legacy_choice {
                    None => decisions.push(materialize::controllers_legacy_cleanup(
                        &source_file,
                        state,
                        &loss,
                    )),
                    Some(_) if !loss.nothing_lost() => {
                        return Err(self.spec_error(
                            &legacy_abs,
                            format!(
                                "refusing to delete {}: {} of its {} examples have no counterpart in {} ({}); move them there first, or keep it with --controllers-legacy=keep",
                                state.paths.legacy,
                                loss.without_counterpart.len(),
                                loss.examples,
                                state.paths.preferred,
                                loss.without_counterpart.join("; ")
                            ),
                        ));
                    }
                    Some(_) => legacy_target = Some(target),
                }
            }
        }
        let mut filled_blocks: Vec<String> = Vec::new();
        if let Some(text) = &existing {
            let found = existing_blocks(text, &selected).map_err(|m| {
                self.spec_error(&spec_abs, format!("cannot_scan_spec_for_conflicts: {m}"))
            })?;
            filled_blocks = found
                .iter()
                .filter(|(_, b)| b.hand.is_none() && b.filled)
                .map(|(m, _)| m.method_id.clone())
                .collect();
            for (method, block) in &found {
                if let Some(decision) = actions.decision(&spec_rel, method, block) {
                    decisions.push(decision?);
                }
            }
        }
        if !decisions.is_empty() {
            return Ok(needs_decision(decisions));
        }

        let mut warnings = Vec::new();
        let (mut text, created_by) = match existing {
            Some(text) => (text, None),
            None => {
                let helper = self.config.rspec_helper.clone().unwrap_or_else(|| {
                    if project_type == ProjectType::Rails {
                        "rails_helper"
                    } else {
                        "spec_helper"
                    }
                    .to_string()
                });
                let helper_file = format!("{}/{helper}.rb", self.config.spec_dir);
                if !crate::ruby::blank(&helper) && !self.root.join(&helper_file).is_file() {
                    let how = if helper == "rails_helper" {
                        "`bin/rails generate rspec:install` writes it"
                    } else {
                        "`bundle exec rspec --init` writes spec/spec_helper.rb"
                    };
                    warnings.push(format!(
                        "{helper_file} does not exist: the new spec requires it ({how}; or set rspec.helper in .claude/rspec-testing-config.yml)"
                    ));
                }
                // A request spec says so: `type: :request` whatever the file's place.
                // The group of the file's class, or, when only other classes of the file
                // have methods (`module Storage` holding `Local` and `Remote`), the first
                // of them; each other class gets its group when its first block goes in.
                let first = if selected.iter().any(|m| m.class == class_name) {
                    class_name.clone()
                } else {
                    selected
                        .first()
                        .map_or_else(|| class_name.clone(), |m| m.class.clone())
                };
                let described = if requests.is_some() {
                    format!("{first}, type: :request")
                } else {
                    first
                };
                (
                    SpecText::from_text(&materialize::wrapper(&helper, &described)),
                    Some("manual_wrapper"),
                )
            }
        };
        let original = text.clone();

        let meta = spec::model::read(self.map)
            .map_err(|m| self.invalid(format!("cannot_generate_blocks: {m}")))?;
        let pending = options.placeholders == Placeholders::Pending;
        let mut sources = spec::source_blocks(&meta, self.threshold, requests.as_ref(), pending)
            .map_err(|m| self.invalid(format!("cannot_generate_blocks: {m}")))?;
        if options.placeholders == Placeholders::Pending {
            for source in &mut sources {
                source.lines = spec::placeholders::pending(&source.lines);
            }
        }

        let mut operations = Vec::new();
        for method in &selected {
            let only = [method.method_id.clone()];
            // A new method's generated block, unanswered: regenerated while untouched,
            // kept once an expectation is written.
            let marked = match actions.for_marked(method) {
                ConflictAction::Ask => {
                    if filled_blocks.contains(&method.method_id) {
                        ConflictAction::Skip
                    } else {
                        ConflictAction::Overwrite
                    }
                }
                given => given,
            };
            let request = patch::Request {
                mode: if method.new {
                    PatchMode::Insert
                } else {
                    PatchMode::Upsert
                },
                conflict: conflict_of(marked),
                hand_written: conflict_of(actions.for_hand_written(method)),
                only: &only,
                class_name: Some(&method.class),
                own_group: method.class != class_name,
            };
            let (patched, ops) = patch::apply(&text, &sources, request).map_err(|e| {
                let code = match e {
                    PatchError::Conflict(_) => "unexpected_conflict_after_decisions",
                    PatchError::Apply(_) => "patch_failed",
                };
                self.spec_error(&spec_abs, format!("{code}: {e}"))
            })?;
            text = patched;
            let unasked = actions.for_marked(method) == ConflictAction::Ask;
            operations.extend(ops.into_iter().map(|mut op| {
                op.reason = match op.reason {
                    Some("conflict_skip") if unasked => Some("generated_block_filled"),
                    Some("conflict_overwrite") if unasked => Some("generated_block_untouched"),
                    other => other,
                };
                op
            }));
        }

        if self.dry_run {
            let bytes = text.to_bytes();
            let structure = String::from_utf8_lossy(&bytes).into_owned();
            let answer = StructureAnswer {
                status: "success",
                mode: Mode::Full.as_str(),
                spec_path: Some(spec_rel).filter(|p| !ruby::blank(p)),
                class_name,
                methods: selected.iter().map(|m| m.method_id.clone()).collect(),
                structure: structure.clone(),
            };
            return Ok(Answer::new(&answer, structure, 0));
        }
        let changed = created_by.is_some() || text != original;
        if changed {
            let Some(target) = &spec_target else {
                return Err(self.invalid("metadata must include source_file and spec_path"));
            };
            metadata::write_text_atomic(target, &text.to_bytes())?;
        }

        let mut deleted = None;
        if let (Some((state, _)), Some(target)) = (&controller, &legacy_target) {
            if state.paths.legacy != spec_rel {
                metadata::remove(target)?;
                deleted = Some(state.paths.legacy.clone());
            }
        }
        // An answer given now is remembered, so the question is not asked again.
        if let (Some(choice), Some(_)) = (options.controllers_legacy, &controller) {
            metadata::plan::remember(
                self.root,
                &self.config.metadata_path,
                LEGACY_DECISION,
                &source_file,
                choice.as_str(),
            )?;
        }

        let ids: Vec<String> = selected.iter().map(|m| m.method_id.clone()).collect();
        let outline = spec::outline::outline(&text, &ids)
            .unwrap_or_else(|e| format!("Error: Cannot outline spec: {e}"));
        // The pipeline's placeholders are not Ruby: a spec a person wrote no longer loads
        // (its own examples included) until the spec-writer fills them.
        if created_by.is_none()
            && changed
            && options.placeholders == Placeholders::Pipeline
            && !crate::metadata::validate::placeholders(&String::from_utf8_lossy(&text.to_bytes()))
                .is_empty()
        {
            let hand = materialize::hand_written_examples(&original).unwrap_or(0);
            if hand > 0 {
                warnings.push(format!(
                    "{spec_rel} holds {hand} hand-written example{} and now the pipeline's placeholders ({{EXPECTATION}}, ...): it does not load until they are filled; `--placeholders pending` writes Ruby that runs instead",
                    if hand == 1 { "" } else { "s" }
                ));
            }
        }
        let answer = WriteAnswer {
            warnings,
            status: "success",
            spec_path: spec_rel,
            created: created_by.is_some(),
            created_by,
            rails_generator: None,
            deleted_legacy_controller_spec: deleted,
            operations: operations
                .into_iter()
                .map(|o| OperationAnswer {
                    method_id: o.method_id,
                    action: o.action,
                    reason: o.reason,
                    status: o.status,
                })
                .collect(),
            outline,
        };
        let text = write_text(&answer, changed);
        Ok(Answer::new(&answer, text, 0))
    }

    /// The ids of the Hash entries of `methods[]`, narrowed by `--only`.
    fn selected(&self, class_name: &str) -> Result<Vec<Selected>> {
        let methods = match self.map.get("methods") {
            Some(Value::Sequence(items)) if !items.is_empty() => items,
            _ => return Err(self.invalid("metadata must include methods[]")),
        };
        let mut out = Vec::new();
        for m in methods {
            let Value::Mapping(m) = m else {
                continue;
            };
            let field = |k: &str| m.get(k).map(ruby::to_s).unwrap_or_default();
            let (name, kind) = (field("name"), field("type"));
            if ruby::blank(&name) || ruby::blank(&kind) {
                return Err(self.invalid("Method missing name/type"));
            }
            let class = m.get("type").and_then(ruby::str) == Some("class");
            // A method of another class of the file (`class_name`, an added field).
            let owner = m
                .get("class_name")
                .and_then(ruby::str)
                .filter(|c| !ruby::blank(c))
                .unwrap_or(class_name)
                .to_string();
            let method_id = if class {
                format!("{owner}.{name}")
            } else {
                format!("{owner}#{name}")
            };
            if !self.options.only.is_empty() && !self.options.only.contains(&method_id) {
                continue;
            }
            let mode = field("method_mode");
            out.push(Selected {
                method_id,
                class: owner,
                descriptor: if class {
                    format!(".{name}")
                } else {
                    format!("#{name}")
                },
                new: mode == "new",
                mode,
            });
        }
        Ok(out)
    }
}

/// The spec file's text, `None` when it does not exist.
fn read_spec(path: &Path) -> std::result::Result<Option<SpecText>, String> {
    match std::fs::read(path) {
        Ok(bytes) => SpecText::from_bytes(&bytes).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read spec: {e}")),
    }
}

/// The selected methods whose block is already in the spec, in selection order: marker
/// blocks are generated, `describe` blocks without markers hand-written (with their line
/// ranges and examples, for the question).
fn existing_blocks<'a>(
    text: &SpecText,
    selected: &'a [Selected],
) -> std::result::Result<Vec<(&'a Selected, Found)>, String> {
    let blocks = source::parse(text)?;
    let wanted: Vec<(String, String)> = selected
        .iter()
        .map(|m| (m.method_id.clone(), m.descriptor.clone()))
        .collect();
    let existing = patch::existing_blocks(text, &blocks, &wanted)?;
    let mut out = Vec::new();
    for method in selected {
        let found = match existing.get(&method.method_id) {
            None => continue,
            Some(Existing::Marked(b)) => {
                // Untouched: every example of the block still waits for its expectation.
                let lines = b.open..=b.close;
                let examples = blocks
                    .calls
                    .iter()
                    .filter(|c| c.is_example())
                    .filter(|c| {
                        lines.contains(&usize::try_from(c.line).unwrap_or(1).saturating_sub(1))
                    })
                    .count();
                let waiting = lines
                    .clone()
                    .filter(|&i| {
                        let l = text.line(i).trim();
                        l == crate::spec::render::EXPECTATION
                            || l == format!(
                                "skip '{}'",
                                crate::spec::placeholders::EXPECTATION_REASON
                            )
                    })
                    .count();
                Found {
                    hand: None,
                    filled: waiting < examples,
                }
            }
            Some(Existing::HandWritten(list)) => {
                let examples = list
                    .iter()
                    .map(|b| {
                        blocks
                            .calls
                            .iter()
                            .filter(|c| c.is_example())
                            .filter(|c| {
                                let line = usize::try_from(c.line).unwrap_or(0);
                                line > b.open + 1 && line <= b.close + 1
                            })
                            .count()
                    })
                    .sum();
                Found {
                    filled: true,
                    hand: Some(HandWritten {
                        lines: list
                            .iter()
                            .map(|b| format!("{}-{}", b.open + 1, b.close + 1))
                            .collect(),
                        examples,
                    }),
                }
            }
        };
        out.push((method, found));
    }
    Ok(out)
}

pub(crate) fn needs_decision(decisions: Vec<Decision>) -> Answer {
    let mut text = String::from("needs_decision\n");
    for d in &decisions {
        text.push_str(&format!("\n{} ({})\n", d.title, d.decision));
        for line in d.question.lines() {
            text.push_str(&format!("  {line}\n"));
        }
        for c in &d.choices {
            text.push_str(&format!("  {}  {}\n", c.flag, c.label));
        }
    }
    let answer = DecisionAnswer {
        status: "needs_decision",
        decisions,
    };
    Answer::new(&answer, text, 2)
}

fn write_text(answer: &WriteAnswer, changed: bool) -> String {
    let mut text = match answer.created_by {
        Some(by) => format!("{}: created ({by})\n", answer.spec_path),
        None if changed => format!("{}: updated\n", answer.spec_path),
        None => format!("{}: unchanged\n", answer.spec_path),
    };
    for op in &answer.operations {
        match op.reason {
            Some(reason) => text.push_str(&format!("{}: {} ({reason})\n", op.status, op.method_id)),
            None => text.push_str(&format!("{}: {}\n", op.status, op.method_id)),
        }
    }
    if let Some(deleted) = &answer.deleted_legacy_controller_spec {
        text.push_str(&format!("deleted: {deleted}\n"));
    }
    for w in &answer.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    text.push('\n');
    text.push_str(&answer.outline);
    text.push('\n');
    text
}
