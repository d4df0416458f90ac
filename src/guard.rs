//! The one door every write goes through. A path is cleared for writing only after every
//! symbolic link on its way is resolved, `..` is applied to the real folders, and the result
//! lies inside the project root and outside any `.git` folder. Spec targets must also be
//! spec files (`*_spec.rb` in a `spec` folder) and metadata targets metadata files (`*.yml`
//! in a `rspec_metadata` folder), so no argument, configuration value or link can turn a
//! write of this tool into a write to a Gemfile, to production code or to a git hook.
//!
//! The write functions of [`crate::metadata`] take the [`Target`]s and [`Folder`]s this
//! module makes, and nothing else makes them: a write that skips the guard does not build.
//!
//! Does not: read or write file contents, or hold state between calls.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Refusal as RefusalCode, Result};

/// A file cleared for writing: its real path (links resolved), inside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    path: PathBuf,
}

impl Target {
    /// The real path to write (a link inside the root is written through, so the link
    /// stays a link).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder the file is in.
    pub fn folder(&self) -> Folder {
        Folder {
            path: self
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        }
    }
}

/// A folder cleared for writing: its real path, inside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    path: PathBuf,
}

impl Folder {
    /// The real path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file directly in this folder, named by this tool (a slug, `plan.yml`). A name
    /// with a separator, `.` or `..` is refused. The file itself may be a link: an atomic
    /// write renames over it and so replaces the link, never what it points to.
    pub fn file(&self, name: &str) -> Result<Target> {
        let plain = !name.is_empty()
            && name != "."
            && name != ".."
            && !name.contains(['/', '\\', '\0'])
            && name != ".git";
        if !plain {
            return Err(Error::WriteRefused {
                path: self.path.join(name),
                reason: "a file name of this tool must be one plain name".to_string(),
                code: RefusalCode::OutsideRoot,
            });
        }
        Ok(Target {
            path: self.path.join(name),
        })
    }
}

/// Clears the folder `dir` (absolute, or relative to the current directory) for writing
/// under `root`; it need not exist yet.
pub fn folder(root: &Path, dir: &Path) -> Result<Folder> {
    let (real, _) = confined(root, dir)?;
    Ok(Folder { path: real })
}

/// Clears a file for writing under `root`: its folder as [`folder`] does, and the file
/// itself when it is a link (followed, and the place it points to must be inside too).
pub fn file(root: &Path, path: &Path) -> Result<Target> {
    let (real, _) = confined(root, path)?;
    Ok(Target { path: real })
}

/// The pipeline's config file, relative to the project root: the one file `init` writes.
pub const PIPELINE_CONFIG: &str = ".claude/rspec-testing-config.yml";

/// Clears the pipeline's config file ([`PIPELINE_CONFIG`] under `root`) for writing:
/// [`file`] on that one fixed path, so no argument or setting can name another file.
pub fn pipeline_config(root: &Path) -> Result<Target> {
    file(root, &root.join(PIPELINE_CONFIG))
}

/// Clears a metadata file: [`file`], and it must be a `.yml` file in a `rspec_metadata`
/// folder (the pipeline's `{metadata_path}/rspec_metadata/{slug}.yml`).
pub fn metadata_file(root: &Path, path: &Path) -> Result<Target> {
    let (real, rel) = confined(root, path)?;
    let parts: Vec<&str> = rel.split('/').collect();
    let ok = rel.ends_with(".yml")
        && parts.len() >= 2
        && parts.get(parts.len() - 2) == Some(&"rspec_metadata");
    if !ok {
        return Err(Error::WriteRefused {
            path: path.to_path_buf(),
            reason: format!(
                "{rel} is not a metadata file: only `.yml` files in a `rspec_metadata` folder are written as metadata"
            ),
            code: RefusalCode::NotAMetadataFile,
        });
    }
    Ok(Target { path: real })
}

/// Clears a spec file: [`file`], and, once links are resolved, a `*_spec.rb` file in a
/// folder named `spec_dir` (`spec` by default: `spec/models/x_spec.rb`, or a component's
/// `packs/billing/spec/models/x_spec.rb`).
pub fn spec_file(root: &Path, path: &Path, spec_dir: &str) -> Result<Target> {
    let (real, rel) = confined(root, path)?;
    if !is_spec_path(&rel, spec_dir) {
        return Err(Error::WriteRefused {
            path: path.to_path_buf(),
            reason: format!(
                "{rel} is not a spec file: rspec-scout writes only `*_spec.rb` files under a `{}/` folder",
                spec_dir.trim_end_matches('/')
            ),
            code: RefusalCode::NotASpecFile,
        });
    }
    if real.is_dir() {
        return Err(Error::WriteRefused {
            path: path.to_path_buf(),
            reason: format!("{rel} is a folder, not a spec file"),
            code: RefusalCode::NotASpecFile,
        });
    }
    Ok(Target { path: real })
}

