//! `rspec-scout mcp`: the commands as Model Context Protocol tools, for agent harnesses.
//!
//! [`Server`] is the session without the protocol: a tool name and JSON arguments in, the
//! command's JSON answer out (`stdio.rs` speaks MCP over stdin/stdout around it, with the
//! `rmcp` crate, behind the `mcp` cargo feature). Every tool runs the command's own
//! `app::*::run` with the options its flags would give, so each answers the same JSON as
//! the command line; what the server adds:
//!
//! - a warm index ([`warm::Index`]) that the commands read facts, file lists and git's
//!   changes from, so a call re-reads only what changed since the last one;
//! - paths confined to the project root ([`paths`]);
//! - paging of large answers ([`page`]);
//! - `references` ([`references`]), which no command has;
//! - errors as data: a failed call is a tool error with `error_code`, `suggestion` and
//!   `recoverable`; bad arguments are refused with what the schema expects; a panic in a
//!   command is caught and reported, and the session goes on.
//!
//! The server runs in the project root (`serve` changes to it), so relative paths mean
//! what they mean to the CLI run there; it writes only where those commands write.

pub mod page;
pub(crate) mod paths;
pub(crate) mod references;
#[cfg(feature = "mcp")]
mod stdio;
pub mod tools;
pub mod warm;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::app;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::{Answer, Format};

pub use tools::Tool;

/// What a tool call gives back: the answer as JSON text, and whether it is an error.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The answer (compact JSON).
    pub text: String,
    /// `status: error`: the call failed (the session goes on).
    pub is_error: bool,
}

/// What the protocol side gives a call besides its arguments: a flag the client's
/// `notifications/cancelled` (or a closed stdin) sets, and where the progress of the
/// command's phases goes.
#[derive(Clone, Default)]
pub struct Control {
    /// Set when the call is cancelled: the command stops at its next step that only
    /// reads (a file parsed, a method analyzed); a write under way finishes (each metadata
    /// or spec file is written whole or not at all).
    pub cancelled: Arc<std::sync::atomic::AtomicBool>,
    /// Receives `(phase, done, total)` as the command's phases move on.
    pub progress: Option<Arc<ProgressFn>>,
}

/// Where the progress of a call goes.
pub type ProgressFn = dyn Fn(&str, usize, usize) + Send + Sync;

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("cancelled", &self.cancelled)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// The payload a cancelled call unwinds with (never a panic message: `resume_unwind`
/// does not run the panic hook).
struct Cancelled;

/// Phases that write: a cancellation waits for them to end, so a file is never left half
/// done and the metadata of one run is never half of it.
const WRITING_PHASES: &[&str] = &["metadata", "skeleton", "test-config"];

impl Control {
    /// The call is cancelled: unwind to [`Server::call_with`].
    fn check(&self) {
        if self.cancelled.load(std::sync::atomic::Ordering::Relaxed) {
            std::panic::resume_unwind(Box::new(Cancelled));
        }
    }

    /// The progress reporter the commands take: reports each step and stops a cancelled
    /// call at the next step of a phase that only reads.
    fn on_phase(&self) -> crate::report::OnPhase {
        let control = self.clone();
        crate::report::OnPhase::new(move |event| {
            use crate::report::PhaseEvent;
            let (phase, done, total) = match *event {
                PhaseEvent::Start { phase, total } => (phase, 0, total),
                PhaseEvent::Advance { phase, done, total } => (phase, done, total),
                // Never unwind from a phase's end: it runs while a phase guard drops.
                PhaseEvent::Finish { .. } => return,
            };
            if !WRITING_PHASES.contains(&phase) {
                control.check();
            }
            if let Some(progress) = &control.progress {
                progress(phase, done, total);
            }
        })
    }
}

/// One session over one project.
pub struct Server {
    root: PathBuf,
    explicit_config: Option<PathBuf>,
    threads: Option<usize>,
    warm: Arc<warm::Index>,
    cache: app::Cache,
    last_scope: Option<crate::index::walk::ScopeRules>,
    snapshots: HashMap<&'static str, page::Snapshot>,
    next_snapshot: u64,
    budget: usize,
    /// The page size of the call under way (`max_bytes`, else `budget`).
    call_budget: usize,
    control: Control,
    /// Why the root is not a Ruby project, when it is not: every call says so instead of
    /// scanning a home folder or the whole disk.
    not_ruby: Option<String>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("root", &self.root).finish()
    }
}

