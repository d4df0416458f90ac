//! Controllers (contract §5 rule 28): an action's outcome is its response (`render`,
//! `redirect_to`, `head`, a helper that always responds such as `render_404`; an implicit
//! render otherwise), and the `before_action` callbacks that apply to it run first.
//!
//! - **The chain.** A controller sees the filters and helpers of its ancestors and of the
//!   concerns each of them includes (`included do before_action ... end`), read from their
//!   files ([`chain`]). Callbacks run in declaration order, ancestors first; methods are
//!   found in Ruby's order (the class, its concerns last-included first, then the parent).
//! - **Guards.** A callback whose code can halt the request (a branch that renders,
//!   redirects, heads or raises) gives the action a terminal characteristic per halting
//!   branch, whichever side of the `if` halts, however deep the response sits
//!   (`respond_to` blocks, a helper such as `render_403`); a callback that loads a record
//!   with `find` where a `rescue`/`rescue_from` handles `ActiveRecord::RecordNotFound`
//!   gives a presence characteristic whose missing value is the handler's response (404
//!   when the handler is not read: \[J\], the contract's table).
//! - **App-wide filters** (declared in `ApplicationController` or above, and in the
//!   concerns it includes) run before every action of the app: they belong to their own
//!   spec, and an action's plan names them in its notes instead of repeating them.
//! - **Responders.** A helper whose every path responds (`render_404`, `render_forbidden`,
//!   `deny_access` when both its branches respond) is a response where it is called:
//!   `rescue ActiveRecord::RecordNotFound; render_404` returns 404, not the template.

use std::collections::HashMap;
use std::path::Path;

use crate::index::body::{Call, If, Node};
use crate::index::{ClassFacts, ExtractOptions, FileFacts, MethodFacts, MethodKind};

use super::outcome::{self, Outcome, Responders};

/// Code read from the `k`-th link of a chain has its lines shifted by `(k + 1) *
/// LINE_SPACE`, so a guard's `source_line` can name the file it comes from.
pub const LINE_SPACE: u32 = 1 << 24;

/// How deep helpers are followed (a helper calling a helper calling ...).
const MAX_DEPTH: usize = 4;

/// How many ancestors and concerns are read at most (a cycle or a deep hierarchy stops).
const MAX_LINKS: usize = 24;

/// A class or module a controller inherits from or includes, read from its file.
#[derive(Debug, Clone)]
pub struct Link {
    /// Its file's facts, with bodies.
    pub facts: FileFacts,
    /// The class or module name in that file.
    pub name: String,
    /// Declared in `ApplicationController`, above it, or in a concern it includes: its
    /// filters run before every action of the app.
    pub app_wide: bool,
}

/// The ancestors of controller `class` and the concerns they (and it) include, in the
/// order their class-level calls run: the farthest ancestor first, each class after the
/// concerns it includes, the controller's own concerns last. The controller itself is not
/// in the list. Files that cannot be found or read are skipped (framework classes such as
/// `ActionController::Base` have none).
pub fn chain(root: &Path, facts: &FileFacts, class: &str) -> Vec<Link> {
    let mut out = Vec::new();
    let Some(own) = facts.classes.iter().find(|c| c.name == class) else {
        return out;
    };
    let mut seen = vec![class.to_string()];
    collect(root, facts, own, false, true, &mut seen, &mut out);
    out
}

fn collect(
    root: &Path,
    facts: &FileFacts,
    class: &ClassFacts,
    app_wide: bool,
    is_self: bool,
    seen: &mut Vec<String>,
    out: &mut Vec<Link>,
) {
    let app_wide = app_wide || is_application_controller(&class.name);
    if let Some(parent) = class.superclass.as_deref() {
        // The superclass is written in the scope around the class statement.
        let outer = class.nesting.get(1..).unwrap_or_default();
        if let Some((pf, pname)) = resolve(root, facts, parent, outer, seen) {
            if let Some(pc) = pf.classes.iter().find(|c| c.name == pname).cloned() {
                seen.push(pname.clone());
                let parent_app_wide = is_application_controller(&pname);
                collect(root, &pf, &pc, parent_app_wide, false, seen, out);
            }
        }
    }
    for call in class.dsl.iter().filter(|d| d.name == "include") {
        for module in &call.args {
            if out.len() >= MAX_LINKS {
                return;
            }
            if let Some((mf, mname)) = resolve(root, facts, module, &class.nesting, seen) {
                if let Some(mc) = mf.classes.iter().find(|c| c.name == mname).cloned() {
                    seen.push(mname.clone());
                    collect(root, &mf, &mc, app_wide, false, seen, out);
                }
            }
        }
    }
    if !is_self && out.len() < MAX_LINKS {
        out.push(Link {
            facts: facts.clone(),
            name: class.name.clone(),
            app_wide,
        });
    }
}

