//! One factory file's prism tree → [`FactoryFile`]: FactoryBot's DSL (`FactoryBot.define`,
//! `FactoryBot.modify`, the old `FactoryGirl`) and Fabrication's (`Fabricator(:name, ...)`),
//! read the way the libraries run it, without running Ruby.
//!
//! FactoryBot, by `DefinitionProxy`: `factory` (nested factories take the enclosing one as
//! parent unless `parent:` says another), `class:` (a constant, a string or a symbol),
//! `parent:`, `aliases:`, `traits:` (base traits), `trait`, `transient` (and the old
//! `ignore`), `sequence`, `association`, an attribute with a hash naming `factory:` (an
//! association), `traits_for_enum`, `add_attribute`, attributes with blocks (a literal body
//! is kept as the attribute's default), and bare names (an association, a sequence or a
//! trait the factory includes, decided once every file is read). Global `trait`s and
//! `sequence`s of a `define` block are listed apart. A literal list's `each` whose block
//! defines factories is unrolled (`%i[a b].each do |kind| factory :"#{kind}_user"`).
//!
//! Fabrication: `Fabricator(:name, from: :parent_or_class, class_name: "X", aliases: [..])`
//! with its attributes, `sequence`, `transient`, and associations (`author(fabricator:
//! :user)`, `author`).
//!
//! Never fails: a syntax error, or code only a running app could evaluate (a name built by
//! a call), becomes a diagnostic with its line, and the rest is read.

use ruby_prism::Node;

use crate::index::prism::{bytes_to_string, const_path_text};

use super::{AttrKind, Attribute, EnumTraits, FactoryDef, FactoryFile, Library, Literal, TraitDef};

/// How deep the walk follows nesting (factory files nest a handful of levels).
const MAX_DEPTH: usize = 64;

/// Reads one factory file (`path` relative to the project root).
pub fn parse(path: &str, source: &[u8]) -> FactoryFile {
    let result = ruby_prism::parse(source);
    let mut file = FactoryFile {
        path: path.to_string(),
        disables_enum_traits: contains(source, super::ENUM_TRAITS_OFF.as_bytes()),
        ..FactoryFile::default()
    };
    for e in result.errors() {
        file.diagnostics.push((
            line_of(e.location().start_line()),
            format!("syntax error: {}", bytes_to_string(e.message())),
        ));
    }
    let mut reader = Reader {
        file: &mut file,
        depth: 0,
        bindings: Vec::new(),
    };
    if let Some(program) = result.node().as_program_node() {
        reader.top(&program.statements().as_node());
    }
    file
}

fn line_of(line: i32) -> u32 {
    u32::try_from(line).unwrap_or(1).max(1)
}

/// Where a definition block is read: which factory (or trait) receives what it declares.
#[derive(Clone, Copy)]
enum Scope {
    /// A `define` block: `factory`, global `trait` and `sequence`.
    Define { modify: bool },
    /// A factory's body (index in `file.factories`).
    Factory(usize),
    /// A trait of a factory (factory index, trait index).
    Trait(usize, usize),
    /// A global trait (index in `file.traits`).
    GlobalTrait(usize),
    /// A fabricator's body (index in `file.factories`).
    Fabricator(usize),
}

struct Reader<'f> {
    file: &'f mut FactoryFile,
    depth: usize,
    /// Block variables of unrolled `each` loops, innermost last: name → value.
    bindings: Vec<(String, String)>,
}

