//! `case/when`, `case/in`, and `if/elsif` chains comparing one subject with literals
//! (contract §5 rules 6, 9.4, 10, 16): one enum characteristic with a value per literal
//! (`when "shipped", "delivered"` gives two), plus `other` for the `else` branch or, when
//! there is none, for the values no branch names (the implicit path that returns nil or
//! carries on). A `case` without a subject is an `if/elsif` chain. The type is
//! `sequential` when the class declares a state machine (`aasm`, `state_machine`,
//! `workflow`) and the subject is its state; deciding that states have an order without a
//! state machine is judgement (\[J\]): we keep `enum`.
//!
//! Example (the seed's `PaymentProcessor#process`): `case payment.status` with
//! `when "completed" then return ...` and `when "failed" then return ...` gives
//! `payment_status` with terminal `completed` and `failed`, and `other` carrying on to
//! the gateway call, whose characteristic nests under it.

use crate::index::body::{Case, If, Node, When};
use crate::yaml::Value;

use super::{decides_here, statements, At, End, Slot, Walker};
use crate::analyze::condition;
use crate::analyze::model::CharType;
use crate::analyze::rules::Rule;

/// The most guards on one subject read as one enum ([`Walker::guard_run`]).
pub const MAX_GUARD_RUN: usize = 32;

