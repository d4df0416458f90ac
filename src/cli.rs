//! Command-line arguments (clap derive). The doc comments are the help text; no logic here.
//!
//! Each command takes only the options it uses (`--threads` is not offered where nothing
//! runs in parallel), after its name; the same options are also taken before the command
//! name (`rspec-scout --root app discover`), where the command's own win.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};

use rspec_scout::vocab::{
    AnswerSize, ConflictAction, ControllerLayout, ControllerPolicy, Format, LegacySpec,
    OutlineView, Placeholders, Progress, ProjectType, SkeletonMode, Stage, TestFrameworkChoice,
    TestLevel,
};

/// Tells an RSpec test-writing pipeline what to test in a Ruby/Rails codebase, in which
/// order, and which cases each method has.
#[derive(Debug, Parser)]
#[command(
    name = "rspec-scout",
    version,
    about,
    max_term_width = 100,
    after_help = "The pipeline, on the example app (./scripts/example builds it):\n  \
        rspec-scout discover --format text        plan the branch: methods, waves, zones\n  \
        rspec-scout analyze --from-metadata       cases of every method of the plan\n  \
        rspec-scout test-config app/models/payment.rb\n  \
        rspec-scout skeleton                      spec files for the plan\n  \
        rspec-scout status --format text          where each file of the plan stands\n\n\
        `rspec-scout COMMAND --help` shows a command's options and an example."
)]
pub struct Cli {
    /// Options given before the command name.
    #[command(flatten)]
    pub top: TopLevel,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Every option, as taken before the command name.
#[derive(Debug, Args, Default)]
pub struct TopLevel {
    /// Project root (default: the git root above the current directory, else the current
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Output format [default: yaml, the agent contract; text for `validate`, `outline`,
    /// `strip-markers` and `skeleton --stdout`, whose answer is a document]. text is for
    /// people.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Config file (default: .rspec-scout.yml at the root). Keys: include, exclude, base,
    /// metadata_path, max_file_size, threads, zones, side_effects, project_type,
    /// controllers_spec_policy, rspec_helper, answer_limit (README, Configuration).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// No progress, warnings or notes on stderr (an error is still printed there with
    /// --format text).
    #[arg(long, short)]
    pub quiet: bool,
    /// Progress of long runs on stderr: a bar on a terminal after half a second (auto),
    /// nothing, or JSON lines.
    #[arg(long, value_enum)]
    pub progress: Option<Progress>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Answers over answer_limit (20,000 bytes): compact, the full answer in a file (auto);
    /// always whole (full); always compact.
    #[arg(long, value_enum)]
    pub answer: Option<AnswerSize>,
}

/// The options every command that reads the project takes.
#[derive(Debug, Args, Default, Clone)]
pub struct Common {
    /// Project root (default: the git root above the current directory, else the current
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Output format [default: yaml, the agent contract; text for `validate`, `outline`,
    /// `strip-markers` and `skeleton --stdout`, whose answer is a document]. text is for
    /// people.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Config file (default: .rspec-scout.yml at the root). Keys: include, exclude, base,
    /// metadata_path, max_file_size, threads, zones, side_effects, project_type,
    /// controllers_spec_policy, rspec_helper, answer_limit (README, Configuration).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// No progress, warnings or notes on stderr (an error is still printed there with
    /// --format text).
    #[arg(long, short)]
    pub quiet: bool,
}

/// The options of commands that only read and print one file.
#[derive(Debug, Args, Default, Clone)]
pub struct Output {
    /// Output format [default: text, what the pipeline's script printed].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Nothing on stderr but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The options of long commands: parallel work, progress, answer size.
#[derive(Debug, Args, Default, Clone)]
pub struct Long {
    /// Progress on stderr: a bar on a terminal after half a second (auto), nothing, or
    /// JSON lines (start, every tenth done, finish of each phase).
    #[arg(long, value_enum)]
    pub progress: Option<Progress>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Answers over answer_limit (20,000 bytes by default): compact, with the full answer
    /// written to a file beside the metadata (auto); always whole (full); always compact.
    #[arg(long, value_enum)]
    pub answer: Option<AnswerSize>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The pipeline's first stage: detects how the project is set up and writes
    /// .claude/rspec-testing-config.yml, which every later stage reads (a value already in
    /// the file is kept).
    #[command(
        after_help = "Example (a Rails app: the controllers policy is asked until given):\n  \
        rspec-scout init --controllers-policy request --format text"
    )]
    Init(InitArgs),
    /// Changed Ruby files -> methods with method_mode, complexity zones, cross-class graph,
    /// dependency waves; writes one metadata file per source file and records the plan.
    #[command(after_help = "Example (plan every method of one file):\n  \
        rspec-scout discover --all app/services/payment_processor.rb --format text\n\n\
        A large plan is printed compact (summary, waves as files with counts) and written\n\
        whole to tmp/rspec_scout/discover.yml; page it with --wave N and --file PATH.")]
    Discover(DiscoverArgs),
    /// The factories (FactoryBot, Fabrication) with their classes, parents, aliases and every
    /// trait they can be built with: their own, their parents', global and enum traits.
    #[command(after_help = "Example (the factories that build Payment):\n  \
        rspec-scout factories --class Payment --format text")]
    Factories(FactoriesArgs),
    /// Classes, modules and methods of Ruby files, with visibility, kind and line ranges.
    #[command(after_help = "Example:\n  rspec-scout symbols app/models/payment.rb")]
    Symbols(SymbolsArgs),
    /// Per-method characteristics, side effects and dependencies -> behavior bank; updates
    /// the metadata (cache-aware).
    #[command(after_help = "Example (every file of the last discover's plan):\n  \
        rspec-scout analyze --from-metadata --format text")]
    Analyze(AnalyzeArgs),
    /// Decides test_config (test level, isolation, confidence, decision trace) per method.
    #[command(after_help = "Examples:\n  \
        rspec-scout test-config app/services/payment_processor.rb\n  \
        rspec-scout test-config --format text        every analyzed file of the last plan")]
    TestConfig(TestConfigArgs),
    /// Metadata -> RSpec describe/context/it skeleton; creates or patches the spec file
    /// (every analyzed file of the plan without METADATA).
    #[command(after_help = "Example:\n  \
        rspec-scout skeleton tmp/rspec_metadata/app_services_payment_processor.yml")]
    Skeleton(Box<SkeletonArgs>),
    /// The outline of a spec: per method block for a generated spec, else every block with
    /// its line range.
    #[command(after_help = "Example:\n  \
        rspec-scout outline spec/services/payment_processor_spec.rb --only 'PaymentProcessor#refund'")]
    Outline(OutlineArgs),
    /// Removes `# rspec-testing:` marker lines from a finished spec.
    #[command(
        after_help = "Example:\n  rspec-scout strip-markers spec/services/payment_processor_spec.rb"
    )]
    StripMarkers(StripMarkersArgs),
    /// Checks metadata files for a stage with the pipeline validator's messages and exit
    /// codes (0 ok, 1 errors, 2 warnings only), or only that YAML files load (--yaml).
    #[command(after_help = "Example:\n  \
        rspec-scout validate --stage code-analyzer tmp/rspec_metadata/app_services_payment_processor.yml")]
    Validate(ValidateArgs),
    /// Serves every command as a Model Context Protocol tool on stdin/stdout, over an
    /// index kept warm between calls (for agent harnesses; see the README).
    #[command(after_help = "Example (what an MCP client's configuration runs):\n  \
        rspec-scout mcp --root /path/to/your/app")]
    Mcp(McpArgs),
    /// Per source file of the last plan: stage markers set, errors, warnings, cache valid
    /// or stale; metadata from earlier plans is counted apart.
    #[command(after_help = "Example:\n  rspec-scout status --format text")]
    Status(StatusArgs),
    /// Removes metadata files whose source file is gone or that the last plan does not
    /// reference (nothing else).
    #[command(after_help = "Example (list what would go, remove nothing):\n  \
        rspec-scout prune --dry-run --format text")]
    Prune(PruneArgs),
}

