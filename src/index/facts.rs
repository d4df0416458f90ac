//! The plain, owned facts the index extracts from one Ruby file: the single input of every
//! later stage. Nothing here borrows a syntax tree.

use serde::Serialize;

/// Everything the index knows about one Ruby file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileFacts {
    /// The path as given to the index (project-relative when it came from a walk).
    pub path: String,
    /// Why the file was not parsed at all (binary, too large, unreadable), if it was not.
    pub skipped: Option<String>,
    /// Parse errors prism reported, with their line; empty when the file parsed cleanly.
    pub diagnostics: Vec<Diagnostic>,
    /// How many parse errors prism reported in all (only the first few are kept).
    pub diagnostic_count: usize,
    /// Every class or module statement, in source order (a reopened class appears once per
    /// `class` statement).
    pub classes: Vec<ClassFacts>,
    /// Every `def` in the file, in source order.
    pub methods: Vec<MethodFacts>,
    /// Non-blank lines that hold code: comment lines, `=begin/=end` blocks and the `__END__`
    /// data section do not count; heredoc bodies do.
    pub loc: u32,
    /// Number of lines in the file.
    pub lines: u32,
    /// Whether the bytes are valid UTF-8.
    pub utf8: bool,
}

impl FileFacts {
    /// Whether prism reported no errors and the file was read.
    pub fn parsed_ok(&self) -> bool {
        self.skipped.is_none() && self.diagnostic_count == 0
    }

    /// The classes and modules of the file by full name, each once, in first-seen order.
    pub fn class_names(&self) -> Vec<&str> {
        let mut seen: Vec<&str> = Vec::new();
        for class in &self.classes {
            if !seen.contains(&class.name.as_str()) {
                seen.push(&class.name);
            }
        }
        seen
    }
}

/// One parse error, with the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// 1-based line.
    pub line: u32,
    /// Prism's message (lossily decoded: prism's messages are bytes).
    pub message: String,
}

/// Whether a namespace is a class or a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NamespaceKind {
    /// `class X` (also `X = Struct.new`, `X = Class.new`, `X = Data.define`).
    Class,
    /// `module X` (also `X = Module.new`).
    Module,
}

/// One `class` or `module` statement.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassFacts {
    /// Full name, e.g. `Billing::Invoice`.
    pub name: String,
    /// Class or module.
    pub kind: NamespaceKind,
    /// The superclass as written (`ApplicationRecord`, `::Base`), if any.
    pub superclass: Option<String>,
    /// First and last line of the statement.
    pub line_range: (u32, u32),
    /// The lexical scopes in effect inside the body, innermost first, this one included:
    /// `module A; class B` gives `[A::B, A]`, the compact `class A::B` gives `[A::B]`.
    /// Ruby resolves constants through exactly this list, then the top level.
    pub nesting: Vec<String>,
    /// Whether the body runs `extend ActiveSupport::Concern`.
    pub concern: bool,
    /// Class-level DSL calls the analyzer needs (`before_action`, callbacks, `enum`,
    /// `aasm`, `rescue_from`, associations), in source order.
    pub dsl: Vec<DslCall>,
}

/// A class-level call such as `before_action :authenticate_user!, only: %i[show]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DslCall {
    /// The method called (`before_action`).
    pub name: String,
    /// Symbol and string arguments (`authenticate_user!`).
    pub args: Vec<String>,
    /// Keyword options with symbol or string values (`only: [show]`, `if: admin?`).
    pub options: Vec<(String, Vec<String>)>,
    /// Line.
    pub line: u32,
}

