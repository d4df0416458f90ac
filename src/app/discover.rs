//! `rspec-scout discover`: finds the files to plan (branch, staged, single or all mode),
//! reads and parses each version once in parallel, builds the plan (`discover::plan`),
//! writes one metadata file per source file, and answers in the discovery-agent shape.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::config::Config;
use crate::discover::zones::ZoneThresholds;
use crate::discover::{
    self, select::Filter, stored, BaseVersion, Plan, Prepared, Settings, Source, Zone,
};
use crate::error::{Error, Result};
use crate::git::{Base, Change, ChangeKind, IndexChanges, Repo};
use crate::index::stamp::Stamp;
use crate::index::{self, walk, walked};
use crate::metadata::{self, fields};
use crate::naming;
use crate::report::discover::{
    deps_out, kind_str, restrict, shell_word, zone_str, BaseInfo, ByZone, DepOut, DiscoverAnswer,
    Invocation, Page, SkippedFile, StoppedFile, Summary, Timings, UnparsableFile,
};
use crate::report::{millis, Answer, AnswerSize, OnPhase, Sizing};
use crate::vocab::{ControllerLayout, ControllerPolicy, DiscoverMode as Mode};
use crate::yaml::{Mapping, Value};

/// Options of `discover`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Files or folders for single mode (empty: branch, staged or all mode).
    pub paths: Vec<PathBuf>,
    /// Every method selected; without paths, every in-scope file.
    pub all: bool,
    /// The index against HEAD.
    pub staged: bool,
    /// The base ref for branch mode.
    pub base: Option<String>,
    /// Keep only methods whose id matches one of these globs.
    pub only: Vec<String>,
    /// Deselect methods whose id matches one of these globs.
    pub exclude: Vec<String>,
    /// Proceed past red-zone files whose methods are all new.
    pub allow_red: bool,
    /// Write no metadata.
    pub no_metadata: bool,
    /// Also write `discovery_debug/{slug}.yml`.
    pub debug: bool,
    /// Add the time of each phase to the answer.
    pub timings: bool,
    /// Where each phase is reported (the binary prints it; nothing by default).
    pub progress: OnPhase,
    /// Where files, facts and changes come from (the MCP server's warm index; none on the
    /// command line).
    pub cache: super::Cache,
    /// Keep the facts of files in the facts cache on disk (the command line, unless
    /// `--no-cache`; a warm index is used instead when `cache` has one).
    pub facts_cache: bool,
    /// How large the printed answer may be (default: whole).
    pub answer: AnswerSize,
    /// Print only this wave of the plan.
    pub wave: Option<usize>,
    /// Print only the items of these source files.
    pub file: Vec<PathBuf>,
}

mod reuse;

/// Exit code of a stop (red zone with only new code).
pub const STOP_EXIT: u8 = 3;

/// The facts cache being written on a thread of its own; dropping this waits for it, so
/// no run ends with the write half done.
struct Saving(Option<std::thread::JoinHandle<()>>);

impl Saving {
    fn start(cache: super::Cache, threads: usize) -> Saving {
        if !cache.has_disk() {
            return Saving(None);
        }
        Saving::spawn("rspec-scout-cache", move || {
            cache.save(threads);
        })
    }
}

impl Saving {
    /// `write` on a thread named `name` (joined when this is dropped); nothing when no
    /// thread can be made (the file is only not written).
    fn spawn(name: &str, write: impl FnOnce() + Send + 'static) -> Saving {
        Saving(
            std::thread::Builder::new()
                .name(name.to_string())
                .spawn(write)
                .ok(),
        )
    }
}

impl Saving {
    /// The thread, left to run: its caller waits for it (see [`Answer::with_background`]).
    fn into_handle(mut self) -> Option<std::thread::JoinHandle<()>> {
        self.0.take()
    }
}

impl Drop for Saving {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            let _ = handle.join();
        }
    }
}

/// A file to read, with what git says about it.
#[derive(Debug, Clone)]
struct Candidate {
    rel: String,
    path: PathBuf,
    change: Option<ChangeKind>,
    old_path: Option<String>,
    /// Its stamp, when git's look at the working tree measured it.
    stamp: Option<Stamp>,
}

