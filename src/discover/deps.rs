//! Who depends on whom: the classes (in scope) that a public method and the private methods
//! it absorbs (found by [`crate::index::Absorber`]) reference, resolved the way Ruby resolves
//! constants (lexical nesting first, then the top level; `::X` from the top level only),
//! plus instance variables and parameters whose names camelize to a class in scope
//! (`@payment` → `Payment`).

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::index::{count_byte, terminated, FileFacts};

/// The classes and modules defined in the files in scope, for constant resolution.
#[derive(Debug, Default)]
pub struct Known {
    /// Each class's number (its index in `names`).
    ids: FxHashMap<Arc<str>, u32>,
    /// Shared: every dependency on a class holds this one copy of its name.
    names: Vec<Arc<str>>,
    namespaces: FxHashSet<String>,
    /// Every segment of those names (`Admin`, `Billing`, `Invoice`): a constant whose first
    /// segment is none of them resolves nowhere, with one lookup (most ivars and parameters:
    /// `@user` when no class is named `User`).
    segments: FxHashSet<Box<str>>,
}

impl Known {
    /// These class and module names.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut known = Known::default();
        for name in names {
            known.add(name);
        }
        known
    }

    fn add(&mut self, name: &str) {
        if !self.ids.contains_key(name) {
            let shared: Arc<str> = Arc::from(name);
            let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
            self.ids.insert(Arc::clone(&shared), id);
            self.names.push(shared);
            let mut prefix = String::new();
            for (i, part) in name.split("::").enumerate() {
                if i > 0 {
                    prefix.push_str("::");
                }
                prefix.push_str(part);
                if !self.namespaces.contains(prefix.as_str()) {
                    self.namespaces.insert(prefix.clone());
                }
                if !self.segments.contains(part) {
                    self.segments.insert(part.into());
                }
            }
        }
    }

    /// The number of a class in scope: classes are numbered 0.. in the order they were
    /// added, so the planner's wave computation works on numbers, not names.
    pub fn id(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// The class names by number, the rest (the lookup tables) freed.
    pub fn into_names(self) -> Vec<Arc<str>> {
        self.names
    }

    #[cfg(test)]
    /// Resolves a constant path as Ruby would from inside `nesting` (innermost first) and
    /// returns the longest prefix of it that is a class or module in scope. `None` when
    /// the constant is not defined in scope (a gem, the standard library, a typo).
    pub fn resolve(&self, nesting: &[String], path: &str, absolute: bool) -> Option<Arc<str>> {
        self.resolve_full(nesting, path, absolute)
            .map(|(class, _)| class)
    }

    /// Resolves a constant path as Ruby would from inside `nesting` (innermost first): the
    /// longest prefix of it that is a class or module in scope, and whether the class found
    /// is the whole path (`Payment` for `Payment`, not for `Payment::STATUSES`).
    pub fn resolve_full(
        &self,
        nesting: &[String],
        path: &str,
        absolute: bool,
    ) -> Option<(Arc<str>, bool)> {
        let mut current = String::new();
        self.resolve_in(
            nesting.iter().map(String::as_str),
            path,
            absolute,
            &mut current,
        )
        .map(|(class, _, whole)| (Arc::clone(class), whole))
    }

    /// [`Known::resolve_full`] with the nesting as names (innermost first), and the
    /// class's number; `current` is a buffer for the names looked up.
    fn resolve_in<'n>(
        &self,
        nesting: impl Iterator<Item = &'n str>,
        path: &str,
        absolute: bool,
        current: &mut String,
    ) -> Option<(&Arc<str>, u32, bool)> {
        // Runs for every constant, ivar, parameter and receiver of every method: most name
        // no class in scope and stop at the first lookup; the others use one buffer.
        let (first, rest) = match split_scope(path) {
            Some((first, rest)) => (first, Some(rest)),
            None => (path, None),
        };
        // `scope::first` can only be a known namespace if `first` is a segment of one.
        if !self.segments.contains(first) {
            return None;
        }
        let scopes = nesting.filter(|_| !absolute).chain(std::iter::once(""));
        for scope in scopes {
            current.clear();
            if !scope.is_empty() {
                current.push_str(scope);
                current.push_str("::");
            }
            current.push_str(first);
            if !self.namespaces.contains(current.as_str()) {
                continue;
            }
            // Found where the first segment lives; descend as far as the path is known.
            let mut best = self
                .ids
                .contains_key(current.as_str())
                .then_some((current.len(), rest.is_none()));
            let mut rest = rest;
            while let Some(remaining) = rest {
                let (part, next) = match split_scope(remaining) {
                    Some((part, next)) => (part, Some(next)),
                    None => (remaining, None),
                };
                rest = next;
                current.push_str("::");
                current.push_str(part);
                if !self.namespaces.contains(current.as_str()) {
                    break;
                }
                if self.ids.contains_key(current.as_str()) {
                    best = Some((current.len(), rest.is_none()));
                }
            }
            return best.and_then(|(len, whole)| {
                current.truncate(len);
                self.ids
                    .get_key_value(current.as_str())
                    .map(|(class, &id)| (class, id, whole))
            });
        }
        None
    }
}

