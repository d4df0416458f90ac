//! Runs a lowered routes program the way `ActionDispatch::Routing::Mapper` runs a routes
//! file (actionpack `lib/action_dispatch/routing/mapper.rb`), and records every route that
//! reaches a controller action. The method names below follow Rails' (`map_match`,
//! `decomposed_match`, `add_route`, `path_for_action`, `name_for_action`, `nested`,
//! `member`, `shallow_scope`) so each rule can be checked against its source.
//!
//! What cannot be known without running the app (a path or `to:` built from a method call,
//! a loop over a computed list, a `draw` outside `Routes::load`) is skipped with a
//! diagnostic naming the file and line, never guessed. Routes to Rack endpoints (`mount`,
//! `to: redirect(...)`, `to: SomeApp`, lambdas) and URL helpers (`direct`, `resolve`) reach
//! no action and are skipped silently.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::inflect::{pluralize, singularize};
use super::lower::{self, Block, Call, Expr, Piece, Receiver, Stmt};
use super::{Route, Verb};

/// How many statements one file (with what it draws and the concerns it uses) may run;
/// loops over literal lists multiply, so this bounds the work on hostile input.
const MAX_WORK: usize = 200_000;

/// How many routes are kept.
const MAX_ROUTES: usize = 200_000;

/// How deeply blocks, concerns and drawn files may nest while running.
const MAX_NESTING: usize = 64;

/// How many diagnostics are kept (the rest are counted).
const MAX_DIAGNOSTICS: usize = 200;

/// How many files `draw` may nest.
const MAX_DRAW_DEPTH: usize = 16;

/// `Resources::CANONICAL_ACTIONS`: actions whose path is the scope's own.
const CANONICAL_ACTIONS: &[&str] = &["index", "create", "new", "show", "update", "destroy"];

/// `Resources::RESOURCE_OPTIONS`: options `resources` keeps; the others become a scope.
const RESOURCE_OPTIONS: &[&str] = &[
    "as",
    "controller",
    "path",
    "only",
    "except",
    "param",
    "concerns",
];

/// Reads a file `draw` names (`config/routes/admin.rb`), or says why it cannot.
pub(super) type Loader<'l> = &'l dyn Fn(&str) -> Result<Vec<u8>, String>;

/// A value computed from an expression.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Str(String),
    Sym(String),
    Array(Vec<Value>),
    Hash(Vec<(Value, Value)>),
    Nil,
    Bool(bool),
    Regex,
    /// A Rack endpoint or constraint object: a constant, a lambda, `redirect(...)`.
    Endpoint,
    /// Known only when the app runs: what it is.
    Unknown(String),
}

impl Value {
    /// The text of a string or symbol.
    fn text(&self) -> Option<&str> {
        match self {
            Value::Str(s) | Value::Sym(s) => Some(s),
            _ => None,
        }
    }

    /// Ruby truthiness, for options such as `shallow: true`.
    fn truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    /// `Array(value).map(&:to_s)`: names of a symbol, string or array of them.
    fn names(&self) -> Option<Vec<String>> {
        match self {
            Value::Array(items) => items.iter().map(|v| v.text().map(str::to_string)).collect(),
            Value::Nil => Some(Vec::new()),
            other => other.text().map(|t| vec![t.to_string()]),
        }
    }
}

/// Options of a call: pairs in written order, keys as written (string keys are paths in
/// `get "x" => "c#a"`; Rails reads options by symbol).
#[derive(Debug, Clone, Default, PartialEq)]
struct Opts(Vec<(Value, Value)>);

impl Opts {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0
            .iter()
            .find(|(k, _)| matches!(k, Value::Sym(s) if s == key))
            .map(|(_, v)| v)
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn remove(&mut self, key: &str) -> Option<Value> {
        let i = self
            .0
            .iter()
            .position(|(k, _)| matches!(k, Value::Sym(s) if s == key))?;
        Some(self.0.remove(i).1)
    }

    fn set(&mut self, key: &str, value: Value) {
        match self
            .0
            .iter_mut()
            .find(|(k, _)| matches!(k, Value::Sym(s) if s == key))
        {
            Some(slot) => slot.1 = value,
            None => self.0.push((Value::Sym(key.to_string()), value)),
        }
    }

    /// `defaults.merge(other)`: other's keys win, new keys go last.
    fn merged(mut self, other: &Opts) -> Opts {
        for (k, v) in &other.0 {
            match self.0.iter_mut().find(|(key, _)| key == k) {
                Some(slot) => slot.1 = v.clone(),
                None => self.0.push((k.clone(), v.clone())),
            }
        }
        self
    }

    /// ActiveSupport's `deep_merge`, as `with_options` merges: other's keys win, nested
    /// hashes merge.
    fn deep_merged(mut self, other: &Opts) -> Opts {
        for (k, v) in &other.0 {
            match self.0.iter_mut().find(|(key, _)| key == k) {
                Some(slot) => {
                    slot.1 = match (&slot.1, v) {
                        (Value::Hash(a), Value::Hash(b)) => {
                            Value::Hash(Opts(a.clone()).deep_merged(&Opts(b.clone())).0)
                        }
                        _ => v.clone(),
                    }
                }
                None => self.0.push((k.clone(), v.clone())),
            }
        }
        self
    }
}

/// Local variables and block parameters in reach, innermost first.
#[derive(Debug, Clone, Default)]
struct Env(Option<Rc<Binding>>);

#[derive(Debug)]
struct Binding {
    name: String,
    value: Value,
    parent: Env,
}

impl Env {
    fn bind(&self, name: &str, value: Value) -> Env {
        Env(Some(Rc::new(Binding {
            name: name.to_string(),
            value,
            parent: self.clone(),
        })))
    }

    fn get(&self, name: &str) -> Option<&Value> {
        let mut next = self.0.as_deref();
        while let Some(b) = next {
            if b.name == name {
                return Some(&b.value);
            }
            next = b.parent.0.as_deref();
        }
        None
    }
}

/// `Scope#scope_level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Level {
    #[default]
    Top,
    Resources,
    Resource,
    Collection,
    Member,
    New,
    Nested,
    Root,
}

/// A `Resource` or `SingletonResource`.
#[derive(Debug)]
struct Resource {
    singleton: bool,
    path: String,
    controller: String,
    param: String,
    plural: String,
    singular: String,
    actions: Vec<String>,
    /// `@scope[:shallow]` when it was declared.
    shallow: bool,
}

