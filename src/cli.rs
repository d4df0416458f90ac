//! Command-line arguments (clap derive). The doc comments are the help text; no logic here.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};

use rspec_scout::vocab::{
    ConflictAction, ControllerLayout, ControllerPolicy, Format, LegacySpec, OutlineView,
    Placeholders, Progress, ProjectType, SkeletonMode, Stage, TestLevel,
};

/// Tells an RSpec test-writing pipeline what to test in a Ruby/Rails codebase, in which
/// order, and which cases each method has.
#[derive(Debug, Parser)]
#[command(name = "rspec-scout", version, about, max_term_width = 100)]
pub struct Cli {
    /// Project root (default: the git root above the current directory, else the current
    /// directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// Output format. yaml is the agent contract and the default of discover, analyze,
    /// symbols and status; the commands that replace pipeline scripts default to what the
    /// script printed (validate: its text protocol; test-config and skeleton: JSON;
    /// outline and strip-markers: text).
    #[arg(long, global = true, value_enum)]
    pub format: Option<Format>,

    /// Config file (default: .rspec-scout.yml at the root).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Print nothing on stderr.
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// Progress for long runs: a bar on a terminal (auto), nothing, or JSON lines on stderr.
    #[arg(long, global = true, value_enum, default_value_t = Progress::Auto)]
    pub progress: Progress,