impl Reader<'_> {
    fn enter(&mut self, node: &Node<'_>) -> bool {
        if self.depth >= MAX_DEPTH {
            self.diag(node, "nesting too deep: the rest of this block is not read");
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn diag(&mut self, node: &Node<'_>, message: impl Into<String>) {
        self.file
            .diagnostics
            .push((line_of(node.location().start_line()), message.into()));
    }

    /// The file's top level: `define`/`modify` blocks and fabricators, also inside
    /// modules, conditionals and `begin` bodies.
    fn top(&mut self, node: &Node<'_>) {
        if !self.enter(node) {
            return;
        }
        if let Some(stmts) = node.as_statements_node() {
            for s in &stmts.body() {
                self.top(&s);
            }
        } else if let Some(call) = node.as_call_node() {
            let name = call.name().as_slice();
            let receiver = call.receiver().map(|r| const_path_text(&r).0);
            let dsl = matches!(receiver.as_deref(), Some("FactoryBot" | "FactoryGirl"));
            if dsl && (name == b"define" || name == b"modify") {
                if let Some(body) = block_body(&call) {
                    if self.file.library.is_none() {
                        self.file.library = Some(Library::FactoryBot);
                    }
                    self.body(
                        &body,
                        Scope::Define {
                            modify: name == b"modify",
                        },
                    );
                }
            } else if call.receiver().is_none() && name == b"Fabricator" {
                self.fabricator(&call, None);
            } else if name == b"each" {
                self.unrolled(&call, &|r: &mut Self, b: &Node<'_>| r.top(b));
            }
        } else if let Some(m) = node.as_module_node() {
            if let Some(b) = m.body() {
                self.top(&b);
            }
        } else if let Some(n) = node.as_if_node() {
            if let Some(s) = n.statements() {
                self.top(&s.as_node());
            }
            if let Some(s) = n.subsequent() {
                self.top(&s);
            }
        } else if let Some(n) = node.as_else_node() {
            if let Some(s) = n.statements() {
                self.top(&s.as_node());
            }
        } else if let Some(n) = node.as_unless_node() {
            if let Some(s) = n.statements() {
                self.top(&s.as_node());
            }
        } else if let Some(n) = node.as_begin_node() {
            if let Some(s) = n.statements() {
                self.top(&s.as_node());
            }
        }
        self.leave();
    }

    /// `LIST.each do |x| ... end` over a literal list of symbols or strings: the block is
    /// read once per element with `x` bound. Another receiver is a diagnostic when the
    /// block defines factories or traits (what it makes is known only when it runs).
    fn unrolled(&mut self, call: &ruby_prism::CallNode<'_>, read: &dyn Fn(&mut Self, &Node<'_>)) {
        let Some(block) = call.block().and_then(|b| b.as_block_node()) else {
            return;
        };
        let Some(body) = block.body() else { return };
        let param = block
            .parameters()
            .and_then(|p| p.as_block_parameters_node())
            .and_then(|p| p.parameters())
            .and_then(|p| p.requireds().iter().next())
            .and_then(|r| {
                r.as_required_parameter_node()
                    .map(|r| bytes_to_string(r.name().as_slice()))
            });
        let values = call.receiver().and_then(|r| self.literal_list(&r));
        match (param, values) {
            (Some(param), Some(values)) => {
                for v in values {
                    self.bindings.push((param.clone(), v));
                    read(self, &body);
                    self.bindings.pop();
                }
            }
            _ => {
                if defines_something(&body) {
                    self.diag(
                        &call.as_node(),
                        "factories or traits made in a loop over a list only a running app knows: not indexed",
                    );
                }
            }
        }
    }

    /// A literal array of symbols or strings (`%i[a b]`, `%w[a b]`, `[:a, "b"]`).
    fn literal_list(&self, node: &Node<'_>) -> Option<Vec<String>> {
        let array = node.as_array_node()?;
        array.elements().iter().map(|e| self.name_of(&e)).collect()
    }

    /// A definition body, statement by statement.
    fn body(&mut self, node: &Node<'_>, scope: Scope) {
        if !self.enter(node) {
            return;
        }
        if let Some(stmts) = node.as_statements_node() {
            for s in &stmts.body() {
                self.statement(&s, scope);
            }
        } else {
            self.statement(node, scope);
        }
        self.leave();
    }

    fn statement(&mut self, node: &Node<'_>, scope: Scope) {
        let Some(call) = node.as_call_node() else {
            // `if`/`unless` around definitions: both branches are read (what Ruby would
            // define depends on a condition only a run knows; both are there to be used).
            if let Some(n) = node.as_if_node() {
                if let Some(s) = n.statements() {
                    self.body(&s.as_node(), scope);
                }
                if let Some(s) = n.subsequent() {
                    self.body(&s, scope);
                }
            } else if let Some(n) = node.as_else_node() {
                if let Some(s) = n.statements() {
                    self.body(&s.as_node(), scope);
                }
            } else if let Some(n) = node.as_unless_node() {
                if let Some(s) = n.statements() {
                    self.body(&s.as_node(), scope);
                }
            }
            return;
        };
        // `self.x`, or a call on another object: not part of the DSL.
        if call.receiver().is_some_and(|r| r.as_self_node().is_none()) {
            if call.name().as_slice() == b"each" {
                self.unrolled(&call, &|r: &mut Self, b: &Node<'_>| r.body(b, scope));
            }
            return;
        }
        let name = bytes_to_string(call.name().as_slice());
        let line = line_of(node.location().start_line());
        let args = arguments(&call);
        match (scope, name.as_str()) {
            (Scope::Fabricator(i), _) => self.fabricator_statement(i, &call, &name, &args, line),
            (_, "factory") => self.factory(&call, &args, scope, line),
            (Scope::Define { .. }, "trait") => {
                let Some(trait_name) = args.first().and_then(|a| self.name_of(a)) else {
                    self.diag(node, "a trait whose name is computed: not indexed");
                    return;
                };
                self.file.traits.push(TraitDef {
                    name: trait_name,
                    line,
                    ..TraitDef::default()
                });
                let index = self.file.traits.len() - 1;
                if let Some(b) = block_body(&call) {
                    self.body(&b, Scope::GlobalTrait(index));
                }
            }
            (Scope::Factory(f), "trait") => {
                let Some(trait_name) = args.first().and_then(|a| self.name_of(a)) else {
                    self.diag(node, "a trait whose name is computed: not indexed");
                    return;
                };
                let Some(factory) = self.file.factories.get_mut(f) else {
                    return;
                };
                factory.traits.push(TraitDef {
                    name: trait_name,
                    line,
                    ..TraitDef::default()
                });
                let t = factory.traits.len() - 1;
                if let Some(b) = block_body(&call) {
                    self.body(&b, Scope::Trait(f, t));
                }
            }
            (Scope::Define { .. }, "sequence") => {
                if let Some(n) = args.first().and_then(|a| self.name_of(a)) {
                    self.file.sequences.push((n, line));
                }
            }
            (Scope::Define { .. }, _) => {}
            (_, "transient" | "ignore") => {
                if let Some(b) = block_body(&call) {
                    let before = self.attributes(scope).map_or(0, |a| a.len());
                    self.body(&b, scope);
                    if let Some(attrs) = self.attributes(scope) {
                        for a in attrs.iter_mut().skip(before) {
                            a.transient = true;
                        }
                    }
                }
            }
            (_, "traits_for_enum") => {
                let Some(attribute) = args.first().and_then(|a| self.name_of(a)) else {
                    return;
                };
                let values = match args.get(1) {
                    None => Some(None),
                    Some(v) => self.enum_values(v).map(Some),
                };
                let Some(values) = values else {
                    self.diag(node, format!("traits_for_enum :{attribute} with values only a running app knows: its traits are not indexed"));
                    return;
                };
                if let Some(list) = self.enum_list(scope) {
                    list.push(EnumTraits {
                        attribute,
                        values,
                        line,
                    });
                }
            }
            (
                _,
                "after" | "before" | "callback" | "to_create" | "skip_create" | "initialize_with"
                | "factories",
            ) => {}
            (_, "sequence") => {
                if let Some(n) = args.first().and_then(|a| self.name_of(a)) {
                    self.push_attr(scope, Attribute::new(n, AttrKind::Sequence, line));
                }
            }
            (_, "association") => {
                let Some(n) = args.first().and_then(|a| self.name_of(a)) else {
                    return;
                };
                let factory = self.association_factory(&args).unwrap_or_else(|| n.clone());
                self.push_attr(
                    scope,
                    Attribute::new(n, AttrKind::Association { factory }, line),
                );
            }
            (_, "add_attribute") => {
                if let Some(n) = args.first().and_then(|a| self.name_of(a)) {
                    let literal = block_literal(&call);
                    self.push_attr(
                        scope,
                        Attribute {
                            literal,
                            ..Attribute::new(n, AttrKind::Dynamic, line)
                        },
                    );
                }
            }
            _ => {
                // An attribute: `name { value }`, `author factory: :user`, or a bare name.
                let block = call.block();
                let kind = if let Some(factory) = self.association_factory(&args) {
                    AttrKind::Association { factory }
                } else if block.is_some() {
                    AttrKind::Dynamic
                } else if args.is_empty() {
                    AttrKind::Implicit
                } else {
                    // A static value (`name "x"`): FactoryBot 5 removed them; it raises.
                    self.diag(
                        node,
                        format!("`{name}` with a static value: FactoryBot 5 and later raise on it"),
                    );
                    return;
                };
                let literal = block_literal(&call);
                self.push_attr(
                    scope,
                    Attribute {
                        literal,
                        ..Attribute::new(name, kind, line)
                    },
                );
            }
        }
    }

    /// `factory :name, class: ..., parent: ..., aliases: [...], traits: [...] do ... end`.
    fn factory(
        &mut self,
        call: &ruby_prism::CallNode<'_>,
        args: &[Node<'_>],
        scope: Scope,
        line: u32,
    ) {
        let Some(name) = args.first().and_then(|a| self.name_of(a)) else {
            self.diag(
                &call.as_node(),
                "a factory whose name is computed: not indexed",
            );
            return;
        };
        let enclosing = match scope {
            Scope::Factory(i) => self.file.factories.get(i).map(|f| f.name.clone()),
            Scope::Define { .. } => None,
            // `factory` inside a trait or a fabricator is not FactoryBot's DSL.
            _ => return,
        };
        let modify = matches!(scope, Scope::Define { modify: true });
        let mut def = FactoryDef {
            name,
            line,
            parent: enclosing.clone(),
            nested: enclosing.is_some(),
            modify,
            ..FactoryDef::default()
        };
        for (key, value) in options(args) {
            match key.as_str() {
                "class" => {
                    def.class = self.class_of(&value);
                    def.class_unknown = def.class.is_none();
                }
                "parent" => def.parent = self.name_of(&value),
                "aliases" => def.aliases = self.names_of(&value),
                "traits" => def.base_traits = self.names_of(&value),
                _ => {}
            }
        }
        self.file.factories.push(def);
        let index = self.file.factories.len() - 1;
        if let Some(b) = block_body(call) {
            self.body(&b, Scope::Factory(index));
        }
    }

    /// `Fabricator(:name, from: ..., class_name: ..., aliases: ...) do ... end`.
    fn fabricator(&mut self, call: &ruby_prism::CallNode<'_>, _enclosing: Option<usize>) {
        let args = arguments(call);
        let line = line_of(call.location().start_line());
        let Some(name) = args.first().and_then(|a| self.name_of(a)) else {
            self.diag(
                &call.as_node(),
                "a fabricator whose name is computed: not indexed",
            );
            return;
        };
        if self.file.library.is_none() {
            self.file.library = Some(Library::Fabrication);
        }
        let mut def = FactoryDef {
            name,
            line,
            ..FactoryDef::default()
        };
        // `Fabricator(:admin, :user)`: the second argument is `from`.
        if let Some(from) = args.get(1).filter(|a| a.as_keyword_hash_node().is_none()) {
            def.from = self.class_of(from);
        }
        for (key, value) in options(&args) {
            match key.as_str() {
                "from" => def.from = self.class_of(&value),
                "class_name" => def.class = self.class_of(&value),
                "aliases" => def.aliases = self.names_of(&value),
                _ => {}
            }
        }
        self.file.factories.push(def);
        let index = self.file.factories.len() - 1;
        if let Some(b) = block_body(call) {
            self.body(&b, Scope::Fabricator(index));
        }
    }

    fn fabricator_statement(
        &mut self,
        index: usize,
        call: &ruby_prism::CallNode<'_>,
        name: &str,
        args: &[Node<'_>],
        line: u32,
    ) {
        let scope = Scope::Fabricator(index);
        match name {
            "sequence" => {
                if let Some(n) = args.first().and_then(|a| self.name_of(a)) {
                    self.push_attr(scope, Attribute::new(n, AttrKind::Sequence, line));
                }
            }
            "transient" => {
                for a in args {
                    if let Some(n) = self.name_of(a) {
                        self.push_attr(
                            scope,
                            Attribute {
                                transient: true,
                                ..Attribute::new(n, AttrKind::Dynamic, line)
                            },
                        );
                    }
                }
            }
            "after_build" | "after_create" | "after_save" | "before_validation"
            | "after_validation" | "before_save" | "before_create" | "on_init"
            | "initialize_with" | "after_initialize" => {}
            _ => {
                let fabricator = options(args)
                    .into_iter()
                    .find(|(k, _)| k == "fabricator")
                    .and_then(|(_, v)| self.name_of(&v));
                let kind = match fabricator {
                    Some(factory) => AttrKind::Association { factory },
                    None if args.is_empty() && call.block().is_none() => AttrKind::Implicit,
                    None => AttrKind::Dynamic,
                };
                let literal =
                    block_literal(call).or_else(|| args.first().and_then(|a| literal_of(a)));
                self.push_attr(
                    scope,
                    Attribute {
                        literal,
                        ..Attribute::new(name.to_string(), kind, line)
                    },
                );
            }
        }
    }

    /// The attributes list `scope` declares into.
    fn attributes(&mut self, scope: Scope) -> Option<&mut Vec<Attribute>> {
        match scope {
            Scope::Factory(i) | Scope::Fabricator(i) => {
                self.file.factories.get_mut(i).map(|f| &mut f.attributes)
            }
            Scope::Trait(f, t) => self
                .file
                .factories
                .get_mut(f)
                .and_then(|f| f.traits.get_mut(t))
                .map(|t| &mut t.attributes),
            Scope::GlobalTrait(t) => self.file.traits.get_mut(t).map(|t| &mut t.attributes),
            Scope::Define { .. } => None,
        }
    }

    fn enum_list(&mut self, scope: Scope) -> Option<&mut Vec<EnumTraits>> {
        match scope {
            Scope::Factory(i) => self.file.factories.get_mut(i).map(|f| &mut f.enum_traits),
            // In a trait, the enum's traits are defined on the factory using it; read as
            // the factory's (the common case is the factory body).
            Scope::Trait(f, _) => self.file.factories.get_mut(f).map(|f| &mut f.enum_traits),
            _ => None,
        }
    }

    fn push_attr(&mut self, scope: Scope, attr: Attribute) {
        if let Some(list) = self.attributes(scope) {
            list.push(attr);
        }
    }

    /// `factory: :user` or `factory: [:user, :admin]` among the arguments.
    fn association_factory(&self, args: &[Node<'_>]) -> Option<String> {
        let (_, value) = options(args).into_iter().find(|(k, _)| k == "factory")?;
        if let Some(array) = value.as_array_node() {
            return array
                .elements()
                .iter()
                .next()
                .and_then(|e| self.name_of(&e));
        }
        self.name_of(&value)
    }

    /// A symbol or string literal, or one interpolating a bound loop variable.
    fn name_of(&self, node: &Node<'_>) -> Option<String> {
        if let Some(s) = node.as_symbol_node() {
            return Some(bytes_to_string(s.unescaped()));
        }
        if let Some(s) = node.as_string_node() {
            return Some(bytes_to_string(s.unescaped()));
        }
        let parts = if let Some(s) = node.as_interpolated_symbol_node() {
            s.parts()
        } else if let Some(s) = node.as_interpolated_string_node() {
            s.parts()
        } else if let Some(v) = node.as_local_variable_read_node() {
            let name = bytes_to_string(v.name().as_slice());
            return self.bound(&name);
        } else {
            return None;
        };
        let mut out = String::new();
        for part in &parts {
            if let Some(s) = part.as_string_node() {
                out.push_str(&bytes_to_string(s.unescaped()));
            } else if let Some(e) = part.as_embedded_statements_node() {
                let body = e.statements()?.body();
                let only = body.iter().next()?;
                let v = only.as_local_variable_read_node()?;
                out.push_str(&self.bound(&bytes_to_string(v.name().as_slice()))?);
            } else {
                return None;
            }
        }
        Some(out)
    }

    fn bound(&self, name: &str) -> Option<String> {
        self.bindings
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    /// One name or a literal list of them.
    fn names_of(&self, node: &Node<'_>) -> Vec<String> {
        match node.as_array_node() {
            Some(a) => a
                .elements()
                .iter()
                .filter_map(|e| self.name_of(&e))
                .collect(),
            None => self.name_of(node).into_iter().collect(),
        }
    }

    /// `class:`/`from:`/`class_name:` as written: a constant path, a string or a symbol
    /// (kept as written; the index camelizes symbols), or `None` for an expression (a
    /// diagnostic says so).
    fn class_of(&mut self, node: &Node<'_>) -> Option<String> {
        if node.as_constant_read_node().is_some() || node.as_constant_path_node().is_some() {
            let (text, _) = const_path_text(node);
            return (!text.is_empty()).then_some(text);
        }
        if let Some(s) = node.as_symbol_node() {
            return Some(format!(":{}", bytes_to_string(s.unescaped())));
        }
        if let Some(name) = self.name_of(node) {
            return Some(name);
        }
        self.diag(
            node,
            "a class computed by an expression: the factory's class is not known",
        );
        None
    }

    /// `traits_for_enum`'s values: a literal array of names or a hash's keys.
    fn enum_values(&self, node: &Node<'_>) -> Option<Vec<String>> {
        if let Some(a) = node.as_array_node() {
            return a.elements().iter().map(|e| self.name_of(&e)).collect();
        }
        let elements = if let Some(h) = node.as_hash_node() {
            h.elements()
        } else if let Some(h) = node.as_keyword_hash_node() {
            h.elements()
        } else {
            return None;
        };
        elements
            .iter()
            .map(|e| e.as_assoc_node().and_then(|a| self.name_of(&a.key())))
            .collect()
    }
}

/// The body of a call's `do ... end` or `{ }` block.
fn block_body<'a>(call: &ruby_prism::CallNode<'a>) -> Option<Node<'a>> {
    call.block()?.as_block_node()?.body()
}

fn arguments<'a>(call: &ruby_prism::CallNode<'a>) -> Vec<Node<'a>> {
    call.arguments()
        .map(|a| a.arguments().iter().collect())
        .unwrap_or_default()
}

/// The `key: value` pairs of the last argument, when it is a hash.
fn options<'a>(args: &[Node<'a>]) -> Vec<(String, Node<'a>)> {
    args.last()
        .map(|last| hash_pairs(last, false))
        .unwrap_or_default()
}