/// Runs discovery.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    let started = Instant::now();
    let mut timings = Timings::default();
    let scope = config.scope()?;
    let filter = Filter::new(&options.only, &options.exclude)?;
    // `--all` with paths is single mode over those paths with every method selected.
    let mode = if !options.paths.is_empty() {
        Mode::Single
    } else if options.all {
        Mode::All
    } else if options.staged {
        Mode::Staged
    } else {
        Mode::Branch
    };
    let repo = match Repo::discover(&config.root) {
        Ok(repo) => Some(repo),
        Err(Error::NotAGitRepository { .. }) if matches!(mode, Mode::Single | Mode::All) => None,
        Err(e) => return Err(e),
    };
    let project_root = repo
        .as_ref()
        .map_or_else(|| config.root.clone(), |r| r.root().to_path_buf());
    let mut warnings = config.warnings.clone();
    let mut skipped: Vec<SkippedFile> = Vec::new();
    let mut unparsable: Vec<UnparsableFile> = Vec::new();
    let progress = &options.progress;

    // A policy the config misspells writes request specs, as `ask` does.
    let spec_policy = config
        .controllers_spec_policy
        .as_deref()
        .and_then(ControllerPolicy::parse)
        .map_or(ControllerLayout::Request, ControllerPolicy::layout);
    let settings = Settings {
        select_all: options.all,
        filter,
        zones: config.zones,
        spec_policy,
        allow_red: options.allow_red,
    };
    let has_repo = repo.is_some();
    // The plan the last run stored, and what it was made from: read while the tree is
    // walked.
    let opening =
        (options.facts_cache && !options.cache.is_warm() && mode != Mode::Staged).then(|| {
            reuse::Opening::start(
                project_root.clone(),
                metadata::plan::state_dir(&project_root, &config.metadata_path),
                settings_text(mode, has_repo, options, config, &settings),
            )
        });

    // 1. Which files, compared with what.
    let phase = Instant::now();
    // The stored walk being written, when the walk changed it.
    let mut walk_storing = Saving(None);
    let (base, candidates, git_run) = match mode {
        Mode::Branch | Mode::Staged => {
            let (base, candidates) = changed_files(
                config,
                options,
                mode,
                repo.as_ref(),
                &scope,
                &project_root,
                &mut warnings,
                &mut skipped,
            )?;
            (base, candidates, GitRun::default())
        }
        Mode::Single | Mode::All => walked_files(
            config,
            options,
            mode,
            repo.as_ref(),
            &scope,
            &project_root,
            &mut warnings,
            &mut timings,
            &mut walk_storing,
            opening.as_ref(),
        )?,
    };
    let store = opening.as_ref().and_then(reuse::Opening::get);
    timings.git_ms = millis(phase).saturating_sub(timings.walk_ms);
    if candidates.is_empty() {
        return Err(nothing_found(config, mode, base.as_ref(), &scope));
    }
    // The walk's and git's scratch space (the status, the index's entries) is garbage
    // now: the parse phase grows on top of it.
    crate::memory::release();

    // 2. Read and parse every version once, in parallel; unless the plan the last run
    // stored was made from these very files, which is then the plan (`reuse`).
    let phase = Instant::now();
    // When git's answer is the stored plan's, so are the base versions: none is read
    // unless the stored plan does not answer after all.
    let mut repo = repo;
    let (mut blobs, mut bases) = match (&store, git_run.trusted) {
        (Some(store), true) => {
            let mut blobs = vec![(None, None); candidates.len()];
            let mut bases = store.bases();
            // The files git was asked about again: their base versions, as they are now.
            let edited: Vec<Candidate> = git_run
                .edited
                .iter()
                .filter_map(|&i| candidates.get(i).cloned())
                .collect();
            let read = read_blobs(repo.as_ref(), base.as_ref(), mode, &edited)?;
            let digests = base_digests(&read);
            for ((&i, blob), digest) in git_run.edited.iter().zip(read).zip(digests) {
                if let (Some(b), Some(d)) = (blobs.get_mut(i), bases.get_mut(i)) {
                    *b = blob;
                    *d = digest;
                }
            }
            (blobs, bases)
        }
        _ => {
            let blobs = read_blobs(repo.as_ref(), base.as_ref(), mode, &candidates)?;
            // Planning needs no repository: libgit2's index and object caches go.
            repo = None;
            let bases = base_digests(&blobs);
            (blobs, bases)
        }
    };
    // Which files differ from the stored plan's, each measured once (git's look measured
    // them, if it ran): none, and the stored plan is the plan; a few, and it is patched
    // for them alone, read and parsed now (not through the facts cache, which is not even
    // opened).
    let edited = store.as_ref().and_then(|store| {
        let seen = reuse::Seen {
            candidates: &candidates,
            bases: &bases,
        };
        store.edited(&seen, config.threads)
    });
    let reused = match (&store, &edited) {
        (Some(store), Some(edited)) if edited.is_empty() => store.as_stored(),
        _ => None,
    };
    let patched = match (&store, &reused, edited) {
        (Some(store), None, Some(edited)) if !edited.is_empty() => {
            let seen = reuse::Seen {
                candidates: &candidates,
                bases: &bases,
            };
            let fresh = index::in_pool(config.threads, || {
                edited
                    .par_iter()
                    .filter_map(|&i| {
                        let (c, blobs) = (candidates.get(i)?, blobs.get(i)?);
                        Some(read_source(
                            config,
                            has_repo,
                            c,
                            blobs,
                            &options.cache,
                            true,
                        ))
                    })
                    .collect::<Vec<_>>()
            });
            (fresh.len() == edited.len())
                .then(|| store.patch(&seen, &edited, fresh, &settings))
                .flatten()
        }
        _ => None,
    };
    if reused.is_none() && patched.is_none() && git_run.trusted {
        // Trusted, yet the stored plan does not read back: its base versions are read.
        blobs = read_blobs(repo.as_ref(), base.as_ref(), mode, &candidates)?;
        bases = base_digests(&blobs);
    }
    drop(repo);
    let seen = reuse::Seen {
        candidates: &candidates,
        bases: &bases,
    };
    let mut saving = Saving(None);
    let mut storing = Saving(None);
    // The plan to store once the answer holds it.
    let mut to_store: Option<reuse::Storing> = None;
    let plan = if let Some((plan, stored_unparsable)) = reused {
        // git looked again (something it reads moved, its answer did not): what it
        // depended on is stored with the plan, so the next run need not look.
        if let (Some(store), Some(git)) = (&store, &git_run.seen) {
            if let Some(bytes) = store.with_git(git) {
                let (root, dir) = store.place();
                storing = Saving::spawn("rspec-scout-plan", move || {
                    reuse::PlanStore::write(&root, &dir, &bytes);
                });
            }
        }
        progress.start("parse", candidates.len()).finish();
        drop(candidates);
        timings.parse_ms = millis(phase);
        let phase = Instant::now();
        progress.start("plan", plan.files.len()).finish();
        unparsable = unparsable_files(stored_unparsable);
        timings.graph_ms = millis(phase);
        plan
    } else if let Some(patched) = patched {
        let reuse::Patched {
            plan,
            unparsable: stored_unparsable,
            inputs,
        } = patched;
        progress.start("parse", candidates.len()).finish();
        timings.parse_ms = millis(phase);
        let phase = Instant::now();
        progress.start("plan", plan.files.len()).finish();
        let git_stored = git_kept(git_run.seen, &inputs, &candidates);
        drop(candidates);
        to_store = store
            .as_ref()
            .map(|store| store.storing(inputs, git_stored, stored_unparsable.clone()));
        unparsable = unparsable_files(stored_unparsable);
        timings.patched = Some(true);
        timings.graph_ms = millis(phase);
        plan
    } else {
        let cache =
            super::with_facts_cache(config, &project_root, &options.cache, options.facts_cache);
        let parsing = progress.start("parse", candidates.len());
        let (sources, keys) = read_sources(config, has_repo, &candidates, &blobs, &cache, &parsing);
        parsing.finish();
        // The facts cache is written beside the planning, off its path (joined on return).
        saving = Saving::start(cache, config.threads);
        drop(blobs);
        timings.parse_ms = millis(phase);

        // 3. Plan.
        let phase = Instant::now();
        // Filtered in place: no second list of every file.
        let mut planned = sources;
        planned.retain(|source| {
            if let Some(reason) = source.skipped() {
                skipped.push(SkippedFile {
                    path: source.path.clone(),
                    reason: reason.to_string(),
                });
                return false;
            }
            if source.diagnostic_count() > 0 {
                let first = source.first_diagnostic();
                unparsable.push(UnparsableFile {
                    path: source.path.clone(),
                    line: first.map_or(1, |d| d.line),
                    message: first
                        .map_or_else(|| "syntax error".to_string(), |d| d.message.clone()),
                    errors: source.diagnostic_count(),
                    methods: Vec::new(),
                });
            }
            true
        });
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        // What the plan is made from, to store it: every file read (a file that could not
        // be read is not stored: its reason is not a version of it).
        let inputs = store
            .as_ref()
            .filter(|_| skipped.is_empty())
            .and_then(|_| reuse::inputs(&seen, &keys));
        drop(keys);
        let git_stored = inputs
            .as_ref()
            .and_then(|inputs| git_kept(git_run.seen, inputs, seen.candidates));
        let same = match (&store, &inputs) {
            (Some(store), Some(inputs)) => store.same_digests(&seen, inputs),
            _ => None,
        };
        // Planning needs no list of candidates.
        drop(candidates);
        let planning = progress.start("plan", planned.len());
        let plan = match same {
            Some((plan, _)) => plan,
            None => index::in_pool(config.threads, || {
                // The parse's scratch space is garbage now.
                crate::memory::release();
                discover::plan_prepared(planned, &settings)
            }),
        };
        planning.finish();
        if let (Some(store), Some(inputs)) = (&store, &inputs) {
            if !store.records(inputs, git_stored.as_ref()) {
                let stored_unparsable: Vec<stored::Unparsable> = unparsable
                    .iter()
                    .map(|u| stored::Unparsable {
                        path: u.path.clone(),
                        line: u.line,
                        message: u.message.clone(),
                        errors: u.errors,
                    })
                    .collect();
                to_store = Some(store.storing(inputs.clone(), git_stored, stored_unparsable));
            }
        }
        timings.graph_ms = millis(phase);
        plan
    };
    let phase = Instant::now();
    let ids_for_filter_check = !settings.filter.is_empty();
    if ids_for_filter_check {
        let ids: Vec<String> = plan.items.iter().map(|i| i.method_id.to_string()).collect();
        for pattern in settings.filter.unmatched(&ids) {
            warnings.push(format!("method pattern {pattern:?} matched no method"));
        }
    }
    warnings.extend(plan.warnings.iter().cloned());
    for u in &mut unparsable {
        if let Some(index) = plan.files.iter().position(|f| f.path == u.path) {
            u.methods = plan
                .items
                .iter()
                .filter(|i| i.file() == index)
                .map(|i| i.method_id.to_string())
                .collect();
        }
    }
    timings.graph_ms += millis(phase);
    if plan.items.is_empty() {
        return Err(Error::NothingToDo {
            message: "No testable Ruby files found".to_string(),
            details: format!(
                "{} Ruby file(s) in scope, but none defines a public method",
                plan.files.len()
            ),
            hint: None,
        });
    }

    // 4. Metadata (not on a stop: the pipeline halts there).
    let phase = Instant::now();
    let stopped = !plan.stopped.is_empty();
    let write = !stopped && !options.no_metadata;
    let placed = place_metadata(config, &project_root, &plan, write, options, &mut warnings)?;
    if write {
        let mut record = plan_record(mode, base.as_ref(), &plan, &placed);
        // Answers given to questions about a file are not asked again in the next plan.
        if let Ok(Some(previous)) = metadata::plan::read(&project_root, &config.metadata_path) {
            record.decisions = previous.decisions;
        }
        metadata::plan::write(&project_root, &config.metadata_path, &record)?;
    }
    let mut slugs: Vec<(usize, String)> = placed;
    // The placing's lists (slugs, sharing, the metadata loaded) are garbage: the answer
    // grows on top of them.
    crate::memory::release();
    timings.metadata_ms = millis(phase);
    timings.total_ms = millis(started);

    let zones = config.zones;
    let stop_message = stopped.then(|| stop_line(&plan, &zones, options));
    let page = Page {
        wave: options.wave,
        files: options
            .file
            .iter()
            .map(|f| page_file(config, &project_root, f))
            .collect(),
    };
    if !page.is_whole() {
        for f in &page.files {
            if !plan.files.iter().any(|p| p.path == *f) {
                warnings.push(format!("--file {f}: not a file of the plan"));
            }
        }
        if let Some(w) = page.wave.filter(|w| *w >= plan.waves_count.max(1)) {
            warnings.push(format!(
                "--wave {w}: the plan has waves 0 to {}",
                plan.waves_count.saturating_sub(1)
            ));
        }
    }
    // A page keeps the slugs of its files: their paths, before the plan moves into the
    // answer (only then: the whole answer needs none).
    let slug_paths: Vec<String> = if page.is_whole() {
        Vec::new()
    } else {
        slugs
            .iter()
            .map(|(file, _)| {
                plan.files
                    .get(*file)
                    .map_or_else(String::new, |f| f.path.clone())
            })
            .collect()
    };
    let mut answer = build_answer(
        mode,
        base.as_ref(),
        plan,
        Vec::new(),
        skipped,
        unparsable,
        warnings,
        options,
        timings,
        &zones,
        started,
    );
    answer.metadata_files = slugs.len();
    // The plan is stored from the answer's: on a thread of its own while the answer is
    // printed; encoded here when a page is about to cut the answer's plan down.
    let to_store = match to_store {
        Some(to_store) if !page.is_whole() => {
            let bytes = to_store.bytes(&answer.plan);
            storing = Saving::spawn("rspec-scout-plan", move || {
                to_store.write(&bytes);
            });
            None
        }
        to_store => to_store,
    };
    if !page.is_whole() {
        let info = restrict(&mut answer.plan, &page);
        let kept: std::collections::HashSet<&str> =
            answer.plan.files.iter().map(|f| f.path.as_str()).collect();
        let mut paths = slug_paths.iter();
        slugs.retain(|_| paths.next().is_some_and(|p| kept.contains(p.as_str())));
        answer.page = Some(info);
    }
    answer.slugs = slugs.into_iter().map(|(_, slug)| slug).collect();
    answer.threads = config.threads;
    // A file that does not parse is planned from what the parser recovered: the answer
    // says so (`status: partial`) and so does the exit code (2, warnings for the caller).
    let exit = if stopped {
        STOP_EXIT
    } else if answer.status == "partial" {
        2
    } else {
        0
    };
    let answer = std::sync::Arc::new(answer);
    if let Some(to_store) = to_store {
        let answer = std::sync::Arc::clone(&answer);
        storing = Saving::spawn("rspec-scout-plan", move || {
            to_store.write(&to_store.bytes(&answer.plan));
        });
    }
    let mut result = Answer::streamed_shared(answer.clone(), exit);
    result.stderr.extend(stop_message);
    // A page of named files is what an agent asked for: printed whole unless it asks
    // for the compact form.
    let size = match options.answer {
        AnswerSize::Auto if !page.files.is_empty() => AnswerSize::Full,
        size => size,
    };
    if size != AnswerSize::Full {
        let how = Invocation {
            command: command_line(options),
            wrote_metadata: write,
        };
        result = result.sized(Sizing {
            size,
            limit: config.answer_limit,
            full_path: (!options.no_metadata).then(|| {
                metadata::plan::state_dir(&project_root, &config.metadata_path).join("discover")
            }),
            root: project_root.clone(),
            no_file: options
                .no_metadata
                .then(|| "--no-metadata writes nothing".to_string()),
            compact: std::sync::Arc::new(move |whole| answer.compact(whole, &how)),
        });
    }
    // The caches and the stored plan are written while the answer is printed.
    let writing = [walk_storing, saving, storing];
    Ok(result.with_background(
        writing
            .into_iter()
            .filter_map(Saving::into_handle)
            .collect(),
    ))
}

