//! The README's first command: `./scripts/example` builds the example app's repository
//! from the fixture files (a feature branch on top of `main`) and prints the plan and the
//! cases of each changed method; the README shows that output, byte for byte.

use std::process::Command;

use crate::util::{bin, without_git_env};

#[test]
fn the_first_command_shows_the_plan_the_readme_shows() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    let mut cmd = Command::new("bash");
    without_git_env(&mut cmd);
    let out = cmd
        .arg(root.join("scripts/example"))
        .arg(&app)
        .env("RSPEC_SCOUT", bin())
        .current_dir(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find("```console\n$ rspec-scout discover --format text\ndiscover: branch mode")
        .expect("the README shows the example's output")
        + "```console\n".len();
    let end = start + readme[start..].find("```\n").unwrap();
    assert_eq!(&readme[start..end], stdout);
    // The repository is the test's own, under the temp folder; nothing nested in the
    // project.
    assert!(app.join(".git").is_dir());
    assert!(app
        .join("tmp/rspec_metadata/app_services_payment_retrier.yml")
        .is_file());
}
