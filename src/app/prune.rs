//! `rspec-scout prune`: removes the metadata files whose source file is gone, and those the
//! last plan does not reference (`discover`'s record; without one, only the first kind).
//! Nothing else is deleted: not a metadata file that does not load (its source cannot be
//! told), not the plan's own files, not spec files, not `discovery_debug/`. `--dry-run`
//! lists what would go.

use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::index::walk;
use crate::metadata;
use crate::report::{plural, Answer};
use crate::yaml::Value;

/// Options of `prune`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// List what would be removed; remove nothing.
    pub dry_run: bool,
}

#[derive(Debug, Serialize)]
struct PruneAnswer {
    status: &'static str,
    dry_run: bool,
    /// Removed (or, with `--dry-run`, to be removed).
    removed: Vec<Gone>,
    /// Metadata files that do not load: left as they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unreadable: Vec<Unreadable>,
    summary: Summary,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Gone {
    metadata: String,
    source_file: String,
    /// `source gone`, `not in the last plan` or `names no source`.
    reason: &'static str,
}

#[derive(Debug, Serialize)]
struct Unreadable {
    metadata: String,
    error: String,
}

#[derive(Debug, Serialize)]
struct Summary {
    removed: usize,
    kept: usize,
    unreadable: usize,
}

/// Runs the command.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    let root = &config.root;
    let dir = config.metadata_dir(root);
    let record = metadata::plan::read(root, &config.metadata_path)?;
    let mut warnings = Vec::new();
    if record.is_none() {
        warnings.push(
            "no plan recorded: only metadata whose source is gone is removed; `rspec-scout discover` records a plan"
                .to_string(),
        );
    }
    let cleared = if options.dry_run || !dir.is_dir() {
        None
    } else {
        Some(crate::guard::folder(root, &dir)?)
    };
    let _lock = match &cleared {
        Some(cleared) => Some(metadata::lock_dir(cleared)?),
        None => None,
    };
    let mut removed = Vec::new();
    let mut unreadable = Vec::new();
    let mut kept = 0;
    for path in metadata::files_in(&dir) {
        let shown = walk::relative_to(root, &path).unwrap_or_else(|| path.display().to_string());
        let map = match metadata::load(&path) {
            Ok(Some(map)) => map,
            Ok(None) => continue,
            Err(e) => {
                unreadable.push(Unreadable {
                    metadata: shown,
                    error: e.details(),
                });
                continue;
            }
        };
        let source = map
            .get("source_file")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let in_plan = record.as_ref().map(|r| {
            path.file_stem()
                .is_some_and(|stem| r.has_slug(&stem.to_string_lossy()))
        });
        let reason = match (source, in_plan) {
            (Some(s), _) if !root.join(s).is_file() => Some("source gone"),
            (_, Some(false)) if source.is_none() => Some("names no source"),
            (_, Some(false)) => Some("not in the last plan"),
            _ => None,
        };
        let Some(reason) = reason else {
            kept += 1;
            continue;
        };
        if let Some(cleared) = &cleared {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            metadata::remove(&cleared.file(&name)?)?;
        }
        removed.push(Gone {
            metadata: shown,
            source_file: source.unwrap_or_default().to_string(),
            reason,
        });
    }
    let summary = Summary {
        removed: removed.len(),
        kept,
        unreadable: unreadable.len(),
    };
    let text = text(&removed, &unreadable, &summary, options.dry_run, &warnings);
    Ok(Answer::new(
        &PruneAnswer {
            status: "success",
            dry_run: options.dry_run,
            removed,
            unreadable,
            summary,
            warnings,
        },
        text,
        0,
    ))
}

fn text(
    removed: &[Gone],
    unreadable: &[Unreadable],
    summary: &Summary,
    dry_run: bool,
    warnings: &[String],
) -> String {
    let verb = if dry_run { "would remove" } else { "removed" };
    let mut out = String::new();
    for w in warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    for g in removed {
        let source = if g.source_file.is_empty() {
            String::new()
        } else {
            format!("{}: ", g.source_file)
        };
        out.push_str(&format!("{verb} {} ({source}{})\n", g.metadata, g.reason));
    }
    for u in unreadable {
        out.push_str(&format!(
            "left {} (does not load: {})\n",
            u.metadata, u.error
        ));
    }
    let done = if dry_run {
        "would be removed"
    } else {
        "removed"
    };
    out.push_str(&format!(
        "{} {done}, {} kept{}\n",
        plural(summary.removed, "metadata file"),
        summary.kept,
        if summary.unreadable > 0 {
            format!(", {} that do not load left as they are", summary.unreadable)
        } else {
            String::new()
        }
    ));
    out
}
