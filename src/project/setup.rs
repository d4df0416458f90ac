//! What `rspec-scout init` detects for the pipeline's config (contract §6.3): the Ruby and
//! RSpec versions, the spec helper, the linter, the factory gem, shoulda-matchers and the
//! folders specs, factories and support files live in. Each value comes with the file
//! that told it, so the answer can say why.
//!
//! Pure but for [`SetupFiles::read`], which reads the few root files and the spec helpers
//! (tests feed strings).
//!
//! Does not: decide the project type (`spec::test_config::detect_project_type`, which
//! `test-config` uses too), run Bundler, or look inside installed gems.

use std::collections::BTreeSet;
use std::path::Path;

use super::{gemfile_has_gem, lockfile_has_gem};

/// What the files at a project's root (and its spec helpers) say about its setup.
#[derive(Debug, Clone, Default)]
pub struct SetupFiles {
    /// `Gemfile`.
    pub gemfile: Option<String>,
    /// `Gemfile.lock`.
    pub lockfile: Option<String>,
    /// `.ruby-version`.
    pub ruby_version: Option<String>,
    /// `.tool-versions` (asdf, mise).
    pub tool_versions: Option<String>,
    /// Which of the linters' config files exist (`.rubocop.yml`, `.rubocop_todo.yml`,
    /// `.standard.yml`).
    pub linter_files: BTreeSet<&'static str>,
    /// Which of the folders and files init looks for exist, relative to the root
    /// (`spec/factories`, `spec/rails_helper.rb`, ...; see [`LOOKED_FOR`]).
    pub present: BTreeSet<String>,
    /// `(path, text)` of `{spec}/*_helper.rb` and the Ruby files under `{spec}/support/`
    /// (up to [`HELPER_LIMIT`] files), where shoulda-matchers is configured.
    pub helpers: Vec<(String, String)>,
    /// The spec folder (`spec`, or `directories.spec` of an existing config).
    pub spec_dir: String,
}

/// Helper and support files read for `Shoulda::Matchers.configure`, at most.
pub const HELPER_LIMIT: usize = 500;

/// The linter config files init looks for, in the order it reports them.
const LINTER_FILES: &[&str] = &[".standard.yml", ".rubocop.yml", ".rubocop_todo.yml"];

/// The folders and files under the spec folder (`{spec}/` is replaced) and the root that
/// init looks for.
pub const LOOKED_FOR: &[&str] = &[
    "{spec}/rails_helper.rb",
    "{spec}/spec_helper.rb",
    "{spec}/factories",
    "{spec}/factories.rb",
    "{spec}/fabricators",
    "{spec}/support",
    "test/factories",
    "test/factories.rb",
    "test/fabricators",
];

