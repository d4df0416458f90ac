//! Private methods inlined into their public caller (PRODUCT: "a private method's
//! conditions are inlined where the public method calls it"). When a statement calls a
//! private method of the same class (`find_comment`, `page`, `validate!(file)`, also
//! inside an assignment or an argument) whose body decides something, that body is walked
//! where the call stands, before the statement: its conditions become the caller's
//! characteristics at the right level, and a guard that raises, throws, `head`s or
//! redirects ends the caller.
//!
//! A private method's own `return` only leaves that method: `return x if c; rest` is read
//! as `if c then x else rest end`, and the caller goes on after it. When the call's value
//! is not used (`validate!(file)` as a statement), conditions whose branches only choose a
//! value are left out: nothing the caller does depends on them. Each private method is
//! inlined once per public method (J12), at its first call. A private predicate used as a
//! condition (`if refund_eligible?(p)`) keeps its name as the characteristic when its body
//! is one bare test (see `condition.rs`); when its body decides (`seconds.nil? ? false :
//! elapsed > seconds`, `a && b`), the condition reads what it tests, at its lines
//! ([`Walker::expand_private_predicates`]).
//!
//! Example: `def process; validate!; ...` with a private
//! `def validate!; raise Invalid unless valid?; end` gives `valid` (false → terminal
//! `raises Invalid`) in `process`, with the rest of `process` under `true`.

use crate::index::body::{If, Node};

use super::{statements, Walker};
use crate::analyze::rules::Rule;

impl Walker<'_> {
    /// The statements to walk instead of `stmt` when it calls a private method whose body
    /// decides something: that body (returns read as branches), then `stmt`.
    pub fn inline_private(&mut self, stmt: &Node, tail_value: bool) -> Option<Vec<Node>> {
        let bare_call = matches!(stmt, Node::Call(_));
        let mut candidates: Vec<(String, Vec<Node>)> = Vec::new();
        match stmt {
            // `if !(comment = find_comment)`: the helper runs before the condition is
            // decided. A private predicate (`if refund_eligible?(p)`) stays the
            // condition's name instead.
            Node::If(i) => private_calls(&i.cond, &mut candidates),
            Node::Case(c) => {
                if let Some(s) = &c.subject {
                    private_calls(s, &mut candidates);
                }
            }
            Node::Begin(_) => return None,
            other => private_calls(other, &mut candidates),
        }
        // A private predicate is a condition's name (`if eligible?`), except when its value
        // is the method's (`def spaces? = any_spaces?`): then what it decides is the
        // method's decision.
        let tail_call = |name: &str| {
            tail_value
                && matches!(stmt, Node::Call(c) if c.name == name
                    && c.block.is_none()
                    && (c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef))))
        };
        candidates.retain(|(name, _)| !name.ends_with('?') || tail_call(name));
        if let Some(found) = self.inline_lambda(stmt) {
            return Some(found);
        }
        for (name, args) in candidates {
            if self.inlined.contains(&name) {
                continue;
            }
            let Some(private) = self.cx.privates.iter().find(|m| m.name == name) else {
                continue;
            };
            let Some(body) = private.body.as_ref() else {
                continue;
            };
            let mut bound = bind_literals(private, &args);
            // What every call of the helper fixes the same way (the options it passes,
            // whether it gives a block) is known inside it; what the calls fix apart is
            // decided by which call runs, and stays a question here (the helper is
            // inlined once, not once per call).
            let sites = self.call_sites(&name);
            let block_given = |args: &[Node]| -> Option<bool> {
                match args.last() {
                    Some(Node::Other { text, .. }) if text.starts_with('&') => {
                        // `&` or `&block` handing on the method's own block: the caller's
                        // question, not this call's.
                        let forwarded = text == "&"
                            || self.cx.method.params.iter().any(|p| {
                                p.kind == crate::index::ParamKind::Block
                                    && text.strip_prefix('&') == Some(p.name.as_str())
                            });
                        (!forwarded).then_some(true)
                    }
                    _ => Some(false),
                }
            };
            let given = block_given(&args);
            if given.is_some() && sites.iter().all(|other| block_given(other) == given) {
                bound.push((
                    BLOCK_GIVEN.to_string(),
                    if given == Some(true) {
                        Node::True
                    } else {
                        Node::False
                    },
                ));
            }
            bound.retain(|(param, value)| {
                !matches!(value, Node::Hash(_))
                    || sites.iter().all(|other| {
                        bind_literals(private, other)
                            .iter()
                            .any(|(p, v)| p == param && v == value)
                    })
            });
            let mut inlined: Vec<Node> = Vec::new();
            let stmts = without_returns(statements(&super::shim::rewrite(body)));
            for stmt in &stmts {
                let done = substitute_params(stmt, &bound);
                // `clear_feature = options.fetch(:clear, false)`, never set again: the
                // local is the value the call fixed, wherever it is read.
                if let (
                    Node::Assign {
                        target: crate::index::body::Target::Lvar(local),
                        op: crate::index::body::AssignOp::Set,
                        value: before,
                        ..
                    },
                    Node::Assign { value: after, .. },
                ) = (stmt, &done)
                {
                    let fixed = matches!(before.as_ref(), Node::Call(_))
                        && matches!(after.as_ref(), Node::True | Node::False | Node::Nil);
                    if fixed && assignments_to(&stmts, local) == 1 {
                        bound.push((local.clone(), (**after).clone()));
                    }
                }
                inlined.push(done);
            }
            // An around helper (`synchronize`, `with_write_connection`): a condition each of
            // whose paths ends running the block picks how the block runs, not what
            // happens: the block's code is the behavior, on any path.
            let block_param = private
                .params
                .iter()
                .find(|p| p.kind == crate::index::ParamKind::Block)
                .map(|p| p.name.clone());
            inlined = without_around(inlined, block_param.as_deref());
            let called = |c: &crate::index::body::Call| {
                c.name == name && (c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef)))
            };
            if let Some(fused) = fuse_guard(stmt, &called, &inlined) {
                // `return unless authorized?(:add)` over a helper that ends in `true` or
                // `false` on each path: each path goes on or leaves, one decision.
                self.inlined.insert(name.clone());
                self.apply(Rule::PrivateGuardsInlined, Some(&format!("`{name}`")));
                return Some(fused);
            }
            if bare_call {
                inlined = prune_value_choices(inlined);
            }
            // `coach_spaces? || student_spaces?` as a predicate's value decides the method's.
            let tests_its_value = name.ends_with('?')
                && matches!(
                    inlined.last(),
                    Some(Node::And(..) | Node::Or(..) | Node::Not(_))
                );
            if !inlined.iter().any(decides)
                && !tests_its_value
                && !self.calls_deciding_private(&inlined, 0)
            {
                continue;
            }
            self.inlined.insert(name.clone());
            self.apply(Rule::PrivateGuardsInlined, Some(&format!("`{name}`")));
            // `changesets = conditions_bbox(changesets, bbox)`: the helper's value on each
            // of its paths is what the variable is set to (not what the caller returns).
            if let Node::Assign {
                target:
                    target @ (crate::index::body::Target::Lvar(_) | crate::index::body::Target::Ivar(_)),
                op: op @ crate::index::body::AssignOp::Set,
                value,
                line,
            } = stmt
            {
                if matches!(value.as_ref(), Node::Call(c) if called(c)) {
                    if let Some(last) = inlined.pop() {
                        inlined.push(super::wrap_assigns(&last, target, op, *line));
                    }
                }
            }
            // The helper's value is the method's: `return by_association(relation)`
            // returns it on each of its paths (a plain `relation` on one path returns the
            // relation, not "the by association"), and so does `attribute_associated
            // attributes` as the method's last statement, whose choices (the `key if
            // field.associative?` its `map` keeps) are the method's. A call that gives a
            // block keeps its place: the block is the caller's own code, run where the
            // helper yields.
            let returned = match stmt {
                Node::Return {
                    value: Some(value),
                    line,
                } if matches!(value.as_ref(), Node::Call(c) if called(c)) => Some(Some(*line)),
                Node::Call(c) if tail_value && called(c) && c.block.is_none() => Some(None),
                _ => None,
            };
            if let (Some(line), Some(last)) = (returned, inlined.last().cloned()) {
                if let Some(line) = line {
                    inlined.pop();
                    inlined.push(super::wrap_returns(&last, line));
                }
                return Some(inlined);
            }
            inlined.push(stmt.clone());
            return Some(inlined);
        }
        None
    }
}