fn is_application_controller(name: &str) -> bool {
    name == "ApplicationController" || name.ends_with("::ApplicationController")
}

/// Finds the class or module `written` refers to from inside `scopes` (innermost first),
/// in this file or in the file Rails' autoloader would load it from.
fn resolve(
    root: &Path,
    here: &FileFacts,
    written: &str,
    scopes: &[String],
    seen: &[String],
) -> Option<(FileFacts, String)> {
    let written = written.trim_start_matches("::");
    let mut candidates: Vec<String> = scopes.iter().map(|s| format!("{s}::{written}")).collect();
    candidates.push(written.to_string());
    for name in candidates {
        if seen.contains(&name) {
            continue;
        }
        if here.classes.iter().any(|c| c.name == name) {
            return Some((here.clone(), name));
        }
        let rel = crate::naming::underscore(&name);
        for dir in ["app/controllers", "app/controllers/concerns", "lib"] {
            let path = root.join(dir).join(format!("{rel}.rb"));
            let Ok(bytes) = crate::index::read_source(&path, 4 << 20) else {
                continue;
            };
            let rel_path = crate::index::walk::relative_to(root, &path).unwrap_or(rel.clone());
            let facts =
                crate::index::extract_with(&rel_path, &bytes, &ExtractOptions::with_bodies());
            if facts.classes.iter().any(|c| c.name == name) {
                return Some((facts, name));
            }
        }
    }
    None
}

/// A `source_line` ("8", "15-22") whose lines may lie in a link's line space (see
/// [`LINE_SPACE`]), as a person reads it: "app/controllers/application_controller.rb:40".
/// A range mixing the file's own lines with another file's keeps the file's own.
pub fn source_line(text: &str, chain: &[Link]) -> String {
    let place = |n: u32| -> (Option<usize>, u32) {
        match (n / LINE_SPACE).checked_sub(1) {
            Some(k) => (Some(k as usize), n % LINE_SPACE),
            None => (None, n),
        }
    };
    let mut parts = text.splitn(2, '-').map(|p| p.trim().parse::<u32>());
    let (Some(Ok(lo)), hi) = (parts.next(), parts.next()) else {
        return text.to_string();
    };
    let hi = match hi {
        Some(Ok(h)) => h,
        Some(Err(_)) => return text.to_string(),
        None => lo,
    };
    let span = |a: u32, b: u32| {
        if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}")
        }
    };
    match (place(lo), place(hi)) {
        ((None, a), (None, b)) => span(a, b),
        ((Some(k), a), (Some(j), b)) if k == j => match chain.get(k) {
            Some(link) => format!("{}:{}", link.facts.path, span(a, b)),
            None => span(a, b),
        },
        ((None, a), _) => a.to_string(),
        (_, (None, b)) => b.to_string(),
        ((Some(k), a), _) => match chain.get(k) {
            Some(link) => format!("{}:{a}", link.facts.path),
            None => a.to_string(),
        },
    }
}

/// A controller class and what it inherits.
pub struct ControllerCx<'a> {
    /// The controller file.
    pub facts: &'a FileFacts,
    /// The controller class.
    pub class: &'a str,
    /// Its ancestors and concerns ([`chain`]).
    pub chain: &'a [Link],
}

/// One place a class-level call or a method lives: a link of the chain, or the
/// controller itself (`link: None`).
struct Source<'a> {
    facts: &'a FileFacts,
    name: &'a str,
    link: Option<usize>,
    app_wide: bool,
}