impl Walker<'_> {
    /// Handles a `case`.
    pub fn case(&mut self, case: &Case, rest: &[Node], at: At, tail: bool) -> End {
        let Some(subject) = &case.subject else {
            // `case` without a subject: `when cond` is `elsif cond`.
            let chain = case_to_if(case);
            return match &chain {
                Node::If(i) => self.branch(i, rest, at, tail),
                _ => self.seq(std::slice::from_ref(&chain), at, tail),
            };
        };
        let arms: Vec<(Vec<(Value, String)>, Node)> = case
            .whens
            .iter()
            .map(|w| {
                (
                    w.conds.iter().map(condition::when_value).collect(),
                    w.body.clone(),
                )
            })
            .collect();
        if case.pattern {
            self.apply(Rule::PatternsAsText, None);
        }
        // `case/in` without `else` raises NoMatchingPatternError when nothing matches
        // (`case/when` returns nil).
        let no_match = (case.pattern && case.els.is_none()).then(|| {
            Node::Call(Box::new(crate::index::body::Call {
                recv: None,
                name: "raise".to_string(),
                args: vec![Node::Const {
                    path: "NoMatchingPatternError".to_string(),
                    absolute: false,
                }],
                block: None,
                safe_nav: false,
                line: case.lines.1,
            }))
        });
        let els = case.els.as_ref().or(no_match.as_ref());
        // From `case` to the last `when`: the lines that decide, not the branches' bodies.
        let last_when = case.whens.last().map_or(case.lines.0, |w| w.line);
        let lines = (case.lines.0, last_when.max(case.lines.0));
        self.enum_arms(subject, arms, els, lines, rest, at, tail)
    }

    /// `if x.markdown? ... elsif x.textile? ... else ... end`: predicates of one object that
    /// pick one of its kinds → one enum (`markdown`, `textile`, `other`). Tests of its
    /// attributes mix in (`if user.status == "deleted" ... elsif user.data_public? ...`:
    /// `deleted`, `data_public`, `other`), as an expert writes one context per branch.
    pub fn predicate_chain(&mut self, node: &If, rest: &[Node], at: At, tail: bool) -> Option<End> {
        if node.unless || node.ternary {
            return None;
        }
        if let Some(guarded) = safe_chain_guarded(node) {
            // `if token&.revoked? ... elsif token&.expired? ... else ... end`: a missing
            // token takes the `else`; a present one is one of the kinds.
            return Some(self.branch(&guarded, rest, at, tail));
        }
        let mut arms: Vec<(Vec<(Value, String)>, Node)> = Vec::new();
        let mut subject: Option<Node> = None;
        let mut current = node;
        let els: Option<Node>;
        let mut last_line = node.cond_line;
        let (mut mixed, mut presence_arm) = (false, false);
        loop {
            let Node::Call(c) = &current.cond else {
                return None;
            };
            // `user.status == "deleted"`: an attribute of the same object, one value.
            let attribute = equality(&current.cond).and_then(|(attr, lit)| match attr {
                Node::Call(a) if a.args.is_empty() && a.block.is_none() && !a.safe_nav => {
                    Some((a.recv.as_ref()?, a.name.as_str(), lit))
                }
                _ => None,
            });
            mixed |= attribute.is_some();
            presence_arm |= attribute.is_none()
                && matches!(
                    c.name.as_str(),
                    "nil?" | "present?" | "blank?" | "empty?" | "any?" | "none?" | "zero?"
                );
            let (recv, value) = match attribute {
                Some((recv, attr, lit)) => {
                    let (value, words) = condition::when_value(lit);
                    let attr = crate::analyze::grammar::predicate_phrase(attr);
                    (recv, (value, format!("{attr} {words}")))
                }
                None => {
                    if !c.name.ends_with('?') || !c.args.is_empty() || c.block.is_some() {
                        return None;
                    }
                    let kind = crate::analyze::grammar::predicate_phrase(&c.name);
                    (
                        c.recv.as_ref()?,
                        (
                            Value::String(crate::analyze::grammar::identifier(&kind)),
                            kind,
                        ),
                    )
                }
            };
            match &subject {
                None => subject = Some(recv.clone()),
                Some(prev) if prev.render() == recv.render() => {}
                Some(_) => return None,
            }
            arms.push((vec![value], current.then.clone()));
            last_line = last_line.max(c.line);
            match &current.els {
                Some(Node::If(next)) if next.elsif => current = next,
                other => {
                    els = other.clone();
                    break;
                }
            }
        }
        if arms.len() < 2 {
            return None;
        }
        // Kinds and attribute values mix (`status == "deleted"` then `data_public?`); a
        // presence test among attribute values (`author.nil?` then `author.status ==`)
        // is the object missing, no kind of it: left to the chained characteristics.
        if mixed && presence_arm {
            return None;
        }
        let subject = subject?;
        let kind_of = Node::Call(Box::new(crate::index::body::Call {
            recv: Some(subject),
            name: "kind".to_string(),
            args: Vec::new(),
            block: None,
            safe_nav: false,
            line: node.cond_line,
        }));
        Some(self.enum_arms(
            &kind_of,
            arms,
            els.as_ref(),
            (node.cond_line, last_line),
            rest,
            at,
            tail,
        ))
    }

    /// `if x == "a" ... elsif x == "b" ... else ... end` on one subject → one enum.
    pub fn equality_chain(&mut self, node: &If, rest: &[Node], at: At, tail: bool) -> Option<End> {
        if node.unless || node.ternary {
            return None;
        }
        if let Some(guarded) = safe_chain_guarded(node) {
            // `if token&.revoked? ... elsif token&.expired? ... else ... end`: a missing
            // token takes the `else`; a present one is one of the kinds.
            return Some(self.branch(&guarded, rest, at, tail));
        }
        let mut arms: Vec<(Vec<(Value, String)>, Node)> = Vec::new();
        let mut subject: Option<Node> = None;
        let mut current = node;
        let els: Option<Node>;
        let mut last_line = node.cond_line;
        loop {
            // The last arm may test more (`elsif x == :a && single_child`): that value
            // then decides the rest, and falls to the `else` when it fails.
            let (test, more) = match &current.cond {
                and @ Node::And(..) if !arms.is_empty() => first_and_rest(and),
                other => (other.clone(), None),
            };
            let (s, values) = match equality(&test) {
                Some((s, lit)) => (s.clone(), vec![condition::when_value(lit)]),
                None => {
                    let (s, values) = self.membership(&test)?;
                    (s.clone(), values)
                }
            };
            last_line = current
                .cond
                .span()
                .map_or(current.cond_line, |(_, hi)| hi)
                .max(last_line);
            match &subject {
                None => subject = Some(s),
                Some(prev) if prev.render() == s.render() => {}
                Some(_) => return None,
            }
            if let Some(more) = more {
                let decided = Node::If(Box::new(If {
                    cond: more,
                    then: current.then.clone(),
                    els: current.els.clone(),
                    unless: false,
                    modifier: false,
                    ternary: false,
                    elsif: false,
                    lines: current.lines,
                    cond_line: current.cond_line,
                }));
                arms.push((values, decided));
                els = current.els.clone();
                break;
            }
            arms.push((values, current.then.clone()));
            match chained(current.els.as_ref()) {
                Some(next) => current = next,
                None => {
                    els = current.els.clone();
                    break;
                }
            }
        }
        // The `else` is walked again under the last arm when it tests more: only when it
        // decides nothing, so the plan does not double.
        if arms.len() >= 2
            && matches!(&current.cond, Node::And(..))
            && els.as_ref().is_some_and(|e| decides_here(&statements(e)))
        {
            return None;
        }
        if arms.len() < 2 {
            return None;
        }
        let subject = subject?;
        let first_line = node.cond.span().map_or(node.cond_line, |(lo, _)| lo);
        Some(self.enum_arms(
            &subject,
            arms,
            els.as_ref(),
            (first_line, last_line),
            rest,
            at,
            tail,
        ))
    }

    /// `LIST.include?(x)` or `x.in?(LIST)`: the subject and the values that pass. A list of
    /// up to three literals (written out, or assigned to a local) gives one value each, as
    /// `when "open", "reopened"` does; a longer list, or one named by a constant or a
    /// method, is one value named after it (`one of the dir auto types`): an expert writes
    /// one context for the list, not one per element.
    pub(super) fn membership<'n>(
        &self,
        cond: &'n Node,
    ) -> Option<(&'n Node, Vec<(Value, String)>)> {
        let Node::Call(c) = cond else { return None };
        if c.args.len() != 1 || c.block.is_some() {
            return None;
        }
        let (list, subject) = match (c.name.as_str(), c.recv.as_ref(), c.args.first()) {
            ("include?" | "member?", Some(list), Some(subject)) => (list, subject),
            ("in?", Some(subject), Some(list)) => (list, subject),
            _ => return None,
        };
        let literal = |n: &Node| matches!(n, Node::Str(_) | Node::Sym(_) | Node::Int(_));
        let items = match list {
            Node::Array(items) => Some(items),
            Node::Lvar(name) => match self.assigned.get(name) {
                Some(Node::Array(items)) => Some(items),
                _ => None,
            },
            _ => None,
        };
        if let Some(items) = items {
            if !items.is_empty() && items.len() <= 3 && items.iter().all(literal) {
                return Some((subject, items.iter().map(condition::when_value).collect()));
            }
        }
        let name = match list {
            Node::Lvar(n) => crate::analyze::grammar::words(n),
            Node::Const { path, .. } => path.clone(),
            Node::Call(l) if l.args.is_empty() && l.block.is_none() => {
                crate::analyze::grammar::words(&l.name)
            }
            // A literal list too long to write out, or an expression: no name for it.
            _ => return None,
        };
        let value = Value::String(crate::analyze::grammar::identifier(&name));
        let words = match list {
            Node::Const { .. } => format!("one of {name}"),
            _ => format!("one of the {name}"),
        };
        Some((subject, vec![(value, words)]))
    }

    /// `return a if x == :p; return b if x == :q; rest`: guards that each test one subject
    /// against values (equalities, `LIST.include?(x)`) are one `if/elsif` chain whose
    /// `else` is the rest of the method, so they read as one enum (`x`: `p`, `q`, `other`)
    /// instead of a characteristic per guard nested under the last one's `other`. The
    /// last guard may test more with `&&` (`return true if x == :a && single_child`): its
    /// value then carries the rest test, then the rest of the method. `None` unless two
    /// guards or more share the subject. Returns the chain and how many statements of
    /// `rest` it took.
    pub(super) fn guard_run(&self, first: &If, rest: &[Node]) -> Option<(Node, usize)> {
        // (subject as written, the guard)
        let mut guards: Vec<(String, &If)> = Vec::new();
        for stmt in std::iter::once(None).chain(rest.iter().map(Some)) {
            let node = match stmt {
                None => first,
                Some(Node::If(i)) => i,
                Some(_) => break,
            };
            if node.unless || node.ternary || node.els.is_some() {
                break;
            }
            if crate::analyze::outcome::always_exits(&node.then, &self.cx.text).is_none() {
                break;
            }
            let (test, more) = first_and_rest(&node.cond);
            let subject = match equality(&test) {
                Some((s, _)) => s.render(),
                None => match self.membership(&test) {
                    Some((s, _)) => s.render(),
                    None => break,
                },
            };
            if guards.first().is_some_and(|(s, _)| *s != subject) {
                break;
            }
            if guards.len() == MAX_GUARD_RUN {
                // A table written as guards (hundreds of `return n if x == n`): an enum of
                // the first ones, the next under its `other`, down to the nesting limit.
                break;
            }
            guards.push((subject, node));
            // Only the last guard may test more: after it, the rest runs as well.
            if more.is_some() {
                break;
            }
        }
        if guards.len() < 2 {
            return None;
        }
        let taken = guards.len() - 1;
        let after: Vec<Node> = rest.get(taken..).unwrap_or_default().to_vec();
        // The chain walks the rest again under a last guard that tests more
        // ([`Walker::equality_chain`]): only when the rest decides nothing.
        let last_tests_more = guards
            .last()
            .is_some_and(|(_, g)| matches!(g.cond, Node::And(..)));
        if last_tests_more && decides_here(&after) {
            return None;
        }
        let mut chain: Option<Node> = (!after.is_empty()).then_some(Node::Seq(after));
        for (i, (_, node)) in guards.iter().enumerate().rev() {
            chain = Some(Node::If(Box::new(If {
                els: chain,
                modifier: false,
                elsif: i > 0,
                ..(*node).clone()
            })));
        }
        Some((chain?, taken))
    }

    /// An enum whose values are exactly its arms (no `other`): `respond_to` formats.
    pub fn enum_arms_without_other(
        &mut self,
        subject: &Node,
        arms: Vec<(Vec<(Value, String)>, Node)>,
        lines: (u32, u32),
        rest: &[Node],
        at: At,
        tail: bool,
    ) -> End {
        self.enum_values(subject, arms, None, false, lines, rest, at, tail)
    }

    #[allow(clippy::too_many_arguments)]
    fn enum_arms(
        &mut self,
        subject: &Node,
        arms: Vec<(Vec<(Value, String)>, Node)>,
        els: Option<&Node>,
        lines: (u32, u32),
        rest: &[Node],
        at: At,
        tail: bool,
    ) -> End {
        self.enum_values(subject, arms, els, true, lines, rest, at, tail)
    }

    #[allow(clippy::too_many_arguments)]
    fn enum_values(
        &mut self,
        subject: &Node,
        arms: Vec<(Vec<(Value, String)>, Node)>,
        els: Option<&Node>,
        with_other: bool,
        lines: (u32, u32),
        rest: &[Node],
        at: At,
        tail: bool,
    ) -> End {
        let question = super::enum_question(subject);
        let subject = &self.named_subject(subject);
        let (name, words) = condition::case_subject(subject);
        let mut values: Vec<(Value, String)> = Vec::new();
        let mut bodies: Vec<Node> = Vec::new();
        for (literals, body) in &arms {
            for (value, desc) in literals {
                if values.iter().any(|(v, _)| v == value) {
                    continue;
                }
                values.push((value.clone(), desc.clone()));
                bodies.push(body.clone());
            }
        }
        if with_other {
            let other_desc = if els.is_some() {
                format!("other {words}")
            } else {
                format!("any other {words}")
            };
            values.push((Value::String("other".to_string()), other_desc));
        }
        let other_body = els.cloned();
        let kind = if self.state_machine_subject(subject) {
            CharType::Sequential
        } else {
            CharType::Enum
        };
        let (setup, source) = self.setup_and_source(subject);
        let index = self.push_char(
            name, words, kind, values, source, setup, at, lines, None, None,
        );
        if let Some(c) = self.chars.get_mut(index) {
            c.question = question;
            c.attribute = crate::analyze::setup::attribute(subject);
        }
        let mut arms_bodies = bodies;
        if with_other {
            arms_bodies.push(other_body.unwrap_or(Node::Seq(Vec::new())));
        }
        self.walk_values(index, &arms_bodies, rest, at, tail)
    }

    /// Walks the body of each value of characteristic `index` (in value order) under it,
    /// then the rest of the method.
    pub fn walk_values(
        &mut self,
        index: usize,
        bodies: &[Node],
        rest: &[Node],
        at: At,
        tail: bool,
    ) -> End {
        let last = rest.is_empty();
        let branch_tail = tail && last;
        let mut continuing: Vec<(Slot, End)> = Vec::new();
        for (vi, body) in bodies.iter().enumerate() {
            let slot = (index, vi);
            let end = self.seq(&statements(body), self.under(slot), branch_tail);
            match &end {
                End::Exited(_) => self.finish(slot, &end, true),
                // A value that ended in conditionals of its own, in the middle of the
                // method: the rest of the method still runs after them.
                End::Branched if !branch_tail => continuing.push((slot, end)),
                End::Branched => self.finish(slot, &end, true),
                End::Done(_) if branch_tail => self.finish(slot, &end, true),
                End::Done(_) => continuing.push((slot, end)),
            }
        }
        self.carry_on(continuing, rest, at, tail)
    }

    fn state_machine_subject(&self, subject: &Node) -> bool {
        let is_state = match subject {
            Node::Call(c) => matches!(
                c.name.as_str(),
                "state" | "status" | "aasm_state" | "workflow_state" | "current_state"
            ),
            _ => false,
        };
        is_state
            && self.cx.facts.classes.iter().any(|c| {
                c.dsl
                    .iter()
                    .any(|d| matches!(d.name.as_str(), "aasm" | "state_machine" | "workflow"))
            })
    }
}