impl Walker<'_> {
    /// Whether `stmts` call a private method (not a predicate) whose body decides, itself
    /// or through the private methods it calls in turn (`user_credential` finding through
    /// `credential_scope`, which asks whether `@user` is present): then the helper is
    /// inlined, and the walk inlines the next one where it is called.
    pub(super) fn calls_deciding_private(&self, stmts: &[Node], depth: usize) -> bool {
        if depth > 3 {
            return false;
        }
        let mut calls = Vec::new();
        for stmt in stmts {
            private_calls(stmt, &mut calls);
        }
        calls.iter().any(|(name, _)| {
            !name.ends_with('?')
                && !self.inlined.contains(name)
                && self
                    .cx
                    .privates
                    .iter()
                    .find(|m| &m.name == name)
                    .and_then(|m| m.body.as_ref())
                    .is_some_and(|body| {
                        let inner = without_returns(statements(body));
                        inner.iter().any(decides) || self.calls_deciding_private(&inner, depth + 1)
                    })
        })
    }

    /// `if logged_in_before?(params[:max_age])` over a private predicate whose body
    /// decides (`if seconds.nil? then false else Time.now - signed_in_at > seconds.to_i
    /// end`): the condition with the call replaced by what the body tests, its parameters
    /// bound to the call's arguments (`!params[:max_age].nil? && Time.now - ... >
    /// params[:max_age].to_i`). Its conditions are the contexts a spec sets up, as the
    /// conditions of any private method are. A predicate of one bare test
    /// (`Clearance.configuration.allow_sign_up?`) keeps its name; one whose body does more
    /// than test (assignments, writes) is left as it is. Like any private method, it is
    /// expanded once per public method (J12), at its first call; later calls keep its
    /// name. `None` when nothing changed.
    pub fn expand_private_predicates(&mut self, cond: &Node) -> Option<Node> {
        let mut expanded = Vec::new();
        let out = self.expand_in(cond, &mut expanded, 0);
        if expanded.is_empty() {
            return None;
        }
        for name in expanded {
            self.inlined.insert(name.clone());
            self.apply(Rule::PrivateGuardsInlined, Some(&format!("`{name}`")));
        }
        Some(out)
    }

    fn expand_in(&self, node: &Node, expanded: &mut Vec<String>, depth: usize) -> Node {
        if depth > 8 {
            return node.clone();
        }
        match node {
            Node::Call(c)
                if c.name.ends_with('?')
                    && (c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef)))
                    && c.block.is_none()
                    && !self.inlined.contains(&c.name)
                    && !expanded.contains(&c.name) =>
            {
                let Some(private) = self.cx.privates.iter().find(|m| m.name == c.name) else {
                    return node.clone();
                };
                let Some(body) = private.body.as_ref() else {
                    return node.clone();
                };
                let Some(test) = predicate_test(&statements(body)) else {
                    return node.clone();
                };
                if !combines(&test) {
                    return node.clone();
                }
                let bound = bind_args(private, &c.args);
                expanded.push(c.name.clone());
                let test = substitute_located(&test, &bound, private.line_range.0);
                self.expand_in(&test, expanded, depth + 1)
            }
            Node::And(a, b) => Node::And(
                Box::new(self.expand_in(a, expanded, depth + 1)),
                Box::new(self.expand_in(b, expanded, depth + 1)),
            ),
            Node::Or(a, b, line) => Node::Or(
                Box::new(self.expand_in(a, expanded, depth + 1)),
                Box::new(self.expand_in(b, expanded, depth + 1)),
                *line,
            ),
            Node::Not(a) => Node::Not(Box::new(self.expand_in(a, expanded, depth + 1))),
            Node::If(i) if i.ternary => Node::If(Box::new(If {
                cond: self.expand_in(&i.cond, expanded, depth + 1),
                els: i
                    .els
                    .as_ref()
                    .map(|e| self.expand_in(e, expanded, depth + 1)),
                ..(**i).clone()
            })),
            other => other.clone(),
        }
    }
}

/// `node` with each bound parameter replaced by the caller's argument, read at the line
/// of the call that uses it in `node` (`seconds.to_i` on line 102 reads
/// `params[:max_age].to_i` on line 102): the test's conditions stay where the predicate
/// has them.
fn substitute_located(node: &Node, bound: &[(String, Node)], line: u32) -> Node {
    match node {
        Node::Lvar(n) => bound
            .iter()
            .find(|(name, _)| name == n)
            .map_or_else(|| node.clone(), |(_, v)| relocate(v, line)),
        Node::Call(c) => node.map_children(&mut |child| substitute_located(child, bound, c.line)),
        other => other.map_children(&mut |child| substitute_located(child, bound, line)),
    }
}

/// `node` with every line it records set to `line`.
fn relocate(node: &Node, line: u32) -> Node {
    match node {
        Node::Call(c) => {
            let mut moved = Node::Call(Box::new(crate::index::body::Call {
                line,
                ..(**c).clone()
            }));
            moved = moved.map_children(&mut |child| relocate(child, line));
            moved
        }
        Node::Or(a, b, _) => Node::Or(
            Box::new(relocate(a, line)),
            Box::new(relocate(b, line)),
            line,
        ),
        other => other.map_children(&mut |child| relocate(child, line)),
    }
}