impl<'a> ControllerCx<'a> {
    /// Where class-level calls run from, in order.
    fn sources(&self) -> Vec<Source<'a>> {
        let mut out: Vec<Source<'a>> = self
            .chain
            .iter()
            .enumerate()
            .map(|(k, l)| Source {
                facts: &l.facts,
                name: l.name.as_str(),
                link: Some(k),
                app_wide: l.app_wide,
            })
            .collect();
        out.push(Source {
            facts: self.facts,
            name: self.class,
            link: None,
            app_wide: is_application_controller(self.class),
        });
        out
    }

    /// The instance method `name` as Ruby finds it, and the link it comes from.
    fn find_method(&self, name: &str) -> Option<(&'a MethodFacts, Option<usize>)> {
        self.sources().into_iter().rev().find_map(|s| {
            s.facts
                .methods
                .iter()
                .find(|m| m.name == name && m.owner == s.name && m.kind == MethodKind::Instance)
                .map(|m| (m, s.link))
        })
    }

    /// The file a link's code comes from, for `source_line`.
    pub fn origin(&self, link: usize) -> Option<&'a str> {
        self.chain.get(link).map(|l| l.facts.path.as_str())
    }

    /// The helpers of this controller and its chain that respond on every path, with
    /// their response.
    pub fn responders(&self) -> Responders {
        let mut map = HashMap::new();
        for s in self.sources() {
            for m in s.facts.methods.iter().filter(|m| {
                m.owner == s.name
                    && m.kind == MethodKind::Instance
                    // A public method of the controller itself is an action, not a helper.
                    && (s.link.is_some() || !m.is_public_api())
            }) {
                if map.contains_key(&m.name) {
                    continue;
                }
                if let Some(o) = self.always_responds_method(m, 0) {
                    map.insert(m.name.clone(), o);
                }
            }
        }
        Responders::from_map(map)
    }

    fn always_responds_method(&self, m: &MethodFacts, depth: usize) -> Option<Outcome> {
        if let Some(o) = Responders::by_name(&m.name) {
            return Some(o);
        }
        self.always_responds(m.body.as_deref()?, depth)
    }

    /// The response every path through `node` ends with (the first one a person reads:
    /// the HTML format, the non-XHR branch), if every path responds.
    fn always_responds(&self, node: &Node, depth: usize) -> Option<Outcome> {
        if depth > MAX_DEPTH {
            return None;
        }
        match node {
            Node::Seq(items) => items.iter().find_map(|i| self.always_responds(i, depth)),
            Node::Begin(b) => self.always_responds(&b.body, depth),
            Node::Return { value: Some(v), .. } => self.always_responds(v, depth),
            Node::And(a, _) => self.always_responds(a, depth),
            Node::If(i) => {
                let then = self.always_responds(&i.then, depth)?;
                let els = self.always_responds(i.els.as_ref()?, depth)?;
                Some(if mentions_xhr(&i.cond) { els } else { then })
            }
            Node::Call(c) => self.call_response(c, depth),
            _ => None,
        }
    }

    /// A call that responds: `render`/`redirect_to`/`head`, `respond_to` whose formats
    /// respond, or a helper of the chain that always responds.
    fn call_response(&self, c: &Call, depth: usize) -> Option<Outcome> {
        if c.recv.is_some() {
            return None;
        }
        if is_response_call(&c.name) {
            return Some(outcome::response(c));
        }
        if c.name == "respond_to" {
            let block = c.block.as_ref()?;
            return primary_format(&block.body)
                .and_then(|body| self.always_responds(body, depth + 1));
        }
        if let Some(o) = Responders::by_name(&c.name) {
            return Some(o);
        }
        let (m, _) = self.find_method(&c.name)?;
        self.always_responds(m.body.as_deref()?, depth + 1)
    }

    /// The response a branch may end the request with (the first a person reads), when
    /// any of its paths responds: the halting side of a filter's `if`.
    fn halting(&self, node: &Node, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        match node {
            Node::Seq(items) => items.iter().find_map(|i| self.halting(i, depth)),
            Node::Begin(b) => self.halting(&b.body, depth),
            Node::Return { value: Some(v), .. } => self.halting(v, depth),
            Node::And(a, _) => self.halting(a, depth),
            Node::If(i) => {
                let then = self.halting(&i.then, depth);
                let els = i.els.as_ref().and_then(|e| self.halting(e, depth));
                if mentions_xhr(&i.cond) {
                    els.or(then)
                } else {
                    then.or(els)
                }
            }
            Node::Call(c) if c.recv.is_none() => {
                if is_response_call(&c.name) || matches!(c.name.as_str(), "raise" | "fail") {
                    return Some(node.clone());
                }
                if c.name == "respond_to" {
                    let block = c.block.as_ref()?;
                    return primary_format(&block.body).and_then(|b| self.halting(b, depth + 1));
                }
                if Responders::by_name(&c.name).is_some() {
                    return Some(node.clone());
                }
                let (m, _) = self.find_method(&c.name)?;
                // A helper that may respond (`deny_access`, `require_login`) halts here.
                self.halting(m.body.as_deref()?, depth + 1)
                    .map(|_| node.clone())
            }
            _ => None,
        }
    }
}