impl SetupFiles {
    /// Reads them at `root` with `spec_dir` as the spec folder (missing files are `None`;
    /// nothing fails).
    pub fn read(root: &Path, spec_dir: &str) -> Self {
        let text = |name: &str| {
            std::fs::read(root.join(name))
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let present = LOOKED_FOR
            .iter()
            .map(|p| p.replace("{spec}", spec_dir))
            .filter(|p| root.join(p).exists())
            .collect();
        SetupFiles {
            gemfile: text("Gemfile"),
            lockfile: text("Gemfile.lock"),
            ruby_version: text(".ruby-version"),
            tool_versions: text(".tool-versions"),
            linter_files: LINTER_FILES
                .iter()
                .copied()
                .filter(|f| root.join(f).is_file())
                .collect(),
            present,
            helpers: read_helpers(root, spec_dir, true),
            spec_dir: spec_dir.to_string(),
        }
    }

    /// Whether `path` (with `{spec}` for the spec folder) exists.
    fn has(&self, path: &str) -> bool {
        self.present
            .contains(&path.replace("{spec}", &self.spec_dir))
    }

    /// Whether the Gemfile declares `gem` or the lockfile resolves it.
    fn gem(&self, gem: &str) -> Option<String> {
        if self
            .gemfile
            .as_deref()
            .is_some_and(|g| gemfile_has_gem(g, gem))
        {
            return Some(format!("Gemfile has gem '{gem}'"));
        }
        if self
            .lockfile
            .as_deref()
            .is_some_and(|l| lockfile_has_gem(l, gem))
        {
            return Some(format!("Gemfile.lock has {gem}"));
        }
        None
    }
}

/// The spec folder's `*_helper.rb` files and (with `support`) its `support/` Ruby files
/// (path and text),
/// sorted, at most [`HELPER_LIMIT`].
pub fn read_helpers(root: &Path, spec_dir: &str, support: bool) -> Vec<(String, String)> {
    let mut found: Vec<String> = Vec::new();
    let spec = root.join(spec_dir);
    if let Ok(entries) = std::fs::read_dir(&spec) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with("_helper.rb") && e.file_type().is_ok_and(|t| t.is_file()) {
                found.push(format!("{spec_dir}/{name}"));
            }
        }
    }
    let mut stack = if support {
        vec![format!("{spec_dir}/support")]
    } else {
        Vec::new()
    };
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            let rel = format!("{dir}/{}", e.file_name().to_string_lossy());
            if kind.is_dir() {
                stack.push(rel);
            } else if kind.is_file() && rel.ends_with(".rb") {
                found.push(rel);
            }
        }
    }
    found.sort();
    found.truncate(HELPER_LIMIT);
    found
        .into_iter()
        .filter_map(|rel| {
            let bytes = std::fs::read(root.join(&rel)).ok()?;
            Some((rel, String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect()
}

/// A detected value and what told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found<T> {
    /// The value.
    pub value: T,
    /// The file (and what in it) that told, or why a default was taken.
    pub from: String,
}

fn found<T>(value: T, from: impl Into<String>) -> Found<T> {
    Found {
        value,
        from: from.into(),
    }
}

/// The factory library a project uses: `integrations.factories.gem`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactoryGem {
    /// factory_bot (or factory_girl, its old name).
    FactoryBot,
    /// fabrication.
    Fabrication,
    /// Neither.
    None,
}

impl FactoryGem {
    /// The contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FactoryGem::FactoryBot => "factory_bot",
            FactoryGem::Fabrication => "fabrication",
            FactoryGem::None => "none",
        }
    }

    /// The value spelled `text`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "factory_bot" => Some(FactoryGem::FactoryBot),
            "fabrication" => Some(FactoryGem::Fabrication),
            "none" => Some(FactoryGem::None),
            _ => None,
        }
    }
}

/// Everything init detects but the project type and the controllers policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// `ruby_version` (none when nothing says it).
    pub ruby_version: Option<Found<String>>,
    /// `rspec.version`: rspec-core's version in the lockfile.
    pub rspec_version: Option<Found<String>>,
    /// `rspec.helper`: `rails_helper` or `spec_helper`.
    pub helper: Found<&'static str>,
    /// `linter`: `rubocop`, `standardrb` or `none`.
    pub linter: Found<&'static str>,
    /// `integrations.factories.gem`.
    pub factories_gem: Found<FactoryGem>,
    /// `integrations.shoulda_matchers.enabled`.
    pub shoulda_enabled: Found<bool>,
    /// `integrations.shoulda_matchers.configured`.
    pub shoulda_configured: Found<bool>,
    /// `directories.spec`.
    pub spec_dir: Found<String>,
    /// `directories.factories`.
    pub factories_dir: Found<String>,
    /// `directories.support`.
    pub support_dir: Found<String>,
}

/// The gems that mean factory_bot, newest name first.
pub const FACTORY_BOT_GEMS: &[&str] = &[
    "factory_bot_rails",
    "factory_bot",
    "factory_girl_rails",
    "factory_girl",
];