/// Class-level calls recorded in [`ClassFacts::dsl`].
pub const DSL_CALLS: &[&str] = &[
    "before_action",
    "prepend_before_action",
    "after_action",
    "around_action",
    "skip_before_action",
    "before_validation",
    "after_validation",
    "before_save",
    "after_save",
    "before_create",
    "after_create",
    "before_update",
    "after_update",
    "before_destroy",
    "after_destroy",
    "after_commit",
    "after_create_commit",
    "after_update_commit",
    "after_destroy_commit",
    "after_save_commit",
    "around_save",
    "around_create",
    "around_update",
    "around_destroy",
    "after_rollback",
    "after_initialize",
    "after_find",
    "after_touch",
    "validate",
    "append_before_action",
    "prepend_around_action",
    "append_around_action",
    "skip_after_action",
    "skip_around_action",
    "before_filter",
    "after_filter",
    "around_filter",
    "enum",
    "aasm",
    "state_machine",
    "workflow",
    "rescue_from",
    "belongs_to",
    "has_many",
    "has_one",
    "has_and_belongs_to_many",
    // What a model validates the presence of is present in its later callbacks.
    "validates",
    "validates_presence_of",
    // Mixins: a controller's concerns add filters and helpers.
    "include",
];

/// Instance or singleton method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MethodKind {
    /// An instance method: id `Class#name`.
    Instance,
    /// A singleton (class) method: id `Class.name`.
    Singleton,
}

/// Ruby method visibility.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Callable from anywhere.
    Public,
    /// Callable with an implicit receiver or `self.` only, and from other instances.
    Protected,
    /// Callable with an implicit receiver or `self.` only.
    Private,
}

/// One `def`.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodFacts {
    /// Method name as Ruby spells it (`call`, `valid?`, `name=`, `==`, `[]`).
    pub name: String,
    /// Full name of the class or module that owns it (`Object` for top-level defs).
    pub owner: String,
    /// Instance or singleton.
    pub kind: MethodKind,
    /// Visibility after every `private`/`protected`/`public`/`module_function` of the file.
    pub visibility: Visibility,
    /// From the `def` line to the `end` line (the same line for endless defs).
    pub line_range: (u32, u32),
    /// Index into [`FileFacts::classes`] of the statement whose body holds this def, if any.
    pub scope: Option<usize>,
    /// Defined at run time: inside another method's body, or inside a block of an expression
    /// (`Class.new do def x; end end` assigned to a local). Listed, as Ruby's parser lists
    /// them, but never a wave item: the class that gets it is only known at run time.
    pub dynamic: bool,
    /// Inside an `if`/`unless` or a `begin` with a `rescue` of its class body: a def that
    /// may not run (`rescue FFI::NotFoundError` then a stand-in def).
    pub conditional: bool,
    /// Digest of the def's text with indentation and blank lines removed (0 when extracted
    /// without digests: see [`super::ExtractOptions::digests`]).
    pub body_digest: u64,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Names called with an implicit receiver or `self.`, sorted and unique.
    pub calls: Names,
    /// Constants referenced, in source order, each path once.
    pub constants: Vec<ConstRef>,
    /// Instance variables read (without the `@`), sorted and unique.
    pub ivars: Names,
    /// Method calls on instance variables or parameters (`@payment.charge` as
    /// `@payment.charge`, `order.total` as `order.total`), sorted and unique: the basis of
    /// type-by-name inference. Read them with [`MethodFacts::receiver_calls`].
    pub receiver_calls: Names,
    /// The body as a small owned tree, when the index was asked for bodies.
    pub body: Option<Box<crate::index::body::Node>>,
    /// Default values of optional parameters, when the index was asked for bodies.
    pub param_defaults: Vec<(String, crate::index::body::Node)>,
}

impl MethodFacts {
    /// `Class#name` for instance methods, `Class.name` for singleton methods.
    pub fn id(&self) -> String {
        method_id(&self.owner, &self.name, self.kind)
    }