/// A predicate's statements as one test: a bare expression; `return x if c; rest` and
/// `if c then x else y end` where a branch is a literal `true`/`false` (`c || rest`,
/// `!c && rest`). `None` for anything else (assignments, writes, several statements).
fn predicate_test(stmts: &[Node]) -> Option<Node> {
    let (first, rest) = stmts.split_first()?;
    if rest.is_empty() {
        return match first {
            Node::Return { value: Some(v), .. } => test_of(v),
            Node::If(i) => {
                let then = single(&i.then)?;
                let els = single(i.els.as_ref()?)?;
                let (when_true, when_false) = if i.unless { (els, then) } else { (then, els) };
                choose(&i.cond, &when_true, &when_false)
            }
            other => test_of(other),
        };
    }
    // `return false if c` / `return true unless c`, then the rest.
    let Node::If(i) = first else { return None };
    if i.els.is_some() {
        return None;
    }
    let Some(Node::Return { value: Some(v), .. }) = statements(&i.then).last().cloned() else {
        return None;
    };
    let rest_test = predicate_test(rest)?;
    let exits_when = |t: Node| if i.unless { Node::Not(Box::new(t)) } else { t };
    let cond = exits_when(i.cond.clone());
    // A run of guards ending in a bare `true` (`return false unless advert; true`) tests
    // the guards alone: the literal is no condition of its own.
    match (v.as_ref(), &rest_test) {
        (Node::False | Node::Nil, Node::True) => Some(negate(cond)),
        (Node::False | Node::Nil, _) => {
            Some(Node::And(Box::new(negate(cond)), Box::new(rest_test)))
        }
        (Node::True, Node::False | Node::Nil) => Some(cond),
        // `return true if preview` before more guards: the guards after it are asked
        // only when it does not hold, one under the other, as the helper reads (a
        // choice, not one `a || b` boolean).
        (Node::True, _) if rest.len() > 1 => Some(Node::If(Box::new(If {
            cond,
            then: Node::True,
            els: Some(rest_test),
            unless: false,
            modifier: false,
            ternary: true,
            elsif: false,
            lines: i.lines,
            cond_line: i.cond_line,
        }))),
        (Node::True, _) => Some(Node::Or(Box::new(cond), Box::new(rest_test), i.cond_line)),
        _ => None,
    }
}

/// `c ? x : y` as a test, when one side is a literal boolean.
fn choose(c: &Node, x: &Node, y: &Node) -> Option<Node> {
    let line = c.line().unwrap_or(0);
    match (x, y) {
        (Node::True, Node::False | Node::Nil) => Some(c.clone()),
        (Node::False | Node::Nil, Node::True) => Some(negate(c.clone())),
        (Node::False | Node::Nil, other) => Some(Node::And(
            Box::new(negate(c.clone())),
            Box::new(test_of(other)?),
        )),
        (Node::True, other) => Some(Node::Or(
            Box::new(c.clone()),
            Box::new(test_of(other)?),
            line,
        )),
        (other, Node::False | Node::Nil) => {
            Some(Node::And(Box::new(c.clone()), Box::new(test_of(other)?)))
        }
        (other, Node::True) => Some(Node::Or(
            Box::new(negate(c.clone())),
            Box::new(test_of(other)?),
            line,
        )),
        _ => None,
    }
}

/// An expression that only tests: no assignment, no block, no write.
fn test_of(node: &Node) -> Option<Node> {
    fn pure(node: &Node) -> bool {
        match node {
            Node::Assign { .. }
            | Node::If(_)
            | Node::Case(_)
            | Node::Begin(_)
            | Node::Loop { .. }
            | Node::Seq(_)
            | Node::Return { .. }
            | Node::Yield { .. } => false,
            Node::Call(c) => {
                c.block.is_none()
                    && !c.name.ends_with('!')
                    && !c.name.ends_with('=')
                    && c.recv.as_ref().is_none_or(pure)
                    && c.args.iter().all(pure)
            }
            Node::And(a, b) | Node::Or(a, b, _) => pure(a) && pure(b),
            Node::Not(a) => pure(a),
            _ => true,
        }
    }
    pure(node).then(|| node.clone())
}

