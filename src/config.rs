//! Resolved settings: command-line flags beat `.rspec-scout.yml`, which beats the pipeline's
//! `.claude/rspec-testing-config.yml`, which beats the defaults.

use std::path::{Path, PathBuf};

use crate::analyze::SideEffectRule;
use crate::discover::zones::ZoneThresholds;
use crate::error::{Error, Result};
use crate::index::walk::{self, Scope, ScopeRules};
use crate::index::DEFAULT_MAX_FILE_SIZE;
use crate::metadata::{self, Location};
use crate::vocab::SideEffectKind;
use crate::yaml::{self, Value};

/// The file with this tool's own settings, at the root.
pub const CONFIG_FILE: &str = ".rspec-scout.yml";
/// The pipeline's config file, at the root.
pub const PIPELINE_CONFIG_FILE: &str = crate::guard::PIPELINE_CONFIG;

/// The `.rspec-scout.yml` file as written.
#[derive(Debug, Clone, Default)]
struct FileConfig {
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    base: Option<String>,
    metadata_path: Option<String>,
    zones: Option<ZoneThresholds>,
    side_effects: Option<Vec<SideEffectRule>>,
    max_file_size: Option<u64>,
    threads: Option<usize>,
    project_type: Option<String>,
    controllers_spec_policy: Option<String>,
    rspec_helper: Option<String>,
    answer_limit: Option<u64>,
}

/// The keys of `.rspec-scout.yml`, in the order the README lists them.
pub const CONFIG_KEYS: &[&str] = &[
    "include",
    "exclude",
    "base",
    "metadata_path",
    "max_file_size",
    "threads",
    "zones",
    "side_effects",
    "project_type",
    "controllers_spec_policy",
    "rspec_helper",
    "answer_limit",
];

const ZONE_KEYS: &[&str] = &["yellow_loc", "red_loc", "yellow_methods", "red_methods"];
const SIDE_EFFECT_KEYS: &[&str] = &["pattern", "type", "description"];

impl FileConfig {
    /// Reads the file's mapping key by key; a problem names the key, the type expected
    /// and what was found.
    fn read(value: &Value) -> std::result::Result<Self, String> {
        let map = value.as_mapping().ok_or_else(|| {
            format!(
                "expected a mapping of settings (keys: {}), found {}",
                CONFIG_KEYS.join(", "),
                found(value)
            )
        })?;
        let mut c = FileConfig::default();
        for (key, v) in map {
            let Some(key) = key.as_str() else {
                return Err(format!(
                    "keys must be strings, found {} (keys: {})",
                    found(key),
                    CONFIG_KEYS.join(", ")
                ));
            };
            match key {
                "include" => c.include = Some(strings(key, v)?),
                "exclude" => c.exclude = Some(strings(key, v)?),
                "base" => c.base = Some(string(key, v)?),
                "metadata_path" => c.metadata_path = Some(string(key, v)?),
                "max_file_size" => c.max_file_size = Some(size(key, v)?),
                "answer_limit" => c.answer_limit = Some(size(key, v)?),
                "threads" => {
                    c.threads = Some(usize::try_from(number(key, v, u64::MAX)?).unwrap_or(0))
                }
                "zones" => c.zones = Some(zones(v)?),
                "side_effects" => c.side_effects = Some(side_effects(v)?),
                "project_type" => c.project_type = Some(string(key, v)?),
                "controllers_spec_policy" => c.controllers_spec_policy = Some(string(key, v)?),
                "rspec_helper" => c.rspec_helper = Some(string(key, v)?),
                other => {
                    return Err(format!(
                        "unknown key `{other}` (keys: {})",
                        CONFIG_KEYS.join(", ")
                    ))
                }
            }
        }
        Ok(c)
    }
}

/// What a value is, for an error message.
fn found(v: &Value) -> String {
    match v {
        Value::Null => "nothing (null)".to_string(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Sequence(_) => "a list".to_string(),
        Value::Mapping(_) => "a mapping".to_string(),
        Value::Tagged(t) => match yaml::as_symbol(v) {
            Some(name) => format!("the symbol :{name}"),
            None => format!("a value tagged {}", t.tag),
        },
    }
}

fn string(key: &str, v: &Value) -> std::result::Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("`{key}`: expected a string, found {}", found(v)))
}

fn strings(key: &str, v: &Value) -> std::result::Result<Vec<String>, String> {
    let expected = || {
        format!(
            "`{key}`: expected a list of strings (globs, e.g. [\"app/**/*.rb\"]), found {}",
            found(v)
        )
    };
    let items = v.as_sequence().ok_or_else(expected)?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.as_str().map(str::to_string).ok_or_else(|| {
                format!(
                    "`{key}[{i}]`: expected a string (a glob), found {}",
                    found(item)
                )
            })
        })
        .collect()
}

