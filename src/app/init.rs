//! `rspec-scout init`: the pipeline's first stage (`/rspec-init`, contract §6.3). Detects
//! how the project is set up and writes `.claude/rspec-testing-config.yml`, which every
//! later stage (and every other command of this tool) reads.
//!
//! A value already in the file is never changed: a second run adds only the keys the file
//! lacks (none, when nothing new was detected, and then the file is not written at all),
//! and says where the file and the detection differ. A project without a Gemfile, or one
//! that tests with Minitest only, gets an error naming the files that told, never a
//! silent RSpec setup. A Rails project's controllers policy is a question
//! (`needs_decision`, exit 2) until a flag or the file answers it.

use std::path::Path;

use serde::Serialize;

use crate::config::{Config, PIPELINE_CONFIG_FILE};
use crate::error::{Error, Result, SetupProblem};
use crate::project::setup::{self, Detection};
use crate::project::{self, ProjectFiles};
use crate::report::Answer;
use crate::spec::materialize::{Choice, Decision};
use crate::vocab::{ControllerPolicy, ProjectType};
use crate::yaml::{self, Mapping, Value};

/// Options of `init`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `metadata_path` (default: the tool's own config, else `tmp`).
    pub metadata_path: Option<String>,
    /// `rails.controllers.spec_policy` for a Rails project (the answer to its question).
    pub controllers_policy: Option<ControllerPolicy>,
    /// Say what would be written; write nothing.
    pub dry_run: bool,
    /// `initialized_at` (default: now, in UTC); for reproducible files.
    pub now: Option<String>,
}

/// One key whose value in the file is not what init detects now (the file's is kept).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Difference {
    /// The key, with dots for nesting (`rspec.version`).
    pub key: String,
    /// The value in the file (kept).
    pub file: Value,
    /// What init detects now.
    pub detected: Value,
    /// What told it.
    pub from: String,
}

#[derive(Debug, Serialize)]
struct InitAnswer<'a> {
    status: &'static str,
    message: String,
    config_file: &'static str,
    written: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    dry_run: bool,
    added: &'a [String],
    differences: &'a [Difference],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    not_added: &'a [String],
    config: &'a Value,
    detected_from: Mapping,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    warnings: &'a [String],
}

