//! Prism syntax tree → [`FileFacts`]. The tree is built, read once and dropped inside
//! [`extract`]; only owned facts leave this file.
//!
//! Parsing never fails: a file prism cannot fully parse still yields every class and method
//! prism recovered, plus its diagnostics.

use std::collections::BTreeSet;

use ruby_prism::{Node, Visit};

use super::dispatch::dispatch;
use super::facts::{
    ClassFacts, ConstRef, Diagnostic, FileFacts, MethodFacts, MethodKind, NamespaceKind, Param,
    ParamKind, ReceiverCall, ReceiverKind, Visibility,
};
use super::loc;

/// How deep the extractor follows the syntax tree. Real code stays far below this; prism
/// itself stops at a similar nesting depth, but long operator or call chains (`a + a + ...`)
/// build left-deep trees that are not limited by prism.
pub const MAX_TREE_DEPTH: usize = 1_500;

/// How many parse diagnostics are kept per file (the total is counted).
pub const MAX_DIAGNOSTICS: usize = 20;

/// Parses `source` and extracts its facts. `path` is only recorded, never opened.
pub fn extract(path: &str, source: &[u8]) -> FileFacts {
    let mut facts = FileFacts {
        path: path.to_string(),
        utf8: std::str::from_utf8(source).is_ok(),
        lines: line_count(source),
        ..FileFacts::default()
    };
    if source.contains(&0) {
        facts.skipped = Some("binary file (contains NUL bytes); not parsed".to_string());
        return facts;
    }
    if u32::try_from(source.len()).is_err() {
        facts.skipped = Some("file is larger than 4 GiB; not parsed".to_string());
        return facts;
    }

    let result = ruby_prism::parse(source);

    let errors = result.errors();
    let mut count = 0usize;
    for error in errors {
        count += 1;
        if facts.diagnostics.len() < MAX_DIAGNOSTICS {
            facts.diagnostics.push(Diagnostic {
                line: line_of(error.location().start_line()),
                message: String::from_utf8_lossy(error.message()).into_owned(),
            });
        }
    }
    facts.diagnostic_count = count;

    let comments: Vec<(usize, usize)> = result
        .comments()
        .map(|c| {
            let l = c.location();
            (l.start() as usize, l.end() as usize)
        })
        .collect();
    let data_start = result.data_loc().map(|l| l.start() as usize);
    facts.loc = loc::count_loc(source, &comments, data_start);

    let mut ex = Extractor {
        source,
        classes: Vec::new(),
        methods: Vec::new(),
        depth: 0,
        truncated: false,
    };
    let root = result.node();
    let mut ctx = Ctx::top_level();
    if let Some(program) = root.as_program_node() {
        ex.statements(&program.statements().as_node(), &mut ctx);
    }
    if ex.truncated {
        facts.diagnostics.push(Diagnostic {
            line: 1,
            message: format!(
                "syntax nested deeper than {MAX_TREE_DEPTH} levels; code below that depth was not indexed"
            ),
        });
        facts.diagnostic_count += 1;
    }
    facts.classes = ex.classes;
    facts.methods = ex.methods;
    facts
}

fn line_count(source: &[u8]) -> u32 {
    if source.is_empty() {
        return 0;
    }
    let newlines = source.iter().filter(|&&b| b == b'\n').count();
    let last_unterminated = usize::from(source.last() != Some(&b'\n'));
    u32::try_from(newlines + last_unterminated).unwrap_or(u32::MAX)
}

fn line_of(line: i32) -> u32 {
    u32::try_from(line).unwrap_or(1).max(1)
}

/// The visibility mode a bare `private`/`protected`/`public`/`module_function` sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Public,
    Protected,
    Private,
    ModuleFunction,
}

/// The definition context: which namespace owns new defs and how they are made.
#[derive(Debug, Clone)]
struct Ctx {
    owner: String,
    nesting: Vec<String>,
    scope: Option<usize>,
    singleton: bool,
    mode: Mode,
}