/// The record of this plan: each file with metadata, its slug and its selected methods.
fn plan_record(
    mode: Mode,
    base: Option<&Base>,
    plan: &Plan,
    placed: &[(usize, String)],
) -> metadata::plan::PlanRecord {
    metadata::plan::PlanRecord {
        decisions: Vec::new(),
        mode: mode.as_str().to_string(),
        base: base.map(|b| metadata::plan::RecordedBase {
            reference: b.reference.clone(),
            commit: b.commit.map(Repo::short),
        }),
        files: placed
            .iter()
            .map(|(file, slug)| metadata::plan::PlannedFile {
                source_file: plan
                    .files
                    .get(*file)
                    .map_or_else(String::new, |f| f.path.clone()),
                slug: slug.clone(),
                selected: plan
                    .files
                    .get(*file)
                    .map(|f| {
                        f.items
                            .iter()
                            .filter_map(|&i| plan.items.get(i))
                            .filter(|i| {
                                i.selected && Some(i.class_name()) == f.class_name.as_deref()
                            })
                            .map(|i| i.method_id.to_string())
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect(),
    }
}

/// A `--file` argument as the plan names files: relative to the project root (a path that
/// exists from the current directory is made so).
fn page_file(config: &Config, project_root: &Path, file: &Path) -> String {
    if file.exists() {
        let abs = walk::absolute(file);
        if let Some(rel) =
            walk::relative_to(project_root, &abs).or_else(|| walk::relative_to(&config.root, &abs))
        {
            return rel;
        }
    }
    file.to_string_lossy().replace('\\', "/")
}

/// `rspec-scout discover` with the flags that decide the plan (not the page, the format or
/// the answer size), for the commands a compact answer suggests.
fn command_line(options: &Options) -> String {
    let mut out = String::from("rspec-scout discover");
    if options.all {
        out.push_str(" --all");
    }
    if options.staged {
        out.push_str(" --staged");
    }
    if let Some(base) = &options.base {
        out.push_str(&format!(" --base {}", shell_word(base)));
    }
    for g in &options.only {
        out.push_str(&format!(" --only {}", shell_word(g)));
    }
    for g in &options.exclude {
        out.push_str(&format!(" --exclude {}", shell_word(g)));
    }
    if options.allow_red {
        out.push_str(" --allow-red");
    }
    if options.no_metadata {
        out.push_str(" --no-metadata");
    }
    for p in &options.paths {
        out.push_str(&format!(" {}", shell_word(&p.to_string_lossy())));
    }
    out
}

/// Which red-zone limits a file crosses, with both numbers: `13 methods (red above 12)`.
fn crossed(loc: u32, methods: usize, zones: &ZoneThresholds) -> Vec<String> {
    let mut out = Vec::new();
    if loc > zones.red_loc {
        out.push(format!("{loc} LOC (red above {})", zones.red_loc));
    }
    if u32::try_from(methods).unwrap_or(u32::MAX) > zones.red_methods {
        out.push(format!(
            "{methods} methods (red above {})",
            zones.red_methods
        ));
    }
    out
}

/// The contract's stop message, naming the limits the stopped files cross: the contract
/// cites `>300 LOC` only, which is wrong for a file that is red for its methods.
fn stop_message(plan: &Plan, zones: &ZoneThresholds) -> String {
    let by_loc = plan.stopped.iter().any(|s| s.loc > zones.red_loc);
    let by_methods = plan
        .stopped
        .iter()
        .any(|s| u32::try_from(s.methods).unwrap_or(u32::MAX) > zones.red_methods);
    let limits = match (by_loc, by_methods) {
        (true, true) => format!(">{} LOC or >{} methods", zones.red_loc, zones.red_methods),
        (false, true) => format!(">{} methods", zones.red_methods),
        _ => format!(">{} LOC", zones.red_loc),
    };
    format!(
        "{} file(s) in red zone ({limits}). Refactor before testing.",
        plan.stopped.len()
    )
}

/// The stderr line of a stop: each file with the limits it crosses, and the way on.
fn stop_line(plan: &Plan, zones: &ZoneThresholds, options: &Options) -> String {
    let files: Vec<String> = plan
        .stopped
        .iter()
        .map(|s| {
            format!(
                "{} is in the red zone with {} and only new methods",
                s.path,
                crossed(s.loc, s.methods, zones).join(" and ")
            )
        })
        .collect();
    format!(
        "rspec-scout: stopped: {}. Split it, or plan it anyway with `{} --allow-red`",
        files.join("; "),
        command_line(options)
    )
}

/// The error when no file is in scope: in branch and staged mode nothing changed; in all
/// and single mode the globs searched, and the `include:` line that would find the Ruby
/// files that are there.
fn nothing_found(config: &Config, mode: Mode, base: Option<&Base>, scope: &walk::Scope) -> Error {
    let message = "No testable Ruby files found".to_string();
    match mode {
        Mode::Branch | Mode::Staged => Error::NothingToDo {
            message,
            details: match mode {
                Mode::Branch => format!(
                    "no in-scope Ruby file differs from {}",
                    base.map_or("the base", |b| b.reference.as_str())
                ),
                _ => "no in-scope Ruby file is staged".to_string(),
            },
            hint: None,
        },
        Mode::Single | Mode::All => {
            let searched = config.searched_globs().join(", ");
            let folders = walk::ruby_folders(&config.root, scope, 5);
            let hint = if folders.is_empty() {
                "no .rb file outside the excluded folders here: check --root".to_string()
            } else {
                let found: Vec<String> = folders
                    .iter()
                    .map(|(dir, n)| format!("{dir}/ ({n})"))
                    .collect();
                let globs: Vec<String> = folders
                    .iter()
                    .map(|(dir, _)| format!("\"{dir}/**/*.rb\""))
                    .collect();
                format!(
                    "Ruby files are under {}: add `include: [{}]` to {}",
                    found.join(", "),
                    globs.join(", "),
                    crate::config::CONFIG_FILE
                )
            };
            Error::NothingToDo {
                message,
                details: format!("no Ruby file matches the globs searched: {searched}"),
                hint: Some(hint),
            }
        }
    }
}

/// Branch and staged mode: the in-scope files git reports changed against the base (the
/// deleted ones go to `skipped`).
#[allow(clippy::too_many_arguments)]
fn changed_files(
    config: &Config,
    options: &Options,
    mode: Mode,
    repo: Option<&Repo>,
    scope: &walk::Scope,
    project_root: &Path,
    warnings: &mut Vec<String>,
    skipped: &mut Vec<SkippedFile>,
) -> Result<(Option<Base>, Vec<Candidate>)> {
    let repo = repo.ok_or_else(|| Error::NotAGitRepository {
        path: config.root.clone(),
    })?;
    let (base, changes) = if mode == Mode::Staged {
        (repo.head_base(), repo.staged_changes()?)
    } else {
        let (base, w) = repo.branch_base(options.base.as_deref(), config.base.as_deref())?;
        warnings.extend(w);
        let phase = options.progress.start("changes", 0);
        let changes = options.cache.changes(repo, &base)?;
        phase.set_total(changes.len());
        (base, changes)
    };
    let mut candidates = Vec::new();
    for change in changes {
        if !scope.contains(&change.path) {
            continue;
        }
        if change.kind == ChangeKind::Deleted {
            skipped.push(SkippedFile {
                path: change.path,
                reason: "File deleted".to_string(),
            });
            continue;
        }
        candidates.push(Candidate {
            path: project_root.join(&change.path),
            rel: change.path,
            change: Some(change.kind),
            old_path: change.old_path,
            stamp: None,
        });
    }
    Ok((Some(base), candidates))
}

/// What git answered while the tree was walked.
enum Known<'repo> {
    /// The whole tree's changes, from a warm index.
    Warm(Vec<Change>),
    /// The base-to-index half of them ([`Repo::index_changes`]), with when and how the
    /// state files were measured before git read them.
    Index(IndexChanges<'repo>, i128, Vec<(String, Option<Stamp>)>),
    /// The stored plan's answer, if the walked files turn out to be its files unchanged.
    Trusted,
}

/// What git's look at the tree in all mode was, for the stored plan.
#[derive(Default)]
struct GitRun {
    /// The candidates are the stored plan's, as git saw them then.
    trusted: bool,
    /// What git's answer depended on, to store.
    seen: Option<stored::GitSeen>,
    /// With `trusted`: the candidates git was asked about again, alone (their stamps
    /// moved); every other one is as the stored plan recorded it.
    edited: Vec<usize>,
}

/// The content digest of each base version read.
fn base_digests(blobs: &[Blobs]) -> Vec<Option<index::ContentDigest>> {
    blobs
        .iter()
        .map(|(base, _)| base.as_ref().map(|bytes| index::content_digest(bytes)))
        .collect()
}

/// Single and all mode: the in-scope files of a walk, each with what git says about it
/// when the root is in a repository.
#[allow(clippy::too_many_arguments)]
fn walked_files(
    config: &Config,
    options: &Options,
    mode: Mode,
    repo: Option<&Repo>,
    scope: &walk::Scope,
    project_root: &Path,
    warnings: &mut Vec<String>,
    timings: &mut Timings,
    storing: &mut Saving,
    opening: Option<&reuse::Opening>,
) -> Result<(Option<Base>, Vec<Candidate>, GitRun)> {
    let store = || opening.and_then(reuse::Opening::get);
    // The walk and git's status of the tree touch the disk each on their own: the walk
    // runs on a thread of its own while git answers on this one (a Repository is not
    // Sync), and neither waits for the other.
    let walk = || -> Result<(walk::Found, u64, bool, Option<u64>)> {
        let walk_started = Instant::now();
        let walking = options.progress.start("walk", 0);
        // Whether the stored walk answered without reading a folder.
        let mut clean = false;
        let mut folders_read = None;
        let found = if mode == Mode::All && options.facts_cache && !options.cache.is_warm() {
            // The stored walk: folders that did not change are not read again.
            let dir = metadata::plan::state_dir(project_root, &config.metadata_path);
            let walks = walked::WalkStore::open(&dir, &config.root, scope);
            let walked = walks.collect_all(&config.root, scope, config.threads);
            clean = walked.folders_read == 0 && walked.store.is_none();
            folders_read = Some(walked.folders_read as u64);
            if let Some(bytes) = walked.store {
                let root = project_root.to_path_buf();
                *storing = Saving::spawn("rspec-scout-walk", move || {
                    walked::WalkStore::write(&root, &dir, &bytes);
                });
            }
            walked.found
        } else if mode == Mode::All {
            options.cache.files(&config.root, scope, config.threads)
        } else {
            walk::collect(project_root, &options.paths, scope, config.threads)?
        };
        walking.set_total(found.files.len());
        walking.finish();
        Ok((found, millis(walk_started), clean, folders_read))
    };
    // What git can answer before the walk ends: the base, and (unless a warm index keeps
    // the whole tree's status) the changes between the base and the index.
    let git = |git_warnings: &mut Vec<String>| -> Result<Option<(Base, Known)>> {
        let Some(repo) = &repo else {
            git_warnings.push(format!(
                "{} is not in a git repository: every method counts as new",
                config.root.display()
            ));
            return Ok(None);
        };
        let resolved = match repo.branch_base(options.base.as_deref(), config.base.as_deref()) {
            Ok((b, w)) => {
                git_warnings.extend(w);
                b
            }
            Err(e @ Error::BadBaseRef { .. }) if options.base.is_some() => return Err(e),
            Err(_) => {
                git_warnings.push(
                    "no base ref found (origin/HEAD, main, master): method modes compare with HEAD"
                        .to_string(),
                );
                repo.head_base()
            }
        };
        let known = if options.cache.is_warm() {
            Known::Warm(options.cache.changes(repo, &resolved)?)
        } else {
            // Measured before git reads them: a change while it does shows next time.
            let made_ns = index::stamp::nanos_since_epoch(std::time::SystemTime::now());
            let files = reuse::state_stamps(&repo.state_files());
            let holds = mode == Mode::All
                && store()
                    .and_then(reuse::PlanStore::git_seen)
                    .is_some_and(|seen| reuse::git_holds(seen, &files, &resolved));
            if holds {
                Known::Trusted
            } else {
                Known::Index(repo.index_changes(&resolved)?, made_ns, files)
            }
        };
        Ok(Some((resolved, known)))
    };
    let mut git_warnings = Vec::new();
    let (walked, git_answer) = std::thread::scope(|s| {
        let walking = s.spawn(walk);
        let git_answer = git(&mut git_warnings);
        let walked = walking.join().unwrap_or_else(|_| {
            Err(Error::Unreadable {
                path: config.root.clone(),
                reason: "the walk of the tree stopped unexpectedly".to_string(),
            })
        });
        (walked, git_answer)
    });
    let (found, walk_ms, walk_clean, folders_read) = walked?;
    timings.walk_ms = walk_ms;
    timings.folders_read = folders_read;
    warnings.extend(found.warnings);
    warnings.extend(git_warnings);
    let mut git_run = GitRun::default();
    // git's answer is the stored plan's when nothing it depends on changed: the files
    // walked (from the stored walk, no folder changed), each with its stamp, the index's
    // other Ruby files, the index, the config and the base.
    let git_answer = match (git_answer?, &repo) {
        (Some((base, Known::Trusted)), Some(repo)) => {
            let trusted = store()
                .filter(|_| walk_clean)
                .and_then(|store| store.trusted(&found.files, config.threads))
                .map(|(candidates, edited)| {
                    let plain = store()
                        .and_then(reuse::PlanStore::git_seen)
                        .and_then(|seen| seen.plain);
                    let max = config.max_file_size;
                    ask_again(repo, &base, candidates, edited, plain, max)
                })
                .transpose()?
                .flatten();
            if let Some((candidates, edited)) = trusted {
                timings.git_stored = Some(true);
                timings.git_asked = (!edited.is_empty()).then_some(edited.len() as u64);
                git_run.trusted = true;
                git_run.seen = store().and_then(reuse::PlanStore::git_seen).cloned();
                git_run.edited = edited;
                return Ok((Some(base), candidates, git_run));
            }
            let made_ns = index::stamp::nanos_since_epoch(std::time::SystemTime::now());
            let files = reuse::state_stamps(&repo.state_files());
            let first = repo.index_changes(&base)?;
            Some((base, Known::Index(first, made_ns, files)))
        }
        (answer, _) => answer,
    };
    // What git measured of each walked file, for the stored plan's check.
    let mut stamps: Vec<Option<Stamp>> = Vec::new();
    let (base, changes) = match (git_answer, &repo) {
        (Some((base, Known::Warm(changes))), _) => (Some(base), changes),
        (Some((base, Known::Index(first, made_ns, files))), Some(repo)) => {
            // libgit2 looks at the walked files and the index's, not the whole tree.
            let (origin, walked): (Vec<usize>, Vec<(String, std::path::PathBuf)>) = found
                .files
                .iter()
                .enumerate()
                .filter_map(|(i, f)| {
                    Some((
                        i,
                        (walk::relative_to(repo.root(), &f.path)?, f.path.clone()),
                    ))
                })
                .unzip();
            let plain = first.plain();
            let crate::git::Measured {
                changes,
                measured,
                outside,
            } = repo.working_tree_changes_measured(first, &walked)?;
            if mode == Mode::All && opening.is_some() {
                timings.git_stored = Some(false);
            }
            git_run.seen = outside
                .filter(|_| mode == Mode::All)
                .map(|outside| stored::GitSeen {
                    made_ns,
                    files,
                    reference: base.reference.clone(),
                    ref_commit: base.ref_commit.as_bytes().to_vec(),
                    commit: base.commit.map(|c| c.as_bytes().to_vec()),
                    outside,
                    plain,
                });
            stamps = vec![None; found.files.len()];
            for (i, meta) in origin.into_iter().zip(measured) {
                if let (Some(slot), Some(meta)) = (stamps.get_mut(i), meta) {
                    // A link's own stamp says nothing of the file it names.
                    if meta.file_type().is_file() {
                        *slot = Some(Stamp::from_meta(&meta));
                    }
                }
            }
            (Some(base), changes)
        }
        _ => (None, Vec::new()),
    };
    // The first change of each path, as a scan of the list would find it.
    let mut by_path: std::collections::HashMap<&str, &Change> =
        std::collections::HashMap::with_capacity(changes.len());
    for c in &changes {
        by_path.entry(c.path.as_str()).or_insert(c);
    }
    let candidates = found
        .files
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let change = by_path.get(f.rel.as_str()).copied();
            Candidate {
                change: match (&repo, change) {
                    (Some(_), Some(c)) => Some(c.kind),
                    _ => None,
                },
                old_path: change.and_then(|c| c.old_path.clone()),
                rel: f.rel,
                path: f.path,
                stamp: stamps.get(i).copied().flatten(),
            }
        })
        .collect();
    Ok((base, candidates, git_run))
}

/// The stored plan's candidates with git's answer for the `edited` ones asked again, for
/// them alone ([`Repo::working_tree_changes_of`]): `None` when a rename could be involved
/// (a file that was or now is added or renamed), for which the whole tree is asked. A file
/// that was unchanged or modified is in the base (the base is the recorded one), so it
/// can only be unchanged or modified now, and takes part in no rename.
fn ask_again(
    repo: &Repo,
    base: &Base,
    mut candidates: Vec<Candidate>,
    edited: Vec<usize>,
    plain: Option<crate::git::Plain>,
    max_size: u64,
) -> Result<Option<(Vec<Candidate>, Vec<usize>)>> {
    if edited.is_empty() {
        return Ok(Some((candidates, edited)));
    }
    let mut files: Vec<(&str, &Path)> = Vec::with_capacity(edited.len());
    for &i in &edited {
        match candidates.get(i) {
            Some(c) if matches!(c.change, None | Some(ChangeKind::Modified)) => {
                files.push((c.rel.as_str(), c.path.as_path()));
            }
            _ => return Ok(None),
        }
    }
    // Where no filter can apply, by content, without reading the index.
    let told = match plain {
        Some(plain) => repo.modified_plainly(base, &files, plain, max_size)?,
        None => None,
    };
    if let Some(modified) = told {
        for (&i, modified) in edited.iter().zip(modified) {
            if let Some(c) = candidates.get_mut(i) {
                c.change = modified.then_some(ChangeKind::Modified);
                c.old_path = None;
            }
        }
        return Ok(Some((candidates, edited)));
    }
    let rels: Vec<&str> = files.iter().map(|(rel, _)| *rel).collect();
    let now = repo.working_tree_changes_of(base, &rels)?;
    if now
        .iter()
        .any(|c| c.kind != ChangeKind::Modified || !rels.contains(&c.path.as_str()))
    {
        return Ok(None);
    }
    let modified: std::collections::HashSet<String> = now.into_iter().map(|c| c.path).collect();
    for &i in &edited {
        if let Some(c) = candidates.get_mut(i) {
            c.change = modified.contains(&c.rel).then_some(ChangeKind::Modified);
            c.old_path = None;
        }
    }
    Ok(Some((candidates, edited)))
}

/// The stored plan's files that did not parse whole, as the answer lists them (their
/// methods are filled in from the plan).
fn unparsable_files(stored: Vec<stored::Unparsable>) -> Vec<UnparsableFile> {
    stored
        .into_iter()
        .map(|u| UnparsableFile {
            path: u.path,
            line: u.line,
            message: u.message,
            errors: u.errors,
            methods: Vec::new(),
        })
        .collect()
}

/// What git's answer depended on, kept with a plan made from `inputs` when git measured
/// every file as it was read (a file that changed in between would carry git's view of
/// another version).
fn git_kept(
    seen: Option<stored::GitSeen>,
    inputs: &[stored::Input],
    candidates: &[Candidate],
) -> Option<stored::GitSeen> {
    seen.filter(|_| {
        inputs.len() == candidates.len()
            && inputs
                .iter()
                .zip(candidates)
                .all(|(input, c)| c.stamp == Some(input.stamp))
    })
}

/// The base version (of every file that changed) and the staged version (staged mode) of
/// each candidate, read from git here, on one thread: git2 repositories are not Sync.
fn read_blobs(
    repo: Option<&Repo>,
    base: Option<&Base>,
    mode: Mode,
    candidates: &[Candidate],
) -> Result<Vec<Blobs>> {
    let mut blobs = Vec::with_capacity(candidates.len());
    for c in candidates {
        let needs_base = matches!(c.change, Some(ChangeKind::Modified | ChangeKind::Renamed));
        let base_blob = match (repo, base, needs_base) {
            (Some(repo), Some(base), true) => {
                let path = c.old_path.as_deref().unwrap_or(&c.rel);
                repo.blob_at(base.commit, path)?
            }
            _ => None,
        };
        let staged = match (repo, mode) {
            (Some(repo), Mode::Staged) => repo.index_blob(&c.rel)?,
            _ => None,
        };
        blobs.push((base_blob, staged));
    }
    Ok(blobs)
}

/// A candidate's base version and staged version, as git holds them.
type Blobs = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Reads the current version of every candidate from disk (the index in staged mode),
/// then parses it and its base version (`blobs`), all in parallel. Each file comes with
/// what identifies the version read, when the facts cache on disk answered.
fn read_sources(
    config: &Config,
    has_repo: bool,
    candidates: &[Candidate],
    blobs: &[Blobs],
    cache: &super::Cache,
    phase: &crate::report::Phase,
) -> (Vec<Prepared>, Vec<Option<index::cache::Key>>) {
    index::in_pool(config.threads, || {
        candidates
            .par_iter()
            .zip(blobs.par_iter())
            .map(|(c, blobs)| {
                let read = read_source(config, has_repo, c, blobs, cache, false);
                phase.tick();
                read
            })
            .unzip()
    })
}

/// One candidate read and reduced as [`read_sources`] does; `fresh`: parsed now, not asked
/// of the facts cache (the few files a stored plan is patched for), still keyed.
fn read_source(
    config: &Config,
    has_repo: bool,
    c: &Candidate,
    (base_blob, staged): &Blobs,
    cache: &super::Cache,
    fresh: bool,
) -> (Prepared, Option<index::cache::Key>) {
    let max = config.max_file_size;
    let file = walk::SourceFile {
        rel: c.rel.clone(),
        path: c.path.clone(),
    };
    // Method digests only matter against a base version.
    let digests = base_blob.is_some();
    let (facts, key) = match staged {
        Some(bytes) if (bytes.len() as u64) <= max => (cache.facts_of(&c.rel, bytes), None),
        _ if fresh => index::cache::read_keyed(&file, max, digests),
        _ => cache.facts_keyed(&file, max, digests),
    };
    let base = match (c.change, base_blob) {
        (_, Some(bytes)) => BaseVersion::Facts(cache.facts_of(&c.rel, bytes)),
        (Some(ChangeKind::Added), None) => BaseVersion::Missing,
        (Some(_), None) => BaseVersion::Missing,
        (None, None) if has_repo => BaseVersion::Same,
        (None, None) => BaseVersion::Unknown,
    };
    // Reduced here, on the parsing thread: the facts of every file are never held at once.
    let prepared = discover::prepare(Source {
        facts,
        base,
        change: c.change,
        old_path: c.old_path.clone(),
    });
    (prepared, key)
}

/// Everything a plan depends on besides its files, as text (the stored plan keeps its
/// digest): the mode, whether there is history, the selection, the zones, the spec
/// layout, the red-zone stop and the largest file read.
fn settings_text(
    mode: Mode,
    has_repo: bool,
    options: &Options,
    config: &Config,
    settings: &Settings,
) -> String {
    format!(
        "mode {}\nrepository {has_repo}\nall {}\nonly {:?}\nexclude {:?}\nzones {:?}\nspecs {:?}\nallow red {}\nmax file size {}\n",
        mode.as_str(),
        settings.select_all,
        options.only,
        options.exclude,
        settings.zones,
        settings.spec_policy,
        settings.allow_red,
        config.max_file_size,
    )
}

/// Whether [`discovery_fields`] has fields for `file`, without building them.
fn has_discovery(file: &discover::FilePlan, plan: &Plan) -> bool {
    let Some(class_name) = file.class_name.as_deref() else {
        return false;
    };
    file.items
        .iter()
        .filter_map(|&i| plan.items.get(i))
        .any(|item| item.class_name() == class_name)
}

fn discovery_fields(file: &discover::FilePlan, plan: &Plan) -> Option<fields::Discovery> {
    let class_name = file.class_name.clone()?;
    // Every class and module of the file: the file's class first, then the others in
    // source order, each with its `class_name`.
    let mut items: Vec<&discover::Item> = file
        .items
        .iter()
        .filter_map(|&i| plan.items.get(i))
        .collect();
    items.sort_by_key(|item| item.class_name() != class_name);
    let methods_to_analyze: Vec<fields::MethodToAnalyze> = items
        .into_iter()
        .map(|item| fields::MethodToAnalyze {
            name: item.method_name().to_string(),
            kind: kind_str(item.kind),
            class_name: (item.class_name() != class_name).then(|| item.class_name().to_string()),
            method_mode: item.mode.as_str(),
            line_range: [item.line_range.0, item.line_range.1],
            selected: item.selected,
            skip_reason: item.skip_reason().map(str::to_string),
            trigger: item.trigger().map(str::to_string),
        })
        .collect();
    if methods_to_analyze.is_empty() {
        return None;
    }
    Some(fields::Discovery {
        source_file: file.path.clone(),
        class_name,
        complexity: fields::Complexity {
            zone: zone_str(file.zone),
            loc: file.loc,
            methods: file.methods,
        },
        spec_path: file.spec_path.clone().unwrap_or_default(),
        methods_to_analyze,
        dependencies: file.dependencies(&plan.items, &plan.classes),
        slug: None,
    })
}

/// Where each planned file's metadata goes, written (in parallel, under the folder lock)
/// when `write`: keys other stages wrote are kept; when the source changed since the
/// analysis, later stages' markers go. Returns each file with its slug, in plan order.
///
/// A file takes its contract slug unless another source holds it (a metadata file naming
/// another `source_file`, or a file of this plan with the same slug): then the next of its
/// [slug candidates](naming::slug_candidate), said in `warnings` and in the metadata's
/// `slug`. Files of this plan that share a slug are settled in a fixed order (fewest
/// folders, then path), so the same tree always gives the same slugs.
fn place_metadata(
    config: &Config,
    project_root: &Path,
    plan: &Plan,
    write: bool,
    options: &Options,
    warnings: &mut Vec<String>,
) -> Result<Vec<(usize, String)>> {
    let debug = options.debug;
    let folder = config.metadata_dir(project_root);
    // The fields are built only to be written.
    let mut numbers: Vec<usize> = Vec::new();
    let mut jobs: Vec<(Option<fields::Discovery>, &discover::FilePlan)> = Vec::new();
    for (number, f) in plan.files.iter().enumerate() {
        let job = if write {
            discovery_fields(f, plan).map(|fields| (Some(fields), f))
        } else {
            has_discovery(f, plan).then_some((None, f))
        };
        if let Some(job) = job {
            jobs.push(job);
            numbers.push(number);
        }
    }
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    // Every write goes to this folder, cleared once by the guard (inside the root, no
    // link out of it, not under .git).
    let cleared = if write {
        Some(crate::guard::folder(project_root, &folder)?)
    } else {
        None
    };
    let _lock = match &cleared {
        Some(cleared) => Some(metadata::lock_dir(cleared)?),
        None => None,
    };
    let phase = write.then(|| options.progress.start("metadata", jobs.len()));
    let tick = || {
        if let Some(p) = &phase {
            p.tick();
        }
    };
    let folder_exists = folder.is_dir();
    // Each file's contract slug, made once; the files that share one are found by sorting
    // (a map from slug to files held a second copy of every slug).
    let contract: Vec<String> = jobs.iter().map(|(_, f)| naming::slug(f.path())).collect();
    let mut by_slug: Vec<u32> = (0..u32::try_from(jobs.len()).unwrap_or(u32::MAX)).collect();
    by_slug.sort_unstable_by(|&a, &b| slug_at(&contract, a).cmp(slug_at(&contract, b)));
    let mut shares = vec![false; jobs.len()];
    for pair in by_slug.windows(2) {
        if let [a, b] = *pair {
            if slug_at(&contract, a) == slug_at(&contract, b) {
                for i in [a, b] {
                    if let Some(flag) = shares.get_mut(i as usize) {
                        *flag = true;
                    }
                }
            }
        }
    }
    // The files of the plan whose contract slug is `slug`.
    let sharing = |slug: &str| -> Vec<&str> {
        let start = by_slug.partition_point(|&i| slug_at(&contract, i) < slug);
        by_slug
            .get(start..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&i| slug_at(&contract, i) == slug)
            .filter_map(|&i| numbers.get(i as usize).and_then(|&n| plan.files.get(n)))
            .map(discover::FilePlan::path)
            .collect()
    };
    // Most files: their contract slug is theirs, checked and written in one load.
    // An error is boxed: the list holds one result per file.
    let first: Vec<std::result::Result<Placed, Box<Error>>> =
        index::in_pool(config.threads, || {
            jobs.par_iter()
                .enumerate()
                .map(|(i, (fields, file))| {
                    if shares.get(i).copied().unwrap_or(false) {
                        return Ok(Placed::Later);
                    }
                    // Not written and no folder yet: no metadata to hold the slug (one check,
                    // not a failed open per file).
                    if !write && !folder_exists {
                        return Ok(Placed::Here(None));
                    }
                    let slug = contract.get(i).cloned().unwrap_or_default();
                    let location = metadata::location_at(project_root, &folder, file.path(), slug);
                    // Written: loaded once, for its owner and its keys. Not written: only its
                    // owner is needed.
                    if !write {
                        if let metadata::Owner::Other(holder) =
                            metadata::owner(&location.path, file.path())
                        {
                            return Ok(Placed::Displaced(holder));
                        }
                        return Ok(Placed::Here(None));
                    }
                    let loaded = metadata::load(&location.path);
                    if let metadata::Owner::Other(holder) = metadata::owner_of(&loaded, file.path())
                    {
                        return Ok(Placed::Displaced(holder));
                    }
                    tick();
                    // Fields are built only when written.
                    let note = if let (Some(fields), Some(cleared)) = (fields, &cleared) {
                        let note = write_one(cleared, &location, fields, loaded)?;
                        if debug {
                            write_debug(config, project_root, &location, file, plan)?;
                        }
                        note
                    } else {
                        None
                    };
                    Ok(Placed::Here(note))
                })
                .collect()
        });
    // A file placed at its contract slug keeps it; the others get theirs below.
    let mut later: Vec<(usize, Option<String>)> = Vec::new();
    for (i, placed) in first.into_iter().enumerate() {
        match placed.map_err(|e| *e)? {
            Placed::Here(note) => warnings.extend(note),
            Placed::Displaced(holder) => later.push((i, Some(holder))),
            Placed::Later => later.push((i, None)),
        }
    }
    // The slugs taken so far, for the files placed one by one (none, most runs).
    let mut claimed: std::collections::HashSet<String> = if later.is_empty() {
        Default::default()
    } else {
        let waiting: std::collections::HashSet<usize> = later.iter().map(|(i, _)| *i).collect();
        contract
            .iter()
            .enumerate()
            .filter(|(i, _)| !waiting.contains(i))
            .map(|(_, slug)| slug.clone())
            .collect()
    };
    // The slugs of the files placed one by one.
    let mut placed_later: Vec<(usize, String)> = Vec::with_capacity(later.len());
    // The rest, one by one in a fixed order: files that share a slug with another file
    // of this plan, and files whose slug another source's metadata holds.
    later.sort_by_key(|(i, _)| {
        jobs.get(*i)
            .map(|(_, f)| (f.path().matches('/').count(), f.path().to_string()))
    });
    for (i, holder) in later {
        let Some((fields, file)) = jobs.get_mut(i) else {
            continue;
        };
        let contract = contract.get(i).map_or("", String::as_str);
        let slug = metadata::resolve_slug(&folder, file.path(), |s| claimed.contains(s));
        let location = metadata::location_at(project_root, &folder, file.path(), slug.clone());
        if slug != contract {
            // Who has the contract slug: the source its metadata names, else the other
            // files of this plan that share it.
            let holder = holder
                .or_else(|| {
                    match metadata::owner(&folder.join(format!("{contract}.yml")), file.path()) {
                        metadata::Owner::Other(source) => Some(source),
                        _ => None,
                    }
                })
                .unwrap_or_else(|| {
                    let others: Vec<&str> = sharing(contract)
                        .into_iter()
                        .filter(|p| *p != file.path())
                        .collect();
                    others.join(", ")
                });
            warnings.push(format!(
                "{} and {holder} share the slug {contract}: the metadata of {} is {} (slug {slug})",
                file.path(),
                file.path(),
                naming_shown(project_root, &location.path),
            ));
            if let Some(fields) = fields.as_mut() {
                fields.slug = Some(slug.clone());
            }
        }
        if let (Some(fields), Some(cleared)) = (fields.as_ref(), &cleared) {
            tick();
            let loaded = metadata::load(&location.path);
            warnings.extend(write_one(cleared, &location, fields, loaded)?);
            if debug {
                write_debug(config, project_root, &location, file, plan)?;
            }
        }
        claimed.insert(slug.clone());
        placed_later.push((i, slug));
    }
    let mut slugs = contract;
    for (i, slug) in placed_later {
        if let Some(s) = slugs.get_mut(i) {
            *s = slug;
        }
    }
    drop(jobs);
    Ok(numbers.into_iter().zip(slugs).collect())
}

/// Where the first pass put a file.
enum Placed {
    /// At its contract slug (a note for `warnings`).
    Here(Option<String>),
    /// Its contract slug's file names another source (that source).
    Displaced(String),
    /// Another file of the plan has the same contract slug.
    Later,
}

/// The contract slug of job `i`.
fn slug_at(contract: &[String], i: u32) -> &str {
    contract.get(i as usize).map_or("", String::as_str)
}

/// A path as the answer shows it: relative to the project root when below it.
fn naming_shown(project_root: &Path, path: &Path) -> String {
    walk::relative_to(project_root, path).unwrap_or_else(|| path.display().to_string())
}

fn write_one(
    cleared: &crate::guard::Folder,
    location: &metadata::Location,
    fields: &fields::Discovery,
    loaded: Result<Option<Mapping>>,
) -> Result<Option<String>> {
    let mut note = None;
    let mut map = match loaded {
        Ok(Some(map)) => map,
        Ok(None) => Mapping::new(),
        Err(Error::MetadataInvalid { reason, .. }) => {
            return Ok(Some(format!(
                "{}: {reason}; left untouched (fix it, or delete it to regenerate)",
                location.path.display()
            )));
        }
        Err(e) => return Err(e),
    };
    if source_changed_since_analysis(&map, &location.project_root.join(&location.source_rel)) {
        let removed = metadata::clear_later_markers(&mut map, "discovery_agent");
        if !removed.is_empty() {
            note = Some(format!(
                "{}: the source changed since it was analyzed; cleared {}",
                location.source_rel,
                removed.join(", ")
            ));
        }
    }
    fields.apply(&mut map);
    metadata::write_atomic(&cleared.file(&format!("{}.yml", location.slug))?, &map)?;
    Ok(note)
}

/// Whether the analysis recorded in `map` was made on another version of the source. The
/// content digest decides when it is there (mtimes have one-second resolution and survive
/// `git checkout` poorly); otherwise `source_mtime` is compared, as the pipeline does.
fn source_changed_since_analysis(map: &Mapping, source: &Path) -> bool {
    if let Some(stored) = map.get("source_digest").and_then(Value::as_str) {
        return std::fs::read(source).map_or(true, |bytes| metadata::digest(&bytes) != stored);
    }
    match map.get("source_mtime").and_then(Value::as_i64) {
        Some(stored) => metadata::mtime(source) != Some(stored),
        None => false,
    }
}

fn write_debug(
    config: &Config,
    project_root: &Path,
    location: &metadata::Location,
    file: &discover::FilePlan,
    plan: &Plan,
) -> Result<()> {
    let folder = crate::guard::folder(
        project_root,
        &project_root
            .join(&config.metadata_path)
            .join("discovery_debug"),
    )?;
    let path = folder.file(&format!("{}.yml", location.slug))?;
    let items: Vec<&discover::Item> = file
        .items
        .iter()
        .filter_map(|&i| plan.items.get(i))
        .collect();
    let mut waves: Vec<(usize, Vec<String>)> = Vec::new();
    for item in &items {
        match waves.iter_mut().find(|(w, _)| *w == item.wave) {
            Some((_, ids)) => ids.push(item.method_id.to_string()),
            None => waves.push((item.wave, vec![item.method_id.to_string()])),
        }
    }
    waves.sort();
    #[derive(serde::Serialize)]
    struct DebugWave {
        wave: usize,
        methods: Vec<String>,
    }
    #[derive(serde::Serialize)]
    struct DebugMethod<'a> {
        name: String,
        method_id: String,
        wave: usize,
        cross_class_deps: Vec<DepOut<'a>>,
        absorbed_private_methods: Vec<String>,
    }
    #[derive(serde::Serialize)]
    struct DebugFile<'a> {
        source_file: String,
        waves: Vec<DebugWave>,
        methods: Vec<DebugMethod<'a>>,
    }
    let body = DebugFile {
        source_file: location.source_rel.clone(),
        waves: waves
            .into_iter()
            .map(|(wave, methods)| DebugWave { wave, methods })
            .collect(),
        methods: items
            .iter()
            .map(|item| DebugMethod {
                name: item.method_name().to_string(),
                method_id: item.method_id.to_string(),
                wave: item.wave,
                cross_class_deps: deps_out(plan, item),
                absorbed_private_methods: item.absorbed.to_vec(),
            })
            .collect(),
    };
    let Value::Mapping(map) = crate::report::to_value(&body) else {
        return Ok(());
    };
    metadata::write_atomic(&path, &map)
}