/// `discover` arguments.
#[derive(Debug, Args)]
pub struct DiscoverArgs {
    /// Files or folders: single mode (method modes still come from git when in a repository).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Every method counts as selected; without PATHs, every in-scope Ruby file.
    #[arg(long)]
    pub all: bool,
    /// The index (staged changes) against HEAD.
    #[arg(long)]
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
    /// Write no metadata files (and no plan record).
    #[arg(long)]
    pub no_metadata: bool,
    /// Also write discovery_debug/{slug}.yml (waves, dependencies, absorbed methods).
    #[arg(long)]
    pub debug: bool,
    /// Report how long each phase took.
    #[arg(long)]
    pub timings: bool,
    /// Print only this wave of the plan (the plan is still made of every file).
    #[arg(long, value_name = "N")]
    pub wave: Option<usize>,
    /// Print only the methods of this source file (repeatable; the plan is still made of
    /// every file).
    #[arg(long, value_name = "PATH")]
    pub file: Vec<PathBuf>,
    /// Neither read nor write the facts cache ({metadata_path}/rspec_scout/facts.bin):
    /// every file is parsed (docs/cache.md).
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub long: Long,
}

/// `init` arguments.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// metadata_path: where every stage keeps its metadata, relative to the root (default:
    /// .rspec-scout.yml's metadata_path, else tmp).
    #[arg(long, value_name = "PATH")]
    pub metadata_path: Option<String>,
    /// rails.controllers.spec_policy of a Rails project (the answer to its question).
    #[arg(long, value_enum)]
    pub controllers_policy: Option<ControllerPolicy>,
    /// Say what would be written; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub common: Common,
}