/// Runs `init` at the configured root.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    let root = &config.root;
    let existing = read_existing(root)?;
    let spec_dir = config.spec_dir.clone();
    let gemfile_present = root.join("Gemfile").is_file();
    check_rspec(root, &spec_dir, gemfile_present)?;

    let (detected_type, type_line) =
        crate::spec::test_config::detect_project_type(&super::test_config::project_facts(root));
    // The type the file says, when it says a valid one, decides the Rails-only parts.
    let project_type = existing
        .as_ref()
        .and_then(|m| m.get("project_type"))
        .and_then(Value::as_str)
        .and_then(ProjectType::parse)
        .unwrap_or(detected_type);
    let rails = project_type == ProjectType::Rails;
    let detection = setup::detect(&setup::SetupFiles::read(root, &spec_dir), rails);

    let policy_in_file = existing
        .as_ref()
        .and_then(|m| m.get("rails"))
        .and_then(|r| r.get("controllers"))
        .and_then(|c| c.get("spec_policy"))
        .is_some();
    let policy = match (rails, options.controllers_policy) {
        (false, _) => None,
        (true, Some(p)) => Some((p, "--controllers-policy".to_string())),
        (true, None) if policy_in_file => None,
        (true, None) => return Ok(policy_question(root, &spec_dir)),
    };

    let metadata_path = match &options.metadata_path {
        Some(p) => (p.clone(), "--metadata-path".to_string()),
        None => (
            config.metadata_path.clone(),
            if config.metadata_path_from.as_path() == Path::new(PIPELINE_CONFIG_FILE) {
                format!("{PIPELINE_CONFIG_FILE} (kept)")
            } else if root.join(&config.metadata_path_from).is_file()
                || config.metadata_path_from.is_absolute()
            {
                format!("{}'s metadata_path", config.metadata_path_from.display())
            } else {
                "the default".to_string()
            },
        ),
    };
    if let Some(reason) = crate::config::metadata_path_problem(&metadata_path.0) {
        return Err(Error::Usage { message: reason });
    }
    let now = options.now.clone().unwrap_or_else(now_utc);
    let entries = entries(
        &detection,
        (detected_type, &type_line),
        policy.as_ref(),
        &metadata_path,
        &now,
    );

    let mut merged = existing.clone().unwrap_or_default();
    let mut added = Vec::new();
    let mut differences = Vec::new();
    let mut detected_from = Mapping::new();
    for e in &entries {
        detected_from.insert(Value::from(e.key.as_str()), Value::from(e.from.as_str()));
        match merge(&mut merged, &e.key, &e.value) {
            Merge::Added => added.push(e.key.clone()),
            Merge::Same => {}
            Merge::Kept(file) if e.key != "initialized_at" => differences.push(Difference {
                key: e.key.clone(),
                file,
                detected: e.value.clone(),
                from: e.from.clone(),
            }),
            Merge::Kept(_) => {}
        }
    }
    let warnings = check_values(&merged);
    let merged_value = Value::Mapping(merged);
    let (text_out, not_added) = match (&existing, added.is_empty()) {
        (Some(_), true) => (None, Vec::new()),
        (None, _) => (Some(yaml::to_string(&merged_value)), Vec::new()),
        (Some(old), false) => update_text(root, old, &merged_value, &added),
    };
    let written = text_out.is_some() && !options.dry_run;
    if let (Some(text), false) = (&text_out, options.dry_run) {
        let target = crate::guard::pipeline_config(root)?;
        crate::metadata::write_text_atomic(&target, text.as_bytes())?;
    }
    let added: Vec<String> = added
        .into_iter()
        .filter(|k| !not_added.contains(k))
        .collect();
    let message = message(
        &merged_value,
        existing.is_some(),
        written,
        options.dry_run,
        &added,
    );
    let body = InitAnswer {
        status: "success",
        message: message.clone(),
        config_file: PIPELINE_CONFIG_FILE,
        written,
        dry_run: options.dry_run,
        added: &added,
        differences: &differences,
        not_added: &not_added,
        config: &merged_value,
        detected_from,
        warnings: &warnings,
    };
    let text = text(&message, &entries, &differences, &not_added, &warnings);
    Ok(Answer::new(&body, text, 0))
}

/// The config file as it is, or `None`; one that does not load is an error (it is never
/// overwritten: what a person wrote there would be lost).
fn read_existing(root: &Path) -> Result<Option<Mapping>> {
    let path = root.join(PIPELINE_CONFIG_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(Error::Unreadable {
                path: std::path::PathBuf::from(PIPELINE_CONFIG_FILE),
                reason: e.to_string(),
            })
        }
    };
    let invalid = |reason: String| {
        Error::ConfigInvalid {
        path: std::path::PathBuf::from(PIPELINE_CONFIG_FILE),
        reason: format!("{reason}; init does not overwrite it (fix it, or move it away to detect everything again)"),
    }
    };
    match yaml::load(&bytes, PIPELINE_CONFIG_FILE) {
        Ok(Value::Mapping(m)) => Ok(Some(m)),
        Ok(Value::Null) => Ok(Some(Mapping::new())),
        Ok(_) => Err(invalid("it is not a mapping of settings".to_string())),
        Err(e) => Err(invalid(e.to_string())),
    }
}

