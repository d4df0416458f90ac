//! The `rspec-scout` binary: parse arguments, call the library, print the answer, exit.

mod cli;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use rspec_scout::app;
use rspec_scout::config::{git_root_of, Config};
use rspec_scout::report::{Answer, Format};
use rspec_scout::Error;

use cli::{Cli, Command, FormatArg};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let format = match cli.format {
        FormatArg::Yaml => Format::Yaml,
        FormatArg::Json => Format::Json,
        FormatArg::Text => Format::Text,
    };
    let answer = match run(&cli) {
        Ok(answer) => answer,
        Err(err) => Answer::from_error(&err),
    };
    emit(&answer, format, cli.quiet);
    ExitCode::from(answer.exit_code)
}

fn run(cli: &Cli) -> Result<Answer, Error> {
    let root = resolve_root(cli.root.as_deref())?;
    let mut config = Config::load(root, cli.config.as_deref())?;
    if let Some(threads) = cli.threads {
        config.threads = threads;
    }
    match &cli.command {
        Command::Symbols { paths } => app::symbols(&config, paths),
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
    let rendered = answer.render(format);
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) is not an error worth a panic.
    let _ = stdout.write_all(rendered.as_bytes());
    let _ = stdout.flush();
    if !quiet {
        let mut stderr = std::io::stderr().lock();
        for line in &answer.stderr {
            let _ = writeln!(stderr, "{line}");
        }
    }
}
