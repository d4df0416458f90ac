//! The `rspec-scout` binary: parse arguments, call the library, print the answer, exit.

mod cli;
mod progress;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use rspec_scout::app;
use rspec_scout::config::Config;
use rspec_scout::git::root_of as git_root_of;
use rspec_scout::report::{Answer, AnswerSize, Format, OnPhase, Progress};
use rspec_scout::Error;

use cli::{Cli, Command, Common, Long, Output};

/// mimalloc: discovery and analysis make millions of small allocations (names, lists) on
/// parallel threads, where glibc's malloc costs a third of `discover --all`'s time.
#[global_allocator]
static GLOBAL: ExactShrink = ExactShrink;

/// mimalloc, except that shrinking moves a block to one of its new size.
///
/// mimalloc's `realloc` keeps a block in place when the new size still uses half of it.
/// The index packs most of what it keeps (names, lists, references) by building a string
/// or a list and shrinking it to its length (`into_boxed_str`, `shrink_to_fit`), so up to
/// half of every kept buffer was slack: 30 MB of the 170 MB peak of `discover --all` on
/// 50,000 files. Growing still goes through mimalloc's `realloc` (in place when it can).
struct ExactShrink;

/// Blocks above this size shrink in place, as mimalloc does.
const EXACT_SHRINK_MAX: usize = 64 * 1024;

// SAFETY: every call forwards to mimalloc with the caller's layout; a shrink allocates the
// new block with the old alignment and the new size, copies the `new_size` bytes that
// stay, and frees the old block only when the new one exists (on failure the old block is
// untouched and null is returned, as `GlobalAlloc::realloc` requires).
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for ExactShrink {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from `alloc` above (mimalloc) with `layout`.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // Growth, and shrinking a large block (a copy of megabytes to save a few bytes;
        // what was slack is a few small buffers' halves, not large ones): mimalloc's.
        if new_size >= layout.size() || layout.size() > EXACT_SHRINK_MAX {
            // SAFETY: the caller's contract for `realloc`, passed on.
            return unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) };
        }
        // SAFETY: `new_size` is non-zero and, rounded up to `layout.align()`, does not
        // overflow (the caller's contract for `realloc`); the alignment is the old one.
        let smaller =
            unsafe { std::alloc::Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: a valid non-zero layout.
        let moved = unsafe { mimalloc::MiMalloc.alloc(smaller) };
        if !moved.is_null() {
            // SAFETY: both blocks hold at least `new_size` bytes and are distinct.
            unsafe { std::ptr::copy_nonoverlapping(ptr, moved, new_size) };
            // SAFETY: `ptr` came from this allocator with `layout`.
            unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) };
        }
        moved
    }
}

/// mimalloc's `purge_delay` option (`mi_option_purge_delay` in `mimalloc.h`; the binding
/// names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc keeps freed pages before handing them back, in milliseconds. Its
/// default, 1 s, is longer than a whole large run, so every page a phase freed stayed in
/// the peak; 100 ms returns them within the run at no measurable cost in time.
const PURGE_DELAY_MS: std::ffi::c_long = 100;

/// Sets the allocator's options before the first large allocation.
#[allow(unsafe_code)]
fn tune_allocator() {
    // SAFETY: `mi_option_set` stores an integer in mimalloc's option table; any value is
    // valid for this option and it may be set at any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    rspec_scout::memory::set_release(release_memory);
}

/// Hands the pages freed so far back to the system: each thread of the current pool its
/// own heap's, then this thread's.
#[allow(unsafe_code)]
fn release_memory() {
    // SAFETY: `mi_collect` only walks the calling thread's heap and frees pages with no
    // live block; it takes no pointer.
    rayon::broadcast(|_| unsafe { libmimalloc_sys::mi_collect(true) });
    // SAFETY: as above, for this thread.
    unsafe { libmimalloc_sys::mi_collect(true) };
    release_c_heap();
}

