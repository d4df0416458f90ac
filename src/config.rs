//! Resolved settings: command-line flags beat `.rspec-scout.yml`, which beats the pipeline's
//! `.claude/rspec-testing-config.yml`, which beats the defaults.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::analyze::SideEffectRule;
use crate::discover::zones::ZoneThresholds;
use crate::error::{Error, Result};
use crate::index::walk::{Scope, ScopeRules};
use crate::index::DEFAULT_MAX_FILE_SIZE;
use crate::metadata::{self, Location};
use crate::vocab::SideEffectKind;
use crate::yaml;

/// The file with this tool's own settings, at the root.
pub const CONFIG_FILE: &str = ".rspec-scout.yml";
/// The pipeline's config file, at the root.
pub const PIPELINE_CONFIG_FILE: &str = ".claude/rspec-testing-config.yml";

/// The `.rspec-scout.yml` file as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    base: Option<String>,
    metadata_path: Option<String>,
    zones: Option<ZoneThresholds>,
    side_effects: Option<Vec<SideEffectRule>>,
    max_file_size: Option<serde_yaml::Value>,
    threads: Option<usize>,
    project_type: Option<String>,
    controllers_spec_policy: Option<String>,
    rspec_helper: Option<String>,
}

/// Settings every command runs with.
#[derive(Debug, Clone)]
pub struct Config {
    /// The project root: paths in answers and metadata are relative to it.
    pub root: PathBuf,
    /// Include and exclude globs.
    pub scope: ScopeRules,
    /// The base ref for branch mode, from the config file.
    pub base: Option<String>,
    /// Where metadata lives, relative to the root (default `tmp`).
    pub metadata_path: String,
    /// Zone thresholds.
    pub zones: ZoneThresholds,
    /// Extra side-effect rules.
    pub side_effects: Vec<SideEffectRule>,
    /// Larger files are skipped with a message (default 16 MiB).
    pub max_file_size: u64,
    /// Worker threads (0 = one per core).
    pub threads: usize,
    /// `rails|web|service|library`, from the pipeline config or ours.
    pub project_type: Option<String>,
    /// `rspec.helper` from the pipeline config.
    pub rspec_helper: Option<String>,
    /// `rails.controllers.spec_policy`: `request|controller|ask`.
    pub controllers_spec_policy: Option<String>,
    /// Problems with config files that did not stop the run.
    pub warnings: Vec<String>,
}

impl Config {
    /// Defaults for a root, without reading any file.
    pub fn defaults(root: PathBuf) -> Self {
        Config {
            root,
            scope: ScopeRules::default(),
            base: None,
            metadata_path: "tmp".to_string(),
            zones: ZoneThresholds::default(),
            side_effects: Vec::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            threads: 0,
            project_type: None,
            rspec_helper: None,
            controllers_spec_policy: None,
            warnings: Vec::new(),
        }
    }