fn single(node: &Node) -> Option<Node> {
    match statements(node).as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

fn negate(node: Node) -> Node {
    match node {
        Node::Not(inner) => *inner,
        other => Node::Not(Box::new(other)),
    }
}

/// Whether a test combines conditions (`a && b`, `!x.nil? && ...`): only then are its
/// parts contexts of their own; one bare test keeps the predicate's name.
fn combines(node: &Node) -> bool {
    match node {
        Node::And(..) | Node::Or(..) => true,
        Node::Not(inner) => combines(inner),
        Node::If(i) => i.ternary,
        Node::Call(c) => c.safe_nav || c.recv.as_ref().is_some_and(combines),
        _ => false,
    }
}

/// The parameters of `method` bound to the call's arguments (positional and keyword),
/// literal or not, and the defaults it leaves.
fn bind_args(method: &crate::index::MethodFacts, args: &[Node]) -> Vec<(String, Node)> {
    use crate::index::ParamKind;
    if args.iter().any(|a| matches!(a, Node::Splat(_))) {
        return Vec::new();
    }
    // A trailing hash fills a positional parameter when the method takes no keywords
    // (`def set(feature, options = {})` called as `set(f, clear: true)`).
    let takes_keywords = method.params.iter().any(|p| {
        matches!(
            p.kind,
            ParamKind::Keyword | ParamKind::OptionalKeyword | ParamKind::KeywordRest
        )
    });
    let args: Vec<&Node> = args.iter().filter(|a| !block_pass(a)).collect();
    let keywords: Vec<(String, Node)> = match args.last() {
        Some(Node::Hash(pairs)) if takes_keywords => pairs
            .iter()
            .filter_map(|(k, v)| match k {
                Node::Sym(s) => Some((s.clone(), v.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let positional: Vec<&Node> = args
        .into_iter()
        .filter(|a| !takes_keywords || !matches!(a, Node::Hash(_)))
        .collect();
    let mut out = Vec::new();
    let mut next = 0usize;
    for p in &method.params {
        let given = match p.kind {
            ParamKind::Required | ParamKind::Optional => {
                let a = positional.get(next).copied().cloned();
                next += 1;
                a
            }
            ParamKind::Keyword | ParamKind::OptionalKeyword => keywords
                .iter()
                .find(|(k, _)| k == &p.name)
                .map(|(_, v)| v.clone()),
            // `**options`: the keywords no named parameter takes.
            ParamKind::KeywordRest if !p.name.is_empty() => Some(Node::Hash(
                keywords
                    .iter()
                    .filter(|(k, _)| {
                        !method.params.iter().any(|q| {
                            &q.name == k
                                && matches!(q.kind, ParamKind::Keyword | ParamKind::OptionalKeyword)
                        })
                    })
                    .map(|(k, v)| (Node::Sym(k.clone()), v.clone()))
                    .collect(),
            )),
            _ => continue,
        };
        let value = given.or_else(|| {
            method
                .param_defaults
                .iter()
                .find(|(n, _)| n == &p.name)
                .map(|(_, v)| v.clone())
        });
        if let Some(v) = value {
            out.push((p.name.clone(), v));
        }
    }
    out
}

impl Walker<'_> {
    /// `check = lambda do |el| ... end` then `check.call(x)`: the lambda's body, where it
    /// is called (once per lambda, like a private method).
    fn inline_lambda(&mut self, stmt: &Node) -> Option<Vec<Node>> {
        let mut called: Vec<String> = Vec::new();
        lambda_calls(stmt, &mut called);
        for name in called {
            let key = format!("lambda {name}");
            if self.inlined.contains(&key) {
                continue;
            }
            let Some(Node::Call(def)) = self.assigned.get(&name) else {
                continue;
            };
            if !matches!(def.name.as_str(), "lambda" | "proc") {
                continue;
            }
            let Some(block) = def.block.as_ref() else {
                continue;
            };
            let mut body = without_returns(statements(&block.body));
            if !body.iter().any(decides) {
                continue;
            }
            self.inlined.insert(key);
            // `x if check.call(el)` over a lambda that ends in `true` or `false` on each
            // path: the lambda's decisions choose whether `x` runs.
            let called = |c: &crate::index::body::Call| {
                c.name == "call" && matches!(&c.recv, Some(Node::Lvar(n)) if *n == name)
            };
            if let Some(fused) = fuse_guard(stmt, &called, &body) {
                return Some(fused);
            }
            body.push(stmt.clone());
            return Some(body);
        }
        None
    }
}

/// Locals called as lambdas in `node` (`check.call(x)`, `check.(x)`), outside the blocks
/// of lambdas defined there (which run later, where they are called).
fn lambda_calls(node: &Node, out: &mut Vec<String>) {
    if let Node::Call(c) = node {
        if super::blocks::deferred(c) {
            return;
        }
        if c.name == "call" {
            if let Some(Node::Lvar(name)) = &c.recv {
                if !out.contains(name) {
                    out.push(name.clone());
                }
            }
        }
    }
    node.for_each_child(&mut |child| lambda_calls(child, out));
}

/// Implicit-receiver (or `self.`) calls in `node` with their arguments, outermost first,
/// inside arguments, receivers, assigned values and blocks.
fn private_calls(node: &Node, out: &mut Vec<(String, Vec<Node>)>) {
    if let Node::Call(c) = node {
        if (c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef)))
            && !out.iter().any(|(n, _)| n == &c.name)
        {
            out.push((c.name.clone(), call_args(c)));
        }
        if c.name == "respond_to" && c.recv.is_none() {
            // A format's code runs for that format only: it is walked with that format's
            // value (`blocks.rs`), never hoisted before the whole `respond_to`.
            return;
        }
    }
    node.for_each_child(&mut |child| private_calls(child, out));
}

/// The parameters of `method` that a call fixes to a literal: a literal argument, or a
/// default the call does not override (`add_comment(note, text, "commented")` leaves
/// `notify: true`).
fn bind_literals(method: &crate::index::MethodFacts, args: &[Node]) -> Vec<(String, Node)> {
    let literal = is_literal;
    // An options hash of literals (`set(feature, clear: true)` into `options = {}`): its
    // lookups are known too.
    let literal_hash = |n: &Node| matches!(n, Node::Hash(pairs) if pairs.iter().all(|(k, v)| matches!(k, Node::Sym(_)) && literal(v)));
    bind_args(method, args)
        .into_iter()
        .filter(|(_, v)| {
            literal(v)
                || literal_hash(v)
                || matches!(v, Node::Const { path, .. } if super::class_like(path))
        })
        .collect()
}

/// How many times `stmts` assign the local `name`.
fn assignments_to(stmts: &[Node], name: &str) -> usize {
    struct Count<'a>(&'a str, usize);
    impl<'n> crate::index::body::Visitor<'n> for Count<'_> {
        fn enter(&mut self, node: &'n Node) -> bool {
            if let Node::Assign {
                target: crate::index::body::Target::Lvar(local),
                ..
            } = node
            {
                if local == self.0 {
                    self.1 += 1;
                }
            }
            true
        }
    }
    let mut count = Count(name, 0);
    for stmt in stmts {
        crate::index::body::walk(&mut count, stmt);
    }
    count.1
}

impl Walker<'_> {
    /// The arguments of every call of the private method `name` in this method and in
    /// the class's private methods (a literal block as [`LITERAL_BLOCK`]).
    fn call_sites(&self, name: &str) -> Vec<Vec<Node>> {
        struct Sites<'a>(&'a str, Vec<Vec<Node>>);
        impl<'n> crate::index::body::Visitor<'n> for Sites<'_> {
            fn enter(&mut self, node: &'n Node) -> bool {
                if let Node::Call(c) = node {
                    if c.name == self.0
                        && (c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef)))
                    {
                        self.1.push(call_args(c));
                    }
                }
                true
            }
        }
        // This method and the private methods it reaches, each once.
        let mut reached: Vec<&crate::index::MethodFacts> = vec![self.cx.method];
        let mut next = 0;
        while let Some(m) = reached.get(next).copied() {
            next += 1;
            let mut calls = Vec::new();
            if let Some(body) = m.body.as_deref() {
                private_calls_all(body, &mut calls);
            }
            for callee in calls {
                if let Some(p) = self.cx.privates.iter().find(|p| p.name == callee) {
                    if !reached.iter().any(|r| std::ptr::eq(*r, *p)) {
                        reached.push(p);
                    }
                }
            }
        }
        let mut sites = Sites(name, Vec::new());
        for body in reached.iter().filter_map(|m| m.body.as_deref()) {
            crate::index::body::walk(&mut sites, body);
        }
        sites.1
    }
}

/// The names of the methods `node` calls on `self`, everywhere in it.
fn private_calls_all(node: &Node, out: &mut Vec<String>) {
    struct Names<'a>(&'a mut Vec<String>);
    impl<'n> crate::index::body::Visitor<'n> for Names<'_> {
        fn enter(&mut self, node: &'n Node) -> bool {
            if let Node::Call(c) = node {
                if (c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef)))
                    && !self.0.contains(&c.name)
                {
                    self.0.push(c.name.clone());
                }
            }
            true
        }
    }
    crate::index::body::walk(&mut Names(out), node);
}

/// `stmts` with each condition that only picks how the block runs (see
/// [`runs_block_on_every_path`]) replaced by its first branch, down to the first
/// statement that decides something else.
fn without_around(stmts: Vec<Node>, block: Option<&str>) -> Vec<Node> {
    let mut out = Vec::with_capacity(stmts.len());
    for stmt in stmts {
        match &stmt {
            Node::If(i) if runs_block_on_every_path(&stmt, block) => {
                out.extend(without_around(statements(&i.then), block));
            }
            _ => out.push(stmt),
        }
    }
    out
}

/// Whether every path through `node` ends running the helper's block as it is (`yield`,
/// `block.call`, the block handed on with `&block` or `&`), after nothing but locals set:
/// `if @lock then @lock.synchronize(&block) else block.call end`.
fn runs_block_on_every_path(node: &Node, block: Option<&str>) -> bool {
    match node {
        Node::If(i) => {
            i.els
                .as_ref()
                .is_some_and(|e| runs_block_on_every_path(e, block))
                && runs_block_on_every_path(&i.then, block)
        }
        Node::Seq(items) => match items.split_last() {
            Some((last, before)) => {
                before.iter().all(|s| {
                    matches!(
                        s,
                        Node::Assign {
                            target: crate::index::body::Target::Lvar(_),
                            ..
                        }
                    )
                }) && runs_block_on_every_path(last, block)
            }
            None => false,
        },
        Node::Yield { .. } => true,
        Node::Call(c) => {
            let runs = |n: &Node| match n {
                Node::Other { text, .. } => {
                    text == "&" || block.is_some_and(|b| text.strip_prefix('&') == Some(b))
                }
                _ => false,
            };
            let called = block.is_some_and(|b| {
                c.name == "call" && matches!(&c.recv, Some(Node::Lvar(v)) if v == b)
            });
            // Handed on unchanged (`@lock.synchronize(&block)`): nothing a spec sees. Run
            // inside a block of its own (`connected_to(role: :writing) do ... end`), it
            // runs in a context the spec may check: that is a case.
            called || (c.block.is_none() && c.args.iter().any(runs))
        }
        _ => false,
    }
}

