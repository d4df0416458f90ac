//! `rspec-scout factories [--class CLASS]...`: the factories of the project (FactoryBot's and
//! Fabrication's) with their classes, parents, aliases and every trait they can be built
//! with, from `rails::factories`. [`load`] is what `analyze` and the MCP server build the
//! index with.
//!
//! The files are read only here, when a command needs factories: `discover` never reads
//! them.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::index::{self, DEFAULT_MAX_FILE_SIZE};
use crate::rails::factories::{self, FactoryIndex, Resolve, TraitOrigin};
use crate::report::Answer;

/// Options of `factories`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only the factories that build these classes (or are named so).
    pub classes: Vec<String>,
}

/// Reads the project's factory files and resolves them (see `rails::factories`).
///
/// `parallel`: parse the files on a pool of their own. Only from outside a pool: inside
/// `analyze`'s workers (which hold a lock while the index is built), a worker waiting on
/// another pool steals its own pool's work, reaches the same lock and never returns; there
/// the few dozen files are parsed in turn (a few milliseconds).
pub fn load(config: &Config, root: &Path, parallel: bool) -> FactoryIndex {
    // The spec folder's own helpers (`rails_helper.rb`, `spec_helper.rb`): where a gem's
    // factories are required and FactoryBot is configured.
    let helpers = crate::project::setup::read_helpers(root, &config.spec_dir, false);
    let paths: Vec<String> = match &config.factories_dir {
        Some(dir) => vec![dir.clone()],
        None => factories::DEFAULT_PATHS
            .iter()
            .map(|p| p.to_string())
            .collect(),
    };
    let required = factories::required_factories(&helpers);
    let files = factories::files(root, &paths, &required);
    let max = config.max_file_size.min(DEFAULT_MAX_FILE_SIZE);
    let read = |rel: &String| match index::read_source(&root.join(rel), max) {
        Ok(bytes) => factories::parse(rel, &bytes),
        Err(reason) => factories::FactoryFile {
            path: rel.clone(),
            diagnostics: vec![(1, format!("not read: {reason}"))],
            ..factories::FactoryFile::default()
        },
    };
    let parsed: Vec<factories::FactoryFile> = if parallel {
        index::in_pool(config.threads, || files.par_iter().map(read).collect())
    } else {
        files.iter().map(read).collect()
    };
    let off = factories::ENUM_TRAITS_OFF;
    let automatic = !helpers.iter().any(|(_, t)| t.contains(off))
        && !parsed.is_empty()
        && !parsed.iter().any(|f| f.disables_enum_traits);
    let component_dirs = component_dirs(root);
    let enums = |class: &str| model_enums(root, &component_dirs, class);
    FactoryIndex::build(
        parsed,
        &Resolve {
            enums: &enums,
            automatic_enum_traits: automatic,
        },
    )
}