/// Hands back what the C libraries (libgit2's index and object caches, prism's parse
/// arenas) freed into glibc's heap: glibc keeps it for reuse, and on a large run it is
/// 10 MB or more of the peak that nothing reuses.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn release_c_heap() {
    extern "C" {
        /// glibc's `malloc_trim(3)`: returns free memory at the heap's top and free
        /// whole pages inside it to the system; 1 if any was returned.
        fn malloc_trim(pad: usize) -> std::ffi::c_int;
    }
    // SAFETY: `malloc_trim` takes a byte count and touches only glibc's free lists,
    // under glibc's own locks; it is safe to call from any thread at any time.
    unsafe { malloc_trim(0) };
}

/// Other C libraries keep their own heap; nothing to hand back.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_c_heap() {}

fn main() -> ExitCode {
    tune_allocator();
    // The rules between arguments live in `app::arg_rules`, shared with the MCP server.
    let matches =
        rspec_scout::app::arg_rules::apply(<Cli as clap::CommandFactory>::command()).get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if let Command::Mcp(a) = &cli.command {
        return serve_mcp(&cli, a);
    }
    let opts = Opts::of(&cli);
    let format = opts.format.unwrap_or_else(|| default_format(&cli.command));
    let printer = progress::Printer::new(opts.progress, opts.quiet);
    let on_phase = printer.on_phase();
    let answer = match run(&cli, &opts, &on_phase) {
        Ok(answer) => answer,
        Err(err) => Answer::from_error(&err),
    };
    printer.clear();
    let writing = on_phase.start("answer", 0);
    emit(&answer, format, opts.quiet);
    writing.finish();
    // What the command left writing (a cache, the stored plan) ends before the process.
    answer.wait();
    let code = ExitCode::from(answer.exit_code);
    // Everything is written; the process ends here and the OS takes the memory back.
    // Freeing a large plan allocation by allocation took a second on 50k files.
    std::mem::forget(answer);
    code
}

/// The options of a run: the command's own, else those given before its name.
struct Opts {
    root: Option<PathBuf>,
    format: Option<Format>,
    config: Option<PathBuf>,
    quiet: bool,
    progress: Progress,
    threads: Option<usize>,
    answer: AnswerSize,
}

impl Opts {
    fn of(cli: &Cli) -> Self {
        let none = Common::default();
        let (common, output, long): (&Common, Option<&Output>, Long) = match &cli.command {
            Command::Discover(a) => (&a.common, None, a.long.clone()),
            Command::Analyze(a) => (&a.common, None, a.long.clone()),
            Command::Status(a) => (
                &a.common,
                None,
                Long {
                    progress: a.progress,
                    answer: a.answer,
                    threads: None,
                },
            ),
            Command::Symbols(a) => (
                &a.common,
                None,
                Long {
                    threads: a.threads,
                    ..Long::default()
                },
            ),
            Command::Skeleton(a) => (
                &a.common,
                None,
                Long {
                    progress: a.progress,
                    answer: a.answer,
                    threads: None,
                },
            ),
            Command::TestConfig(a) => (
                &a.common,
                None,
                Long {
                    progress: a.progress,
                    answer: a.answer,
                    threads: None,
                },
            ),
            Command::Validate(a) => (&a.common, None, Long::default()),
            Command::Prune(a) => (&a.common, None, Long::default()),
            Command::Init(a) => (&a.common, None, Long::default()),
            Command::Factories(a) => (&a.common, None, Long::default()),
            Command::Outline(a) => (&none, Some(&a.output), Long::default()),
            Command::StripMarkers(a) => (&none, Some(&a.output), Long::default()),
            // Served apart (serve_mcp), with its own options.
            Command::Mcp(_) => (&none, None, Long::default()),
        };
        let top = &cli.top;
        Opts {
            root: common.root.clone().or_else(|| top.root.clone()),
            format: output
                .and_then(|o| o.format)
                .or(common.format)
                .or(top.format),
            config: common.config.clone().or_else(|| top.config.clone()),
            quiet: common.quiet || output.is_some_and(|o| o.quiet) || top.quiet,
            progress: long.progress.or(top.progress).unwrap_or_default(),
            threads: long.threads.or(top.threads),
            answer: long.answer.or(top.answer).unwrap_or(AnswerSize::Auto),
        }
    }
}

