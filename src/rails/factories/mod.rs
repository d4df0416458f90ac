//! The factories a test suite builds records with: FactoryBot's and Fabrication's
//! definitions, read with prism (`parse.rs`), and the index over every file that answers
//! what a spec writer asks: which factory builds class X, and which traits it has (its own,
//! its parents', the global ones, and the enum traits FactoryBot defines from the model).
//!
//! Why it matters for specs: a context "when the payment is completed" is set up with
//! `create(:payment, :completed)` when that trait exists; when it does not, the spec writer
//! should know before writing it (the seeds' "Factory trait :premium not found").
//!
//! Files: `directories.factories` of the pipeline config (FactoryBot reads `X.rb` and
//! `X/**/*.rb` for a definition path `X`), else FactoryBot's own defaults (`factories`,
//! `test/factories`, `spec/factories`) and Fabrication's (`spec/fabricators`,
//! `test/fabricators`); plus the `testing_support/factories` of the project's own gems
//! (`core/lib/spree/testing_support/factories` in a monorepo of engines) and of installed
//! gems the spec helpers require (`require "spree/testing_support/factories"`, found under
//! `vendor/bundle` or the project's `BUNDLE_PATH`).
//!
//! Does not: run Ruby (a factory made from a list only a running app knows is a
//! diagnostic), or read the database (enum traits come from the model's `enum` calls).

mod enums;
mod parse;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub use enums::model_enums;
pub use parse::parse;

/// Which library a file's definitions are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Library {
    /// `FactoryBot.define` (or the old `FactoryGirl.define`).
    FactoryBot,
    /// `Fabricator(...)`.
    Fabrication,
}

impl Library {
    /// `factory_bot` or `fabrication`, as `integrations.factories.gem` spells them.
    pub fn as_str(self) -> &'static str {
        match self {
            Library::FactoryBot => "factory_bot",
            Library::Fabrication => "fabrication",
        }
    }
}

/// What one factory file defines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactoryFile {
    /// The file, relative to the project root.
    pub path: String,
    /// The library its definitions are for (`None`: it defines nothing we read).
    pub library: Option<Library>,
    /// Factories (and fabricators) in source order, nested ones after their parent.
    pub factories: Vec<FactoryDef>,
    /// Global traits (`trait` directly in a `define` block).
    pub traits: Vec<TraitDef>,
    /// Global sequences: name and line.
    pub sequences: Vec<(String, u32)>,
    /// Problems: line and message (syntax errors, names only a running app knows).
    pub diagnostics: Vec<(u32, String)>,
    /// The file turns FactoryBot's automatic enum traits off
    /// (`automatically_define_enum_traits = false`).
    pub disables_enum_traits: bool,
}

/// The setting that turns FactoryBot's automatic enum traits off, as written.
pub const ENUM_TRAITS_OFF: &str = "automatically_define_enum_traits = false";

/// One `factory` (or `Fabricator`) as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactoryDef {
    /// Its name.
    pub name: String,
    /// `aliases:`.
    pub aliases: Vec<String>,
    /// `class:` (FactoryBot) or `class_name:` (Fabrication) as written: a constant path, a
    /// string, or `:symbol`.
    pub class: Option<String>,
    /// `class:` was given as an expression only a running app knows
    /// (`Spree::UserClassHandle.new`): the class is not known.
    pub class_unknown: bool,
    /// `parent:`, else the factory it is nested in.
    pub parent: Option<String>,
    /// Fabrication's `from:`: a fabricator or a class.
    pub from: Option<String>,
    /// Nested in another factory.
    pub nested: bool,
    /// Defined in a `FactoryBot.modify` block (adds to a factory defined elsewhere).
    pub modify: bool,
    /// The line of `factory`.
    pub line: u32,
    /// `traits:`: traits every build applies.
    pub base_traits: Vec<String>,
    /// Its traits.
    pub traits: Vec<TraitDef>,
    /// `traits_for_enum` calls.
    pub enum_traits: Vec<EnumTraits>,
    /// Attributes, sequences, associations and bare names of its body.
    pub attributes: Vec<Attribute>,
}