/// A call's arguments with a literal block it gives (`{ ... }`) riding along as a last
/// argument the binding knows ([`LITERAL_BLOCK`]; `block_given?` in the helper is then
/// true), as a `&blk` already does.
fn call_args(c: &crate::index::body::Call) -> Vec<Node> {
    let mut args = c.args.clone();
    if c.block.is_some() && !args.last().is_some_and(block_pass) {
        args.push(Node::Other {
            text: LITERAL_BLOCK.to_string(),
            line: c.line,
        });
    }
    args
}

/// A literal block given to a call (`{ ... }`), as the binding keeps it among the
/// arguments.
const LITERAL_BLOCK: &str = "&{}";

/// A literal a call can fix a parameter to: `true`, `false`, `nil`, a number, a string or
/// a symbol.
pub(super) fn is_literal(n: &Node) -> bool {
    matches!(
        n,
        Node::True
            | Node::False
            | Node::Nil
            | Node::Int(_)
            | Node::Float(_)
            | Node::Str(_)
            | Node::Sym(_)
    )
}

/// The name `block_given?` is bound under while a helper is inlined (no parameter can
/// have it).
const BLOCK_GIVEN: &str = "block_given?";

/// A block passed by `&` (`&block`, `&:name`), as the parser keeps it among the arguments.
fn block_pass(node: &Node) -> bool {
    matches!(node, Node::Other { text, .. } if text.starts_with('&'))
}

/// A lookup in an options hash bound to literals: `options.fetch(:clear, false)`,
/// `options[:json]`, `options.key?(:only)`; `None` when it is not one or not known.
fn hash_lookup(c: &crate::index::body::Call, bound: &[(String, Node)]) -> Option<Node> {
    let Some(Node::Lvar(name)) = &c.recv else {
        return None;
    };
    let Some((_, Node::Hash(pairs))) = bound.iter().find(|(n, _)| n == name) else {
        return None;
    };
    let Some(Node::Sym(key)) = c.args.first() else {
        return None;
    };
    let found = pairs
        .iter()
        .find(|(k, _)| matches!(k, Node::Sym(s) if s == key))
        .map(|(_, v)| v.clone());
    match (c.name.as_str(), c.args.len()) {
        ("fetch", 2) if c.block.is_none() => {
            found.or_else(|| c.args.get(1).filter(|d| is_literal(d)).cloned())
        }
        ("[]" | "dig", 1) => Some(found.unwrap_or(Node::Nil)),
        ("key?" | "has_key?" | "include?" | "member?", 1) => Some(if found.is_some() {
            Node::True
        } else {
            Node::False
        }),
        _ => None,
    }
}

/// `node` with each bound parameter replaced by its literal value.
fn substitute_params(node: &Node, bound: &[(String, Node)]) -> Node {
    if bound.is_empty() {
        return node.clone();
    }
    match node {
        Node::Lvar(n) => bound
            .iter()
            .find(|(name, _)| name == n)
            .map_or_else(|| node.clone(), |(_, v)| v.clone()),
        Node::Call(c) if c.recv.is_none() && c.name == BLOCK_GIVEN && c.args.is_empty() => bound
            .iter()
            .find(|(name, _)| name == BLOCK_GIVEN)
            .map_or_else(|| node.clone(), |(_, v)| v.clone()),
        Node::Call(c) => match hash_lookup(c, bound) {
            Some(value) => value,
            None => node.map_children(&mut |child| substitute_params(child, bound)),
        },
        other => other.map_children(&mut |child| substitute_params(child, bound)),
    }
}

/// `return unless helper(...)` (or `if`, `redirect_to x and return unless ...`) over a
/// helper whose last statement ends every path in a literal `true`, `false` or `nil`:
/// the helper's statements with each path's value replaced by the guard's branch where
/// that value makes it run, and by nothing where it does not. `None` when the statement
/// is not such a guard or a path ends in something else.
fn fuse_guard(
    stmt: &Node,
    helper: &dyn Fn(&crate::index::body::Call) -> bool,
    body: &[Node],
) -> Option<Vec<Node>> {
    let Node::If(guard) = stmt else {
        return None;
    };
    if guard.els.is_some() {
        return None;
    }
    let Node::Call(c) = &guard.cond else {
        return None;
    };
    if !helper(c) {
        return None;
    }
    // `if helper` runs its branch when the helper is truthy; `unless helper` when falsy.
    let runs_when = !guard.unless;
    let (last, before) = body.split_last()?;
    if !matches!(last, Node::If(_)) {
        return None;
    }
    let resolved = resolve_values(last, runs_when, &guard.then)?;
    let mut out = before.to_vec();
    out.push(resolved);
    Some(out)
}

/// `node` with each path's final literal replaced (see [`fuse_guard`]).
fn resolve_values(node: &Node, runs_when: bool, branch: &Node) -> Option<Node> {
    match node {
        Node::True | Node::False | Node::Nil => {
            let truthy = matches!(node, Node::True);
            Some(if truthy == runs_when {
                branch.clone()
            } else {
                Node::Seq(Vec::new())
            })
        }
        Node::Seq(items) => {
            let (last, before) = items.split_last()?;
            let mut out = before.to_vec();
            // A path that does not run the branch is an empty `Seq`: flattened, so that
            // the path reads as ending there, not as ending in an empty value.
            match resolve_values(last, runs_when, branch)? {
                Node::Seq(inner) => out.extend(inner),
                other => out.push(other),
            }
            Some(Node::Seq(out))
        }
        Node::If(i) => {
            let then = resolve_values(&i.then, runs_when, branch)?;
            let els = resolve_values(i.els.as_ref().unwrap_or(&Node::Nil), runs_when, branch)?;
            Some(Node::If(Box::new(If {
                then,
                els: Some(els),
                ..(**i).clone()
            })))
        }
        _ => None,
    }
}

/// Whether a statement holds a decision the walker turns into a characteristic.
fn decides(node: &Node) -> bool {
    match node {
        Node::If(_) | Node::Case(_) | Node::Loop { .. } => true,
        Node::Begin(b) => !b.rescues.is_empty() || statements(&b.body).iter().any(decides),
        // `attributes.map { |key| key if field.associative? }.compact`: a block that
        // decides, on the call or on a receiver it chains from.
        Node::Call(c) => {
            c.safe_nav
                || c.block
                    .as_ref()
                    .is_some_and(|b| statements(&b.body).iter().any(decides))
                || c.recv.as_ref().is_some_and(decides)
        }
        Node::Assign { value, .. }
        | Node::Return {
            value: Some(value), ..
        } => decides(value),
        Node::Seq(items) => items.iter().any(decides),
        _ => false,
    }
}