/// YAML, the agent contract, for every answer that is data; text for the commands whose
/// answer is a document a person reads (the validator's lines, an outline, the skeleton
/// printed with `--stdout`, strip-markers' `OK`), as the pipeline's scripts print them.
fn default_format(command: &Command) -> Format {
    match command {
        Command::Validate(_) | Command::Outline(_) | Command::StripMarkers(_) => Format::Text,
        Command::Skeleton(args) if args.stdout => Format::Text,
        _ => Format::Yaml,
    }
}

fn run(cli: &Cli, opts: &Opts, progress: &OnPhase) -> Result<Answer, Error> {
    let root = resolve_root(opts.root.as_deref())?;
    let mut config = match &cli.command {
        // These read one spec file named relative to the current directory: no settings.
        Command::Outline(_) | Command::StripMarkers(_) => Config::defaults(root),
        _ => Config::load(root, opts.config.as_deref())?,
    };
    if let Some(threads) = opts.threads {
        config.threads = threads;
    }
    let answer = opts.answer;
    match &cli.command {
        Command::Init(a) => app::init::run(
            &config,
            &app::init::Options {
                metadata_path: a.metadata_path.clone(),
                controllers_policy: a.controllers_policy,
                dry_run: a.dry_run,
                now: None,
            },
        ),
        Command::Factories(a) => app::factories::run(
            &config,
            &app::factories::Options {
                classes: a.class.clone(),
            },
        ),
        Command::Symbols(a) => app::symbols::run(&config, &a.paths, a.no_cache),
        Command::Discover(a) => app::discover::run(
            &config,
            &app::discover::Options {
                paths: a.paths.clone(),
                all: a.all,
                staged: a.staged,
                base: a.base.clone(),
                only: a.only.clone(),
                exclude: a.exclude.clone(),
                allow_red: a.allow_red,
                no_metadata: a.no_metadata,
                debug: a.debug,
                timings: a.timings,
                progress: progress.clone(),
                answer,
                wave: a.wave,
                file: a.file.clone(),
                cache: app::Cache::default(),
                facts_cache: !a.no_cache,
            },
        ),
        Command::Analyze(a) => app::analyze::run(
            &config,
            &app::analyze::Options {
                files: a.files.clone(),
                from_metadata: a.from_metadata,
                all_metadata: a.all_metadata,
                force: a.force,
                timings: a.timings,
                progress: progress.clone(),
                answer,
            },
        ),
        Command::TestConfig(a) => app::test_config::run(
            &config,
            &app::test_config::Options {
                metadata: a.metadata.clone().unwrap_or_default(),
                batch: match (&a.metadata, a.all_metadata) {
                    (Some(_), _) => None,
                    (None, false) => Some(app::over_plan::Batch::Plan),
                    (None, true) => Some(app::over_plan::Batch::AllMetadata),
                },
                project_type: a.project_type,
                low_confidence: a.low_confidence,
                progress: progress.clone(),
                answer,
            },
        ),
        Command::Skeleton(a) => app::skeleton::run(
            &config,
            &app::skeleton::Options {
                metadata: a.metadata.clone().unwrap_or_default(),
                batch: match (&a.metadata, a.all_metadata) {
                    (Some(_), _) => None,
                    (None, false) => Some(app::skeleton::Batch::Plan),
                    (None, true) => Some(app::skeleton::Batch::AllMetadata),
                },
                mode: a.mode,
                stdout: a.stdout,
                spec: a.spec.clone(),
                project_type: a.project_type,
                controllers_policy: a.controllers_policy,
                controllers_choice: a.controllers_choice,
                controllers_legacy: a.controllers_legacy,
                test_framework: a.test_framework,
                test_framework_settled: false,
                on_new_conflict: a.on_new_conflict,
                new_conflict: a.new_conflict.clone(),
                on_hand_written: a.on_hand_written,
                hand_written: a.hand_written.clone(),
                only: a.only.clone(),
                shared_examples_threshold: a.shared_examples_threshold,
                placeholders: a.placeholders,
                progress: progress.clone(),
                answer,
            },
        ),
        Command::Outline(a) => app::outline::run(
            &config,
            &app::outline::Options {
                spec: a.spec.clone(),
                only: a.only.clone(),
                view: a.view,
            },
        ),
        Command::StripMarkers(a) => app::strip_markers::run(
            &config,
            &app::strip_markers::Options {
                spec: a.spec.clone(),
            },
        ),
        Command::Validate(a) => app::validate::run(
            &config,
            &app::validate::Options {
                files: a.files.clone(),
                stage: a.stage,
                yaml: a.yaml,
                stdin: a.stdin,
                strict: a.strict,
            },
        ),
        Command::Mcp(_) => Err(Error::Usage {
            message: "mcp is served by serve_mcp".to_string(),
        }),
        Command::Status(a) => app::status::run(
            &config,
            &app::status::Options {
                paths: a.paths.clone(),
                all_metadata: a.all_metadata,
                progress: progress.clone(),
                answer,
            },
        ),
        Command::Prune(a) => app::prune::run(&config, &app::prune::Options { dry_run: a.dry_run }),
    }
}