/// The contract's errors: no Gemfile, Minitest only, no RSpec, no spec folder.
fn check_rspec(root: &Path, spec_dir: &str, gemfile: bool) -> Result<()> {
    let files = ProjectFiles::read(root, spec_dir);
    let found = project::test_framework(&files);
    if !gemfile {
        let mut details = format!("{} has no Gemfile", root.display());
        if !found.minitest.is_empty() {
            details.push_str(&format!("; minitest: {}", found.minitest.join(", ")));
        }
        return Err(Error::ProjectSetup {
            code: SetupProblem::NoGemfile,
            message: "no Gemfile: the pipeline needs a Bundler project with RSpec".to_string(),
            details,
            hint: "run init at the root of a Ruby project (one with a Gemfile), or pass --root"
                .to_string(),
        });
    }
    if found.minitest_only() {
        return Err(Error::ProjectSetup {
            code: SetupProblem::MinitestOnly,
            message: "this project tests with minitest, not RSpec".to_string(),
            details: format!(
                "minitest: {}; no rspec gem in Gemfile or Gemfile.lock, no .rspec, no {spec_dir}/ helper",
                found.minitest.join(", ")
            ),
            hint: "the pipeline writes RSpec specs: add RSpec first (`bundle add rspec-rails --group development,test`, then `bin/rails generate rspec:install`) and run init again".to_string(),
        });
    }
    let gem = found.rspec.iter().any(|e| e.starts_with("Gemfile"));
    if !gem {
        let mut details =
            "no rspec, rspec-core or rspec-rails gem in Gemfile or Gemfile.lock".to_string();
        if !found.rspec.is_empty() {
            details.push_str(&format!(" (found: {})", found.rspec.join(", ")));
        }
        return Err(Error::ProjectSetup {
            code: SetupProblem::NoRspec,
            message: "no RSpec in the Gemfile".to_string(),
            details,
            hint: "add RSpec (`bundle add rspec-rails --group development,test` in a Rails app, `bundle add rspec` otherwise) and run init again".to_string(),
        });
    }
    if !root.join(spec_dir).is_dir() {
        return Err(Error::ProjectSetup {
            code: SetupProblem::NoSpecDirectory,
            message: format!("no {spec_dir}/ directory"),
            details: format!(
                "{} has RSpec ({}) but no {spec_dir}/ folder",
                root.display(),
                found.rspec.join(", ")
            ),
            hint: "run `bin/rails generate rspec:install` (Rails) or `bundle exec rspec --init`, then init again".to_string(),
        });
    }
    Ok(())
}

/// The question a Rails project's controllers policy is until it is answered.
fn policy_question(root: &Path, spec_dir: &str) -> Answer {
    let has_specs = |dir: &str| {
        std::fs::read_dir(root.join(spec_dir).join(dir))
            .map(|mut e| e.next().is_some())
            .unwrap_or(false)
    };
    let requests = has_specs("requests");
    let controllers = has_specs("controllers");
    let recommended = if controllers && !requests {
        "ask"
    } else {
        "request"
    };
    let mut context = Mapping::new();
    context.insert(
        Value::from("request_specs"),
        Value::from(format!(
            "{spec_dir}/requests{}",
            if requests {
                " has specs"
            } else {
                " is empty or missing"
            }
        )),
    );
    context.insert(
        Value::from("controller_specs"),
        Value::from(format!(
            "{spec_dir}/controllers{}",
            if controllers {
                " has specs"
            } else {
                " is empty or missing"
            }
        )),
    );
    let choice = |action: &'static str, label: &'static str, effect: &str| {
        let mut effects = Mapping::new();
        effects.insert(
            Value::from("writes"),
            Value::from(format!(
                "rails.controllers.spec_policy: {action} ({effect})"
            )),
        );
        Choice {
            action,
            label,
            flag: format!("--controllers-policy={action}"),
            effects,
        }
    };
    let decision = Decision {
        decision: "rails_controllers_spec_policy",
        title: "Where the pipeline writes a Rails controller's tests",
        question: format!(
            "This is a Rails project. Which specs should the pipeline write for controllers: request specs ({spec_dir}/requests, recommended by RSpec and Rails), legacy controller specs ({spec_dir}/controllers), or ask for each controller that already has a legacy spec?"
        ),
        recommended_action: recommended,
        context,
        choices: vec![
            choice("request", "Request specs (recommended)", "spec/requests/..."),
            choice("controller", "Legacy controller specs", "spec/controllers/..."),
            choice("ask", "Ask per controller that has a legacy spec", "a question per file"),
        ],
    };
    crate::app::skeleton::needs_decision(vec![decision])
}