/// One `trait`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraitDef {
    /// Its name.
    pub name: String,
    /// The line of `trait`.
    pub line: u32,
    /// What it sets (bare names in it include other traits).
    pub attributes: Vec<Attribute>,
}

/// `traits_for_enum :status` (values from the model) or `traits_for_enum :status, [...]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumTraits {
    /// The enum attribute.
    pub attribute: String,
    /// Literal values, or `None` for the model's.
    pub values: Option<Vec<String>>,
    /// The line.
    pub line: u32,
}

/// What a line of a definition body declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// The attribute's name.
    pub name: String,
    /// What it is.
    pub kind: AttrKind,
    /// The literal its block returns (`admin { true }`), when one.
    pub literal: Option<Literal>,
    /// Declared in a `transient` block.
    pub transient: bool,
    /// The line.
    pub line: u32,
}

impl Attribute {
    fn new(name: String, kind: AttrKind, line: u32) -> Self {
        Attribute {
            name,
            kind,
            literal: None,
            transient: false,
            line,
        }
    }
}

/// The kinds of [`Attribute`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttrKind {
    /// `name { ... }`.
    Dynamic,
    /// `sequence(:name)`.
    Sequence,
    /// `association :name, factory: ...`, `name factory: ...`, a bare name that is a factory.
    Association {
        /// The factory it builds with.
        factory: String,
    },
    /// A bare name: an association, a sequence or a trait, decided by the index.
    Implicit,
}

/// A literal default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Literal {
    /// `true`/`false`.
    Bool(bool),
    /// `nil`.
    Nil,
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
    /// A symbol.
    Sym(String),
}

impl Literal {
    /// As Ruby's `to_s` prints it (`nil` prints as an empty string; we say `nil`).
    pub fn text(&self) -> String {
        match self {
            Literal::Bool(b) => b.to_string(),
            Literal::Nil => "nil".to_string(),
            Literal::Int(i) => i.to_string(),
            Literal::Str(s) | Literal::Sym(s) => s.clone(),
        }
    }
}

/// Where a trait a factory can use comes from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum TraitOrigin {
    /// Defined in the factory itself.
    Own,
    /// Defined in a parent factory (its name).
    Parent(String),
    /// A global trait (`trait` directly in `FactoryBot.define`).
    Global,
    /// `traits_for_enum :attribute` or FactoryBot's automatic enum traits, from the model's
    /// `enum :attribute` (or the literal list).
    Enum(String),
}

/// A trait a factory can be built with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trait {
    /// Its name.
    pub name: String,
    /// Where it comes from.
    pub origin: TraitOrigin,
    /// The file that defines it (the model's for an enum trait).
    pub file: String,
    /// The line.
    pub line: u32,
    /// What it sets: attribute names with their literal value when it has one (an enum
    /// trait sets its attribute to its value).
    pub sets: Vec<(String, Option<Literal>)>,
}

/// A factory as the index resolves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Factory {
    /// Its name.
    pub name: String,
    /// Other names it is built by.
    pub aliases: Vec<String>,
    /// The class it builds (`None`: computed by an expression).
    pub class: Option<String>,
    /// The parent factory.
    pub parent: Option<String>,
    /// The library.
    pub library: Library,
    /// The file and line of its definition.
    pub file: String,
    /// The line.
    pub line: u32,
    /// Every trait it can be built with: its own, its parents', the global ones, the enum
    /// traits; one per name (the nearest definition wins, as in FactoryBot).
    pub traits: Vec<Trait>,
    /// Traits every build applies (`traits:`, bare trait names in its body).
    pub base_traits: Vec<String>,
    /// Attributes it sets by default (its own and its parents'), with literal values when
    /// known; transient attributes are not columns and are left out.
    pub defaults: Vec<(String, Option<Literal>)>,
    /// Associations: attribute and factory.
    pub associations: Vec<(String, String)>,
    /// Transient attributes.
    pub transients: Vec<String>,
    /// Sequences it uses.
    pub sequences: Vec<String>,
    /// The model file its enum traits were read from (FactoryBot), when one was found: a
    /// change there changes its traits.
    pub model_file: Option<String>,
}