    /// Method calls on instance variables and parameters.
    pub fn receiver_calls(&self) -> impl Iterator<Item = ReceiverCall<'_>> {
        self.receiver_calls.iter().filter_map(|entry| {
            let dot = entry.bytes().position(|b| b == b'.')?;
            let (var, method) = (entry.get(..dot)?, entry.get(dot + 1..)?);
            Some(match var.strip_prefix('@') {
                Some(name) => ReceiverCall {
                    kind: ReceiverKind::Ivar,
                    name,
                    method,
                },
                None => ReceiverCall {
                    kind: ReceiverKind::Param,
                    name: var,
                    method,
                },
            })
        })
    }

    /// Whether this is a wave item: public, not `initialize`, not defined at run time.
    pub fn is_public_api(&self) -> bool {
        self.visibility == Visibility::Public && self.name != "initialize" && !self.dynamic
    }
}

/// For each method, whether a later `def` of the same class, kind and name replaces it
/// (Ruby keeps the last definition: the earlier one is never called). Both must be
/// unconditional defs of the class body. Reopened classes in other files are not seen
/// here.
pub fn redefined(methods: &[MethodFacts]) -> Vec<bool> {
    let mut out = vec![false; methods.len()];
    if methods.len() < 2 {
        return out;
    }
    // Run for every file a plan reads: FxHash, not the default SipHash.
    let mut seen: rustc_hash::FxHashSet<(&str, &str, MethodKind)> =
        rustc_hash::FxHashSet::with_capacity_and_hasher(methods.len(), Default::default());
    for (i, m) in methods.iter().enumerate().rev() {
        // Only a def that surely runs replaces one, and only one that surely ran is
        // replaced (a stand-in defined in a `rescue` is an alternative).
        if m.dynamic || m.conditional {
            continue;
        }
        if !seen.insert((m.owner.as_str(), m.name.as_str(), m.kind)) {
            if let Some(slot) = out.get_mut(i) {
                *slot = true;
            }
        }
    }
    out
}

/// Builds a method id: `Owner#name` or `Owner.name`.
pub fn method_id(owner: &str, name: &str, kind: MethodKind) -> String {
    let sep = match kind {
        MethodKind::Instance => '#',
        MethodKind::Singleton => '.',
    };
    // Sized exactly, without the formatting machinery: made for every public method.
    let mut id = String::with_capacity(owner.len() + 1 + name.len());
    id.push_str(owner);
    id.push(sep);
    id.push_str(name);
    id
}

/// What kind of parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// `a`
    Required,
    /// `a = 1`
    Optional,
    /// `*rest` or `*`
    Rest,
    /// `a:`
    Keyword,
    /// `a: 1`
    OptionalKeyword,
    /// `**opts` or `**`
    KeywordRest,
    /// `&block` or `&`
    Block,
    /// `...`
    Forward,
}

/// One parameter of a def.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Param {
    /// Name without sigils; empty for anonymous `*`, `**`, `&` and `...`.
    pub name: String,
    /// Kind of parameter.
    pub kind: ParamKind,
}

/// A constant reference inside a method body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstRef {
    /// The path as written, without a leading `::` (`Billing::Invoice`).
    pub path: String,
    /// Written with a leading `::` (resolved from the top level only).
    pub absolute: bool,
    /// Methods called on it directly (`Invoice.create` gives `create`), sorted and unique.
    pub methods: Names,
    /// First line it appears on.
    pub line: u32,
}

/// Where a receiver came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReceiverKind {
    /// `@payment.charge`
    Ivar,
    /// `order.total` where `order` is a parameter.
    Param,
}

/// A method called on an instance variable or a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReceiverCall<'a> {
    /// Ivar or parameter.
    pub kind: ReceiverKind,
    /// The variable name without `@`.
    pub name: &'a str,
    /// The method called.
    pub method: &'a str,
}

/// A sorted, unique list of names kept in one buffer: one allocation per list instead of
/// one per name (the index makes millions of these on a large codebase). Names never
/// contain a newline, which separates them.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Names {
    buf: Box<str>,
}

impl Names {
    /// Builds from names that may repeat and come in any order.
    pub fn from_unsorted(names: &mut Vec<&[u8]>) -> Self {
        Names::from_unsorted_in(names, None)
    }