fn is_response_call(name: &str) -> bool {
    matches!(
        name,
        "render"
            | "redirect_to"
            | "redirect_back"
            | "redirect_back_or_to"
            | "head"
            | "send_data"
            | "send_file"
    )
}

fn mentions_xhr(cond: &Node) -> bool {
    let mut found = matches!(cond, Node::Call(c) if c.name == "xhr?");
    cond.for_each_child(&mut |child| found = found || mentions_xhr(child));
    found
}

/// In a `respond_to` block, the body of `format.html` (else the first format with a
/// block, else the whole block).
fn primary_format(body: &Node) -> Option<&Node> {
    let formats: Vec<&Call> = match body {
        Node::Seq(items) => items
            .iter()
            .filter_map(|i| match i {
                Node::Call(c) => Some(c.as_ref()),
                _ => None,
            })
            .collect(),
        Node::Call(c) => vec![c.as_ref()],
        _ => Vec::new(),
    };
    formats
        .iter()
        .find(|c| c.block.is_some() && c.name == "html")
        .or_else(|| formats.iter().find(|c| c.block.is_some()))
        .and_then(|c| c.block.as_ref().map(|b| &b.body))
        .or(Some(body))
}

fn applies(options: &[(String, Vec<String>)], action: &str) -> bool {
    let get = |k: &str| options.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    if let Some(only) = get("only") {
        return only.iter().any(|a| a == action);
    }
    if let Some(except) = get("except") {
        return !except.iter().any(|a| a == action);
    }
    true
}

/// What the `before_action` callbacks of an action contribute.
#[derive(Debug, Default)]
pub struct Guards {
    /// Guard statements to run before the action's own, in order; their lines are
    /// shifted per [`LINE_SPACE`] when they come from another file.
    pub statements: Vec<Node>,
    /// The callbacks that gave guards.
    pub used: Vec<String>,
    /// App-wide callbacks that run too, left to their own spec.
    pub app_wide: Vec<String>,
    /// Callbacks with an `if:`/`unless:` condition, not planned as guards.
    pub conditional: Vec<String>,
    /// Callbacks that may respond under conditions no single context states
    /// (`if a && b ... elsif c; redirect_to ...`), left to their own spec.
    pub unplanned: Vec<String>,
}

const BEFORE: &[&str] = &["before_action", "append_before_action", "before_filter"];
const SKIP: &[&str] = &["skip_before_action", "skip_before_filter"];

/// The guard statements the `before_action` callbacks of `action` contribute, in order.
pub fn callback_guards(cx: &ControllerCx<'_>, action: &str) -> Guards {
    // (callback, app-wide, conditional)
    let mut callbacks: Vec<(String, bool, bool)> = Vec::new();
    let mut not_found_handler: Option<Node> = None;
    for source in cx.sources() {
        for call in source
            .facts
            .classes
            .iter()
            .filter(|c| c.name == source.name)
            .flat_map(|c| c.dsl.iter())
        {
            let name = call.name.as_str();
            let conditional = call.options.iter().any(|(k, _)| k == "if" || k == "unless");
            if (BEFORE.contains(&name) || name == "prepend_before_action")
                && applies(&call.options, action)
            {
                for cb in &call.args {
                    callbacks.retain(|(c, _, _)| c != cb);
                    let entry = (cb.clone(), source.app_wide, conditional);
                    if name == "prepend_before_action" {
                        callbacks.insert(0, entry);
                    } else {
                        callbacks.push(entry);
                    }
                }
            } else if SKIP.contains(&name) && applies(&call.options, action) {
                callbacks.retain(|(c, _, _)| !call.args.contains(c));
            } else if name == "rescue_from"
                && call.args.iter().any(|a| a.ends_with("RecordNotFound"))
            {
                let handler = call
                    .options
                    .iter()
                    .find(|(k, _)| k == "with")
                    .and_then(|(_, v)| v.first());
                not_found_handler = Some(match handler {
                    Some(h) => bare_call(h, call.line),
                    None => head_not_found(call.line),
                });
            }
        }
    }
    let mut out = Guards::default();
    for (name, app_wide, conditional) in callbacks {
        if app_wide {
            out.app_wide.push(name);
            continue;
        }
        if conditional {
            out.conditional.push(name);
            continue;
        }
        let before = out.statements.len();
        guards_of(
            cx,
            &name,
            not_found_handler.as_ref(),
            0,
            &mut out.statements,
        );
        if out.statements.len() > before {
            out.used.push(name);
        } else if cx
            .find_method(&name)
            .and_then(|(m, _)| cx.halting(m.body.as_deref()?, 1))
            .is_some()
        {
            out.unplanned.push(name);
        }
    }
    out
}