/// A private method's statements with its `return`s read as branches: `return x if c;
/// rest` → `if c then x else rest end`, a last `return x` → `x`, a `return` nested in a
/// branch → its value.
fn without_returns(stmts: Vec<Node>) -> Vec<Node> {
    let mut out = Vec::new();
    let mut iter = stmts.into_iter();
    while let Some(stmt) = iter.next() {
        match stmt {
            Node::Return { value, .. } => {
                out.push(value.map_or(Node::Nil, |v| strip_returns(&v)));
                break;
            }
            // `return @document if @document`: memoization, not a case.
            Node::If(i) if i.els.is_none() && super::guard::memoized(&i) => {}
            Node::If(i) if i.els.is_none() && ends_with_return(&i.then) => {
                let rest: Vec<Node> = iter.by_ref().collect();
                let then = Node::Seq(without_returns(statements(&i.then)));
                let els = Node::Seq(without_returns(rest));
                out.push(Node::If(Box::new(If {
                    then,
                    els: Some(els),
                    modifier: false,
                    ..(*i).clone()
                })));
                break;
            }
            other => out.push(strip_returns(&other)),
        }
    }
    out
}

fn ends_with_return(node: &Node) -> bool {
    matches!(statements(node).last(), Some(Node::Return { .. }))
}

/// `return x` anywhere inside → `x`, except in a lambda's body, where `return` leaves the
/// lambda only.
fn strip_returns(node: &Node) -> Node {
    match node {
        Node::Return { value, .. } => value.as_deref().map_or(Node::Nil, strip_returns),
        Node::Call(c) if super::blocks::deferred(c) => node.clone(),
        other => other.map_children(&mut strip_returns),
    }
}

/// For a call whose value is not used: drops conditionals that only choose a value
/// (every branch a literal, variable or nothing), which change nothing for the caller.
fn prune_value_choices(stmts: Vec<Node>) -> Vec<Node> {
    stmts
        .into_iter()
        .filter(|s| match s {
            Node::If(i) => !(only_values(&i.then) && i.els.as_ref().is_none_or(only_values)),
            _ => true,
        })
        .map(|s| match s {
            // `repo_path = root_url || url`: a default the helper picks for itself, which
            // its caller neither passes nor sees (hg's repository path in redmine's
            // MercurialAdapter): kept as a plain value, not split into a presence.
            Node::Assign {
                target,
                op,
                value,
                line,
            } if matches!(value.as_ref(), Node::Or(a, b, _) if plain_operand(a) && plain_operand(b)) => {
                Node::Assign {
                    target,
                    op,
                    value: Box::new(Node::Other {
                        text: value.render(),
                        line,
                    }),
                    line,
                }
            }
            other => other,
        })
        .collect()
}

/// A value read as it is: a variable, a constant, a literal, or an attribute of the
/// object itself (`root_url`, `self.url`).
fn plain_operand(node: &Node) -> bool {
    match node {
        Node::Call(c) => {
            c.args.is_empty() && c.block.is_none() && matches!(c.recv, None | Some(Node::SelfRef))
        }
        other => only_values(other) || matches!(other, Node::Const { .. }),
    }
}

