//! Which files to read: explicit files as given, folders walked in parallel honouring
//! `.gitignore` (the `ignore` crate, as ripgrep does) and the include/exclude globs.
//! Output is sorted by root-relative path.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::error::{Error, Result};

/// Which files are in scope, as globs on root-relative paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeRules {
    /// A file must match one of these.
    pub include: Vec<String>,
    /// A file must match none of these.
    pub exclude: Vec<String>,
}

impl Default for ScopeRules {
    fn default() -> Self {
        let component_roots = "{packs,components,engines,gems}/**";
        let include = vec![
            "app/**/*.rb".to_string(),
            "lib/**/*.rb".to_string(),
            format!("{component_roots}/app/**/*.rb"),
            format!("{component_roots}/lib/**/*.rb"),
        ];
        let mut exclude = vec!["**/*_spec.rb".to_string()];
        for dir in [
            "spec",
            "test",
            "db/migrate",
            "config",
            "bin",
            "script",
            "vendor",
            "node_modules",
            "tmp",
        ] {
            exclude.push(format!("{dir}/**"));
            exclude.push(format!("{component_roots}/{dir}/**"));
        }
        ScopeRules { include, exclude }
    }
}

/// The folders below a component root that hold no code to plan.
const NOT_CODE: &[&str] = &[
    "spec",
    "test",
    "db/migrate",
    "config",
    "bin",
    "script",
    "vendor",
    "node_modules",
    "tmp",
];

impl ScopeRules {
    /// Adds a folder that is a gem or engine of its own (`activerecord`, `core`): its
    /// `app/` and `lib/` are in scope, its tests and configuration are not.
    pub fn add_component(&mut self, dir: &str) {
        let dir = globset::escape(dir);
        self.include.push(format!("{dir}/app/**/*.rb"));
        self.include.push(format!("{dir}/lib/**/*.rb"));
        for not_code in NOT_CODE {
            self.exclude.push(format!("{dir}/{not_code}/**"));
        }
    }
}

/// Folders below `root` that are gems or engines of their own: a `*.gemspec` two folders
/// deep at most (`activerecord/activerecord.gemspec`, `gems/pay/pay.gemspec`), or a
/// `config/routes.rb` three deep at most beside their own `app/` or `lib/`
/// (`core/config/routes.rb`). Folders the scope excludes are not looked into; the root
/// itself is not one (its `app/` and `lib/` are in the default scope). Sorted.
pub fn component_roots(root: &Path, scope: &Scope) -> Vec<String> {
    let root_buf = root.to_path_buf();
    let dir_scope = scope.clone();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .ignore(false)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .parents(true)
        .follow_links(false)
        .max_depth(Some(4))
        .filter_entry(move |entry| {
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                if let Some(rel) = relative_to(&root_buf, entry.path()) {
                    // `config` is excluded, but a component's `config/routes.rb` tells it is one.
                    return !dir_scope.excludes_dir(&rel) || rel.ends_with("config");
                }
            }
            true
        })
        .build();
    let mut roots = std::collections::BTreeSet::new();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative_to(root, entry.path()) else {
            continue;
        };
        let depth = rel.matches('/').count() + 1;
        let component = if rel.ends_with(".gemspec") && depth <= 3 {
            rel.rsplit_once('/').map(|(dir, _)| dir.to_string())
        } else if let Some(dir) = rel.strip_suffix("/config/routes.rb") {
            let has_code =
                root.join(dir).join("app").is_dir() || root.join(dir).join("lib").is_dir();
            has_code.then(|| dir.to_string())
        } else {
            None
        };
        if let Some(dir) = component.filter(|d| !d.starts_with("app/") && !d.starts_with("lib/")) {
            if !scope.excludes_dir(&dir) {
                roots.insert(dir);
            }
        }
    }
    roots.into_iter().collect()
}

/// Where Ruby files out of scope are, to say which `include:` line would find them: each
/// top folder (two levels for a folder of many projects such as `gems/x`) holding `.rb`
/// files no exclude glob leaves out, with its count, most first (at most `limit`).
pub fn ruby_folders(root: &Path, scope: &Scope, limit: usize) -> Vec<(String, usize)> {
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .ignore(false)
        .git_ignore(true)
        .follow_links(false)
        .build();
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Some(rel) = relative_to(root, entry.path()) else {
            continue;
        };
        if !rel.ends_with(".rb") || scope.exclude.is_match(&rel) {
            continue;
        }
        let top = match rel.split_once('/') {
            Some((top, _)) => top.to_string(),
            None => continue,
        };
        *counts.entry(top).or_default() += 1;
    }
    let mut folders: Vec<(String, usize)> = counts.into_iter().collect();
    folders.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    folders.truncate(limit);
    folders
}

