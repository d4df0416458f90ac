//! What a Ruby project is set up with, read from the files that say it: the test framework
//! (RSpec or Minitest) from `Gemfile`, `Gemfile.lock`, `.rspec` and the `spec/` and `test/`
//! folders. `skeleton` asks before writing RSpec specs into a project that tests with
//! Minitest only; `init` writes what it finds.
//!
//! Pure but for [`ProjectFiles::read`], which reads the few files at the root (the rest
//! takes their text, so tests feed strings).
//!
//! Does not: run Bundler, or look at anything but the project's root files and its two test
//! folders' names.

pub mod setup;

use std::path::Path;

/// The files at a project's root that tell how it is set up.
#[derive(Debug, Clone, Default)]
pub struct ProjectFiles {
    /// `Gemfile`.
    pub gemfile: Option<String>,
    /// `Gemfile.lock`.
    pub lockfile: Option<String>,
    /// `.rspec` exists.
    pub dot_rspec: bool,
    /// Files under `spec/` named `*_spec.rb` (counted, up to a bound), and whether
    /// `spec/spec_helper.rb` or `spec/rails_helper.rb` exists.
    pub spec_files: usize,
    /// `spec/spec_helper.rb` or `spec/rails_helper.rb`.
    pub spec_helper: bool,
    /// Files under `test/` named `*_test.rb` (counted, up to a bound).
    pub test_files: usize,
    /// `test/test_helper.rb`.
    pub test_helper: bool,
}

/// Test files are counted up to this many per folder: enough to say "a suite is there".
const COUNT_LIMIT: usize = 1000;

impl ProjectFiles {
    /// Reads them at `root` (missing files are `None`/zero; nothing fails).
    pub fn read(root: &Path, spec_dir: &str) -> Self {
        let text = |name: &str| {
            std::fs::read(root.join(name))
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let spec = root.join(spec_dir);
        ProjectFiles {
            gemfile: text("Gemfile"),
            lockfile: text("Gemfile.lock"),
            dot_rspec: root.join(".rspec").is_file(),
            spec_files: count_files(&spec, "_spec.rb"),
            spec_helper: spec.join("spec_helper.rb").is_file()
                || spec.join("rails_helper.rb").is_file(),
            test_files: count_files(&root.join("test"), "_test.rb"),
            test_helper: root.join("test/test_helper.rb").is_file(),
        }
    }
}

/// The test framework a project uses, with the facts that said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFramework {
    /// What RSpec's presence rests on (empty: no sign of RSpec).
    pub rspec: Vec<String>,
    /// What Minitest's presence rests on (a `test/` suite; Rails itself depends on the
    /// minitest gem, so the lockfile alone says nothing).
    pub minitest: Vec<String>,
}

impl TestFramework {
    /// Minitest and no sign of RSpec at all: writing RSpec specs there needs the owner's
    /// word.
    pub fn minitest_only(&self) -> bool {
        self.rspec.is_empty() && !self.minitest.is_empty()
    }
}

/// Reads the signs of each framework.
pub fn test_framework(files: &ProjectFiles) -> TestFramework {
    let mut rspec = Vec::new();
    let mut minitest = Vec::new();
    for gem in ["rspec-rails", "rspec-core", "rspec"] {
        if let Some(lock) = &files.lockfile {
            if lockfile_has_gem(lock, gem) {
                rspec.push(format!("Gemfile.lock has {gem}"));
                break;
            }
        }
        if let Some(gemfile) = &files.gemfile {
            if gemfile_has_gem(gemfile, gem) {
                rspec.push(format!("Gemfile has gem '{gem}'"));
                break;
            }
        }
    }
    if files.dot_rspec {
        rspec.push(".rspec exists".to_string());
    }
    if files.spec_helper {
        rspec.push("spec/ has a spec_helper or rails_helper".to_string());
    }
    if files.spec_files > 0 {
        rspec.push(format!(
            "{} under spec/",
            count_text(files.spec_files, "*_spec.rb file")
        ));
    }
    if files.test_files > 0 {
        minitest.push(format!(
            "{} under test/",
            count_text(files.test_files, "*_test.rb file")
        ));
    }
    if files.test_helper {
        minitest.push("test/test_helper.rb exists".to_string());
    }
    for gem in ["minitest-rails", "minitest-reporters", "shoulda-context"] {
        if files
            .gemfile
            .as_deref()
            .is_some_and(|g| gemfile_has_gem(g, gem))
        {
            minitest.push(format!("Gemfile has gem '{gem}'"));
        }
    }
    TestFramework { rspec, minitest }
}