/// `A::B::C` → (`A`, `B::C`); `None` without `::`. Found with memchr on `:`: a `&str`
/// pattern (`split_once("::")`) sets up a substring searcher per call, which cost more
/// than the lookups it feeds.
fn split_scope(path: &str) -> Option<(&str, &str)> {
    let bytes = path.as_bytes();
    let at = memchr::memchr_iter(b':', bytes).find(|&i| bytes.get(i + 1) == Some(&b':'))?;
    Some((path.get(..at)?, path.get(at + 2..)?))
}

/// Class names by number: what the numbers in a [`Deps`] refer to (the known classes of
/// the plan, [`Known::into_names`]).
pub type ClassNames = [Arc<str>];

/// Classes a set of methods depends on, sorted by name, each with the methods called on
/// it (sorted, unique). Kept for every public method of the plan, so kept small: the
/// classes as numbers into the plan's [`ClassNames`], and the methods of all of them in
/// one buffer. (A name and a method list per class cost 40 bytes per dependency: a
/// quarter of `discover --all`'s live data at 50,000 files.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deps {
    /// The classes' numbers, in the order of their names.
    ids: Box<[u32]>,
    /// One record per class, in the order of `ids`: its methods, each followed by `\n`,
    /// then a `\t`. Empty when no method is called on any of them. Names never hold a
    /// tab or a newline.
    methods: Box<str>,
}

impl Deps {
    /// The classes, sorted.
    pub fn keys<'a>(&'a self, names: &'a ClassNames) -> impl Iterator<Item = &'a str> + 'a {
        self.ids.iter().map(move |&id| class_name(names, id))
    }

    /// The classes' numbers in the `Known` they were resolved with, in the order of
    /// [`Deps::keys`].
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.ids.iter().copied()
    }

    /// Each class with the methods called on it.
    pub fn iter<'a>(
        &'a self,
        names: &'a ClassNames,
    ) -> impl Iterator<Item = (&'a str, impl Iterator<Item = &'a str> + Clone + 'a)> + 'a {
        let mut records = terminated(&self.methods, b'\t');
        self.ids.iter().map(move |&id| {
            let methods = records.next().unwrap_or_default();
            (class_name(names, id), terminated(methods, b'\n'))
        })
    }

    /// Number of classes.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The numbers and the methods' buffer, as [`Deps::from_parts`] takes them back (the
    /// stored plan's codec).
    pub(crate) fn parts(&self) -> (&[u32], &str) {
        (&self.ids, &self.methods)
    }

    /// Deps from [`Deps::parts`].
    pub(crate) fn from_parts(ids: Box<[u32]>, methods: Box<str>) -> Deps {
        Deps { ids, methods }
    }
}

/// Class `id`'s name (empty for a number the table does not hold).
fn class_name(names: &ClassNames, id: u32) -> &str {
    names.get(id as usize).map_or("", |name| &**name)
}

/// What a public method and the methods it absorbs reference, reduced to what constant
/// resolution reads, in one buffer: planning a large codebase keeps one of these per public
/// method instead of every method's constants, instance variables, parameters and calls.
///
/// One record per line: `scope \t kind name (\t method)*`, where scope is the index of the
/// class statement whose nesting applies (empty: top level), kind is `C` (a constant as
/// written), `A` (a constant written `::X`) or `V` (a class name guessed from an instance
/// variable or parameter), and the methods are those called on it. Records are in the
/// order of (scope, kind, the name as written) and unique by it, their methods sorted and
/// unique: two variables whose names camelize alike (`line_item`, `lineItem`) keep a record
/// each, which resolution merges. Names never hold a tab or a newline (replaced by a
/// space).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Refs {
    buf: Box<str>,
}