/// Folders one level down that hold an `app/models` of their own (engines of a monorepo:
/// solidus's `core`).
fn component_dirs(root: &Path) -> Vec<String> {
    let mut dirs: Vec<String> = std::fs::read_dir(root)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.') && root.join(n).join("app/models").is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// The enums of `class`'s model file (`app/models/spree/order.rb`, or a component's), and
/// the file.
fn model_enums(root: &Path, components: &[String], class: &str) -> factories::ModelEnums {
    let rel = format!("app/models/{}.rb", crate::naming::underscore(class));
    let candidates =
        std::iter::once(rel.clone()).chain(components.iter().map(|c| format!("{c}/{rel}")));
    for path in candidates {
        if let Ok(bytes) = index::read_source(&root.join(&path), DEFAULT_MAX_FILE_SIZE) {
            return (Some(path), factories::model_enums(&bytes));
        }
    }
    (None, Vec::new())
}

#[derive(Debug, Serialize)]
struct FactoriesAnswer<'a> {
    status: &'static str,
    factories: Vec<FactoryOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    global_traits: Vec<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sequences: Vec<&'a str>,
    summary: Summary,
    files: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    diagnostics: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Summary {
    files: usize,
    factories: usize,
    traits: usize,
}

/// One factory in the answer.
#[derive(Debug, Serialize)]
struct FactoryOut<'a> {
    name: &'a str,
    class: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    aliases: &'a [String],
    library: &'static str,
    file: &'a str,
    line: u32,
    /// Its own traits.
    traits: Vec<&'a str>,
    /// Traits of its parents, by parent.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    inherited_traits: BTreeMap<&'a str, Vec<&'a str>>,
    /// Enum traits, by attribute.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    enum_traits: BTreeMap<&'a str, Vec<&'a str>>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    base_traits: &'a [String],
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    associations: BTreeMap<&'a str, &'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    transients: &'a [String],
}

/// Runs `factories`.
pub fn run(config: &Config, options: &Options) -> Result<Answer> {
    let index = load(config, &config.root, true);
    Ok(answer(&index, options))
}

/// The answer for an index (the MCP server's too).
pub fn answer(index: &FactoryIndex, options: &Options) -> Answer {
    let wanted = |f: &factories::Factory| {
        options.classes.is_empty()
            || options.classes.iter().any(|c| {
                f.class.as_deref() == Some(c.as_str()) || f.name == *c || f.aliases.contains(c)
            })
    };
    let chosen: Vec<&factories::Factory> = index.factories.iter().filter(|f| wanted(f)).collect();
    let out: Vec<FactoryOut<'_>> = chosen
        .iter()
        .map(|f| {
            let mut inherited: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            let mut enums: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            let mut own = Vec::new();
            for t in &f.traits {
                match &t.origin {
                    TraitOrigin::Own => own.push(t.name.as_str()),
                    TraitOrigin::Parent(p) => inherited
                        .entry(p.as_str())
                        .or_default()
                        .push(t.name.as_str()),
                    TraitOrigin::Enum(a) => {
                        enums.entry(a.as_str()).or_default().push(t.name.as_str())
                    }
                    TraitOrigin::Global => {}
                }
            }
            FactoryOut {
                name: &f.name,
                class: f.class.as_deref(),
                parent: f.parent.as_deref(),
                aliases: &f.aliases,
                library: f.library.as_str(),
                file: &f.file,
                line: f.line,
                traits: own,
                inherited_traits: inherited,
                enum_traits: enums,
                base_traits: &f.base_traits,
                associations: f
                    .associations
                    .iter()
                    .map(|(a, fac)| (a.as_str(), fac.as_str()))
                    .collect(),
                transients: &f.transients,
            }
        })
        .collect();
    let own_traits: usize = out.iter().map(|f| f.traits.len()).sum();
    let summary = Summary {
        files: index.files.len(),
        factories: out.len(),
        traits: own_traits
            + if options.classes.is_empty() {
                index.global_traits.len()
            } else {
                0
            },
    };
    let diagnostics: Vec<String> = index
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}: {}", d.file, d.line, d.message))
        .collect();
    let text = text(&out, index, &summary, &diagnostics);
    // A file that does not parse or a definition only a running app knows leaves the index
    // incomplete: said in the status and the exit code, as `discover` does.
    let partial = !diagnostics.is_empty();
    let body = FactoriesAnswer {
        status: if partial { "partial" } else { "success" },
        global_traits: index
            .global_traits
            .iter()
            .map(|(n, _, _)| n.as_str())
            .collect(),
        sequences: index.sequences.iter().map(|(n, _, _)| n.as_str()).collect(),
        factories: out,
        summary,
        files: &index.files,
        diagnostics,
    };
    Answer::new(&body, text, if partial { 2 } else { 0 })
}

fn text(
    out: &[FactoryOut<'_>],
    index: &FactoryIndex,
    summary: &Summary,
    diagnostics: &[String],
) -> String {
    use std::fmt::Write as _;
    let mut s = format!(
        "{} {} in {} ({} traits)\n",
        summary.factories,
        if summary.factories == 1 {
            "factory"
        } else {
            "factories"
        },
        crate::report::plural(summary.files, "file"),
        summary.traits
    );
    for f in out {
        let class = f.class.unwrap_or("?");
        let parent = f.parent.map(|p| format!(" < :{p}")).unwrap_or_default();
        let _ = writeln!(s, ":{} -> {class}{parent}  {}:{}", f.name, f.file, f.line);
        if !f.traits.is_empty() {
            let _ = writeln!(s, "    traits: {}", f.traits.join(", "));
        }
        for (p, t) in &f.inherited_traits {
            let _ = writeln!(s, "    from :{p}: {}", t.join(", "));
        }
        for (a, t) in &f.enum_traits {
            let _ = writeln!(s, "    enum {a}: {}", t.join(", "));
        }
    }
    if !index.global_traits.is_empty() {
        let names: Vec<&str> = index
            .global_traits
            .iter()
            .map(|(n, _, _)| n.as_str())
            .collect();
        let _ = writeln!(s, "global traits: {}", names.join(", "));
    }
    for d in diagnostics {
        let _ = writeln!(s, "warning: {d}");
    }
    s
}