impl Resource {
    fn new(
        entity: &str,
        singleton: bool,
        api_only: bool,
        shallow: bool,
        opts: &Opts,
    ) -> Result<Self, String> {
        let text_opt = |key: &str| -> Result<Option<String>, String> {
            match opts.get(key) {
                None | Some(Value::Nil) => Ok(None),
                Some(v) => v
                    .text()
                    .map(|t| Some(t.to_string()))
                    .ok_or_else(|| format!("its `{key}:` is {}", describe(v))),
            }
        };
        let as_ = text_opt("as")?;
        let path = text_opt("path")?.unwrap_or_else(|| entity.to_string());
        let param = text_opt("param")?.unwrap_or_else(|| "id".to_string());
        let name = as_.clone().unwrap_or_else(|| entity.to_string());
        // A singleton's plural is memoized while `@as` is still nil: it comes from the
        // entity, and names the default controller.
        let (plural, singular) = if singleton {
            (pluralize(entity), name)
        } else {
            let singular = singularize(&name);
            (name, singular)
        };
        let controller = text_opt("controller")?.unwrap_or_else(|| {
            if singleton {
                plural.clone()
            } else {
                entity.to_string()
            }
        });
        let defaults: &[&str] = match (singleton, api_only) {
            (false, false) => &[
                "index", "create", "new", "show", "update", "destroy", "edit",
            ],
            (false, true) => &["index", "create", "show", "update", "destroy"],
            (true, false) => &["show", "create", "update", "destroy", "new", "edit"],
            (true, true) => &["show", "create", "update", "destroy"],
        };
        let list = |key: &str| -> Result<Option<Vec<String>>, String> {
            match opts.get(key) {
                None => Ok(None),
                Some(v) if !v.truthy() => Ok(None),
                Some(v) => v
                    .names()
                    .map(Some)
                    .ok_or_else(|| format!("its `{key}:` is {}", describe(v))),
            }
        };
        let available = match list("only")? {
            Some(only) => only,
            None => defaults.iter().map(|a| a.to_string()).collect(),
        };
        let actions = match list("except")? {
            Some(except) => available
                .into_iter()
                .filter(|a| !except.contains(a))
                .collect(),
            None => available,
        };
        Ok(Resource {
            singleton,
            path,
            controller,
            param,
            plural,
            singular,
            actions,
            shallow,
        })
    }

    fn has(&self, action: &str) -> bool {
        self.actions.iter().any(|a| a == action)
    }

    fn member_name(&self) -> &str {
        &self.singular
    }

    fn collection_name(&self) -> String {
        if self.singleton {
            self.singular.clone()
        } else if self.singular == self.plural {
            format!("{}_index", self.plural)
        } else {
            self.plural.clone()
        }
    }

    fn member_scope(&self) -> String {
        if self.singleton {
            self.path.clone()
        } else {
            format!("{}/:{}", self.path, self.param)
        }
    }

    fn nested_scope(&self) -> String {
        if self.singleton {
            self.path.clone()
        } else {
            format!("{}/:{}_{}", self.path, self.singular, self.param)
        }
    }
}

/// `@scope`: what the enclosing blocks set. Each block runs with its own copy, which is
/// what Rails' chain of scope frames amounts to.
#[derive(Debug, Clone, Default)]
struct Scope {
    path: String,
    shallow_path: Option<String>,
    as_: Option<String>,
    shallow_prefix: Option<String>,
    module: Option<String>,
    controller: Option<String>,
    action: Option<String>,
    path_names: BTreeMap<String, String>,
    shallow: bool,
    level: Level,
    resource: Option<Rc<Resource>>,
    /// `shallow_nesting_depth`: enclosing resources declared shallow.
    shallow_depth: usize,
    /// `only:`/`except:` given to `scope`.
    action_options: Option<Opts>,
    via: Option<Value>,
    to: Option<Value>,
}

impl Scope {
    fn resource_scope(&self) -> bool {
        matches!(self.level, Level::Resources | Level::Resource)
    }

    /// `Resources#shallow?`.
    fn is_shallow(&self) -> bool {
        self.shallow && self.resource.as_ref().is_some_and(|r| !r.singleton)
    }

    fn path_scope(&mut self, child: &str) {
        self.path = normalize_path(&format!("{}/{}", self.path, child));
    }

    /// `shallow_scope`: the path and name prefix of the nearest non-nested scope.
    fn shallow_scope(&mut self) {
        self.as_ = self.shallow_prefix.clone();
        self.path = self.shallow_path.clone().unwrap_or_default();
    }

    fn canonical_action(&self, action: &str) -> bool {
        matches!(self.level, Level::Collection | Level::Member | Level::New)
            && CANONICAL_ACTIONS.contains(&action)
    }
}

/// What a block runs with.
#[derive(Debug, Clone)]
struct Cx {
    scope: Scope,
    env: Env,
    /// Options `with_options` (without a block parameter) adds to implicit calls.
    merge: Option<Rc<Opts>>,
    /// `with_options ... do |r|`: the variables whose calls get options.
    proxies: Vec<(String, Rc<Opts>)>,
    /// The file whose code runs (a drawn file, the file of a concern).
    file: Rc<str>,
    nesting: usize,
}

/// A route being built: `decomposed_match`'s arguments.
#[derive(Debug, Clone)]
struct Pending {
    /// The path or action as written (`"settings(/:tab)"`, `preview`).
    action: String,
    controller: Option<Value>,
    opts: Opts,
    path: Option<String>,
    to: Option<Value>,
    via: Vec<Verb>,
    line: u32,
}

/// A `concern :name do ... end`.
#[derive(Debug)]
struct Concern {
    block: Rc<Block>,
    env: Env,
    file: Rc<str>,
}

/// Runs routes files and collects routes and diagnostics.
pub(super) struct Mapper<'l> {
    pub(super) routes: Vec<Route>,
    pub(super) diagnostics: Vec<String>,
    dropped_diagnostics: usize,
    concerns: BTreeMap<String, Rc<Concern>>,
    loader: Option<Loader<'l>>,
    drawing: Vec<String>,
    work: usize,
    stopped: bool,
    api_only: bool,
    /// `resources_path_names`.
    path_names: BTreeMap<String, String>,
}

impl<'l> Mapper<'l> {
    pub(super) fn new(loader: Option<Loader<'l>>, api_only: bool) -> Self {
        Mapper {
            routes: Vec::new(),
            diagnostics: Vec::new(),
            dropped_diagnostics: 0,
            concerns: BTreeMap::new(),
            loader,
            drawing: Vec::new(),
            work: 0,
            stopped: false,
            api_only,
            path_names: BTreeMap::new(),
        }
    }

    /// Reads `config/routes.rb` (or a file given to `Routes::parse`).
    pub(super) fn run_main(&mut self, rel: &str, source: &[u8]) {
        let cx = Cx {
            scope: Scope::default(),
            env: Env::default(),
            merge: None,
            proxies: Vec::new(),
            file: Rc::from(rel),
            nesting: 0,
        };
        self.run_file(source, false, &cx);
    }

    /// Ends the run: the count of diagnostics that were not kept.
    pub(super) fn finish(&mut self) {
        if self.dropped_diagnostics > 0 {
            self.diagnostics.push(format!(
                "{} more diagnostics not shown",
                self.dropped_diagnostics
            ));
        }
    }