/// `a && b && c` → (`a`, `b && c`): the first test and what the rest adds (`None` for a
/// condition that is no `&&`).
/// `if x&.a? ... elsif x&.b? ... else e end` (every test a predicate of one receiver, at
/// least one through `&.`) as `if x then (if x.a? ... elsif x.b? ... else e end) else e
/// end`: `nil&.a?` is nil, so a missing `x` takes the `else`. `None` for anything else.
fn safe_chain_guarded(node: &If) -> Option<If> {
    /// `node` without its `&.`s, the chain's last `else`, whether any test used `&.`.
    fn plain(node: &If, receiver: &mut Option<Node>) -> Option<(If, Option<Node>, bool)> {
        let Node::Call(c) = &node.cond else {
            return None;
        };
        if !c.name.ends_with('?') || c.block.is_some() {
            return None;
        }
        let recv = c.recv.as_ref()?;
        match receiver {
            None => *receiver = Some(recv.clone()),
            Some(r) if r.render() == recv.render() => {}
            Some(_) => return None,
        }
        let mut out = node.clone();
        let mut call = (**c).clone();
        call.safe_nav = false;
        out.cond = Node::Call(Box::new(call));
        match &node.els {
            Some(Node::If(next)) if next.elsif && !next.unless => {
                let (rest, els, safe) = plain(next, receiver)?;
                out.els = Some(Node::If(Box::new(rest)));
                Some((out, els, safe || c.safe_nav))
            }
            other => Some((out, other.clone(), c.safe_nav)),
        }
    }
    let mut receiver = None;
    let (plain, els, any_safe) = plain(node, &mut receiver)?;
    // One `if x&.a?` is `x && x.a?` (see `condition`); a chain is one enum under `x`.
    let chained = matches!(&node.els, Some(Node::If(next)) if next.elsif);
    if !any_safe || !chained {
        return None;
    }
    let receiver = receiver?;
    if !matches!(receiver, Node::Lvar(_) | Node::Ivar(_) | Node::Call(_)) {
        return None;
    }
    Some(If {
        cond: receiver,
        then: Node::If(Box::new(plain)),
        els,
        unless: false,
        modifier: false,
        ternary: false,
        elsif: false,
        lines: node.lines,
        cond_line: node.cond_line,
    })
}

