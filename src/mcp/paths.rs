//! Paths from the client, confined to the project root: a path that leaves it (absolute
//! elsewhere, through `..`, or through a symbolic link) is refused before any command sees
//! it. What the commands get is the path relative to the root, as a person running the CLI
//! from the root would type it.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// `path` (relative to `root`, or absolute inside it) as a clean root-relative path, or
/// `PATH_OUTSIDE_ROOT`. `root` must be canonical (symbolic links resolved). The part of the
/// path that exists is resolved with its links; the rest (a spec file to be created) may
/// not hold `..`.
pub fn confine(root: &Path, path: &str) -> Result<PathBuf> {
    let outside = || Error::OutsideRoot {
        path: PathBuf::from(path),
        root: root.to_path_buf(),
    };
    if path.is_empty() || path.contains('\0') {
        return Err(outside());
    }
    let given = Path::new(path);
    let joined = if given.is_absolute() {
        given.to_path_buf()
    } else {
        root.join(given)
    };
    // `..` and `.` removed by the text alone: `app/../../etc` leaves the root here.
    let mut lexical = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                if !lexical.pop() {
                    return Err(outside());
                }
            }
            Component::CurDir => {}
            other => lexical.push(other.as_os_str()),
        }
    }
    let rel = lexical
        .strip_prefix(root)
        .map_err(|_| outside())?
        .to_path_buf();
    // Links: the longest existing prefix, resolved, must still be inside the root.
    let mut existing = lexical.clone();
    while !existing.exists() {
        if !existing.pop() {
            return Err(outside());
        }
    }
    let real = std::fs::canonicalize(&existing).map_err(|_| outside())?;
    if !real.starts_with(root) {
        return Err(outside());
    }
    if rel.as_os_str().is_empty() {
        return Ok(PathBuf::from("."));
    }
    Ok(rel)
}

/// Every path of a list, confined (the first refusal is the error).
pub fn confine_all(root: &Path, paths: &[String]) -> Result<Vec<PathBuf>> {
    paths.iter().map(|p| confine(root, p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("app/models")).unwrap();
        std::fs::write(root.join("app/models/payment.rb"), "class Payment; end\n").unwrap();
        (dir, root)
    }

    #[test]
    fn paths_inside_the_root_come_back_relative_and_clean() {
        let (_dir, root) = root();
        let ok = |p: &str| confine(&root, p).unwrap();
        assert_eq!(
            ok("app/models/payment.rb"),
            Path::new("app/models/payment.rb")
        );
        assert_eq!(
            ok("./app/../app/models/payment.rb"),
            Path::new("app/models/payment.rb")
        );
        let absolute = root.join("app/models/payment.rb");
        assert_eq!(
            ok(absolute.to_str().unwrap()),
            Path::new("app/models/payment.rb")
        );
        // Not there yet (a spec to create): allowed when its folder is inside.
        assert_eq!(
            ok("spec/models/payment_spec.rb"),
            Path::new("spec/models/payment_spec.rb")
        );
        assert_eq!(ok("."), Path::new("."));
    }

    #[test]
    fn paths_that_leave_the_root_are_refused() {
        let (dir, root) = root();
        let outside_dir = tempfile::tempdir().unwrap();
        std::fs::write(outside_dir.path().join("secret.rb"), "x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside_dir.path(), root.join("app/linked")).unwrap();
        let outside = outside_dir.path().join("secret.rb");
        let mut refused = vec![
            "../secret.rb".to_string(),
            "app/../../secret.rb".to_string(),
            "/etc/passwd".to_string(),
            outside.to_string_lossy().into_owned(),
            String::new(),
        ];
        if cfg!(unix) {
            refused.push("app/linked/secret.rb".to_string());
            refused.push("app/linked/new_spec.rb".to_string());
        }
        for p in &refused {
            let err = confine(&root, p).unwrap_err();
            assert_eq!(err.code(), "PATH_OUTSIDE_ROOT", "{p}");
        }
        drop(dir);
    }
}
