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
        let output = Command::new(bin())
            .args(args)
            .current_dir(self.root())
            .env_remove("RUST_BACKTRACE")
            .output()
            .expect("run rspec-scout");
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