/// Whether a root-relative path (`/` separators) is a spec file: it ends with `_spec.rb`
/// and one of its folders is `spec_dir` (the configured spec directory: `spec`, or a
/// longer path such as `test/spec`, which must then start the path or follow a component
/// folder).
pub fn is_spec_path(rel: &str, spec_dir: &str) -> bool {
    let spec_dir = spec_dir.trim_matches('/');
    let Some(name) = rel.rsplit('/').next() else {
        return false;
    };
    if !name.ends_with("_spec.rb") || name == "_spec.rb" || spec_dir.is_empty() {
        return false;
    }
    let folder = rel.get(..rel.len() - name.len()).unwrap_or_default();
    let folder = format!("/{folder}");
    folder.contains(&format!("/{spec_dir}/"))
}

/// The real form of `path` and its root-relative text, or the refusal. Every existing
/// prefix is resolved with its links; the part that does not exist yet is taken as
/// written (`..` in it pops a folder that does not exist, so it cannot leave a real one).
fn confined(root: &Path, path: &Path) -> Result<(PathBuf, String)> {
    let refuse = |reason: String| Error::WriteRefused {
        path: path.to_path_buf(),
        reason,
        code: RefusalCode::OutsideRoot,
    };
    let root_real = std::fs::canonicalize(root).map_err(|e| {
        refuse(format!(
            "the project root {} cannot be resolved: {e}",
            root.display()
        ))
    })?;
    let real = resolve(path).map_err(refuse)?;
    let Ok(rel) = real.strip_prefix(&root_real) else {
        return Err(refuse(format!(
            "{} is outside the project root {}{}",
            path.display(),
            root_real.display(),
            if real.as_path() != path {
                format!(" (it resolves to {})", real.display())
            } else {
                String::new()
            }
        )));
    };
    let mut text = String::new();
    for part in rel.components() {
        if part.as_os_str() == ".git" {
            return Err(refuse(format!(
                "{} is inside a .git folder: rspec-scout never writes there",
                path.display()
            )));
        }
        if !text.is_empty() {
            text.push('/');
        }
        text.push_str(&part.as_os_str().to_string_lossy());
    }
    Ok((real, text))
}

