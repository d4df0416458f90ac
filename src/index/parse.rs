//! Prism syntax tree → [`FileFacts`]. The tree is built, read once and dropped inside
//! [`extract`]; only owned facts leave this file.
//!
//! Parsing never fails: a file prism cannot fully parse still yields every class and method
//! prism recovered, plus its diagnostics.

use ruby_prism::{Node, Visit};

use super::body::Converter;
use super::dispatch::dispatch;
use super::facts::{
    ClassFacts, ConstRef, Diagnostic, DslCall, FileFacts, MethodFacts, MethodKind, Names,
    NamespaceKind, Param, ParamKind, Visibility, DSL_CALLS,
};
use super::loc;
use super::prism::{bytes_to_string, const_path_text, MAX_TREE_DEPTH};

/// How deeply classes and modules may nest. Each records its full lexical nesting, so
/// thousands of nested modules took memory cubic in the depth; real code nests a handful.
pub(crate) const MAX_NAMESPACE_DEPTH: usize = 100;

/// How many parse diagnostics are kept per file (the total is counted).
pub const MAX_DIAGNOSTICS: usize = 20;

/// What to extract besides the always-present facts.
#[derive(Debug, Clone, Copy)]
pub struct ExtractOptions {
    /// Keep each method's body as a `body::Node` tree (for the analyzer).
    pub bodies: bool,
    /// Compute each method's [`MethodFacts::body_digest`] (on by default). A caller that
    /// will not compare the file with another version of it (a file git reports unchanged)
    /// turns it off: hashing every method's text was an eighth of extraction's cost.
    pub digests: bool,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            bodies: false,
            digests: true,
        }
    }
}

impl ExtractOptions {
    /// The analyzer's options: method bodies kept as trees, digests computed.
    pub fn with_bodies() -> Self {
        ExtractOptions {
            bodies: true,
            ..ExtractOptions::default()
        }
    }
}

/// Records that extraction stopped at one of its limits (line 1: the file as a whole).
fn limit_reached(facts: &mut FileFacts, message: String) {
    facts.diagnostics.push(Diagnostic { line: 1, message });
    facts.diagnostic_count += 1;
}

/// Parses `source` and extracts its facts. `path` is only recorded, never opened.
pub fn extract(path: &str, source: &[u8]) -> FileFacts {
    extract_with(path, source, &ExtractOptions::default())
}