/// One key init writes, with its value and what told it.
struct Entry {
    key: String,
    value: Value,
    from: String,
}

fn entry(key: &str, value: Value, from: impl Into<String>) -> Entry {
    Entry {
        key: key.to_string(),
        value,
        from: from.into(),
    }
}

/// Every key init writes, in the order a new file lists them.
fn entries(
    d: &Detection,
    (project_type, type_line): (ProjectType, &str),
    policy: Option<&(ControllerPolicy, String)>,
    metadata_path: &(String, String),
    now: &str,
) -> Vec<Entry> {
    let mut out = Vec::new();
    if let Some(v) = &d.ruby_version {
        out.push(entry(
            "ruby_version",
            Value::from(v.value.as_str()),
            v.from.as_str(),
        ));
    }
    out.push(entry(
        "project_type",
        Value::from(project_type.as_str()),
        type_line
            .strip_prefix("project_type detected: ")
            .and_then(|l| l.split_once(" (").map(|(_, why)| why.trim_end_matches(')')))
            .unwrap_or(type_line),
    ));
    if let Some(v) = &d.rspec_version {
        out.push(entry(
            "rspec.version",
            Value::from(v.value.as_str()),
            v.from.as_str(),
        ));
    }
    out.push(entry(
        "rspec.helper",
        Value::from(d.helper.value),
        d.helper.from.as_str(),
    ));
    if let Some((p, from)) = policy {
        out.push(entry(
            "rails.controllers.spec_policy",
            Value::from(p.as_str()),
            from.as_str(),
        ));
    }
    out.push(entry(
        "integrations.factories.gem",
        Value::from(d.factories_gem.value.as_str()),
        d.factories_gem.from.as_str(),
    ));
    out.push(entry(
        "integrations.shoulda_matchers.enabled",
        Value::Bool(d.shoulda_enabled.value),
        d.shoulda_enabled.from.as_str(),
    ));
    out.push(entry(
        "integrations.shoulda_matchers.configured",
        Value::Bool(d.shoulda_configured.value),
        d.shoulda_configured.from.as_str(),
    ));
    out.push(entry(
        "linter",
        Value::from(d.linter.value),
        d.linter.from.as_str(),
    ));
    for (key, f) in [
        ("directories.spec", &d.spec_dir),
        ("directories.factories", &d.factories_dir),
        ("directories.support", &d.support_dir),
    ] {
        out.push(entry(key, Value::from(f.value.as_str()), f.from.as_str()));
    }
    out.push(entry(
        "metadata_path",
        Value::from(metadata_path.0.as_str()),
        metadata_path.1.as_str(),
    ));
    out.push(entry(
        "initialized_at",
        Value::from(now),
        "the time of the run (UTC)",
    ));
    out
}

/// What [`merge`] did with a key.
enum Merge {
    /// The file lacked it: added.
    Added,
    /// The file has the same value.
    Same,
    /// The file has another value (kept).
    Kept(Value),
}

/// Puts `value` at the dotted `key` of `map` unless the file has a value there (or a
/// non-mapping where the path needs a mapping): the file's value is kept.
fn merge(map: &mut Mapping, key: &str, value: &Value) -> Merge {
    let (head, rest) = match key.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (key, None),
    };
    let k = Value::from(head);
    match (rest, map.get_mut(&k)) {
        (None, Some(found)) if found == value => Merge::Same,
        (None, Some(found)) => Merge::Kept(found.clone()),
        (None, None) => {
            map.insert(k, value.clone());
            Merge::Added
        }
        (Some(rest), Some(Value::Mapping(inner))) => merge(inner, rest, value),
        (Some(_), Some(other)) => Merge::Kept(other.clone()),
        (Some(rest), None) => {
            let mut inner = Mapping::new();
            merge(&mut inner, rest, value);
            map.insert(k, Value::Mapping(inner));
            Merge::Added
        }
    }
}