/// `factories` arguments.
#[derive(Debug, Args)]
pub struct FactoriesArgs {
    /// Only the factories that build this class, or are named so (repeatable).
    #[arg(long, value_name = "CLASS")]
    pub class: Vec<String>,
    #[command(flatten)]
    pub common: Common,
}

/// `symbols` arguments.
#[derive(Debug, Args)]
pub struct SymbolsArgs {
    /// Ruby files or folders (folders are walked for in-scope .rb files).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Neither read nor write the facts cache ({metadata_path}/rspec_scout/facts.bin):
    /// every file is parsed (docs/cache.md).
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub common: Common,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// `analyze` arguments.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Ruby source files or folders (folders are walked for in-scope .rb files).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Analyze the files of the last discover's plan (every metadata file with
    /// --all-metadata).
    #[arg(long)]
    pub from_metadata: bool,
    /// With --from-metadata: every metadata file, not only the last plan's.
    #[arg(long)]
    pub all_metadata: bool,
    /// Re-analyze even when the cached analysis is still valid.
    #[arg(long)]
    pub force: bool,
    /// Report how long each phase took.
    #[arg(long)]
    pub timings: bool,
    #[command(flatten)]
    pub common: Common,
    #[command(flatten)]
    pub long: Long,
}

/// `test-config` arguments.
#[derive(Debug, Args)]
pub struct TestConfigArgs {
    /// The metadata file (or a source file, whose metadata is found). Without it: every
    /// analyzed file of the last plan (every analyzed metadata file with --all-metadata).
    #[arg(value_name = "FILE")]
    pub metadata: Option<PathBuf>,
    /// Without FILE: every analyzed metadata file, not only the last plan's.
    #[arg(long)]
    pub all_metadata: bool,
    /// Project type (default: the pipeline config, else detected from the Gemfile).
    #[arg(long, value_enum)]
    pub project_type: Option<ProjectType>,
    /// Test level for low-confidence methods (the answer to a needs_decision).
    #[arg(long, value_enum)]
    pub low_confidence: Option<TestLevel>,
    #[command(flatten)]
    pub common: Common,
    /// Progress of a run over the plan: a bar on a terminal after half a second (auto),
    /// nothing, or JSON lines.
    #[arg(long, value_enum)]
    pub progress: Option<Progress>,
    /// Answers over answer_limit: compact, the full answer in a file (auto); always whole
    /// (full); always compact.
    #[arg(long, value_enum)]
    pub answer: Option<AnswerSize>,
}

/// `skeleton` arguments.
#[derive(Debug, Args)]
pub struct SkeletonArgs {
    /// The metadata file (or a source file, whose metadata is found). Without it: every
    /// analyzed file of the last plan (every analyzed metadata file with --all-metadata).
    #[arg(value_name = "METADATA")]
    pub metadata: Option<PathBuf>,
    /// Without METADATA: every analyzed metadata file, not only the last plan's.
    #[arg(long)]
    pub all_metadata: bool,
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
    /// Write RSpec specs though the project tests with Minitest only (the answer to a
    /// `test_framework` decision; remembered in the plan record).
    #[arg(long, value_enum, value_name = "FRAMEWORK")]
    pub test_framework: Option<TestFrameworkChoice>,
    /// Default for new methods whose block already exists in the spec.
    #[arg(long, value_parser = actions(rspec_scout::app::arg_rules::NEW_CONFLICT_ACTIONS))]
    pub on_new_conflict: Option<ConflictAction>,
    /// Per-method answer, METHOD_ID=overwrite|skip|beside (repeatable; setters like
    /// Foo#bar= work; beside only for a hand-written block).
    #[arg(long, value_name = "METHOD_ID=ACTION")]
    pub new_conflict: Vec<String>,
    /// Default for methods whose block in the spec was written by a person (no
    /// rspec-testing markers): ask (a decision, exit 2), beside (keep it, add the generated
    /// block after it), overwrite (its examples are lost) or skip.
    #[arg(long, value_parser = actions(rspec_scout::app::arg_rules::HAND_WRITTEN_ACTIONS))]
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
    #[command(flatten)]
    pub common: Common,
    /// Progress of a run over the plan: a bar on a terminal after half a second (auto),
    /// nothing, or JSON lines.
    #[arg(long, value_enum)]
    pub progress: Option<Progress>,
    /// Answers over answer_limit: compact, the full answer in a file (auto); always whole
    /// (full); always compact.
    #[arg(long, value_enum)]
    pub answer: Option<AnswerSize>,
}