/// Like [`extract`], with options.
pub fn extract_with(path: &str, source: &[u8], options: &ExtractOptions) -> FileFacts {
    // Checked once: names are then copied out of this text without checking each again.
    let text = std::str::from_utf8(source).ok();
    let mut facts = FileFacts {
        path: path.to_string(),
        utf8: text.is_some(),
        ..FileFacts::default()
    };
    if memchr::memchr(0, source).is_some() {
        facts.lines = line_count(source);
        facts.skipped = Some("binary file (contains NUL bytes); not parsed".to_string());
        return facts;
    }
    if u32::try_from(source.len()).is_err() {
        facts.lines = line_count(source);
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
    // Lines and code lines in one pass over the lines.
    (facts.lines, facts.loc) =
        loc::count_lines_and_loc(source, &comments, data_start, result.line_offsets());
    debug_assert_eq!(facts.lines, line_count(source));

    let mut ex = Extractor {
        source,
        strings: Strings(text),
        line_starts: result.line_offsets(),
        options: *options,
        classes: Vec::new(),
        methods: Vec::new(),
        depth: 0,
        truncated: false,
        def_nesting: 0,
        namespaces_truncated: false,
        scratch: BodyLists::default(),
    };
    let root = result.node();
    let mut ctx = Ctx::top_level();
    if let Some(program) = root.as_program_node() {
        ex.statements(&program.statements().as_node(), &mut ctx);
    }
    if ex.namespaces_truncated {
        limit_reached(
            &mut facts,
            format!("classes and modules nested deeper than {MAX_NAMESPACE_DEPTH} levels; the deeper ones were not indexed"),
        );
    }
    if ex.truncated {
        limit_reached(
            &mut facts,
            format!("syntax nested deeper than {MAX_TREE_DEPTH} levels; code below that depth was not indexed"),
        );
    }
    // Kept for the whole run (hundreds of thousands of methods on a large codebase): no
    // spare capacity left from growing the lists.
    facts.classes = ex.classes;
    facts.classes.shrink_to_fit();
    facts.methods = ex.methods;
    facts.methods.shrink_to_fit();
    facts
}

fn line_count(source: &[u8]) -> u32 {
    if source.is_empty() {
        return 0;
    }
    let newlines = memchr::memchr_iter(b'\n', source).count();
    let last_unterminated = usize::from(source.last() != Some(&b'\n'));
    u32::try_from(newlines + last_unterminated).unwrap_or(u32::MAX)
}

/// The line (1-based) holding byte `offset`, from the table of line starts: what prism's
/// `start_line` answers, without a call into C for each location.
fn line_at(line_starts: &[u32], offset: u32) -> u32 {
    let after = line_starts.partition_point(|&start| start <= offset);
    u32::try_from(after).unwrap_or(u32::MAX).max(1)
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
    /// Inside an `if`/`unless` or a `begin` with a `rescue` of the class body: what is
    /// defined here may not be.
    conditional: bool,
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
            conditional: false,
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

struct Extractor<'s, 'pr> {
    source: &'s [u8],
    strings: Strings<'s>,
    /// Where each line starts (prism's line table).
    line_starts: &'pr [u32],
    /// The lists a method body is collected into, kept between methods so each method
    /// does not grow its own from empty.
    scratch: BodyLists<'pr>,
    options: ExtractOptions,
    classes: Vec<ClassFacts>,
    methods: Vec<MethodFacts>,
    depth: usize,
    truncated: bool,
    /// How many defs the current one is nested in (defs in a method body).
    def_nesting: usize,
    /// A class or module nested deeper than [`MAX_NAMESPACE_DEPTH`] was not indexed.
    namespaces_truncated: bool,
}

impl<'pr> Extractor<'_, 'pr> {
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
    fn statements(&mut self, node: &Node<'pr>, ctx: &mut Ctx) {
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

    fn statement(&mut self, node: &Node<'pr>, ctx: &mut Ctx) {
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
                    self.def(&def, ctx, None, false);
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
                    let was = std::mem::replace(&mut ctx.conditional, true);
                    if let Some(s) = n.statements() {
                        self.statements(&s.as_node(), ctx);
                    }
                    if let Some(sub) = n.subsequent() {
                        self.statement(&sub, ctx);
                    }
                    ctx.conditional = was;
                }
            }
            Node::UnlessNode { .. } => {
                if let Some(n) = node.as_unless_node() {
                    let was = std::mem::replace(&mut ctx.conditional, true);
                    if let Some(s) = n.statements() {
                        self.statements(&s.as_node(), ctx);
                    }
                    if let Some(e) = n.else_clause() {
                        self.statement(&e.as_node(), ctx);
                    }
                    ctx.conditional = was;
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
            _ => self.dynamic_defs(node, ctx),
        }
        self.leave();
    }

    /// Lists the defs buried in an expression (`klass = Class.new do def x; end end`) or in
    /// a method body: Ruby's parser sees them, so the inventory has them, marked dynamic.
    fn dynamic_defs(&mut self, node: &Node<'pr>, ctx: &Ctx) {
        let mut finder = DefFinder {
            found: Vec::new(),
            depth: self.depth,
            truncated: false,
        };
        finder.visit(node);
        if finder.truncated {
            self.truncated = true;
        }
        for def in &finder.found {
            self.def(def, ctx, None, true);
        }
    }

    /// A class, module or `class << self` body: statements, or a begin with rescue clauses.
    fn body(&mut self, node: &Node<'pr>, ctx: &mut Ctx) {
        if let Some(begin) = node.as_begin_node() {
            // With a rescue, what the body defines after a call that raises is not defined,
            // and what the rescue defines only is then.
            let was = ctx.conditional;
            ctx.conditional |= begin.rescue_clause().is_some();
            self.begin_parts(&begin, ctx);
            ctx.conditional = was;
        } else {
            self.statements(node, ctx);
        }
    }

    fn begin_parts(&mut self, begin: &ruby_prism::BeginNode<'pr>, ctx: &mut Ctx) {
        {
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
        body: Option<Node<'pr>>,
    ) {
        if written.is_empty() {
            // `class foo::Bar` or an error-recovery name: nothing we can name.
            return;
        }
        if ctx.nesting.len() >= MAX_NAMESPACE_DEPTH {
            self.namespaces_truncated = true;
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
            dsl: Vec::new(),
        });
        let mut inner = Ctx {
            owner: name,
            nesting,
            scope: Some(self.classes.len() - 1),
            singleton: false,
            mode: Mode::Public,
            // Its own body runs whole once the statement does.
            conditional: false,
        };
        if let Some(body) = body {
            self.body(&body, &mut inner);
        }
    }

    /// `Foo = Struct.new(...) do ... end`, `Foo = Class.new(Base)`, `Foo = Module.new`,
    /// `Foo = Data.define(...)`: a namespace like any other. Any other value may still hide
    /// defs (`ENCODER = Class.new do ... end.new`): those are listed as dynamic.
    fn constant_assignment(
        &mut self,
        ctx: &Ctx,
        written: &str,
        absolute: bool,
        value: &Node<'pr>,
        range: (u32, u32),
    ) {
        let namespace = value.as_call_node().and_then(|call| {
            let receiver = call.receiver()?;
            let (recv, _) = const_path_text(&receiver);
            let method = call.name();
            let (kind, superclass) = match (recv.as_str(), method.as_slice()) {
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
                _ => return None,
            };
            Some((kind, superclass, call))
        });
        match namespace {
            Some((kind, superclass, call)) => {
                let body = call
                    .block()
                    .and_then(|b| b.as_block_node())
                    .and_then(|b| b.body());
                self.namespace(ctx, written, absolute, kind, superclass, range, body);
                if let Some(args) = call.arguments() {
                    self.dynamic_defs(&args.as_node(), ctx);
                }
            }
            None => self.dynamic_defs(value, ctx),
        }
    }

    fn call(&mut self, call: &ruby_prism::CallNode<'pr>, ctx: &mut Ctx) {
        let name = call.name();
        let name = name.as_slice();
        let receiver = call.receiver();
        let implicit = receiver.as_ref().is_none_or(|r| r.as_self_node().is_some());
        let args: Vec<Node<'pr>> = call
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
            if let Some(scope) = ctx.scope {
                if DSL_CALLS.iter().any(|d| d.as_bytes() == name) {
                    let dsl = self.dsl_call(name, &args, call);
                    if let Some(class) = self.classes.get_mut(scope) {
                        class.dsl.push(dsl);
                    }
                }
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
                self.def(&def, ctx, None, false);
            } else if let Some(inner) = arg.as_call_node() {
                self.call(&inner, ctx);
            } else {
                self.dynamic_defs(arg, ctx);
            }
        }
        if let Some(recv) = receiver.as_ref().filter(|r| r.as_self_node().is_none()) {
            // `Class.new { def call; end }.new(self)`
            self.dynamic_defs(recv, ctx);
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
                // `with_options if: :active? do validates ... end`: the calls inside take
                // the block's options (a validation or filter there is conditional).
                let shared = (implicit && name == b"with_options")
                    .then_some(ctx.scope)
                    .flatten()
                    .map(|scope| {
                        let first = self.classes.get(scope).map_or(0, |c| c.dsl.len());
                        (scope, first, self.dsl_call(name, &args, call).options)
                    });
                self.body(&body, &mut inner);
                if let Some((scope, first, options)) = shared {
                    if let Some(class) = self.classes.get_mut(scope) {
                        for dsl in class.dsl.iter_mut().skip(first) {
                            for (key, values) in &options {
                                if !dsl.options.iter().any(|(k, _)| k == key) {
                                    dsl.options.push((key.clone(), values.clone()));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn dsl_call(
        &self,
        name: &[u8],
        args: &[Node<'pr>],
        call: &ruby_prism::CallNode<'pr>,
    ) -> DslCall {
        let mut plain = Vec::new();
        let mut options = Vec::new();
        for arg in args {
            if let Some(text) = literal_name(arg) {
                plain.push(text);
            } else if let Some(hash) = arg.as_keyword_hash_node() {
                for element in &hash.elements() {
                    if let Some(assoc) = element.as_assoc_node() {
                        if let Some(key) = literal_name(&assoc.key()) {
                            options.push((key, option_values(&assoc.value())));
                        }
                    }
                }
            } else if let Some(hash) = arg.as_hash_node() {
                for element in &hash.elements() {
                    if let Some(assoc) = element.as_assoc_node() {
                        if let Some(key) = literal_name(&assoc.key()) {
                            options.push((key, option_values(&assoc.value())));
                        }
                    }
                }
            } else if let Some(array) = arg.as_array_node() {
                plain.extend(array.elements().iter().filter_map(|e| literal_name(&e)));
            } else {
                let (path, _) = const_path_text(arg);
                if !path.is_empty() {
                    plain.push(path);
                }
            }
        }
        DslCall {
            name: self.strings.of(name),
            args: plain,
            options,
            line: line_at(self.line_starts, call.location().start()),
        }
    }

    fn visibility_arg(&mut self, arg: &Node<'pr>, ctx: &mut Ctx, target: VisTarget) {
        if let Some(def) = arg.as_def_node() {
            self.def(&def, ctx, Some(target), false);
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
            let args: Vec<Node<'pr>> = call
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

    fn def(
        &mut self,
        def: &ruby_prism::DefNode<'pr>,
        ctx: &Ctx,
        explicit: Option<VisTarget>,
        dynamic: bool,
    ) {
        let name = self.strings.of(def.name().as_slice());
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
        // A def inside another def's body is part of that def's text and digest; its own
        // digest is never compared (it is dynamic, never a wave item), and hashing every
        // level of thousands of nested defs was quadratic.
        let body_digest = if self.def_nesting > 0 || !self.options.digests {
            0
        } else {
            digest_normalized(self.source.get(start..end).unwrap_or_default())
        };

        let params = def
            .parameters()
            .map(|p| params_of(&p, self.strings))
            .unwrap_or_default();
        let mut lists = std::mem::take(&mut self.scratch);
        lists.clear();
        if let Some(p) = def.parameters() {
            param_names(&p, &mut lists.params);
        }
        let mut collector = BodyCollector {
            lists,
            strings: self.strings,
            line_starts: self.line_starts,
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
        let mut lists = collector.lists;
        let constants = lists
            .constants
            .drain(..)
            .map(|(mut c, mut methods)| {
                c.methods = Names::from_unsorted_in(&mut methods, self.strings.0);
                c
            })
            .collect();
        let calls = Names::from_unsorted_in(&mut lists.calls, self.strings.0);
        for ivar in &mut lists.ivars {
            *ivar = ivar.strip_prefix(b"@").unwrap_or(ivar);
        }
        let ivars = Names::from_unsorted_in(&mut lists.ivars, self.strings.0);
        let receiver_calls = Names::from_unsorted_pairs(&mut lists.receiver_calls, b'.');
        let nested_defs = std::mem::take(&mut lists.nested_defs);
        self.scratch = lists;
        let (body, param_defaults) = if self.options.bodies {
            let mut converter = Converter {
                source: self.source,
                depth: self.depth,
            };
            let body = def.body().map(|b| Box::new(converter.convert(&b)));
            let defaults = def
                .parameters()
                .map(|p| {
                    let mut out = Vec::new();
                    for opt in &p.optionals() {
                        if let Some(o) = opt.as_optional_parameter_node() {
                            out.push((
                                bytes_to_string(o.name().as_slice()),
                                converter.convert(&o.value()),
                            ));
                        }
                    }
                    for kw in &p.keywords() {
                        if let Some(k) = kw.as_optional_keyword_parameter_node() {
                            out.push((
                                bytes_to_string(k.name().as_slice()),
                                converter.convert(&k.value()),
                            ));
                        }
                    }
                    out
                })
                .unwrap_or_default();
            (body, defaults)
        } else {
            (None, Vec::new())
        };
        self.methods.push(MethodFacts {
            name,
            owner,
            kind,
            visibility,
            line_range,
            scope: ctx.scope,
            dynamic,
            conditional: ctx.conditional,
            body_digest,
            params,
            calls,
            constants,
            ivars,
            receiver_calls,
            body,
            param_defaults,
        });
        self.def_nesting += 1;
        for nested in &nested_defs {
            self.def(nested, ctx, None, true);
        }
        self.def_nesting -= 1;
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
        let start = line_at(self.line_starts, location.start());
        // The end offset is exclusive; a location ending right after a newline belongs to the
        // line before it.
        let end_offset = location.end() as usize;
        let mut end = line_at(self.line_starts, location.end());
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

/// The text of a symbol or string literal.
fn literal_name(node: &Node<'_>) -> Option<String> {
    if let Some(sym) = node.as_symbol_node() {
        return Some(bytes_to_string(sym.unescaped()));
    }
    node.as_string_node()
        .map(|s| bytes_to_string(s.unescaped()))
}

/// The symbols and strings of a literal or an array of literals.
/// An option's values: its names, or `false` (`presence: false` turns a validation off;
/// `true` and other values give none).
fn option_values(node: &Node<'_>) -> Vec<String> {
    if node.as_false_node().is_some() {
        return vec!["false".to_string()];
    }
    literal_names(node)
}

fn literal_names(node: &Node<'_>) -> Vec<String> {
    if let Some(array) = node.as_array_node() {
        return array
            .elements()
            .iter()
            .filter_map(|e| literal_name(&e))
            .collect();
    }
    literal_name(node).into_iter().collect()
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

/// Appends the names of `params` that are plain local variables in the body to `out`, as
/// borrowed bytes (for receiver inference while visiting the body).
fn param_names<'pr>(params: &ruby_prism::ParametersNode<'pr>, out: &mut Vec<&'pr [u8]>) {
    for p in params
        .requireds()
        .iter()
        .chain(params.optionals().iter())
        .chain(params.posts().iter())
    {
        if let Some(r) = p.as_required_parameter_node() {
            out.push(r.name().as_slice());
        } else if let Some(o) = p.as_optional_parameter_node() {
            out.push(o.name().as_slice());
        }
    }
    for p in &params.keywords() {
        if let Some(k) = p.as_required_keyword_parameter_node() {
            out.push(k.name().as_slice());
        } else if let Some(k) = p.as_optional_keyword_parameter_node() {
            out.push(k.name().as_slice());
        }
    }
}

fn params_of(params: &ruby_prism::ParametersNode<'_>, strings: Strings<'_>) -> Vec<Param> {
    let mut out = Vec::new();
    for p in &params.requireds() {
        if let Some(r) = p.as_required_parameter_node() {
            out.push(Param {
                name: strings.of(r.name().as_slice()),
                kind: ParamKind::Required,
            });
        }
    }
    for p in &params.optionals() {
        if let Some(o) = p.as_optional_parameter_node() {
            out.push(Param {
                name: strings.of(o.name().as_slice()),
                kind: ParamKind::Optional,
            });
        }
    }
    if let Some(rest) = params.rest() {
        if let Some(r) = rest.as_rest_parameter_node() {
            out.push(Param {
                name: r
                    .name()
                    .map(|n| strings.of(n.as_slice()))
                    .unwrap_or_default(),
                kind: ParamKind::Rest,
            });
        }
    }
    for p in &params.posts() {
        if let Some(r) = p.as_required_parameter_node() {
            out.push(Param {
                name: strings.of(r.name().as_slice()),
                kind: ParamKind::Required,
            });
        }
    }
    for p in &params.keywords() {
        if let Some(k) = p.as_required_keyword_parameter_node() {
            out.push(Param {
                name: strings.of(k.name().as_slice()),
                kind: ParamKind::Keyword,
            });
        } else if let Some(k) = p.as_optional_keyword_parameter_node() {
            out.push(Param {
                name: strings.of(k.name().as_slice()),
                kind: ParamKind::OptionalKeyword,
            });
        }
    }
    if let Some(rest) = params.keyword_rest() {
        if let Some(k) = rest.as_keyword_rest_parameter_node() {
            out.push(Param {
                name: k
                    .name()
                    .map(|n| strings.of(n.as_slice()))
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
                    .map(|n| strings.of(n.as_slice()))
                    .unwrap_or_default(),
                kind: ParamKind::Block,
            });
        }
    }
    out
}

/// Finds the outermost defs inside an expression (their own nested defs are found when
/// they are processed).
struct DefFinder<'pr> {
    found: Vec<ruby_prism::DefNode<'pr>>,
    depth: usize,
    truncated: bool,
}

impl<'pr> Visit<'pr> for DefFinder<'pr> {
    fn visit(&mut self, node: &Node<'pr>) {
        if self.depth >= MAX_TREE_DEPTH {
            self.truncated = true;
            return;
        }
        self.depth += 1;
        dispatch(self, node);
        self.depth -= 1;
    }

    fn visit_def_node(&mut self, node: &ruby_prism::DefNode<'pr>) {
        if let Some(def) = node.as_node().as_def_node() {
            self.found.push(def);
        }
    }
}

/// What one method body is collected into (kept by the extractor between methods, so
/// the lists keep their capacity).
#[derive(Default)]
struct BodyLists<'pr> {
    /// The method's parameter names (calls on them are receiver calls).
    params: Vec<&'pr [u8]>,
    calls: Vec<&'pr [u8]>,
    constants: Vec<(ConstRef, Vec<&'pr [u8]>)>,
    ivars: Vec<&'pr [u8]>,
    /// `(@var, method)` / `(param, method)`, joined with a `.` at the end.
    receiver_calls: Vec<(&'pr [u8], &'pr [u8])>,
    nested_defs: Vec<ruby_prism::DefNode<'pr>>,
}

impl BodyLists<'_> {
    fn clear(&mut self) {
        self.params.clear();
        self.calls.clear();
        self.constants.clear();
        self.ivars.clear();
        self.receiver_calls.clear();
        self.nested_defs.clear();
    }
}

/// Collects calls, constants, ivars and receiver calls of one method body, and the defs
/// nested in it (listed afterwards as dynamic). Lists are sorted and deduplicated at the end.
struct BodyCollector<'s, 'pr> {
    lists: BodyLists<'pr>,
    strings: Strings<'s>,
    line_starts: &'pr [u32],
    depth: usize,
    truncated: bool,
}

impl<'pr> BodyCollector<'_, 'pr> {
    /// Records a reference to the constant `path` (its text as written, the name of a
    /// plain `Foo` read straight from prism): a path already seen in this body only adds
    /// `method`, a new one is copied into a string.
    fn constant(
        &mut self,
        path: &[u8],
        absolute: bool,
        method: Option<&'pr [u8]>,
        node: &Node<'pr>,
    ) {
        if path.is_empty() {
            return;
        }
        if let Some(i) = self
            .lists
            .constants
            .iter()
            .position(|c| c.0.path.as_bytes() == path && c.0.absolute == absolute)
        {
            if let (Some(m), Some(entry)) = (method, self.lists.constants.get_mut(i)) {
                entry.1.push(m);
            }
            return;
        }
        self.lists.constants.push((
            ConstRef {
                path: self.strings.of(path),
                absolute,
                methods: Names::default(),
                line: line_at(self.line_starts, node.location().start()),
            },
            method.into_iter().collect(),
        ));
    }
}

impl<'pr> BodyCollector<'_, 'pr> {
    /// Visits a call's argument. Literals and local variables, most arguments, hold
    /// nothing collected: they are not dispatched.
    fn visit_operand(&mut self, node: &Node<'pr>) {
        if !matches!(
            node,
            Node::SymbolNode { .. }
                | Node::StringNode { .. }
                | Node::LocalVariableReadNode { .. }
                | Node::IntegerNode { .. }
                | Node::NilNode { .. }
                | Node::TrueNode { .. }
                | Node::FalseNode { .. }
                | Node::SelfNode { .. }
        ) {
            self.visit(node);
        }
    }
}

impl<'pr> Visit<'pr> for BodyCollector<'_, 'pr> {
    fn visit(&mut self, node: &Node<'pr>) {
        if self.depth >= MAX_TREE_DEPTH {
            self.truncated = true;
            return;
        }
        self.depth += 1;
        dispatch(self, node);
        self.depth -= 1;
    }

    fn visit_def_node(&mut self, node: &ruby_prism::DefNode<'pr>) {
        // A def inside a def is another method; its body is not this method's.
        if let Some(def) = node.as_node().as_def_node() {
            self.lists.nested_defs.push(def);
        }
    }

    fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
        let name = node.name().as_slice();
        // The receiver is read here; it is visited below only when it may hold more.
        let mut visit_receiver = None;
        match node.receiver() {
            None => self.lists.calls.push(name),
            Some(recv) => {
                if recv.as_self_node().is_some() {
                    self.lists.calls.push(name);
                } else if let Some(read) = recv.as_constant_read_node() {
                    self.constant(read.name().as_slice(), false, Some(name), &recv);
                } else if recv.as_constant_path_node().is_some() {
                    let (path, absolute) = const_path_text(&recv);
                    if path.is_empty() {
                        visit_receiver = Some(recv);
                    } else {
                        self.constant(path.as_bytes(), absolute, Some(name), &recv);
                    }
                } else if let Some(ivar) = recv.as_instance_variable_read_node() {
                    let var = ivar.name().as_slice();
                    self.lists.ivars.push(var);
                    self.lists.receiver_calls.push((var, name));
                } else if let Some(local) = recv.as_local_variable_read_node() {
                    let var = local.name().as_slice();
                    if self.lists.params.contains(&var) {
                        self.lists.receiver_calls.push((var, name));
                    }
                } else {
                    visit_receiver = Some(recv);
                }
            }
        }
        if let Some(recv) = visit_receiver {
            self.visit(&recv);
        }
        if let Some(args) = node.arguments() {
            self.visit_arguments_node(&args);
        }
        if let Some(block) = node.block() {
            self.visit(&block);
        }
    }

    fn visit_arguments_node(&mut self, node: &ruby_prism::ArgumentsNode<'pr>) {
        for arg in &node.arguments() {
            self.visit_operand(&arg);
        }
    }

    fn visit_constant_read_node(&mut self, node: &ruby_prism::ConstantReadNode<'pr>) {
        self.constant(node.name().as_slice(), false, None, &node.as_node());
    }

    fn visit_constant_path_node(&mut self, node: &ruby_prism::ConstantPathNode<'pr>) {
        let (path, absolute) = const_path_text(&node.as_node());
        if path.is_empty() {
            // `foo::Bar`: the parent is an expression worth visiting.
            ruby_prism::visit_constant_path_node(self, node);
        } else {
            self.constant(path.as_bytes(), absolute, None, &node.as_node());
        }
    }

    fn visit_instance_variable_read_node(
        &mut self,
        node: &ruby_prism::InstanceVariableReadNode<'pr>,
    ) {
        self.lists.ivars.push(node.name().as_slice());
    }

    fn visit_instance_variable_or_write_node(
        &mut self,
        node: &ruby_prism::InstanceVariableOrWriteNode<'pr>,
    ) {
        self.lists.ivars.push(node.name().as_slice());
        ruby_prism::visit_instance_variable_or_write_node(self, node);
    }

    fn visit_instance_variable_and_write_node(
        &mut self,
        node: &ruby_prism::InstanceVariableAndWriteNode<'pr>,
    ) {
        self.lists.ivars.push(node.name().as_slice());
        ruby_prism::visit_instance_variable_and_write_node(self, node);
    }

    fn visit_instance_variable_operator_write_node(
        &mut self,
        node: &ruby_prism::InstanceVariableOperatorWriteNode<'pr>,
    ) {
        self.lists.ivars.push(node.name().as_slice());
        ruby_prism::visit_instance_variable_operator_write_node(self, node);
    }
}

/// Copies names out of a file's text. Names prism read from the source are slices of it:
/// when the file is UTF-8 (checked once, `Some`), such a slice is copied as the text's own
/// `str`, without checking each name again (that check was most of the cost of copying a
/// short name). Anything else, or a file that is not UTF-8, goes through
/// [`bytes_to_string`].
#[derive(Clone, Copy)]
struct Strings<'s>(Option<&'s str>);

impl<'s> Strings<'s> {
    fn of(self, bytes: &[u8]) -> String {
        match self.find(bytes) {
            Some(name) => name.to_owned(),
            None => bytes_to_string(bytes),
        }
    }

    /// `bytes` as the text's own `str`, if they are a slice of it.
    fn find(self, bytes: &[u8]) -> Option<&'s str> {
        super::facts::slice_of(self.0?, bytes)
    }
}

/// A digest of the text with each line trimmed and blank lines dropped, so re-indenting or
/// moving a method does not change it, but any other edit does. FxHash (`rustc-hash`):
/// deterministic, and only compared within one run (a method with its base version).
pub fn digest_normalized(text: &[u8]) -> u64 {
    use std::hash::Hasher;
    // The trimmed lines, each ended by a newline, hashed in one call: hashing line by line
    // cost more per line than the line's bytes did.
    let mut normalized = Vec::with_capacity(text.len());
    let mut start = 0usize;
    for end in memchr::memchr_iter(b'\n', text).chain(std::iter::once(text.len())) {
        let first = super::loc::skip_spaces(text, start, end);
        let trimmed = text.get(first..end).unwrap_or_default().trim_ascii();
        if !trimmed.is_empty() {
            normalized.extend_from_slice(trimmed);
            normalized.push(b'\n');
        }
        start = end + 1;
    }
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(&normalized);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::facts::ReceiverKind;

    /// `(id, visibility, first line, last line)` of every method, in source order.
    fn inventory(src: &str) -> Vec<(String, Visibility, u32, u32)> {
        extract("t.rb", src.as_bytes())
            .methods
            .iter()
            .map(|m| (m.id(), m.visibility, m.line_range.0, m.line_range.1))
            .collect()
    }

    fn ids_with(src: &str, vis: Visibility) -> Vec<String> {
        inventory(src)
            .into_iter()
            .filter(|m| m.1 == vis)
            .map(|m| m.0)
            .collect()
    }

    #[test]
    fn private_section_applies_until_public_and_not_to_def_self() {
        let src = "class A\n  def a; end\n  private\n  def b; end\n  def self.c; end\n  public\n  def d; end\nend\n";
        assert_eq!(ids_with(src, Visibility::Private), vec!["A#b"]);
        assert_eq!(ids_with(src, Visibility::Public), vec!["A#a", "A.c", "A#d"]);
    }

    #[test]
    fn visibility_with_arguments_acts_on_defined_methods() {
        let src = "class A\n  def a; end\n  def b; end\n  def c; end\n  private :a, :b\n  protected def d; end\n  private *%i[c]\nend\n";
        assert_eq!(
            ids_with(src, Visibility::Private),
            vec!["A#a", "A#b", "A#c"]
        );
        assert_eq!(ids_with(src, Visibility::Protected), vec!["A#d"]);
    }

    #[test]
    fn private_class_method_and_class_self_sections() {
        let src = "class A\n  def self.a; end\n  private_class_method :a\n  private_class_method def self.b; end\n  class << self\n    def c; end\n    private\n    def d; end\n  end\nend\n";
        assert_eq!(
            ids_with(src, Visibility::Private),
            vec!["A.a", "A.b", "A.d"]
        );
        assert_eq!(ids_with(src, Visibility::Public), vec!["A.c"]);
    }

    #[test]
    fn module_function_makes_singleton_methods() {
        let src =
            "module M\n  def a; end\n  module_function :a\n  module_function\n  def b; end\nend\n";
        assert_eq!(ids_with(src, Visibility::Public), vec!["M.a", "M.b"]);
    }

    #[test]
    fn initialize_is_always_private() {
        assert_eq!(
            ids_with("class A\n  def initialize; end\nend\n", Visibility::Private),
            vec!["A#initialize"]
        );
    }

    #[test]
    fn concern_class_methods_block_is_singleton_and_included_block_instance() {
        let src = "module C\n  extend ActiveSupport::Concern\n  included do\n    def i; end\n  end\n  class_methods do\n    def s; end\n  end\nend\n";
        let facts = extract("t.rb", src.as_bytes());
        assert!(facts.classes[0].concern);
        assert_eq!(ids_with(src, Visibility::Public), vec!["C#i", "C.s"]);
    }

    #[test]
    fn concern_included_block_records_its_class_level_calls() {
        let src = "module Authenticatable\n  extend ActiveSupport::Concern\n  included do\n    before_action :authenticate_user, except: :feed\n  end\nend\nclass ApplicationController < ActionController::Base\n  include Authenticatable, Pundit::Authorization\nend\n";
        let facts = extract("t.rb", src.as_bytes());
        let dsl = |i: usize| -> Vec<DslCall> { facts.classes[i].dsl.clone() };
        assert_eq!(
            dsl(0),
            vec![DslCall {
                name: "before_action".to_string(),
                args: vec!["authenticate_user".to_string()],
                options: vec![("except".to_string(), vec!["feed".to_string()])],
                line: 4,
            }]
        );
        assert_eq!(
            dsl(1),
            vec![DslCall {
                name: "include".to_string(),
                args: vec![
                    "Authenticatable".to_string(),
                    "Pundit::Authorization".to_string()
                ],
                options: vec![],
                line: 8,
            }]
        );
    }

    #[test]
    fn nesting_compact_and_absolute_names() {
        let src = "module A\n  class B::C\n  end\n  class ::D\n  end\n  module E\n    class F; end\n  end\nend\n";
        let facts = extract("t.rb", src.as_bytes());
        let names: Vec<(&str, Vec<&str>)> = facts
            .classes
            .iter()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.nesting.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("A", vec!["A"]),
                ("A::B::C", vec!["A::B::C", "A"]),
                ("D", vec!["D", "A"]),
                ("A::E", vec!["A::E", "A"]),
                ("A::E::F", vec!["A::E::F", "A::E", "A"]),
            ]
        );
    }

    #[test]
    fn struct_class_new_and_data_define_are_namespaces() {
        let src = "Point = Struct.new(:x) do\n  def a; end\nend\nErr = Class.new(StandardError)\nV = Data.define(:v) do\n  def b = v\nend\nM = Module.new\n";
        let facts = extract("t.rb", src.as_bytes());
        let classes: Vec<(&str, Option<&str>)> = facts
            .classes
            .iter()
            .map(|c| (c.name.as_str(), c.superclass.as_deref()))
            .collect();
        assert_eq!(
            classes,
            vec![
                ("Point", Some("Struct")),
                ("Err", Some("StandardError")),
                ("V", Some("Data")),
                ("M", None)
            ]
        );
        assert_eq!(ids_with(src, Visibility::Public), vec!["Point#a", "V#b"]);
    }

    #[test]
    fn operator_setter_and_predicate_names() {
        let src = "class A\n  def ==(o) = true\n  def [](k); end\n  def <=>(o); end\n  def name=(v); end\n  def valid?; end\n  def save!; end\n  def self./(x); end\n  def -@; end\nend\n";
        assert_eq!(
            ids_with(src, Visibility::Public),
            vec!["A#==", "A#[]", "A#<=>", "A#name=", "A#valid?", "A#save!", "A./", "A#-@"]
        );
    }

    #[test]
    fn line_at_is_one_plus_the_newlines_before_the_offset() {
        let src = "# é\r\nclass A\n\n  X = <<~T\n    ü\n  T\n  def x = 1\nend";
        let result = ruby_prism::parse(src.as_bytes());
        for offset in 0..=src.len() {
            let before = src.as_bytes().get(..offset).unwrap();
            let expected = 1 + before.iter().filter(|&&b| b == b'\n').count();
            let offset = u32::try_from(offset).unwrap();
            assert_eq!(line_at(result.line_offsets(), offset) as usize, expected);
        }
    }

    #[test]
    fn endless_and_multiline_line_ranges() {
        let src = "class A\n  def a = 1\n\n  def b\n    1\n  end\n  def c(*) = d(*)\nend\n";
        let ranges: Vec<(String, u32, u32)> = inventory(src)
            .into_iter()
            .map(|m| (m.0, m.2, m.3))
            .collect();
        assert_eq!(
            ranges,
            vec![
                ("A#a".into(), 2, 2),
                ("A#b".into(), 4, 6),
                ("A#c".into(), 7, 7)
            ]
        );
    }

    #[test]
    fn attr_accessors_are_not_methods_and_top_level_defs_are_private_object_methods() {
        let src = "class A\n  attr_reader :x\n  attr_accessor :y\n  private attr_writer :z\nend\ndef helper; end\n";
        assert_eq!(
            inventory(src),
            vec![("Object#helper".to_string(), Visibility::Private, 6, 6)]
        );
    }

    #[test]
    fn body_facts_calls_constants_ivars_and_receivers() {
        let src = "module Billing\n  class Charge\n    def call(order, amount: 1)\n      validate!\n      self.log\n      PaymentGateway.charge(@payment, order.total)\n      ::Money.new(amount) + Tax::RATE\n      @gateway.refund(order.id)\n      foo::Bar\n    end\n  end\nend\n";
        let facts = extract("t.rb", src.as_bytes());
        let m = &facts.methods[0];
        assert_eq!(m.calls, vec!["foo", "log", "validate!"]);
        let consts: Vec<(&str, bool, Vec<&str>)> = m
            .constants
            .iter()
            .map(|c| (c.path.as_str(), c.absolute, c.methods.iter().collect()))
            .collect();
        assert_eq!(
            consts,
            vec![
                ("PaymentGateway", false, vec!["charge"]),
                ("Money", true, vec!["new"]),
                ("Tax::RATE", false, vec![])
            ]
        );
        assert_eq!(m.ivars, vec!["gateway", "payment"]);
        let recv: Vec<(ReceiverKind, &str, &str)> = m
            .receiver_calls()
            .map(|r| (r.kind, r.name, r.method))
            .collect();
        assert_eq!(
            recv,
            vec![
                (ReceiverKind::Ivar, "gateway", "refund"),
                (ReceiverKind::Param, "order", "id"),
                (ReceiverKind::Param, "order", "total"),
            ]
        );
        let params: Vec<(&str, ParamKind)> =
            m.params.iter().map(|p| (p.name.as_str(), p.kind)).collect();
        assert_eq!(
            params,
            vec![
                ("order", ParamKind::Required),
                ("amount", ParamKind::OptionalKeyword)
            ]
        );
    }

    #[test]
    fn defs_inside_methods_and_expressions_are_dynamic() {
        let src = "class A\n  def self.included(base)\n    base.class_eval do\n      def injected; end\n    end\n  end\n  HELPER = Class.new { def call; end }.new\nend\n";
        let facts = extract("t.rb", src.as_bytes());
        let listed: Vec<(String, bool, bool)> = facts
            .methods
            .iter()
            .map(|m| (m.id(), m.dynamic, m.is_public_api()))
            .collect();
        assert_eq!(
            listed,
            vec![
                ("A.included".into(), false, true),
                ("A#injected".into(), true, false),
                ("A#call".into(), true, false),
            ]
        );
    }

    #[test]
    fn digests_can_be_left_out_and_nothing_else_changes() {
        let src = "class A\n  def a\n    b(1)\n  end\n\n  def c = 2\nend\n";
        let with = extract("a.rb", src.as_bytes());
        let without = extract_with(
            "a.rb",
            src.as_bytes(),
            &ExtractOptions {
                digests: false,
                ..ExtractOptions::default()
            },
        );
        assert!(with.methods.iter().all(|m| m.body_digest != 0));
        assert!(without.methods.iter().all(|m| m.body_digest == 0));
        let mut cleared = with.clone();
        for m in &mut cleared.methods {
            m.body_digest = 0;
        }
        assert_eq!(cleared, without);
    }

    #[test]
    fn digest_ignores_indentation_and_blank_lines_only() {
        let a = digest_normalized(b"def a\n  x = 1\n  y\nend");
        let b = digest_normalized(b"    def a\n\n        x = 1\n      y\n    end\n");
        let c = digest_normalized(b"def a\n  x = 2\n  y\nend");
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn broken_files_keep_what_prism_recovered() {
        let src = "class A\n  def ok; end\n  def broken(\n  def later; end\nend\n";
        let facts = extract("t.rb", src.as_bytes());
        assert!(facts.diagnostic_count > 0);
        assert!(facts.diagnostics.iter().all(|d| d.line >= 1));
        assert!(
            facts.methods.iter().any(|m| m.name == "ok"),
            "{:?}",
            facts.methods
        );
    }

    #[test]
    fn hostile_bytes_never_panic() {
        let nul = extract("t.rb", b"class A\0\n");
        assert!(nul.skipped.as_deref().is_some_and(|r| r.contains("NUL")));
        let latin1 = extract("t.rb", b"# caf\xe9\nclass Caf\xe9\n  def x; end\nend\n");
        assert!(!latin1.utf8);
        let empty = extract("t.rb", b"");
        assert_eq!((empty.loc, empty.lines, empty.methods.len()), (0, 0, 0));
    }

    #[test]
    fn deep_nesting_is_bounded_not_a_stack_overflow() {
        let ifs = format!("{}x\n{}", "if a\n".repeat(10_000), "end\n".repeat(10_000));
        let parens = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        let chain = format!("def f\n  {}a\nend\n", "a + ".repeat(200_000));
        for src in [ifs, parens, chain] {
            let facts = in_big_stack(move || extract("t.rb", src.as_bytes()));
            assert!(facts.diagnostic_count > 0);
        }
    }

    fn in_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(crate::index::WORKER_STACK)
            .spawn(f)
            .expect("thread")
            .join()
            .expect("no panic")
    }
}