    /// [`Names::from_unsorted`] for names that may be slices of `text` (the source they
    /// were read from, checked as UTF-8 once): when every name is, the list is built
    /// without checking its bytes again.
    pub(crate) fn from_unsorted_in(names: &mut Vec<&[u8]>, text: Option<&str>) -> Self {
        let as_str = |name: &[u8]| text.and_then(|text| slice_of(text, name));
        if names.is_empty() {
            return Names::default();
        }
        dedup_interned(names, |n| (n.as_ptr() as usize, n.len()));
        names.sort_unstable();
        names.dedup();
        let len = names.iter().map(|n| n.len() + 1).sum();
        let mut text = String::with_capacity(len);
        for &name in names.iter() {
            match as_str(name) {
                Some(name) => {
                    text.push_str(name);
                    text.push('\n');
                }
                None => {
                    let mut buf = Vec::with_capacity(len);
                    for name in names.iter() {
                        buf.extend_from_slice(name);
                        buf.push(b'\n');
                    }
                    return Names::from_buffer(buf);
                }
            }
        }
        Names {
            buf: text.into_boxed_str(),
        }
    }

    /// Builds from `(left, right)` pairs that may repeat, each name `left` `sep` `right`
    /// (`@payment.charge`). Sorting the pairs sorts the joined names when `sep` sorts
    /// before every byte of a `left` and no `left` holds it, as with a `.` after Ruby
    /// variable names.
    pub fn from_unsorted_pairs(pairs: &mut Vec<(&[u8], &[u8])>, sep: u8) -> Self {
        if pairs.is_empty() {
            return Names::default();
        }
        dedup_interned(pairs, |(l, r)| {
            (l.as_ptr() as usize, l.len(), r.as_ptr() as usize, r.len())
        });
        pairs.sort_unstable();
        pairs.dedup();
        let len = pairs.iter().map(|(l, r)| l.len() + r.len() + 2).sum();
        let mut buf = Vec::with_capacity(len);
        for (left, right) in pairs.iter() {
            buf.extend_from_slice(left);
            buf.push(sep);
            buf.extend_from_slice(right);
            buf.push(b'\n');
        }
        Names::from_buffer(buf)
    }

    /// Names each ended by a newline, checked as UTF-8 once (lossily: a newline ends any
    /// broken sequence, so this is each name decoded on its own).
    fn from_buffer(buf: Vec<u8>) -> Self {
        let buf = String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Names {
            buf: buf.into_boxed_str(),
        }
    }

    /// Builds from borrowed names that may repeat and come in any order (newlines become
    /// spaces).
    pub fn from_unsorted_str(names: &mut Vec<&str>) -> Self {
        names.sort_unstable();
        names.dedup();
        let mut buf = String::with_capacity(names.iter().map(|n| n.len() + 1).sum());
        for name in names.iter() {
            push_name(&mut buf, name);
        }
        Names {
            buf: buf.into_boxed_str(),
        }
    }

    /// Builds from owned strings (sorted and deduplicated here).
    pub fn from_strings<I: IntoIterator<Item = S>, S: AsRef<str>>(names: I) -> Self {
        let mut owned: Vec<String> = names
            .into_iter()
            .map(|s| s.as_ref().replace('\n', " "))
            .collect();
        owned.sort_unstable();
        owned.dedup();
        let mut buf = String::new();
        for name in owned {
            buf.push_str(&name);
            buf.push('\n');
        }
        Names {
            buf: buf.into_boxed_str(),
        }
    }

    /// The names in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        terminated(&self.buf, b'\n')
    }

    /// Whether `name` is in the list.
    pub fn contains(&self, name: &str) -> bool {
        self.iter().any(|n| n == name)
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        count_names(&self.buf)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The names as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }

    /// The buffer: every name followed by a newline (what the facts cache stores).
    pub(crate) fn as_buffer(&self) -> &str {
        &self.buf
    }

    /// A list from a buffer [`Names::as_buffer`] gave (`None` unless it is empty or ends
    /// with a newline).
    pub(crate) fn from_buffer_checked(buf: &str) -> Option<Self> {
        (buf.is_empty() || buf.ends_with('\n')).then(|| Names { buf: buf.into() })
    }
}