/// The guards of callback `name`, appended to `out`.
fn guards_of(
    cx: &ControllerCx<'_>,
    name: &str,
    not_found_handler: Option<&Node>,
    depth: usize,
    out: &mut Vec<Node>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some((method, link)) = cx.find_method(name) else {
        return;
    };
    let Some(body) = method.body.as_deref() else {
        return;
    };
    let shift = link.map_or(0, |k| (k as u32 + 1).saturating_mul(LINE_SPACE));
    let place = |n: Node| {
        if shift == 0 {
            n
        } else {
            n.shifted_lines(shift)
        }
    };
    // The method's own `rescue ActiveRecord::RecordNotFound` answers a failed `find`.
    let (main, own_handler) = match body {
        Node::Begin(b) if !b.rescues.is_empty() => {
            let handler = b
                .rescues
                .iter()
                .find(|r| r.classes.iter().any(|c| c.ends_with("RecordNotFound")))
                .and_then(|r| cx.halting(&r.body, 0));
            (&b.body, handler)
        }
        other => (other, None),
    };
    let handler = own_handler.or_else(|| not_found_handler.cloned());
    let stmts = main.statements();
    // `allowed = ...; if allowed`: the condition is what the local holds. Rails calls a
    // callback without arguments: its optional parameters hold their defaults
    // (`def check_database_readable(need_api: false)`).
    let mut locals: Vec<(String, Node)> = if depth == 0 {
        method.param_defaults.clone()
    } else {
        Vec::new()
    };
    for stmt in &stmts {
        match stmt {
            Node::If(i) => {
                let mut found = Vec::new();
                halting_conditions(cx, name, i, &locals, depth, None, &mut found);
                for (cond, response) in found {
                    out.push(place(Node::If(Box::new(If {
                        cond,
                        then: response,
                        els: None,
                        unless: false,
                        modifier: true,
                        ternary: false,
                        elsif: false,
                        lines: i.lines,
                        cond_line: i.cond_line,
                    }))));
                }
            }
            Node::Assign {
                target: crate::index::body::Target::Ivar(var),
                value,
                line,
                ..
            } if finds(value) => {
                if let Some(h) = &handler {
                    out.push(place(not_found_guard(var, h, *line)));
                }
            }
            Node::Assign {
                target: crate::index::body::Target::Lvar(var),
                value,
                ..
            } => locals.push((var.clone(), (**value).clone())),
            // `require_logged_in_user` inside `require_logged_in_moderator`: its guards.
            Node::Call(c) if c.recv.is_none() && c.args.is_empty() && c.block.is_none() => {
                guards_of(cx, &c.name, not_found_handler, depth + 1, out);
            }
            _ => {}
        }
    }
}