/// A whole number from 0 to `max`.
fn number(key: &str, v: &Value, max: u64) -> std::result::Result<u64, String> {
    let kind = if max == u64::from(u32::MAX) {
        "a whole number from 0 to 4294967295 (u32)"
    } else {
        "a whole number of 0 or more"
    };
    v.as_u64()
        .filter(|n| *n <= max)
        .ok_or_else(|| format!("`{key}`: expected {kind}, found {}", found(v)))
}

fn size(key: &str, v: &Value) -> std::result::Result<u64, String> {
    parse_size(v).ok_or_else(|| {
        format!(
            "`{key}`: expected a size in bytes or with a unit (16MB, 20KB), found {}",
            found(v)
        )
    })
}

fn sub_mapping<'a>(
    key: &str,
    v: &'a Value,
    keys: &[&str],
) -> std::result::Result<&'a serde_yaml::Mapping, String> {
    let map = v.as_mapping().ok_or_else(|| {
        format!(
            "`{key}`: expected a mapping with keys {}, found {}",
            keys.join(", "),
            found(v)
        )
    })?;
    for k in map.keys() {
        let name = k.as_str().unwrap_or_default();
        if !keys.contains(&name) {
            return Err(format!(
                "`{key}`: unknown key {} (keys: {})",
                k.as_str().map_or_else(|| found(k), |n| format!("`{n}`")),
                keys.join(", ")
            ));
        }
    }
    Ok(map)
}

fn zones(v: &Value) -> std::result::Result<ZoneThresholds, String> {
    let map = sub_mapping("zones", v, ZONE_KEYS)?;
    let mut z = ZoneThresholds::default();
    for (k, value) in map {
        let name = k.as_str().unwrap_or_default();
        let n = number(&format!("zones.{name}"), value, u64::from(u32::MAX))?;
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        match name {
            "yellow_loc" => z.yellow_loc = n,
            "red_loc" => z.red_loc = n,
            "yellow_methods" => z.yellow_methods = n,
            _ => z.red_methods = n,
        }
    }
    Ok(z)
}

fn side_effects(v: &Value) -> std::result::Result<Vec<SideEffectRule>, String> {
    let items = v.as_sequence().ok_or_else(|| {
        format!(
            "`side_effects`: expected a list of {{pattern, type, description}}, found {}",
            found(v)
        )
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("side_effects[{i}]");
            let map = sub_mapping(&at, item, SIDE_EFFECT_KEYS)?;
            let field = |name: &str| -> std::result::Result<Option<String>, String> {
                match map.get(name) {
                    None | Some(Value::Null) => Ok(None),
                    Some(x) => string(&format!("{at}.{name}"), x).map(Some),
                }
            };
            let required = |name: &str| -> std::result::Result<String, String> {
                field(name)?.ok_or_else(|| format!("`{at}.{name}`: missing (a string)"))
            };
            let kind = required("type")?;
            if let Err(e) = kind.parse::<SideEffectKind>() {
                return Err(format!("`{at}.type`: {e}"));
            }
            Ok(SideEffectRule {
                pattern: required("pattern")?,
                kind,
                description: field("description")?,
            })
        })
        .collect()
}

/// Why a `metadata_path` cannot be used: every file this tool writes lives under it, so it
/// must name a folder inside the project (relative, no `..`, not `.git`). A link inside
/// the root that leads out is refused when a write is attempted (`crate::guard`).
pub(crate) fn metadata_path_problem(path: &str) -> Option<String> {
    let p = Path::new(path);
    if p.is_absolute() {
        return Some(format!(
            "`metadata_path`: {path:?} is absolute; it must be a folder inside the project, relative to its root (e.g. tmp)"
        ));
    }
    for part in p.components() {
        match part {
            std::path::Component::ParentDir => {
                return Some(format!(
                    "`metadata_path`: {path:?} leaves the project root (`..`); rspec-scout writes only inside it"
                ))
            }
            std::path::Component::Normal(n) if n == ".git" => {
                return Some(format!(
                    "`metadata_path`: {path:?} is under .git; rspec-scout never writes there"
                ))
            }
            _ => {}
        }
    }
    None
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
    /// The config file `metadata_path` came from (for its errors).
    pub metadata_path_from: PathBuf,
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
    /// The spec folder (`directories.spec` of the pipeline config, default `spec`): spec
    /// files are written only under a folder of this name.
    pub spec_dir: String,
    /// `directories.factories` of the pipeline config: where the factories are (default:
    /// FactoryBot's and Fabrication's own paths).
    pub factories_dir: Option<String>,
    /// Whether folders that are gems or engines count as roots of their own `app/` and
    /// `lib/` (the default scope; not when `include:` is set).
    pub detect_components: bool,
    /// Answers larger than this many bytes are printed compact, the full answer written
    /// to a file (`--answer auto`).
    pub answer_limit: usize,
    /// Problems with config files that did not stop the run.
    pub warnings: Vec<String>,
}