impl Factory {
    /// The trait named `name`, if the factory can be built with it.
    pub fn trait_named(&self, name: &str) -> Option<&Trait> {
        self.traits.iter().find(|t| t.name == name)
    }

    /// Whether the factory sets `attribute` by default, and to what literal when known.
    pub fn default_of(&self, attribute: &str) -> Option<&Option<Literal>> {
        self.defaults
            .iter()
            .find(|(a, _)| a == attribute)
            .map(|(_, l)| l)
    }
}

/// A diagnostic of a factory file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    /// The file.
    pub file: String,
    /// The line.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

/// Every factory of a project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactoryIndex {
    /// Factories in file order, then source order.
    pub factories: Vec<Factory>,
    /// Global traits: name, file, line.
    pub global_traits: Vec<(String, String, u32)>,
    /// Global sequences: name, file, line.
    pub sequences: Vec<(String, String, u32)>,
    /// The files read, sorted.
    pub files: Vec<String>,
    /// Problems in them.
    pub diagnostics: Vec<Diagnostic>,
}

/// A model's enums, as [`model_enums`] reads them, and the model file they came from.
pub type ModelEnums = (Option<String>, Vec<(String, Vec<String>)>);

/// How the index is built: the model enums it asks about, and FactoryBot's setting.
pub struct Resolve<'a> {
    /// The enums of a class's model: attribute → values (empty when unknown). Called once
    /// per class that needs them.
    pub enums: &'a dyn Fn(&str) -> ModelEnums,
    /// `FactoryBot.automatically_define_enum_traits` (true unless the project turned it
    /// off): every enum of the model gives traits named by its values.
    pub automatic_enum_traits: bool,
}