/// Compiled include/exclude globs.
#[derive(Debug, Clone)]
pub struct Scope {
    include: GlobSet,
    exclude: GlobSet,
    /// The rules, as text: what a stored walk was made under.
    rules: String,
}

impl Scope {
    /// Compiles the rules; the error says which glob does not compile.
    pub fn new(rules: &ScopeRules) -> std::result::Result<Self, String> {
        Ok(Scope {
            include: build(&rules.include)?,
            exclude: build(&rules.exclude)?,
            rules: format!("include {:?} exclude {:?}", rules.include, rules.exclude),
        })
    }

    /// The rules this scope was compiled from, as text.
    pub fn rules_text(&self) -> &str {
        &self.rules
    }

    /// Whether a root-relative path (with `/` separators) is in scope.
    pub fn contains(&self, rel: &str) -> bool {
        rel.ends_with(".rb") && self.include.is_match(rel) && !self.exclude.is_match(rel)
    }

    /// Whether a whole folder is excluded (so the walk need not enter it).
    pub fn excludes_dir(&self, rel_dir: &str) -> bool {
        !rel_dir.is_empty() && self.exclude.is_match(format!("{rel_dir}/x.rb"))
    }
}

fn build(globs: &[String]) -> std::result::Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        let glob = Glob::new(g).map_err(|e| format!("bad glob {g:?}: {e}"))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| e.to_string())
}

/// A Ruby file to read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceFile {
    /// Path relative to the root with `/` separators (or the path as given when it lies
    /// outside the root).
    pub rel: String,
    /// Path to open.
    pub path: PathBuf,
}

/// Files found, and what could not be walked.
#[derive(Debug, Default)]
pub struct Found {
    /// Sorted by `rel`, unique.
    pub files: Vec<SourceFile>,
    /// Unreadable folders, broken links, loops: one line each, naming the path.
    pub warnings: Vec<String>,
}

/// A root-relative path with `/` separators, or `None` when `path` is outside `root`.
pub fn relative_to(root: &Path, path: &Path) -> Option<String> {
    // The usual case, a clean UTF-8 path under a clean root, without walking components
    // (a walk asks this of every file and folder it meets).
    #[cfg(unix)]
    if let Some(rel) = plain_relative(root, path) {
        return Some(rel.to_string());
    }
    let rel = path.strip_prefix(root).ok()?;
    let mut out = String::new();
    for (i, part) in rel.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&part.as_os_str().to_string_lossy());
    }
    Some(out)
}

/// `path` under `root` as text, when both are plain (UTF-8, no empty, `.` or `..` part,
/// no trailing slash) and `path` is strictly under `root`: what the component walk of
/// [`relative_to`] answers for them. `None` leaves every other case to that walk.
#[cfg(unix)]
fn plain_relative<'a>(root: &Path, path: &'a Path) -> Option<&'a str> {
    use std::os::unix::ffi::OsStrExt;
    let root = root.as_os_str().as_bytes();
    let path = path.as_os_str().as_bytes();
    let plain = |bytes: &[u8]| {
        !bytes.ends_with(b"/")
            && bytes
                .split(|&b| b == b'/')
                .skip(1)
                .all(|part| !part.is_empty() && part != b"." && part != b"..")
    };
    if !root.starts_with(b"/") || !plain(root) {
        return None;
    }
    let rest = path.strip_prefix(root)?.strip_prefix(b"/")?;
    if rest.is_empty() || !plain_rel(rest) {
        return None;
    }
    std::str::from_utf8(rest).ok()
}

/// Whether a relative path's every part is a name (not empty, `.` or `..`).
#[cfg(unix)]
fn plain_rel(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'/')
        .all(|part| !part.is_empty() && part != b"." && part != b"..")
}

/// Absolute form of `path` (relative paths are taken from the current directory), with
/// symlinks resolved when possible so it can be compared with the root.
pub fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir()
                .map(|d| d.join(path))
                .unwrap_or_else(|_| path.to_path_buf())
        }
    })
}

