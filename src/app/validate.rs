//! `rspec-scout validate`: checks metadata files for a pipeline stage (the pipeline's
//! `validate_metadata_stage.rb`), or only that YAML files load (`--yaml`, its
//! `validate_yaml.rb`).
//!
//! The default output is the original's text protocol, byte for byte for one file: errors
//! on stderr after `Metadata validation failed:` (exit 1); warnings on stderr after
//! `Metadata validation warnings:` and `OK` on stdout (exit 2); `OK` alone (exit 0); a
//! file that cannot be checked at all gives one `Error: ...` line (exit 1). With several
//! files each block's first line and each `OK` are prefixed with the file's path and the
//! exit code is the worst (1 over 2 over 0). `--format yaml|json` gives the same findings
//! as data.
//!
//! The spec-writer stage looks for `spec_path` relative to the project root the metadata
//! file belongs to (the folder holding `{metadata_path}/rspec_metadata/`), else relative
//! to `--root` (by default the git root above the current directory). The original looks
//! relative to the current directory, which is the same place when it runs, as the
//! pipeline runs it, from the project root.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::metadata::validate::{self, Checks, SpecFile, Stage};
use crate::report::Answer;
use crate::yaml;

/// Options of `validate`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Metadata files (or YAML files with `yaml`).
    pub files: Vec<PathBuf>,
    /// The stage to check for (required without `yaml`).
    pub stage: Option<Stage>,
    /// Only check that each input loads (validate_yaml.rb).
    pub yaml: bool,
    /// With `yaml`: read standard input too.
    pub stdin: bool,
    /// Add the checks the original validator never made, as errors.
    pub strict: bool,
}

/// Runs the command. Findings are never an `Err`: they are the answer (exit 1 or 2).
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    if options.yaml {
        let stdin = if options.stdin {
            let mut bytes = Vec::new();
            Some(
                std::io::stdin()
                    .read_to_end(&mut bytes)
                    .map(|_| bytes)
                    .map_err(|e| e.to_string()),
            )
        } else {
            None
        };
        return Ok(yaml_answer(&options.files, stdin));
    }
    let Some(stage) = options.stage else {
        return Ok(usage_error(&format!(
            "--stage must be one of: {}",
            Stage::NAMES.join(", ")
        )));
    };
    if options.files.is_empty() {
        return Ok(usage_error("a metadata FILE is required"));
    }
    let results: Vec<FileResult> = options
        .files
        .iter()
        .map(|path| check_file(config, stage, path, options.strict))
        .collect();
    Ok(stage_answer(stage, options.strict, &results))
}

/// The project root a metadata file belongs to: the folder holding
/// `{metadata_path}/rspec_metadata/` when the file sits in one, else `--root`.
pub fn project_root_of_metadata(config: &Config, metadata_file: &Path) -> PathBuf {
    let abs = crate::index::walk::absolute(metadata_file);
    let metadata_path = Path::new(&config.metadata_path);
    let derived = abs
        .parent()
        .filter(|dir| dir.file_name().is_some_and(|n| n == "rspec_metadata"))
        .and_then(Path::parent)
        .filter(|base| !metadata_path.is_absolute() && base.ends_with(metadata_path))
        .map(|base| {
            let mut root = base.to_path_buf();
            for _ in metadata_path.components() {
                root.pop();
            }
            root
        });
    derived.unwrap_or_else(|| config.root.clone())
}

/// The outcome for one file.
#[derive(Debug, Clone)]
struct FileResult {
    /// The path as given.
    path: String,
    /// Why the file could not be checked at all (the original's `Error: ...` line), with
    /// its error code.
    fatal: Option<(String, &'static str)>,
    outcome: validate::Outcome,
}

impl FileResult {
    fn exit_code(&self) -> u8 {
        if self.fatal.is_some() || !self.outcome.errors.is_empty() {
            1
        } else if !self.outcome.warnings.is_empty() {
            2
        } else {
            0
        }
    }

    fn status(&self) -> &'static str {
        match self.exit_code() {
            0 => "ok",
            2 => "warnings",
            _ => "failed",
        }
    }
}