    fn diag(&mut self, file: &str, line: u32, message: impl AsRef<str>) {
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics
                .push(format!("{file}:{line}: {}", message.as_ref()));
        } else {
            self.dropped_diagnostics += 1;
        }
    }

    fn run_file(&mut self, source: &[u8], whole_file: bool, cx: &Cx) {
        let file = cx.file.clone();
        if memchr::memchr(0, source).is_some() {
            self.diag(&file, 1, "binary file (contains NUL bytes); no routes read");
            return;
        }
        if u32::try_from(source.len()).is_err() {
            self.diag(&file, 1, "file is larger than 4 GiB; no routes read");
            return;
        }
        let lowered = lower::lower(source, whole_file);
        let errors = lowered.errors.len();
        for (line, message) in lowered.errors.iter().take(3) {
            self.diag(
                &file,
                *line,
                format!("syntax error: {message}; routes were read from what parsed"),
            );
        }
        if errors > 3 {
            self.diag(&file, 1, format!("{} more syntax errors", errors - 3));
        }
        if lowered.truncated {
            self.diag(
                &file,
                1,
                format!(
                    "syntax nested deeper than {} levels was not read",
                    lower::MAX_DEPTH
                ),
            );
        }
        let mut cx = cx.clone();
        for (name, value) in &lowered.constants {
            let value = eval(value, &cx.env);
            cx.env = cx.env.bind(name, value);
        }
        self.body(&lowered.body, &cx);
    }

    fn body(&mut self, stmts: &[Stmt], cx: &Cx) {
        if cx.nesting >= MAX_NESTING {
            self.diag(
                &cx.file,
                1,
                format!("blocks, concerns or drawn files nested deeper than {MAX_NESTING} levels were not read"),
            );
            return;
        }
        let mut cx = Cx {
            nesting: cx.nesting + 1,
            ..cx.clone()
        };
        for stmt in stmts {
            if self.stopped {
                return;
            }
            self.work += 1;
            if self.work > MAX_WORK {
                self.stopped = true;
                self.diag(
                    &cx.file,
                    stmt_line(stmt),
                    format!("stopped after {MAX_WORK} statements (loops over long lists?); later routes were not read"),
                );
                return;
            }
            match stmt {
                Stmt::Call(call) => self.call(call, &cx),
                Stmt::Branches { line, branches } => {
                    self.diag(
                        &cx.file,
                        *line,
                        "condition not evaluated; the routes of every branch are read",
                    );
                    for branch in branches {
                        self.body(branch, &cx);
                    }
                }
                Stmt::Assign { name, value, .. } => {
                    let value = eval(value, &cx.env);
                    cx.env = cx.env.bind(name, value);
                }
                Stmt::Other { line, what } => {
                    self.diag(
                        &cx.file,
                        *line,
                        format!("{what} in a routes file is not read"),
                    );
                }
            }
        }
    }

    fn block(&mut self, block: Option<&Rc<Block>>, cx: &Cx) {
        if let Some(block) = block {
            self.body(&block.body, cx);
        }
    }

    fn call(&mut self, call: &Call, cx: &Cx) {
        let file = cx.file.clone();
        match &call.receiver {
            Receiver::Implicit => {
                let merge = cx.merge.clone();
                self.routing_call(call, cx, merge.as_deref());
            }
            Receiver::Var(var) => {
                if let Some((_, opts)) = cx.proxies.iter().rev().find(|(v, _)| v == var) {
                    let opts = opts.clone();
                    self.routing_call(call, cx, Some(&opts));
                } else if call.name == "each" {
                    match cx.env.get(var).cloned() {
                        Some(Value::Array(items)) => self.each(call, items, cx),
                        _ => self.diag(
                            &file,
                            call.line,
                            format!(
                                "loop over `{var}`, a value known only at runtime, not followed"
                            ),
                        ),
                    }
                } else {
                    self.diag(
                        &file,
                        call.line,
                        format!("`{var}.{}` is not a routing call; not read", call.name),
                    );
                }
            }
            Receiver::Array(items) if call.name == "each" => {
                let items = items.iter().map(|e| eval(e, &cx.env)).collect();
                self.each(call, items, cx);
            }
            Receiver::Array(_) => self.diag(
                &file,
                call.line,
                format!("`.{}` on a list is not a routing call; not read", call.name),
            ),
            Receiver::Other(text) => {
                let message = if call.name == "each" {
                    format!("loop over `{text}`, a value known only at runtime, not followed")
                } else {
                    format!("`{text}.{}` is not a routing call; not read", call.name)
                };
                self.diag(&file, call.line, message);
            }
        }
    }

    /// `%w[a b].each do |x| ... end`: the body once per element.
    fn each(&mut self, call: &Call, items: Vec<Value>, cx: &Cx) {
        let Some(block) = &call.block else {
            return;
        };
        let param = block.params.first().cloned().unwrap_or_default();
        for item in items {
            if item.text().is_none() {
                self.diag(
                    &cx.file,
                    call.line,
                    format!("loop over {}, not followed", describe(&item)),
                );
                return;
            }
            let mut inner = cx.clone();
            if !param.is_empty() {
                inner.env = inner.env.bind(&param, item);
            }
            self.body(&block.body, &inner);
        }
    }

    fn routing_call(&mut self, call: &Call, cx: &Cx, merge: Option<&Opts>) {
        let mut args: Vec<Value> = call.args.iter().map(|e| eval(e, &cx.env)).collect();
        if let Some(merge) = merge {
            // ActiveSupport's OptionMerger: the call's own options win.
            match args.last_mut() {
                Some(Value::Hash(pairs)) => {
                    let mine = Opts(std::mem::take(pairs));
                    *pairs = merge.clone().deep_merged(&mine).0;
                }
                _ => args.push(Value::Hash(merge.0.clone())),
            }
        }
        let (positional, opts) = extract_options(args);
        let line = call.line;
        let block = call.block.as_ref();
        match call.name.as_str() {
            "get" => self.map_method(Verb::Get, positional, opts, line, cx),
            "post" => self.map_method(Verb::Post, positional, opts, line, cx),
            "patch" => self.map_method(Verb::Patch, positional, opts, line, cx),
            "put" => self.map_method(Verb::Put, positional, opts, line, cx),
            "delete" => self.map_method(Verb::Delete, positional, opts, line, cx),
            "options" => self.map_method(Verb::Options, positional, opts, line, cx),
            "match" => self.match_(positional, opts, line, cx),
            "root" => self.root(positional, opts, line, cx),
            "resources" => self.resources(false, positional, opts, block, line, cx),
            "resource" => self.resources(true, positional, opts, block, line, cx),
            "namespace" => self.namespace(positional, opts, block, line, cx),
            "scope" => {
                if let Some(inner) = self.scoped(cx, &positional, opts, line) {
                    self.block(block, &inner);
                }
            }
            "controller" => match positional.first().and_then(Value::text) {
                Some(name) => {
                    let mut inner = cx.clone();
                    inner.scope.controller = Some(name.to_string());
                    self.block(block, &inner);
                }
                None => self.diag(
                    &cx.file,
                    line,
                    "`controller` with a name known only at runtime; its routes are not read",
                ),
            },
            // Request constraints and parameter defaults change no path or action.
            "constraints" | "defaults" => self.block(block, cx),
            "with_options" => self.with_options(opts, block, cx),
            "concern" => self.concern(&positional, block, line, cx),
            "concerns" => self.concerns(&positional, opts, line, cx),
            "member" => self.member(cx, line, &mut |m, cx| m.block(block, cx)),
            "collection" => self.collection(cx, line, &mut |m, cx| m.block(block, cx)),
            "new" => self.new_scope(cx, line, &mut |m, cx| m.block(block, cx)),
            "nested" => self.nested(cx, line, &mut |m, cx| m.block(block, cx)),
            "shallow" => {
                let mut inner = cx.clone();
                inner.scope.shallow = true;
                self.block(block, &inner);
            }
            "draw" => self.draw(&positional, line, cx),
            "resources_path_names" => {
                for (k, v) in &opts.0 {
                    if let (Some(k), Some(v)) = (k.text(), v.text()) {
                        self.path_names.insert(k.to_string(), v.to_string());
                    }
                }
            }
            // Rack apps and URL helpers: no controller action.
            "mount"
            | "direct"
            | "resolve"
            | "default_url_options"
            | "default_url_options="
            | "redirect" => {}
            other => {
                let message = if block.is_some() {
                    format!("`{other}` is not a Rails routing method; the routes it makes are not read, the routes in its block are read as if it were not there")
                } else {
                    format!(
                        "`{other}` is not a Rails routing method; the routes it makes are not read"
                    )
                };
                self.diag(&cx.file, line, message);
                self.block(block, cx);
            }
        }
    }

    /// `HttpHelpers#map_method`: the verb replaces any `via:`.
    fn map_method(
        &mut self,
        verb: Verb,
        positional: Vec<Value>,
        mut opts: Opts,
        line: u32,
        cx: &Cx,
    ) {
        opts.set("via", Value::Sym(verb.helper().to_string()));
        self.match_(positional, opts, line, cx);
    }

    /// `Resources#match`: `match "path" => "c#a"` or `match "path", options`.
    fn match_(&mut self, positional: Vec<Value>, mut opts: Opts, line: u32, cx: &Cx) {
        let paths = if positional.is_empty() {
            let Some(i) = opts.0.iter().position(|(k, _)| matches!(k, Value::Str(_))) else {
                self.diag(&cx.file, line, "route without a path; not read");
                return;
            };
            let (path, to) = opts.0.remove(i);
            match to {
                Value::Sym(action) => opts.set("action", Value::Sym(action)),
                Value::Str(s) if s.contains('#') => opts.set("to", Value::Str(s)),
                Value::Str(s) => opts.set("controller", Value::Str(s)),
                other => opts.set("to", other),
            }
            vec![path]
        } else {
            positional
        };
        self.map_match(paths, opts, line, cx);
    }

    fn map_match(&mut self, paths: Vec<Value>, mut opts: Opts, line: u32, cx: &Cx) {
        let file = cx.file.clone();
        let scope = &cx.scope;
        let on = match opts.remove("on") {
            None | Some(Value::Nil) => None,
            Some(v) => match v.text() {
                Some(on @ ("member" | "collection" | "new")) => Some(on.to_string()),
                _ => {
                    self.diag(
                        &file,
                        line,
                        format!(
                            "`on: {}` is not member, collection or new; not read",
                            show(&v)
                        ),
                    );
                    return;
                }
            },
        };
        let mut to = opts.remove("to").or_else(|| scope.to.clone());
        if let (Some(c), Some(a)) = (&scope.controller, &scope.action) {
            to = to.or_else(|| Some(Value::Str(format!("{c}#{a}"))));
        }
        let controller = opts
            .remove("controller")
            .or_else(|| scope.controller.clone().map(Value::Str));
        let option_path = opts.remove("path");
        let via_value = opts.remove("via").or_else(|| scope.via.clone());
        let via = match via_value.as_ref().map(verbs) {
            Some(Ok(v)) if !v.is_empty() => v,
            Some(Err(why)) => {
                self.diag(&file, line, format!("`via:` {why}; not read"));
                return;
            }
            _ => {
                self.diag(
                    &file,
                    line,
                    "`match` without `via:` (an error in Rails); not read",
                );
                return;
            }
        };
        for key in ["format", "anchor", "constraints", "defaults"] {
            opts.remove(key);
        }
        let action_opt = opts.get("action").cloned();
        // `path_types[String]` first, then `path_types[Symbol]`.
        let mut strings = Vec::new();
        let mut symbols = Vec::new();
        for path in paths {
            match path {
                Value::Str(p) => strings.push(p),
                Value::Sym(a) => symbols.push(a),
                other => {
                    self.diag(
                        &file,
                        line,
                        format!("route path is {}; not read", describe(&other)),
                    );
                }
            }
        }
        for path in strings {
            let to = get_to_from_path(&path, to.clone(), action_opt.as_ref());
            let pending = Pending {
                action: path.clone(),
                controller: controller.clone(),
                opts: opts.clone(),
                path: Some(path),
                to,
                via: via.clone(),
                line,
            };
            self.decomposed_match(pending, on.as_deref(), cx);
        }
        for action in symbols {
            let path = match &option_path {
                None | Some(Value::Nil) => None,
                Some(v) => match v.text() {
                    Some(t) => Some(t.to_string()),
                    None => {
                        self.diag(&file, line, format!("`path:` is {}; not read", describe(v)));
                        continue;
                    }
                },
            };
            let pending = Pending {
                action,
                controller: controller.clone(),
                opts: opts.clone(),
                path,
                to: to.clone(),
                via: via.clone(),
                line,
            };
            self.decomposed_match(pending, on.as_deref(), cx);
        }
    }

    fn decomposed_match(&mut self, pending: Pending, on: Option<&str>, cx: &Cx) {
        let line = pending.line;
        let mut run = Some(pending);
        let mut add = |m: &mut Self, cx: &Cx| {
            if let Some(p) = run.take() {
                m.add_route(p, cx);
            }
        };
        match on {
            Some("member") => self.member(cx, line, &mut add),
            Some("collection") => self.collection(cx, line, &mut add),
            Some(_) => self.new_scope(cx, line, &mut add),
            None => match cx.scope.level {
                Level::Resources => self.nested(cx, line, &mut add),
                Level::Resource => self.member(cx, line, &mut add),
                _ => add(self, cx),
            },
        }
    }

    fn add_route(&mut self, mut p: Pending, cx: &Cx) {
        let file = cx.file.clone();
        let scope = &cx.scope;
        let path = self.path_for_action(&p.action, p.path.as_deref(), scope);
        if path.is_empty() {
            self.diag(
                &file,
                p.line,
                "route with an empty path (an error in Rails); not read",
            );
            return;
        }
        let mut default_action = match p.opts.remove("action") {
            Some(v) => match v.text() {
                Some(a) => Some(a.to_string()),
                None => {
                    self.diag(
                        &file,
                        p.line,
                        format!("`action:` is {}; not read", describe(&v)),
                    );
                    return;
                }
            },
            None => scope.action.clone(),
        };
        let name_action = if is_word_path(&p.action) {
            if !p.action.contains('/') {
                default_action.get_or_insert_with(|| p.action.replace('-', "_"));
            }
            Some(p.action.as_str())
        } else {
            None
        };
        let name = match p.opts.get("as") {
            Some(v) if !v.truthy() => None,
            Some(v) => match v.text() {
                Some(as_) => name_for_action(Some(as_), name_action, scope),
                None => None,
            },
            None => name_for_action(None, name_action, scope),
        };
        let path = normalize_path(&path);

        // `Mapping#normalize_options!`: the controller and action `to:` names, else the
        // defaults; then the scope's module.
        let (to_controller, to_action) = match &p.to {
            None => (None, None),
            Some(Value::Str(t) | Value::Sym(t)) => match t.split_once('#') {
                Some((c, a)) => (Some(c.to_string()), Some(a.to_string())),
                None => (None, None),
            },
            Some(Value::Unknown(what)) => {
                self.diag(&file, p.line, format!("`to:` is {what}; not read"));
                return;
            }
            // A Rack endpoint: `redirect(...)`, a constant, a lambda.
            Some(Value::Endpoint) => return,
            Some(_) => (None, None),
        };
        let controller = match to_controller {
            Some(c) => Some(c),
            None => match &p.controller {
                None | Some(Value::Nil) => None,
                Some(v) => match v.text() {
                    Some(c) => Some(c.to_string()),
                    None => {
                        self.diag(
                            &file,
                            p.line,
                            format!("`controller:` is {}; not read", describe(v)),
                        );
                        return;
                    }
                },
            },
        };
        let controller = controller.map(|c| match (&scope.module, c.strip_prefix('/')) {
            (Some(_), Some(absolute)) => absolute.to_string(),
            (Some(module), None) => format!("{module}/{c}"),
            (None, _) => c,
        });
        let action = to_action.or(default_action);
        if has_segment(&path, "controller") || has_segment(&path, "action") {
            self.diag(
                &file,
                p.line,
                format!("old-style route `{path}` takes its controller or action from the URL; not read"),
            );
            return;
        }
        let (Some(controller), Some(action)) = (controller, action) else {
            self.diag(
                &file,
                p.line,
                format!("route `{path}` names no controller or action; not read"),
            );
            return;
        };
        if !valid_controller(&controller) {
            self.diag(
                &file,
                p.line,
                format!("`{controller}` is not a controller path (an error in Rails); not read"),
            );
            return;
        }
        let path = strip_format(&path);
        for verb in std::mem::take(&mut p.via) {
            if self.routes.len() >= MAX_ROUTES {
                if !self.stopped {
                    self.stopped = true;
                    self.diag(
                        &file,
                        p.line,
                        format!("more than {MAX_ROUTES} routes; later routes were not read"),
                    );
                }
                return;
            }
            self.routes.push(Route {
                verb,
                path: path.clone(),
                controller: controller.clone(),
                action: action.clone(),
                name: name.clone(),
                line: p.line,
                file: file.to_string(),
            });
        }
    }

    /// `resources` and `resource` (`apply_common_behavior_for`, then the resource).
    fn resources(
        &mut self,
        singleton: bool,
        mut positional: Vec<Value>,
        mut opts: Opts,
        block: Option<&Rc<Block>>,
        line: u32,
        cx: &Cx,
    ) {
        let file = cx.file.clone();
        let kind = if singleton { "resource" } else { "resources" };
        if positional.len() > 1 {
            for entity in positional {
                self.resources(singleton, vec![entity], opts.clone(), block, line, cx);
            }
            return;
        }
        let entity = match positional.pop() {
            Some(v) => match v.text() {
                Some(e) => e.to_string(),
                None => {
                    self.diag(
                        &file,
                        line,
                        format!("`{kind}` of {}; not read", describe(&v)),
                    );
                    return;
                }
            },
            None => {
                self.diag(&file, line, format!("`{kind}` without a name; not read"));
                return;
            }
        };
        if opts.get("shallow").is_some_and(Value::truthy) {
            opts.remove("shallow");
            let mut inner = cx.clone();
            inner.scope.shallow = true;
            self.resources(
                singleton,
                vec![Value::Sym(entity)],
                opts,
                block,
                line,
                &inner,
            );
            return;
        }
        if cx.scope.resource_scope() {
            let mut rerun = Some((entity, opts));
            self.nested(cx, line, &mut |m, cx| {
                if let Some((entity, opts)) = rerun.take() {
                    m.resources(singleton, vec![Value::Sym(entity)], opts, block, line, cx);
                }
            });
            return;
        }
        // Regexp options are constraints; the rest that are not resource options make a scope.
        opts.0.retain(|(_, v)| !matches!(v, Value::Regex));
        let (keep, scope_opts): (Vec<_>, Vec<_>) = opts.0.into_iter().partition(
            |(k, _)| matches!(k, Value::Sym(s) if RESOURCE_OPTIONS.contains(&s.as_str())),
        );
        let mut opts = Opts(keep);
        if !scope_opts.is_empty() {
            if let Some(inner) = self.scoped(cx, &[], Opts(scope_opts), line) {
                self.resources(
                    singleton,
                    vec![Value::Sym(entity)],
                    opts,
                    block,
                    line,
                    &inner,
                );
            }
            return;
        }
        let mut inner = cx.clone();
        inner.scope.level = if singleton {
            Level::Resource
        } else {
            Level::Resources
        };
        if !(opts.get("only").is_some_and(Value::truthy)
            || opts.get("except").is_some_and(Value::truthy))
        {
            if let Some(action_opts) = &inner.scope.action_options {
                opts = opts.merged(action_opts);
            }
        }
        let resource = match Resource::new(
            &entity,
            singleton,
            self.api_only,
            inner.scope.shallow,
            &opts,
        ) {
            Ok(r) => Rc::new(r),
            Err(why) => {
                self.diag(&file, line, format!("`{kind} :{entity}`: {why}; not read"));
                return;
            }
        };
        if resource.shallow {
            inner.scope.shallow_depth += 1;
        }
        inner.scope.controller = Some(resource.controller.clone());
        inner.scope.resource = Some(resource.clone());
        self.block(block, &inner);
        if let Some(names) = opts.get("concerns").cloned() {
            self.concerns(&[names], Opts::default(), line, &inner);
        }
        let builtin = |m: &mut Self, verb: Verb, action: &str, cx: &Cx| {
            let mut opts = Opts::default();
            opts.set("via", Value::Sym(verb.helper().to_string()));
            m.map_match(vec![Value::Sym(action.to_string())], opts, line, cx);
        };
        let r = resource;
        if !singleton {
            self.collection(&inner, line, &mut |m, cx| {
                if r.has("index") {
                    builtin(m, Verb::Get, "index", cx);
                }
                if r.has("create") {
                    builtin(m, Verb::Post, "create", cx);
                }
            });
        }
        if r.has("new") {
            self.new_scope(&inner, line, &mut |m, cx| builtin(m, Verb::Get, "new", cx));
        }
        self.member(&inner, line, &mut |m, cx| {
            if r.has("edit") {
                builtin(m, Verb::Get, "edit", cx);
            }
            if r.has("show") {
                builtin(m, Verb::Get, "show", cx);
            }
            if r.has("update") {
                builtin(m, Verb::Patch, "update", cx);
                builtin(m, Verb::Put, "update", cx);
            }
            if r.has("destroy") {
                builtin(m, Verb::Delete, "destroy", cx);
            }
        });
        if singleton && r.has("create") {
            self.collection(&inner, line, &mut |m, cx| {
                builtin(m, Verb::Post, "create", cx)
            });
        }
    }

    fn resource_or_diag(&mut self, cx: &Cx, line: u32, what: &str) -> Option<Rc<Resource>> {
        match (&cx.scope.resource, cx.scope.resource_scope()) {
            (Some(r), true) => Some(r.clone()),
            _ => {
                self.diag(
                    &cx.file,
                    line,
                    format!("`{what}` outside a resources block (an error in Rails); not read"),
                );
                None
            }
        }
    }

    fn member(&mut self, cx: &Cx, line: u32, f: &mut dyn FnMut(&mut Self, &Cx)) {
        let Some(resource) = self.resource_or_diag(cx, line, "member") else {
            return;
        };
        let mut inner = cx.clone();
        inner.scope.level = Level::Member;
        if cx.scope.is_shallow() {
            inner.scope.shallow_scope();
        }
        inner.scope.path_scope(&resource.member_scope());
        f(self, &inner);
    }

    fn collection(&mut self, cx: &Cx, line: u32, f: &mut dyn FnMut(&mut Self, &Cx)) {
        let Some(resource) = self.resource_or_diag(cx, line, "collection") else {
            return;
        };
        let mut inner = cx.clone();
        inner.scope.level = Level::Collection;
        inner.scope.path_scope(&resource.path);
        f(self, &inner);
    }

    fn new_scope(&mut self, cx: &Cx, line: u32, f: &mut dyn FnMut(&mut Self, &Cx)) {
        let Some(resource) = self.resource_or_diag(cx, line, "new") else {
            return;
        };
        let mut inner = cx.clone();
        inner.scope.level = Level::New;
        let new_path = self.action_path(&cx.scope, "new");
        inner
            .scope
            .path_scope(&format!("{}/{new_path}", resource.path));
        f(self, &inner);
    }

    fn nested(&mut self, cx: &Cx, line: u32, f: &mut dyn FnMut(&mut Self, &Cx)) {
        let Some(resource) = self.resource_or_diag(cx, line, "nested") else {
            return;
        };
        let mut inner = cx.clone();
        inner.scope.level = Level::Nested;
        if cx.scope.is_shallow() && cx.scope.shallow_depth >= 1 {
            inner.scope.shallow_scope();
        }
        inner.scope.path_scope(&resource.nested_scope());
        // `scope(nested_options)`: the name prefix; at the nested level a scope sets no
        // shallow path or prefix.
        inner.scope.as_ = Some(merge_as(inner.scope.as_.as_deref(), resource.member_name()));
        f(self, &inner);
    }

    /// `path_for_action`.
    fn path_for_action(&self, action: &str, path: Option<&str>, scope: &Scope) -> String {
        if let Some(path) = path {
            format!("{}/{path}", scope.path)
        } else if scope.canonical_action(action) {
            scope.path.clone()
        } else {
            format!("{}/{}", scope.path, self.action_path(scope, action))
        }
    }

    /// `action_path`: `path_names:` of the scope, then `resources_path_names`.
    fn action_path(&self, scope: &Scope, action: &str) -> String {
        scope
            .path_names
            .get(action)
            .or_else(|| self.path_names.get(action))
            .cloned()
            .unwrap_or_else(|| action.to_string())
    }

    /// `Scoping#scope`: the scope a block runs in, or `None` (with a diagnostic) when its
    /// path is known only at runtime.
    fn scoped(&mut self, cx: &Cx, positional: &[Value], mut opts: Opts, line: u32) -> Option<Cx> {
        let file = cx.file.clone();
        let mut inner = cx.clone();
        let s = &mut inner.scope;
        if !positional.is_empty() {
            let mut parts = Vec::new();
            for v in positional {
                match v.names() {
                    Some(names) => parts.extend(names),
                    None => {
                        self.diag(
                            &file,
                            line,
                            format!("`scope` path is {}; its routes are not read", describe(v)),
                        );
                        return None;
                    }
                }
            }
            opts.set("path", Value::Str(parts.join("/")));
        }
        let text = |opts: &Opts, key: &str| -> Result<Option<String>, String> {
            match opts.get(key) {
                None | Some(Value::Nil) => Ok(None),
                Some(v) => v
                    .text()
                    .map(|t| Some(t.to_string()))
                    .ok_or_else(|| format!("`{key}:` is {}", describe(v))),
            }
        };
        let read = (|| -> Result<_, String> {
            Ok((
                text(&opts, "path")?,
                text(&opts, "shallow_path")?,
                text(&opts, "as")?,
                text(&opts, "shallow_prefix")?,
                text(&opts, "module")?,
                text(&opts, "controller")?,
                text(&opts, "action")?,
            ))
        })();
        let (path, mut shallow_path, as_, mut shallow_prefix, module, controller, action) =
            match read {
                Ok(v) => v,
                Err(why) => {
                    self.diag(&file, line, format!("scope {why}; its routes are not read"));
                    return None;
                }
            };
        if s.level != Level::Nested {
            if opts.has("path") && !opts.has("shallow_path") {
                shallow_path = path.clone();
            }
            if opts.has("as") && !opts.has("shallow_prefix") {
                shallow_prefix = as_.clone();
            }
        }
        if opts.has("only") || opts.has("except") {
            let mut action_opts = Opts::default();
            for key in ["only", "except"] {
                if let Some(v) = opts.get(key) {
                    action_opts.set(key, v.clone());
                }
            }
            s.action_options = Some(action_opts);
        }
        if let Some(p) = path {
            s.path = normalize_path(&format!("{}/{p}", s.path));
        }
        if let Some(p) = shallow_path {
            s.shallow_path = Some(normalize_path(&format!(
                "{}/{p}",
                s.shallow_path.as_deref().unwrap_or("")
            )));
        }
        if let Some(a) = as_ {
            s.as_ = Some(merge_as(s.as_.as_deref(), &a));
        }
        if let Some(a) = shallow_prefix {
            s.shallow_prefix = Some(merge_as(s.shallow_prefix.as_deref(), &a));
        }
        if let Some(m) = module {
            s.module = Some(match &s.module {
                Some(parent) => format!("{parent}/{m}"),
                None => m,
            });
        }
        if let Some(c) = controller {
            s.controller = Some(c);
        }
        if let Some(a) = action {
            s.action = Some(a);
        }
        if let Some(Value::Hash(pairs)) = opts.get("path_names") {
            for (k, v) in pairs {
                if let (Some(k), Some(v)) = (k.text(), v.text()) {
                    s.path_names.insert(k.to_string(), v.to_string());
                }
            }
        }
        if let Some(v) = opts.get("shallow") {
            s.shallow = v.truthy();
        }
        if let Some(v) = opts.get("via") {
            s.via = Some(v.clone());
        }
        if let Some(v) = opts.get("to") {
            s.to = Some(v.clone());
        }
        Some(inner)
    }

    /// `Scoping#namespace` (`nested` first inside a resource).
    fn namespace(
        &mut self,
        positional: Vec<Value>,
        opts: Opts,
        block: Option<&Rc<Block>>,
        line: u32,
        cx: &Cx,
    ) {
        if cx.scope.resource_scope() {
            let mut rerun = Some((positional, opts));
            self.nested(cx, line, &mut |m, cx| {
                if let Some((positional, opts)) = rerun.take() {
                    m.namespace_here(positional, opts, block, line, cx);
                }
            });
        } else {
            self.namespace_here(positional, opts, block, line, cx);
        }
    }

    fn namespace_here(
        &mut self,
        positional: Vec<Value>,
        mut opts: Opts,
        block: Option<&Rc<Block>>,
        line: u32,
        cx: &Cx,
    ) {
        let Some(name) = positional.first().and_then(Value::text).map(str::to_string) else {
            self.diag(
                &cx.file,
                line,
                "`namespace` with a name known only at runtime; its routes are not read",
            );
            return;
        };
        let as_ = opts.get("as").cloned().unwrap_or(Value::Str(name.clone()));
        let path = opts
            .get("path")
            .cloned()
            .unwrap_or(Value::Str(name.clone()));
        let mut defaults = Opts::default();
        defaults.set("module", Value::Str(name.clone()));
        defaults.set("as", as_.clone());
        defaults.set("shallow_path", path);
        defaults.set("shallow_prefix", as_);
        let path_scope = opts.remove("path").unwrap_or(Value::Str(name));
        let Some(path_scope) = path_scope.text().map(str::to_string) else {
            self.diag(
                &cx.file,
                line,
                format!(
                    "`namespace` path is {}; its routes are not read",
                    describe(&path_scope)
                ),
            );
            return;
        };
        let mut inner = cx.clone();
        inner.scope.path_scope(&path_scope);
        if let Some(inner) = self.scoped(&inner, &[], defaults.merged(&opts), line) {
            self.block(block, &inner);
        }
    }

    /// `with_options(opts) do |r| ... end` or without the block parameter (then every call
    /// in the block gets the options).
    fn with_options(&mut self, opts: Opts, block: Option<&Rc<Block>>, cx: &Cx) {
        let Some(block) = block else {
            return;
        };
        let opts = Rc::new(opts);
        let mut inner = cx.clone();
        match block.params.first() {
            Some(param) if !param.is_empty() => inner.proxies.push((param.clone(), opts)),
            _ => inner.merge = Some(opts),
        }
        self.body(&block.body, &inner);
    }

    fn concern(&mut self, positional: &[Value], block: Option<&Rc<Block>>, line: u32, cx: &Cx) {
        let file = cx.file.clone();
        let Some(name) = positional.first().and_then(Value::text) else {
            self.diag(
                &file,
                line,
                "`concern` with a name known only at runtime; not read",
            );
            return;
        };
        let Some(block) = block else {
            self.diag(
                &file,
                line,
                format!("concern `{name}` is an object, not a block; its routes are not read"),
            );
            return;
        };
        self.concerns.insert(
            name.to_string(),
            Rc::new(Concern {
                block: block.clone(),
                env: cx.env.clone(),
                file,
            }),
        );
    }

    /// `concerns :a, :b, options`: each concern's block, in the current scope.
    fn concerns(&mut self, positional: &[Value], opts: Opts, line: u32, cx: &Cx) {
        let mut names = Vec::new();
        for v in positional {
            match v.names() {
                Some(n) => names.extend(n),
                None => self.diag(
                    &cx.file,
                    line,
                    format!("concern name is {}; not read", describe(v)),
                ),
            }
        }
        for name in names {
            let Some(concern) = self.concerns.get(&name).cloned() else {
                self.diag(
                    &cx.file,
                    line,
                    format!("no concern named `{name}` (an error in Rails); not read"),
                );
                continue;
            };
            let mut inner = cx.clone();
            inner.env = concern.env.clone();
            if let Some(param) = concern.block.params.first().filter(|p| !p.is_empty()) {
                inner.env = inner.env.bind(param, Value::Hash(opts.0.clone()));
            }
            inner.merge = None;
            inner.proxies = Vec::new();
            inner.file = concern.file.clone();
            self.body(&concern.block.body, &inner);
        }
    }

    /// `draw :admin`: `config/routes/admin.rb`, run in the current scope.
    fn draw(&mut self, positional: &[Value], line: u32, cx: &Cx) {
        let file = cx.file.clone();
        let Some(name) = positional.first().and_then(Value::text) else {
            self.diag(
                &file,
                line,
                "`draw` of a name known only at runtime; not read",
            );
            return;
        };
        if name.is_empty() || name.starts_with('/') || name.split('/').any(|s| s == "..") {
            self.diag(
                &file,
                line,
                format!("`draw {name:?}` names no file under config/routes; not read"),
            );
            return;
        }
        let rel = format!("config/routes/{name}.rb");
        let Some(loader) = self.loader else {
            self.diag(
                &file,
                line,
                format!("`draw` of {rel} not followed (only `Routes::load` reads other files)"),
            );
            return;
        };
        if self.drawing.contains(&rel) || self.drawing.len() >= MAX_DRAW_DEPTH {
            self.diag(&file, line, format!("{rel} draws itself; not read again"));
            return;
        }
        match loader(&rel) {
            Ok(source) => {
                self.drawing.push(rel.clone());
                let inner = Cx {
                    merge: None,
                    proxies: Vec::new(),
                    file: Rc::from(rel.as_str()),
                    env: Env::default(),
                    ..cx.clone()
                };
                self.run_file(&source, true, &inner);
                self.drawing.pop();
            }
            Err(why) => self.diag(&file, line, format!("`draw` of {rel}: {why}")),
        }
    }

    /// `root "c#a"`, `root to: "c#a"`.
    fn root(&mut self, positional: Vec<Value>, mut opts: Opts, line: u32, cx: &Cx) {
        match positional.first() {
            Some(Value::Str(to)) => opts.set("to", Value::Str(to.clone())),
            Some(other) => {
                self.diag(
                    &cx.file,
                    line,
                    format!("`root` of {}; not read", describe(other)),
                );
                return;
            }
            None if opts.0.is_empty() => {
                self.diag(&cx.file, line, "`root` without a target; not read");
                return;
            }
            None => {}
        }
        let mut root_opts = Opts::default();
        root_opts.set("as", Value::Sym("root".to_string()));
        root_opts.set("via", Value::Sym("get".to_string()));
        let opts = root_opts.merged(&opts);
        if cx.scope.level == Level::Resources {
            if let Some(resource) = cx.scope.resource.clone() {
                let mut inner = cx.clone();
                inner.scope.level = Level::Root;
                inner.scope.path_scope(&resource.path);
                self.map_match(vec![Value::Str("/".to_string())], opts, line, &inner);
                return;
            }
        }
        self.map_match(vec![Value::Str("/".to_string())], opts, line, cx);
    }
}

