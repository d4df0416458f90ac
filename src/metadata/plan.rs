//! The record of the last plan: which files (and, in each, which methods) the last
//! `discover` that wrote metadata selected, at `{metadata_path}/rspec_scout/plan.yml`.
//! `analyze --from-metadata`, `skeleton` and `status` work on these files by default, so
//! metadata left from earlier plans is not taken for the current one; `prune` removes
//! metadata no plan references.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::yaml::{self, Value};

/// The record.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PlanRecord {
    /// `branch`, `staged`, `single` or `all`.
    pub mode: String,
    /// The ref and commit compared with, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<RecordedBase>,
    /// The files with a metadata file, in plan order.
    pub files: Vec<PlannedFile>,
    /// Answers to questions about a file that are not asked again (kept when `discover`
    /// records a new plan).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<RecordedDecision>,
}

/// An answer given to a question about one source file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RecordedDecision {
    /// The question (`controllers_legacy_cleanup`).
    pub decision: String,
    /// The source file it is about.
    pub source_file: String,
    /// The answer (`keep`).
    pub answer: String,
}

/// The base of a recorded plan.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RecordedBase {
    /// The ref (`main`).
    #[serde(rename = "ref")]
    pub reference: String,
    /// The commit, shortened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
}

/// A file of a recorded plan.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct PlannedFile {
    /// The source path, relative to the project root.
    pub source_file: String,
    /// Its metadata slug (`{slug}.yml` in the metadata folder).
    pub slug: String,
    /// The ids of its selected methods.
    pub selected: Vec<String>,
}

impl PlanRecord {
    /// Selected methods over every file.
    pub fn selected_methods(&self) -> usize {
        self.files.iter().map(|f| f.selected.len()).sum()
    }

    /// The remembered answer to `decision` about `source_file`.
    pub fn answer(&self, decision: &str, source_file: &str) -> Option<&str> {
        self.decisions
            .iter()
            .find(|d| d.decision == decision && d.source_file == source_file)
            .map(|d| d.answer.as_str())
    }

    /// Whether the metadata file named `file_name` (`{slug}.yml`) is one of the plan's.
    pub fn has_slug(&self, slug: &str) -> bool {
        self.files.iter().any(|f| f.slug == slug)
    }
}

/// The folder of rspec-scout's own files beside the metadata:
/// `{project_root}/{metadata_path}/rspec_scout` (the plan record, whole answers).
pub fn state_dir(project_root: &Path, metadata_path: &str) -> PathBuf {
    project_root.join(metadata_path).join("rspec_scout")
}

/// The plan record's path.
pub fn record_path(project_root: &Path, metadata_path: &str) -> PathBuf {
    state_dir(project_root, metadata_path).join("plan.yml")
}

/// Writes the record atomically.
pub fn write(project_root: &Path, metadata_path: &str, record: &PlanRecord) -> Result<()> {
    let folder = crate::guard::folder(project_root, &state_dir(project_root, metadata_path))?;
    let text = yaml::to_string(&yaml::to_value(record));
    super::write_stream_atomic(&folder.file("plan.yml")?, |out| {
        out.write_all(text.as_bytes())
    })
}

/// Remembers an answer in the record (read again and written under the folder's lock);
/// nothing when no plan is recorded.
pub fn remember(
    project_root: &Path,
    metadata_path: &str,
    decision: &str,
    source_file: &str,
    answer: &str,
) -> Result<()> {
    let Some(mut record) = read(project_root, metadata_path)? else {
        return Ok(());
    };
    if record.answer(decision, source_file) == Some(answer) {
        return Ok(());
    }
    record
        .decisions
        .retain(|d| !(d.decision == decision && d.source_file == source_file));
    record.decisions.push(RecordedDecision {
        decision: decision.to_string(),
        source_file: source_file.to_string(),
        answer: answer.to_string(),
    });
    record
        .decisions
        .sort_by(|a, b| (&a.source_file, &a.decision).cmp(&(&b.source_file, &b.decision)));
    write(project_root, metadata_path, &record)
}