/// Whether a file named explicitly is Ruby source: `.rb` and the other extensions Ruby
/// code is kept in (`.rake`, `.gemspec`, `.ru`, `.builder`, `.jbuilder`, `.thor`), the
/// files Ruby tools read by name (`Gemfile`, `Rakefile`, ...), and files without an
/// extension whose first line is a Ruby shebang (`bin/rails`). Templates (`.erb`) are not.
pub fn is_ruby_file(path: &Path) -> bool {
    const EXTENSIONS: &[&str] = &["rb", "rake", "gemspec", "ru", "builder", "jbuilder", "thor"];
    const NAMES: &[&str] = &[
        "Gemfile",
        "Rakefile",
        "Guardfile",
        "Capfile",
        "Vagrantfile",
        "Brewfile",
        "Podfile",
        "Fastfile",
        "Dangerfile",
        "Thorfile",
        "Steepfile",
        "Berksfile",
    ];
    if let Some(ext) = path.extension() {
        return EXTENSIONS.iter().any(|e| ext == *e);
    }
    if path
        .file_name()
        .is_some_and(|n| NAMES.iter().any(|name| n == *name))
    {
        return true;
    }
    // No extension: a script, when its shebang says Ruby.
    let mut head = [0u8; 128];
    let read = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let first_line = head
        .get(..read)
        .unwrap_or_default()
        .split(|&b| b == b'\n')
        .next()
        .unwrap_or_default();
    first_line.starts_with(b"#!") && memchr::memmem::find(first_line, b"ruby").is_some()
}

/// Collects the files named by `inputs`: Ruby files as given (in scope or not: the caller
/// asked for them; a file that is not Ruby is an error), folders walked for in-scope `.rb`
/// files.
pub fn collect(root: &Path, inputs: &[PathBuf], scope: &Scope, threads: usize) -> Result<Found> {
    let mut found = Found::default();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::SourceNotFound {
                path: input.clone(),
            },
            _ => Error::Unreadable {
                path: input.clone(),
                reason: e.to_string(),
            },
        })?;
        let abs = absolute(input);
        if meta.is_dir() {
            walk_dir(root, &abs, scope, threads, &mut found);
        } else if !is_ruby_file(input) {
            return Err(Error::NotRuby {
                path: input.clone(),
            });
        } else {
            let rel =
                relative_to(root, &abs).unwrap_or_else(|| input.to_string_lossy().into_owned());
            found.files.push(SourceFile { rel, path: abs });
        }
    }
    found.files.sort();
    found.files.dedup_by(|a, b| a.rel == b.rel);
    found.warnings.sort();
    Ok(found)
}

/// Every in-scope file under the root.
pub fn collect_all(root: &Path, scope: &Scope, threads: usize) -> Found {
    let mut found = Found::default();
    walk_dir(root, root, scope, threads, &mut found);
    found.files.sort();
    found.warnings.sort();
    found
}

/// Sees each folder the walk is about to read, before it reads it (or the ignore file in
/// it): what a stored walk records.
pub(crate) type Observer = Arc<dyn Fn(&Path) + Send + Sync>;

fn walk_dir(root: &Path, dir: &Path, scope: &Scope, threads: usize, found: &mut Found) {
    walk_observed(root, dir, scope, threads, found, None);
}

/// [`walk_dir`], telling `observer` of every folder below `dir` that the walk enters,
/// before it enters it (`dir` itself is the caller's to see).
pub(crate) fn walk_observed(
    root: &Path,
    dir: &Path,
    scope: &Scope,
    threads: usize,
    found: &mut Found,
    observer: Option<Observer>,
) {
    let files = Arc::new(Mutex::new(Vec::new()));
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let root_buf = root.to_path_buf();
    let dir_scope = scope.clone();
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .ignore(false)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .parents(true)
        .follow_links(false)
        .threads(threads)
        .filter_entry(move |entry| {
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                if let Some(rel) = relative_to(&root_buf, entry.path()) {
                    if dir_scope.excludes_dir(&rel) {
                        return false;
                    }
                }
                if let Some(observer) = &observer {
                    observer(entry.path());
                }
            }
            true
        })
        .build_parallel();
    walker.run(|| {
        let files = Arc::clone(&files);
        let warnings = Arc::clone(&warnings);
        let root = root.to_path_buf();
        let scope = scope.clone();
        Box::new(move |entry| {
            match entry {
                Ok(entry) => {
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        let path = entry.path();
                        if let Some(rel) = relative_to(&root, path) {
                            if scope.contains(&rel) {
                                if let Ok(mut f) = files.lock() {
                                    f.push(SourceFile {
                                        rel,
                                        path: path.to_path_buf(),
                                    });
                                }
                            }
                        }
                    }
                }
                Err(err) => {
                    if let Ok(mut w) = warnings.lock() {
                        w.push(walk_error_text(&err));
                    }
                }
            }
            ignore::WalkState::Continue
        })
    });
    if let Ok(mut f) = files.lock() {
        found.files.append(&mut f);
    };
    if let Ok(mut w) = warnings.lock() {
        found.warnings.append(&mut w);
    };
}