impl FactoryIndex {
    /// Resolves the files' definitions: names and aliases, parents, classes, bare names,
    /// traits (own, inherited, global, enum).
    pub fn build(mut files: Vec<FactoryFile>, resolve: &Resolve<'_>) -> FactoryIndex {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut index = FactoryIndex {
            files: files.iter().map(|f| f.path.clone()).collect(),
            ..FactoryIndex::default()
        };
        // Definitions by name, `modify` blocks merged into the factory they change.
        let mut defs: Vec<(String, Library, FactoryDef)> = Vec::new();
        for file in &files {
            for (line, message) in &file.diagnostics {
                index.diagnostics.push(Diagnostic {
                    file: file.path.clone(),
                    line: *line,
                    message: message.clone(),
                });
            }
            for t in &file.traits {
                index
                    .global_traits
                    .push((t.name.clone(), file.path.clone(), t.line));
            }
            for (s, line) in &file.sequences {
                index.sequences.push((s.clone(), file.path.clone(), *line));
            }
            let library = file.library.unwrap_or(Library::FactoryBot);
            for def in &file.factories {
                if def.modify {
                    if let Some((_, _, existing)) =
                        defs.iter_mut().find(|(_, _, d)| d.name == def.name)
                    {
                        existing.traits.extend(def.traits.iter().cloned());
                        existing.attributes.extend(def.attributes.iter().cloned());
                        existing.enum_traits.extend(def.enum_traits.iter().cloned());
                        continue;
                    }
                }
                defs.push((file.path.clone(), library, def.clone()));
            }
        }
        let global_traits: BTreeMap<String, (String, u32, Vec<Attribute>)> = files
            .iter()
            .flat_map(|f| {
                f.traits.iter().map(|t| {
                    (
                        t.name.clone(),
                        (f.path.clone(), t.line, t.attributes.clone()),
                    )
                })
            })
            .collect();
        let names: BTreeSet<String> = defs
            .iter()
            .flat_map(|(_, _, d)| std::iter::once(d.name.clone()).chain(d.aliases.iter().cloned()))
            .collect();
        let sequences: BTreeSet<&str> =
            index.sequences.iter().map(|(s, _, _)| s.as_str()).collect();
        let by_name = |name: &str| {
            defs.iter()
                .position(|(_, _, d)| d.name == name || d.aliases.iter().any(|a| a == name))
        };
        // Fabrication's `from:` names a fabricator (a parent) or a class.
        let parent_of = |d: &FactoryDef, library: Library| -> Option<String> {
            match library {
                Library::FactoryBot => d.parent.clone(),
                Library::Fabrication => d
                    .from
                    .as_deref()
                    .map(|f| f.trim_start_matches(':'))
                    .filter(|f| names.contains(*f))
                    .map(str::to_string),
            }
        };
        let mut enum_cache: BTreeMap<String, ModelEnums> = BTreeMap::new();
        for (i, (file, library, def)) in defs.iter().enumerate() {
            // The chain of parents, nearest first (bounded: a cycle stops it).
            let mut chain: Vec<usize> = vec![i];
            let mut next = parent_of(def, *library);
            while let Some(p) = next {
                match by_name(&p) {
                    Some(j) if !chain.contains(&j) => {
                        chain.push(j);
                        next = defs.get(j).and_then(|(_, l, d)| parent_of(d, *l));
                    }
                    _ => break,
                }
            }
            let unknown = chain
                .iter()
                .find(|j| {
                    defs.get(**j)
                        .is_some_and(|(_, _, d)| d.class.is_some() || d.class_unknown)
                })
                .and_then(|j| defs.get(*j))
                .is_some_and(|(_, _, d)| d.class_unknown);
            let class = if unknown {
                None
            } else {
                chain
                    .iter()
                    .find_map(|j| {
                        let (_, l, d) = defs.get(*j)?;
                        let written = match l {
                            Library::FactoryBot => d.class.clone(),
                            Library::Fabrication => d.class.clone().or_else(|| {
                                d.from
                                    .clone()
                                    .filter(|f| !names.contains(f.trim_start_matches(':')))
                            }),
                        }?;
                        Some(class_name(&written))
                    })
                    .or_else(|| {
                        // The root of the chain names the class (FactoryBot: the factory's
                        // name camelized).
                        chain
                            .last()
                            .and_then(|j| defs.get(*j))
                            .map(|(_, _, d)| crate::naming::camelize(&d.name))
                    })
            };
            let mut traits: Vec<Trait> = Vec::new();
            let mut base_traits = def.base_traits.clone();
            let mut defaults: Vec<(String, Option<Literal>)> = Vec::new();
            let mut associations = Vec::new();
            let mut transients = Vec::new();
            let mut seqs = Vec::new();
            for (depth, j) in chain.iter().enumerate() {
                let Some((f, _, d)) = defs.get(*j) else {
                    continue;
                };
                for t in &d.traits {
                    if traits.iter().any(|x| x.name == t.name) {
                        continue;
                    }
                    traits.push(Trait {
                        name: t.name.clone(),
                        origin: if depth == 0 {
                            TraitOrigin::Own
                        } else {
                            TraitOrigin::Parent(d.name.clone())
                        },
                        file: f.clone(),
                        line: t.line,
                        sets: sets(&t.attributes),
                    });
                }
                for a in &d.attributes {
                    let kind = match &a.kind {
                        AttrKind::Implicit if names.contains(&a.name) => AttrKind::Association {
                            factory: a.name.clone(),
                        },
                        AttrKind::Implicit if sequences.contains(a.name.as_str()) => {
                            AttrKind::Sequence
                        }
                        AttrKind::Implicit => {
                            if depth == 0 && !base_traits.contains(&a.name) {
                                base_traits.push(a.name.clone());
                            }
                            continue;
                        }
                        other => other.clone(),
                    };
                    if a.transient {
                        if !transients.contains(&a.name) {
                            transients.push(a.name.clone());
                        }
                        continue;
                    }
                    if defaults.iter().any(|(n, _)| *n == a.name) {
                        continue;
                    }
                    match kind {
                        // By the factory's own name: `owner` (an alias of `:user`) builds
                        // a user.
                        AttrKind::Association { factory } => {
                            let canonical = by_name(&factory)
                                .and_then(|i| defs.get(i))
                                .map_or(factory, |(_, _, d)| d.name.clone());
                            associations.push((a.name.clone(), canonical));
                        }
                        AttrKind::Sequence => seqs.push(a.name.clone()),
                        _ => {}
                    }
                    defaults.push((a.name.clone(), a.literal.clone()));
                }
            }
            for (name, (gfile, line, attrs)) in &global_traits {
                if !traits.iter().any(|t| &t.name == name) {
                    traits.push(Trait {
                        name: name.clone(),
                        origin: TraitOrigin::Global,
                        file: gfile.clone(),
                        line: *line,
                        sets: sets(attrs),
                    });
                }
            }
            let mut model_source = None;
            if *library == Library::FactoryBot {
                let model = class.as_ref().map(|c| {
                    enum_cache
                        .entry(c.clone())
                        .or_insert_with(|| (resolve.enums)(c))
                        .clone()
                });
                let (model_file, model_enums) = model.unwrap_or_default();
                model_source.clone_from(&model_file);
                let mut enum_lists: Vec<(String, Vec<String>, String, u32)> = Vec::new();
                for j in &chain {
                    let Some((f, _, d)) = defs.get(*j) else {
                        continue;
                    };
                    for e in &d.enum_traits {
                        let values = match &e.values {
                            Some(v) => Some(v.clone()),
                            None => model_enums
                                .iter()
                                .find(|(a, _)| *a == e.attribute)
                                .map(|(_, v)| v.clone()),
                        };
                        match values {
                            Some(values) => enum_lists.push((e.attribute.clone(), values, f.clone(), e.line)),
                            None => index.diagnostics.push(Diagnostic {
                                file: f.clone(),
                                line: e.line,
                                message: format!(
                                    "traits_for_enum :{}: no `enum :{}` found in {}'s model; its traits are not indexed",
                                    e.attribute,
                                    e.attribute,
                                    class.as_deref().unwrap_or("the factory")
                                ),
                            }),
                        }
                    }
                }
                if resolve.automatic_enum_traits {
                    for (attribute, values) in &model_enums {
                        enum_lists.push((
                            attribute.clone(),
                            values.clone(),
                            model_file.clone().unwrap_or_default(),
                            0,
                        ));
                    }
                }
                for (attribute, values, f, line) in enum_lists {
                    for v in values {
                        if traits.iter().any(|t| t.name == v) {
                            continue;
                        }
                        traits.push(Trait {
                            name: v.clone(),
                            origin: TraitOrigin::Enum(attribute.clone()),
                            file: f.clone(),
                            line,
                            sets: vec![(attribute.clone(), Some(Literal::Str(v)))],
                        });
                    }
                }
            }
            index.factories.push(Factory {
                name: def.name.clone(),
                aliases: def.aliases.clone(),
                class,
                parent: parent_of(def, *library),
                library: *library,
                file: file.clone(),
                line: def.line,
                traits,
                base_traits,
                defaults,
                associations,
                transients,
                sequences: seqs,
                model_file: model_source,
            });
        }
        index.diagnostics.sort();
        index
    }

    /// The factories that build `class`: those whose own name names it first (`:user` for
    /// `User`), then the rest in file order (`:admin` with `parent: :user`).
    pub fn for_class(&self, class: &str) -> Vec<&Factory> {
        let mut found: Vec<&Factory> = self
            .factories
            .iter()
            .filter(|f| f.class.as_deref() == Some(class))
            .collect();
        let underscored = crate::naming::underscore(class.rsplit("::").next().unwrap_or(class));
        found.sort_by_key(|f| {
            (
                f.parent.is_some(),
                f.name != underscored && !f.aliases.contains(&underscored),
            )
        });
        found
    }

    /// The factory named `name` (or aliased so).
    pub fn named(&self, name: &str) -> Option<&Factory> {
        self.factories
            .iter()
            .find(|f| f.name == name || f.aliases.iter().any(|a| a == name))
    }
}

