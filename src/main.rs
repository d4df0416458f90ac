//! The `rspec-scout` binary: parse arguments, call the library, print the answer, exit.

mod cli;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use rspec_scout::app;
use rspec_scout::config::Config;
use rspec_scout::git::root_of as git_root_of;
use rspec_scout::report::{Answer, Format, OnPhase, Progress};
use rspec_scout::Error;

use cli::{Cli, Command};

/// mimalloc: discovery and analysis make millions of small allocations (names, lists) on
/// parallel threads, where glibc's malloc costs a third of `discover --all`'s time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if matches!(cli.command, Command::Mcp) {
        return serve_mcp(&cli);
    }
    let format = cli.format.unwrap_or_else(|| default_format(&cli.command));
    let answer = match run(&cli) {
        Ok(answer) => answer,
        Err(err) => Answer::from_error(&err),
    };
    emit(&answer, format, cli.quiet);
    let code = ExitCode::from(answer.exit_code);
    // Everything is written; the process ends here and the OS takes the memory back.
    // Freeing a large plan allocation by allocation took a second on 50k files.
    std::mem::forget(answer);
    code
}

/// The commands that replace a pipeline script print what the script printed.
fn default_format(command: &Command) -> Format {
    match command {
        Command::Validate(_) | Command::Outline { .. } | Command::StripMarkers { .. } => {
            Format::Text
        }
        Command::Skeleton(args) if args.stdout => Format::Text,
        Command::TestConfig(_) | Command::Skeleton(_) => Format::Json,
        _ => Format::Yaml,
    }
}

fn run(cli: &Cli) -> Result<Answer, Error> {
    let root = resolve_root(cli.root.as_deref())?;
    let mut config = Config::load(root, cli.config.as_deref())?;
    if let Some(threads) = cli.threads {
        config.threads = threads;
    }
    let progress = cli.progress;
    match &cli.command {
        Command::Symbols { paths } => app::symbols::run(&config, paths),
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
                progress: if cli.quiet {
                    OnPhase::default()
                } else {
                    on_phase(progress)
                },
                cache: app::Cache::default(),
            },
        ),
        Command::Analyze(a) => app::analyze::run(
            &config,
            &app::analyze::Options {
                files: a.files.clone(),
                from_metadata: a.from_metadata,
                force: a.force,
                timings: a.timings,
            },
        ),
        Command::TestConfig(a) => app::test_config::run(
            &config,
            &app::test_config::Options {
                metadata: a.metadata.clone(),
                project_type: a.project_type,
                low_confidence: a.low_confidence,
            },
        ),
        Command::Skeleton(a) => app::skeleton::run(
            &config,
            &app::skeleton::Options {
                metadata: a.metadata.clone(),
                mode: a.mode,
                stdout: a.stdout,
                spec: a.spec.clone(),
                project_type: a.project_type,
                controllers_policy: a.controllers_policy,
                controllers_choice: a.controllers_choice,
                controllers_legacy: a.controllers_legacy,
                on_new_conflict: a.on_new_conflict,
                new_conflict: a.new_conflict.clone(),
                on_hand_written: a.on_hand_written,
                hand_written: a.hand_written.clone(),
                only: a.only.clone(),
                shared_examples_threshold: a.shared_examples_threshold,
                placeholders: a.placeholders,
            },
        ),
        Command::Outline { spec, only, view } => app::outline::run(
            &config,
            &app::outline::Options {
                spec: spec.clone(),
                only: only.clone(),
                view: *view,
            },
        ),
        Command::StripMarkers { spec } => {
            app::strip_markers::run(&config, &app::strip_markers::Options { spec: spec.clone() })
        }
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
        Command::Mcp => Err(Error::Usage {
            message: "mcp is served by serve_mcp".to_string(),
        }),
        Command::Status { paths } => app::status::run(
            &config,
            &app::status::Options {
                paths: paths.clone(),
            },
        ),
    }
}

/// `rspec-scout mcp`: serves the tools on stdin/stdout until the client closes stdin. Only
/// a failure to start is printed (on stderr: stdout belongs to the protocol).
fn serve_mcp(cli: &Cli) -> ExitCode {
    let started = resolve_root(cli.root.as_deref()).and_then(|root| {
        let mut config = Config::load(root, cli.config.as_deref())?;
        if let Some(threads) = cli.threads {
            config.threads = threads;
        }
        rspec_scout::mcp::serve(config, cli.config.clone())
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

/// Progress on stderr: JSON lines with `--progress json`, a line per phase of 500 files or
/// more on a terminal.
fn on_phase(progress: Progress) -> OnPhase {
    use std::io::IsTerminal;
    match progress {
        Progress::Json => OnPhase::new(|name, total| {
            let _ = writeln!(
                std::io::stderr().lock(),
                "{{\"phase\":\"{name}\",\"total\":{total}}}"
            );
        }),
        Progress::Auto if std::io::stderr().is_terminal() => OnPhase::new(|name, total| {
            if total >= 500 {
                let _ = writeln!(
                    std::io::stderr().lock(),
                    "rspec-scout: {name} {total} files..."
                );
            }
        }),
        Progress::Auto | Progress::Never => OnPhase::default(),
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

fn emit(answer: &Answer, format: Format, quiet: bool) {
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