/// The parts of `text` each ended by `sep` (an ASCII byte), the last one possibly not:
/// `str::split_terminator` with a byte loop. The parts are names, a few bytes each, where
/// the general searcher's set-up per part cost more than the search (every list of every
/// method is read this way).
pub(crate) fn terminated(text: &str, sep: u8) -> Terminated<'_> {
    debug_assert!(sep.is_ascii());
    Terminated { rest: text, sep }
}

/// The iterator of [`terminated`].
#[derive(Debug, Clone)]
pub(crate) struct Terminated<'a> {
    rest: &'a str,
    sep: u8,
}

impl<'a> Iterator for Terminated<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        let rest = self.rest;
        let end = rest
            .bytes()
            .position(|b| b == self.sep)
            .unwrap_or(rest.len());
        // `sep` is ASCII, so both sides of it are character boundaries.
        self.rest = rest.get(end + 1..).unwrap_or_default();
        rest.get(..end)
    }
}

/// `bytes` as `text`'s own `str`, if they are a slice of it (the same memory, not only
/// the same bytes): no UTF-8 check is needed for a slice of a checked text. A slice of
/// another buffer never lies inside the text's, so `get` finds nothing for it.
pub(crate) fn slice_of<'t>(text: &'t str, bytes: &[u8]) -> Option<&'t str> {
    let offset = (bytes.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    text.get(offset..offset.checked_add(bytes.len())?)
}

/// Drops repeats of the same interned name before names are sorted by their bytes. Names
/// read from one parse come from prism's constant pool, which holds each distinct name
/// once: the same name is the same bytes at the same address, so sorting by address (an
/// integer compare) and dropping equal neighbours leaves fewer names for the byte sort.
/// Names that are equal but stored apart are still merged by that byte sort.
fn dedup_interned<T, K: Ord + Copy>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    if items.len() > 2 {
        items.sort_unstable_by_key(&key);
        items.dedup_by(|a, b| key(a) == key(b));
    }
}

/// Names in a given order, repeats kept, in one buffer (one allocation per list instead of
/// one per name). Names never contain a newline, which separates them (one is replaced by a
/// space).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct NameList {
    buf: Box<str>,
}

impl NameList {
    /// The names in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + Clone + '_ {
        terminated(&self.buf, b'\n')
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        count_names(&self.buf)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The names as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }

    /// The names, each followed by a newline, as [`NameList::from_buffer`] takes them back.
    pub(crate) fn as_buffer(&self) -> &str {
        &self.buf
    }

    /// A list from [`NameList::as_buffer`] (`None` when the last name has no newline).
    pub(crate) fn from_buffer(buf: &str) -> Option<NameList> {
        (buf.is_empty() || buf.ends_with('\n')).then(|| NameList { buf: buf.into() })
    }
}

impl<S: AsRef<str>> FromIterator<S> for NameList {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Self {
        let mut buf = String::new();
        for name in names {
            push_name(&mut buf, name.as_ref());
        }
        NameList {
            buf: buf.into_boxed_str(),
        }
    }
}

/// Appends one name and its newline (a newline inside the name becomes a space).
fn push_name(buf: &mut String, name: &str) {
    if name.contains('\n') {
        buf.push_str(&name.replace('\n', " "));
    } else {
        buf.push_str(name);
    }
    buf.push('\n');
}

/// The number of names in a newline-terminated buffer.
fn count_names(buf: &str) -> usize {
    buf.bytes().filter(|&b| b == b'\n').count()
}