fn count_text(n: usize, what: &str) -> String {
    if n >= COUNT_LIMIT {
        format!("{COUNT_LIMIT}+ {what}s")
    } else if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Whether an uncommented Gemfile line declares `gem 'name'` (single or double quotes).
pub fn gemfile_has_gem(gemfile: &str, name: &str) -> bool {
    gemfile.lines().any(|line| {
        let line = line.trim_start();
        if line.starts_with('#') {
            return false;
        }
        let Some(rest) = line.strip_prefix("gem") else {
            return false;
        };
        let rest = rest.trim_start_matches([' ', '(']);
        ['\'', '"'].iter().any(|q| {
            rest.strip_prefix(*q)
                .and_then(|r| r.strip_prefix(name))
                .is_some_and(|r| r.starts_with(*q))
        })
    })
}

/// Whether `Gemfile.lock` resolves gem `name` (a `    name (version)` line of a `specs:`
/// list, or a `  name` line of `DEPENDENCIES`).
pub fn lockfile_has_gem(lockfile: &str, name: &str) -> bool {
    lockfile.lines().any(|line| {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = line.trim_start_matches(' ');
        (indent == 4 || indent == 2)
            && rest
                .strip_prefix(name)
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '!']))
    })
}

/// Files under `dir` whose name ends with `suffix`, up to [`COUNT_LIMIT`] (links not
/// followed).
fn count_files(dir: &Path, suffix: &str) -> usize {
    let mut count = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() && entry.file_name().to_string_lossy().ends_with(suffix) {
                count += 1;
                if count >= COUNT_LIMIT {
                    return count;
                }
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = "GEM\n  remote: https://rubygems.org/\n  specs:\n    minitest (5.25.1)\n    rails (7.1.3)\n      activesupport (= 7.1.3)\n    rspec-core (3.13.0)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  rails\n  rspec-rails!\n";

    #[test]
    fn gems_in_the_gemfile_and_the_lockfile() {
        assert!(gemfile_has_gem(
            "gem 'rspec-rails', '~> 6'\n",
            "rspec-rails"
        ));
        assert!(gemfile_has_gem("  gem(\"rspec-rails\")\n", "rspec-rails"));
        assert!(!gemfile_has_gem("# gem 'rspec-rails'\n", "rspec-rails"));
        assert!(!gemfile_has_gem("gem 'rspec-rails-extra'\n", "rspec-rails"));
        assert!(!gemfile_has_gem("gemspec\n", "rspec"));
        assert!(lockfile_has_gem(LOCK, "rspec-core"));
        assert!(lockfile_has_gem(LOCK, "rspec-rails"));
        assert!(lockfile_has_gem(LOCK, "minitest"));
        // A dependency of another gem (six spaces) is not resolved by that line alone.
        assert!(!lockfile_has_gem(LOCK, "activesupport"));
        assert!(!lockfile_has_gem(LOCK, "rspec"));
    }

    #[test]
    fn a_minitest_suite_without_rspec_is_minitest_only() {
        // Rails depends on minitest: the lockfile alone is no sign of it.
        let rails_only = ProjectFiles {
            lockfile: Some("GEM\n  specs:\n    minitest (5.25.1)\n    rails (7.1.3)\n".into()),
            ..Default::default()
        };
        let found = test_framework(&rails_only);
        assert!(!found.minitest_only());
        assert!(found.minitest.is_empty() && found.rspec.is_empty());

        let minitest = ProjectFiles {
            test_files: 318,
            test_helper: true,
            ..rails_only.clone()
        };
        let found = test_framework(&minitest);
        assert!(found.minitest_only());
        assert_eq!(
            found.minitest,
            [
                "318 *_test.rb files under test/",
                "test/test_helper.rb exists"
            ]
        );

        let both = ProjectFiles {
            lockfile: Some(LOCK.into()),
            ..minitest
        };
        let found = test_framework(&both);
        assert!(!found.minitest_only());
        assert_eq!(found.rspec, ["Gemfile.lock has rspec-rails"]);
    }
}