/// Reads the record: `Ok(None)` when there is none (no `discover` wrote metadata here, or
/// the metadata came from another tool); `METADATA_INVALID` when it does not read as one.
pub fn read(project_root: &Path, metadata_path: &str) -> Result<Option<PlanRecord>> {
    let path = record_path(project_root, metadata_path);
    let Some(map) = super::load(&path)? else {
        return Ok(None);
    };
    let invalid = |reason: &str| Error::MetadataInvalid {
        path: path.clone(),
        reason: format!("{reason} (delete it, or run `rspec-scout discover` to write it again)"),
    };
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let mode = text(map.get("mode")).ok_or_else(|| invalid("mode must be a String"))?;
    let base = match map.get("base") {
        Some(Value::Mapping(b)) => Some(RecordedBase {
            reference: text(b.get("ref")).ok_or_else(|| invalid("base.ref must be a String"))?,
            commit: text(b.get("commit")),
        }),
        None | Some(Value::Null) => None,
        Some(_) => return Err(invalid("base must be a Hash")),
    };
    let Some(Value::Sequence(items)) = map.get("files") else {
        return Err(invalid("files must be an Array"));
    };
    let mut files = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let source_file = text(item.get("source_file"))
            .ok_or_else(|| invalid(&format!("files[{i}].source_file must be a String")))?;
        let slug = text(item.get("slug"))
            .ok_or_else(|| invalid(&format!("files[{i}].slug must be a String")))?;
        let selected = match item.get("selected") {
            Some(Value::Sequence(ids)) => ids
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        files.push(PlannedFile {
            source_file,
            slug,
            selected,
        });
    }
    let mut decisions = Vec::new();
    if let Some(Value::Sequence(items)) = map.get("decisions") {
        for item in items {
            let field = |k: &str| text(item.get(k));
            if let (Some(decision), Some(source_file), Some(answer)) =
                (field("decision"), field("source_file"), field("answer"))
            {
                decisions.push(RecordedDecision {
                    decision,
                    source_file,
                    answer,
                });
            }
        }
    }
    Ok(Some(PlanRecord {
        mode,
        base,
        files,
        decisions,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let record = PlanRecord {
            mode: "branch".to_string(),
            base: Some(RecordedBase {
                reference: "main".to_string(),
                commit: Some("0123abcd".to_string()),
            }),
            files: vec![PlannedFile {
                source_file: "app/models/payment.rb".to_string(),
                slug: "app_models_payment".to_string(),
                selected: vec![
                    "Payment#total_with_fee".to_string(),
                    "Payment.for".to_string(),
                    "Payment#paid?".to_string(),
                ],
            }],
            decisions: vec![RecordedDecision {
                decision: "controllers_legacy_cleanup".to_string(),
                source_file: "app/controllers/payments_controller.rb".to_string(),
                answer: "keep".to_string(),
            }],
        };
        write(dir.path(), "tmp", &record).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("tmp/rspec_scout/plan.yml")).unwrap(),
            "mode: branch\nbase:\n  ref: main\n  commit: 0123abcd\nfiles:\n  - source_file: app/models/payment.rb\n    slug: app_models_payment\n    selected: [Payment#total_with_fee, Payment.for, \"Payment#paid?\"]\ndecisions:\n  - decision: controllers_legacy_cleanup\n    source_file: app/controllers/payments_controller.rb\n    answer: keep\n"
        );
        assert_eq!(read(dir.path(), "tmp").unwrap(), Some(record));
        assert_eq!(read(&dir.path().join("none"), "tmp").unwrap(), None);
        std::fs::write(dir.path().join("tmp/rspec_scout/plan.yml"), "mode: all\n").unwrap();
        assert_eq!(
            read(dir.path(), "tmp").unwrap_err().to_string(),
            format!(
                "invalid metadata {}: files must be an Array (delete it, or run `rspec-scout discover` to write it again)",
                dir.path().join("tmp/rspec_scout/plan.yml").display()
            )
        );
    }
}