impl std::fmt::Debug for NameList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for NameList {
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for Names {
    fn eq(&self, other: &Vec<S>) -> bool {
        self.iter().eq(other.iter().map(AsRef::as_ref))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_of_finds_only_slices_of_the_text_itself() {
        let text = "déf world";
        let bytes = text.as_bytes();
        assert_eq!(slice_of(text, bytes.get(5..10).unwrap()), Some("world"));
        assert_eq!(slice_of(text, bytes), Some(text));
        // The same bytes elsewhere are not the text's.
        let copy = b"world".to_vec();
        assert_eq!(slice_of(text, &copy), None);
        // A slice that cuts a character is not a `str`.
        assert_eq!(slice_of(text, bytes.get(2..4).unwrap()), None);
        assert_eq!(slice_of(text, bytes.get(10..).unwrap()), Some(""));
    }

    #[test]
    fn names_from_a_text_are_the_names_from_bytes() {
        let text = "save user save @user render user";
        let bytes = text.as_bytes();
        let word = |range: std::ops::Range<usize>| bytes.get(range).unwrap();
        let elsewhere = b"user".to_vec();
        let names = vec![
            word(0..4),
            word(5..9),
            word(10..14),
            word(16..20),
            word(21..27),
            &elsewhere,
        ];
        let plain = Names::from_unsorted(&mut names.clone());
        let in_text = Names::from_unsorted_in(&mut names.clone(), Some(text));
        assert_eq!(in_text, plain);
        assert_eq!(plain.to_vec(), ["render", "save", "user"]);
        // Not UTF-8 as a whole: the bytes path, replacement characters kept per name.
        let broken: Vec<&[u8]> = vec![b"ok", b"b\xffd"];
        let names = Names::from_unsorted_in(&mut broken.clone(), Some(text));
        assert_eq!(names.to_vec(), ["b\u{fffd}d", "ok"]);
    }

    #[test]
    fn terminated_splits_as_split_terminator_does() {
        for text in [
            "", "\n", "\n\n", "a", "a\n", "a\nb", "a\nb\n", "a\n\nb\n", "\na", "ü\nß\n", "a\tb\n",
        ] {
            let ours: Vec<&str> = terminated(text, b'\n').collect();
            let std: Vec<&str> = text.split_terminator('\n').collect();
            assert_eq!(ours, std, "{text:?}");
            let ours: Vec<&str> = terminated(text, b'\t').collect();
            let std: Vec<&str> = text.split_terminator('\t').collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    #[test]
    fn pairs_sort_and_dedup_as_their_joined_names_do() {
        let pairs: Vec<(&[u8], &[u8])> = vec![
            (b"order", b"total"),
            (b"@payment", b"charge"),
            (b"o", b"zz"),
            (b"order", b"id"),
            (b"or", b"a"),
            (b"order", b"total"),
            (b"@pay", b"x"),
        ];
        let mut joined: Vec<Vec<u8>> = pairs.iter().map(|(l, r)| [*l, b".", *r].concat()).collect();
        let mut slices: Vec<&[u8]> = joined.iter_mut().map(|j| j.as_slice()).collect();
        let expected = Names::from_unsorted(&mut slices);
        let got = Names::from_unsorted_pairs(&mut pairs.clone(), b'.');
        assert_eq!(got, expected);
        assert_eq!(
            got.to_vec(),
            vec![
                "@pay.x",
                "@payment.charge",
                "o.zz",
                "or.a",
                "order.id",
                "order.total"
            ]
        );
    }

    #[test]
    fn a_name_list_keeps_order_and_repeats_and_serializes_as_a_list() {
        let list: NameList = ["sync", "audit", "sync", "bad\nname"].into_iter().collect();
        assert_eq!(list.to_vec(), vec!["sync", "audit", "sync", "bad name"]);
        assert_eq!(list.len(), 4);
        assert!(!list.is_empty());
        assert_eq!(
            serde_json::to_string(&list).ok().as_deref(),
            Some(r#"["sync","audit","sync","bad name"]"#)
        );
        let empty: NameList = std::iter::empty::<&str>().collect();
        assert!(empty.is_empty());
        assert_eq!(serde_json::to_string(&empty).ok().as_deref(), Some("[]"));
    }
}