/// The pairs of a hash (`{...}` or keyword arguments) whose keys are symbols, or strings too
/// when `strings` (`enum status: {...}` and `enum "status" => {...}` both name a column).
pub(super) fn hash_pairs<'a>(node: &Node<'a>, strings: bool) -> Vec<(String, Node<'a>)> {
    let elements = if let Some(h) = node.as_keyword_hash_node() {
        h.elements()
    } else if let Some(h) = node.as_hash_node() {
        h.elements()
    } else {
        return Vec::new();
    };
    elements
        .iter()
        .filter_map(|e| {
            let assoc = e.as_assoc_node()?;
            let key = assoc.key();
            let name = match (key.as_symbol_node(), key.as_string_node()) {
                (Some(s), _) => bytes_to_string(s.unescaped()),
                (None, Some(s)) if strings => bytes_to_string(s.unescaped()),
                _ => return None,
            };
            Some((name, assoc.value()))
        })
        .collect()
}

/// The literal a block returns when its body is one literal (`admin { true }`).
fn block_literal(call: &ruby_prism::CallNode<'_>) -> Option<Literal> {
    let body = block_body(call)?;
    let stmts = body.as_statements_node()?;
    let list = stmts.body();
    let mut it = list.iter();
    let only = it.next()?;
    if it.next().is_some() {
        return None;
    }
    literal_of(&only)
}