fn stmt_line(stmt: &Stmt) -> u32 {
    match stmt {
        Stmt::Call(c) => c.line,
        Stmt::Branches { line, .. } | Stmt::Other { line, .. } | Stmt::Assign { line, .. } => *line,
    }
}

/// `args.extract_options!`: a trailing hash is the options.
fn extract_options(mut args: Vec<Value>) -> (Vec<Value>, Opts) {
    match args.last() {
        Some(Value::Hash(_)) => match args.pop() {
            Some(Value::Hash(pairs)) => (args, Opts(pairs)),
            _ => (args, Opts::default()),
        },
        _ => (args, Opts::default()),
    }
}

fn eval(expr: &Expr, env: &Env) -> Value {
    match expr {
        Expr::Sym(s) => Value::Sym(s.clone()),
        Expr::Str(s) => Value::Str(s.clone()),
        Expr::Interp(pieces) => {
            let mut out = String::new();
            for piece in pieces {
                match piece {
                    Piece::Lit(t) => out.push_str(t),
                    Piece::Var(v) => match env.get(v).and_then(Value::text) {
                        Some(t) => out.push_str(t),
                        None => {
                            return Value::Unknown(format!("a string built from `{v}` at runtime"))
                        }
                    },
                    Piece::Other => return Value::Unknown("a string built at runtime".to_string()),
                }
            }
            Value::Str(out)
        }
        Expr::Array(items) => Value::Array(items.iter().map(|e| eval(e, env)).collect()),
        Expr::Hash(pairs) => Value::Hash(
            pairs
                .iter()
                .map(|(k, v)| (eval(k, env), eval(v, env)))
                .collect(),
        ),
        Expr::Nil => Value::Nil,
        Expr::True => Value::Bool(true),
        Expr::False => Value::Bool(false),
        Expr::Regex => Value::Regex,
        Expr::Const(name) => env.get(name).cloned().unwrap_or(Value::Endpoint),
        Expr::Lambda => Value::Endpoint,
        Expr::Var(name) => env
            .get(name)
            .cloned()
            .unwrap_or_else(|| Value::Unknown(format!("`{name}`, known only at runtime"))),
        Expr::Call { name, receiver } => {
            // `redirect(...)` and `SomeApp.new(...)` are Rack endpoints.
            if (name == "redirect" && !receiver) || (name == "new" && *receiver) {
                Value::Endpoint
            } else {
                Value::Unknown(format!("the result of `{name}`, known only at runtime"))
            }
        }
        Expr::Other(what) => Value::Unknown((*what).to_string()),
    }
}

