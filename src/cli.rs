//! Command-line arguments (clap derive). The doc comments are the help text; no logic here.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Tells an RSpec test-writing pipeline what to test in a Ruby/Rails codebase, in which
/// order, and which cases each method has.
#[derive(Debug, Parser)]
#[command(name = "rspec-scout", version, about, max_term_width = 100)]
pub struct Cli {
    /// Project root (default: the git root above the current directory, else the current
    /// directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// Output format: yaml is the agent contract, text is for people.
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Yaml)]
    pub format: FormatArg,

    /// Config file (default: .rspec-scout.yml at the root).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Print nothing on stderr.
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// Progress for long runs: a bar on a terminal (auto), nothing, or JSON lines on stderr.
    #[arg(long, global = true, value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,

    /// Worker threads (default: one per core).
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// YAML (default).
    Yaml,
    /// JSON.
    Json,
    /// Text for people.
    Text,
}

/// `--progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// A bar when stderr is a terminal.
    Auto,
    /// No progress.
    Never,
    /// JSON lines on stderr.
    Json,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Classes, modules and methods of Ruby files, with visibility, kind and line ranges.
    Symbols {
        /// Files or folders (folders are walked for in-scope .rb files).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
}