/// The new text of a file that lacks some keys, and the keys it still lacks. A file
/// without comments is written again from the merged config. In a file with comments
/// (which a rewrite would lose) the old bytes are kept and the missing top-level keys
/// appended, when the result loads as the file plus those keys; a key missing under a
/// top-level key the file has is then not added (the answer lists it).
fn update_text(
    root: &Path,
    old: &Mapping,
    merged: &Value,
    added: &[String],
) -> (Option<String>, Vec<String>) {
    let old_text = std::fs::read(root.join(PIPELINE_CONFIG_FILE))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let has_comments = old_text.lines().any(|l| l.trim_start().starts_with('#'));
    if !has_comments {
        return (Some(yaml::to_string(merged)), Vec::new());
    }
    let Some(merged_map) = merged.as_mapping() else {
        return (None, added.to_vec());
    };
    // The top-level keys the file lacks, in the merged order.
    let mut tail = Mapping::new();
    let mut partial = old.clone();
    for (k, v) in merged_map {
        if !old.contains_key(k) {
            tail.insert(k.clone(), v.clone());
            partial.insert(k.clone(), v.clone());
        }
    }
    let nested: Vec<String> = added
        .iter()
        .filter(|key| !tail.contains_key(key.split('.').next().unwrap_or(key)))
        .cloned()
        .collect();
    if tail.is_empty() {
        return (None, nested);
    }
    let mut text = old_text;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let appended = yaml::to_string(&Value::Mapping(tail));
    text.push_str(appended.strip_prefix("---\n").unwrap_or(&appended));
    if yaml::load(text.as_bytes(), PIPELINE_CONFIG_FILE).ok() == Some(Value::Mapping(partial)) {
        return (Some(text), nested);
    }
    (None, added.to_vec())
}

/// Values in the file that later stages would refuse.
fn check_values(map: &Mapping) -> Vec<String> {
    let mut out = Vec::new();
    let at = |path: &[&str]| -> Option<&Value> {
        let mut v = map.get(*path.first()?)?;
        for p in path.get(1..).unwrap_or_default() {
            v = v.get(*p)?;
        }
        Some(v)
    };
    let mut one_of = |key: &str, names: &[&str]| {
        let path: Vec<&str> = key.split('.').collect();
        if let Some(v) = at(&path) {
            if !v.as_str().is_some_and(|s| names.contains(&s)) {
                out.push(format!(
                    "{key}: {} is not one of {} (the stages that read it will refuse it)",
                    yaml::to_string(v).trim_end(),
                    names.join(", ")
                ));
            }
        }
    };
    one_of("project_type", ProjectType::NAMES);
    one_of("rspec.helper", &["rails_helper", "spec_helper"]);
    one_of("rails.controllers.spec_policy", ControllerPolicy::NAMES);
    one_of("linter", &["rubocop", "standardrb", "none"]);
    one_of(
        "integrations.factories.gem",
        &["factory_bot", "fabrication", "none"],
    );
    for key in [
        "integrations.shoulda_matchers.enabled",
        "integrations.shoulda_matchers.configured",
    ] {
        let path: Vec<&str> = key.split('.').collect();
        if let Some(v) = at(&path) {
            if v.as_bool().is_none() {
                out.push(format!(
                    "{key}: {} is not true or false",
                    yaml::to_string(v).trim_end()
                ));
            }
        }
    }
    if let Some(v) = map.get("metadata_path") {
        match v.as_str() {
            Some(p) => {
                if let Some(problem) = crate::config::metadata_path_problem(p) {
                    out.push(problem);
                }
            }
            None => out.push("metadata_path: not a string".to_string()),
        }
    }
    out
}