/// What a value is, for diagnostics.
fn describe(value: &Value) -> String {
    match value {
        Value::Unknown(what) => what.clone(),
        Value::Str(_) | Value::Sym(_) => "a name".to_string(),
        Value::Array(_) => "a list".to_string(),
        Value::Hash(_) => "a hash".to_string(),
        Value::Nil => "nil".to_string(),
        Value::Bool(_) => "a boolean".to_string(),
        Value::Regex => "a regexp".to_string(),
        Value::Endpoint => "an object".to_string(),
    }
}

fn show(value: &Value) -> String {
    value
        .text()
        .map_or_else(|| describe(value), |t| format!(":{t}"))
}

/// `via:` as verbs: a symbol, a string, `:all` or a list of them.
fn verbs(value: &Value) -> Result<Vec<Verb>, String> {
    let one = |v: &Value| -> Result<Verb, String> {
        let text = v.text().ok_or_else(|| format!("is {}", describe(v)))?;
        match text.to_ascii_lowercase().as_str() {
            "get" => Ok(Verb::Get),
            "post" => Ok(Verb::Post),
            "patch" => Ok(Verb::Patch),
            "put" => Ok(Verb::Put),
            "delete" => Ok(Verb::Delete),
            "options" => Ok(Verb::Options),
            "all" => Ok(Verb::Any),
            other => Err(format!("names `{other}`, not an HTTP verb Rails routes")),
        }
    };
    match value {
        Value::Array(items) => items.iter().map(one).collect(),
        other => one(other).map(|v| vec![v]),
    }
}