/// `path` made absolute with every link of its existing part resolved and `..` applied to
/// real folders. A link that points nowhere is refused: a write through it would create
/// whatever it names.
fn resolve(path: &Path) -> std::result::Result<PathBuf, String> {
    if path.as_os_str().is_empty() || path.as_os_str().as_encoded_bytes().contains(&0) {
        return Err("an empty path or a path with a NUL byte".to_string());
    }
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| format!("the current directory cannot be read: {e}"))?
            .join(path)
    };
    let mut real = PathBuf::new();
    let mut exists = true;
    for part in abs.components() {
        match part {
            Component::Prefix(_) | Component::RootDir => real.push(part.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                real.pop();
            }
            Component::Normal(name) => {
                real.push(name);
                if !exists {
                    continue;
                }
                match std::fs::symlink_metadata(&real) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        real = std::fs::canonicalize(&real).map_err(|e| {
                            format!(
                                "{} is a symbolic link that cannot be followed ({e})",
                                real.display()
                            )
                        })?;
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => exists = false,
                    Err(e) => return Err(format!("{} cannot be looked at: {e}", real.display())),
                }
            }
        }
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(e: Error) -> &'static str {
        e.code()
    }

    #[test]
    fn spec_paths() {
        assert!(is_spec_path("spec/models/user_spec.rb", "spec"));
        assert!(is_spec_path("packs/billing/spec/models/x_spec.rb", "spec"));
        assert!(is_spec_path("spec/x_spec.rb", "spec/"));
        assert!(!is_spec_path("Gemfile", "spec"));
        assert!(!is_spec_path("app/models/user.rb", "spec"));
        assert!(!is_spec_path("spec/models/user.rb", "spec"));
        assert!(!is_spec_path("user_spec.rb", "spec"));
        assert!(!is_spec_path("spec/_spec.rb", "spec"));
        assert!(!is_spec_path("specs/user_spec.rb", "spec"));
        assert!(is_spec_path("test/spec/user_spec.rb", "test/spec"));
        assert!(!is_spec_path("spec/user_spec.rb", "test/spec"));
    }

    #[test]
    fn writes_stay_inside_the_root() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("spec/models")).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        // Plain folders, existing or not, are cleared.
        assert!(folder(root, &root.join("tmp/rspec_metadata")).is_ok());
        assert!(file(root, &root.join("spec/models/x_spec.rb")).is_ok());
        // `..` out of the root, through a folder that does not exist, or absolute.
        assert_eq!(
            code(folder(root, &root.join("../elsewhere")).unwrap_err()),
            "WRITE_OUTSIDE_ROOT"
        );
        assert_eq!(
            code(folder(root, &root.join("nothing/../../elsewhere")).unwrap_err()),
            "WRITE_OUTSIDE_ROOT"
        );
        assert_eq!(
            code(folder(root, outside.path()).unwrap_err()),
            "WRITE_OUTSIDE_ROOT"
        );
        // Under .git.
        assert_eq!(
            code(file(root, &root.join(".git/hooks/post-checkout")).unwrap_err()),
            "WRITE_OUTSIDE_ROOT"
        );
        assert_eq!(
            code(folder(root, &root.join("tmp/.git/x")).unwrap_err()),
            "WRITE_OUTSIDE_ROOT"
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_before_the_check() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("spec/models")).unwrap();
        std::fs::write(outside.path().join("x_spec.rb"), "").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("tmp")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("x_spec.rb"),
            root.join("spec/models/x_spec.rb"),
        )
        .unwrap();
        std::os::unix::fs::symlink(
            root.join("nowhere"),
            root.join("spec/models/dangling_spec.rb"),
        )
        .unwrap();
        assert_eq!(
            code(folder(root, &root.join("tmp/rspec_metadata")).unwrap_err()),
            "WRITE_OUTSIDE_ROOT"
        );
        assert_eq!(
            code(spec_file(root, &root.join("spec/models/x_spec.rb"), "spec").unwrap_err()),
            "WRITE_OUTSIDE_ROOT"
        );
        assert_eq!(
            code(spec_file(root, &root.join("spec/models/dangling_spec.rb"), "spec").unwrap_err()),
            "WRITE_OUTSIDE_ROOT"
        );
        // A link inside the root is written through, to the file it names.
        std::fs::write(root.join("spec/models/real_spec.rb"), "").unwrap();
        std::os::unix::fs::symlink("real_spec.rb", root.join("spec/models/alias_spec.rb")).unwrap();
        let target = spec_file(root, &root.join("spec/models/alias_spec.rb"), "spec").unwrap();
        assert_eq!(
            target.path(),
            std::fs::canonicalize(root.join("spec/models/real_spec.rb")).unwrap()
        );
        // A link to a file that is not a spec is judged by where it leads.
        std::fs::create_dir_all(root.join("app/models")).unwrap();
        std::fs::write(root.join("app/models/x.rb"), "").unwrap();
        std::os::unix::fs::symlink(
            root.join("app/models/x.rb"),
            root.join("spec/models/y_spec.rb"),
        )
        .unwrap();
        assert_eq!(
            code(spec_file(root, &root.join("spec/models/y_spec.rb"), "spec").unwrap_err()),
            "NOT_A_SPEC_FILE"
        );
    }

    #[test]
    fn spec_and_metadata_targets_are_what_they_say() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for bad in ["Gemfile", "app/models/x.rb", "spec/models/x.rb", "spec"] {
            assert_eq!(
                code(spec_file(root, &root.join(bad), "spec").unwrap_err()),
                "NOT_A_SPEC_FILE",
                "{bad}"
            );
        }
        assert!(spec_file(root, &root.join("spec/models/x_spec.rb"), "spec").is_ok());
        assert_eq!(
            code(metadata_file(root, &root.join("config/database.yml")).unwrap_err()),
            "NOT_A_METADATA_FILE"
        );
        assert!(metadata_file(root, &root.join("tmp/rspec_metadata/app_models_x.yml")).is_ok());
        let f = folder(root, &root.join("tmp/rspec_metadata")).unwrap();
        assert!(f.file("x.yml").is_ok());
        for bad in ["", "..", "a/b", ".git"] {
            assert!(f.file(bad).is_err(), "{bad:?}");
        }
    }
}