/// One record of [`Refs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ref<'a> {
    /// Index into the file's class statements, for the nesting that applies.
    pub scope: Option<usize>,
    /// How the name was found.
    pub kind: RefKind,
    /// The constant path, or the class name guessed from a variable.
    pub name: &'a str,
    methods: &'a str,
}

impl<'a> Ref<'a> {
    /// The methods called on it, sorted and unique.
    pub fn methods(&self) -> impl Iterator<Item = &'a str> {
        terminated(self.methods, b'\t')
    }
}

/// How a [`Ref`] was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RefKind {
    /// A constant path as written (resolved through the nesting, then the top level).
    Constant,
    /// A constant path written `::X` (the top level only).
    Absolute,
    /// A class name camelized from an instance variable or parameter (`@payment`).
    Variable,
}

impl RefKind {
    /// The kind in the low two bits of a [`Refs::collect`] sort key.
    fn of_bits(key: u64) -> RefKind {
        match key & 3 {
            0 => RefKind::Constant,
            1 => RefKind::Absolute,
            _ => RefKind::Variable,
        }
    }

    fn letter(self) -> char {
        match self {
            RefKind::Constant => 'C',
            RefKind::Absolute => 'A',
            RefKind::Variable => 'V',
        }
    }
}

impl Refs {
    /// The references of `file.methods[index]` and of the methods in `absorbed`.
    #[cfg(test)]
    pub fn collect(file: &FileFacts, index: usize, absorbed: &[usize]) -> Refs {
        Refs::collect_in(file, index, absorbed, &mut RefsScratch::default())
    }

    /// [`Refs::collect`] with lists kept from one method of `file` to the next.
    pub fn collect_in<'f>(
        file: &'f FileFacts,
        index: usize,
        absorbed: &[usize],
        scratch: &mut RefsScratch<'f>,
    ) -> Refs {
        let RefsScratch { found, buf } = scratch;
        found.clear();
        buf.clear();
        let methods = std::iter::once(&index)
            .chain(absorbed)
            .filter_map(|&i| file.methods.get(i));
        // (scope and kind as one number, name, method called on it). A variable is sorted
        // by its name as written and camelized as its record is written: once per record
        // instead of once per mention, with no string made to sort it.
        for m in methods {
            let key = |kind: RefKind| {
                (m.scope
                    .map_or(0, |s| u64::try_from(s).unwrap_or(u64::MAX >> 2) + 1)
                    << 2)
                    | kind as u64
            };
            for c in &m.constants {
                let kind = key(if c.absolute {
                    RefKind::Absolute
                } else {
                    RefKind::Constant
                });
                found.push((kind, c.path.as_str(), ""));
                for method in c.methods.iter() {
                    found.push((kind, c.path.as_str(), method));
                }
            }
            let variable = key(RefKind::Variable);
            for ivar in m.ivars.iter() {
                found.push((variable, ivar, ""));
            }
            for p in &m.params {
                if !p.name.is_empty() {
                    found.push((variable, &p.name, ""));
                }
            }
            for call in m.receiver_calls() {
                found.push((variable, call.name, call.method));
            }
        }
        found.sort_unstable();
        found.dedup();
        // Names are Ruby identifiers and constant paths, which never hold a tab or a
        // newline: they are copied as they are, and the separators counted. Should the
        // text hold more than were written, a name held one: written again, cleaned.
        let written = write_records(found, buf, false);
        if count_byte(buf.as_bytes(), b'\t') + count_byte(buf.as_bytes(), b'\n') != written {
            buf.clear();
            write_records(found, buf, true);
        }
        // Kept until the plan is made: one allocation of the exact size.
        Refs {
            buf: Box::from(buf.as_str()),
        }
    }

    /// The records as one text (see [`records`]).
    pub fn as_str(&self) -> &str {
        &self.buf
    }

    /// The records, sorted.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = Ref<'_>> {
        records(&self.buf)
    }
}

/// The records of a [`Refs`] text ([`Refs::as_str`]), in its order.
pub fn records(text: &str) -> impl Iterator<Item = Ref<'_>> {
    terminated(text, b'\n').filter_map(record)
}