/// `get_to_from_path`: `get "photos/search"` with no `to:` or `action:` routes to
/// `photos#search`.
fn get_to_from_path(path: &str, to: Option<Value>, action: Option<&Value>) -> Option<Value> {
    if to.is_some() || action.is_some() {
        return to;
    }
    let bare = path.strip_suffix("(.:format)").unwrap_or(path);
    let rest = bare.strip_prefix('/').unwrap_or(bare);
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let (first, tail) = rest.split_once('/')?;
    let shorthand = !first.is_empty()
        && first.chars().all(word)
        && !tail.is_empty()
        && tail.chars().all(|c| word(c) || c == '/');
    if !shorthand {
        return None;
    }
    let (controller, action) = rest.rsplit_once('/')?;
    Some(Value::Str(
        format!("{controller}#{action}").replace('-', "_"),
    ))
}

/// `/^[\w\-\/]+$/`: a path that can also name the action and route.
fn is_word_path(action: &str) -> bool {
    !action.is_empty()
        && action
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '/')
}

/// `name_for_action`: the route's name, as `rails routes` shows it (without the check that
/// the name is not taken: routes that share a helper, like index and create, both carry it).
fn name_for_action(as_: Option<&str>, action: Option<&str>, scope: &Scope) -> Option<String> {
    let prefix = match as_ {
        Some(a) => Some(a),
        None => action.filter(|a| !scope.canonical_action(a)),
    }
    .filter(|p| *p != "/" && !p.is_empty())
    .map(|p| normalize_name(&p.replace('-', "_")));
    let name_prefix = scope.as_.as_deref();
    let (collection_name, member_name) = match &scope.resource {
        Some(r) => {
            if as_.is_none() && action.is_none() {
                return None;
            }
            (Some(r.collection_name()), Some(r.member_name().to_string()))
        }
        None => (None, None),
    };
    let prefix = prefix.as_deref();
    let collection_name = collection_name.as_deref();
    let member_name = member_name.as_deref();
    let parts: Vec<Option<&str>> = match scope.level {
        Level::Nested => vec![name_prefix, prefix],
        Level::Collection => vec![prefix, name_prefix, collection_name],
        Level::New => vec![prefix, Some("new"), name_prefix, member_name],
        Level::Member => vec![prefix, name_prefix, member_name],
        Level::Root => vec![name_prefix, collection_name, prefix],
        _ => vec![name_prefix, member_name, prefix],
    };
    let candidate = parts
        .into_iter()
        .flatten()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    if candidate.is_empty() {
        return None;
    }
    let valid_start = candidate
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    (as_.is_some() || valid_start).then_some(candidate)
}