fn walk_error_text(err: &ignore::Error) -> String {
    let text = err.to_string();
    if text.contains("File system loop") {
        format!("skipped a symbolic link loop: {text}")
    } else {
        format!("could not walk: {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `relative_to` by the component walk alone: what the plain path's shortcut must
    /// answer wherever it answers.
    fn by_components(root: &Path, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(root).ok()?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    #[test]
    fn relative_paths_are_the_component_walks_answer() {
        let roots = [
            "/app",
            "/srv/app",
            "/srv/app/",
            "/",
            "/srv//app",
            "/srv/./app",
            "/a/b/..",
        ];
        let paths = [
            "/app/models/user.rb",
            "/srv/app/models/user.rb",
            "/srv/app",
            "/srv/application/x.rb",
            "/srv/app//models/x.rb",
            "/srv/app/./models/x.rb",
            "/srv/app/models/../x.rb",
            "/srv/app/models/",
            "/srv/app/é/ü.rb",
            "/a/b/../c.rb",
            "relative/x.rb",
        ];
        for root in roots {
            for path in paths {
                let (root, path) = (Path::new(root), Path::new(path));
                assert_eq!(
                    relative_to(root, path),
                    by_components(root, path),
                    "{} under {}",
                    path.display(),
                    root.display()
                );
            }
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let bad = Path::new(std::ffi::OsStr::from_bytes(b"/srv/app/\xff.rb"));
            assert_eq!(
                relative_to(Path::new("/srv/app"), bad),
                by_components(Path::new("/srv/app"), bad)
            );
            assert_eq!(
                plain_relative(Path::new("/srv/app"), Path::new("/srv/app/a/b.rb")),
                Some("a/b.rb")
            );
        }
    }

    #[test]
    fn ruby_files_by_extension_name_and_shebang() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        for yes in [
            write("a.rb", ""),
            write("tasks.rake", ""),
            write("x.gemspec", ""),
            write("Gemfile", ""),
            write("rails", "#!/usr/bin/env ruby\nputs 1\n"),
        ] {
            assert!(is_ruby_file(&yes), "{}", yes.display());
        }
        for no in [
            write("README.rdoc", "= Title\n"),
            write("show.html.erb", "<%= 1 %>\n"),
            write("logo.png", "\u{89}PNG"),
            write("setup", "#!/bin/sh\necho ruby\n"),
            write("NOTES", "ruby\n"),
        ] {
            assert!(!is_ruby_file(&no), "{}", no.display());
        }
    }

    #[test]
    fn default_scope_matches_the_product_rules() {
        let scope = Scope::new(&ScopeRules::default()).expect("default globs compile");
        for yes in [
            "app/models/payment.rb",
            "app/services/billing/charge.rb",
            "lib/money/parser.rb",
            "packs/billing/app/models/invoice.rb",
        ] {
            assert!(scope.contains(yes), "{yes} should be in scope");
        }
        for no in [
            "app/models/payment_spec.rb",
            "spec/models/payment_spec.rb",
            "spec/support/helpers.rb",
            "test/models/payment_test.rb",
            "db/migrate/20240101_create_payments.rb",
            "config/routes.rb",
            "bin/setup.rb",
            "script/backfill.rb",
            "vendor/bundle/gems/x/lib/x.rb",
            "Gemfile",
            "app/models/payment.rake",
            "packs/billing/spec/models/invoice_spec.rb",
            "db/schema.rb",
        ] {
            assert!(!scope.contains(no), "{no} should be out of scope");
        }
    }
}