/// The attributes a trait sets, with their literal values.
fn sets(attrs: &[Attribute]) -> Vec<(String, Option<Literal>)> {
    attrs
        .iter()
        .filter(|a| !a.transient && a.kind != AttrKind::Implicit)
        .map(|a| (a.name.clone(), a.literal.clone()))
        .collect()
}

/// `class:` as written → the class name: a constant path as is (without `::` in front), a
/// string as is, a symbol camelized (`:user` → `User`, FactoryBot's `to_s.camelize`).
fn class_name(written: &str) -> String {
    let w = written.trim_start_matches("::");
    match w.strip_prefix(':') {
        Some(sym) => crate::naming::camelize(sym),
        None if w.contains('/') || w.chars().next().is_some_and(|c| c.is_ascii_lowercase()) => {
            crate::naming::camelize(w)
        }
        None => w.to_string(),
    }
}

/// The folders and files FactoryBot and Fabrication read by default, relative to the root
/// (FactoryBot reads `X.rb` and `X/**/*.rb` for each definition path `X`).
pub const DEFAULT_PATHS: &[&str] = &[
    "factories",
    "test/factories",
    "spec/factories",
    "spec/fabricators",
    "test/fabricators",
];

/// The factory files of a project, relative to `root`, sorted: each definition path's
/// `X.rb` and `X/**/*.rb` (`paths`: the configured ones, else [`DEFAULT_PATHS`]), the
/// `testing_support/factories` (and `fabricators`) of the project's own gems, and those of
/// installed gems that `required` names (`spree/testing_support/factories`).
pub fn files(root: &Path, paths: &[String], required: &[String]) -> Vec<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    for p in paths {
        let p = p.trim_matches('/');
        if p.is_empty() {
            continue;
        }
        let file = format!("{p}.rb");
        if root.join(&file).is_file() {
            out.insert(file);
        }
        collect_rb(root, p, &mut out, 0);
    }
    for dir in testing_support_dirs(root) {
        collect_rb(root, &dir, &mut out, 0);
    }
    for (dir, shown) in installed_gem_dirs(root, required) {
        let mut found = BTreeSet::new();
        collect_rb(&dir, "", &mut found, 0);
        for f in found {
            out.insert(format!("{shown}/{f}"));
        }
    }
    out.into_iter().collect()
}