/// Detects every value from the files; `rails` says whether the project is a Rails app (the
/// helper's default).
pub fn detect(files: &SetupFiles, rails: bool) -> Detection {
    let spec = files.spec_dir.clone();
    let helper = if files.has("{spec}/rails_helper.rb") {
        found("rails_helper", format!("{spec}/rails_helper.rb exists"))
    } else if files.has("{spec}/spec_helper.rb") {
        found("spec_helper", format!("{spec}/spec_helper.rb exists"))
    } else if rails {
        found("rails_helper", "no spec helper yet; a Rails app's default")
    } else {
        found(
            "spec_helper",
            "no spec helper yet; the default outside Rails",
        )
    };
    let linter = if let Some(f) = files.linter_files.get(".standard.yml") {
        found("standardrb", format!("{f} exists"))
    } else if let Some(why) = files.gem("standard") {
        found("standardrb", why)
    } else if let Some(f) = [".rubocop.yml", ".rubocop_todo.yml"]
        .iter()
        .find(|f| files.linter_files.contains(*f))
    {
        found("rubocop", format!("{f} exists"))
    } else if let Some(why) = files.gem("rubocop") {
        found("rubocop", why)
    } else {
        found(
            "none",
            "no .standard.yml, .rubocop.yml, standard or rubocop gem",
        )
    };
    let factories_gem = factory_gem(files);
    let shoulda_enabled = match files.gem("shoulda-matchers") {
        Some(why) => found(true, why),
        None => found(false, "no shoulda-matchers gem"),
    };
    let shoulda_configured = match files
        .helpers
        .iter()
        .find(|(_, text)| configures_shoulda(text))
    {
        Some((path, _)) => found(true, format!("{path} calls Shoulda::Matchers.configure")),
        None => found(
            false,
            format!("no Shoulda::Matchers.configure in {spec}/*_helper.rb or {spec}/support/"),
        ),
    };
    let factories_dir = factories_dir(files, factories_gem.value);
    Detection {
        ruby_version: ruby_version(files),
        rspec_version: files
            .lockfile
            .as_deref()
            .and_then(|l| lockfile_version(l, "rspec-core"))
            .map(|v| found(v, "Gemfile.lock has rspec-core")),
        helper,
        linter,
        factories_gem,
        shoulda_enabled,
        shoulda_configured,
        spec_dir: found(spec.clone(), format!("{spec}/ holds the specs")),
        factories_dir,
        support_dir: if files.has("{spec}/support") {
            found(format!("{spec}/support"), format!("{spec}/support exists"))
        } else {
            found(
                format!("{spec}/support"),
                format!("{spec}/support does not exist yet: RSpec's convention"),
            )
        },
    }
}

fn factory_gem(files: &SetupFiles) -> Found<FactoryGem> {
    // A gem the Gemfile names beats one the lockfile resolves only as another gem's
    // dependency (diaspora names factory_bot_rails; a test gem of its own pulls in
    // fabrication).
    let direct = |gem: &str| {
        files
            .gemfile
            .as_deref()
            .is_some_and(|g| gemfile_has_gem(g, gem))
    };
    let resolved = |gem: &str| {
        files
            .lockfile
            .as_deref()
            .is_some_and(|l| lockfile_has_gem(l, gem))
    };
    for (check, file) in [
        (&direct as &dyn Fn(&str) -> bool, "Gemfile has gem"),
        (&resolved, "Gemfile.lock has"),
    ] {
        if let Some(gem) = FACTORY_BOT_GEMS.iter().find(|g| check(g)) {
            let why = if file.ends_with("gem") {
                format!("{file} '{gem}'")
            } else {
                format!("{file} {gem}")
            };
            return found(FactoryGem::FactoryBot, why);
        }
        if check("fabrication") {
            let why = if file.ends_with("gem") {
                format!("{file} 'fabrication'")
            } else {
                format!("{file} fabrication")
            };
            return found(FactoryGem::Fabrication, why);
        }
    }
    found(FactoryGem::None, "no factory_bot or fabrication gem")
}

fn factories_dir(files: &SetupFiles, gem: FactoryGem) -> Found<String> {
    let spec = &files.spec_dir;
    let candidates: &[&str] = match gem {
        FactoryGem::Fabrication => &["{spec}/fabricators", "test/fabricators"],
        _ => &[
            "{spec}/factories",
            "{spec}/factories.rb",
            "test/factories",
            "test/factories.rb",
            "{spec}/fabricators",
            "test/fabricators",
        ],
    };
    for c in candidates {
        if files.has(c) {
            let path = c.replace("{spec}", spec);
            // FactoryBot reads `spec/factories.rb` and `spec/factories/` for the one
            // definition path `spec/factories`.
            let dir = path.strip_suffix(".rb").unwrap_or(&path).to_string();
            return found(dir, format!("{path} exists"));
        }
    }
    let default = match gem {
        FactoryGem::Fabrication => format!("{spec}/fabricators"),
        _ => format!("{spec}/factories"),
    };
    found(
        default.clone(),
        format!("{default} does not exist yet: the gem's convention"),
    )
}