/// One line of a [`Refs`] text.
fn record(line: &str) -> Option<Ref<'_>> {
    // Split by hand: a record is a few short fields, where a searcher's set-up per call
    // costs more than the search.
    let tab = line.bytes().position(|b| b == b'\t')?;
    let scope = line.get(..tab)?;
    let rest = line.get(tab + 1..)?;
    let (name, methods) = match rest.bytes().position(|b| b == b'\t') {
        Some(at) => (rest.get(..at)?, rest.get(at + 1..)?),
        None => (rest, ""),
    };
    let kind = match name.as_bytes().first()? {
        b'C' => RefKind::Constant,
        b'A' => RefKind::Absolute,
        _ => RefKind::Variable,
    };
    Some(Ref {
        scope: if scope.is_empty() {
            None
        } else {
            scope.parse().ok()
        },
        kind,
        name: name.get(1..)?,
        methods,
    })
}

/// Lists [`Refs::collect_in`] keeps from one method of a file to the next.
#[derive(Debug, Default)]
pub struct RefsScratch<'f> {
    found: Vec<(u64, &'f str, &'f str)>,
    buf: String,
}

/// Writes sorted, unique `(key, name, method)` tuples as [`Refs`] records into `buf`, a
/// variable's name camelized; `clean` replaces tabs and newlines inside names. Returns how
/// many separators (tabs and newlines) it wrote itself.
fn write_records(found: &[(u64, &str, &str)], buf: &mut String, clean: bool) -> usize {
    let push = |buf: &mut String, text: &str| {
        if clean {
            push_clean(buf, text);
        } else {
            buf.push_str(text);
        }
    };
    let mut separators = 0;
    let mut last: Option<(u64, &str)> = None;
    for &(key, name, method) in found {
        if last != Some((key, name)) {
            if last.is_some() {
                buf.push('\n');
                separators += 1;
            }
            if let Some(scope) = (key >> 2).checked_sub(1) {
                buf.push_str(itoa::Buffer::new().format(scope));
            }
            buf.push('\t');
            separators += 1;
            let kind = RefKind::of_bits(key);
            buf.push(kind.letter());
            if kind == RefKind::Variable {
                let start = buf.len();
                crate::naming::camelize_into(buf, name);
                if clean {
                    let camel = buf.split_off(start);
                    push_clean(buf, &camel);
                }
            } else {
                push(buf, name);
            }
            last = Some((key, name));
        }
        if !method.is_empty() {
            buf.push('\t');
            separators += 1;
            push(buf, method);
        }
    }
    if last.is_some() {
        buf.push('\n');
        separators += 1;
    }
    separators
}

fn push_clean(buf: &mut String, text: &str) {
    if text.bytes().any(|b| b == b'\t' || b == b'\n') {
        buf.push_str(&text.replace(['\t', '\n'], " "));
    } else {
        buf.push_str(text);
    }
}

/// A file's class and module statements as constant resolution reads them: each one's
/// name and its lexical nesting (itself, then the statements around it). Kept for every
/// file until the plan is made, so a nesting is a list of numbers into one name list, not
/// a copy of the names (`Admin::Billing::Invoice` inside `module Admin`: its own number and
/// `Admin`'s, not two more strings).
#[derive(Debug, Clone, Default)]
pub struct Scopes {
    /// The statements' names by index, then any other name a nesting holds.
    names: Box<[Box<str>]>,
    /// How many statements there are (the first names).
    count: usize,
    /// Statement `i`'s nesting is `links[starts[i]..starts[i + 1]]`.
    starts: Box<[u32]>,
    links: Box<[u32]>,
}

impl Scopes {
    /// The statements of a file, as its facts list them.
    pub fn new(classes: &[crate::index::ClassFacts]) -> Scopes {
        let mut names: Vec<Box<str>> = classes.iter().map(|c| c.name.as_str().into()).collect();
        let mut index: FxHashMap<&str, u32> = FxHashMap::default();
        for (i, c) in classes.iter().enumerate() {
            index
                .entry(c.name.as_str())
                .or_insert(u32::try_from(i).unwrap_or(u32::MAX));
        }
        let mut starts = Vec::with_capacity(classes.len() + 1);
        let mut links = Vec::new();
        for c in classes {
            starts.push(u32::try_from(links.len()).unwrap_or(u32::MAX));
            for name in &c.nesting {
                let at = *index.entry(name.as_str()).or_insert_with(|| {
                    names.push(name.as_str().into());
                    u32::try_from(names.len() - 1).unwrap_or(u32::MAX)
                });
                links.push(at);
            }
        }
        starts.push(u32::try_from(links.len()).unwrap_or(u32::MAX));
        Scopes {
            names: names.into_boxed_slice(),
            count: classes.len(),
            starts: starts.into_boxed_slice(),
            links: links.into_boxed_slice(),
        }
    }