/// `rspec-scout mcp`: serves the tools on stdin/stdout until the client closes stdin. Only
/// a failure to start is printed (on stderr: stdout belongs to the protocol).
fn serve_mcp(cli: &Cli, args: &cli::McpArgs) -> ExitCode {
    let root = args.root.as_deref().or(cli.top.root.as_deref());
    let config_path = args.config.clone().or_else(|| cli.top.config.clone());
    let started = resolve_root(root).and_then(|root| {
        let mut config = Config::load(root, config_path.as_deref())?;
        if let Some(threads) = args.threads.or(cli.top.threads) {
            config.threads = threads;
        }
        rspec_scout::mcp::serve(config, config_path.clone(), !args.no_cache)
    });
    match started {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "rspec-scout mcp: {} ({}): {}",
                err.message(),
                err.code(),
                err.suggestion()
            );
            ExitCode::from(1)
        }
    }
}

fn resolve_root(explicit: Option<&std::path::Path>) -> Result<PathBuf, Error> {
    if let Some(root) = explicit {
        if !root.is_dir() {
            return Err(Error::SourceNotFound {
                path: root.to_path_buf(),
            });
        }
        return Ok(rspec_scout::index::walk::absolute(root));
    }
    let cwd = std::env::current_dir().map_err(|e| Error::Unreadable {
        path: PathBuf::from("."),
        reason: e.to_string(),
    })?;
    let cwd = rspec_scout::index::walk::absolute(&cwd);
    Ok(git_root_of(&cwd).unwrap_or(cwd))
}

/// Prints the answer on stdout and its notes on stderr. An error in text format goes to
/// stderr whole (what it is, details, what to do), with nothing on stdout; in YAML and
/// JSON the error answer is the contract's, on stdout, and stderr gets one line.
fn emit(answer: &Answer, format: Format, quiet: bool) {
    if answer.is_error() && format == Format::Text {
        let _ = std::io::stderr().lock().write_all(answer.text.as_bytes());
        return;
    }
    // Written as it is rendered: a large answer is never held whole in memory.
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // A closed pipe (e.g. `| head`) is not an error worth a panic.
    let _ = answer.write(format, &mut stdout);
    let _ = stdout.flush();
    if !quiet {
        let mut stderr = std::io::stderr().lock();
        for line in &answer.stderr {
            let _ = writeln!(stderr, "{line}");
        }
    }
}
