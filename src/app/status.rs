//! `rspec-scout status [PATH...]`: per source file, which pipeline stages are done, the
//! errors and warnings they recorded, and whether the cached analysis still matches the
//! source (`source_mtime` equal to the file's mtime and `source_digest` equal to its
//! sha256). Without PATHs it lists every metadata file under
//! `{root}/{metadata_path}/rspec_metadata/`; a PATH that is a file names one source file,
//! a folder every metadata file whose `source_file` lies under it. Metadata that does not
//! load is reported for that file (`METADATA_INVALID`) and the run goes on.

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::index::walk;
use crate::metadata::{self, fields};
use crate::report::status::{
    self, FileStatus, Leftover, Leftovers, MethodCounts, PlanInfo, Stages,
};
use crate::report::{Answer, AnswerSize, OnPhase, SizeRule};
use crate::ruby;
use crate::yaml::{Mapping, Value};

/// Options of `status`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Source files or folders (default: the files of the last plan, else every metadata
    /// file under the root).
    pub paths: Vec<PathBuf>,
    /// Every metadata file under the root, not only the last plan's.
    pub all_metadata: bool,
    /// Where each phase is reported (nothing by default).
    pub progress: OnPhase,
    /// How large the printed answer may be (default: whole).
    pub answer: AnswerSize,
}

/// Runs the command.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut plan_info: Option<PlanInfo> = None;
    let mut leftovers: Option<Leftovers> = None;
    let root = config.root.clone();
    let record = if options.paths.is_empty() && !options.all_metadata {
        metadata::plan::read(&root, &config.metadata_path)?
    } else {
        None
    };
    if let Some(record) = &record {
        let dir = config.metadata_dir(&root);
        for f in &record.files {
            entries.push(Entry {
                metadata: dir.join(format!("{}.yml", f.slug)),
                project_root: root.clone(),
                source_rel: Some(f.source_file.clone()),
            });
        }
        let others: Vec<PathBuf> = metadata::files_in(&dir)
            .into_iter()
            .filter(|path| {
                path.file_stem()
                    .is_none_or(|stem| !record.has_slug(&stem.to_string_lossy()))
            })
            .collect();
        leftovers = Some(leftovers_of(config, &others));
        plan_info = Some(PlanInfo {
            mode: record.mode.clone(),
            base: record.base.clone(),
            files: record.files.len(),
            selected_methods: record.selected_methods(),
            record: shown(
                config,
                &metadata::plan::record_path(&root, &config.metadata_path),
            ),
        });
    } else if options.paths.is_empty() {
        for path in metadata::files_in(&config.metadata_dir(&root)) {
            entries.push(Entry {
                metadata: path,
                project_root: root.clone(),
                source_rel: None,
            });
        }
    }
    for path in &options.paths {
        if path.is_dir() {
            entries.extend(folder_entries(config, path));
        } else {
            let location = config.locate(path);
            if !path.exists() && !location.path.exists() {
                return Err(Error::SourceNotFound { path: path.clone() });
            }
            entries.push(Entry {
                metadata: location.path,
                project_root: location.project_root,
                source_rel: Some(location.source_rel),
            });
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    entries.retain(|e| seen.insert(e.metadata.clone()));

    let phase = options.progress.start("status", entries.len());
    // What analyze's cache compares besides the source (see `AnalysisInputs::check`).
    let inputs = (
        fields::AnalysisInputs::analyzer(),
        fields::AnalysisInputs::rules_digest(
            &config.side_effects,
            super::project_gems(&config.root).as_deref(),
        ),
    );
    let mut files: Vec<FileStatus> = entries
        .iter()
        .map(|e| {
            let status = file_status(config, e, &inputs);
            phase.tick();
            status
        })
        .collect();
    phase.finish();
    files.sort_by(|a, b| {
        (a.source_file.is_empty(), &a.source_file, &a.metadata).cmp(&(
            b.source_file.is_empty(),
            &b.source_file,
            &b.metadata,
        ))
    });
    let rule = (options.answer != AnswerSize::Full).then(|| SizeRule {
        size: options.answer,
        limit: config.answer_limit,
        full_path: Some(metadata::plan::state_dir(&root, &config.metadata_path).join("status")),
        root: root.clone(),
        no_file: None,
    });
    Ok(status::answer(
        config.root.display().to_string(),
        files,
        plan_info,
        leftovers,
        rule,
    ))
}

/// The metadata files outside the plan: where each one's source stands.
fn leftovers_of(config: &Config, paths: &[PathBuf]) -> Leftovers {
    let mut out = Leftovers::default();
    for path in paths {
        let (source_file, reason) = match metadata::load(path) {
            Ok(Some(map)) => match map.get("source_file").and_then(Value::as_str) {
                Some(source) if config.root.join(source).is_file() => {
                    (source.to_string(), "not in the last plan")
                }
                Some(source) => (source.to_string(), "source gone"),
                None => (String::new(), "names no source"),
            },
            Ok(None) => continue,
            Err(_) => (String::new(), "does not load"),
        };
        if reason == "source gone" {
            out.source_gone += 1;
        }
        out.files.push(Leftover {
            metadata: shown(config, path),
            source_file,
            reason,
        });
    }
    out.count = out.files.len();
    out
}

/// A metadata file to report on.
struct Entry {
    metadata: PathBuf,
    project_root: PathBuf,
    /// The source path when the user named it (else read from the metadata).
    source_rel: Option<String>,
}

/// The metadata files whose source lies under `folder`.
fn folder_entries(config: &Config, folder: &Path) -> Vec<Entry> {
    let abs = walk::absolute(folder);
    let project_root = crate::git::root_of(&abs)
        .filter(|r| abs.starts_with(r))
        .unwrap_or_else(|| config.root.clone());
    let rel = walk::relative_to(&project_root, &abs).unwrap_or_default();
    let prefix = if rel.is_empty() {
        String::new()
    } else {
        format!("{rel}/")
    };
    let slug_prefix = if rel.is_empty() {
        String::new()
    } else {
        format!("{}_", crate::naming::slug(&rel))
    };
    metadata::files_in(&config.metadata_dir(&project_root))
        .into_iter()
        .filter(|path| match metadata::load(path) {
            Ok(Some(map)) => map
                .get("source_file")
                .and_then(Value::as_str)
                .is_some_and(|s| s.starts_with(&prefix)),
            Ok(None) => false,
            // Unreadable metadata: judge by its name.
            Err(_) => path
                .file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.starts_with(&slug_prefix)),
        })
        .map(|metadata| Entry {
            metadata,
            project_root: project_root.clone(),
            source_rel: None,
        })
        .collect()
}