fn message(
    config: &Value,
    existed: bool,
    written: bool,
    dry_run: bool,
    added: &[String],
) -> String {
    let get = |path: &[&str]| {
        let mut v = config.get(*path.first()?)?;
        for p in path.get(1..).unwrap_or_default() {
            v = v.get(*p)?;
        }
        v.as_str().map(str::to_string)
    };
    let mut what = vec![get(&["project_type"]).unwrap_or_else(|| "project".to_string())];
    if let Some(v) = get(&["rspec", "version"]) {
        what.push(format!("rspec {v}"));
    }
    if let Some(g) = get(&["integrations", "factories", "gem"]).filter(|g| g != "none") {
        what.push(g);
    }
    let summary = what.join(", ");
    match (existed, written, dry_run) {
        (_, _, true) if added.is_empty() => {
            format!("{PIPELINE_CONFIG_FILE} is up to date ({summary}); nothing would change")
        }
        (false, _, true) => format!("would write {PIPELINE_CONFIG_FILE} ({summary})"),
        (true, _, true) => format!(
            "would add {} to {PIPELINE_CONFIG_FILE} ({summary})",
            added.join(", ")
        ),
        (false, true, _) => format!("wrote {PIPELINE_CONFIG_FILE} ({summary})"),
        (true, true, _) => format!(
            "added {} to {PIPELINE_CONFIG_FILE} ({summary})",
            added.join(", ")
        ),
        (_, false, _) => format!("{PIPELINE_CONFIG_FILE} is up to date ({summary})"),
    }
}

fn text(
    message: &str,
    entries: &[Entry],
    differences: &[Difference],
    not_added: &[String],
    warnings: &[String],
) -> String {
    use std::fmt::Write as _;
    let mut out = format!("{message}\n");
    let width = entries.iter().map(|e| e.key.len()).max().unwrap_or(0);
    for e in entries {
        let value = yaml::to_string(&e.value);
        let _ = writeln!(
            out,
            "  {:<width$}  {:<14}  {}",
            e.key,
            value.trim_end(),
            e.from
        );
    }
    for d in differences {
        let _ = writeln!(
            out,
            "kept: {} is {} in the file; detected {} ({})",
            d.key,
            yaml::to_string(&d.file).trim_end(),
            yaml::to_string(&d.detected).trim_end(),
            d.from
        );
    }
    for k in not_added {
        let _ = writeln!(
            out,
            "not added: {k} (the file has comments that a rewrite would lose: add it by hand)"
        );
    }
    for w in warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// Now, as `2026-01-31T12:00:00Z`.
fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    timestamp(secs)
}

/// Seconds since the epoch as an ISO 8601 UTC timestamp (Howard Hinnant's civil-from-days).
fn timestamp(secs: u64) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_iso_8601() {
        assert_eq!(timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(timestamp(1_798_761_599), "2026-12-31T23:59:59Z");
    }

    #[test]
    fn a_value_in_the_file_is_kept() {
        let mut map = match yaml::load(b"rspec:\n  version: '3.12.0'\nlinter: 3\n", "t").unwrap() {
            Value::Mapping(m) => m,
            _ => unreachable!(),
        };
        assert!(matches!(
            merge(&mut map, "rspec.version", &Value::from("3.13.0")),
            Merge::Kept(_)
        ));
        assert!(matches!(
            merge(&mut map, "rspec.helper", &Value::from("spec_helper")),
            Merge::Added
        ));
        assert!(matches!(
            merge(&mut map, "linter.x", &Value::from("a")),
            Merge::Kept(_)
        ));
        assert!(matches!(
            merge(&mut map, "integrations.factories.gem", &Value::from("none")),
            Merge::Added
        ));
        assert!(matches!(
            merge(&mut map, "integrations.factories.gem", &Value::from("none")),
            Merge::Same
        ));
        assert_eq!(
            yaml::to_string(&Value::Mapping(map)),
            "rspec:\n  version: 3.12.0\n  helper: spec_helper\nlinter: 3\nintegrations:\n  factories:\n    gem: none\n"
        );
    }
}