/// `Shoulda::Matchers.configure` outside a comment.
fn configures_shoulda(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        !l.starts_with('#') && l.contains("Shoulda::Matchers.configure")
    })
}

/// `.ruby-version`, then Gemfile.lock's `RUBY VERSION`, then `.tool-versions`, then the
/// Gemfile's `ruby "x.y.z"`.
fn ruby_version(files: &SetupFiles) -> Option<Found<String>> {
    if let Some(v) = files.ruby_version.as_deref().and_then(version_file) {
        return Some(found(v, ".ruby-version"));
    }
    if let Some(v) = files.lockfile.as_deref().and_then(lockfile_ruby) {
        return Some(found(v, "Gemfile.lock's RUBY VERSION"));
    }
    if let Some(v) = files.tool_versions.as_deref().and_then(|t| {
        t.lines().find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some("ruby"))
                .then(|| words.next())
                .flatten()
                .map(str::to_string)
        })
    }) {
        return Some(found(v, ".tool-versions"));
    }
    files
        .gemfile
        .as_deref()
        .and_then(gemfile_ruby)
        .map(|v| found(v, "the Gemfile's ruby line"))
}

/// The version in a `.ruby-version` file (`3.3.0`, `ruby-3.3.0`), first non-blank line.
fn version_file(text: &str) -> Option<String> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))?;
    let v = line.strip_prefix("ruby-").unwrap_or(line);
    plain_version(v)
}

/// A version made of digits, dots and letters (`3.3.0`, `3.4.0-preview1`); nothing else.
fn plain_version(v: &str) -> Option<String> {
    let ok = v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    ok.then(|| v.to_string())
}

/// `RUBY VERSION\n   ruby 3.3.0p0` → `3.3.0`.
fn lockfile_ruby(lock: &str) -> Option<String> {
    let mut lines = lock.lines().skip_while(|l| l.trim() != "RUBY VERSION");
    lines.next()?;
    let line = lines.next()?.trim();
    let v = line.strip_prefix("ruby ")?.trim();
    // `3.3.0p0`: the patch level is not part of the version people write.
    let v = match v.find('p') {
        Some(i)
            if v.get(i + 1..)
                .is_some_and(|r| r.chars().all(|c| c.is_ascii_digit())) =>
        {
            v.get(..i).unwrap_or(v)
        }
        _ => v,
    };
    plain_version(v)
}

/// `ruby "3.3.0"` or `ruby '3.3.0'` in the Gemfile (not `ruby file: ...` or a requirement).
fn gemfile_ruby(gemfile: &str) -> Option<String> {
    gemfile.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("ruby")?.trim_start();
        let rest = rest.strip_prefix('(').unwrap_or(rest);
        let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let inner = rest.get(1..)?;
        let end = inner.find(q)?;
        plain_version(inner.get(..end)?)
    })
}