/// `Mapper.normalize_name`.
fn normalize_name(name: &str) -> String {
    let path = normalize_path(name);
    path.get(1..).unwrap_or("").replace('/', "_")
}

fn merge_as(parent: Option<&str>, child: &str) -> String {
    match parent {
        Some(p) => format!("{p}_{child}"),
        None => child.to_string(),
    }
}

/// `Mapper.normalize_path`: one leading slash, no repeated or trailing slash, and an
/// optional group's slash moved inside it (`/(:locale)/posts` → `(/:locale)/posts`).
pub(super) fn normalize_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 1);
    out.push('/');
    for c in path.chars() {
        if c == '/' && out.ends_with('/') {
            continue;
        }
        out.push(c);
    }
    if out.len() > 1 && out.ends_with('/') {
        out.pop();
    }
    // gsub(%r{/(\(+)/?}, '\1/')
    let mut moved = String::with_capacity(out.len());
    let mut chars = out.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '/' && chars.peek() == Some(&'(') {
            while chars.peek() == Some(&'(') {
                moved.push('(');
                chars.next();
            }
            moved.push('/');
            if chars.peek() == Some(&'/') {
                chars.next();
            }
        } else {
            moved.push(c);
        }
    }
    // A path of optional segments only starts with "/(" again: "(/:locale)" → "/(:locale)".
    if all_optional(&moved) {
        let opens = moved.len() - moved.trim_start_matches('(').len();
        if moved.get(opens..).is_some_and(|r| r.starts_with('/')) {
            let parens = moved.get(..opens).unwrap_or("").to_string();
            let rest = moved.get(opens + 1..).unwrap_or("").to_string();
            return format!("/{parens}{rest}");
        }
    }
    moved
}