fn check_file(config: &Config, stage: Stage, path: &Path, strict: bool) -> FileResult {
    let label = path.display().to_string();
    let fatal = |message: String, code: &'static str| FileResult {
        path: label.clone(),
        fatal: Some((message, code)),
        outcome: validate::Outcome::default(),
    };
    if !path.exists() {
        return fatal(
            format!("Metadata file not found: {label}"),
            "METADATA_NOT_FOUND",
        );
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            return fatal(
                format!(
                    "Cannot read metadata file: {label}: {}",
                    io_reason(path, &e)
                ),
                "UNREADABLE",
            )
        }
    };
    let value = match yaml::load(without_bom(&bytes), &label) {
        Ok(value) => value,
        Err(e) => return fatal(format!("Cannot parse YAML: {e}"), "METADATA_INVALID"),
    };
    let root = project_root_of_metadata(config, path);
    let spec_file = |spec_path: &str| read_spec(&root, spec_path);
    let outcome = validate::validate(
        stage,
        &value,
        &Checks {
            strict,
            spec_file: &spec_file,
        },
    );
    FileResult {
        path: label,
        fatal: None,
        outcome,
    }
}

/// The text after a UTF-8 byte order mark, which Psych skips.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

fn read_spec(root: &Path, spec_path: &str) -> SpecFile {
    let path = root.join(spec_path);
    if !path.exists() {
        return SpecFile::Missing;
    }
    match std::fs::read(&path) {
        Ok(bytes) => SpecFile::Text(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) => SpecFile::Unreadable(io_reason(&path, &e)),
    }
}

fn io_reason(path: &Path, e: &std::io::Error) -> String {
    if path.is_dir() {
        "is a directory".to_string()
    } else if e.kind() == std::io::ErrorKind::PermissionDenied {
        "permission denied".to_string()
    } else {
        e.to_string()
    }
}

fn usage_error(message: &str) -> Answer {
    let body = StageAnswer {
        status: "failed",
        stage: None,
        strict: false,
        error: Some(message.to_string()),
        files: Vec::new(),
    };
    let mut answer = Answer::new(&body, String::new(), 1);
    answer.stderr.push(format!("Error: {message}"));
    answer
}

/// The answer of `validate --stage`.
#[derive(Debug, Serialize)]
struct StageAnswer {
    /// `ok`, `warnings` or `failed`: the worst of the files.
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    stage: Option<&'static str>,
    strict: bool,
    /// A problem with the command itself (no file, no stage).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    files: Vec<FileAnswer>,
}

/// One file in [`StageAnswer`].
#[derive(Debug, Serialize)]
struct FileAnswer {
    path: String,
    /// `ok`, `warnings` or `failed`.
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<&'static str>,
    errors: Vec<String>,
    warnings: Vec<String>,
}

fn stage_answer(stage: Stage, strict: bool, results: &[FileResult]) -> Answer {
    let exit_code = results.iter().map(FileResult::exit_code).fold(0, worst);
    let single = results.len() == 1;
    let mut stdout = String::new();
    let mut stderr = Vec::new();
    for result in results {
        let prefix = if single {
            String::new()
        } else {
            format!("{}: ", result.path)
        };
        if let Some((message, _)) = &result.fatal {
            stderr.push(format!("{prefix}Error: {message}"));
        } else if !result.outcome.errors.is_empty() {
            stderr.push(format!("{prefix}Metadata validation failed:"));
            stderr.extend(result.outcome.errors.iter().map(|e| format!("- {e}")));
        } else {
            if !result.outcome.warnings.is_empty() {
                stderr.push(format!("{prefix}Metadata validation warnings:"));
                stderr.extend(result.outcome.warnings.iter().map(|w| format!("- {w}")));
            }
            stdout.push_str(&format!("{prefix}OK\n"));
        }
    }
    let body = StageAnswer {
        status: status_name(exit_code),
        stage: Some(stage.as_str()),
        strict,
        error: None,
        files: results
            .iter()
            .map(|r| FileAnswer {
                path: r.path.clone(),
                status: r.status(),
                error_code: r.fatal.as_ref().map(|(_, code)| *code),
                errors: match &r.fatal {
                    Some((message, _)) => vec![message.clone()],
                    None => r.outcome.errors.clone(),
                },
                warnings: r.outcome.warnings.clone(),
            })
            .collect(),
    };
    let mut answer = Answer::new(&body, stdout, exit_code);
    answer.stderr = stderr;
    answer
}

