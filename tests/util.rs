//! Test helpers: temp projects, running the binary, git repositories built by the tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The compiled `rspec-scout` binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_rspec-scout"))
}

/// A temporary project folder.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Self {
        Project {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file (creating folders); `content` is written byte for byte.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write");
        path
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).expect("read")
    }

    /// Copies a fixture folder (under `fixtures/`) into the project.
    pub fn copy_fixture(&self, fixture: &str) {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(fixture);
        copy_dir(&src, self.root());
    }

    /// Runs the binary in the project root.
    pub fn run(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .current_dir(self.root())
            .env_remove("RUST_BACKTRACE");
        without_git_env(&mut cmd);
        let output = cmd.output().expect("run rspec-scout");
        Run::from(output)
    }

    /// Runs the binary in the project root with these environment variables set.
    pub fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .current_dir(self.root())
            .env_remove("RUST_BACKTRACE");
        without_git_env(&mut cmd);
        cmd.envs(env.iter().copied());
        let output = cmd.output().expect("run rspec-scout");
        Run::from(output)
    }
}

fn copy_dir(src: &Path, dst: &Path) {
    for entry in std::fs::read_dir(src).expect("fixture dir") {
        let entry = entry.expect("entry");
        let target = dst.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A finished run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Asserts the exit code, showing both streams when it differs.
    pub fn expect_code(self, code: i32) -> Self {
        assert_eq!(
            self.code, code,
            "exit code {} (expected {code})\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }

    /// stdout parsed as YAML.
    pub fn yaml(&self) -> serde_yaml::Value {
        serde_yaml::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not YAML: {e}\n{}", self.stdout))
    }
}

/// A `ruby` to cross-check against. When RSPEC_SCOUT_REQUIRE_RUBY is set (the test script
/// sets it after installing Ruby) a missing Ruby fails the test instead of skipping it.
pub fn ruby() -> Option<PathBuf> {
    let found = Command::new("ruby")
        .arg("-e")
        .arg("exit 0")
        .status()
        .ok()
        .filter(|s| s.success())
        .map(|_| PathBuf::from("ruby"));
    if found.is_none() {
        assert!(
            std::env::var_os("RSPEC_SCOUT_REQUIRE_RUBY").is_none(),
            "RSPEC_SCOUT_REQUIRE_RUBY is set but no ruby is on PATH"
        );
        eprintln!("note: no ruby on PATH; skipping a cross-check against Ruby (run scripts/test to install it)");
    }
    found
}

/// A `python3` with PyYAML, to check that written YAML loads in Python's loader too
/// (agent harnesses are often Python). When RSPEC_SCOUT_REQUIRE_PYYAML is set (the test
/// script sets it after installing PyYAML) a missing one fails the test.
pub fn pyyaml() -> Option<PathBuf> {
    let found = Command::new("python3")
        .args(["-c", "import yaml"])
        .status()
        .ok()
        .filter(|s| s.success())
        .map(|_| PathBuf::from("python3"));
    if found.is_none() {
        assert!(
            std::env::var_os("RSPEC_SCOUT_REQUIRE_PYYAML").is_none(),
            "RSPEC_SCOUT_REQUIRE_PYYAML is set but python3 cannot import yaml"
        );
        eprintln!("note: no python3 with PyYAML; skipping a check against PyYAML");
    }
    found
}

impl Project {
    /// Runs `git` in the project with a fixed identity and dates and no user config, so
    /// commit ids are the same on every machine. Panics when git fails.
    pub fn git(&self, args: &[&str]) -> String {
        let output = git_command(self.root())
            .args(args)
            .output()
            .expect("run git");
        assert!(
            output.status.success(),
            "git {args:?} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// `git init` on `main` and a first commit of everything.
    pub fn init_repo(&self) {
        self.git(&["init", "-q", "-b", "main"]);
        self.commit_all("initial");
    }

    /// Stages everything and commits.
    pub fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    /// Removes a file.
    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.root().join(rel)).expect("remove");
    }

    /// Replaces the first occurrence of `from` with `to` in a file.
    pub fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = self.read(rel);
        assert!(text.contains(from), "{rel} does not contain {from:?}");
        std::fs::write(self.root().join(rel), text.replacen(from, to, 1)).expect("write");
    }

    /// Whether a file exists.
    pub fn exists(&self, rel: &str) -> bool {
        self.root().join(rel).exists()
    }
}

/// Git's environment variables that point a command at another repository. `git
/// rebase --exec` and hooks set them for the commands they run; a test that inherited
/// them would commit into the repository running the tests instead of its own.
const GIT_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_PREFIX",
];

/// Removes [`GIT_ENV`] from a command's environment.
pub fn without_git_env(cmd: &mut Command) {
    for var in GIT_ENV {
        cmd.env_remove(var);
    }
}

/// A `git` command isolated from the user's configuration and from any repository the
/// tests run inside, with fixed dates.
pub fn git_command(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    without_git_env(&mut cmd);
    cmd.current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_AUTHOR_DATE", "2024-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2024-01-01T00:00:00Z")
        .args(["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"]);
    cmd
}