fn first_and_rest(cond: &Node) -> (Node, Option<Node>) {
    match cond {
        Node::And(left, right) => {
            let (first, more) = first_and_rest(left);
            let more = match more {
                Some(m) => Node::And(Box::new(m), right.clone()),
                None => (**right).clone(),
            };
            (first, Some(more))
        }
        other => (other.clone(), None),
    }
}

/// The next link of an `if/elsif` chain: an `elsif`, or an `else` that holds only an `if`
/// (`else if x == :b`, and the nested ifs a guard sequence or a lambda becomes).
fn chained(els: Option<&Node>) -> Option<&If> {
    let next = match els? {
        Node::If(next) => next,
        Node::Seq(items) => match items.as_slice() {
            [Node::If(next)] => next,
            _ => return None,
        },
        _ => return None,
    };
    (!next.unless && !next.ternary).then_some(next.as_ref())
}

/// `x == lit` or `lit == x`: the subject and the literal.
fn equality(cond: &Node) -> Option<(&Node, &Node)> {
    let Node::Call(c) = cond else { return None };
    if c.name != "==" {
        return None;
    }
    let lhs = c.recv.as_ref()?;
    let rhs = c.args.first()?;
    let is_lit = |n: &Node| matches!(n, Node::Str(_) | Node::Sym(_) | Node::Int(_));
    if is_lit(rhs) {
        Some((lhs, rhs))
    } else if is_lit(lhs) {
        Some((rhs, lhs))
    } else {
        None
    }
}