fn literal_of(node: &Node<'_>) -> Option<Literal> {
    if node.as_true_node().is_some() {
        Some(Literal::Bool(true))
    } else if node.as_false_node().is_some() {
        Some(Literal::Bool(false))
    } else if node.as_nil_node().is_some() {
        Some(Literal::Nil)
    } else if let Some(s) = node.as_symbol_node() {
        Some(Literal::Sym(bytes_to_string(s.unescaped())))
    } else if let Some(s) = node.as_string_node() {
        Some(Literal::Str(bytes_to_string(s.unescaped())))
    } else if let Some(i) = node.as_integer_node() {
        let text = bytes_to_string(i.location().as_slice());
        text.replace('_', "").parse().ok().map(Literal::Int)
    } else {
        None
    }
}

/// Whether a loop body calls `factory`, `trait` or `Fabricator` anywhere (bounded).
fn defines_something(node: &Node<'_>) -> bool {
    fn walk(node: &Node<'_>, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        if let Some(call) = node.as_call_node() {
            if call.receiver().is_none()
                && matches!(
                    call.name().as_slice(),
                    b"factory" | b"trait" | b"Fabricator"
                )
            {
                return true;
            }
            if let Some(b) = block_body(&call) {
                return walk(&b, depth + 1);
            }
            return false;
        }
        if let Some(s) = node.as_statements_node() {
            return s.body().iter().any(|n| walk(&n, depth + 1));
        }
        false
    }
    walk(node, 0)
}

/// Whether `needle` occurs in `haystack`.
pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}