#[allow(clippy::too_many_arguments)]
fn build_answer(
    mode: Mode,
    base: Option<&Base>,
    plan: Plan,
    slugs: Vec<String>,
    skipped: Vec<SkippedFile>,
    unparsable: Vec<UnparsableFile>,
    warnings: Vec<String>,
    options: &Options,
    timings: Timings,
    zones: &ZoneThresholds,
    started: Instant,
) -> DiscoverAnswer {
    let count_zone = |z: Zone| plan.files.iter().filter(|f| f.zone == z).count();
    let stopped = !plan.stopped.is_empty();
    let selected = plan.items.iter().filter(|i| i.selected).count();
    let mut next = Vec::new();
    if let Some(first) = unparsable.first() {
        next.push(format!(
            "fix the syntax error at {}:{} ({}), then run discover again",
            first.path,
            first.line,
            crate::report::plural(unparsable.len(), "unparsable file")
        ));
    }
    if stopped {
        next.push(format!(
            "split the stopped files, or plan them anyway: {} --allow-red",
            command_line(options)
        ));
    } else if selected > 0 {
        next.push("rspec-scout analyze --from-metadata".to_string());
    } else if mode == Mode::Single && !plan.items.is_empty() {
        next.push(
            "no method changed against the base; add --all to select every method".to_string(),
        );
    }
    let summary = Summary {
        total_methods: plan.items.len(),
        selected_methods: selected,
        total_files: plan.files.len(),
        waves_count: plan.waves_count,
        by_zone: ByZone {
            green: count_zone(Zone::Green),
            yellow: count_zone(Zone::Yellow),
            red: count_zone(Zone::Red),
        },
    };
    DiscoverAnswer {
        status: if stopped {
            "stop"
        } else if unparsable.is_empty() {
            "success"
        } else {
            "partial"
        },
        reason: stopped.then_some("red_zone_new_code"),
        message: stopped.then(|| stop_message(&plan, zones)),
        stopped_files: plan
            .stopped
            .iter()
            .map(|s| StoppedFile {
                path: s.path.clone(),
                loc: s.loc,
                methods: s.methods,
                crossed: crossed(s.loc, s.methods, zones),
            })
            .collect(),
        suggestions: if stopped {
            vec![
                "Split into smaller, focused classes".to_string(),
                "Extract concerns/modules".to_string(),
                "Apply Single Responsibility Principle".to_string(),
            ]
        } else {
            Vec::new()
        },
        mode: mode.as_str(),
        base: base.map(|b| BaseInfo {
            reference: b.reference.clone(),
            commit: b.commit.map(Repo::short),
        }),
        slugs,
        plan,
        summary,
        skipped_files: skipped,
        unparsable,
        warnings,
        next_suggestions: next,
        timings: options.timings.then_some(timings),
        started,
        threads: 0,
        page: None,
        metadata_files: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_decides_staleness_and_mtime_is_the_fallback() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("a.rb");
        std::fs::write(&source, "class A; end\n").unwrap();
        let mtime = metadata::mtime(&source).unwrap();
        let digest = metadata::digest(b"class A; end\n");
        let with = |m: i64, d: &str| -> Mapping {
            serde_yaml::from_str(&format!("source_mtime: {m}\nsource_digest: {d}\n")).unwrap()
        };
        assert!(!source_changed_since_analysis(
            &with(mtime, &digest),
            &source
        ));
        assert!(!source_changed_since_analysis(
            &with(mtime - 5, &digest),
            &source
        ));
        assert!(source_changed_since_analysis(
            &with(mtime, "sha256:00"),
            &source
        ));
        assert!(!source_changed_since_analysis(&Mapping::new(), &source));
        let only_mtime =
            |m: i64| -> Mapping { serde_yaml::from_str(&format!("source_mtime: {m}\n")).unwrap() };
        assert!(!source_changed_since_analysis(&only_mtime(mtime), &source));
        assert!(source_changed_since_analysis(
            &only_mtime(mtime - 5),
            &source
        ));
    }
}