/// `case; when a then x; when b then y; else z; end` → `if a; x; elsif b; y; else z; end`.
fn case_to_if(case: &Case) -> Node {
    let mut tail: Option<Node> = case.els.clone();
    for (i, w) in case.whens.iter().enumerate().rev() {
        let cond = join_or(w);
        tail = Some(Node::If(Box::new(If {
            cond,
            then: w.body.clone(),
            els: tail,
            unless: false,
            modifier: false,
            ternary: false,
            elsif: i > 0,
            lines: (w.line, w.line),
            cond_line: w.line,
        })));
    }
    tail.unwrap_or(Node::Nil)
}

fn join_or(w: &When) -> Node {
    let mut conds = w.conds.iter().cloned();
    let first = conds.next().unwrap_or(Node::True);
    conds.fold(first, |acc, c| Node::Or(Box::new(acc), Box::new(c), w.line))
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn guards_on_one_subject_are_one_enum_whose_other_is_the_rest() {
        let m = analyze_one(
            "class Shipment\n  def label(kind)\n    return \"express\" if kind == :express\n    return \"economy\" if kind == :economy\n\n    \"standard\"\n  end\nend\n",
            "label",
        );
        assert_eq!(
            flat(&m),
            vec!["1 kind [enum] express:express => returns \"express\" | economy:economy => returns \"economy\" | other:other kind -> returns \"standard\""]
        );
    }

    #[test]
    fn a_guard_on_a_different_subject_ends_the_run() {
        let m = analyze_one(
            "class Shipment\n  def label(kind, rush)\n    return \"express\" if kind == :express\n    return \"rush\" if rush == :yes\n\n    \"standard\"\n  end\nend\n",
            "label",
        );
        let names: Vec<String> = m.characteristics.iter().map(|c| c.name.clone()).collect();
        assert_eq!(names, vec!["kind", "rush"]);
    }

    #[test]
    fn a_list_test_and_an_equality_on_one_subject_are_one_enum() {
        // A short literal list gives a value per element (as `when "open", "reopened"`).
        let m = analyze_one(
            "class Issue\n  def icon(status)\n    if %w[open reopened].include?(status)\n      \"circle\"\n    elsif status == \"closed\"\n      \"check\"\n    else\n      \"dot\"\n    end\n  end\nend\n",
            "icon",
        );
        assert_eq!(
            flat(&m),
            vec!["1 status [enum] open:open -> returns \"circle\" | reopened:reopened -> returns \"circle\" | closed:closed -> returns \"check\" | other:other status -> returns \"dot\""]
        );
        // A constant list is one value named after it; the last guard tests more with
        // `&&`, decided under its value (osm RichText's dir=auto lambda, as guards).
        let m = analyze_one(
            "class Doc\n  BLOCK_TYPES = [:p, :header, :ul].freeze\n\n  def dir_auto?(el)\n    return true if BLOCK_TYPES.include?(el.type)\n    return true if el.type == :a && el.children.length == 1 && el.children[0].type == :text\n\n    false\n  end\nend\n",
            "dir_auto?",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 el_type [enum] block_types:one of BLOCK_TYPES => returns true | a:a | other:other el type => returns false",
                "2 single_child [boolean] true:a single child with type equal to text => returns true | false:NOT a single child with type equal to text => returns false",
            ]
        );
    }

    #[test]
    fn an_elsif_chain_on_one_objects_attributes_is_one_enum() {
        let m = analyze_one(
            "module ChangesetsHelper\n  def changeset_user_link(changeset)\n    if changeset.user.status == \"deleted\"\n      t(\"users.deleted\")\n    elsif changeset.user.data_public?\n      link_to changeset.user.display_name, changeset.user\n    else\n      t(\"browse.anonymous\")\n    end\n  end\nend\n",
            "changeset_user_link",
        );
        assert_eq!(
            flat(&m),
            vec!["1 changeset_user_kind [enum] deleted:status deleted -> returns the users deleted text | data_public:data public -> returns a link to the changeset user | other:other changeset user kind -> returns the browse anonymous text"]
        );
        // The object missing is no kind of it: chained characteristics.
        let m = analyze_one(
            "module UsersHelper\n  def author_link(author)\n    if author.nil?\n      \"\"\n    elsif author.status == \"deleted\"\n      t(\"users.deleted\")\n    else\n      link_to author.name, author\n    end\n  end\nend\n",
            "author_link",
        );
        assert_eq!(m.characteristics.len(), 2, "{:?}", flat(&m));
    }

    #[test]
    fn a_safe_navigated_predicate_chain_asks_for_the_object_first() {
        // `nil&.revoked?` is nil: a missing token takes the `else`, a present one is one
        // of the kinds.
        let m = analyze_one(
            "class TokenResponse\n  def self.from_token(token)\n    reason = if token&.revoked?\n               :revoked\n             elsif token&.expired?\n               :expired\n             else\n               :unknown\n             end\n    new(reason: reason)\n  end\nend\n",
            "from_token",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 2, "{plan:?}");
        assert!(plan[0].starts_with("1 token [presence]"), "{plan:?}");
        assert!(plan[0].contains("nil:"), "{plan:?}");
        assert!(
            plan[1].starts_with("2 token_kind [enum] revoked:"),
            "{plan:?}"
        );
        assert!(plan[1].contains("expired:"), "{plan:?}");
        assert_eq!(m.characteristics[1].parent, Some(0));
    }

    #[test]
    fn a_guard_on_an_in_pattern_is_asked_under_its_arm() {
        // `in :creator if allowed?` falls through to `in :creator` when the guard fails.
        let m = analyze_one(
            "class FlagPolicy < ApplicationPolicy\n  def visible_for_search(relation, attribute)\n    case attribute\n    in :creator | :creator_id if can_search_flagger?\n      relation.where(creator: user).or(relation.where.not(post: user.posts))\n    in :creator | :creator_id\n      relation.where(creator: user)\n    else\n      relation\n    end\n  end\nend\n",
            "visible_for_search",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 2, "{plan:?}");
        assert!(plan[0].starts_with("1 attribute [enum]"), "{plan:?}");
        assert!(
            plan[1].starts_with("2 can_search_flagger [boolean]")
                || plan[1].starts_with("2 search_flagger_allowed [boolean]"),
            "{plan:?}"
        );
        assert_eq!(m.characteristics[1].source_line, "4");
        assert!(plan[1].contains("false:"), "{plan:?}");
    }

    #[test]
    fn case_when_with_early_returns_nests_the_rest_under_other() {
        let m = analyze_one(
            "class PaymentProcessor\n  def process(payment)\n    case payment.status\n    when \"completed\"\n      return { success: true }\n    when \"failed\"\n      return { success: false, error: :payment_failed }\n    end\n\n    payment.failed! unless payment.valid?\n    :charged\n  end\nend\n",
            "process",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 payment_status [enum] completed:completed => returns success result | failed:failed => returns payment failed failure result | other:any other payment status",
                "2 payment_valid [boolean] true:valid payment -> returns :charged | false:NOT valid payment -> marks the payment as failed",
            ]
        );
    }

    #[test]
    fn equality_chain_is_one_enum_and_case_without_subject_is_a_chain() {
        let m = analyze_one(
            "class S\n  def price(plan)\n    if plan == \"free\"\n      0\n    elsif plan == \"pro\"\n      2900\n    else\n      49_900\n    end\n  end\nend\n",
            "price",
        );
        assert_eq!(flat(&m), vec!["1 plan [enum] free:free -> returns 0 | pro:pro -> returns 2900 | other:other plan -> returns 49900"]);
        let m = analyze_one(
            "class S\n  def label(n)\n    case\n    when n.zero? then :none\n    else :some\n    end\n  end\nend\n",
            "label",
        );
        // `zero?` is a number against 0: a range.
        assert_eq!(
            flat(&m),
            vec!["1 n [range] zero:zero -> returns :none | non_zero:non-zero -> returns :some"]
        );
    }

    #[test]
    fn case_in_without_else_raises_when_nothing_matches() {
        let m = analyze_one(
            "class Router\n  def route(event)\n    case event\n    in {type: \"paid\"}\n      :settle\n    in {type: \"refunded\"}\n      :reverse\n    end\n  end\nend\n",
            "route",
        );
        let flat = flat(&m);
        assert_eq!(flat.len(), 1);
        assert!(
            flat[0].ends_with("other:other event => raises NoMatchingPatternError"),
            "{flat:?}"
        );
    }

    #[test]
    fn a_case_assigned_in_the_middle_of_a_method_is_an_enum() {
        // `cost = case ... end` then a write: each arm is a context, with what it set.
        let m = analyze_one(
            "class Shipper\n  def rate(order)\n    cost = case order.region\n           when :eu then 10\n           when :us then 15\n           else 30\n           end\n    order.update!(shipping: cost)\n  end\nend\n",
            "rate",
        );
        assert_eq!(flat(&m), vec![
                "1 order_region [enum] eu:eu -> updates the order with cost set to 10 | us:us -> updates the order with cost set to 15 | other:other order region -> updates the order with cost set to 30",
            ]);
    }

    #[test]
    fn a_test_of_the_case_subject_inside_an_arm_is_answered_by_the_arm() {
        // `op == "*"` under `when "*", "!*"` is true for `*` and false for `!*`: no
        // context `op` other than `*` under `op` `*`.
        let src = "class SqlOp\n  def tail(op)\n    case op\n    when \"*\", \"!*\"\n      op == \"*\" ? \"IN\" : \"NOT IN\"\n    when \"=\"\n      \"EQ\"\n    else\n      \"X\"\n    end\n  end\n\n  def mid(op)\n    sql = case op\n          when \"*\", \"!*\"\n            op == \"*\" ? \"IN\" : \"NOT IN\"\n          when \"=\"\n            \"EQ\"\n          end\n    \"(#{sql})\"\n  end\nend\n";
        assert_eq!(
            flat(&analyze_one(src, "tail")),
            vec![
                "1 op [enum] *:\"*\" -> returns \"IN\" | !*:\"!*\" -> returns \"NOT IN\" | =:\"=\" -> returns \"EQ\" | other:other op -> returns \"X\"",
            ]
        );
        assert_eq!(
            flat(&analyze_one(src, "mid")),
            vec![
                "1 op [enum] *:\"*\" -> returns the formatted text with sql set to \"IN\" | !*:\"!*\" -> returns the formatted text with sql set to \"NOT IN\" | =:\"=\" -> returns the formatted text with sql set to \"EQ\" | other:other op -> returns the formatted text with sql set to nil",
            ]
        );
    }
}