fn only_values(node: &Node) -> bool {
    statements(node).iter().all(|s| {
        matches!(
            s,
            Node::Nil
                | Node::True
                | Node::False
                | Node::Int(_)
                | Node::Float(_)
                | Node::Str(_)
                | Node::Sym(_)
                | Node::Lvar(_)
                | Node::Ivar(_)
                | Node::SelfRef
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn a_helper_that_finds_through_a_deciding_helper_is_followed() {
        // `user_credential` decides nothing itself; the scope it finds in does.
        let m = analyze_one(
            "module CredentialVerifiable\n  def credential_verified?\n    unless user_credential\n      @error = \"required\"\n      return false\n    end\n    true\n  end\n\n  private\n\n  def credential_scope\n    if @user.present?\n      @user.credentials\n    else\n      Credential.none\n    end\n  end\n\n  def user_credential\n    return @user_credential if defined?(@user_credential)\n\n    @user_credential = credential_scope.find_by(external_id: @credential.id)\n  end\nend\n",
            "credential_verified?",
        );
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["user", "user_credential"], "{:?}", flat(&m));
        assert_eq!(m.characteristics[0].source_line, "13");
    }

    #[test]
    fn one_short_local_holding_two_values_asks_two_questions() {
        // Each helper sets `c` from its own category: the same words, two questions.
        let m = analyze_one(
            "class Summary\n  def data(track_id = 0)\n    metrics = {\n      authoring: authoring_metrics(track_id),\n      mentoring: mentoring_metrics(track_id)\n    }\n    metrics\n  end\n\n  private\n\n  def authoring_metrics(track_id = 0)\n    c = occurrences(:authoring, track_id).to_i\n    return [\"No exercises\"] if c.to_i.zero?\n\n    [\"#{c} exercises\"]\n  end\n\n  def mentoring_metrics(track_id = 0)\n    c = occurrences(:mentoring, track_id).to_i\n    return [\"No students\"] if c.to_i.zero?\n\n    [\"#{c} students\"]\n  end\nend\n",
            "data",
        );
        let lines: Vec<&str> = m
            .characteristics
            .iter()
            .map(|c| c.source_line.as_str())
            .collect();
        assert_eq!(lines, vec!["14", "21"], "{:?}", flat(&m));
    }

    #[test]
    fn a_guard_run_predicate_asks_its_guards_one_under_the_other() {
        // `return true if preview` passes the rest by; each later guard is asked only when
        // the ones before it let the check go on, and the final `true` is no condition.
        let m = analyze_one(
            "class AdvertComponent < ViewComponent::Base\n  def to_s\n    return nil unless show_advert?\n\n    render(advert)\n  end\n\n  private\n\n  def show_advert?\n    return true if preview\n    return false unless advert\n    return false if current_user&.hide_adverts?\n\n    true\n  end\nend\n",
            "to_s",
        );
        let plan: Vec<(String, u32, Option<usize>)> = m
            .characteristics
            .iter()
            .map(|c| (c.name.clone(), c.level, c.parent))
            .collect();
        assert_eq!(
            plan,
            vec![
                ("preview".to_string(), 1, None),
                ("advert".to_string(), 2, Some(0)),
                ("current_user".to_string(), 3, Some(1)),
                ("current_user_hide_adverts".to_string(), 4, Some(2)),
            ],
            "{:?}",
            flat(&m)
        );
    }

    #[test]
    fn a_private_predicate_that_decides_lends_its_conditions_at_its_lines() {
        let src = "class SessionsController < ApplicationController\n  def new\n    if signed_in_too_long_ago?(params[:max_age])\n      reauthenticate\n    else\n      render :new\n    end\n  end\n\n  def edit\n    return head(:forbidden) unless signup_enabled?\n    render :edit\n  end\n\n  private\n\n  def signed_in_too_long_ago?(seconds)\n    if seconds.nil?\n      false\n    else\n      (Time.now - current_user.current_sign_in_at) > seconds.to_i\n    end\n  end\n\n  def signup_enabled?\n    Settings.allow_sign_up?\n  end\nend\n";
        let m = analyze_one(src, "new");
        let names: Vec<(&str, &str)> = m
            .characteristics
            .iter()
            .map(|c| (c.name.as_str(), c.source_line.as_str()))
            .collect();
        assert_eq!(names.len(), 2, "{:?}", flat(&m));
        assert_eq!(names[0], ("max_age_param", "18"));
        assert_eq!(names[1].1, "21");
        assert_eq!(m.characteristics[1].parent, Some(0));
        assert!(m
            .notes
            .iter()
            .any(|n| n.contains("signed_in_too_long_ago?")));
        // One bare test: the predicate's name is the context.
        let m = analyze_one(src, "edit");
        assert_eq!(m.characteristics.len(), 1);
        assert_eq!(m.characteristics[0].name, "signup_enabled");
    }

    #[test]
    fn a_default_a_bare_called_helper_picks_for_itself_is_no_characteristic() {
        // redmine's MercurialAdapter: `repo_path = root_url || url` inside `hg`, whose
        // value the caller never reads. Its argument guard stays the caller's.
        let m = analyze_one(
            "class Adapter\n  def cat(path)\n    hg(\"cat\", path)\n    true\n  end\n\n  private\n\n  def hg(*args)\n    raise ArgumentError, \"bad\" if args.any? { |s| s.start_with?(\"--config\") }\n    repo_path = root_url || url\n    shellout([\"-R#{repo_path}\", *args].join(\" \"))\n  end\nend\n",
            "cat",
        );
        assert_eq!(
            flat(&m),
            vec!["1 some_args [boolean] true:some args starting with \"--config\" => raises ArgumentError | false:no args starting with \"--config\" -> returns true"]
        );
    }

    #[test]
    fn raising_guards_of_a_private_helper_become_the_callers() {
        let m = analyze_one(
            "class Importer\n  def run(file)\n    validate!(file)\n    parse(file)\n  end\n\n  private\n\n  def validate!(file)\n    raise ArgumentError, \"empty\" if file.empty?\n    return if file.size > 10\n\n    true\n  end\nend\n",
            "run",
        );
        assert_eq!(
            flat(&m),
            vec!["1 file [presence] present:file present -> parses file | nil:file missing => raises ArgumentError"]
        );
    }

    #[test]
    fn a_deciding_helper_whose_value_is_used_is_inlined_with_its_returns_as_branches() {
        let m = analyze_one(
            "class HomeController < ApplicationController\n  def index\n    @page = page\n    render :index\n  end\n\n  private\n\n  def page\n    p = params[:page].to_i\n    return 1 if p == 0\n    raise RoutingError if p < 0\n    p\n  end\nend\n",
            "index",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 page_param [enum] 0:0 -> renders index template with page set to 1 | other:NOT 0",
                "2 page_param_2 [range] below:below 0 => raises RoutingError | at_least:at least 0 -> renders index template",
            ]
        );
    }

    #[test]
    fn a_private_predicate_whose_value_is_the_methods_is_inlined() {
        // codebar's presenter: `def spaces? = virtual_workshop_spaces?`, whose body is
        // `coach_spaces? || student_spaces?`: the method's answer is that `||`.
        let src = "class WorkshopPresenter\n  def spaces?\n    any_spaces?\n  end\n\n  def open?\n    any_spaces? && !closed?\n  end\n\n  private\n\n  def any_spaces?\n    coach_spaces? || student_spaces?\n  end\nend\n";
        let m = analyze_one(src, "spaces?");
        assert_eq!(
            flat(&m),
            vec!["1 coach_spaces_or_student_spaces [boolean] true:coach spaces or student spaces -> returns true | false:neither coach spaces nor student spaces => returns false"]
        );
        // Used as an operand, the predicate stays the condition's name.
        let m = analyze_one(src, "open?");
        assert_eq!(
            m.characteristics.first().map(|c| c.name.as_str()),
            Some("any_spaces")
        );
    }

    #[test]
    fn a_lambda_ending_in_true_or_false_decides_the_statement_it_guards() {
        // The private `document` is inlined into `to_html`; the lambda's own `return`s
        // stay the lambda's, and `x if check.call(el)` takes the lambda's decisions.
        let m = analyze_one(
            "class Markdown < String\n  def to_html\n    linkify(document.to_html)\n  end\n\n  private\n\n  def document\n    return @document if @document\n\n    @document = Kramdown::Document.new(self)\n    check = lambda do |el|\n      return true if el.block?\n\n      false\n    end\n    mark = lambda do |element|\n      element.attr[\"dir\"] ||= \"auto\" if check.call(element)\n    end\n    mark.call(@document.root)\n    @document\n  end\nend\n",
            "to_html",
        );
        assert_eq!(
            flat(&m),
            vec!["1 el_block [boolean] true:block el -> sets the element attr dir to \"auto\" | false:NOT block el -> returns the linkify"]
        );
    }

    #[test]
    fn an_assigned_helper_sets_the_variable_on_each_of_its_paths() {
        // `changesets = conditions_bbox(changesets, bbox)`: the filtered list when a bbox
        // is given, the list as it was otherwise (nothing said).
        let m = analyze_one(
            "class ChangesetsController < ApplicationController\n  def index\n    changesets = Changeset.all\n    changesets = conditions_bbox(changesets, params[:bbox])\n    @changesets = changesets\n    render :index\n  end\n\n  private\n\n  def conditions_bbox(changesets, bbox)\n    if bbox\n      changesets.where(\"min_lon < ?\", bbox)\n    else\n      changesets\n    end\n  end\nend\n",
            "index",
        );
        assert_eq!(flat(&m), vec![
                "1 bbox [presence] present:bbox present -> renders index template with changesets set to the matching changesets | nil:bbox missing -> renders index template",
            ]);
    }

    #[test]
    fn options_a_call_passes_decide_the_helper_where_it_is_called() {
        // Ruby hands `clear: true` to `options = {}`: the one call clears, and no
        // `options` question is left to ask.
        let helper = "\n  private\n\n  def set(feature, gate, options = {})\n    clear_feature = options.fetch(:clear, false)\n    clear(feature) if clear_feature\n    raise ArgumentError, \"not text\" if options[:json] && !gate.text?\n    Gate.create!(key: gate.key)\n  end\nend\n";
        let one = format!("class Adapter\n  def enable(feature, gate)\n    set(feature, gate, clear: true)\n  end\n{helper}");
        let m = analyze_one(&one, "enable");
        assert!(m.characteristics.is_empty(), "{:?}", flat(&m));
        // Two calls that pass it apart: which call runs decides, so the question stays.
        let two = format!("class Adapter\n  def enable(feature, gate)\n    if gate.boolean?\n      set(feature, gate, clear: true)\n    else\n      set(feature, gate)\n    end\n  end\n{helper}");
        let m = analyze_one(&two, "enable");
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert!(names.contains(&"clear_feature"), "{:?}", flat(&m));
    }

    #[test]
    fn block_given_is_what_the_call_gives() {
        let src = "class Store\n  def members(key)\n    set_members(key)\n  end\n\n  def add(key, value)\n    set_members(key) { |m| m.add(value) }\n  end\n\n  private\n\n  def set_members(key)\n    @store[key] ||= Set.new\n    if block_given?\n      yield @store[key]\n    else\n      @store[key]\n    end\n  end\nend\n";
        for method in ["members", "add"] {
            let m = analyze_one(src, method);
            assert!(m.characteristics.is_empty(), "{method}: {:?}", flat(&m));
        }
        // A method that hands on its own block: whether one is given is its caller's
        // question.
        let forwarding = src.replace(
            "def members(key)\n    set_members(key)\n  end",
            "def members(key, &)\n    set_members(key, &)\n  end",
        );
        let m = analyze_one(&forwarding, "members");
        assert!(
            m.characteristics.iter().any(|c| c.name.contains("block")),
            "{:?}",
            flat(&m)
        );
    }

    #[test]
    fn a_condition_that_only_picks_how_the_block_runs_is_no_characteristic() {
        let src = "class Adapter\n  def disable(feature)\n    synchronize { @source.delete(feature.key) }\n    true\n  end\n\n  def enable(feature)\n    with_write_connection(@model) { |c| c.insert(feature.key) }\n  end\n\n  def guarded(feature)\n    checked { feature.on! }\n  end\n\n  private\n\n  def synchronize(&block)\n    if @lock\n      @lock.synchronize(&block)\n    else\n      block.call\n    end\n  end\n\n  def with_write_connection(model, &block)\n    if model.respond_to?(:connection_class_for_self)\n      klass = model.connection_class_for_self\n      if klass.connection_class?\n        klass.connected_to(role: :writing) do\n          with_connection(model, &block)\n        end\n      else\n        with_connection(model, &block)\n      end\n    else\n      with_connection(model, &block)\n    end\n  end\n\n  def checked\n    if @readonly\n      raise ReadOnlyError\n    else\n      yield\n    end\n  end\nend\n";
        let m = analyze_one(src, "disable");
        assert!(m.characteristics.is_empty(), "{:?}", flat(&m));
        // Writing through another role runs the block in a context a spec may check.
        let m = analyze_one(src, "enable");
        assert!(
            m.characteristics
                .iter()
                .any(|c| c.name.contains("connection_class")),
            "{:?}",
            flat(&m)
        );
        // A path that does something else (raises) is a case.
        let m = analyze_one(src, "guarded");
        assert_eq!(m.characteristics.len(), 1, "{:?}", flat(&m));
    }

    #[test]
    fn a_private_helper_returned_by_a_guard_is_walked_under_its_exit() {
        // Shaped like a sort object: the association path returns a helper that picks by
        // the association's macro.
        let src = "class Sorter\n  def apply(relation)\n    return by_association(relation) unless reflection(relation).nil?\n\n    relation.reorder(:name)\n  end\n\n  private\n\n  def reflection(relation)\n    relation.reflect_on_association(:owner)\n  end\n\n  def by_association(relation)\n    case relation.macro\n    when :has_many\n      relation.group(:id)\n    when :belongs_to\n      relation.joins(:owner)\n    else\n      relation\n    end\n  end\nend\n";
        let m = analyze_one(src, "apply");
        let macro_char = m
            .characteristics
            .iter()
            .find(|c| c.name.contains("macro"))
            .unwrap_or_else(|| panic!("{:?}", flat(&m)));
        assert_eq!(macro_char.level, 2, "{:?}", flat(&m));
        // The helper's own value on the `else` path is what is returned, not the call.
        let other = macro_char
            .values
            .last()
            .and_then(|v| v.behavior.as_ref())
            .map(|b| b.description.as_str());
        assert_eq!(other, Some("returns the relation"), "{:?}", flat(&m));
    }

    #[test]
    fn a_class_or_symbol_the_one_call_passes_decides_the_helper() {
        // A stream controller whose action hands its one stream class on: the class is
        // never nil, and a symbol the call fixes answers the comparison.
        let src = "class StreamsController\n  def activity\n    respond_with(Stream::Activity)\n  end\n\n  def dated\n    stamp(:datetime)\n  end\n\n  def limit\n    respond_with(DEFAULT_STREAM)\n  end\n\n  private\n\n  def respond_with(klass)\n    if klass.present?\n      render klass.new\n    else\n      head :not_found\n    end\n  end\n\n  def stamp(type)\n    if type == :date\n      I18n.l(@value, format: :short)\n    else\n      I18n.l(@value, format: :long)\n    end\n  end\nend\n";
        for method in ["activity", "dated"] {
            let m = analyze_one(src, method);
            assert!(m.characteristics.is_empty(), "{method}: {:?}", flat(&m));
        }
        // A value constant may be anything: the question stays.
        let m = analyze_one(src, "limit");
        assert_eq!(m.characteristics.len(), 1, "{:?}", flat(&m));
    }

    #[test]
    fn a_helper_returned_last_gives_its_choices_and_value_to_the_method() {
        // A dashboard keeping the associative attributes through a private helper whose
        // `map` block keeps some keys (`.compact` after it).
        let src = "class Dashboard\n  def item_associations\n    attributes = show_page_attributes\n    attribute_associated attributes\n  end\n\n  private\n\n  def attribute_associated(attributes)\n    attributes.map do |key|\n      field = attribute_type_for(key)\n\n      key if field.associative?\n    end.compact\n  end\nend\n";
        let m = analyze_one(src, "item_associations");
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["field_associative"], "{:?}", flat(&m));
    }

    #[test]
    fn a_memoized_begin_block_is_walked_for_what_its_value_decides() {
        // A namespace's routes, computed once: the memo is no context, the filter is.
        let src = "class Namespace\n  def routes\n    @routes ||= begin\n      prefix = \"#{namespace}/\".freeze\n      Rails.application.routes.routes.filter_map do |route|\n        next unless route.defaults[:controller]&.start_with?(prefix)\n\n        [route.defaults[:controller].delete_prefix(prefix), route.defaults[:action]]\n      end\n    end\n  end\nend\n";
        let m = analyze_one(src, "routes");
        assert!(
            m.characteristics
                .iter()
                .any(|c| c.name.contains("start_with")),
            "{:?}",
            flat(&m)
        );
        assert!(
            m.characteristics.iter().all(|c| !c.name.contains("routes")),
            "{:?}",
            flat(&m)
        );
    }

    #[test]
    fn a_helper_given_a_block_last_keeps_the_blocks_questions() {
        // A job destroyed under the lock a private helper takes: the guard is the
        // block's, the caller's own code.
        let src = "class Job\n  def destroy_job\n    with_appropriate_lock do\n      raise ActionForStateMismatchError if finished_at.blank?\n\n      destroy\n    end\n  end\n\n  private\n\n  def with_appropriate_lock\n    if self.class.effective_lock_strategy == :skiplocked\n      transaction do\n        reload(lock: \"FOR NO KEY UPDATE\")\n        yield true\n      end\n    else\n      advisory_lock { yield false }\n    end\n  end\nend\n";
        let m = analyze_one(src, "destroy_job");
        assert!(
            m.characteristics
                .iter()
                .any(|c| c.name.contains("finished_at")),
            "{:?}",
            flat(&m)
        );
    }

    #[test]
    fn what_an_ensure_decides_is_the_methods() {
        // A claim that always releases the claimed record, when there is one still locked.
        let src = "class Job\n  def self.with_claim(locked_by_id)\n    record = unscoped.claim(locked_by_id).first\n    begin\n      yield(record)\n    ensure\n      record.update(locked_by_id: nil) if record && !record.destroyed?\n    end\n  end\nend\n";
        let m = analyze_one(src, "with_claim");
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert!(names.contains(&"record"), "{:?}", flat(&m));
        assert!(
            names.iter().any(|n| n.contains("destroyed")),
            "{:?}",
            flat(&m)
        );
    }
}