/// Folder depth followed under a factory folder.
const MAX_DIR_DEPTH: usize = 12;

/// Adds the `.rb` files under `root/rel` (relative to `root`; links not followed).
fn collect_rb(root: &Path, rel: &str, out: &mut BTreeSet<String>, depth: usize) {
    if depth > MAX_DIR_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return;
    };
    for e in entries.flatten() {
        let Ok(kind) = e.file_type() else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        let child = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if kind.is_dir() {
            collect_rb(root, &child, out, depth + 1);
        } else if kind.is_file() && name.ends_with(".rb") {
            out.insert(child);
        }
    }
}

/// `lib/**/testing_support/{factories,fabricators}` folders (and `factories.rb` files
/// there) of the root and of the project's own gems and engines (one folder down, and
/// under `engines/`, `gems/`, `components/`, `packs/`).
fn testing_support_dirs(root: &Path) -> Vec<String> {
    let mut libs = vec!["lib".to_string()];
    let push_children = |parent: &str, libs: &mut Vec<String>| {
        let Ok(entries) = std::fs::read_dir(root.join(parent)) else {
            return;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.') && n != "node_modules" && n != "vendor" && n != "tmp")
            .collect();
        names.sort();
        for n in names {
            let base = if parent.is_empty() {
                n
            } else {
                format!("{parent}/{n}")
            };
            libs.push(format!("{base}/lib"));
        }
    };
    push_children("", &mut libs);
    for group in ["engines", "gems", "components", "packs"] {
        push_children(group, &mut libs);
    }
    let mut out = Vec::new();
    for lib in libs {
        find_testing_support(root, &lib, &mut out, 0);
    }
    out
}

fn find_testing_support(root: &Path, rel: &str, out: &mut Vec<String>, depth: usize) {
    // `lib/spree/testing_support` or `lib/solidus/promotions/testing_support`: three
    // folders down at most, so a large `lib/` costs a few directory reads.
    if depth > 2 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return;
    };
    let mut dirs: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    for d in dirs {
        let child = format!("{rel}/{d}");
        if d == "testing_support" {
            for sub in ["factories", "fabricators"] {
                if root.join(&child).join(sub).is_dir() {
                    out.push(format!("{child}/{sub}"));
                }
            }
        } else {
            find_testing_support(root, &child, out, depth + 1);
        }
    }
}