    /// Worker threads (default: one per core).
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Changed Ruby files -> methods with method_mode, complexity zones, cross-class graph,
    /// dependency waves; writes one metadata file per source file.
    Discover(DiscoverArgs),
    /// Classes, modules and methods of Ruby files, with visibility, kind and line ranges.
    Symbols {
        /// Files or folders (folders are walked for in-scope .rb files).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Per-method characteristics, side effects and dependencies -> behavior bank; updates
    /// the metadata (cache-aware).
    Analyze(AnalyzeArgs),
    /// Decides test_config (test level, isolation, confidence, decision trace) per method.
    TestConfig(TestConfigArgs),
    /// Metadata -> RSpec describe/context/it skeleton; creates or patches the spec file.
    Skeleton(Box<SkeletonArgs>),
    /// The outline of a spec: per method block for a generated spec, else every block with
    /// its line range.
    Outline {
        /// The spec file.
        #[arg(value_name = "SPEC")]
        spec: PathBuf,
        /// Only this method id (repeatable): its describe block, generated or hand-written.
        #[arg(long, value_name = "METHOD_ID")]
        only: Vec<String>,
        /// methods: per method block, as the pipeline reads it (default for a spec with
        /// rspec-testing markers); tree: every block with its line range (default otherwise).
        #[arg(long, value_enum)]
        view: Option<OutlineView>,
    },
    /// Removes `# rspec-testing:` marker lines from a finished spec.
    StripMarkers {
        /// The spec file.
        #[arg(value_name = "SPEC")]
        spec: PathBuf,
    },
    /// Checks metadata files for a stage with the pipeline validator's messages and exit
    /// codes (0 ok, 1 errors, 2 warnings only), or only that YAML files load (--yaml).
    Validate(ValidateArgs),
    /// Serves every command as a Model Context Protocol tool on stdin/stdout, over an
    /// index kept warm between calls (for agent harnesses; see the README).
    Mcp,
    /// Per source file: stage markers set, errors, warnings, cache valid or stale.
    Status {
        /// Source files or folders (default: every metadata file under the root).
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
}

/// `discover` arguments.
#[derive(Debug, Args)]
pub struct DiscoverArgs {
    /// Files or folders: single mode (method modes still come from git when in a repository).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Every method counts as selected; without PATHs, every in-scope Ruby file.
    #[arg(long, conflicts_with = "staged")]
    pub all: bool,
    /// The index (staged changes) against HEAD.
    #[arg(long, conflicts_with = "paths")]
    pub staged: bool,
    /// Base ref for branch mode (default: config `base`, origin/HEAD's target, main, master).
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Keep selected only the methods whose id matches (e.g. `Payment#*`; repeatable).
    #[arg(long, value_name = "GLOB")]
    pub only: Vec<String>,
    /// Deselect the methods whose id matches (e.g. `*#call`; repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Proceed even when a red-zone file has only new methods.
    #[arg(long)]
    pub allow_red: bool,
    /// Write no metadata files.
    #[arg(long)]
    pub no_metadata: bool,
    /// Also write discovery_debug/{slug}.yml (waves, dependencies, absorbed methods).
    #[arg(long)]
    pub debug: bool,
    /// Report how long each phase took.
    #[arg(long)]
    pub timings: bool,
}

/// `analyze` arguments.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Source files.
    #[arg(value_name = "FILE", required_unless_present = "from_metadata")]
    pub files: Vec<PathBuf>,
    /// Analyze every source file that has discovery metadata.
    #[arg(long, conflicts_with = "files")]
    pub from_metadata: bool,
    /// Re-analyze even when the cached analysis is still valid.
    #[arg(long)]
    pub force: bool,
    /// Report how long each phase took.
    #[arg(long)]
    pub timings: bool,
}

/// `test-config` arguments.
#[derive(Debug, Args)]
pub struct TestConfigArgs {
    /// The metadata file (or a source file, whose metadata is found).
    #[arg(value_name = "FILE")]
    pub metadata: PathBuf,
    /// Project type (default: the pipeline config, else detected from the Gemfile).
    #[arg(long, value_enum)]
    pub project_type: Option<ProjectType>,
    /// Test level for low-confidence methods (the answer to a needs_decision).
    #[arg(long, value_enum)]
    pub low_confidence: Option<TestLevel>,
}

/// `skeleton` arguments.
#[derive(Debug, Args)]
pub struct SkeletonArgs {
    /// The metadata file (or a source file, whose metadata is found).
    #[arg(value_name = "METADATA")]
    pub metadata: PathBuf,
    /// What --stdout prints: the method blocks (default) or the outline, as the pipeline's
    /// generator prints them, or the full spec file exactly as it would be written.
    #[arg(long, value_enum)]
    pub mode: Option<SkeletonMode>,
    /// Print instead of writing the spec file.
    #[arg(long)]
    pub stdout: bool,
    /// pipeline: the contract's placeholders for the spec-writer agent; pending: Ruby that
    /// runs (TODO comments, examples skipped as pending), for people.
    #[arg(long, value_enum, default_value_t)]
    pub placeholders: Placeholders,
    /// Spec path (default: the metadata's spec_path).
    #[arg(long, value_name = "PATH")]
    pub spec: Option<PathBuf>,
    /// Project type (default: the pipeline config, else detected from the Gemfile).
    #[arg(long, value_enum)]
    pub project_type: Option<ProjectType>,
    /// Controller spec policy (default: rails.controllers.spec_policy, else request).
    #[arg(long, value_enum)]
    pub controllers_policy: Option<ControllerPolicy>,
    /// Answer to a controller spec policy decision.
    #[arg(long, value_enum)]
    pub controllers_choice: Option<ControllerLayout>,
    /// What to do with a legacy controller spec when writing request specs.
    #[arg(long, value_enum)]
    pub controllers_legacy: Option<LegacySpec>,
    /// Default for new methods whose block already exists in the spec.
    #[arg(long, value_parser = actions(&["ask", "overwrite", "skip"]))]
    pub on_new_conflict: Option<ConflictAction>,
    /// Per-method answer, METHOD_ID=overwrite|skip|beside (repeatable; setters like
    /// Foo#bar= work; beside only for a hand-written block).
    #[arg(long, value_name = "METHOD_ID=ACTION")]
    pub new_conflict: Vec<String>,
    /// Default for methods whose block in the spec was written by a person (no
    /// rspec-testing markers): ask (a decision, exit 2), beside (keep it, add the generated
    /// block after it), overwrite (its examples are lost) or skip.
    #[arg(long, value_parser = actions(&["ask", "beside", "overwrite", "skip"]))]
    pub on_hand_written: Option<ConflictAction>,
    /// Per-method answer for a hand-written block, METHOD_ID=beside|overwrite|skip
    /// (repeatable).
    #[arg(long, value_name = "METHOD_ID=ACTION")]
    pub hand_written: Vec<String>,
    /// Only this method id (repeatable).
    #[arg(long, value_name = "METHOD_ID")]
    pub only: Vec<String>,
    /// Deduplicate examples that occur at least N times in a method into shared_examples.
    #[arg(long, value_name = "N")]
    pub shared_examples_threshold: Option<usize>,
}

/// `validate` arguments.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Metadata files (YAML files with --yaml).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The stage to check the files for.
    #[arg(long, value_enum, required_unless_present = "yaml")]
    pub stage: Option<Stage>,
    /// Only check that each file loads as YAML (like validate_yaml.rb).
    #[arg(long, conflicts_with = "stage")]
    pub yaml: bool,
    /// With --yaml: also read YAML from standard input.
    #[arg(long, requires = "yaml")]
    pub stdin: bool,
    /// Also report, as errors, the rules the original validator never checked.
    #[arg(long)]
    pub strict: bool,
}

/// A conflict action from the spellings a flag offers, in the order its help lists them.
fn actions(names: &'static [&'static str]) -> impl TypedValueParser<Value = ConflictAction> {
    PossibleValuesParser::new(names).try_map(|name| name.parse::<ConflictAction>())
}