fn shown(config: &Config, path: &Path) -> String {
    walk::relative_to(&config.root, path)
        .or_else(|| {
            let abs = walk::absolute(path);
            walk::relative_to(&walk::absolute(&config.root), &abs)
        })
        .unwrap_or_else(|| path.display().to_string())
}

fn file_status(config: &Config, entry: &Entry, inputs: &(String, String)) -> FileStatus {
    let mut status = FileStatus {
        source_file: entry.source_rel.clone().unwrap_or_default(),
        metadata: shown(config, &entry.metadata),
        state: "ok",
        class_name: None,
        stages: Stages::default(),
        skipped: Vec::new(),
        next_stage: "-".to_string(),
        cache: "unknown".to_string(),
        methods: None,
        errors: Vec::new(),
        warnings: Vec::new(),
        error_code: None,
        error: None,
    };
    let map = match metadata::load(&entry.metadata) {
        Ok(Some(map)) => map,
        Ok(None) => {
            status.state = "no metadata";
            status.metadata = String::new();
            status.next_stage = metadata::STAGES
                .first()
                .copied()
                .unwrap_or_default()
                .to_string();
            status.cache = "no analysis".to_string();
            return status;
        }
        Err(e) => {
            status.state = "invalid";
            status.error_code = Some(e.code());
            status.error = Some(e.details());
            return status;
        }
    };
    if status.source_file.is_empty() {
        if let Some(source) = map.get("source_file").and_then(Value::as_str) {
            status.source_file = source.to_string();
        }
    }
    status.class_name = map
        .get("class_name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let automation = match map.get("automation") {
        Some(Value::Mapping(a)) => a.clone(),
        _ => Mapping::new(),
    };
    let done = |stage: &str| metadata::is_completed(&map, stage);
    status.stages = Stages {
        discovery_agent: done("discovery_agent"),
        code_analyzer: done("code_analyzer"),
        isolation_decider: done("isolation_decider"),
        spec_writer: done("spec_writer"),
        test_reviewer: done("test_reviewer"),
    };
    status.skipped = metadata::STAGES
        .iter()
        .filter(|s| automation.get(format!("{s}_skipped")) == Some(&Value::Bool(true)))
        .map(|s| s.to_string())
        .collect();
    status.next_stage = status
        .stages
        .in_order()
        .iter()
        .find(|(stage, done)| !done && !status.skipped.iter().any(|s| s == stage))
        .map_or("done", |(stage, _)| stage)
        .to_string();
    status.errors = texts(automation.get("errors"));
    status.warnings = texts(automation.get("warnings"));
    status.methods = Some(method_counts(&map));
    status.cache = cache_state(&map, &entry.project_root, &status.source_file);
    if status.cache == "valid" {
        // The source is the same; so must be what else the analysis read.
        let root = &entry.project_root;
        let digest_of = |rel: &str| {
            std::fs::read(root.join(rel))
                .ok()
                .map(|b| metadata::digest(&b))
        };
        if let Err(why) = fields::AnalysisInputs::check(&map, &inputs.0, &inputs.1, digest_of) {
            status.cache = format!("stale ({why})");
        }
    }
    status
}