/// The default `answer_limit`: 20,000 bytes, about 5,000 tokens. Agent harnesses cut a
/// command's output at 30,000 characters (Claude Code's shell tool) or less (Codex keeps
/// 10 KiB); an answer within 20,000 bytes is read whole, with room for the rest of a turn.
pub const DEFAULT_ANSWER_LIMIT: usize = 20_000;

impl Config {
    /// Defaults for a root, without reading any file.
    pub fn defaults(root: PathBuf) -> Self {
        Config {
            root,
            scope: ScopeRules::default(),
            base: None,
            metadata_path: "tmp".to_string(),
            metadata_path_from: PathBuf::from(CONFIG_FILE),
            zones: ZoneThresholds::default(),
            side_effects: Vec::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            threads: 0,
            project_type: None,
            rspec_helper: None,
            controllers_spec_policy: None,
            spec_dir: "spec".to_string(),
            factories_dir: None,
            answer_limit: DEFAULT_ANSWER_LIMIT,
            detect_components: true,
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
        // Errors name the file as the user knows it: as given, or relative to the root.
        let shown = match explicit {
            Some(p) => p.to_path_buf(),
            None => PathBuf::from(CONFIG_FILE),
        };
        match std::fs::read(&path) {
            Ok(bytes) => config.apply_file(&shown, &bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => {}
            Err(e) => {
                return Err(Error::ConfigInvalid {
                    path: shown,
                    reason: e.to_string(),
                })
            }
        }
        if let Some(reason) = metadata_path_problem(&config.metadata_path) {
            return Err(Error::ConfigInvalid {
                path: config.metadata_path_from.clone(),
                reason,
            });
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
            self.metadata_path_from = PathBuf::from(PIPELINE_CONFIG_FILE);
        }
        self.project_type = text(value.get("project_type"));
        self.rspec_helper = text(value.get("rspec").and_then(|r| r.get("helper")));
        self.controllers_spec_policy = text(
            value
                .get("rails")
                .and_then(|r| r.get("controllers"))
                .and_then(|c| c.get("spec_policy")),
        );
        if let Some(dir) = text(value.get("directories").and_then(|d| d.get("spec")))
            .map(|d| d.trim().trim_matches('/').to_string())
            .filter(|d| !d.is_empty())
        {
            self.spec_dir = dir;
        }
        self.factories_dir = text(value.get("directories").and_then(|d| d.get("factories")))
            .map(|d| d.trim().trim_matches('/').to_string())
            .filter(|d| !d.is_empty() && crate::config::metadata_path_problem(d).is_none());
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
        let file = FileConfig::read(&value).map_err(invalid)?;
        if let Some(include) = file.include {
            self.scope.include = include;
            self.detect_components = false;
        }
        if let Some(exclude) = file.exclude {
            self.scope.exclude = exclude;
        }
        for glob in self.scope.include.iter().chain(&self.scope.exclude) {
            globset::Glob::new(glob)
                .map_err(|e| invalid(format!("`include`/`exclude`: bad glob {glob:?}: {e}")))?;
        }
        if file.base.is_some() {
            self.base = file.base;
        }
        if let Some(p) = file.metadata_path {
            self.metadata_path = p;
            self.metadata_path_from = path.to_path_buf();
        }
        if let Some(z) = file.zones {
            if z.yellow_loc > z.red_loc || z.yellow_methods > z.red_methods {
                return Err(invalid(format!(
                    "`zones`: a yellow threshold is above its red threshold (yellow_loc {}, red_loc {}, yellow_methods {}, red_methods {})",
                    z.yellow_loc, z.red_loc, z.yellow_methods, z.red_methods
                )));
            }
            self.zones = z;
        }
        if let Some(rules) = file.side_effects {
            self.side_effects = rules;
        }
        if let Some(size) = file.max_file_size {
            self.max_file_size = size;
        }
        if let Some(limit) = file.answer_limit {
            self.answer_limit = usize::try_from(limit).unwrap_or(usize::MAX);
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
    /// error. With the default globs, folders that are gems or engines of their own (a
    /// `*.gemspec`, or `app/`/`lib/` beside a `config/routes.rb`) count as roots of their
    /// own `app/` and `lib/` ([`walk::component_roots`]).
    pub fn scope(&self) -> Result<Scope> {
        let invalid = |reason| Error::ConfigInvalid {
            path: PathBuf::from(CONFIG_FILE),
            reason,
        };
        let scope = Scope::new(&self.scope).map_err(invalid)?;
        if !self.detect_components {
            return Ok(scope);
        }
        let components = walk::component_roots(&self.root, &scope);
        if components.is_empty() {
            return Ok(scope);
        }
        let mut rules = self.scope.clone();
        for dir in &components {
            rules.add_component(dir);
        }
        Scope::new(&rules).map_err(invalid)
    }

    /// The globs a walk searched (for the message when it finds nothing): the include
    /// globs and those of the component roots found.
    pub fn searched_globs(&self) -> Vec<String> {
        let mut rules = self.scope.clone();
        if self.detect_components {
            if let Ok(scope) = Scope::new(&self.scope) {
                for dir in walk::component_roots(&self.root, &scope) {
                    rules.add_component(&dir);
                }
            }
        }
        rules.include
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
    fn errors_name_the_key_the_type_expected_and_what_was_found() {
        let error = |text: &str| {
            let mut c = Config::defaults(PathBuf::from("."));
            c.apply_file(Path::new("conf/.rspec-scout.yml"), text.as_bytes())
                .expect_err(text)
                .to_string()
        };
        let cases = [
            (
                "zones: {red_loc: lots}\n",
                "`zones.red_loc`: expected a whole number from 0 to 4294967295 (u32), found the string \"lots\"",
            ),
            (
                "zones: {red_loc: -1}\n",
                "`zones.red_loc`: expected a whole number from 0 to 4294967295 (u32), found the number -1",
            ),
            (
                "zones: {red: 3}\n",
                "`zones`: unknown key `red` (keys: yellow_loc, red_loc, yellow_methods, red_methods)",
            ),
            (
                "include: app/**/*.rb\n",
                "`include`: expected a list of strings (globs, e.g. [\"app/**/*.rb\"]), found the string \"app/**/*.rb\"",
            ),
            (
                "exclude: [1]\n",
                "`exclude[0]`: expected a string (a glob), found the number 1",
            ),
            (
                "threads: two\n",
                "`threads`: expected a whole number of 0 or more, found the string \"two\"",
            ),
            (
                "max_file_size: lots\n",
                "`max_file_size`: expected a size in bytes or with a unit (16MB, 20KB), found the string \"lots\"",
            ),
            (
                "side_effects: [{pattern: X.y}]\n",
                "`side_effects[0].type`: missing (a string)",
            ),
            (
                "side_effects: [{pattern: X.y, type: sms}]\n",
                "`side_effects[0].type`: \"sms\" must be one of: email, webhook, cache, event, external_api",
            ),
            (
                "base: [main]\n",
                "`base`: expected a string, found a list",
            ),
            (
                "- include\n",
                "expected a mapping of settings (keys: include, exclude, base, metadata_path, max_file_size, threads, zones, side_effects, project_type, controllers_spec_policy, rspec_helper, answer_limit), found a list",
            ),
        ];
        for (text, reason) in cases {
            assert_eq!(
                error(text),
                format!("invalid config conf/.rspec-scout.yml: {reason}"),
                "{text}"
            );
        }
    }

    #[test]
    fn config_file_overrides_defaults() {
        let mut c = Config::defaults(PathBuf::from("."));
        c.apply_file(
            Path::new(".rspec-scout.yml"),
            b"include: ['src/**/*.rb']\nzones: {red_loc: 500}\nbase: develop\nmax_file_size: 1MB\nanswer_limit: 8KB\nthreads: 3\nside_effects: [{pattern: 'Slack.*', type: webhook}]\nproject_type: rails\ncontrollers_spec_policy: request\nrspec_helper: spec_helper\nmetadata_path: .claude\nexclude: []\n",
        )
        .expect("valid");
        assert_eq!(c.answer_limit, 8 * 1024);
        assert_eq!(c.threads, 3);
        assert_eq!(c.side_effects.len(), 1);
        assert_eq!(c.project_type.as_deref(), Some("rails"));
        assert_eq!(c.metadata_path, ".claude");
        assert_eq!(c.scope.include, vec!["src/**/*.rb".to_string()]);
        assert_eq!(c.zones.red_loc, 500);
        assert_eq!(c.zones.yellow_loc, 150);
        assert_eq!(c.base.as_deref(), Some("develop"));
        assert_eq!(c.max_file_size, 1024 * 1024);
    }
}