    /// The statements' names, by index.
    pub fn classes(&self) -> impl Iterator<Item = &str> {
        self.names.iter().take(self.count).map(|n| &**n)
    }

    /// Statement `i`'s nesting, innermost first; empty for an unknown index.
    pub fn nesting(&self, i: usize) -> impl Iterator<Item = &str> {
        let start = self.starts.get(i).map_or(0, |&s| s as usize);
        let end = self.starts.get(i + 1).map_or(start, |&e| e as usize);
        self.links
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .filter_map(|&n| self.names.get(n as usize).map(|n| &**n))
    }
}

/// The in-scope classes a public method of `owner` depends on, from its [`Refs`]:
/// `scopes` are the file's class statements. Its own class is left out, and so are classes nested in it that the same
/// file defines (`Order::InvalidState`, a `Result` struct): they are part of the unit
/// under test, not something to test first.
pub fn resolve_refs(
    refs: &str,
    owner: &str,
    scopes: &Scopes,
    known: &Known,
    scratch: &mut Scratch,
) -> Deps {
    let Scratch { current } = scratch;
    let mut deps: Vec<(&str, u32, Vec<&str>)> = Vec::new();
    for r in records(refs) {
        let nesting = r.scope.map(|s| scopes.nesting(s)).into_iter().flatten();
        let resolved = known.resolve_in(nesting, r.name, r.kind == RefKind::Absolute, current);
        let Some((class, id, whole)) = resolved else {
            continue;
        };
        // Methods called on a variable count whatever part of the name was found.
        let whole = whole || r.kind == RefKind::Variable;
        let at = match deps.iter().position(|&(_, d, _)| d == id) {
            Some(at) => at,
            None => {
                deps.push((&**class, id, Vec::new()));
                deps.len() - 1
            }
        };
        // Methods called on the class itself (`Payment.find`), not on a constant inside it
        // (`Payment::STATUSES.include?`).
        if whole {
            if let Some((_, _, methods)) = deps.get_mut(at) {
                methods.extend(r.methods());
            }
        }
    }
    let nested_in_owner = |class: &str| {
        class
            .strip_prefix(owner)
            .is_some_and(|rest| rest.starts_with("::"))
    };
    deps.retain(|&(class, _, _)| {
        class != owner && !(nested_in_owner(class) && scopes.classes().any(|c| c == class))
    });
    deps.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut ids = Vec::with_capacity(deps.len());
    let mut any_method = false;
    let mut len = 0;
    for (_, _, called) in &mut deps {
        called.sort_unstable();
        called.dedup();
        any_method |= !called.is_empty();
        len += called.iter().map(|name| name.len() + 1).sum::<usize>() + 1;
    }
    // No method called on any class: no records at all. Otherwise sized exactly: the
    // text is kept until the plan is written.
    let mut methods = String::with_capacity(if any_method { len } else { 0 });
    for (_, id, called) in deps {
        ids.push(id);
        if any_method {
            for name in called {
                methods.push_str(name);
                methods.push('\n');
            }
            methods.push('\t');
        }
    }
    Deps {
        ids: ids.into_boxed_slice(),
        methods: methods.into_boxed_str(),
    }
}

/// The buffer [`resolve_refs`] reuses from one call to the next (one per file planned):
/// the candidate names a constant is looked up as (`Billing::Payment`, then `Payment`).
#[derive(Debug, Default)]
pub struct Scratch {
    current: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{absorbed, extract, Names};