impl Ctx {
    fn top_level() -> Self {
        Ctx {
            owner: "Object".to_string(),
            nesting: Vec::new(),
            scope: None,
            // Top-level defs are private methods of Object.
            singleton: false,
            mode: Mode::Private,
        }
    }

    /// A fresh frame for a block body inside this namespace (`included do`, `class_methods do`).
    fn block_frame(&self, singleton: bool) -> Self {
        Ctx {
            singleton,
            mode: Mode::Public,
            ..self.clone()
        }
    }

    fn qualify(&self, written: &str) -> String {
        if self.nesting.is_empty() {
            written.to_string()
        } else {
            format!("{}::{}", self.owner, written)
        }
    }
}

struct Extractor<'s> {
    source: &'s [u8],
    classes: Vec<ClassFacts>,
    methods: Vec<MethodFacts>,
    depth: usize,
    truncated: bool,
}

impl Extractor<'_> {
    fn enter(&mut self) -> bool {
        if self.depth >= MAX_TREE_DEPTH {
            self.truncated = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Walks a body in a definition context: a statements node or a single statement.
    fn statements(&mut self, node: &Node<'_>, ctx: &mut Ctx) {
        if !self.enter() {
            return;
        }
        if let Some(stmts) = node.as_statements_node() {
            for stmt in &stmts.body() {
                self.statement(&stmt, ctx);
            }
        } else {
            self.statement(node, ctx);
        }
        self.leave();
    }

    fn statement(&mut self, node: &Node<'_>, ctx: &mut Ctx) {
        if !self.enter() {
            return;
        }
        match node {
            Node::ClassNode { .. } => {
                if let Some(class) = node.as_class_node() {
                    let superclass = class.superclass().map(|s| self.text(&s.location()));
                    let (written, absolute) = const_path_text(&class.constant_path());
                    let range = self.range(&class.location());
                    self.namespace(
                        ctx,
                        &written,
                        absolute,
                        NamespaceKind::Class,
                        superclass,
                        range,
                        class.body(),
                    );
                }
            }
            Node::ModuleNode { .. } => {
                if let Some(module) = node.as_module_node() {
                    let (written, absolute) = const_path_text(&module.constant_path());
                    let range = self.range(&module.location());
                    self.namespace(
                        ctx,
                        &written,
                        absolute,
                        NamespaceKind::Module,
                        None,
                        range,
                        module.body(),
                    );
                }
            }
            Node::SingletonClassNode { .. } => {
                if let Some(sclass) = node.as_singleton_class_node() {
                    let mut inner = ctx.block_frame(true);
                    let expr = sclass.expression();
                    if expr.as_self_node().is_none() {
                        let (written, _) = const_path_text(&expr);
                        if !written.is_empty() {
                            inner.owner = self.resolve_written_owner(ctx, &written);
                        }
                    }
                    if let Some(body) = sclass.body() {
                        self.body(&body, &mut inner);
                    }
                }
            }
            Node::DefNode { .. } => {
                if let Some(def) = node.as_def_node() {
                    self.def(&def, ctx, None);
                }
            }
            Node::CallNode { .. } => {
                if let Some(call) = node.as_call_node() {
                    self.call(&call, ctx);
                }
            }
            Node::ConstantWriteNode { .. } => {
                if let Some(write) = node.as_constant_write_node() {
                    let name = bytes_to_string(write.name().as_slice());
                    let range = self.range(&write.location());
                    self.constant_assignment(ctx, &name, false, &write.value(), range);
                }
            }
            Node::ConstantPathWriteNode { .. } => {
                if let Some(write) = node.as_constant_path_write_node() {
                    let (written, absolute) = const_path_text(&write.target().as_node());
                    let range = self.range(&write.location());
                    if !written.is_empty() {
                        self.constant_assignment(ctx, &written, absolute, &write.value(), range);
                    }
                }
            }
            Node::IfNode { .. } => {
                if let Some(n) = node.as_if_node() {
                    if let Some(s) = n.statements() {
                        self.statements(&s.as_node(), ctx);
                    }
                    if let Some(sub) = n.subsequent() {
                        self.statement(&sub, ctx);
                    }
                }
            }
            Node::UnlessNode { .. } => {
                if let Some(n) = node.as_unless_node() {
                    if let Some(s) = n.statements() {
                        self.statements(&s.as_node(), ctx);
                    }
                    if let Some(e) = n.else_clause() {
                        self.statement(&e.as_node(), ctx);
                    }
                }
            }
            Node::ElseNode { .. } => {
                if let Some(n) = node.as_else_node() {
                    if let Some(s) = n.statements() {
                        self.statements(&s.as_node(), ctx);
                    }
                }
            }
            Node::BeginNode { .. } => self.body(node, ctx),
            Node::ParenthesesNode { .. } => {
                if let Some(n) = node.as_parentheses_node() {
                    if let Some(b) = n.body() {
                        self.statements(&b, ctx);
                    }
                }
            }
            Node::StatementsNode { .. } => self.statements(node, ctx),
            _ => {}
        }
        self.leave();
    }

    /// A class, module or `class << self` body: statements, or a begin with rescue clauses.
    fn body(&mut self, node: &Node<'_>, ctx: &mut Ctx) {
        if let Some(begin) = node.as_begin_node() {
            if let Some(s) = begin.statements() {
                self.statements(&s.as_node(), ctx);
            }
            let mut rescue = begin.rescue_clause();
            while let Some(r) = rescue {
                if let Some(s) = r.statements() {
                    self.statements(&s.as_node(), ctx);
                }
                rescue = r.subsequent();
            }
            if let Some(e) = begin.else_clause() {
                if let Some(s) = e.statements() {
                    self.statements(&s.as_node(), ctx);
                }
            }
            if let Some(e) = begin.ensure_clause() {
                if let Some(s) = e.statements() {
                    self.statements(&s.as_node(), ctx);
                }
            }
        } else {
            self.statements(node, ctx);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn namespace(
        &mut self,
        ctx: &Ctx,
        written: &str,
        absolute: bool,
        kind: NamespaceKind,
        superclass: Option<String>,
        line_range: (u32, u32),
        body: Option<Node<'_>>,
    ) {
        if written.is_empty() {
            // `class foo::Bar` or an error-recovery name: nothing we can name.
            return;
        }
        let name = if absolute {
            written.to_string()
        } else {
            ctx.qualify(written)
        };
        let mut nesting = Vec::with_capacity(ctx.nesting.len() + 1);
        nesting.push(name.clone());
        nesting.extend(ctx.nesting.iter().cloned());
        self.classes.push(ClassFacts {
            name: name.clone(),
            kind,
            superclass,
            line_range,
            nesting: nesting.clone(),
            concern: false,
        });
        let mut inner = Ctx {
            owner: name,
            nesting,
            scope: Some(self.classes.len() - 1),
            singleton: false,
            mode: Mode::Public,
        };
        if let Some(body) = body {
            self.body(&body, &mut inner);
        }
    }

    /// `Foo = Struct.new(...) do ... end`, `Foo = Class.new(Base)`, `Foo = Module.new`,
    /// `Foo = Data.define(...)`: a namespace like any other.
    fn constant_assignment(
        &mut self,
        ctx: &Ctx,
        written: &str,
        absolute: bool,
        value: &Node<'_>,
        range: (u32, u32),
    ) {
        let Some(call) = value.as_call_node() else {
            return;
        };
        let Some(receiver) = call.receiver() else {
            return;
        };
        let (recv, _) = const_path_text(&receiver);
        let method = call.name();
        let method = method.as_slice();
        let (kind, superclass) = match (recv.as_str(), method) {
            ("Struct", b"new") => (NamespaceKind::Class, Some("Struct".to_string())),
            ("Data", b"define") => (NamespaceKind::Class, Some("Data".to_string())),
            ("Class", b"new") => {
                let sup = call
                    .arguments()
                    .and_then(|a| a.arguments().first())
                    .map(|a| self.text(&a.location()));
                (NamespaceKind::Class, sup)
            }
            ("Module", b"new") => (NamespaceKind::Module, None),
            _ => return,
        };
        let body = call
            .block()
            .and_then(|b| b.as_block_node())
            .and_then(|b| b.body());
        self.namespace(ctx, written, absolute, kind, superclass, range, body);
    }

    fn call(&mut self, call: &ruby_prism::CallNode<'_>, ctx: &mut Ctx) {
        let name = call.name();
        let name = name.as_slice();
        let receiver = call.receiver();
        let implicit = receiver.as_ref().is_none_or(|r| r.as_self_node().is_some());
        let args: Vec<Node<'_>> = call
            .arguments()
            .map(|a| a.arguments().iter().collect())
            .unwrap_or_default();

        if implicit {
            let mode = match name {
                b"private" => Some(Mode::Private),
                b"protected" => Some(Mode::Protected),
                b"public" => Some(Mode::Public),
                b"module_function" => Some(Mode::ModuleFunction),
                _ => None,
            };
            if let Some(mode) = mode {
                if args.is_empty() && call.block().is_none() {
                    ctx.mode = mode;
                } else {
                    for arg in &args {
                        self.visibility_arg(arg, ctx, VisTarget::Instance(mode));
                    }
                }
                return;
            }
            let class_mode = match name {
                b"private_class_method" => Some(Visibility::Private),
                b"public_class_method" => Some(Visibility::Public),
                _ => None,
            };
            if let Some(vis) = class_mode {
                for arg in &args {
                    self.visibility_arg(arg, ctx, VisTarget::Singleton(vis));
                }
                return;
            }
            if name == b"extend"
                && args
                    .iter()
                    .any(|a| const_path_text(a).0 == "ActiveSupport::Concern")
            {
                if let Some(class) = ctx.scope.and_then(|i| self.classes.get_mut(i)) {
                    class.concern = true;
                }
                return;
            }
        }

        // Defs passed as arguments: `memoize def total`, `helper_method def current_user`.
        for arg in &args {
            if let Some(def) = arg.as_def_node() {
                self.def(&def, ctx, None);
            } else if let Some(inner) = arg.as_call_node() {
                self.call(&inner, ctx);
            }
        }

        if let Some(block) = call.block().and_then(|b| b.as_block_node()) {
            if let Some(body) = block.body() {
                let singleton = implicit && name == b"class_methods";
                let mut inner = if singleton {
                    ctx.block_frame(true)
                } else {
                    ctx.block_frame(ctx.singleton)
                };
                if !implicit {
                    if let Some(recv) = &receiver {
                        // `Foo.class_eval do ... end` defines methods on Foo.
                        if matches!(name, b"class_eval" | b"class_exec" | b"module_eval") {
                            let (written, _) = const_path_text(recv);
                            if !written.is_empty() {
                                inner.owner = self.resolve_written_owner(ctx, &written);
                            }
                        }
                    }
                }
                self.body(&body, &mut inner);
            }
        }
    }

    fn visibility_arg(&mut self, arg: &Node<'_>, ctx: &mut Ctx, target: VisTarget) {
        if let Some(def) = arg.as_def_node() {
            self.def(&def, ctx, Some(target));
            return;
        }
        if let Some(splat) = arg.as_splat_node() {
            if let Some(expr) = splat.expression() {
                self.visibility_arg(&expr, ctx, target);
            }
            return;
        }
        if let Some(array) = arg.as_array_node() {
            for element in &array.elements() {
                self.visibility_arg(&element, ctx, target);
            }
            return;
        }
        if let Some(call) = arg.as_call_node() {
            // `private attr_reader :x` makes no method we list; `private memoize def x`
            // makes `x` private.
            let args: Vec<Node<'_>> = call
                .arguments()
                .map(|a| a.arguments().iter().collect())
                .unwrap_or_default();
            for inner in &args {
                if inner.as_def_node().is_some() {
                    self.visibility_arg(inner, ctx, target);
                }
            }
            return;
        }
        let name = if let Some(sym) = arg.as_symbol_node() {
            bytes_to_string(sym.unescaped())
        } else if let Some(s) = arg.as_string_node() {
            bytes_to_string(s.unescaped())
        } else {
            return;
        };
        self.apply_visibility(ctx, &name, target);
    }

    /// `private :a` and friends act on methods already defined in this namespace.
    fn apply_visibility(&mut self, ctx: &Ctx, name: &str, target: VisTarget) {
        let (kind, vis, to_module_function) = match target {
            VisTarget::Instance(Mode::ModuleFunction) => {
                (self.ctx_kind(ctx), Visibility::Public, true)
            }
            VisTarget::Instance(mode) => (self.ctx_kind(ctx), mode_visibility(mode), false),
            VisTarget::Singleton(vis) => (MethodKind::Singleton, vis, false),
        };
        for method in self.methods.iter_mut().rev() {
            if method.owner == ctx.owner && method.name == name && method.kind == kind {
                if to_module_function {
                    method.kind = MethodKind::Singleton;
                }
                method.visibility = vis;
                break;
            }
        }
    }

    fn ctx_kind(&self, ctx: &Ctx) -> MethodKind {
        if ctx.singleton {
            MethodKind::Singleton
        } else {
            MethodKind::Instance
        }
    }

    fn def(&mut self, def: &ruby_prism::DefNode<'_>, ctx: &Ctx, explicit: Option<VisTarget>) {
        let name = bytes_to_string(def.name().as_slice());
        let mut owner = ctx.owner.clone();
        let (mut kind, receiver_written) = match def.receiver() {
            None => (self.ctx_kind(ctx), false),
            Some(r) if r.as_self_node().is_some() => (MethodKind::Singleton, true),
            Some(r) => {
                let (written, _) = const_path_text(&r);
                if !written.is_empty() {
                    owner = self.resolve_written_owner(ctx, &written);
                }
                (MethodKind::Singleton, true)
            }
        };
        let mut visibility = match explicit {
            Some(VisTarget::Instance(Mode::ModuleFunction)) => {
                kind = MethodKind::Singleton;
                Visibility::Public
            }
            Some(VisTarget::Instance(mode)) => mode_visibility(mode),
            Some(VisTarget::Singleton(vis)) => vis,
            // `private` sections do not reach `def self.x`.
            None if receiver_written => Visibility::Public,
            None => match ctx.mode {
                Mode::ModuleFunction => {
                    kind = MethodKind::Singleton;
                    Visibility::Public
                }
                mode => mode_visibility(mode),
            },
        };
        if kind == MethodKind::Instance && always_private(&name) {
            visibility = Visibility::Private;
        }

        let location = def.location();
        let line_range = self.range(&location);
        let start = location.start() as usize;
        let end = location.end() as usize;
        let body_digest = digest_normalized(self.source.get(start..end).unwrap_or_default());

        let params = def.parameters().map(|p| params_of(&p)).unwrap_or_default();
        let mut collector = BodyCollector {
            params: params
                .iter()
                .map(|p| p.name.clone())
                .filter(|n| !n.is_empty())
                .collect(),
            calls: BTreeSet::new(),
            constants: Vec::new(),
            ivars: BTreeSet::new(),
            receiver_calls: BTreeSet::new(),
            depth: self.depth,
            truncated: false,
        };
        if let Some(body) = def.body() {
            collector.visit(&body);
        }
        if let Some(p) = def.parameters() {
            // Default values can reference constants and call methods too.
            for opt in &p.optionals() {
                collector.visit(&opt);
            }
            for kw in &p.keywords() {
                collector.visit(&kw);
            }
        }
        if collector.truncated {
            self.truncated = true;
        }
        for c in &mut collector.constants {
            c.methods.sort();
            c.methods.dedup();
        }
        self.methods.push(MethodFacts {
            name,
            owner,
            kind,
            visibility,
            line_range,
            scope: ctx.scope,
            body_digest,
            params,
            calls: collector.calls.into_iter().collect(),
            constants: collector.constants,
            ivars: collector.ivars.into_iter().collect(),
            receiver_calls: collector.receiver_calls.into_iter().collect(),
        });
    }

    /// `def Foo.bar` or `class << Foo` inside `Foo`: the written name is the current owner
    /// when it names it; otherwise it is qualified like a nested class.
    fn resolve_written_owner(&self, ctx: &Ctx, written: &str) -> String {
        let last = ctx.owner.rsplit("::").next().unwrap_or(&ctx.owner);
        if written == ctx.owner || written == last {
            ctx.owner.clone()
        } else if ctx.nesting.is_empty() {
            written.to_string()
        } else {
            ctx.qualify(written)
        }
    }

    fn range(&self, location: &ruby_prism::Location<'_>) -> (u32, u32) {
        let start = line_of(location.start_line());
        // The end offset is exclusive; a location ending right after a newline belongs to the
        // line before it.
        let end_offset = location.end() as usize;
        let mut end = line_of(location.end_line());
        if end > start && end_offset > 0 && self.source.get(end_offset - 1) == Some(&b'\n') {
            end -= 1;
        }
        (start, end.max(start))
    }

    fn text(&self, location: &ruby_prism::Location<'_>) -> String {
        let start = location.start() as usize;
        let end = location.end() as usize;
        bytes_to_string(self.source.get(start..end).unwrap_or_default())
            .trim()
            .to_string()
    }
}

#[derive(Debug, Clone, Copy)]
enum VisTarget {
    Instance(Mode),
    Singleton(Visibility),
}

fn mode_visibility(mode: Mode) -> Visibility {
    match mode {
        Mode::Public | Mode::ModuleFunction => Visibility::Public,
        Mode::Protected => Visibility::Protected,
        Mode::Private => Visibility::Private,
    }
}

/// Ruby makes these private whatever section they are in.
fn always_private(name: &str) -> bool {
    matches!(
        name,
        "initialize"
            | "initialize_copy"
            | "initialize_clone"
            | "initialize_dup"
            | "respond_to_missing?"
    )
}

/// The text of a constant path (`A::B`), and whether it starts with `::`. Dynamic paths
/// (`foo::Bar`) and anything that is not a constant give an empty string.
pub(crate) fn const_path_text(node: &Node<'_>) -> (String, bool) {
    let mut parts: Vec<String> = Vec::new();
    let mut absolute = false;
    // Iterative on purpose: `A::B::C::...` can be arbitrarily long.
    let mut next = match const_step(node, &mut parts, &mut absolute) {
        Ok(parent) => parent,
        Err(()) => return (String::new(), false),
    };
    while let Some(n) = next {
        next = match const_step(&n, &mut parts, &mut absolute) {
            Ok(parent) => parent,
            Err(()) => return (String::new(), false),
        };
    }
    parts.reverse();
    (parts.join("::"), absolute)
}

/// One segment of a constant path: pushes its name and returns its parent, if any.
fn const_step<'pr>(
    node: &Node<'pr>,
    parts: &mut Vec<String>,
    absolute: &mut bool,
) -> Result<Option<Node<'pr>>, ()> {
    if let Some(read) = node.as_constant_read_node() {
        parts.push(bytes_to_string(read.name().as_slice()));
        return Ok(None);
    }
    let (name, parent) = if let Some(path) = node.as_constant_path_node() {
        (path.name(), path.parent())
    } else if let Some(path) = node.as_constant_path_target_node() {
        (path.name(), path.parent())
    } else {
        return Err(());
    };
    let name = name.ok_or(())?;
    parts.push(bytes_to_string(name.as_slice()));
    if parent.is_none() {
        *absolute = true;
    }
    Ok(parent)
}

fn params_of(params: &ruby_prism::ParametersNode<'_>) -> Vec<Param> {
    let mut out = Vec::new();
    for p in &params.requireds() {
        if let Some(r) = p.as_required_parameter_node() {
            out.push(Param {
                name: bytes_to_string(r.name().as_slice()),
                kind: ParamKind::Required,
            });
        }
    }
    for p in &params.optionals() {
        if let Some(o) = p.as_optional_parameter_node() {
            out.push(Param {
                name: bytes_to_string(o.name().as_slice()),
                kind: ParamKind::Optional,
            });
        }
    }
    if let Some(rest) = params.rest() {
        if let Some(r) = rest.as_rest_parameter_node() {
            out.push(Param {
                name: r
                    .name()
                    .map(|n| bytes_to_string(n.as_slice()))
                    .unwrap_or_default(),
                kind: ParamKind::Rest,
            });
        }
    }
    for p in &params.posts() {
        if let Some(r) = p.as_required_parameter_node() {
            out.push(Param {
                name: bytes_to_string(r.name().as_slice()),
                kind: ParamKind::Required,
            });
        }
    }
    for p in &params.keywords() {
        if let Some(k) = p.as_required_keyword_parameter_node() {
            out.push(Param {
                name: bytes_to_string(k.name().as_slice()),
                kind: ParamKind::Keyword,
            });
        } else if let Some(k) = p.as_optional_keyword_parameter_node() {
            out.push(Param {
                name: bytes_to_string(k.name().as_slice()),
                kind: ParamKind::OptionalKeyword,
            });
        }
    }
    if let Some(rest) = params.keyword_rest() {
        if let Some(k) = rest.as_keyword_rest_parameter_node() {
            out.push(Param {
                name: k
                    .name()
                    .map(|n| bytes_to_string(n.as_slice()))
                    .unwrap_or_default(),
                kind: ParamKind::KeywordRest,
            });
        } else if rest.as_forwarding_parameter_node().is_some() {
            out.push(Param {
                name: String::new(),
                kind: ParamKind::Forward,
            });
        }
    }
    if let Some(block) = params.block() {
        if let Some(b) = block.as_block_parameter_node() {
            out.push(Param {
                name: b
                    .name()
                    .map(|n| bytes_to_string(n.as_slice()))
                    .unwrap_or_default(),
                kind: ParamKind::Block,
            });
        }
    }
    out
}

/// Collects calls, constants, ivars and receiver calls of one method body.
struct BodyCollector {
    params: BTreeSet<String>,
    calls: BTreeSet<String>,
    constants: Vec<ConstRef>,
    ivars: BTreeSet<String>,
    receiver_calls: BTreeSet<ReceiverCall>,
    depth: usize,
    truncated: bool,
}

impl BodyCollector {
    fn constant(&mut self, path: String, absolute: bool, method: Option<String>, line: u32) {
        if path.is_empty() {
            return;
        }
        if let Some(existing) = self
            .constants
            .iter_mut()
            .find(|c| c.path == path && c.absolute == absolute)
        {
            existing.methods.extend(method);
            return;
        }
        self.constants.push(ConstRef {
            path,
            absolute,
            methods: method.into_iter().collect(),
            line,
        });
    }
}

impl<'pr> Visit<'pr> for BodyCollector {
    fn visit(&mut self, node: &Node<'pr>) {
        if self.depth >= MAX_TREE_DEPTH {
            self.truncated = true;
            return;
        }
        self.depth += 1;
        dispatch(self, node);
        self.depth -= 1;
    }

    fn visit_def_node(&mut self, _node: &ruby_prism::DefNode<'pr>) {
        // A def inside a def is another method; its body is not this method's.
    }

    fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
        let name = bytes_to_string(node.name().as_slice());
        match node.receiver() {
            None => {
                self.calls.insert(name);
            }
            Some(recv) => {
                if recv.as_self_node().is_some() {
                    self.calls.insert(name);
                } else if recv.as_constant_read_node().is_some()
                    || recv.as_constant_path_node().is_some()
                {
                    let (path, absolute) = const_path_text(&recv);
                    if !path.is_empty() {
                        let line = line_of(recv.location().start_line());
                        self.constant(path, absolute, Some(name), line);
                        if let Some(args) = node.arguments() {
                            self.visit_arguments_node(&args);
                        }
                        if let Some(block) = node.block() {
                            self.visit(&block);
                        }
                        return;
                    }
                } else if let Some(ivar) = recv.as_instance_variable_read_node() {
                    let var = ivar_name(ivar.name().as_slice());
                    self.receiver_calls.insert(ReceiverCall {
                        kind: ReceiverKind::Ivar,
                        name: var,
                        method: name,
                    });
                } else if let Some(local) = recv.as_local_variable_read_node() {
                    let var = bytes_to_string(local.name().as_slice());
                    if self.params.contains(&var) {
                        self.receiver_calls.insert(ReceiverCall {
                            kind: ReceiverKind::Param,
                            name: var,
                            method: name,
                        });
                    }
                }
            }
        }
        ruby_prism::visit_call_node(self, node);
    }

    fn visit_constant_read_node(&mut self, node: &ruby_prism::ConstantReadNode<'pr>) {
        let line = line_of(node.location().start_line());
        self.constant(bytes_to_string(node.name().as_slice()), false, None, line);
    }

    fn visit_constant_path_node(&mut self, node: &ruby_prism::ConstantPathNode<'pr>) {
        let (path, absolute) = const_path_text(&node.as_node());
        if path.is_empty() {
            // `foo::Bar`: the parent is an expression worth visiting.
            ruby_prism::visit_constant_path_node(self, node);
        } else {
            let line = line_of(node.location().start_line());
            self.constant(path, absolute, None, line);
        }
    }

    fn visit_instance_variable_read_node(
        &mut self,
        node: &ruby_prism::InstanceVariableReadNode<'pr>,
    ) {
        self.ivars.insert(ivar_name(node.name().as_slice()));
    }

    fn visit_instance_variable_or_write_node(
        &mut self,
        node: &ruby_prism::InstanceVariableOrWriteNode<'pr>,
    ) {
        self.ivars.insert(ivar_name(node.name().as_slice()));
        ruby_prism::visit_instance_variable_or_write_node(self, node);
    }

    fn visit_instance_variable_and_write_node(
        &mut self,
        node: &ruby_prism::InstanceVariableAndWriteNode<'pr>,
    ) {
        self.ivars.insert(ivar_name(node.name().as_slice()));
        ruby_prism::visit_instance_variable_and_write_node(self, node);
    }

    fn visit_instance_variable_operator_write_node(
        &mut self,
        node: &ruby_prism::InstanceVariableOperatorWriteNode<'pr>,
    ) {
        self.ivars.insert(ivar_name(node.name().as_slice()));
        ruby_prism::visit_instance_variable_operator_write_node(self, node);
    }
}

fn ivar_name(bytes: &[u8]) -> String {
    bytes_to_string(bytes.strip_prefix(b"@").unwrap_or(bytes))
}

/// Lossy UTF-8: names in non-UTF-8 files keep a replacement character instead of failing.
pub(crate) fn bytes_to_string(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// FNV-1a over the text with each line trimmed and blank lines dropped, so re-indenting or
/// moving a method does not change its digest, but any other edit does.
pub fn digest_normalized(text: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    for line in text.split(|&b| b == b'\n') {
        let trimmed = trim_ascii(line);
        if trimmed.is_empty() {
            continue;
        }
        for &b in trimmed {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(PRIME);
        }
        hash ^= u64::from(b'\n');
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

fn trim_ascii(line: &[u8]) -> &[u8] {
    let start = line
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(line.len());
    let end = line
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    line.get(start..end).unwrap_or_default()
}