/// `outline` arguments.
#[derive(Debug, Args)]
pub struct OutlineArgs {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Only this method id (repeatable): its describe block, generated or hand-written.
    #[arg(long, value_name = "METHOD_ID")]
    pub only: Vec<String>,
    /// methods: per method block, as the pipeline reads it (default for a spec with
    /// rspec-testing markers); tree: every block with its line range (default otherwise).
    #[arg(long, value_enum)]
    pub view: Option<OutlineView>,
    #[command(flatten)]
    pub output: Output,
}

/// `mcp` arguments.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Project root (default: the git root above the current directory, else the current
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Config file (default: .rspec-scout.yml at the root).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Neither start from nor write the facts cache ({metadata_path}/rspec_scout/facts.bin):
    /// the session parses every file it is asked about once (docs/cache.md).
    #[arg(long)]
    pub no_cache: bool,
}

/// `strip-markers` arguments.
#[derive(Debug, Args)]
pub struct StripMarkersArgs {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    #[command(flatten)]
    pub output: Output,
}

/// `validate` arguments.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Metadata files (YAML files with --yaml).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The stage to check the files for.
    #[arg(long, value_enum)]
    pub stage: Option<Stage>,
    /// Only check that each file loads as YAML (like validate_yaml.rb).
    #[arg(long)]
    pub yaml: bool,
    /// With --yaml: also read YAML from standard input.
    #[arg(long)]
    pub stdin: bool,
    /// Also report, as errors, the rules the original validator never checked.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub common: Common,
}

/// `status` arguments.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Source files or folders (default: the files of the last plan).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Every metadata file, not only the last plan's.
    #[arg(long)]
    pub all_metadata: bool,
    #[command(flatten)]
    pub common: Common,
    /// Progress on stderr: a bar on a terminal after half a second (auto), nothing, or
    /// JSON lines.
    #[arg(long, value_enum)]
    pub progress: Option<Progress>,
    /// Answers over answer_limit: compact, the full answer in a file (auto); always whole
    /// (full); always compact.
    #[arg(long, value_enum)]
    pub answer: Option<AnswerSize>,
}

/// `prune` arguments.
#[derive(Debug, Args)]
pub struct PruneArgs {
    /// List what would be removed; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub common: Common,
}

/// A conflict action from the spellings a flag offers, in the order its help lists them.
fn actions(names: &'static [&'static str]) -> impl TypedValueParser<Value = ConflictAction> {
    PossibleValuesParser::new(names).try_map(|name| name.parse::<ConflictAction>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The help of `--config` lists every key the config file takes.
    #[test]
    fn config_help_lists_every_key() {
        let help = Cli::command()
            .find_subcommand("discover")
            .and_then(|c| c.get_arguments().find(|a| a.get_id() == "config"))
            .and_then(|a| a.get_help().map(ToString::to_string))
            .unwrap_or_default()
            .replace('\n', " ");
        for key in rspec_scout::config::CONFIG_KEYS {
            assert!(
                help.contains(key),
                "--config help does not name {key}: {help}"
            );
        }
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
        rspec_scout::app::arg_rules::apply(Cli::command()).debug_assert();
    }

    /// The rules of `app::arg_rules` reach the parser: each refused pair is refused.
    #[test]
    fn the_shared_argument_rules_are_the_parsers() {
        let cli = rspec_scout::app::arg_rules::apply(Cli::command());
        for (args, kind) in [
            (
                vec!["discover", "--all", "--staged"],
                clap::error::ErrorKind::ArgumentConflict,
            ),
            (
                vec!["analyze"],
                clap::error::ErrorKind::MissingRequiredArgument,
            ),
            (
                vec!["validate", "x.yml", "--stdin"],
                clap::error::ErrorKind::MissingRequiredArgument,
            ),
            (
                vec!["skeleton", "--stdout"],
                clap::error::ErrorKind::MissingRequiredArgument,
            ),
            (
                vec!["status", "app", "--all-metadata"],
                clap::error::ErrorKind::ArgumentConflict,
            ),
        ] {
            let mut argv = vec!["rspec-scout"];
            argv.extend(args.iter().copied());
            match cli.clone().try_get_matches_from(argv) {
                Err(err) => assert_eq!(err.kind(), kind, "{args:?}"),
                Ok(_) => panic!("{args:?} was accepted"),
            }
        }
        assert!(cli
            .try_get_matches_from(["rspec-scout", "discover", "--all", "app"])
            .is_ok());
    }
}