/// The version `Gemfile.lock` resolves for `gem` (`    rspec-core (3.13.0)` → `3.13.0`).
pub fn lockfile_version(lock: &str, gem: &str) -> Option<String> {
    lock.lines().find_map(|line| {
        let rest = line.strip_prefix("    ")?;
        if rest.starts_with(' ') {
            return None;
        }
        let rest = rest.strip_prefix(gem)?.strip_prefix(" (")?;
        let v = rest.strip_suffix(')')?;
        // `1.2.3-x86_64-linux`: the platform is not the version.
        let v = v.split('-').next().unwrap_or(v);
        plain_version(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = "GEM\n  remote: https://rubygems.org/\n  specs:\n    factory_bot (6.4.6)\n      activesupport (>= 5.0.0)\n    factory_bot_rails (6.4.3)\n    nokogiri (1.16.0-x86_64-linux)\n    rspec-core (3.13.0)\n    rubocop (1.60.0)\n    shoulda-matchers (6.1.0)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  factory_bot_rails\n  rspec-rails\n\nRUBY VERSION\n   ruby 3.3.0p0\n\nBUNDLED WITH\n   2.5.3\n";

    fn files() -> SetupFiles {
        SetupFiles {
            gemfile: Some("source 'https://rubygems.org'\ngem 'rails'\ngroup :test do\n  gem 'factory_bot_rails'\n  gem \"shoulda-matchers\"\nend\n".into()),
            lockfile: Some(LOCK.into()),
            spec_dir: "spec".into(),
            ..SetupFiles::default()
        }
    }

    #[test]
    fn versions_from_the_files_that_say_them() {
        assert_eq!(
            lockfile_version(LOCK, "rspec-core").as_deref(),
            Some("3.13.0")
        );
        assert_eq!(
            lockfile_version(LOCK, "nokogiri").as_deref(),
            Some("1.16.0")
        );
        // A dependency line (six spaces) is not a resolved version.
        assert_eq!(lockfile_version(LOCK, "activesupport"), None);
        assert_eq!(lockfile_ruby(LOCK).as_deref(), Some("3.3.0"));
        assert_eq!(version_file("ruby-3.2.2\n").as_deref(), Some("3.2.2"));
        assert_eq!(version_file("\n3.4.1\n").as_deref(), Some("3.4.1"));
        assert_eq!(version_file("system\n"), None);
        assert_eq!(gemfile_ruby("ruby '3.1.4'\n").as_deref(), Some("3.1.4"));
        assert_eq!(gemfile_ruby("ruby file: '.ruby-version'\n"), None);
        assert_eq!(gemfile_ruby("ruby '~> 3.2'\n"), None);

        let mut f = files();
        let d = detect(&f, true);
        assert_eq!(
            d.ruby_version,
            Some(found("3.3.0".to_string(), "Gemfile.lock's RUBY VERSION"))
        );
        f.ruby_version = Some("3.3.1\n".into());
        assert_eq!(
            detect(&f, true).ruby_version,
            Some(found("3.3.1".to_string(), ".ruby-version"))
        );
        assert_eq!(
            d.rspec_version,
            Some(found("3.13.0".to_string(), "Gemfile.lock has rspec-core"))
        );
    }

    #[test]
    fn gems_linter_helper_and_folders() {
        let mut f = files();
        let d = detect(&f, true);
        assert_eq!(
            d.factories_gem,
            found(
                FactoryGem::FactoryBot,
                "Gemfile has gem 'factory_bot_rails'"
            )
        );
        assert!(d.shoulda_enabled.value);
        assert!(!d.shoulda_configured.value);
        assert_eq!(d.linter, found("rubocop", "Gemfile.lock has rubocop"));
        assert_eq!(d.helper.value, "rails_helper");
        assert_eq!(d.factories_dir.value, "spec/factories");
        assert!(d.factories_dir.from.contains("does not exist yet"));

        f.linter_files.insert(".standard.yml");
        f.present.insert("spec/spec_helper.rb".into());
        f.present.insert("test/factories".into());
        f.helpers.push((
            "spec/support/shoulda.rb".into(),
            "# Shoulda::Matchers.configure\nShoulda::Matchers.configure do |c|\nend\n".into(),
        ));
        let d = detect(&f, false);
        assert_eq!(d.linter, found("standardrb", ".standard.yml exists"));
        assert_eq!(d.helper.value, "spec_helper");
        assert_eq!(
            d.factories_dir,
            found("test/factories".to_string(), "test/factories exists")
        );
        assert_eq!(
            d.shoulda_configured,
            found(
                true,
                "spec/support/shoulda.rb calls Shoulda::Matchers.configure"
            )
        );

        // Fabrication named in the Gemfile; factory_bot nowhere.
        let f = SetupFiles {
            gemfile: Some("gem 'fabrication'\n".into()),
            spec_dir: "spec".into(),
            ..SetupFiles::default()
        };
        let d = detect(&f, false);
        assert_eq!(d.factories_gem.value, FactoryGem::Fabrication);
        assert_eq!(d.factories_dir.value, "spec/fabricators");
        assert_eq!(d.linter.value, "none");
        assert_eq!(d.helper.value, "spec_helper");
    }
}