fn texts(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Sequence(items)) => items.iter().map(ruby::to_s).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![ruby::to_s(other)],
    }
}

fn method_counts(map: &Mapping) -> MethodCounts {
    let items = |key: &str| match map.get(key) {
        Some(Value::Sequence(items)) => items.as_slice(),
        _ => &[],
    };
    let methods: Vec<&Mapping> = items("methods")
        .iter()
        .filter_map(|m| match m {
            Value::Mapping(m) => Some(m),
            _ => None,
        })
        .collect();
    MethodCounts {
        selected: items("methods_to_analyze")
            .iter()
            .filter(|m| m.get("selected") == Some(&Value::Bool(true)))
            .count(),
        analyzed: methods.len(),
        test_config: methods
            .iter()
            .filter(|m| matches!(m.get("test_config"), Some(Value::Mapping(_))))
            .count(),
    }
}

/// Whether the analysis recorded in `map` still describes the source.
fn cache_state(map: &Mapping, project_root: &Path, source_rel: &str) -> String {
    if !metadata::is_completed(map, "code_analyzer") {
        return "no analysis".to_string();
    }
    if source_rel.is_empty() {
        return "missing source".to_string();
    }
    let source = project_root.join(source_rel);
    if !source.is_file() {
        return "missing source".to_string();
    }
    let Ok(bytes) = std::fs::read(&source) else {
        return "unreadable source".to_string();
    };
    let mtime_matches = map
        .get("source_mtime")
        .and_then(Value::as_i64)
        .is_some_and(|recorded| metadata::mtime(&source) == Some(recorded));
    let state = match map.get("source_digest").and_then(Value::as_str) {
        Some(recorded) if recorded != metadata::digest(&bytes) => "stale (source changed)",
        Some(_) if mtime_matches => "valid",
        Some(_) => "stale (mtime only)",
        None if mtime_matches => "unverified (no source_digest)",
        None => "stale (mtime changed)",
    };
    state.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> Mapping {
        match crate::yaml::load(text.as_bytes(), "t").unwrap() {
            Value::Mapping(m) => m,
            _ => panic!("not a mapping"),
        }
    }

    #[test]
    fn cache_states() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.rb"), "class A; end\n").unwrap();
        let mtime = metadata::mtime(&dir.path().join("a.rb")).unwrap();
        let digest = metadata::digest(b"class A; end\n");
        let done = "automation: {code_analyzer_completed: true}\n";
        let state = |extra: &str| cache_state(&map(&format!("{done}{extra}")), dir.path(), "a.rb");
        assert_eq!(
            state(&format!("source_mtime: {mtime}\nsource_digest: {digest}\n")),
            "valid"
        );
        assert_eq!(
            state(&format!(
                "source_mtime: {}\nsource_digest: {digest}\n",
                mtime - 5
            )),
            "stale (mtime only)"
        );
        assert_eq!(
            state(&format!(
                "source_mtime: {mtime}\nsource_digest: sha256:00\n"
            )),
            "stale (source changed)"
        );
        assert_eq!(
            state(&format!("source_mtime: {mtime}\n")),
            "unverified (no source_digest)"
        );
        assert_eq!(state("source_mtime: 1\n"), "stale (mtime changed)");
        assert_eq!(
            cache_state(&map(done), dir.path(), "gone.rb"),
            "missing source"
        );
        assert_eq!(
            cache_state(&map("automation: {}\n"), dir.path(), "a.rb"),
            "no analysis"
        );
    }

    #[test]
    fn counts_and_texts() {
        let m = map("methods_to_analyze: [{selected: true}, {selected: false}, {selected: true}]\nmethods: [{name: a, test_config: {}}, {name: b}, x]\n");
        let c = method_counts(&m);
        assert_eq!((c.selected, c.analyzed, c.test_config), (2, 2, 1));
        assert_eq!(texts(Some(&Value::from("one"))), vec!["one"]);
    }
}