    /// The in-scope classes that `methods[index]` and the methods in `absorbed` reference,
    /// other than its own class ([`Refs::collect`] then [`resolve_refs`]).
    fn method_deps(
        file: &FileFacts,
        index: usize,
        absorbed: &[usize],
        known: &Known,
    ) -> Vec<(String, Vec<String>)> {
        let Some(root) = file.methods.get(index) else {
            return Vec::new();
        };
        let refs = Refs::collect(file, index, absorbed);
        let deps = resolve_refs(
            refs.as_str(),
            &root.owner,
            &Scopes::new(&file.classes),
            known,
            &mut Scratch::default(),
        );
        let names: Vec<(String, Vec<String>)> = deps
            .iter(&known.names)
            .map(|(class, methods)| (class.to_string(), methods.map(str::to_string).collect()))
            .collect();
        assert_eq!(deps.len(), names.len());
        assert_eq!(
            deps.keys(&known.names).collect::<Vec<_>>(),
            names.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>()
        );
        names
    }

    #[test]
    fn scopes_give_back_each_statements_nesting_and_name() {
        let src = "module Admin\n  class Billing::Invoice\n    class Line; end\n  end\n  Row = Struct.new(:a) do\n  end\nend\nclass Admin::Billing::Invoice\n  class Line; end\nend\nmodule Admin\n  class Report; end\nend\nclass ::Top; end\n";
        let file = extract("app/models/admin.rb", src.as_bytes());
        assert!(file.classes.len() >= 7, "{:?}", file.classes);
        let scopes = Scopes::new(&file.classes);
        let names: Vec<&str> = scopes.classes().collect();
        let expected: Vec<&str> = file.classes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, expected);
        for (i, class) in file.classes.iter().enumerate() {
            let nesting: Vec<&str> = scopes.nesting(i).collect();
            assert_eq!(nesting, class.nesting, "statement {i}: {}", class.name);
        }
        // The same name reached two ways keeps each statement's own nesting.
        let lines: Vec<Vec<&str>> = (0..file.classes.len())
            .filter(|&i| {
                file.classes
                    .get(i)
                    .is_some_and(|c| c.name == "Admin::Billing::Invoice::Line")
            })
            .map(|i| scopes.nesting(i).collect())
            .collect();
        assert_eq!(
            lines,
            vec![
                vec![
                    "Admin::Billing::Invoice::Line",
                    "Admin::Billing::Invoice",
                    "Admin"
                ],
                vec!["Admin::Billing::Invoice::Line", "Admin::Billing::Invoice"],
            ]
        );
        assert_eq!(scopes.nesting(99).count(), 0);
    }

    #[test]
    fn scope_paths_split_at_the_first_double_colon() {
        assert_eq!(split_scope("A::B::C"), Some(("A", "B::C")));
        assert_eq!(split_scope("Payment"), None);
        assert_eq!(split_scope("A:B::C"), Some(("A:B", "C")));
        assert_eq!(split_scope("A:::B"), Some(("A", ":B")));
        assert_eq!(split_scope("A::"), Some(("A", "")));
        assert_eq!(split_scope("::A"), Some(("", "A")));
        assert_eq!(split_scope("Ä::Ö"), Some(("Ä", "Ö")));
        for path in [
            "A::B::C",
            "Payment",
            "A:B::C",
            "A:::B",
            "A::",
            "::A",
            "x::y::z::w",
        ] {
            assert_eq!(split_scope(path), path.split_once("::"), "{path}");
        }
    }

    fn known(names: &[&str]) -> Known {
        let mut k = Known::default();
        for n in names {
            k.add(n);
        }
        k
    }

    #[test]
    fn lexical_nesting_first_then_top_level() {
        let k = known(&["Billing::Payment", "Payment", "Billing::Tax", "Tax::Rate"]);
        let nesting = vec!["Billing::Invoice".to_string(), "Billing".to_string()];
        assert_eq!(
            k.resolve(&nesting, "Payment", false).as_deref(),
            Some("Billing::Payment")
        );
        assert_eq!(
            k.resolve(&nesting, "Payment", true).as_deref(),
            Some("Payment")
        );
        assert_eq!(k.resolve(&[], "Payment", false).as_deref(), Some("Payment"));
        // `Tax` is found in Billing first (as Ruby would), and Billing::Tax has no Rate.
        assert_eq!(
            k.resolve(&nesting, "Tax::Rate", false).as_deref(),
            Some("Billing::Tax")
        );
        assert_eq!(
            k.resolve(&[], "Tax::Rate", false).as_deref(),
            Some("Tax::Rate")
        );
        assert_eq!(k.resolve(&nesting, "Stripe::Charge", false), None);
    }

    #[test]
    fn constants_inside_a_class_resolve_to_the_class() {
        let k = known(&["Payment"]);
        assert_eq!(
            k.resolve(&[], "Payment::STATUSES", false).as_deref(),
            Some("Payment")
        );
        // A namespace that is only a prefix (never defined in scope) is not a class.
        let k = known(&["Billing::Invoice"]);
        assert_eq!(k.resolve(&[], "Billing", false), None);
        assert_eq!(
            k.resolve(&[], "Billing::Invoice", false).as_deref(),
            Some("Billing::Invoice")
        );
    }

    #[test]
    fn deps_from_constants_ivars_params_and_absorbed_privates() {
        let src = "module Billing\n  class Charge\n    def call(order)\n      Payment.find(order.id).capture!\n      @gateway.submit\n      order.total\n      audit\n      Charge.new\n    end\n\n    private\n\n    def audit\n      ::AuditLog.write(self)\n    end\n  end\nend\n";
        let file = extract("c.rb", src.as_bytes());
        let k = known(&[
            "Billing::Charge",
            "Billing::Payment",
            "Order",
            "Gateway",
            "AuditLog",
        ]);
        let absorbed = absorbed(&file.methods, 0);
        assert_eq!(absorbed, vec![1]);
        let flat = method_deps(&file, 0, &absorbed, &k);
        assert_eq!(
            flat,
            vec![
                ("AuditLog".into(), vec!["write".into()]),
                ("Billing::Payment".into(), vec!["find".into()]),
                ("Gateway".into(), vec!["submit".into()]),
                ("Order".into(), vec!["id".into(), "total".into()]),
            ]
        );
    }

    #[test]
    fn classes_without_called_methods_keep_their_place_among_those_with_some() {
        // `Audit` and `Gateway` are referenced without a call on them, `Ledger` with two:
        // each class keeps its own (possibly empty) method list, in name order.
        let src = "class Refund\n  def call(gateway)\n    Audit\n    Ledger.book(1)\n    Ledger.book(2)\n    Ledger.close\n    gateway\n  end\n  def quiet(gateway)\n    Audit\n    gateway\n  end\nend\n";
        let file = extract("app/services/refund.rb", src.as_bytes());
        let k = known(&["Refund", "Audit", "Ledger", "Gateway"]);
        assert_eq!(
            method_deps(&file, 0, &[], &k),
            vec![
                ("Audit".to_string(), vec![]),
                ("Gateway".to_string(), vec![]),
                (
                    "Ledger".to_string(),
                    vec!["book".to_string(), "close".to_string()]
                ),
            ]
        );
        // No method called on any class.
        assert_eq!(
            method_deps(&file, 1, &[], &k),
            vec![
                ("Audit".to_string(), vec![]),
                ("Gateway".to_string(), vec![])
            ]
        );
    }

    #[test]
    fn classes_nested_in_the_own_class_of_the_same_file_are_not_dependencies() {
        let src = "class Order\n  def ship!\n    raise InvalidState\n    Order::Line.new\n  end\n  class InvalidState < StandardError; end\nend\n";
        let file = extract("app/models/order.rb", src.as_bytes());
        let k = known(&["Order", "Order::InvalidState", "Order::Line"]);
        // Order::Line lives in another file: a real dependency.
        let deps: Vec<String> = method_deps(&file, 0, &[], &k)
            .into_iter()
            .map(|(class, _)| class)
            .collect();
        assert_eq!(deps, vec!["Order::Line".to_string()]);
    }

    #[test]
    fn absorption_is_transitive_and_stays_in_owner_and_kind() {
        let src = "class A\n  def a\n    b\n  end\n  def self.s\n    c\n  end\n  private\n  def b\n    c\n  end\n  def c; end\n  class << self\n    private\n    def c; end\n  end\nend\n";
        let file = extract("a.rb", src.as_bytes());
        let names = |ix: Vec<usize>| {
            ix.into_iter()
                .map(|i| file.methods[i].id())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(absorbed(&file.methods, 0)), vec!["A#b", "A#c"]);
        assert_eq!(names(absorbed(&file.methods, 1)), vec!["A.c"]);
    }

    #[test]
    fn refs_merge_repeats_and_keep_scope_kind_and_methods() {
        let src = "module Billing\n  class Charge\n    def call(payment)\n      Payment.find(1)\n      Payment.find(2)\n      ::Payment.where\n      payment.capture\n      @payment.refund\n      audit\n    end\n\n    private\n\n    def audit\n      Payment.log\n    end\n  end\nend\n";
        let file = extract("app/services/billing/charge.rb", src.as_bytes());
        let absorbed = absorbed(&file.methods, 0);
        let refs = Refs::collect(&file, 0, &absorbed);
        let records: Vec<(Option<usize>, RefKind, &str, Vec<&str>)> = refs
            .iter()
            .map(|r| (r.scope, r.kind, r.name, r.methods().collect()))
            .collect();
        // One record per (scope, kind, name): `Payment.find` twice and the absorbed
        // `Payment.log` merge; the parameter and the ivar give one guessed `Payment`.
        assert_eq!(
            records,
            vec![
                (Some(1), RefKind::Constant, "Payment", vec!["find", "log"]),
                (Some(1), RefKind::Absolute, "Payment", vec!["where"]),
                (
                    Some(1),
                    RefKind::Variable,
                    "Payment",
                    vec!["capture", "refund"]
                ),
            ]
        );
        let k = known(&["Billing::Charge", "Billing::Payment", "Payment"]);
        let flat = method_deps(&file, 0, &absorbed, &k);
        assert_eq!(
            flat,
            vec![
                (
                    "Billing::Payment".to_string(),
                    vec![
                        "capture".into(),
                        "find".into(),
                        "log".into(),
                        "refund".into()
                    ]
                ),
                ("Payment".to_string(), vec!["where".into()]),
            ]
        );
    }

    #[test]
    fn variables_are_sorted_as_written_and_recorded_camelized() {
        let src = "module Shop\n  class Checkout\n    def call(line_item)\n      line_item.total\n      @gift_card.redeem\n      @line_item.tax\n      unknown_thing.go\n    end\n  end\nend\n";
        let file = extract("app/services/shop/checkout.rb", src.as_bytes());
        let refs = Refs::collect(&file, 0, &[]);
        let names: Vec<(RefKind, &str)> = refs.iter().map(|r| (r.kind, r.name)).collect();
        // The parameter and `@line_item` are one record; `unknown_thing` is a method call,
        // not a variable.
        assert_eq!(
            names,
            vec![
                (RefKind::Variable, "GiftCard"),
                (RefKind::Variable, "LineItem"),
            ]
        );
        let k = known(&["Shop::Checkout", "Shop::LineItem", "GiftCard"]);
        assert_eq!(
            method_deps(&file, 0, &[], &k),
            vec![
                ("GiftCard".to_string(), vec!["redeem".to_string()]),
                (
                    "Shop::LineItem".to_string(),
                    vec!["tax".to_string(), "total".to_string()]
                ),
            ]
        );
    }

    #[test]
    fn variables_that_camelize_alike_keep_a_record_each_and_one_dependency() {
        let src = "class Checkout\n  def call(line_item)\n    line_item.total\n    @lineItem.tax\n  end\nend\n";
        let file = extract("app/services/checkout.rb", src.as_bytes());
        let refs = Refs::collect(&file, 0, &[]);
        let names: Vec<(&str, Vec<&str>)> = refs
            .iter()
            .map(|r| (r.name, r.methods().collect()))
            .collect();
        assert_eq!(
            names,
            vec![("LineItem", vec!["tax"]), ("LineItem", vec!["total"])]
        );
        let k = known(&["Checkout", "LineItem"]);
        assert_eq!(
            method_deps(&file, 0, &[], &k),
            vec![(
                "LineItem".to_string(),
                vec!["tax".to_string(), "total".to_string()]
            )]
        );
    }

    #[test]
    fn refs_survive_names_with_separators() {
        let mut file = extract("a.rb", b"class A\n  def a\n    B.c\n  end\nend\n");
        let m = &mut file.methods[0];
        m.constants[0].path = "B\tX\nY".to_string();
        m.constants[0].methods = Names::from_strings(["c\td"]);
        let refs = Refs::collect(&file, 0, &[]);
        let records: Vec<(RefKind, &str, Vec<&str>)> = refs
            .iter()
            .map(|r| (r.kind, r.name, r.methods().collect()))
            .collect();
        assert_eq!(records, vec![(RefKind::Constant, "B X Y", vec!["c d"])]);
        assert!(Refs::collect(&file, 5, &[]).iter().next().is_none());
    }
}