/// Combines exit codes: 1 (errors) beats 2 (warnings) beats 0.
fn worst(a: u8, b: u8) -> u8 {
    match (a, b) {
        (1, _) | (_, 1) => 1,
        (2, _) | (_, 2) => 2,
        _ => a.max(b),
    }
}

fn status_name(exit_code: u8) -> &'static str {
    match exit_code {
        0 => "ok",
        2 => "warnings",
        _ => "failed",
    }
}

/// The answer of `validate --yaml`.
#[derive(Debug, Serialize)]
struct YamlAnswer {
    /// `ok` or `failed`.
    status: &'static str,
    inputs: Vec<YamlInput>,
}

/// One input in [`YamlAnswer`].
#[derive(Debug, Serialize)]
struct YamlInput {
    /// The path, or `(stdin)`.
    input: String,
    /// `ok` or `failed`.
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// `validate_yaml.rb`: standard input first (when asked), then each file; every input that
/// does not load as Psych's `YAML.load` would gives one line.
fn yaml_answer(files: &[PathBuf], stdin: Option<std::result::Result<Vec<u8>, String>>) -> Answer {
    let mut inputs = Vec::new();
    if let Some(read) = stdin {
        let label = "(stdin)".to_string();
        let error = match read {
            Ok(bytes) => yaml::load(without_bom(&bytes), "<unknown>")
                .err()
                .map(|e| format!("{label}: {e}")),
            Err(e) => Some(format!("{label}: {e}")),
        };
        inputs.push((label, error));
    }
    for path in files {
        let label = path.display().to_string();
        let error = match std::fs::read(path) {
            Ok(bytes) => yaml::load(without_bom(&bytes), "<unknown>")
                .err()
                .map(|e| format!("{label}: {e}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Some(format!("{label}: file not found"))
            }
            Err(e) => Some(format!("{label}: {}", io_reason(path, &e))),
        };
        inputs.push((label, error));
    }
    let errors: Vec<&String> = inputs.iter().filter_map(|(_, e)| e.as_ref()).collect();
    let exit_code = u8::from(!errors.is_empty());
    let mut stderr = Vec::new();
    let mut stdout = String::new();
    if errors.is_empty() {
        stdout.push_str("OK\n");
    } else {
        stderr.push(format!("YAML validation failed ({}):", errors.len()));
        stderr.extend(errors.iter().map(|e| format!("- {e}")));
    }
    let body = YamlAnswer {
        status: if errors.is_empty() { "ok" } else { "failed" },
        inputs: inputs
            .into_iter()
            .map(|(input, error)| YamlInput {
                input,
                status: if error.is_some() { "failed" } else { "ok" },
                error,
            })
            .collect(),
    };
    let mut answer = Answer::new(&body, stdout, exit_code);
    answer.stderr = stderr;
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_exit_code_wins() {
        assert_eq!([0, 2, 0].into_iter().fold(0, worst), 2);
        assert_eq!([2, 1, 0].into_iter().fold(0, worst), 1);
        assert_eq!([0, 0].into_iter().fold(0, worst), 0);
    }

    #[test]
    fn project_root_is_found_from_the_metadata_location() {
        let mut config = Config::defaults(PathBuf::from("/elsewhere"));
        config.metadata_path = ".claude/metadata".to_string();
        assert_eq!(
            project_root_of_metadata(
                &config,
                Path::new("/repo/.claude/metadata/rspec_metadata/app_a.yml")
            ),
            PathBuf::from("/repo")
        );
        assert_eq!(
            project_root_of_metadata(&config, Path::new("/repo/tmp/rspec_metadata/app_a.yml")),
            PathBuf::from("/elsewhere")
        );
    }

    #[test]
    fn one_file_output_is_the_original_protocol() {
        let result = FileResult {
            path: "m.yml".to_string(),
            fatal: None,
            outcome: validate::Outcome {
                errors: Vec::new(),
                warnings: vec!["w".to_string()],
            },
        };
        let answer = stage_answer(Stage::DiscoveryAgent, false, std::slice::from_ref(&result));
        assert_eq!(answer.text, "OK\n");
        assert_eq!(answer.stderr, vec!["Metadata validation warnings:", "- w"]);
        assert_eq!(answer.exit_code, 2);
        let answer = stage_answer(Stage::DiscoveryAgent, false, &[result.clone(), result]);
        assert_eq!(answer.text, "m.yml: OK\nm.yml: OK\n");
    }
}