/// Serves the tools over stdin/stdout until the client closes stdin.
/// `explicit_config` is `--config`; `facts_cache` starts the session from the facts cache
/// on disk and keeps it written (off with `--no-cache`).
pub fn serve(config: Config, explicit_config: Option<PathBuf>, facts_cache: bool) -> Result<()> {
    #[cfg(feature = "mcp")]
    {
        std::env::set_current_dir(&config.root).map_err(|e| Error::Unreadable {
            path: config.root.clone(),
            reason: e.to_string(),
        })?;
        let server = if facts_cache {
            Server::with_facts_cache(config)?
        } else {
            Server::new(config)?
        };
        stdio::serve(server.with_config_file(explicit_config))
    }
    #[cfg(not(feature = "mcp"))]
    {
        let _ = (config, explicit_config, facts_cache);
        Err(Error::Usage {
            message: "this rspec-scout was built without the MCP server; build it with `cargo install --path . --features mcp` (or `cargo run --release --features mcp -- mcp`)".to_string(),
        })
    }
}

impl Server {
    /// A session over `config.root` (the configuration is read again at each call, as each
    /// command line run reads it). Relative paths are taken from the current directory:
    /// run it from the root ([`serve`] does).
    pub fn new(config: Config) -> Result<Server> {
        Server::start(config, false)
    }

    /// [`Server::new`], starting from the facts cache on disk
    /// (`{metadata_path}/rspec_scout/facts.bin`, as the command line keeps it) and writing
    /// what the session learns back to it after each call that learnt something.
    pub fn with_facts_cache(config: Config) -> Result<Server> {
        Server::start(config, true)
    }

    fn start(config: Config, facts_cache: bool) -> Result<Server> {
        let root = std::fs::canonicalize(&config.root).map_err(|e| Error::Unreadable {
            path: config.root.clone(),
            reason: e.to_string(),
        })?;
        let skip = vec![config.metadata_dir(&root)];
        let not_ruby = not_a_ruby_project(&root);
        let mut index = warm::Index::new(root.clone(), skip);
        // Outside a Ruby project nothing is scanned, so nothing is cached either.
        if facts_cache && not_ruby.is_none() {
            let dir = crate::metadata::plan::state_dir(&root, &config.metadata_path);
            index = index.with_disk(Arc::new(crate::index::cache::FactsCache::open(&root, &dir)));
        }
        let warm = Arc::new(index);
        Ok(Server {
            root,
            explicit_config: None,
            threads: Some(config.threads).filter(|&t| t != 0),
            cache: app::Cache::new(Arc::clone(&warm) as Arc<dyn app::Warm>),
            warm,
            last_scope: None,
            snapshots: HashMap::new(),
            next_snapshot: 1,
            budget: page::PAGE_BYTES,
            call_budget: page::PAGE_BYTES,
            control: Control::default(),
            not_ruby,
        })
    }

    /// Reads the configuration from `path` instead of the root's `.rspec-scout.yml`.
    pub fn with_config_file(mut self, path: Option<PathBuf>) -> Self {
        self.explicit_config = path;
        self
    }

    /// Pages answers larger than `bytes` (default [`page::PAGE_BYTES`]).
    pub fn with_page_bytes(mut self, bytes: usize) -> Self {
        self.budget = bytes.max(1);
        self
    }

    /// The project root (canonical).
    pub fn root(&self) -> &std::path::Path {
        &self.root
    }

    /// The session's warm index.
    pub fn warm_index(&self) -> Arc<warm::Index> {
        Arc::clone(&self.warm)
    }

    /// What the warm index did so far.
    pub fn counters(&self) -> warm::Counters {
        self.warm.counters()
    }

    /// The tools, for `tools/list`.
    pub fn tools(&self) -> Vec<Tool> {
        tools::all()
    }

