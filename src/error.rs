//! The errors a command can end with. Each carries what went wrong, where, and what to do;
//! [`Error::code`] is the stable `error_code` agents switch on.

use std::path::PathBuf;

/// A failure that ends a command with `status: error` and exit code 1.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A path given on the command line does not exist.
    #[error("path not found: {path}")]
    SourceNotFound {
        /// The missing path as given.
        path: PathBuf,
    },
    /// A file named explicitly is not Ruby source.
    #[error("not a Ruby source file: {path}")]
    NotRuby {
        /// The file as given.
        path: PathBuf,
    },
    /// A file or folder could not be read.
    #[error("cannot read {path}: {reason}")]
    Unreadable {
        /// The path.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// Git is needed and the folder is not in a repository.
    #[error("not a git repository: {path}")]
    NotAGitRepository {
        /// The folder that was searched from.
        path: PathBuf,
    },
    /// The base ref does not resolve.
    #[error("bad base ref: {reference}")]
    BadBaseRef {
        /// The ref as given.
        reference: String,
        /// Why it failed.
        reason: String,
    },
    /// Any other git failure.
    #[error("git: {message}")]
    Git {
        /// What libgit2 said.
        message: String,
    },
    /// A metadata file exists but cannot be used.
    #[error("invalid metadata {path}: {reason}")]
    MetadataInvalid {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A metadata file that should exist does not.
    #[error("metadata not found: {path}")]
    MetadataNotFound {
        /// The expected path.
        path: PathBuf,
    },
    /// A metadata file could not be written.
    #[error("cannot write {path}: {reason}")]
    WriteFailed {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// The configuration file is unusable.
    #[error("invalid config {path}: {reason}")]
    ConfigInvalid {
        /// The config file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Nothing to work on.
    #[error("{message}")]
    NothingToDo {
        /// The contract's message, e.g. "No testable Ruby files found".
        message: String,
        /// More detail.
        details: String,
        /// What to do, when the general advice does not fit.
        hint: Option<String>,
    },
    /// A spec file cannot be read or patched.
    #[error("{message}")]
    Spec {
        /// What went wrong.
        message: String,
        /// The spec file.
        path: PathBuf,
    },
    /// Bad use of a flag that clap could not catch.
    #[error("{message}")]
    Usage {
        /// What is wrong.
        message: String,
    },
    /// A source file with syntax errors: a plan built from what the parser recovered would
    /// be guesses, so none is written.
    #[error("{path} does not parse: line {line}: {message}")]
    Unparsable {
        /// The source file.
        path: PathBuf,
        /// The first error's line.
        line: u32,
        /// The first error.
        message: String,
        /// How many errors.
        errors: usize,
    },
    /// The analysis a metadata file holds was made for another plan (other methods
    /// selected): what is written from it would not be what the plan asks for.
    #[error("stale analysis in {path}: {reason}")]
    AnalysisStale {
        /// The metadata file.
        path: PathBuf,
        /// What changed.
        reason: String,
    },
    /// A metadata file `analyze` wrote for a source file `discover` never planned: it has no
    /// spec path, so there is nowhere to write a spec from it yet.
    #[error("{source_file} was analyzed but never discovered: {path} has no spec_path")]
    NotDiscovered {
        /// The metadata file.
        path: PathBuf,
        /// The source file, as the metadata names it.
        source_file: String,
    },
    /// A write the guard refused: outside the project root, under `.git/`, or a spec or
    /// metadata target that is not a spec or metadata file (`crate::guard`).
    #[error("write refused: {reason}")]
    WriteRefused {
        /// The target as given.
        path: PathBuf,
        /// Why.
        reason: String,
        /// Which rule refused it.
        code: Refusal,
    },
    /// `init`: the project is not one the pipeline can set up (no Gemfile, Minitest only,
    /// no RSpec, no spec folder).
    #[error("{message}")]
    ProjectSetup {
        /// Which problem.
        code: SetupProblem,
        /// What is wrong.
        message: String,
        /// The files that told.
        details: String,
        /// What to do.
        hint: String,
    },
    /// A path from an MCP client that leaves the project root (`..`, an absolute path
    /// elsewhere, a symbolic link out).
    #[error("path outside the project root: {path}")]
    OutsideRoot {
        /// The path as given.
        path: PathBuf,
        /// The project root.
        root: PathBuf,
    },
}

impl Error {
    /// The stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::SourceNotFound { .. } => "SOURCE_NOT_FOUND",
            Error::NotRuby { .. } => "NOT_RUBY_SOURCE",
            Error::Unreadable { .. } => "UNREADABLE",
            Error::NotAGitRepository { .. } => "NOT_A_GIT_REPOSITORY",
            Error::BadBaseRef { .. } => "BAD_BASE_REF",
            Error::Git { .. } => "GIT_ERROR",
            Error::MetadataInvalid { .. } => "METADATA_INVALID",
            Error::MetadataNotFound { .. } => "METADATA_NOT_FOUND",
            Error::WriteFailed { .. } => "WRITE_FAILED",
            Error::ConfigInvalid { .. } => "CONFIG_INVALID",
            Error::NothingToDo { .. } => "NO_TESTABLE_FILES",
            Error::Spec { .. } => "SPEC_ERROR",
            Error::Usage { .. } => "USAGE",
            Error::OutsideRoot { .. } => "PATH_OUTSIDE_ROOT",
            Error::WriteRefused { code, .. } => code.as_str(),
            Error::AnalysisStale { .. } => "ANALYSIS_STALE",
            Error::NotDiscovered { .. } => "NOT_DISCOVERED",
            Error::Unparsable { .. } => "SOURCE_UNPARSABLE",
            Error::ProjectSetup { code, .. } => code.as_str(),
        }
    }

    /// Whether the caller can fix it and run again (as opposed to a broken environment).
    pub fn recoverable(&self) -> bool {
        !matches!(self, Error::Git { .. })
    }

    /// More detail than the one-line message.
    pub fn details(&self) -> String {
        match self {
            Error::SourceNotFound { path } => format!("{} does not exist", path.display()),
            Error::NotRuby { path } => format!(
                "{} is not Ruby: rspec-scout reads .rb files (and .rake, .gemspec, .ru, Gemfile, Rakefile, Ruby scripts)",
                path.display()
            ),
            Error::Unreadable { reason, .. } | Error::WriteFailed { reason, .. } => reason.clone(),
            Error::NotAGitRepository { path } => {
                format!("no .git directory in {} or any parent", path.display())
            }
            Error::BadBaseRef { reason, .. }
            | Error::MetadataInvalid { reason, .. }
            | Error::ConfigInvalid { reason, .. } => reason.clone(),
            Error::Git { message } => message.clone(),
            Error::MetadataNotFound { path } => format!("{} does not exist", path.display()),
            Error::NothingToDo { details, .. } => details.clone(),
            Error::Spec { path, .. } => path.display().to_string(),
            Error::Usage { message } => message.clone(),
            Error::OutsideRoot { root, .. } => {
                format!("the server reads and writes only under {}", root.display())
            }
            Error::WriteRefused { path, .. } => path.display().to_string(),
            Error::ProjectSetup { details, .. } => details.clone(),
            Error::AnalysisStale { reason, .. } => reason.clone(),
            Error::NotDiscovered { path, .. } => format!(
                "{} holds an analysis but no discovery (spec_path, the plan's fields): `analyze` alone does not plan a file",
                path.display()
            ),
            Error::Unparsable { errors, .. } => format!(
                "{} syntax error{}; the methods and branches the parser recovered may be missing or wrong, so no plan is written from them",
                errors,
                if *errors == 1 { "" } else { "s" }
            ),
        }
    }

    /// What to do about it.
    pub fn suggestion(&self) -> String {
        match self {
            Error::SourceNotFound { .. } => "check the path; paths are relative to the current directory".to_string(),
            Error::NotRuby { .. } => {
                "name Ruby files, or a folder (its in-scope .rb files are read and the rest left out)".to_string()
            }
            // Files read but refused (binary, too large, not a regular file): permissions are
            // not the problem, so say what is.
            Error::Unreadable { reason, .. } if reason.starts_with("binary file") => {
                "it is not Ruby source: leave it out, or add it to `exclude:` in .rspec-scout.yml".to_string()
            }
            Error::Unreadable { reason, .. } if reason.contains("max_file_size") => {
                "raise max_file_size in .rspec-scout.yml, or add the file to `exclude:`".to_string()
            }
            Error::Unreadable { reason, .. } if reason.starts_with("not a regular file") => {
                "name a regular .rb file (FIFOs and devices are never read)".to_string()
            }
            Error::Unreadable { .. } => "check the file's permissions".to_string(),
            Error::NotAGitRepository { .. } => {
                "run inside a git checkout, or name files explicitly (`discover PATH...`) for single mode".to_string()
            }
            Error::BadBaseRef { .. } => {
                "pass an existing branch, tag or commit with --base, or set `base:` in .rspec-scout.yml".to_string()
            }
            Error::Git { .. } => "check the repository with `git fsck`; it may be corrupt".to_string(),
            Error::MetadataInvalid { .. } => {
                "fix the file by hand, or delete it and re-run `rspec-scout discover` to recreate it".to_string()
            }
            Error::MetadataNotFound { .. } => "run `rspec-scout discover` (or `analyze FILE`) first".to_string(),
            Error::WriteFailed { .. } => {
                // Only `discover` has --no-metadata; analyze, test-config and skeleton must write.
                "make the metadata folder writable (`discover --no-metadata` only prints the plan)".to_string()
            }
            Error::ConfigInvalid { .. } => {
                "fix that key in the config file; `rspec-scout --help` lists the keys (under --config) and README's Configuration section shows each with its type".to_string()
            }
            Error::NothingToDo { hint: Some(hint), .. } => hint.clone(),
            Error::NothingToDo { .. } => {
                "check that changed files are .rb files under app/ or lib/, or pass --all or a path".to_string()
            }
            Error::Spec { .. } => "fix the spec file or the metadata and run again".to_string(),
            Error::Usage { .. } => "see `rspec-scout --help`".to_string(),
            Error::OutsideRoot { .. } => {
                "name a path inside the project, relative to its root".to_string()
            }
            Error::ProjectSetup { hint, .. } => hint.clone(),
            Error::Unparsable { .. } => {
                "fix the syntax error (`ruby -c FILE` shows it) and run again; the other files are analyzed".to_string()
            }
            Error::AnalysisStale { reason, .. }
                if reason.starts_with(crate::metadata::fields::NOTHING_SELECTED) =>
            {
                "plan every method of the file with `rspec-scout discover --all FILE`, analyze it, then run this again".to_string()
            }
            Error::AnalysisStale { .. } => {
                "run `rspec-scout analyze --from-metadata` (or `analyze FILE`) so the analysis follows the plan, then run this again".to_string()
            }
            Error::NotDiscovered { source_file, .. } => format!(
                "run `rspec-scout discover --all {source_file}` (every method of the file; plain `discover` plans what changed), then `rspec-scout analyze {source_file}`, then this again"
            ),
            Error::WriteRefused { code: Refusal::OutsideRoot, .. } => {
                "keep metadata_path relative and inside the project (no `..`, no link out of it), and name targets inside the project root".to_string()
            }
            Error::WriteRefused { code: Refusal::NotASpecFile, .. } => {
                "name a `*_spec.rb` file under spec/ (or leave --spec out: the metadata's spec_path is used)".to_string()
            }
            Error::WriteRefused { code: Refusal::NotAMetadataFile, .. } => {
                "name a metadata file ({metadata_path}/rspec_metadata/{slug}.yml), or the source file whose metadata it is".to_string()
            }
        }
    }

    /// The message shown as `error:`. For "nothing to do" it is the contract's exact text.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

/// Which rule of the write guard refused a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `WRITE_OUTSIDE_ROOT`: the target leaves the project root or is under `.git/`.
    OutsideRoot,
    /// `NOT_A_SPEC_FILE`: a spec target that is not a `*_spec.rb` file in a spec folder.
    NotASpecFile,
    /// `NOT_A_METADATA_FILE`: a metadata target that is not a `.yml` file in a
    /// `rspec_metadata` folder.
    NotAMetadataFile,
}

impl Refusal {
    /// The stable `error_code`.
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::OutsideRoot => "WRITE_OUTSIDE_ROOT",
            Refusal::NotASpecFile => "NOT_A_SPEC_FILE",
            Refusal::NotAMetadataFile => "NOT_A_METADATA_FILE",
        }
    }
}

/// Why `init` cannot set a project up for the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupProblem {
    /// `NO_GEMFILE`: no `Gemfile` at the root.
    NoGemfile,
    /// `MINITEST_ONLY`: the project tests with Minitest and has no sign of RSpec.
    MinitestOnly,
    /// `NO_RSPEC`: no rspec gem in the Gemfile or its lockfile.
    NoRspec,
    /// `NO_SPEC_DIRECTORY`: RSpec is in the Gemfile but the spec folder does not exist.
    NoSpecDirectory,
}

impl SetupProblem {
    /// The stable `error_code`.
    pub fn as_str(self) -> &'static str {
        match self {
            SetupProblem::NoGemfile => "NO_GEMFILE",
            SetupProblem::MinitestOnly => "MINITEST_ONLY",
            SetupProblem::NoRspec => "NO_RSPEC",
            SetupProblem::NoSpecDirectory => "NO_SPEC_DIRECTORY",
        }
    }
}

/// Shorthand for results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