    /// Reads the pipeline config and then ours (or `explicit`) at `root`.
    pub fn load(root: PathBuf, explicit: Option<&Path>) -> Result<Self> {
        let mut config = Config::defaults(root);
        config.apply_pipeline_config();
        let (path, required) = match explicit {
            Some(p) => (p.to_path_buf(), true),
            None => (config.root.join(CONFIG_FILE), false),
        };
        match std::fs::read(&path) {
            Ok(bytes) => config.apply_file(&path, &bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {}
            Err(e) => {
                return Err(Error::ConfigInvalid {
                    path,
                    reason: e.to_string(),
                })
            }
        }
        Ok(config)
    }

    fn apply_pipeline_config(&mut self) {
        let path = self.root.join(PIPELINE_CONFIG_FILE);
        let Ok(bytes) = std::fs::read(&path) else {
            return;
        };
        let value = match yaml::load(&bytes, &path.display().to_string()) {
            Ok(v) => v,
            Err(e) => {
                // The pipeline's scripts warn and use {} too.
                self.warnings
                    .push(format!("Cannot parse {}: {e}", PIPELINE_CONFIG_FILE));
                return;
            }
        };
        let text = |v: Option<&serde_yaml::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
        if let Some(p) = text(value.get("metadata_path")).filter(|p| !p.trim().is_empty()) {
            self.metadata_path = p;
        }
        self.project_type = text(value.get("project_type"));
        self.rspec_helper = text(value.get("rspec").and_then(|r| r.get("helper")));
        self.controllers_spec_policy = text(
            value
                .get("rails")
                .and_then(|r| r.get("controllers"))
                .and_then(|c| c.get("spec_policy")),
        );
    }

    fn apply_file(&mut self, path: &Path, bytes: &[u8]) -> Result<()> {
        let invalid = |reason: String| Error::ConfigInvalid {
            path: path.to_path_buf(),
            reason,
        };
        let value =
            yaml::load(bytes, &path.display().to_string()).map_err(|e| invalid(e.to_string()))?;
        if value.is_null() {
            return Ok(());
        }
        let file: FileConfig = serde_yaml::from_value(value).map_err(|e| invalid(e.to_string()))?;
        if let Some(include) = file.include {
            self.scope.include = include;
        }
        if let Some(exclude) = file.exclude {
            self.scope.exclude = exclude;
        }
        for glob in self.scope.include.iter().chain(&self.scope.exclude) {
            globset::Glob::new(glob).map_err(|e| invalid(format!("bad glob {glob:?}: {e}")))?;
        }
        if file.base.is_some() {
            self.base = file.base;
        }
        if let Some(p) = file.metadata_path {
            self.metadata_path = p;
        }
        if let Some(z) = file.zones {
            if z.yellow_loc > z.red_loc || z.yellow_methods > z.red_methods {
                return Err(invalid(
                    "zones: a yellow threshold is above its red threshold".to_string(),
                ));
            }
            self.zones = z;
        }
        if let Some(rules) = file.side_effects {
            for rule in &rules {
                if let Err(e) = rule.kind.parse::<SideEffectKind>() {
                    return Err(invalid(format!("side_effects: type {e}")));
                }
            }
            self.side_effects = rules;
        }
        if let Some(size) = file.max_file_size {
            self.max_file_size = parse_size(&size).ok_or_else(|| {
                invalid(format!(
                    "max_file_size: expected bytes or a size like \"16MB\", got {size:?}"
                ))
            })?;
        }
        if let Some(t) = file.threads {
            self.threads = t;
        }
        if file.project_type.is_some() {
            self.project_type = file.project_type;
        }
        if file.controllers_spec_policy.is_some() {
            self.controllers_spec_policy = file.controllers_spec_policy;
        }
        if file.rspec_helper.is_some() {
            self.rspec_helper = file.rspec_helper;
        }
        Ok(())
    }

    /// The folder metadata files go in for a project root.
    pub fn metadata_dir(&self, project_root: &Path) -> PathBuf {
        metadata::dir(project_root, &self.metadata_path)
    }

    /// Where the metadata of `source` lives (absolute, or relative to the current
    /// directory): under its git root, else under the configured root.
    pub fn locate(&self, source: &Path) -> Location {
        metadata::locate(&self.root, &self.metadata_path, source)
    }

    /// Where the metadata of a source path relative to `project_root` lives.
    pub fn locate_rel(&self, project_root: &Path, source_rel: &str) -> Location {
        metadata::locate_rel(project_root, &self.metadata_path, source_rel)
    }

    /// The include/exclude globs, compiled; a glob that does not compile is a config
    /// error.
    pub fn scope(&self) -> Result<Scope> {
        Scope::new(&self.scope).map_err(|reason| Error::ConfigInvalid {
            path: PathBuf::from(CONFIG_FILE),
            reason,
        })
    }
}

fn parse_size(value: &serde_yaml::Value) -> Option<u64> {
    if let Some(n) = value.as_u64() {
        return Some(n);
    }
    let text = value.as_str()?.trim().to_ascii_uppercase();
    let (digits, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = digits.parse().ok()?;
    let factor = match unit.trim() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1024,
        "M" | "MB" | "MIB" => 1024 * 1024,
        "G" | "GB" | "GIB" => 1024 * 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_accept_bytes_and_units() {
        assert_eq!(parse_size(&serde_yaml::Value::from(10u64)), Some(10));
        assert_eq!(
            parse_size(&serde_yaml::Value::from("16MB")),
            Some(16 * 1024 * 1024)
        );
        assert_eq!(parse_size(&serde_yaml::Value::from("2 kb")), Some(2048));
        assert_eq!(parse_size(&serde_yaml::Value::from("lots")), None);
    }

    #[test]
    fn unknown_keys_in_our_config_are_errors() {
        let mut c = Config::defaults(PathBuf::from("."));
        let err = c
            .apply_file(Path::new(".rspec-scout.yml"), b"inclde: [x]\n")
            .expect_err("typo");
        assert!(err.to_string().contains("inclde"), "{err}");
    }

    #[test]
    fn config_file_overrides_defaults() {
        let mut c = Config::defaults(PathBuf::from("."));
        c.apply_file(
            Path::new(".rspec-scout.yml"),
            b"include: ['src/**/*.rb']\nzones: {red_loc: 500}\nbase: develop\nmax_file_size: 1MB\n",
        )
        .expect("valid");
        assert_eq!(c.scope.include, vec!["src/**/*.rb".to_string()]);
        assert_eq!(c.zones.red_loc, 500);
        assert_eq!(c.zones.yellow_loc, 150);
        assert_eq!(c.base.as_deref(), Some("develop"));
        assert_eq!(c.max_file_size, 1024 * 1024);
    }
}