    /// Runs one tool call. Never fails and never panics: errors (unknown tool, bad
    /// arguments, a failing command, even a panic inside one) are answers with
    /// `status: error`.
    pub fn call(&mut self, name: &str, arguments: Value) -> Outcome {
        self.call_with(name, arguments, Control::default())
    }

    /// [`Server::call`] under `control`: cancellable, with progress.
    pub fn call_with(&mut self, name: &str, arguments: Value, control: Control) -> Outcome {
        self.control = control;
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.control.check();
            self.dispatch(name, arguments)
        }));
        self.control = Control::default();
        // What the call learnt goes to the facts cache on disk, off the answer's path.
        self.warm
            .save(|target, bytes| crate::metadata::write_cache_atomic(target, bytes).is_ok());
        match run {
            Err(payload) if payload.is::<Cancelled>() => error_outcome(
                &Error::Usage {
                    message: format!("{name} was cancelled by the client"),
                },
                None,
            ),
            Ok(Ok(value)) => {
                let is_error = value.get("status").and_then(Value::as_str) == Some("error");
                Outcome {
                    text: serde_json::to_string(&value).unwrap_or_else(|_| "{}".to_string()),
                    is_error,
                }
            }
            Ok(Err(err)) => error_outcome(&err, Some(name)),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_string());
                error_outcome(
                    &Error::Usage {
                        message: format!("internal error in {name}: {what}"),
                    },
                    None,
                )
            }
        }
    }

    fn config(&mut self) -> Result<Config> {
        let mut config = Config::load(self.root.clone(), self.explicit_config.as_deref())?;
        if let Some(threads) = self.threads {
            config.threads = threads;
        }
        if self.last_scope.as_ref() != Some(&config.scope) {
            self.warm.forget_files();
            self.last_scope = Some(config.scope.clone());
        }
        Ok(config)
    }

    fn dispatch(&mut self, name: &str, arguments: Value) -> Result<Value> {
        let Some(name) = tools::all().iter().map(|t| t.name).find(|&t| t == name) else {
            return Err(Error::Usage {
                message: format!(
                    "no tool named {name:?}; the tools are: {}",
                    tools::all()
                        .iter()
                        .map(|t| t.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        };
        if let Some(why) = &self.not_ruby {
            return Err(Error::Usage {
                message: format!(
                    "the server was started in {}, which is not a Ruby project ({why}); start it in the app's root (a committed .mcp.json with \"args\": [\"mcp\"] starts it there) or pass --root",
                    self.root.display()
                ),
            });
        }
        // Paging is the server's, the same for every tool: `cursor` continues the tool's
        // last paged answer (other arguments are then ignored), `max_bytes` sets the size
        // of a page.
        let mut arguments = arguments;
        let (cursor, max_bytes) = paging_args(&mut arguments)?;
        if let Some(cursor) = cursor {
            return self.continue_page(name, &cursor);
        }
        self.call_budget = max_bytes.unwrap_or(self.budget);
        check_rules(name, &arguments)?;
        let config = self.config()?;
        self.warm.refresh();
        let root = self.root.clone();
        match name {
            "init" => {
                let a: tools::Init = args(name, arguments)?;
                let options = app::init::Options {
                    metadata_path: a.metadata_path,
                    controllers_policy: a.controllers_policy,
                    dry_run: a.dry_run,
                    now: None,
                };
                let answer = answer_json(app::init::run(&config, &options))?;
                // The next call reads the config it wrote (metadata_path, the policy).
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "factories" => {
                let a: tools::Factories = args(name, arguments)?;
                let index = app::factories::load(&config, &root, true);
                let options = app::factories::Options { classes: a.classes };
                let answer = answer_json(Ok(app::factories::answer(&index, &options)))?;
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "discover" => {
                let a: tools::Discover = args(name, arguments)?;
                let narrow = page::Narrow {
                    wave: a.wave,
                    file: a.file.clone(),
                };
                let options = app::discover::Options {
                    paths: paths::confine_all(&root, &a.paths)?,
                    all: a.all,
                    staged: a.staged,
                    base: a.base,
                    only: a.only,
                    exclude: a.exclude,
                    allow_red: a.allow_red,
                    no_metadata: a.no_metadata,
                    debug: false,
                    timings: a.timings,
                    progress: self.control.on_phase(),
                    // The server pages the whole answer itself, and narrows it by wave and
                    // file after the plan (the page keeps the plan's overview).
                    answer: crate::report::AnswerSize::Full,
                    wave: None,
                    file: Vec::new(),
                    cache: self.cache.clone(),
                    facts_cache: false,
                };
                let answer = answer_json(app::discover::run(&config, &options))?;
                Ok(self.first_page(name, answer, narrow, page::ListOf::Discover))
            }
            "analyze" => {
                let a: tools::Analyze = args(name, arguments)?;
                let options = app::analyze::Options {
                    files: paths::confine_all(&root, &a.files)?,
                    from_metadata: a.from_metadata,
                    all_metadata: false,
                    force: a.force,
                    timings: false,
                    progress: self.control.on_phase(),
                    answer: crate::report::AnswerSize::Full,
                };
                let answer = answer_json(app::analyze::run(&config, &options))?;
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "symbols" => {
                let a: tools::Symbols = args(name, arguments)?;
                let mut inputs = paths::confine_all(&root, &a.paths)?;
                if inputs.is_empty() {
                    inputs.push(PathBuf::from("."));
                }
                let mut answer =
                    answer_json(app::symbols::run_cached(&config, &inputs, &self.cache))?;
                if let Some(name) = &a.name {
                    answer = only_symbol(answer, name)?;
                }
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "references" => {
                let a: tools::References = args(name, arguments)?;
                let target = references::Target::parse(&a.name)?;
                let within: Vec<String> = paths::confine_all(&root, &a.paths)?
                    .iter()
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .collect();
                let scope = config.scope()?;
                let found = self.cache.files(&root, &scope, config.threads);
                let max = config.max_file_size;
                let warm = Arc::clone(&self.warm);
                let control = self.control.clone();
                let facts: Vec<Arc<crate::index::FileFacts>> =
                    crate::index::in_pool(config.threads, || {
                        found
                            .files
                            .par_iter()
                            .map(|f| {
                                control.check();
                                warm.shared_facts(f, max)
                            })
                            .collect()
                    });
                let answer = references::find(&a.name, &target, &facts, &within);
                let mut value = serde_json::to_value(&answer).unwrap_or(Value::Null);
                if let Some(list) = value.get_mut("warnings").and_then(Value::as_array_mut) {
                    list.extend(found.warnings.into_iter().map(Value::from));
                }
                Ok(self.first_page(name, value, page::Narrow::default(), page::ListOf::Cut))
            }
            "test_config" => {
                let a: tools::TestConfig = args(name, arguments)?;
                let options = app::test_config::Options {
                    metadata: paths::confine(&root, &a.metadata)?,
                    project_type: a.project_type,
                    low_confidence: a.low_confidence,
                    batch: None,
                    progress: self.control.on_phase(),
                    answer: crate::report::AnswerSize::Full,
                };
                let answer = answer_json(app::test_config::run(&config, &options))?;
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "skeleton" => {
                let a: tools::Skeleton = args(name, arguments)?;
                let options = app::skeleton::Options {
                    metadata: paths::confine(&root, &a.metadata)?,
                    mode: a.mode,
                    stdout: a.stdout,
                    spec: a
                        .spec
                        .as_deref()
                        .map(|s| paths::confine(&root, s))
                        .transpose()?,
                    project_type: a.project_type,
                    controllers_policy: a.controllers_policy,
                    controllers_choice: a.controllers_choice,
                    controllers_legacy: a.controllers_legacy,
                    test_framework: a.test_framework,
                    test_framework_settled: false,
                    on_new_conflict: a.on_new_conflict,
                    new_conflict: a.new_conflict,
                    on_hand_written: a.on_hand_written,
                    hand_written: a.hand_written,
                    only: a.only,
                    shared_examples_threshold: a.shared_examples_threshold,
                    placeholders: a.placeholders.unwrap_or_default(),
                    batch: None,
                    progress: self.control.on_phase(),
                    answer: crate::report::AnswerSize::Full,
                };
                let answer = answer_json(app::skeleton::run(&config, &options))?;
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "outline" => {
                let a: tools::Outline = args(name, arguments)?;
                let options = app::outline::Options {
                    spec: paths::confine(&root, &a.spec)?,
                    only: a.only,
                    view: a.view,
                };
                let answer = answer_json(app::outline::run(&config, &options))?;
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "strip_markers" => {
                let a: tools::StripMarkers = args(name, arguments)?;
                let options = app::strip_markers::Options {
                    spec: paths::confine(&root, &a.spec)?,
                };
                let answer = answer_json(app::strip_markers::run(&config, &options))?;
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "validate" => {
                let a: tools::Validate = args(name, arguments)?;
                let options = app::validate::Options {
                    files: paths::confine_all(&root, &a.files)?,
                    stage: a.stage,
                    yaml: a.yaml,
                    // Standard input is the protocol's.
                    stdin: false,
                    strict: a.strict,
                };
                let answer = answer_json(app::validate::run(&config, &options))?;
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            "status" => {
                let a: tools::Status = args(name, arguments)?;
                let options = app::status::Options {
                    paths: paths::confine_all(&root, &a.paths)?,
                    all_metadata: false,
                    progress: self.control.on_phase(),
                    answer: crate::report::AnswerSize::Full,
                };
                let answer = answer_json(app::status::run(&config, &options))?;
                Ok(self.first_page(name, answer, page::Narrow::default(), page::ListOf::Cut))
            }
            _ => Err(Error::Usage {
                message: format!("no tool named {name:?}"),
            }),
        }
    }

    /// The answer, or its first page (kept as the tool's snapshot for the next cursors).
    fn first_page(
        &mut self,
        tool: &'static str,
        answer: Value,
        narrow: page::Narrow,
        list: page::ListOf,
    ) -> Value {
        let budget = self.call_budget;
        if list == page::ListOf::Discover && !page::needs_paging(&answer, &narrow, 0, budget) {
            self.snapshots.remove(tool);
            return answer;
        }
        let id = self.next_snapshot;
        let pages = match list {
            page::ListOf::Discover => Vec::new(),
            page::ListOf::Cut => {
                let mut pages = page::cut(&answer, budget);
                if pages.len() == 1 {
                    self.snapshots.remove(tool);
                    return answer;
                }
                page::number(&mut pages, id);
                pages
            }
        };
        let snapshot = page::Snapshot {
            id,
            answer: if list == page::ListOf::Discover {
                answer
            } else {
                Value::Null
            },
            narrow,
            pages,
            budget,
            list,
        };
        self.next_snapshot += 1;
        let first = page::page(&snapshot, list, 0);
        self.snapshots.insert(tool, snapshot);
        first
    }

    fn continue_page(&self, tool: &str, cursor: &str) -> Result<Value> {
        let (id, offset) = page::parse_cursor(cursor)?;
        match self.snapshots.get(tool) {
            Some(snapshot) if snapshot.id == id => Ok(page::page(snapshot, snapshot.list, offset)),
            _ => Err(Error::Usage {
                message: format!(
                    "cursor {:?} belongs to an answer this server no longer keeps (each tool keeps its last paged answer); call {tool} again without a cursor",
                    crate::report::clip(cursor, 80)
                ),
            }),
        }
    }
}

/// Takes `cursor` and `max_bytes` out of a call's arguments.
fn paging_args(arguments: &mut Value) -> Result<(Option<String>, Option<usize>)> {
    let Some(map) = arguments.as_object_mut() else {
        return Ok((None, None));
    };
    let cursor = match map.remove("cursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(c),
        Some(other) => {
            return Err(Error::Usage {
                message: format!("`cursor` is a string (a page.next_cursor), not {other}"),
            })
        }
    };
    let max_bytes = match map.remove("max_bytes") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(n) if n >= page::MIN_PAGE_BYTES as u64 => Some(n as usize),
            _ => {
                return Err(Error::Usage {
                    message: format!(
                        "`max_bytes` is a whole number of at least {}, not {v}",
                        page::MIN_PAGE_BYTES
                    ),
                })
            }
        },
    };
    Ok((cursor, max_bytes))
}

/// The error answer of the command line; a usage error (bad arguments) says what the
/// tool's schema expects instead of pointing at `--help`.
fn error_outcome(err: &Error, tool: Option<&str>) -> Outcome {
    let mut value = serde_json::from_str::<Value>(&Answer::from_error(err).render(Format::Json))
        .unwrap_or(Value::Null);
    // The command's words name its flags (`--stage`, `rspec-scout analyze
    // --from-metadata`); a client knows tools and arguments.
    if let Some(map) = value.as_object_mut() {
        for key in ["error", "details", "suggestion"] {
            if let Some(Value::String(text)) = map.get_mut(key) {
                // What a client sent comes back at most in part.
                *text = crate::report::clip(&for_tools(text), ECHO_BYTES);
            }
        }
    }
    if let (Error::Usage { .. }, Some(map)) = (err, value.as_object_mut()) {
        let schema = tool.and_then(|t| tools::all().into_iter().find(|x| x.name == t));
        if let Some(tool) = schema {
            map.insert("details".into(), Value::from(expected(&tool)));
        }
        map.insert(
            "suggestion".into(),
            Value::from("call again with arguments that match the tool's inputSchema (tools/list)"),
        );
    }
    Outcome {
        text: serde_json::to_string(&value).unwrap_or_else(|_| "{}".to_string()),
        is_error: true,
    }
}

/// The most of an error's text an answer carries (a 1 MB path is not echoed whole).
const ECHO_BYTES: usize = 1024;

/// A command-line message in a tool's words: `rspec-scout test-config FILE` reads
/// `test_config FILE`, `--from-metadata` reads `from_metadata`.
fn for_tools(text: &str) -> String {
    let text = text
        .replace("rspec-scout test-config", "test_config")
        .replace("rspec-scout strip-markers", "strip_markers")
        .replace("rspec-scout ", "");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("--") {
        let (before, flag) = rest.split_at(at);
        out.push_str(before);
        let name_len = flag[2..]
            .find(|c: char| !(c.is_ascii_lowercase() || c == '-'))
            .unwrap_or(flag.len() - 2);
        let name = &flag[2..2 + name_len];
        let starts_word = before
            .chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || c == '`' || c == '(');
        if starts_word && name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push_str(&name.trim_end_matches('-').replace('-', "_"));
        } else {
            out.push_str(&flag[..2 + name_len]);
        }
        rest = &flag[2 + name_len..];
    }
    out.push_str(rest);
    out
}

/// `discover takes: paths (array of string), all (boolean), ...; required: none`.
fn expected(tool: &Tool) -> String {
    let props = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, schema)| {
                    let kind = match schema.get("enum").and_then(Value::as_array) {
                        Some(names) => names
                            .iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join("|"),
                        None => match schema.get("type").and_then(Value::as_str) {
                            Some("array") => "array of string".to_string(),
                            Some(other) => other.to_string(),
                            None => "any".to_string(),
                        },
                    };
                    format!("{name} ({kind})")
                })
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    format!(
        "{} takes: {props}; required: {}",
        tool.name,
        if required.is_empty() {
            "none".to_string()
        } else {
            required.join(", ")
        }
    )
}

/// Why `root` is not a Ruby project (no Gemfile, gemspec, Rakefile, `app/` or `lib/`), or
/// `None` when it is one.
fn not_a_ruby_project(root: &std::path::Path) -> Option<String> {
    if root.parent().is_none() {
        return Some("it is the filesystem's root".to_string());
    }
    let has = |name: &str| root.join(name).exists();
    if [
        "Gemfile",
        "gems.rb",
        "Rakefile",
        ".ruby-version",
        "app",
        "lib",
    ]
    .iter()
    .any(|n| has(n))
    {
        return None;
    }
    let gemspec = std::fs::read_dir(root).ok().is_some_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".gemspec"))
    });
    (!gemspec).then(|| "no Gemfile, gemspec, Rakefile, app/ or lib/ in it".to_string())
}

/// The command line's rules between arguments ([`app::arg_rules`]), on a call's arguments:
/// what `rspec-scout` refuses, the tool refuses, naming the tool's arguments.
fn check_rules(tool: &str, arguments: &Value) -> Result<()> {
    let given = |name: &str| match arguments.get(name) {
        None | Some(Value::Null | Value::Bool(false)) => false,
        Some(Value::Array(items)) => !items.is_empty(),
        Some(_) => true,
    };
    app::arg_rules::check(&tool.replace('_', "-"), given, |n| format!("`{n}`"))?;
    for (key, allowed) in [
        ("on_new_conflict", app::arg_rules::NEW_CONFLICT_ACTIONS),
        ("on_hand_written", app::arg_rules::HAND_WRITTEN_ACTIONS),
    ] {
        if let Some(value) = arguments.get(key).and_then(Value::as_str) {
            if !allowed.contains(&value) {
                return Err(Error::Usage {
                    message: format!(
                        "{tool}: `{key}` takes {}, not {value:?}",
                        allowed.join(", ")
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The arguments of `tool`, or a usage error quoting what the schema wants.
fn args<T: DeserializeOwned>(tool: &str, arguments: Value) -> Result<T> {
    // `null` is an argument left out (JSON Schema clients send it for optional ones).
    let arguments = match arguments {
        Value::Null => Value::Object(serde_json::Map::new()),
        Value::Object(map) => {
            Value::Object(map.into_iter().filter(|(_, v)| !v.is_null()).collect())
        }
        other => other,
    };
    serde_json::from_value(arguments).map_err(|e| Error::Usage {
        message: format!("invalid arguments for {tool}: {e}"),
    })
}

/// A command's answer as JSON, as `--format json` prints it (an error is an `Err`).
fn answer_json(answer: Result<Answer>) -> Result<Value> {
    let answer = answer?;
    let text = answer.render(Format::Json);
    serde_json::from_str(&text).map_err(|e| Error::Usage {
        message: format!("internal error: the answer is not JSON: {e}"),
    })
}

/// A `symbols` answer reduced to one class or method: the files that define it, each with
/// that class (and its nested ones) or that method only.
fn only_symbol(mut answer: Value, name: &str) -> Result<Value> {
    let target = references::Target::parse(name)?;
    let (class, method_id) = match &target {
        references::Target::Constant(class) => (class.clone(), None),
        references::Target::Method { class, name, kind } => (
            class.clone(),
            Some(crate::index::method_id(class, name, *kind)),
        ),
    };
    let Some(files) = answer.get_mut("files").and_then(Value::as_array_mut) else {
        return Ok(answer);
    };
    let nested = format!("{class}::");
    for file in files.iter_mut() {
        if let Some(classes) = file.get_mut("classes").and_then(Value::as_array_mut) {
            classes.retain(|c| {
                method_id.is_none()
                    && c.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| n == class || n.starts_with(&nested))
            });
        }
        if let Some(methods) = file.get_mut("methods").and_then(Value::as_array_mut) {
            methods.retain(|m| {
                let id = m.get("id").and_then(Value::as_str).unwrap_or("");
                let owner = m.get("class_name").and_then(Value::as_str).unwrap_or("");
                match &method_id {
                    Some(wanted) => id == wanted,
                    None => owner == class || owner.starts_with(&nested),
                }
            });
        }
    }
    files.retain(|f| {
        let has = |key: &str| {
            f.get(key)
                .and_then(Value::as_array)
                .is_some_and(|l| !l.is_empty())
        };
        has("classes") || has("methods")
    });
    let (classes, methods) = files.iter().fold((0, 0), |(c, m), f| {
        let len = |key: &str| f.get(key).and_then(Value::as_array).map_or(0, Vec::len);
        (c + len("classes"), m + len("methods"))
    });
    let count = files.len();
    if let Some(summary) = answer.get_mut("summary").and_then(Value::as_object_mut) {
        summary.insert("files".into(), Value::from(count));
        summary.insert("classes".into(), Value::from(classes));
        summary.insert("methods".into(), Value::from(methods));
    }
    if count == 0 {
        if let Some(warnings) = answer.get_mut("warnings").and_then(Value::as_array_mut) {
            warnings.push(Value::from(format!(
                "{name} is not defined in the files read"
            )));
        }
    }
    Ok(answer)
}