/// Folders of installed gems holding what `required` names
/// (`spree/testing_support/factories`): `{gem}/lib/{required}` (a folder, or the folder of
/// a `.rb` file that loads it), under the project's `vendor/bundle` or `BUNDLE_PATH`.
/// Each with the path it is shown as (relative to the root).
fn installed_gem_dirs(root: &Path, required: &[String]) -> Vec<(std::path::PathBuf, String)> {
    if required.is_empty() {
        return Vec::new();
    }
    let mut bundles = vec!["vendor/bundle".to_string()];
    if let Ok(text) = std::fs::read_to_string(root.join(".bundle/config")) {
        for line in text.lines() {
            if let Some(v) = line.trim().strip_prefix("BUNDLE_PATH:") {
                let v = v.trim().trim_matches(['"', '\'']);
                if !v.is_empty() && !Path::new(v).is_absolute() && !v.contains("..") {
                    bundles.push(v.to_string());
                }
            }
        }
    }
    let mut out = Vec::new();
    for bundle in bundles {
        // {bundle}/ruby/{version}/gems/{gem}-{version}/lib
        let Ok(rubies) = std::fs::read_dir(root.join(&bundle).join("ruby")) else {
            continue;
        };
        let mut rubies: Vec<String> = rubies
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        rubies.sort();
        for ruby in rubies {
            let gems_rel = format!("{bundle}/ruby/{ruby}/gems");
            let Ok(gems) = std::fs::read_dir(root.join(&gems_rel)) else {
                continue;
            };
            let mut gems: Vec<String> = gems
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            gems.sort();
            for gem in gems {
                for r in required {
                    let r = r.trim_matches('/');
                    let rel = format!("{gems_rel}/{gem}/lib/{r}");
                    if root.join(&rel).is_dir() {
                        out.push((root.join(&rel), rel));
                    }
                }
            }
        }
    }
    out
}

/// What spec helpers `require` that loads a gem's factories:
/// `require "spree/testing_support/factories"` → `spree/testing_support/factories`.
pub fn required_factories(helpers: &[(String, String)]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for (_, text) in helpers {
        for line in text.lines() {
            let l = line.trim_start();
            let Some(rest) = l.strip_prefix("require") else {
                continue;
            };
            let rest = rest.trim_start_matches([' ', '(']);
            let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                continue;
            };
            let Some(inner) = rest.get(1..) else { continue };
            let Some(end) = inner.find(q) else { continue };
            let path = inner.get(..end).unwrap_or_default();
            if path.contains("testing_support/factories")
                || path.contains("testing_support/fabricators")
            {
                out.insert(path.trim_end_matches(".rb").to_string());
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests;