/// `%r{^(\(+[^)]+\))(\(+/:[^)]+\))*$}`.
fn all_optional(path: &str) -> bool {
    let mut rest = path;
    let group = |rest: &str, needs_param: bool| -> Option<usize> {
        let opens = rest.len() - rest.trim_start_matches('(').len();
        if opens == 0 {
            return None;
        }
        let body = rest.get(opens..)?;
        if needs_param && !body.starts_with("/:") {
            return None;
        }
        let close = body.find(')')?;
        let min = if needs_param { 3 } else { 1 };
        (close >= min).then_some(opens + close + 1)
    };
    let Some(first) = group(rest, false) else {
        return false;
    };
    rest = rest.get(first..).unwrap_or("");
    while !rest.is_empty() {
        match group(rest, true) {
            Some(n) => rest = rest.get(n..).unwrap_or(""),
            None => return false,
        }
    }
    true
}

/// The path without the optional format group Rails adds and some routes write out.
fn strip_format(path: &str) -> String {
    let out = path.replace("(.:format)", "");
    if out.is_empty() {
        "/".to_string()
    } else {
        out
    }
}

/// Whether the path has a `:name` dynamic segment.
fn has_segment(path: &str, name: &str) -> bool {
    let needle = format!(":{name}");
    path.match_indices(&needle).any(|(i, _)| {
        let after = path.get(i + needle.len()..).and_then(|r| r.chars().next());
        !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `translate_controller`: `/\A[a-z_0-9][a-z_0-9\/]*\z/`.
fn valid_controller(controller: &str) -> bool {
    let mut chars = controller.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '/')
}