/// The conditions under which `i` halts the request, each with its response: `if c then
/// halt` halts when `c`, `unless c ... else halt` when `c`, `if c then (if d then ok else
/// halt)` when `c && !d`. `within` is the condition of the enclosing branch.
fn halting_conditions(
    cx: &ControllerCx<'_>,
    callback: &str,
    i: &If,
    locals: &[(String, Node)],
    depth: usize,
    within: Option<&Node>,
    out: &mut Vec<(Node, Node)>,
) {
    let cond = substitute(&i.cond, locals);
    let not = |n: &Node| match n {
        Node::Not(inner) => (**inner).clone(),
        other => Node::Not(Box::new(other.clone())),
    };
    // The condition under which the `then` branch runs, and the `else` branch.
    let (then_when, else_when) = if i.unless {
        (not(&cond), cond.clone())
    } else {
        (cond.clone(), not(&cond))
    };
    let under = |c: Node| match within {
        Some(w) => Node::And(Box::new(w.clone()), Box::new(c)),
        None => c,
    };
    // A side halts outright when one of its statements responds on every path; an
    // `if` inside it that halts on one side only is a condition of its own, under
    // this side's (`if @user; if @user.moderator? then true else redirect_to "/" end; end`).
    // A callback that calls itself again (`authenticate` retrying once it cleared the
    // session) does not halt there: the guards it has are the ones already read.
    let direct = |branch: &Node| {
        branch.statements().iter().find_map(|s| match s {
            Node::If(inner) if !halts_both_ways(cx, inner, depth) => None,
            Node::Call(c) if c.recv.is_none() && c.name == callback => None,
            other => cx.halting(other, depth),
        })
    };
    let then = direct(&i.then);
    let els = i.els.as_ref().and_then(direct);
    match (&then, &els) {
        // Both sides may halt (`if a; redirect; else; render_403; end`): one guard per
        // side would ask the same question twice; the first side a person reads.
        (Some(response), _) => out.push((under(then_when.clone()), response.clone())),
        (None, Some(response)) => out.push((under(else_when.clone()), response.clone())),
        (None, None) => {}
    }
    // The `else` of a compound test (`if a && b ... elsif c`) holds when either part
    // fails: no single context says that, so its inner halts are left to the notes.
    let compound = matches!(cond, Node::And(..) | Node::Or(..));
    let mut sides: Vec<(&Node, Node)> = Vec::new();
    if then.is_none() {
        sides.push((&i.then, then_when));
    }
    if let (None, Some(e), false) = (&els, &i.els, compound) {
        sides.push((e, else_when));
    }
    for (branch, when) in sides {
        let inner_within = under(when);
        for s in branch.statements() {
            if let Node::If(inner) = &s {
                halting_conditions(cx, callback, inner, locals, depth, Some(&inner_within), out);
            }
        }
    }
}

/// `if request.xhr? then render else redirect_to end`: a response on every path.
fn halts_both_ways(cx: &ControllerCx<'_>, i: &If, depth: usize) -> bool {
    let then = always_halts(cx, &i.then, depth);
    let els = i.els.as_ref().is_some_and(|e| always_halts(cx, e, depth));
    (then && els) || (mentions_xhr(&i.cond) && (then || els))
}

/// Whether `node` responds whichever way its `if`s go.
fn always_halts(cx: &ControllerCx<'_>, node: &Node, depth: usize) -> bool {
    node.statements().iter().any(|s| match s {
        Node::If(inner) => halts_both_ways(cx, inner, depth),
        other => cx.halting(other, depth).is_some(),
    })
}

/// `cond` with the filter's locals replaced by what they hold.
fn substitute(cond: &Node, locals: &[(String, Node)]) -> Node {
    match cond {
        Node::Lvar(name) => locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| cond.clone()),
        other => other.map_children(&mut |c| substitute(c, locals)),
    }
}

/// `Model.find(...)`, `current_user.payments.find(params[:id])`, `find_by!`.
fn finds(node: &Node) -> bool {
    match node {
        Node::Call(c) => {
            matches!(c.name.as_str(), "find" | "find_by!") || c.recv.as_ref().is_some_and(finds)
        }
        _ => false,
    }
}

fn bare_call(name: &str, line: u32) -> Node {
    Node::Call(Box::new(Call {
        recv: None,
        name: name.to_string(),
        args: Vec::new(),
        block: None,
        safe_nav: false,
        line,
    }))
}

fn head_not_found(line: u32) -> Node {
    Node::Call(Box::new(Call {
        recv: None,
        name: "head".to_string(),
        args: vec![Node::Sym("not_found".to_string())],
        block: None,
        safe_nav: false,
        line,
    }))
}

fn not_found_guard(var: &str, response: &Node, line: u32) -> Node {
    Node::If(Box::new(If {
        cond: Node::Ivar(var.to_string()),
        then: response.clone(),
        els: None,
        unless: true,
        modifier: true,
        ternary: false,
        elsif: false,
        lines: (line, line),
        cond_line: line,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(path: &str, src: &str) -> FileFacts {
        crate::index::extract_with(path, src.as_bytes(), &ExtractOptions::with_bodies())
    }

    #[test]
    fn responders_by_name_and_by_body() {
        let f = facts(
            "app/controllers/application_controller.rb",
            "class ApplicationController < ActionController::Base\n  private\n\n  def reject\n    render plain: 'no', status: :forbidden\n  end\n\n  def deny_access\n    request.xhr? ? head(:unauthorized) : reject\n  end\n\n  def maybe\n    head :not_found if rand > 1\n  end\n\n  def render_forbidden\n    render plain: 'forbidden'\n  end\nend\n",
        );
        let cx = ControllerCx {
            facts: &f,
            class: "ApplicationController",
            chain: &[],
        };
        let r = cx.responders();
        let text = |n: &str| r.get(n).map(|o| (o.description, o.failure));
        assert_eq!(
            text("reject"),
            Some(("returns a text response with 403 status".into(), true))
        );
        // Both branches respond; the non-XHR one is the one a person reads first.
        assert_eq!(
            text("deny_access"),
            Some(("returns a text response with 403 status".into(), true))
        );
        // The name says the status, whatever the body renders.
        assert_eq!(
            text("render_forbidden"),
            Some(("returns 403 status".into(), true))
        );
        assert_eq!(text("maybe"), None);
        assert_eq!(
            text("render_404"),
            Some(("returns 404 status".into(), true))
        );
        assert_eq!(
            text("render_not_found"),
            Some(("returns 404 status".into(), true))
        );
        assert_eq!(text("render_feed"), None);
    }

    #[test]
    fn a_callback_runs_with_its_optional_parameters_at_their_defaults() {
        // Rails calls `check_writable` without arguments: `need_api` is false, so the API
        // half of the condition never holds and is not a context.
        let m = crate::analyze::tests::analyze_one(
            "class PostsController < ActionController::Base\n  before_action :check_writable\n\n  def create\n    head :created\n  end\n\n  private\n\n  def check_writable(need_api: false)\n    if Settings.status == \"readonly\" || (need_api && Settings.api_status == \"offline\")\n      redirect_to offline_path\n    end\n  end\nend\n",
            "create",
        );
        assert_eq!(
            crate::analyze::tests::flat(&m),
            vec!["1 settings_status [enum] readonly:readonly => redirects to offline path | other:NOT readonly -> returns 201 status"]
        );
    }

    #[test]
    fn only_actions_render_their_template() {
        // A public filter lets the request through; ApplicationController's own methods
        // and a method taking an argument are not actions: they end with what they do.
        let src = "class ApplicationController < ActionController::Base\n  before_action :mini_profiler\n\n  def mini_profiler\n    if @user&.moderator?\n      Profiler.authorize_request\n    end\n  end\n\n  def current_page\n    params[:page].present? ? params[:page].to_i : 1\n  end\nend\n\nclass StoriesController < ApplicationController\n  def refill_cache(story)\n    return if story.nil?\n\n    CacheJob.perform_later(story.id)\n  end\nend\n";
        use crate::analyze::tests::{analyze_one, flat};
        assert_eq!(
            flat(&analyze_one(src, "mini_profiler")),
            vec![
                "1 user [presence] present:user present | nil:user missing -> lets the request through",
                "2 user_moderator [boolean] true:moderator user -> authorizes the Profiler request | false:NOT moderator user -> lets the request through",
            ]
        );
        assert_eq!(
            flat(&analyze_one(src, "current_page")),
            vec!["1 page_param [presence] present:page param present -> returns page param | nil:page param missing -> returns 1"]
        );
        assert_eq!(
            flat(&analyze_one(src, "refill_cache")),
            vec!["1 story [presence] present:story present -> enqueues cache job | nil:story missing => returns nil"]
        );
    }

    #[test]
    fn a_filter_that_ends_by_setting_an_instance_variable_says_so() {
        // The assignment is what tells the paths apart: both let the request through,
        // one with `@project` set.
        let src = "class WatchersController < ApplicationController\n  before_action :find_project\n\n  def index\n  end\n\n  private\n\n  def find_project\n    if params[:object_id]\n      @projects = Project.where(id: params[:object_id]).to_a\n      if @projects.size == 1\n        @project = @projects.first\n      end\n    elsif params[:project_id]\n      @project = Project.visible.find_by_param(params[:project_id])\n    end\n  end\nend\n";
        use crate::analyze::tests::{analyze_one, flat};
        assert_eq!(
            flat(&analyze_one(src, "find_project")),
            vec![
                "1 object_id_param [presence] present:object id param present | nil:object id param missing",
                "2 number_of_projects [enum] 1:1 -> lets the request through with project set to the first of the projects | other:NOT 1 -> lets the request through",
                "2 project_id_param [presence] present:project id param -> lets the request through with project set to Project visible find by param | nil:project id param -> lets the request through",
            ]
        );
    }
}
