//! The walker: follows a method body statement by statement and builds its
//! characteristics. The walk is this folder and nothing else: each construct has its own
//! file (`guard.rs`, `branch.rs`, `case.rs`, `rescue.rs`, `loops.rs`, `blocks.rs`,
//! `inline.rs`, `embedded.rs`, `ranges.rs`, `spaceship.rs`), each an `impl Walker` that may
//! recurse into the walk; this file holds what they share: where a new characteristic
//! attaches ([`At`]), how a path ends ([`End`]), placing characteristics and values, and
//! splitting compound conditions (`!`, `&&`, `||`, `&.`). The pieces the walk consults
//! (`condition`, `outcome`, `grammar`, `phrase`, `setup`, `types`, `rules`, `model`,
//! `iteration`, the side-effect and Rails modules) sit beside this folder in `analyze/` and
//! never call back into it.
//!
//! The model: statements run in order; a characteristic created at a point attaches there
//! (level, parent, parent value). When a conditional lets exactly one of its values
//! continue, the rest of the method attaches under that value one level deeper, so guard
//! clauses chain and code reached only through some values nests under them. When several
//! values continue, the rest attaches beside the conditional instead, and each continuing
//! value gets its branch's own outcome (\[J\], noted).

use crate::index::body::{Call, If, Node};
use crate::index::{FileFacts, MethodFacts};
use crate::yaml::Value;

use super::condition::{self, Spec};
use super::grammar;
use super::model::{BehaviorDraft, CharType, CharValue, Characteristic, Source};
use super::outcome::{Outcome, TextContext};
use super::rules::Rule;
use super::setup;
use super::types::{Lookup, TypeEnv};

mod blocks;
mod branch;
mod case;
mod embedded;
mod guard;
mod inline;
mod loops;
mod ranges;
mod rescue;
mod shim;
pub use shim::without_shims;
pub mod spaceship;

/// The outcome of an empty branch in the middle of a method.
pub const NOTHING_MORE: &str = "does nothing more";

/// How many statement sequences the walker follows inside one another (each guard clause,
/// branch, `case` arm or `rescue` walks the rest of the method one sequence deeper). Real
/// methods stay far below; past it the rest of the method reads as its last statement. It
/// keeps thousands of flat `if`s from overflowing the stack and the copies of what follows
/// each conditional from growing quadratically.
pub const MAX_WALK_DEPTH: usize = 100;

/// Where new characteristics attach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    /// Their level (1 at the root).
    pub level: u32,
    /// `(characteristic, value)` they depend on.
    pub parent: Option<Slot>,
}

impl At {
    /// The root.
    pub fn root() -> Self {
        At {
            level: 1,
            parent: None,
        }
    }
}

/// A characteristic's value: `(characteristic index, value index)`.
pub type Slot = (usize, usize);

/// How a sequence of statements ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// It ran to its end; what the method does there.
    Done(Outcome),
    /// Every path left the method (`return`, `raise`, ...) with this outcome.
    Exited(Outcome),
    /// It ended in a conditional whose values got their own outcomes.
    Branched,
}

/// The truthy and falsy values of a (possibly compound) condition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slots {
    /// Values where the condition holds.
    pub truthy: Vec<Slot>,
    /// Values where it does not.
    pub falsy: Vec<Slot>,
}

impl Slots {
    fn swapped(self) -> Self {
        Slots {
            truthy: self.falsy,
            falsy: self.truthy,
        }
    }
}

/// What the walker needs to know about the method and its class.
pub struct MethodCx<'a> {
    /// The file.
    pub facts: &'a FileFacts,
    /// The method.
    pub method: &'a MethodFacts,
    /// The class under analysis.
    pub class_name: &'a str,
    /// Variable types.
    pub env: TypeEnv,
    /// Project classes.
    pub lookup: &'a Lookup,
    /// For outcome texts.
    pub text: TextContext<'a>,
    /// Private and protected methods of the same owner and kind, with bodies.
    pub privates: Vec<&'a MethodFacts>,
    /// For a controller action: the params every route to it carries (the required
    /// dynamic segments of its paths, `id` of a member route), present whenever it runs.
    pub route_params: Vec<String>,
    /// For a model callback that runs on a valid record (`before_destroy`): the
    /// attributes and associations the model validates the presence of, present there.
    pub validated: Vec<String>,
}

/// Builds characteristics for one method.
pub struct Walker<'a> {
    /// The method's context.
    pub cx: &'a MethodCx<'a>,
    /// Characteristics so far, parents before children.
    pub chars: Vec<Characteristic>,
    /// Guessed rules applied.
    pub notes: Vec<String>,
    /// 0..1.
    pub confidence: f64,
    /// Private methods already inlined in this method (each once: no recursion, no
    /// copies).
    pub inlined: std::collections::HashSet<String>,
    /// The value last assigned to each local (`name`) and instance variable (`@name`) in
    /// walk order, for conditions on them (`hl = a && b; if !hl`).
    pub assigned: std::collections::HashMap<String, Node>,
    /// The names of `chars` (deep nesting repeats a name thousands of times, and a scan of
    /// `chars` per candidate name was cubic).
    taken: std::collections::HashSet<String>,
    /// Per base name, the next `_N` suffix to try.
    next_suffix: std::collections::HashMap<String, usize>,
    /// How many [`Walker::seq`] calls are under way (bounded by [`MAX_WALK_DEPTH`]).
    depth: usize,
    /// The `rescue` clauses around the code being walked, innermost last (J19).
    pub rescuing: Vec<Rescuing>,
    /// What `known` decided conditions by, per rule: the route params of J20
    /// (`` `params[:id]` ``), the validated attributes of J22 (`` `user_id` ``). Noted once
    /// the walk ends ([`Walker::note_decided`]); `known` takes `&self`, hence the cell.
    decided_by:
        std::cell::RefCell<std::collections::BTreeMap<Rule, std::collections::BTreeSet<String>>>,
    /// What the guards passed so far imply, as `(premise, conclusion)`: after
    /// `return require_user if (friends || nearby) && !current_user`, `friends || nearby`
    /// means `current_user` is there. In force while the rest after the guard is walked.
    pub implied: Vec<(Node, Node)>,
    /// Leaves that did nothing more than set a value the rest of the method uses
    /// (`delta = -1` in an `elsif` mid-method): what they set, added to the outcome the
    /// rest ends with when the level above fills them in.
    pub leaf_sets: Vec<(Slot, String)>,
    /// The conditionals split out of an expression ([`Walker::lift_embedded`]): their line
    /// and condition, and the value each branch gives the expression, in words (`wait 0`
    /// / `wait 2 minutes`), to name what differs when both leaves would read alike.
    pub lifted: Vec<(u32, Node, String, String)>,
    /// The calls of the method (and of its private methods, their last statements aside)
    /// whose value nothing uses, by line and text: what they do is their behavior, not
    /// what they return (see [`discarded_calls`]). Found on first need: most methods
    /// never ask.
    discarded: std::cell::OnceCell<std::collections::HashSet<(u32, String)>>,
    /// The lines of the logging-only conditionals that are a warning method's contract
    /// ([`warning_conditionals`]). Found on first need.
    warnings: std::cell::OnceCell<std::collections::HashSet<u32>>,
    /// Locals a `rescue` sets to nil and the method then tests for presence, with the
    /// clauses' lines: the test's characteristic is the error's too.
    rescued_nil: std::collections::HashMap<String, Vec<(u32, String)>>,
}

/// `HgCommandAborted` of `Redmine::Scm::Adapters::HgCommandAborted` (and of `*Errors`).
pub fn last_segment(class: &str) -> &str {
    let class = class.trim_start_matches('*');
    class.rsplit("::").next().unwrap_or(class)
}

/// Whether `b` reads an element out of `a` (`node[name]`, `logentry["paths"]["path"]`,
/// `data.dig(:a, :b)` after `node`, `logentry["paths"]`, `data`): a hash or document read
/// whose receiver chain starts at `a`. An attribute read (`user.admin`) is not one: a
/// missing user is a case of its own (a guest).
pub(super) fn reads_element_of(a: &Node, b: &Node) -> bool {
    let Node::Call(c) = b else { return false };
    if c.safe_nav || c.block.is_some() || !matches!(c.name.as_str(), "[]" | "dig") {
        return false;
    }
    let Some(recv) = &c.recv else { return false };
    if !matches!(a, Node::Lvar(_) | Node::Ivar(_) | Node::Call(_)) {
        return false;
    }
    let key = a.render();
    // `render` shortens long text: only short expressions compare by their text. A chain
    // of `&.` (`doc.at_css(q)&.attributes`) is split link by link where it is tested.
    key.len() < 100 && !key.contains("&.") && (recv.render() == key || reads_element_of(a, recv))
}

/// The slots of a condition decided already on the path to `at`: only the branch that
/// agrees with `holds` runs, under `at`'s parent.
fn decided_at(at: At, holds: bool) -> Slots {
    let here = at.parent.map(|p| vec![p]).unwrap_or_default();
    if holds {
        Slots {
            truthy: here,
            falsy: Vec::new(),
        }
    } else {
        Slots {
            truthy: Vec::new(),
            falsy: here,
        }
    }
}

/// What an enum of `subject` (a `case`, an `elsif` chain) asks: equality tests of the same
/// subject below it are answered by the value the path went through.
pub(super) fn enum_question(subject: &Node) -> String {
    format!("case|{}", subject.render())
}

/// The questions an enum of one subject asks (see [`Walker::enum_subject`]).
struct EnumSubject {
    case: String,
    equality: Option<String>,
}

impl EnumSubject {
    fn asked_by(&self, c: &Characteristic) -> bool {
        c.question == self.case
            || self
                .equality
                .as_ref()
                .is_some_and(|prefix| c.question.starts_with(prefix.as_str()))
    }
}

/// The catch-all value of an enum: a `case`'s "any other", an equality's "NOT 0".
fn is_catch_all(v: &CharValue) -> bool {
    is_other_value(v) || (v.value.as_str() == Some("other") && v.description.starts_with("NOT "))
}

/// The catch-all value of an enum (`other`, written for the `else`).
fn is_other_value(v: &CharValue) -> bool {
    v.value.as_str() == Some("other")
        && (v.description.starts_with("other ") || v.description.starts_with("any other "))
}

/// What a two-valued characteristic asks, the same whichever way the condition is written
/// (`x.nil?` and `x` ask one question).
/// [`question_of`], told apart by the pattern when `cond` tests one: every regexp reads
/// "the pattern", and `line =~ /^commit/` answered says nothing of `line =~ /^:\d+/`.
fn question_of_cond(spec: &Spec, cond: &Node) -> String {
    let mut question = question_of(spec);
    if let Node::Call(c) = cond {
        if matches!(c.name.as_str(), "=~" | "!~" | "match?" | "match") {
            question.push('|');
            question.push_str(&cond.render());
        }
    }
    question
}

fn question_of(spec: &Spec) -> String {
    format!(
        "{}|{}|{}",
        spec.kind.as_str(),
        spec.description,
        if spec.truthy.value.as_str() == Some("nil") || spec.truthy.value == Value::Bool(false) {
            &spec.falsy.description
        } else {
            &spec.truthy.description
        }
    )
}

/// `params` (the request's).
fn is_params(node: &Node) -> bool {
    matches!(node, Node::Call(p) if p.name == "params" && p.recv.is_none() && p.args.is_empty())
}

/// A walker's state, kept to take back a walk that was only tried.
pub struct Snapshot {
    chars: Vec<Characteristic>,
    notes: usize,
    confidence: f64,
    inlined: std::collections::HashSet<String>,
    assigned: std::collections::HashMap<String, Node>,
    taken: std::collections::HashSet<String>,
    next_suffix: std::collections::HashMap<String, usize>,
    leaf_sets: Vec<(Slot, String)>,
}

/// A `rescue` clause around the code being walked: a `raise` of one of its classes ends
/// with what the clause does.
#[derive(Debug, Clone)]
pub struct Rescuing {
    /// The clause's place among its `begin`'s rescues.
    pub clause: usize,
    /// The classes it rescues, by their last segment (`HgCommandAborted`).
    pub classes: Vec<String>,
    /// What the clause does.
    pub outcome: super::outcome::Outcome,
    /// Whether a walked `raise` ended there.
    pub reached: bool,
}

impl<'a> Walker<'a> {
    /// A walker for a method.
    pub fn new(cx: &'a MethodCx<'a>) -> Self {
        Walker {
            cx,
            chars: Vec::new(),
            notes: Vec::new(),
            confidence: 1.0,
            inlined: std::collections::HashSet::new(),
            assigned: std::collections::HashMap::new(),
            taken: std::collections::HashSet::new(),
            next_suffix: std::collections::HashMap::new(),
            depth: 0,
            decided_by: Default::default(),
            rescuing: Vec::new(),
            implied: Vec::new(),
            leaf_sets: Vec::new(),
            lifted: Vec::new(),
            discarded: std::cell::OnceCell::new(),
            warnings: std::cell::OnceCell::new(),
            rescued_nil: std::collections::HashMap::new(),
        }
    }

    /// Everything a walk may change, to try one and take it back.
    pub(super) fn snapshot(&self) -> Snapshot {
        Snapshot {
            chars: self.chars.clone(),
            notes: self.notes.len(),
            confidence: self.confidence,
            inlined: self.inlined.clone(),
            assigned: self.assigned.clone(),
            taken: self.taken.clone(),
            next_suffix: self.next_suffix.clone(),
            leaf_sets: self.leaf_sets.clone(),
        }
    }

    /// Back to `snapshot`.
    pub(super) fn restore(&mut self, snapshot: Snapshot) {
        self.chars = snapshot.chars;
        self.notes.truncate(snapshot.notes);
        self.confidence = snapshot.confidence;
        self.inlined = snapshot.inlined;
        self.assigned = snapshot.assigned;
        self.taken = snapshot.taken;
        self.next_suffix = snapshot.next_suffix;
        self.leaf_sets = snapshot.leaf_sets;
    }

    /// `raise Foo` inside a `rescue Foo` of this method: what the clause does (J19).
    pub(super) fn rescued(&mut self, stmt: &Node) -> Option<super::outcome::Outcome> {
        let stmt = match stmt {
            Node::Seq(items) => items.last()?,
            Node::Begin(b) if b.rescues.is_empty() => return self.rescued(&b.body),
            other => other,
        };
        let Node::Call(call) = stmt else { return None };
        if call.recv.is_some() || !matches!(call.name.as_str(), "raise" | "fail") {
            return None;
        }
        let Some(Node::Const { path, .. }) = call.args.first() else {
            return None;
        };
        let class = last_segment(path);
        let clause = self
            .rescuing
            .iter_mut()
            .rev()
            .find(|r| r.classes.iter().any(|c| c == class))?;
        clause.reached = true;
        let outcome = clause.outcome.clone();
        self.apply(Rule::RaiseRescuedHere, Some(path));
        Some(outcome)
    }

    /// Records a judgement rule (once per detail) and lowers confidence by its factor.
    pub fn apply(&mut self, rule: Rule, detail: Option<&str>) {
        let note = rule.note(detail);
        if !self.notes.contains(&note) {
            self.notes.push(note);
            self.confidence *= rule.factor();
        }
    }

    /// Walks a whole body from the root.
    pub fn walk_body(&mut self, body: &Node) -> End {
        let stmts = statements(body);
        self.seq(&stmts, At::root(), true)
    }

    /// Walks `stmts`; new characteristics attach at `at`. `tail`: the end of these
    /// statements is the end of the method.
    pub fn seq(&mut self, stmts: &[Node], at: At, tail: bool) -> End {
        if self.depth >= MAX_WALK_DEPTH {
            self.apply(
                Rule::NestingLimit,
                Some(&format!("more than {MAX_WALK_DEPTH}")),
            );
            return End::Done(match stmts.last() {
                Some(last) => self.outcome_of(last, tail),
                None => self.empty_outcome(tail),
            });
        }
        self.depth += 1;
        let end = self.seq_unbounded(stmts, at, tail);
        self.depth -= 1;
        end
    }

    fn seq_unbounded(&mut self, stmts: &[Node], at: At, tail: bool) -> End {
        for (i, stmt) in stmts.iter().enumerate() {
            let rest = stmts.get(i + 1..).unwrap_or_default();
            self.record_assignment(stmt);
            if let Some(spliced) = self.inline_private(stmt, rest.is_empty() && tail) {
                let mut all = spliced;
                all.extend_from_slice(rest);
                return self.seq(&all, at, tail);
            }
            if let Some(test) = self.returned_safe_predicate(stmt, rest.is_empty() && tail) {
                // `def valid_token?; token&.acceptable?(scopes); end`: nil, true or false.
                let line = stmt.line().unwrap_or(self.cx.method.line_range.0);
                let synthetic = If::ternary(test, Node::True, Node::False, line);
                return self.branch(&synthetic, &[], at, tail);
            }
            if let Some(converted) = Walker::safe_nav_statement(stmt) {
                let mut all = vec![converted];
                all.extend_from_slice(rest);
                return self.seq(&all, at, tail);
            }
            if let Some(end) = self.respond_to(stmt, rest, at, tail) {
                return end;
            }
            if let Node::If(cond) = stmt {
                // A conditional that only logs or reports decides nothing a spec asserts:
                // the method goes on the same way.
                if logging_only(&cond.then)
                    && cond.els.as_ref().is_none_or(logging_only)
                    && !self.warns_here(cond.cond_line)
                {
                    return self.seq(rest, at, tail);
                }
                if let Some(taken) = assume_loaded(cond) {
                    let mut all = taken;
                    all.extend_from_slice(rest);
                    return self.seq(&all, at, tail);
                }
            }
            match stmt {
                Node::And(a, b) if always_truthy(a) => {
                    // `errors.add(:base, msg) && (return false)`: `errors.add` answers the
                    // messages, never false: both run, nothing is decided.
                    let mut all = vec![(**a).clone()];
                    all.extend(statements(b));
                    all.extend_from_slice(rest);
                    return self.seq(&all, at, tail);
                }
                Node::If(cond) if guard::fills_memo(cond, rest) => {
                    let mut all = statements(&cond.then);
                    all.extend_from_slice(rest);
                    return self.seq(&all, at, tail);
                }
                Node::If(cond) if !cond.elsif => {
                    if let Some(test) = self.expand_private_predicates(&cond.cond) {
                        // Its conditions are read where the predicate's body has them.
                        let cond_line = test.line().unwrap_or(cond.cond_line);
                        let expanded = Node::If(Box::new(If {
                            cond: test,
                            cond_line,
                            ..(**cond).clone()
                        }));
                        let mut all = vec![expanded];
                        all.extend_from_slice(rest);
                        return self.seq(&all, at, tail);
                    }
                    if let Some((chain, _)) = self.guard_run(cond, rest) {
                        return self.seq(&[chain], at, tail);
                    }
                    if let Some(end) = self.guard(cond, rest, at, tail) {
                        return end;
                    }
                    return self.branch(cond, rest, at, tail);
                }
                Node::If(cond) => {
                    if let Some((chain, _)) = self.guard_run(cond, rest) {
                        return self.seq(&[chain], at, tail);
                    }
                    if let Some(end) = self.guard(cond, rest, at, tail) {
                        return end;
                    }
                    return self.branch(cond, rest, at, tail);
                }
                Node::Case(case) => return self.case(case, rest, at, tail),
                Node::Begin(b) if !b.rescues.is_empty() => return self.rescue(b, rest, at, tail),
                Node::Begin(b) => {
                    // `begin yield(record) ensure record.update(...) if record && ...
                    // end`: the `ensure` runs on every path, and what it decides is the
                    // method's. As the method's last statement it is read before the
                    // body, whose value the method returns; elsewhere after it.
                    let ensure = b.ensure.as_ref().map(statements).unwrap_or_default();
                    let mut all = if rest.is_empty() && tail && !ensure.is_empty() {
                        let mut first = ensure;
                        first.extend(statements(&b.body));
                        first
                    } else {
                        let mut body = statements(&b.body);
                        body.extend(ensure);
                        body
                    };
                    all.extend_from_slice(rest);
                    return self.seq(&all, at, tail);
                }
                // `uri = begin URI.parse(s) rescue URI::InvalidURIError nil end` (and
                // `uri = URI.parse(s) rescue nil`): see `Walker::assigned_rescue`.
                Node::Assign {
                    target,
                    op: crate::index::body::AssignOp::Set,
                    value,
                    line,
                } if matches!(value.as_ref(), Node::Begin(b) if !b.rescues.is_empty()) => {
                    if let Node::Begin(b) = value.as_ref() {
                        return self.assigned_rescue(target, b, *line, rest, at, tail);
                    }
                }
                // `@routes ||= begin prefix = ...; routes.filter_map { ... } end`: the
                // block's statements run in order, and its last value is assigned (the
                // memo itself is no context; what the value decides is).
                Node::Assign {
                    target,
                    op,
                    value,
                    line,
                } if matches!(value.as_ref(), Node::Seq(items) if items.len() > 1) => {
                    // (A plain `begin ... end` is read as its statements.)
                    if let Node::Seq(items) = value.as_ref() {
                        let mut all = items.clone();
                        if let Some(last) = all.pop() {
                            all.push(Node::Assign {
                                target: target.clone(),
                                op: op.clone(),
                                value: Box::new(last),
                                line: *line,
                            });
                        }
                        all.extend_from_slice(rest);
                        return self.seq(&all, at, tail);
                    }
                }
                Node::Return {
                    value: Some(v),
                    line,
                } if matches!(v.as_ref(), Node::If(_) | Node::Case(_)) => {
                    let wrapped = wrap_returns(v, *line);
                    let mut all = vec![wrapped];
                    all.extend_from_slice(rest);
                    return self.seq(&all, at, tail);
                }
                Node::Assign {
                    target,
                    op,
                    value,
                    line,
                } if matches!(value.as_ref(), Node::If(_) | Node::Case(_))
                    && !(rest.is_empty() && tail) =>
                {
                    // `x = cond ? a : b` mid-method (the last statement of a branch in the
                    // middle of the method too): a conditional whose branches assign. An
                    // `elsif` chain stays a chain, each arm assigning its own value.
                    let mut all = vec![wrap_assigns(value, target, op, *line)];
                    all.extend_from_slice(rest);
                    return self.seq(&all, at, tail);
                }
                // `result[gate.key] = case gate.data_type ...`: a writer call whose value
                // is a `case` assigns on each branch, as `x = case ...` does (an `if` value
                // is lifted as a value of its own, `embedded.rs`).
                Node::Call(c) if writer_of_case(c).is_some() && !(rest.is_empty() && tail) => {
                    if let Some((target, value)) = writer_of_case(c) {
                        let mut all = vec![wrap_assigns(
                            value,
                            &target,
                            &crate::index::body::AssignOp::Set,
                            c.line,
                        )];
                        all.extend_from_slice(rest);
                        return self.seq(&all, at, tail);
                    }
                }
                Node::Assign { value, .. }
                    if matches!(value.as_ref(), Node::If(_) | Node::Case(_))
                        && rest.is_empty()
                        && tail =>
                {
                    // `x = cond ? a : b` (or a `case`) as the last statement returns the
                    // chosen value.
                    let mut all = vec![(**value).clone()];
                    all.extend_from_slice(rest);
                    return self.seq(&all, at, tail);
                }
                _ => {}
            }
            if let Some(end) = self.loop_guard(stmt, rest, at, tail) {
                return end;
            }
            if let Some(spliced) = self.splice_block(stmt, rest.is_empty()) {
                let mut all = spliced;
                all.extend_from_slice(rest);
                return self.seq(&all, at, tail);
            }
            if let Some(lifted) = self.lift_embedded(stmt) {
                let mut all = match lifted {
                    Node::Seq(items) => items,
                    other => vec![other],
                };
                all.extend_from_slice(rest);
                return self.seq(&all, at, tail);
            }
            // A controller's last `render`/`redirect_to`/`head` is its outcome, not an exit.
            let final_response =
                rest.is_empty() && self.is_response(stmt) && !matches!(stmt, Node::And(..));
            if let Some(exit) = super::outcome::exit_of(stmt, &self.cx.text) {
                if !final_response {
                    return End::Exited(self.rescued(stmt).unwrap_or(exit));
                }
            }
            if rest.is_empty() {
                if let (true, Node::Or(a, b, _)) = (tail, stmt) {
                    if !self.boolean_result(stmt) {
                        // `name.presence || email`: the first value when present, else the
                        // fallback.
                        let line = stmt.line().unwrap_or(self.cx.method.line_range.0);
                        let subject = match a.as_ref() {
                            Node::Call(c) if c.name == "presence" && c.args.is_empty() => {
                                c.recv.clone().unwrap_or_else(|| (**a).clone())
                            }
                            other => other.clone(),
                        };
                        let present = Node::Call(Box::new(crate::index::body::Call {
                            recv: Some(subject),
                            name: "present?".to_string(),
                            args: Vec::new(),
                            block: None,
                            safe_nav: false,
                            line,
                        }));
                        let synthetic = If::ternary(present, (**a).clone(), (**b).clone(), line);
                        return self.branch(&synthetic, &[], at, tail);
                    }
                }
                if let (true, Node::And(a, b)) = (tail, stmt) {
                    if !self.boolean_result(stmt) {
                        // `!running? && @job.destroy`: the action when the condition holds,
                        // else the condition's false.
                        let line = stmt.line().unwrap_or(self.cx.method.line_range.0);
                        let synthetic =
                            If::ternary((**a).clone(), (**b).clone(), Node::False, line);
                        return self.branch(&synthetic, &[], at, tail);
                    }
                }
                if tail && compound(stmt) && self.boolean_result(stmt) {
                    // `def refundable?; completed? && recent?; end` is
                    // `if completed? && recent? then true else false end`. One predicate
                    // or comparison returned (`uri.start_with?("https://")`, `count == 1`),
                    // alone or after a guard, decides nothing more: examples cover its
                    // true and false, not contexts.
                    let line = stmt.line().unwrap_or(self.cx.method.line_range.0);
                    let synthetic = If::ternary(stmt.clone(), Node::True, Node::False, line);
                    return self.branch(&synthetic, &[], at, tail);
                }
                let outcome = self.outcome_of(stmt, tail);
                return End::Done(outcome);
            }
        }
        End::Done(self.empty_outcome(tail))
    }

    /// A controller response, the chain's responding helpers included.
    fn is_response(&self, node: &Node) -> bool {
        is_response(node, self.cx.text.responders)
    }

    /// What reaching the end of an empty branch means.
    pub fn empty_outcome(&mut self, tail: bool) -> Outcome {
        if tail && self.cx.text.filter {
            return Outcome {
                description: "lets the request through".to_string(),
                failure: false,
                guessed: false,
                sets: None,
            };
        }
        if tail && self.cx.text.action {
            // An action that ends without responding renders its template.
            return Outcome {
                description: format!(
                    "renders {} template",
                    grammar::words(self.cx.text.method_name)
                ),
                failure: false,
                guessed: false,
                sets: None,
            };
        }
        if tail {
            super::outcome::returned(&Node::Nil, &self.cx.text)
        } else {
            Outcome {
                description: NOTHING_MORE.to_string(),
                failure: false,
                guessed: true,
                sets: None,
            }
        }
    }

    /// `x&.pred?(...)` returned by a predicate method: `x && x.pred?(...)`, a missing `x`
    /// and the predicate's two answers (three outcomes a spec tells apart).
    fn returned_safe_predicate(&self, stmt: &Node, returned: bool) -> Option<Node> {
        let Node::Call(c) = stmt else { return None };
        if !returned || !c.safe_nav || !c.name.ends_with('?') || !self.cx.method.name.ends_with('?')
        {
            return None;
        }
        let (recv, plain) = super::flow::blocks::safe_chain(stmt)?;
        Some(Node::And(Box::new(recv), Box::new(plain)))
    }

    /// Whether the method returns the value of a condition: a compound or comparison
    /// anywhere, a predicate call when the method itself is a predicate.
    fn boolean_result(&self, stmt: &Node) -> bool {
        let predicate_method = self.cx.method.name.ends_with('?');
        match stmt {
            // `a || b` is a boolean when its first operand is one: `user == owner ||
            // user.try(:moderator?)`; `name.presence || email` is a value with a fallback.
            Node::Or(a, _, _) => predicate_method || boolean_ish(a),
            Node::And(a, b) => predicate_method || (boolean_ish(a) && boolean_ish(b)),
            Node::Not(inner) => predicate_method || self.boolean_result(inner),
            Node::Call(c) => {
                matches!(c.name.as_str(), ">=" | ">" | "<=" | "<" | "==" | "!=")
                    || (c.name.ends_with('?') && predicate_method)
            }
            _ => false,
        }
    }

    /// The outcome of the last statement of a path.
    pub fn outcome_of(&mut self, stmt: &Node, tail: bool) -> Outcome {
        let original = stmt;
        let renamed = self.named_receiver(stmt);
        let stmt = renamed.as_ref().unwrap_or(stmt);
        if !tail && is_plain_value(stmt) && !matches!(stmt, Node::Other { .. }) {
            // A value in the middle of the method (a private method's result) does
            // nothing by itself.
            return Outcome {
                description: NOTHING_MORE.to_string(),
                failure: false,
                guessed: false,
                sets: None,
            };
        }
        if !tail {
            if let Node::Assign {
                target, op, value, ..
            } = stmt
            {
                if is_plain_value(value) {
                    // Assigning a plain value mid-method does nothing by itself: the path
                    // ends like the rest of the method, with that value (`delta = -1`) when
                    // it is a literal or a variable the rest can read.
                    return Outcome {
                        description: NOTHING_MORE.to_string(),
                        failure: false,
                        guessed: false,
                        sets: (said_value(value)
                            || formatted_text(value)
                            || matches!(target, crate::index::body::Target::Lvar(n)
                                if n == super::iteration::MAPPED_ELEMENT))
                        .then(|| sets_text(target, op, value))
                        .flatten(),
                    };
                }
                if matches!(
                    target,
                    crate::index::body::Target::Lvar(_) | crate::index::body::Target::Ivar(_)
                ) {
                    let read = super::outcome::final_expression(value, &self.cx.text);
                    if read.description.starts_with("returns ") && !read.failure {
                        // `@title = options[:title]`: what the rest of the method does, with
                        // this value.
                        return Outcome {
                            description: NOTHING_MORE.to_string(),
                            failure: false,
                            guessed: false,
                            sets: sets_text(target, op, value),
                        };
                    }
                }
            }
        }
        let mut outcome = super::outcome::final_expression(stmt, &self.cx.text);
        // A filter's value is ignored: a call it ends with is what it does
        // (`Profiler.authorize_request` for a moderator), a value lets the request through.
        let filter_action = (self.cx.text.filter && tail && !self.is_response(stmt))
            .then(|| match stmt {
                Node::Call(_) if !outcome.description.starts_with("returns ") => {
                    Some(outcome.description.clone())
                }
                Node::Call(_) => discarded_call(stmt, &outcome.description),
                _ => None,
            })
            .flatten();
        if let Some(done) = filter_action {
            outcome.description = done;
        } else if self.cx.text.action && tail && !self.is_response(stmt) {
            // A filter's `@project = @projects.first` last: the request goes on with that
            // instance variable set, which is what the filter is for and what tells this
            // path from one that skips the assignment. (An action's last assignment feeds
            // its template: the template is what it does.)
            let sets = match stmt {
                Node::Assign { .. } if !self.cx.text.filter => None,
                Node::Assign {
                    target: target @ crate::index::body::Target::Ivar(_),
                    op,
                    value,
                    ..
                } => sets_text(target, op, value),
                _ => None,
            };
            outcome = Outcome {
                description: if self.cx.text.filter {
                    "lets the request through".to_string()
                } else {
                    format!(
                        "renders {} template",
                        grammar::words(self.cx.text.method_name)
                    )
                },
                failure: false,
                guessed: false,
                sets: None,
            };
            if let Some(sets) = sets {
                outcome = outcome.with_sets(&sets);
            }
        }
        if !tail && !outcome.failure && !self.is_response(stmt) && self.is_discarded(original) {
            if let Some(done) = discarded_call(stmt, &outcome.description) {
                outcome.description = done;
            }
        }
        if outcome.guessed {
            self.apply(
                Rule::GuessedBehaviorText,
                Some(&format!("`{}`", outcome.description)),
            );
        }
        if !tail {
            self.apply(Rule::MidMethodBranchOutcome, None);
        }
        outcome
    }

    /// Splits a condition into characteristics placed at `at`.
    pub fn condition(&mut self, cond: &Node, at: At, lines: (u32, u32)) -> Slots {
        // `(u = comment.parent&.user) && u.active?`: what `u` holds, for the words of the
        // parts after it.
        if let Node::Assign {
            target: crate::index::body::Target::Lvar(name),
            op: crate::index::body::AssignOp::Set,
            value,
            ..
        } = cond
        {
            self.assigned.insert(name.clone(), (**value).clone());
        }
        match cond {
            // A part that is decided already (`notify && ...` with `notify: true` bound):
            // the condition is the other part.
            Node::And(a, b) if self.known(a) == Some(true) => self.condition(b, at, lines),
            Node::And(a, b) if self.known(b) == Some(true) => self.condition(a, at, lines),
            Node::Or(a, b, _) if self.known(a) == Some(false) => self.condition(b, at, lines),
            Node::Or(a, b, _) if self.known(b) == Some(false) => self.condition(a, at, lines),
            Node::Not(inner) => self.condition(inner, at, lines).swapped(),
            // A part asked already on this path (`status == "offline" || status ==
            // "readonly"` under `status` NOT offline): the condition is the other part, or
            // that part alone when it decides the whole.
            Node::And(..) | Node::Or(..) if self.part_to_ask(cond, at).is_some() => {
                match self.part_to_ask(cond, at) {
                    Some(part) => self.condition(part, at, lines),
                    None => self.leaf(cond, at, lines),
                }
            }
            // `node && node[name]`: a missing `node` is one way for `node[name]` to be
            // missing, so the read alone is the characteristic (J21).
            Node::And(a, b) if reads_element_of(a, b) => {
                self.apply(Rule::NilGuardOnRead, Some(&format!("`{}`", a.render())));
                self.condition(b, at, lines)
            }
            // `children.length == 1 && children[0].type == :text`: a single text child.
            Node::And(a, b) if condition::single_element(a, b).is_some() => {
                self.leaf(cond, at, lines)
            }
            Node::And(a, b) => {
                let first = self.condition(a, at, lines);
                if first.truthy.is_empty() {
                    // `a` is known false here: so is `a && b`.
                    return first;
                }
                match first.truthy.as_slice() {
                    [only] => {
                        let deeper = At {
                            level: self.level(*only) + 1,
                            parent: Some(*only),
                        };
                        // `friends && current_user` after a guard that left when friends
                        // came without a user: the user is there.
                        if self.implied_on_path(b, deeper) {
                            return first;
                        }
                        let second = self.condition(b, deeper, lines);
                        let mut falsy = first.falsy.clone();
                        falsy.extend(second.falsy);
                        Slots {
                            truthy: second.truthy,
                            falsy,
                        }
                    }
                    // `!hl && x` with `hl = a && b`: several values let the first part
                    // hold; the second is asked under each of them (a few at most).
                    many if many.len() <= 3 => {
                        let mut truthy = Vec::new();
                        let mut falsy = first.falsy.clone();
                        for slot in many.iter().copied() {
                            let second = self.condition(b, self.under(slot), lines);
                            truthy.extend(second.truthy);
                            falsy.extend(second.falsy);
                        }
                        Slots { truthy, falsy }
                    }
                    _ => self.combined(cond, a, b, "and", at, lines),
                }
            }
            // `url.match(A) || url.match(B) || ...`: one test of one subject.
            Node::Or(..) if condition::any_of(&condition::or_operands(cond)).is_some() => {
                self.leaf(cond, at, lines)
            }
            Node::Or(a, b, _) => self.combined(cond, a, b, "or", at, lines),
            Node::Lvar(_) | Node::Ivar(_) | Node::Call(_) if self.local_value(cond).is_some() => {
                match self.local_value(cond) {
                    // `hl = link.present? && link.match(RE)` then `if !hl`: the conditions
                    // the local was computed from.
                    Some(Local::Condition(value)) => self.condition(&value, at, lines),
                    // Decided (see `known`); only reached inside a compound condition.
                    Some(Local::NeverNil) => Slots {
                        truthy: at.parent.map(|p| vec![p]).unwrap_or_default(),
                        falsy: Vec::new(),
                    },
                    None => self.leaf(cond, at, lines),
                }
            }
            // `titles_only ? kind == "only" : kind != "0"` as a condition: the test, then
            // under each of its values the branch that decides (not `a or b`, which drops
            // the test).
            Node::If(t) if t.els.is_some() && !t.elsif => {
                let test = self.condition(&t.cond, at, lines);
                let (on_then, on_else) = if t.unless {
                    (test.falsy, test.truthy)
                } else {
                    (test.truthy, test.falsy)
                };
                let mut out = Slots {
                    truthy: Vec::new(),
                    falsy: Vec::new(),
                };
                let branches = [
                    (on_then, last_value(&t.then)),
                    (on_else, t.els.as_ref().map_or(Node::Nil, last_value)),
                ];
                for (slots, branch) in branches {
                    match branch {
                        Node::True => out.truthy.extend(slots),
                        Node::False | Node::Nil => out.falsy.extend(slots),
                        decides => {
                            // A few values at most (as for `&&`): each asks the branch.
                            for slot in slots.into_iter().take(3) {
                                let asked = self.condition(&decides, self.under(slot), lines);
                                out.truthy.extend(asked.truthy);
                                out.falsy.extend(asked.falsy);
                            }
                        }
                    }
                }
                out
            }
            Node::Call(c) if c.safe_nav => {
                // `user&.admin?`: user present, then user admin.
                let Some(recv) = c.recv.clone() else {
                    return self.leaf(cond, at, lines);
                };
                let mut plain = (**c).clone();
                plain.safe_nav = false;
                let split = Node::And(Box::new(recv), Box::new(Node::Call(Box::new(plain))));
                self.condition(&split, at, lines)
            }
            _ => self.leaf(cond, at, lines),
        }
    }

    fn combined(
        &mut self,
        whole: &Node,
        a: &Node,
        b: &Node,
        joiner: &str,
        at: At,
        lines: (u32, u32),
    ) -> Slots {
        // `a.new_record? || a.invalid?` with `a = Attachment.find_by_token(t)`: asked of
        // the attachment (the new name has more than one letter: no second rename).
        if let Some((name, value)) = self.record_letter(whole) {
            let renamed = replace_lvar(whole, &name, &value);
            if let Node::Or(ra, rb, _) | Node::And(ra, rb) = &renamed {
                return self.combined(&renamed, ra, rb, joiner, at, lines);
            }
        }
        if joiner == "or" {
            if let Some(spec) = self.any_of_several(whole) {
                let index = self.place(spec, whole, at, lines);
                return Slots {
                    truthy: vec![(index, 0)],
                    falsy: vec![(index, 1)],
                };
            }
        }
        let sa = condition::spec(a, &self.cx.env, self.cx.lookup);
        let sb = condition::spec(b, &self.cx.env, self.cx.lookup);
        // Each side as a clause of its own (`needs view param missing`, `kind equal to
        // "a"`): a presence or equality value's words alone do not say which way it goes.
        let (subject_a, holds_a) = condition::clause(&sa, true);
        let (subject_b, holds_b) = condition::clause(&sb, true);
        let one_subject = !subject_a.is_empty() && subject_a == subject_b;
        if one_subject && holds_a == holds_b {
            // `x.nil? || x.empty?`: one test said twice (missing): the first says it.
            return self.condition(a, at, lines);
        }
        let (truthy, falsy, name, description) = if one_subject {
            // `x.nil? || x == "true"`: one subject, two things said of it; the other value
            // negates the whole, as a compound's does (`neither x missing nor ...`).
            let (a, b) = match (
                holds_a.strip_prefix("equal to "),
                holds_b.strip_prefix("equal to "),
            ) {
                (Some(x), Some(y)) => (format!("equal to {x}"), y.to_string()),
                _ => (holds_a.clone(), holds_b.clone()),
            };
            let truthy = format!("{subject_a} {a} {joiner} {b}");
            let falsy = if joiner == "or" {
                format!("neither {subject_a} {a} nor {b}")
            } else {
                format!("NOT both {subject_a} {a} and {b}")
            };
            (
                truthy.clone(),
                falsy,
                grammar::identifier(&truthy),
                subject_a.clone(),
            )
        } else {
            let mut first = clause_text(&subject_a, &holds_a);
            let mut second = clause_text(&subject_b, &holds_b);
            let mut names = (sa.name.clone(), sb.name.clone());
            if first == second {
                // Two tests that read alike (`has_cached_role?(Role::SUPER_ADMIN) ||
                // has_cached_role?(Role::ORG_ADMIN)`): their arguments tell them apart.
                let (fa, fb) = (
                    crate::analyze::phrase::predicate_with_arguments(a),
                    crate::analyze::phrase::predicate_with_arguments(b),
                );
                if fa != fb {
                    names = (grammar::identifier(&fa), grammar::identifier(&fb));
                    (first, second) = (fa, fb);
                }
            }
            let falsy = if joiner == "or" {
                neither_nor(std::slice::from_ref(&first), &second)
            } else {
                format!("NOT both {first} and {second}")
            };
            let description = if sa.description == sb.description {
                format!("{first} {joiner} {second}")
            } else {
                format!("{} {joiner} {}", sa.description, sb.description)
            };
            (
                format!("{first} {joiner} {second}"),
                falsy,
                grammar::identifier(&format!("{}_{joiner}_{}", names.0, names.1)),
                description,
            )
        };
        let spec = condition::boolean(name, description, truthy, falsy);
        let index = self.place(spec, whole, at, lines);
        Slots {
            truthy: vec![(index, 0)],
            falsy: vec![(index, 1)],
        }
    }

    /// `resolved || notices.include?(0) || notices.include?(count)`: three tests or more,
    /// of different subjects, as one boolean whose values list them (`problem was resolved,
    /// app email at notices including 0 or ...` / `neither ... nor ...`). `None` for two.
    fn any_of_several(&self, whole: &Node) -> Option<Spec> {
        let operands = condition::or_operands(whole);
        if operands.len() < 3 {
            return None;
        }
        let mut clauses = Vec::new();
        let mut names = Vec::new();
        for op in &operands {
            let spec = condition::spec(op, &self.cx.env, self.cx.lookup);
            let (subject, holds) = condition::clause(&spec, true);
            clauses.push(clause_text(&subject, &holds));
            names.push(spec.name);
        }
        let (last, init) = clauses.split_last()?;
        let listed = init.join(", ");
        let truthy = format!("{listed} or {last}");
        let falsy = neither_nor(init, last);
        Some(condition::boolean(
            grammar::identifier(&names.join("_or_")),
            truthy.clone(),
            truthy,
            falsy,
        ))
    }

    fn leaf(&mut self, cond: &Node, at: At, lines: (u32, u32)) -> Slots {
        if let Some(holds) = self.decided_by_enum(cond, at) {
            // `op == "*"` inside `when "*", "!*"`: the enum above answers it (only the
            // branch that agrees runs here).
            return decided_at(at, holds);
        }
        // A condition on a short local (`p = params[:page].to_i; if p == 0`) is named and
        // set up after what the local was computed from, with the local noted.
        let own_lines = cond.span().unwrap_or(lines);
        let (named, local) = match self.short_local(cond) {
            Some((name, value)) => (replace_lvar(cond, &name, &value), Some(name)),
            None => (cond.clone(), None),
        };
        let cond = &named;
        let mut spec = match cond {
            // `no_details = false`, set to true further on: a flag, true or false.
            Node::Lvar(name)
                if matches!(self.assigned.get(name), Some(Node::True | Node::False)) =>
            {
                condition::flag(name)
            }
            _ => condition::spec(cond, &self.cx.env, self.cx.lookup),
        };
        if let Some(name) = &local {
            spec.description = format!("{} (as {name})", spec.description);
        }
        let mut question = question_of_cond(&spec, cond);
        // `c.to_i.zero?` after `c = occurrences(:authoring)` and again after `c =
        // occurrences(:mentoring)`: two questions, told apart by what `c` holds.
        if let Some(value) = self.short_local_value(cond) {
            question.push('|');
            question.push_str(&value);
        }
        if let Some(index) = self.asked_beside(&question, at) {
            // The same question asked again beside the first (`h = {.. ids == :all ? ..}`
            // twice in a row): one characteristic, whose values take both branches.
            if let (Some(c), Some(span)) = (self.chars.get_mut(index), cond.span()) {
                c.source_line = merge_lines(&c.source_line, span);
            }
            let positive_first = !(spec.truthy.value.as_str() == Some("nil")
                || spec.truthy.value == Value::Bool(false));
            let (t, f) = if positive_first { (0, 1) } else { (1, 0) };
            return Slots {
                truthy: vec![(index, t)],
                falsy: vec![(index, f)],
            };
        }
        if let Some(known) = self.answered(&question, at) {
            // The same question was asked earlier on this path: its answer is known, and
            // only the branch that agrees with it is reachable here.
            let holds = {
                let truthy_is_positive = !(spec.truthy.value.as_str() == Some("nil")
                    || spec.truthy.value == Value::Bool(false));
                known == truthy_is_positive
            };
            return decided_at(at, holds);
        }
        if let Some(holds) = self
            .with_reads(cond)
            .and_then(|read| self.answered_cond(&read, at))
        {
            // `html_options.key?(:class)` after `html_options = options[:html]`, with
            // `options[:html].key?(:class)` asked on the path.
            return decided_at(at, holds);
        }
        // Values are listed present/true first whatever the condition tests (`x.nil?`).
        let flipped =
            spec.truthy.value.as_str() == Some("nil") || spec.truthy.value == Value::Bool(false);
        let spec = if flipped {
            Spec {
                truthy: spec.falsy.clone(),
                falsy: spec.truthy.clone(),
                ..spec
            }
        } else {
            spec
        };
        let index = self.place(spec, cond, at, lines);
        let rescued = match cond {
            Node::Lvar(name) => self.rescued_nil.get(name).cloned(),
            _ => None,
        };
        if let Some(c) = self.chars.get_mut(index) {
            c.question = question;
            for (line, classes) in rescued.unwrap_or_default() {
                c.source_line = merge_lines(&c.source_line, (line, line));
                if let Some(missing) = c
                    .values
                    .iter_mut()
                    .find(|v| v.value.as_str() == Some("nil"))
                {
                    missing.description = format!("{} ({classes} raised)", missing.description);
                }
            }
            if local.is_some() {
                // The condition's lines, not those of the value it was read through.
                c.source_line = if own_lines.0 == own_lines.1 {
                    own_lines.0.to_string()
                } else {
                    format!("{}-{}", own_lines.0, own_lines.1)
                };
            }
        }
        let slots = Slots {
            truthy: vec![(index, 0)],
            falsy: vec![(index, 1)],
        };
        if flipped {
            slots.swapped()
        } else {
            slots
        }
    }

    /// Places a two-valued characteristic.
    pub fn place(&mut self, spec: Spec, cond: &Node, at: At, lines: (u32, u32)) -> usize {
        // The condition's own lines, not the whole conditional's: `source_line` points at
        // what the characteristic tests.
        let lines = cond.span().unwrap_or(lines);
        if let Some((rule, detail)) = &spec.note {
            self.apply(*rule, Some(detail));
        }
        let values = vec![spec.truthy.clone(), spec.falsy.clone()];
        let (threshold_value, threshold_operator) = match spec.threshold {
            Some((v, op)) => (v, Some(op)),
            None => (None, None),
        };
        let (setup, source) = self.setup_and_source(cond);
        let attribute = setup::attribute(cond);
        let index = self.push_char(
            spec.name,
            spec.description,
            spec.kind,
            values
                .into_iter()
                .map(|v| (v.value, v.description))
                .collect(),
            source,
            setup,
            at,
            lines,
            threshold_value,
            threshold_operator,
        );
        if let Some(c) = self.chars.get_mut(index) {
            c.attribute = attribute;
        }
        index
    }

    /// `setup` and `source` of a condition (`setup.rs`). A test controls another class's
    /// answer by stubbing the call, so an external source is set up as an action with no
    /// class (the seed's `gateway_result`).
    pub fn setup_and_source(&mut self, cond: &Node) -> (super::model::Setup, Source) {
        let (setup, guessed) = setup::setup(cond, &self.cx.env, self.cx.lookup, self.cx.class_name);
        if guessed {
            self.apply(Rule::ClassFromName, None);
        }
        let private_source = |name: &str| self.private_source(name);
        let source = setup::source(
            cond,
            &self.cx.env,
            self.cx.lookup,
            self.cx.class_name,
            &private_source,
        );
        match source {
            Source::External { .. } => (
                super::model::Setup {
                    kind: super::model::SetupType::Action,
                    class: None,
                },
                source,
            ),
            Source::Internal => (setup, source),
        }
    }

    /// The texts of a characteristic with each short local (`u`, `m`: names that say
    /// nothing) said by the value the method assigned to it (`u = comment.parent.user` →
    /// `comment parent user`). English words (`a`, `i`, `id`...) and locals without a
    /// known value stay.
    fn spoken_locals(
        &self,
        name: String,
        description: String,
        values: Vec<(Value, String)>,
    ) -> (String, String, Vec<(Value, String)>) {
        const WORDS: &[&str] = &[
            "a", "i", "an", "as", "at", "be", "by", "do", "go", "id", "if", "in", "is", "it", "me",
            "my", "no", "of", "ok", "on", "or", "so", "to", "up", "us", "we",
        ];
        let mut spoken: Vec<(String, String)> = Vec::new();
        // Sorted below: the order of the map does not reach the answer.
        #[allow(clippy::iter_over_hash_type)]
        for (local, value) in &self.assigned {
            if local.starts_with('@') || local.len() > 2 || WORDS.contains(&local.as_str()) {
                continue;
            }
            let words = super::phrase::noun(value);
            if words.len() <= 2 || words.len() > 48 || words.split_whitespace().count() < 2 {
                continue;
            }
            spoken.push((local.clone(), words));
        }
        if spoken.is_empty() {
            return (name, description, values);
        }
        spoken.sort();
        let say = |text: &str| {
            let said = spoken.iter().fold(text.to_string(), |t, (local, words)| {
                grammar::replace_word(&t, local, words)
            });
            grammar::single_words(&said)
        };
        let said = say(&description);
        if said == description {
            return (name, description, values);
        }
        let name = {
            let words_of_name = grammar::words(&name);
            let renamed = say(&words_of_name);
            if renamed == words_of_name {
                name
            } else {
                grammar::identifier(&renamed)
            }
        };
        let values = values.into_iter().map(|(v, d)| (v, say(&d))).collect();
        (name, said, values)
    }

    /// Places a characteristic with any number of values.
    #[allow(clippy::too_many_arguments)]
    pub fn push_char(
        &mut self,
        name: String,
        description: String,
        kind: CharType,
        values: Vec<(Value, String)>,
        source: Source,
        setup: super::model::Setup,
        at: At,
        lines: (u32, u32),
        threshold_value: Option<Value>,
        threshold_operator: Option<&'static str>,
    ) -> usize {
        // A one- or two-letter local (`u`, `m`) is said by what it holds.
        let (name, description, values) = self.spoken_locals(name, description, values);
        let name = self.unique_name(&name);
        let binary_deep = at.level >= 2 && kind.is_binary(values.len());
        // At level 1 every value reads `when ...`: presence values need their own words
        // there (deeper, `with x` / `without x` share one noun phrase).
        let values: Vec<(Value, String)> = if kind == CharType::Presence && at.level == 1 {
            values
                .into_iter()
                .map(|(v, d)| {
                    let suffix = if v.as_str() == Some("nil") {
                        "missing"
                    } else {
                        "present"
                    };
                    (v, format!("{d} {suffix}"))
                })
                .collect()
        } else {
            values
        };
        let values = values
            .into_iter()
            .map(|(value, desc)| CharValue {
                value,
                description: grammar::value_description(&desc, binary_deep),
                terminal: false,
                behavior: None,
            })
            .collect();
        let when_parent = at
            .parent
            .and_then(|(c, v)| {
                self.chars
                    .get(c)
                    .and_then(|p| p.values.get(v))
                    .map(|v| v.value.clone())
            })
            .into_iter()
            .collect();
        self.chars.push(Characteristic {
            name,
            description: grammar::single_words(&description),
            kind,
            values,
            source,
            setup,
            level: at.level,
            parent: at.parent.map(|(c, _)| c),
            when_parent,
            source_line: if lines.0 == lines.1 {
                lines.0.to_string()
            } else {
                format!("{}-{}", lines.0, lines.1)
            },
            threshold_value,
            threshold_operator,
            parent_value: at.parent.map(|(_, v)| v),
            question: String::new(),
            attribute: None,
        });
        self.chars.len() - 1
    }

    /// `s << "x"` after `s = +""`, `m.save!` after `m = Moderation.new`: the statement
    /// with its receiver, a local of one or two letters (not a parameter; `out` and `row`
    /// say what they are), named after what it holds (`text`, `list`, `moderation`), so
    /// its text does not read "adds to the s". `None` when there is nothing to rename.
    fn named_receiver(&self, stmt: &Node) -> Option<Node> {
        let mut root = match stmt {
            Node::Call(c) => c.recv.as_ref()?,
            _ => return None,
        };
        while let Node::Call(c) = root {
            root = c.recv.as_ref()?;
        }
        let Node::Lvar(name) = root else { return None };
        if name.chars().count() > 2 || self.cx.method.params.iter().any(|p| p.name == *name) {
            return None;
        }
        let held = match self.assigned.get(name)? {
            Node::Str(_) => "text".to_string(),
            Node::Other { text, .. } if text.starts_with(['"', '\'', '+']) => "text".to_string(),
            Node::Call(c) if c.name == "+@" && matches!(c.recv, Some(Node::Str(_))) => {
                "text".to_string()
            }
            Node::Array(_) => "list".to_string(),
            Node::Call(c) if c.name == "new" => match c.recv.as_ref() {
                Some(Node::Const { path, .. }) if path == "String" => "text".to_string(),
                Some(Node::Const { path, .. }) if path == "Array" => "list".to_string(),
                // An acronym (`ITCPDF`) says less as `itcpdf` than the local's own name.
                Some(Node::Const { path, .. }) => {
                    let class = path.rsplit("::").next().unwrap_or(path);
                    let acronym = class
                        .as_bytes()
                        .windows(2)
                        .any(|w| w.iter().all(u8::is_ascii_uppercase));
                    if acronym {
                        return None;
                    }
                    crate::naming::underscore(class)
                }
                _ => return None,
            },
            // `v = Vote.where(...).first_or_initialize`: a one-letter local made by a
            // class's finder is named after the class (`saves the vote`, not `the v`), as
            // its conditions are.
            other if name.chars().count() == 1 => {
                let class = root_class(other)?;
                crate::naming::underscore(class.rsplit("::").next().unwrap_or(class))
            }
            _ => return None,
        };
        Some(replace_lvar(stmt, name, &Node::Lvar(held)))
    }

    /// A characteristic asking `question` attached exactly at `at` (a sibling placed
    /// earlier), if any.
    fn asked_beside(&self, question: &str, at: At) -> Option<usize> {
        self.chars.iter().position(|c| {
            !c.question.is_empty()
                && c.question == question
                && c.level == at.level
                && c.parent.zip(c.parent_value) == at.parent
        })
    }

    /// The node a subject is named and set up by: a short local read from an input
    /// (`p = params[:page].to_i`) stands for that input.
    pub fn named_subject(&self, subject: &Node) -> Node {
        match self.short_local(subject) {
            Some((name, value)) => replace_lvar(subject, &name, &value),
            None => subject.clone(),
        }
    }

    /// A local of at most three letters (not a parameter) that `cond` is about, with the
    /// value it was assigned.
    /// What the first short local (three letters at most) `cond` reads holds, rendered.
    fn short_local_value(&self, cond: &Node) -> Option<String> {
        struct First(Option<String>);
        impl<'n> crate::index::body::Visitor<'n> for First {
            fn enter(&mut self, node: &'n Node) -> bool {
                if let Node::Lvar(name) = node {
                    if self.0.is_none() && name.chars().count() <= 3 {
                        self.0 = Some(name.clone());
                    }
                }
                self.0.is_none()
            }
        }
        let mut first = First(None);
        crate::index::body::walk(&mut first, cond);
        self.assigned.get(&first.0?).map(Node::render)
    }

    fn short_local(&self, cond: &Node) -> Option<(String, Node)> {
        self.input_local(cond).or_else(|| self.record_letter(cond))
    }

    /// A one-letter local anywhere in `cond` that a class method made (`a =
    /// Attachment.find_by_token(t)`; `a.new_record? || a.invalid?`): named after the
    /// class, since `a` reads as an article (`a present`, `a new record`).
    fn record_letter(&self, cond: &Node) -> Option<(String, Node)> {
        fn letters(n: &Node, out: &mut Vec<String>) {
            match n {
                Node::Lvar(name) if name.chars().count() == 1 => out.push(name.clone()),
                other => other.for_each_child(&mut |c| letters(c, out)),
            }
        }
        let mut found = Vec::new();
        letters(cond, &mut found);
        found.into_iter().find_map(|name| {
            if self.cx.method.params.iter().any(|p| p.name == name) {
                return None;
            }
            let class = root_class(self.assigned.get(&name)?)?;
            let noun = crate::naming::underscore(class.rsplit("::").next().unwrap_or(class));
            Some((name, Node::Lvar(noun)))
        })
    }

    fn input_local(&self, cond: &Node) -> Option<(String, Node)> {
        let mut found: Option<String> = None;
        let mut visit = |n: &Node| {
            if let Node::Lvar(name) = n {
                if found.is_none() && name.chars().count() <= 3 {
                    found = Some(name.clone());
                }
            }
        };
        cond.for_each_child(&mut visit);
        if let Node::Lvar(name) = cond {
            if name.chars().count() <= 3 {
                found = Some(name.clone());
            }
        }
        let name = found?;
        if self.cx.method.params.iter().any(|p| p.name == name) {
            return None;
        }
        let value = self.assigned.get(&name)?;
        // Only an input read (`params[:page].to_i`, `options[:x]`, `@story.user`): a
        // lookup (`Project.order(:id).first`) says less than the local's own name...
        if !input_read(value) {
            return None;
        }
        Some((name, value.clone()))
    }

    /// The value of a condition when it is decided without running the method: a literal
    /// (a private method's parameter bound to one), a variable that is never nil
    /// (`@note = Note.find(id)` then `raise unless @note`: `find` raises instead), and
    /// `!`, `&&`, `||` over those.
    pub fn known(&self, cond: &Node) -> Option<bool> {
        match cond {
            Node::True | Node::Int(_) | Node::Float(_) | Node::Str(_) | Node::Sym(_) => Some(true),
            // `self`, and what every object answers with an object: `self.class`.
            Node::SelfRef => Some(true),
            Node::Call(c)
                if c.args.is_empty()
                    && c.block.is_none()
                    && matches!(c.recv.as_ref(), None | Some(Node::SelfRef))
                    && (c.name == "class" && c.recv.is_some()) =>
            {
                Some(true)
            }
            Node::False | Node::Nil => Some(false),
            // The status of the last child process: set once a command ran (the method
            // ran one to read it), so `$? && $?.exitstatus != 0` asks the exit status only.
            Node::Other { text, .. } if text == "$?" => Some(true),
            Node::Not(x) => self.known(x).map(|v| !v),
            Node::And(a, b) => match (self.known(a), self.known(b)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Node::Or(a, b, _) => match (self.known(a), self.known(b)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            Node::Lvar(_) | Node::Ivar(_) => {
                matches!(self.local_value(cond), Some(Local::NeverNil)).then_some(true)
            }
            // `params[:id]` in an action every route to which has `:id`.
            Node::Call(c) if self.route_param(c) => Some(true),
            // `record.respond_to?(:persisted?)`: every model has it (J23).
            Node::Call(c)
                if c.name == "respond_to?"
                    && c.recv.is_some()
                    && matches!(c.args.as_slice(), [Node::Sym(m)] if ACTIVE_MODEL_API.contains(&m.as_str())) =>
            {
                if let Some(Node::Sym(m)) = c.args.first() {
                    self.decided(Rule::ActiveModelApi, format!("`{m}`"));
                }
                Some(true)
            }
            // `user_id` in a `before_destroy` of a model that validates its presence.
            Node::Call(c) if self.validated(c) => Some(true),
            Node::Call(c)
                if matches!(
                    c.name.as_str(),
                    "key?" | "has_key?" | "include?" | "member?"
                ) && c.args.len() == 1
                    && c.recv.as_ref().is_some_and(is_params)
                    && c.args.first().is_some_and(|k| self.is_route_param_key(k)) =>
            {
                Some(true)
            }
            Node::Call(c) if matches!(c.name.as_str(), "==" | "!=") && c.args.len() == 1 => {
                let (Some(a), Some(b)) = (c.recv.as_ref(), c.args.first()) else {
                    return None;
                };
                literal_equality(a, b).map(|eq| eq == (c.name == "=="))
            }
            Node::Call(c) if c.args.is_empty() => {
                let recv = c.recv.as_ref();
                // A literal's presence is no case to set up (`nil.present?`, once an
                // inlined method's default argument stands for the value).
                if let Some(literal) = recv.and_then(literal_blankness) {
                    return match c.name.as_str() {
                        "present?" => Some(!literal.blank),
                        "blank?" => Some(literal.blank),
                        "nil?" => Some(literal.nil),
                        _ => None,
                    };
                }
                let route = recv.is_some_and(|r| matches!(r, Node::Call(p) if self.route_param(p)));
                if !matches!(c.name.as_str(), "present?" | "nil?" | "blank?" | "empty?") {
                    return None;
                }
                // A validated presence is neither nil nor blank.
                let validated =
                    recv.is_some_and(|r| matches!(r, Node::Call(a) if self.validated(a)));
                let never_nil = route
                    || validated
                    || recv.is_some_and(|r| matches!(self.local_value(r), Some(Local::NeverNil)));
                match c.name.as_str() {
                    "present?" if never_nil => Some(true),
                    "nil?" if never_nil => Some(false),
                    // A route segment is never empty.
                    "blank?" | "empty?" if route || validated => Some(false),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether `c` is `params[:key]` (or `params["key"]`, `params.fetch(:key)`) for a
    /// param every route to the action carries; noted for J20 when it is.
    fn route_param(&self, c: &Call) -> bool {
        let read = matches!(c.name.as_str(), "[]" | "fetch")
            && c.args.len() == 1
            && c.recv.as_ref().is_some_and(is_params);
        read && c.args.first().is_some_and(|k| self.is_route_param_key(k))
    }

    /// Whether `c` reads an attribute or association of the record (`user_id`,
    /// `self.project`) whose presence the model validates, in a callback that runs on a
    /// valid record; noted for J22 when it is.
    fn validated(&self, c: &Call) -> bool {
        let own = c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef));
        if !own || !c.args.is_empty() || c.block.is_some() {
            return false;
        }
        if !self.cx.validated.contains(&c.name) {
            return false;
        }
        self.decided(Rule::ValidatedPresent, format!("`{}`", c.name));
        true
    }

    /// Records what decided a condition under `rule` (see `decided_by`).
    fn decided(&self, rule: Rule, detail: String) {
        if let Ok(mut by) = self.decided_by.try_borrow_mut() {
            by.entry(rule).or_default().insert(detail);
        }
    }

    /// Notes each rule `known` decided conditions by, with what it read.
    pub fn note_decided(&mut self) {
        let by = std::mem::take(self.decided_by.get_mut());
        for (rule, details) in by {
            let details: Vec<String> = details.into_iter().collect();
            self.apply(rule, Some(&details.join(", ")));
        }
    }

    /// Whether `key` (`:id`, `"id"`) names one of the action's route params; noted.
    fn is_route_param_key(&self, key: &Node) -> bool {
        let name = match key {
            Node::Sym(k) | Node::Str(k) => k,
            _ => return false,
        };
        if !self.cx.route_params.iter().any(|p| p == name) {
            return false;
        }
        self.decided(Rule::RouteParamPresent, format!("`params[:{name}]`"));
        true
    }

    /// Records `x = value` and `@x = value` (plain and `||=`) for conditions on them.
    fn record_assignment(&mut self, stmt: &Node) {
        if let Node::Assign {
            target, op, value, ..
        } = stmt
        {
            if !matches!(
                op,
                crate::index::body::AssignOp::Set | crate::index::body::AssignOp::OrSet
            ) {
                return;
            }
            let key = match target {
                crate::index::body::Target::Lvar(n) => n.clone(),
                crate::index::body::Target::Ivar(n) => format!("@{n}"),
                crate::index::body::Target::Other(_) => return,
            };
            self.assigned.insert(key, (**value).clone());
        }
    }

    /// What a condition on a local or instance variable stands for, when its assignment
    /// says more than its name: the conditions it was computed from, or that it is never
    /// nil. Parameters are inputs and stay as they are.
    fn local_value(&self, cond: &Node) -> Option<Local> {
        let key = match cond {
            Node::Lvar(n) => n.clone(),
            Node::Ivar(n) => format!("@{n}"),
            // `x.nil?`, `x.present?`, `x.blank?` on such a variable.
            Node::Call(c)
                if c.args.is_empty()
                    && matches!(c.name.as_str(), "nil?" | "present?" | "blank?") =>
            {
                return match c.recv.as_ref().and_then(|r| self.local_value(r)) {
                    Some(Local::NeverNil) => Some(Local::NeverNil).filter(|_| c.name == "present?"),
                    _ => None,
                };
            }
            _ => return None,
        };
        if matches!(cond, Node::Lvar(_)) && self.cx.method.params.iter().any(|p| p.name == key) {
            return None;
        }
        let value = self.assigned.get(&key)?;
        if never_nil(value) {
            return Some(Local::NeverNil);
        }
        // `ended = false` before a loop that sets it: a flag, asked by its own name.
        let literal = matches!(value, Node::True | Node::False | Node::Nil);
        if matches!(cond, Node::Lvar(_)) && boolean_ish(value) && !literal {
            return Some(Local::Condition(value.clone()));
        }
        None
    }

    /// For `a && b` or `a || b` with a part answered on the path to `at`: the part left to
    /// ask (the other one), or the answered part when it decides the whole (`a` false in
    /// `a && b`, true in `a || b`).
    fn part_to_ask<'n>(&self, cond: &'n Node, at: At) -> Option<&'n Node> {
        let (a, b, deciding) = match cond {
            Node::And(a, b) => (a.as_ref(), b.as_ref(), false),
            Node::Or(a, b, _) => (a.as_ref(), b.as_ref(), true),
            _ => return None,
        };
        match (self.answered_cond(a, at), self.answered_cond(b, at)) {
            (Some(v), _) if v == deciding => Some(a),
            (Some(_), _) => Some(b),
            (None, Some(v)) if v != deciding => Some(a),
            // `user&.new? && similar` where `similar` is known missing on this path: the
            // whole is false whatever `a` says (as `||` is true), so `a` decides nothing.
            (None, Some(_)) => Some(b),
            _ => None,
        }
    }

    /// Whether a guard passed earlier implies `cond` on the path to `at` (see
    /// [`Walker::implied`]).
    fn implied_on_path(&self, cond: &Node, at: At) -> bool {
        if self.implied.is_empty() {
            return false;
        }
        let text = cond.render();
        self.implied
            .iter()
            .any(|(premise, conclusion)| conclusion.render() == text && self.holds(premise, at))
    }

    /// Whether `cond` is true on the path to `at`: asked there (each part of a compound),
    /// or decided.
    fn holds(&self, cond: &Node, at: At) -> bool {
        match cond {
            Node::Or(a, b, _) => self.holds(a, at) || self.holds(b, at),
            Node::And(a, b) => self.holds(a, at) && self.holds(b, at),
            leaf => self.known(leaf) == Some(true) || self.answered_cond(leaf, at) == Some(true),
        }
    }

    /// The value of `cond` when a characteristic on the path to `at` asked the same
    /// question (a leaf's question; compounds are not looked up).
    fn answered_cond(&self, cond: &Node, at: At) -> Option<bool> {
        if matches!(cond, Node::And(..) | Node::Or(..)) || at.parent.is_none() {
            return None;
        }
        let (cond, negated) = match cond {
            Node::Not(inner) => (inner.as_ref(), true),
            other => (other, false),
        };
        let spec = condition::spec(cond, &self.cx.env, self.cx.lookup);
        let positive = self.answered(&question_of_cond(&spec, cond), at)?;
        let truthy_is_positive =
            !(spec.truthy.value.as_str() == Some("nil") || spec.truthy.value == Value::Bool(false));
        Some((positive == truthy_is_positive) != negated)
    }

    /// `cond` with each local that holds a keyed read (`html_options = options[:html]`)
    /// read in its place; `None` when it holds none.
    fn with_reads(&self, cond: &Node) -> Option<Node> {
        fn keyed_read(value: &Node) -> bool {
            matches!(value, Node::Call(c) if c.name == "[]"
                && c.block.is_none()
                && matches!(c.args.as_slice(), [Node::Sym(_) | Node::Str(_)])
                && matches!(&c.recv, Some(Node::Lvar(_) | Node::Ivar(_)) | Some(Node::Call(_))))
        }
        fn swap(walker: &Walker<'_>, node: &Node, changed: &mut bool) -> Node {
            match node {
                Node::Lvar(name) if !walker.cx.method.params.iter().any(|p| &p.name == name) => {
                    match walker.assigned.get(name) {
                        Some(value) if keyed_read(value) => {
                            *changed = true;
                            value.clone()
                        }
                        _ => node.clone(),
                    }
                }
                other => other.map_children(&mut |child| swap(walker, child, changed)),
            }
        }
        if self.assigned.is_empty() {
            return None;
        }
        let mut changed = false;
        let read = swap(self, cond, &mut changed);
        changed.then_some(read)
    }

    /// What the leaf at `slot` set, when it did nothing more (see [`Walker::leaf_sets`]).
    pub fn sets_of(&self, slot: Slot) -> Option<&str> {
        self.leaf_sets
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|(_, sets)| sets.as_str())
    }

    /// Whether `stmt` is a call of the method whose value nothing uses.
    /// Whether the logging-only conditional at `line` is what a warning method is for
    /// (see [`warning_conditionals`]).
    fn warns_here(&self, line: u32) -> bool {
        self.warnings
            .get_or_init(|| {
                let mut found = std::collections::HashSet::new();
                let bodies = std::iter::once(&self.cx.method.body)
                    .chain(self.cx.privates.iter().map(|p| &p.body));
                for body in bodies.flatten() {
                    warning_conditionals(body, &mut found);
                }
                found
            })
            .contains(&line)
    }

    fn is_discarded(&self, stmt: &Node) -> bool {
        match stmt {
            Node::Call(c) => self
                .discarded
                .get_or_init(|| {
                    let mut found = std::collections::HashSet::new();
                    if let Some(body) = &self.cx.method.body {
                        // The method's last statement is its value.
                        discarded_calls(body, true, &mut found);
                    }
                    for private in &self.cx.privates {
                        if let Some(body) = &private.body {
                            // Used or not depends on the caller: taken as used.
                            discarded_calls(body, true, &mut found);
                        }
                    }
                    found
                })
                .contains(&(c.line, stmt.render())),
            _ => false,
        }
    }

    /// The value of `subject == literal` (or `!=`) when an enum of `subject` (a `case`, an
    /// `elsif` chain) is on the path to `at`: true under that literal's value, false under
    /// another literal, or under `other` when the literal is one of the enum's values.
    fn decided_by_enum(&self, cond: &Node, at: At) -> Option<bool> {
        let Node::Call(call) = cond else {
            return None;
        };
        if let Some(known) = self.listed_by_enum(call, at) {
            return Some(known);
        }
        let negated = match call.name.as_str() {
            "==" => false,
            "!=" => true,
            _ => return None,
        };
        let [arg] = call.args.as_slice() else {
            return None;
        };
        let recv = call.recv.as_ref()?;
        let literal = |n: &Node| {
            matches!(
                n,
                Node::Str(_) | Node::Sym(_) | Node::Int(_) | Node::Float(_) | Node::Nil
            )
        };
        let (subject, lit) = match (literal(recv), literal(arg)) {
            (false, true) => (recv, arg),
            (true, false) => (arg, recv),
            _ => return None,
        };
        let value = condition::when_value(lit).0;
        let asks = self.enum_subject(subject, lit, call.line);
        let mut slot = at.parent;
        while let Some((ci, vi)) = slot {
            let c = self.chars.get(ci)?;
            if asks.asked_by(c) {
                let here = c.values.get(vi)?;
                let equal = if here.value == value {
                    true
                } else if is_catch_all(here) {
                    if !c.values.iter().any(|v| v.value == value) {
                        return None;
                    }
                    false
                } else {
                    false
                };
                return Some(equal != negated);
            }
            slot = c.parent.zip(c.parent_value);
        }
        None
    }

    /// `[1, 2].include?(state)` (or `state.in?([1, 2])`) where `state == 0` was answered
    /// on the path: the enum's value on the path says whether it is listed.
    fn listed_by_enum(&self, call: &crate::index::body::Call, at: At) -> Option<bool> {
        let literal = |n: &Node| {
            matches!(
                n,
                Node::Str(_) | Node::Sym(_) | Node::Int(_) | Node::Float(_) | Node::Nil
            )
        };
        let (subject, items) = match (call.name.as_str(), call.recv.as_ref(), call.args.as_slice())
        {
            ("include?" | "member?", Some(Node::Array(items)), [subject]) => (subject, items),
            ("in?", Some(subject), [Node::Array(items)]) => (subject, items),
            _ => return None,
        };
        if items.is_empty() || !items.iter().all(literal) || literal(subject) {
            return None;
        }
        let listed: Vec<Value> = items.iter().map(|i| condition::when_value(i).0).collect();
        let asks = self.enum_subject(subject, items.first()?, call.line);
        let mut slot = at.parent;
        while let Some((ci, vi)) = slot {
            let c = self.chars.get(ci)?;
            if asks.asked_by(c) {
                let here = c.values.get(vi)?;
                if !is_catch_all(here) {
                    return Some(listed.contains(&here.value));
                }
                // "any other" value: not listed only when every listed value is one of the
                // enum's own (so "other" excludes it).
                return listed
                    .iter()
                    .all(|l| c.values.iter().any(|v| &v.value == l))
                    .then_some(false);
            }
            slot = c.parent.zip(c.parent_value);
        }
        None
    }

    /// What an enum of `subject` asks: a `case` on it, or an `if subject == 0` (whose
    /// question is its kind and words, then the value asked; `lit` is any literal the
    /// subject is compared with, to word the question alike). Made once per lookup, not
    /// per characteristic on the path.
    fn enum_subject(&self, subject: &Node, lit: &Node, line: u32) -> EnumSubject {
        let probe = Node::Call(Box::new(crate::index::body::Call {
            recv: Some(subject.clone()),
            name: "==".to_string(),
            args: vec![lit.clone()],
            block: None,
            safe_nav: false,
            line,
        }));
        let spec = condition::spec(&probe, &self.cx.env, self.cx.lookup);
        EnumSubject {
            case: enum_question(subject),
            equality: (spec.kind == CharType::Enum)
                .then(|| format!("{}|{}|", spec.kind.as_str(), spec.description)),
        }
    }

    /// Whether `question` was asked by a characteristic on the path to `at`, and if so
    /// whether the path went through its positive value (present / true, value 0).
    fn answered(&self, question: &str, at: At) -> Option<bool> {
        let mut slot = at.parent;
        while let Some((ci, vi)) = slot {
            let c = self.chars.get(ci)?;
            if c.question == question {
                return Some(vi == 0);
            }
            slot = c.parent.zip(c.parent_value);
        }
        None
    }

    /// `name`, else the first of `name_2`, `name_3`, ... not taken yet. Names are only ever
    /// added, so the suffix search resumes where the last one for `name` stopped.
    fn unique_name(&mut self, name: &str) -> String {
        if self.taken.insert(name.to_string()) {
            return name.to_string();
        }
        let mut i = self.next_suffix.get(name).copied().unwrap_or(2);
        loop {
            let candidate = format!("{name}_{i}");
            i += 1;
            if self.taken.insert(candidate.clone()) {
                self.next_suffix.insert(name.to_string(), i);
                return candidate;
            }
        }
    }

    /// The level of a slot's characteristic.
    pub fn level(&self, slot: Slot) -> u32 {
        self.chars.get(slot.0).map_or(1, |c| c.level)
    }

    /// Where children of a slot attach.
    pub fn under(&self, slot: Slot) -> At {
        At {
            level: self.level(slot) + 1,
            parent: Some(slot),
        }
    }

    /// Whether a characteristic depends on this slot.
    pub fn has_children(&self, slot: Slot) -> bool {
        let Some(value) = self
            .chars
            .get(slot.0)
            .and_then(|c| c.values.get(slot.1))
            .map(|v| v.value.clone())
        else {
            return false;
        };
        self.chars
            .iter()
            .any(|c| c.parent == Some(slot.0) && c.when_parent.contains(&value))
    }

    /// Makes a slot a leaf with `outcome`.
    pub fn set_leaf(&mut self, slot: Slot, outcome: &Outcome, terminal: bool) {
        if self.has_children(slot) {
            return;
        }
        if outcome.description == NOTHING_MORE {
            self.apply(Rule::EmptyBranch, None);
            if let Some(sets) = &outcome.sets {
                self.leaf_sets.retain(|(s, _)| *s != slot);
                self.leaf_sets.push((slot, sets.clone()));
            }
        }
        if let Some(v) = self
            .chars
            .get_mut(slot.0)
            .and_then(|c| c.values.get_mut(slot.1))
        {
            v.terminal = terminal;
            v.behavior = Some(outcome.behavior(terminal));
        }
    }

    /// Gives a slot the outcome of the path that continued through it.
    pub fn finish(&mut self, slot: Slot, end: &End, tail: bool) {
        match end {
            End::Exited(o) => self.set_leaf(slot, o, true),
            End::Done(o) => {
                let terminal = tail && o.failure;
                if terminal && !o.description.starts_with("raises") {
                    self.apply(Rule::ReturnedFailureIsTerminal, None);
                }
                self.set_leaf(slot, o, terminal)
            }
            End::Branched => {}
        }
    }

    /// The source of an implicit call to a private predicate: external when its body is a
    /// call on another class (`Refunds::RefundPolicy.new(payment).allowed?`).
    pub fn private_source(&self, name: &str) -> Option<Source> {
        let private = self.cx.privates.iter().find(|m| m.name == name)?;
        let body = private.body.as_ref()?;
        let last = statements(body).pop()?;
        match setup::source(
            &last,
            &self.cx.env,
            self.cx.lookup,
            self.cx.class_name,
            &|_| None,
        ) {
            Source::Internal => None,
            external => Some(external),
        }
    }

    /// The leaf behaviors, for a check after walking.
    pub fn leaves_without_behavior(&self) -> Vec<Slot> {
        let mut out = Vec::new();
        for (ci, c) in self.chars.iter().enumerate() {
            for (vi, v) in c.values.iter().enumerate() {
                if v.behavior.is_none() && (v.terminal || !self.has_children((ci, vi))) {
                    out.push((ci, vi));
                }
            }
        }
        out
    }

    /// Drops behaviors from values that have children (they are intermediate).
    pub fn clear_intermediate_behaviors(&mut self) {
        let slots: Vec<Slot> = self
            .chars
            .iter()
            .enumerate()
            .flat_map(|(ci, c)| (0..c.values.len()).map(move |vi| (ci, vi)))
            .filter(|s| self.has_children(*s))
            .collect();
        for (ci, vi) in slots {
            if let Some(v) = self.chars.get_mut(ci).and_then(|c| c.values.get_mut(vi)) {
                if !v.terminal {
                    v.behavior = None;
                }
            }
        }
    }

    /// The first behavior found on a leaf, for methods that need a fallback.
    pub fn any_behavior(&self) -> Option<BehaviorDraft> {
        self.chars
            .iter()
            .flat_map(|c| &c.values)
            .find_map(|v| v.behavior.clone())
    }
}

/// `"272"` and lines 275-275 → `"272-275"`.
fn merge_lines(source_line: &str, (lo, hi): (u32, u32)) -> String {
    let mut bounds = source_line
        .split('-')
        .filter_map(|n| n.trim().parse::<u32>().ok());
    let first = bounds.next().unwrap_or(lo);
    let last = bounds.next().unwrap_or(first);
    let (a, b) = (first.min(lo), last.max(hi));
    if a == b {
        a.to_string()
    } else {
        format!("{a}-{b}")
    }
}

/// A value read from an input: a hash element (`params[:page]`), an attribute of an
/// instance variable, parameter or self, through conversions (`.to_i`, `.strip`).
fn input_read(value: &Node) -> bool {
    match value {
        Node::Call(c) if c.name == "[]" => c.recv.as_ref().is_some_and(|r| {
            matches!(r, Node::Call(h) if h.recv.is_none() && h.args.is_empty())
                || matches!(r, Node::Ivar(_) | Node::Lvar(_))
        }),
        Node::Call(c)
            if c.args.is_empty()
                && matches!(
                    c.name.as_str(),
                    "to_i" | "to_s" | "to_f" | "to_sym" | "strip" | "downcase" | "presence"
                ) =>
        {
            c.recv.as_ref().is_some_and(input_read)
        }
        Node::Call(c) if c.args.is_empty() && c.block.is_none() => {
            matches!(c.recv.as_ref(), Some(Node::Ivar(_) | Node::SelfRef))
        }
        _ => false,
    }
}

/// `cond` with local `name` replaced by `value` (one level of calls deep is enough for the
/// conditions a walker splits).
fn replace_lvar(cond: &Node, name: &str, value: &Node) -> Node {
    match cond {
        Node::Lvar(n) if n == name => value.clone(),
        other => other.map_children(&mut |child| replace_lvar(child, name, value)),
    }
}

/// The class a call chain starts from (`Attachment.where(..).first` → `Attachment`).
fn root_class(value: &Node) -> Option<&str> {
    match value {
        Node::Call(c) => match c.recv.as_ref()? {
            // A class (`IssueRelation`), not a constant (`IssueRelation::TYPES`), and a
            // finder or constructor (`find_by_token`, `new`), not a setting read
            // (`Configuration[key]`) or a module's service (`Rails.application`).
            Node::Const { path, .. } if condition::makes_a_record(&c.name) => {
                let last = path.rsplit("::").next().unwrap_or(path);
                last.chars()
                    .any(|ch| ch.is_ascii_lowercase())
                    .then_some(path.as_str())
            }
            Node::Const { .. } => None,
            inner => root_class(inner),
        },
        _ => None,
    }
}

/// What a variable in a condition stands for (see [`Walker::local_value`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Local {
    /// A local holding the value of a condition.
    Condition(Node),
    /// A variable assigned from a lookup that raises instead of returning nil.
    NeverNil,
}

/// The methods `ActiveModel::Lint` requires of every model (J23).
const ACTIVE_MODEL_API: &[&str] = &[
    "to_key",
    "to_param",
    "to_model",
    "to_partial_path",
    "model_name",
    "persisted?",
    "errors",
];

/// `Model.find(id)`, `scope.find!`, `find_by!`, `create!`, `X.new`: never nil.
fn never_nil(value: &Node) -> bool {
    match value {
        Node::Call(c) => {
            matches!(
                c.name.as_str(),
                "find"
                    | "find_by!"
                    | "first!"
                    | "last!"
                    | "take!"
                    | "create!"
                    | "new"
                    | "find_or_create_by!"
            ) && c.recv.is_some()
                && c.block.is_none()
                && !(c.name == "find" && c.block.is_none() && c.args.is_empty())
        }
        _ => false,
    }
}

/// A literal or variable: assigning it has no effect of its own.
pub(super) fn is_plain_value(node: &Node) -> bool {
    node.is_literal()
        || matches!(
            node,
            Node::Lvar(_) | Node::Ivar(_) | Node::Other { .. } | Node::Array(_) | Node::Hash(_)
        )
}

/// What an assignment in the middle of a method leaves for the rest: `title set to title
/// option`, `deleted increased by 1`. None for targets other than variables and for
/// operators without words (`||=`, `*=`).
fn sets_text(
    target: &crate::index::body::Target,
    op: &crate::index::body::AssignOp,
    value: &Node,
) -> Option<String> {
    use crate::index::body::{AssignOp, Target};
    let (Target::Lvar(name) | Target::Ivar(name)) = target else {
        return None;
    };
    // `changesets = changesets` (a helper's path that keeps its argument) changes nothing.
    if matches!(value, Node::Lvar(v) | Node::Ivar(v) if v == name) {
        return None;
    }
    // The value a `map` block keeps (see `blocks::block_statements`).
    if name == super::iteration::MAPPED_ELEMENT {
        return Some(format!(
            "each element mapped to {}",
            super::phrase::noun(value)
        ));
    }
    let how = match op {
        AssignOp::Set => "set to",
        AssignOp::Op(o) if o == "+" => "increased by",
        AssignOp::Op(o) if o == "-" => "decreased by",
        _ => return None,
    };
    Some(format!(
        "{} {how} {}",
        grammar::words(name),
        super::phrase::noun(value)
    ))
}

/// A value a behavior text can say (`1`, `:full`, `"Admin"`, `DEFAULT_RULES`): not a
/// collection, an expression or another variable (`page set to p` says nothing).
fn said_value(node: &Node) -> bool {
    if let Node::Str(text) = node {
        return said_text(text);
    }
    matches!(
        node,
        Node::Sym(_)
            | Node::Int(_)
            | Node::Float(_)
            | Node::Nil
            | Node::True
            | Node::False
            | Node::Const { .. }
    )
}

/// A string built by interpolation (`"#{text} (draft)"`), said `the formatted text`: a
/// path that builds it reads apart from one that keeps the plain value.
fn formatted_text(node: &Node) -> bool {
    matches!(node, Node::Other { text, .. }
        if text.starts_with('"') || text.starts_with("%(") || text.starts_with("%Q"))
}

/// A string literal short and plain enough to quote in a behavior: no interpolation or
/// quotes, and no word the behavior rules rewrite (`can't find story` would read `is able
/// to't find story`).
fn said_text(text: &str) -> bool {
    text.len() <= 24
        && !text.contains(['"', '\'', '`', '#', '\n', '\\'])
        && text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .all(|w| w == "NOT" || !grammar::rewritten(w))
}

/// Collects, by line and text, the calls under `node` whose value nothing uses: statements
/// before the last of a sequence, the last ones of branches whose value is not used, the
/// bodies of `each`-like blocks. `used` says whether `node`'s own value is used.
fn discarded_calls(node: &Node, used: bool, out: &mut std::collections::HashSet<(u32, String)>) {
    match node {
        Node::Seq(items) => {
            let last = items.len().saturating_sub(1);
            for (i, item) in items.iter().enumerate() {
                discarded_calls(item, used && i == last, out);
            }
        }
        Node::If(i) => {
            discarded_calls(&i.then, used, out);
            if let Some(e) = &i.els {
                discarded_calls(e, used, out);
            }
        }
        Node::Case(c) => {
            for w in &c.whens {
                discarded_calls(&w.body, used, out);
            }
            if let Some(e) = &c.els {
                discarded_calls(e, used, out);
            }
        }
        Node::Begin(b) => {
            discarded_calls(&b.body, used && b.els.is_none(), out);
            for r in &b.rescues {
                discarded_calls(&r.body, used, out);
            }
            if let Some(e) = &b.els {
                discarded_calls(e, used, out);
            }
            if let Some(e) = &b.ensure {
                discarded_calls(e, false, out);
            }
        }
        Node::Call(c) => {
            if let Some(block) = &c.block {
                let block_used = !super::iteration::discards_block_value(&c.name);
                discarded_calls(&block.body, block_used, out);
            }
            if !used {
                out.insert((c.line, node.render()));
            }
        }
        _ => {}
    }
}

/// The text of a call in the middle of a method whose value nothing uses, where the text
/// written for it says what it returns: `vote.story` reads the story (`returns vote
/// story` would be false: the method goes on), `record.valid?` checks.
fn discarded_call(stmt: &Node, description: &str) -> Option<String> {
    let Node::Call(call) = stmt else {
        return None;
    };
    if let Some(whether) = description.strip_prefix("returns whether ") {
        return Some(grammar::behavior(&format!("checks whether {whether}")));
    }
    if let Some(built) = description
        .strip_prefix("returns a new ")
        .filter(|_| call.name == "new")
    {
        return Some(grammar::behavior(&format!("builds a new {built}")));
    }
    // Only a text made of the call's own words (`returns v story`, `returns Telebugs
    // message`): one that says what the value means (`returns the matching changesets`,
    // from a private method inlined where its value is assigned) stays.
    let name = grammar::words(call.name.trim_end_matches(['?', '!', '=']));
    let said = description.strip_prefix("returns ")?;
    if name.is_empty()
        || !name.chars().all(|c| c.is_alphanumeric() || c == ' ')
        || !said.ends_with(name.as_str())
    {
        return None;
    }
    Some(grammar::behavior(&match &call.recv {
        Some(Node::Const { path, .. }) => format!("calls {name} on {path}"),
        Some(recv) => format!(
            "calls {name} on {}",
            super::phrase::with_article(&super::phrase::noun(recv))
        ),
        None => format!("calls {name}"),
    }))
}

/// The last expression of a branch.
fn last_value(node: &Node) -> Node {
    statements(node).pop().unwrap_or(Node::Nil)
}

/// An expression whose value is true or false (not a value with a fallback).
pub(crate) fn boolean_ish(node: &Node) -> bool {
    match node {
        Node::True | Node::False | Node::Not(_) => true,
        Node::And(a, b) | Node::Or(a, b, _) => boolean_ish(a) && boolean_ish(b),
        Node::Call(c) => {
            c.name.ends_with('?')
                || matches!(c.name.as_str(), ">=" | ">" | "<=" | "<" | "==" | "!=")
                || (c.name == "try"
                    && matches!(c.args.first(), Some(Node::Sym(s)) if s.ends_with('?')))
        }
        _ => false,
    }
}

/// Whether statements decide something themselves (a conditional, a `case`, a `begin`):
/// a body walked a second time under another value would copy its characteristics.
pub fn decides_here(stmts: &[Node]) -> bool {
    stmts
        .iter()
        .any(|s| matches!(s, Node::If(_) | Node::Case(_) | Node::Begin(_)))
}

/// What Ruby answers for a literal's `nil?` and `blank?`.
struct Blankness {
    nil: bool,
    blank: bool,
}

fn literal_blankness(node: &Node) -> Option<Blankness> {
    let (nil, blank) = match node {
        Node::Nil => (true, true),
        Node::False => (false, true),
        Node::Str(s) => (false, s.trim().is_empty()),
        Node::True | Node::Int(_) | Node::Float(_) | Node::Sym(_) => (false, false),
        // A class or module (`Stream::Activity`, bound from a call that passes it) is
        // never nil; a value constant (`DEBUG`, `DEFAULT_LIMIT`) may be anything.
        Node::Const { path, .. } if class_like(path) => (false, false),
        _ => return None,
    };
    Some(Blankness { nil, blank })
}

/// Whether a constant path names a class or module by Ruby's convention: its last segment
/// is CamelCase (`Activity`, `Stream::Activity`), not a SCREAMING_CASE value.
pub(super) fn class_like(path: &str) -> bool {
    let last = path.rsplit("::").next().unwrap_or(path);
    last.starts_with(|c: char| c.is_ascii_uppercase())
        && last.chars().any(|c| c.is_ascii_lowercase())
}

/// `:datetime == :date`, `Photo == Post`: an equality between two values known where
/// they are written (a literal or class bound from the one call that reaches a helper).
/// `None` when either side is not such a value, or when Ruby could answer either way
/// (`1 == 1.0`, `Post == ::Post`).
fn literal_equality(a: &Node, b: &Node) -> Option<bool> {
    let last = |p: &'_ str| p.rsplit("::").next().unwrap_or(p).to_owned();
    match (a, b) {
        (Node::Const { path: x, .. }, Node::Const { path: y, .. }) if x == y => Some(true),
        (Node::Const { path: x, .. }, Node::Const { path: y, .. }) => {
            (class_like(x) && class_like(y) && last(x) != last(y)).then_some(false)
        }
        (Node::Int(_), Node::Float(_)) | (Node::Float(_), Node::Int(_)) => None,
        _ if inline::is_literal(a) && inline::is_literal(b) => Some(a == b),
        _ => None,
    }
}

/// The statements of a body or branch.
pub fn statements(node: &Node) -> Vec<Node> {
    node.statements()
}

/// `return cond ? a : b` → `cond ? (return a) : (return b)`.
pub(super) fn wrap_returns(node: &Node, line: u32) -> Node {
    match node {
        Node::If(i) => {
            let mut i = i.clone();
            i.then = wrap_branch(&i.then, line);
            i.els = Some(match &i.els {
                Some(e) => wrap_branch(e, line),
                None => Node::Return { value: None, line },
            });
            Node::If(i)
        }
        Node::Case(c) => {
            let mut c = c.clone();
            for w in &mut c.whens {
                w.body = wrap_branch(&w.body, line);
            }
            c.els = Some(match &c.els {
                Some(e) => wrap_branch(e, line),
                None => Node::Return { value: None, line },
            });
            Node::Case(c)
        }
        other => Node::Return {
            value: Some(Box::new(other.clone())),
            line,
        },
    }
}

fn wrap_branch(node: &Node, line: u32) -> Node {
    let mut stmts = statements(node);
    match stmts.pop() {
        Some(last) => {
            stmts.push(wrap_returns(&last, line));
            Node::Seq(stmts)
        }
        None => Node::Return { value: None, line },
    }
}

/// `x = if a then 1 elsif b then 2 end` as `if a then x = 1 elsif b then x = 2 else x = nil
/// end` (a `case` likewise, arm by arm): each arm's statements kept, its last one assigned.
/// A writer call (`h[k] = v`, `record.kind = v`) whose value is a `case`: the target as
/// written and that value.
pub(super) fn writer_of_case(c: &Call) -> Option<(crate::index::body::Target, &Node)> {
    let writer = c.name == "[]="
        || (c.name.ends_with('=')
            && !matches!(c.name.as_str(), "==" | "!=" | "<=" | ">=" | "===")
            && c.name
                .chars()
                .next()
                .is_some_and(|ch| ch.is_alphabetic() || ch == '_'));
    if !writer || c.recv.is_none() || c.block.is_some() {
        return None;
    }
    let (value, keys) = c.args.split_last()?;
    if !matches!(value, Node::Case(_)) {
        return None;
    }
    let recv = c.recv.as_ref().map(Node::render).unwrap_or_default();
    let text = if c.name == "[]=" {
        let keys: Vec<String> = keys.iter().map(Node::render).collect();
        format!("{recv}[{}]", keys.join(", "))
    } else {
        format!("{recv}.{}", c.name.trim_end_matches('='))
    };
    Some((crate::index::body::Target::Other(text), value))
}

pub(super) fn wrap_assigns(
    node: &Node,
    target: &crate::index::body::Target,
    op: &crate::index::body::AssignOp,
    line: u32,
) -> Node {
    match node {
        Node::If(i) => {
            let mut i = i.clone();
            i.then = assign_last(&i.then, target, op, line);
            i.els = Some(match &i.els {
                Some(e @ Node::If(inner)) if inner.elsif => wrap_assigns(e, target, op, line),
                Some(e) => assign_last(e, target, op, line),
                None => assign_last(&Node::Nil, target, op, line),
            });
            Node::If(i)
        }
        Node::Case(c) => {
            let mut c = c.clone();
            for w in &mut c.whens {
                w.body = assign_last(&w.body, target, op, line);
            }
            // No `else`: nothing matched leaves `nil` (a `case ... in` raises, and says so
            // itself).
            c.els = match &c.els {
                Some(e) => Some(assign_last(e, target, op, line)),
                None if c.pattern => None,
                None => Some(assign_last(&Node::Nil, target, op, line)),
            };
            Node::Case(c)
        }
        other => assign_last(other, target, op, line),
    }
}

/// `node`'s statements, the last one's value assigned to `target`.
pub(super) fn assign_last(
    node: &Node,
    target: &crate::index::body::Target,
    op: &crate::index::body::AssignOp,
    line: u32,
) -> Node {
    let mut stmts = statements(node);
    let last = stmts.pop().unwrap_or(Node::Nil);
    stmts.push(Node::Assign {
        target: target.clone(),
        op: op.clone(),
        value: Box::new(last),
        line,
    });
    match stmts.len() {
        1 => stmts.pop().unwrap_or(Node::Nil),
        _ => Node::Seq(stmts),
    }
}

/// A controller response (`render`, `redirect_to`, `head`).
pub(crate) fn is_response(node: &Node, responders: Option<&super::outcome::Responders>) -> bool {
    match node {
        Node::Call(c) => {
            c.recv.is_none()
                && (matches!(
                    c.name.as_str(),
                    "render"
                        | "redirect_to"
                        | "redirect_back"
                        | "redirect_back_or_to"
                        | "head"
                        | "respond_to"
                        | "send_data"
                        | "send_file"
                ) || responders.is_some_and(|r| r.get(&c.name).is_some()))
        }
        Node::And(a, _) => is_response(a, responders),
        Node::Seq(items) => items.last().is_some_and(|l| is_response(l, responders)),
        _ => false,
    }
}

/// The lines an `If` spans, for `source_line`.
pub fn lines_of(i: &If) -> (u32, u32) {
    i.lines
}

/// `a && b`, `a || b`, or their negation: an expression that combines conditions.
fn compound(node: &Node) -> bool {
    match node {
        Node::And(..) | Node::Or(..) => true,
        Node::Not(inner) => compound(inner),
        _ => false,
    }
}

/// A call whose answer is never false or nil: ActiveModel's `errors.add` (the messages).
fn always_truthy(node: &Node) -> bool {
    let Node::Call(c) = node else {
        return false;
    };
    c.name == "add"
        && !c.safe_nav
        && matches!(c.recv.as_ref(), Some(Node::Call(r)) if r.name == "errors" && r.args.is_empty())
}

/// Whether `node` is statements that only log or report (`logger&.warn(...)`,
/// `Rails.logger.info { ... }`, `Kernel.warn`, `warn "..."`, `Sentry.capture_message`,
/// `Rails.error.report`): what a branch of them does is no outcome a spec asserts (the
/// labels drop them as "logging only").
fn logging_only(node: &Node) -> bool {
    let stmts = statements(node);
    !stmts.is_empty() && stmts.iter().all(logs)
}

/// The conditionals that only log in a body whose only effect is logging (a
/// configuration check that warns: `warn unless unknown.empty?`): there the warning is
/// the contract a spec asserts, not a branch beside the work. Elsewhere a logging-only
/// conditional decides nothing (the method goes on the same way).
fn warning_conditionals(body: &Node, out: &mut std::collections::HashSet<u32>) {
    /// Whether `stmts` do nothing but log, assign locals, return and branch; counts logs.
    fn only_logs(stmts: &[Node], logged: &mut usize) -> bool {
        stmts.iter().all(|stmt| match stmt {
            Node::Assign {
                target: crate::index::body::Target::Lvar(_),
                ..
            }
            | Node::Return { .. }
            | Node::Nil => true,
            Node::If(i) => {
                only_logs(&statements(&i.then), logged)
                    && i.els
                        .as_ref()
                        .is_none_or(|e| only_logs(&statements(e), logged))
            }
            other if logs(other) => {
                *logged += 1;
                true
            }
            _ => false,
        })
    }
    fn collect(stmts: &[Node], out: &mut std::collections::HashSet<u32>) {
        for stmt in stmts {
            if let Node::If(i) = stmt {
                if logging_only(&i.then) && i.els.as_ref().is_none_or(logging_only) {
                    out.insert(i.cond_line);
                }
                collect(&statements(&i.then), out);
                if let Some(e) = &i.els {
                    collect(&statements(e), out);
                }
            }
        }
    }
    let stmts = statements(body);
    let mut logged = 0;
    if only_logs(&stmts, &mut logged) && logged > 0 {
        collect(&stmts, out);
    }
}

/// One logging or reporting call ([`logging_only`]).
fn logs(node: &Node) -> bool {
    const LEVELS: &[&str] = &["debug", "info", "warn", "error", "fatal", "unknown", "log"];
    const REPORTERS: &[&str] = &[
        "Sentry",
        "Raven",
        "Rollbar",
        "Honeybadger",
        "Bugsnag",
        "Airbrake",
        "Appsignal",
    ];
    let Node::Call(c) = node else {
        return false;
    };
    let logger = |recv: &Node| match recv {
        Node::Call(r) => r.name == "logger" || r.name.ends_with("_logger"),
        Node::Lvar(name) | Node::Ivar(name) => name == "logger" || name.ends_with("_logger"),
        Node::Const { path, .. } => path.ends_with("Logger"),
        _ => false,
    };
    match &c.recv {
        None => c.name == "warn",
        Some(recv) => {
            (LEVELS.contains(&c.name.as_str()) && logger(recv))
                || matches!(recv, Node::Const { path, .. } if path == "Kernel" && c.name == "warn")
                || matches!(recv, Node::Const { path, .. } if REPORTERS.contains(&path.as_str()))
                || (c.name == "report"
                    && matches!(recv, Node::Call(r) if r.name == "error"
                        && matches!(&r.recv, Some(Node::Const { path, .. }) if path == "Rails")))
        }
    }
}

/// `defined?(SomeConstant)` (a constant path, or a method on one: `defined?(::Psych::
/// Exception)`, `defined?(ActiveRecord.yaml_column_permitted_classes)`) asks what the
/// process loaded, which a spec does not set up: the library or the Rails version the
/// suite runs with has it. `Some(true)` for such a test, `Some(false)` for its negation.
/// `defined?(@x)` (memoization), `defined?(local)` and `defined?(a_method)` are not.
fn loaded_constant(node: &Node) -> Option<bool> {
    match node {
        Node::Not(inner) => loaded_constant(inner).map(|b| !b),
        Node::Other { text, .. } => {
            let arg = text.strip_prefix("defined?")?.trim();
            let arg = arg
                .strip_prefix('(')
                .and_then(|a| a.strip_suffix(')'))
                .unwrap_or(arg)
                .trim();
            let arg = arg.strip_prefix("::").unwrap_or(arg);
            let (path, method) = match arg.split_once('.') {
                Some((path, method)) => (path, Some(method)),
                None => (arg, None),
            };
            let constant = |part: &str| {
                part.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            };
            let method_ok = method.is_none_or(|m| {
                !m.is_empty() && m.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
            (path.split("::").all(constant) && method_ok).then_some(true)
        }
        _ => None,
    }
}

/// A condition with its `defined?(Constant)` parts taken as true ([`loaded_constant`]):
/// `Ok(truth)` when that decides it, `Err(rest)` with what is left to ask, `None` when it
/// holds none.
fn without_loaded(node: &Node) -> Option<Result<bool, Node>> {
    if let Some(truth) = loaded_constant(node) {
        return Some(Ok(truth));
    }
    let part = |orig: &Node| without_loaded(orig).unwrap_or_else(|| Err(orig.clone()));
    match node {
        Node::And(a, b) => {
            if without_loaded(a).is_none() && without_loaded(b).is_none() {
                return None;
            }
            Some(match (part(a), part(b)) {
                (Ok(false), _) | (_, Ok(false)) => Ok(false),
                (Ok(true), rest) | (rest, Ok(true)) => rest,
                (Err(x), Err(y)) => Err(Node::And(Box::new(x), Box::new(y))),
            })
        }
        Node::Or(a, b, line) => {
            if without_loaded(a).is_none() && without_loaded(b).is_none() {
                return None;
            }
            Some(match (part(a), part(b)) {
                (Ok(true), _) | (_, Ok(true)) => Ok(true),
                (Ok(false), rest) | (rest, Ok(false)) => rest,
                (Err(x), Err(y)) => Err(Node::Or(Box::new(x), Box::new(y), *line)),
            })
        }
        _ => None,
    }
}

/// The statements an `if` comes to once what the process loaded is taken as there
/// ([`without_loaded`]): the branch it decides, or the `if` over what is left to ask.
fn assume_loaded(cond: &If) -> Option<Vec<Node>> {
    match without_loaded(&cond.cond)? {
        Ok(truth) => {
            let taken = if truth != cond.unless {
                Some(&cond.then)
            } else {
                cond.els.as_ref()
            };
            Some(taken.map(statements).unwrap_or_default())
        }
        Err(rest) => Some(vec![Node::If(Box::new(If {
            cond: rest,
            ..cond.clone()
        }))]),
    }
}

/// A clause's words: its subject, then what holds of it (`kind equal to "a"`).
fn clause_text(subject: &str, state: &str) -> String {
    if subject.is_empty() {
        state.to_string()
    } else {
        format!("{subject} {state}")
    }
}

/// The false value of `a || b || ...`: `neither a nor b`; when a part is itself negated
/// (`active || !application_id`), each part's opposite joined by `and` (`NOT active and
/// application id`, the negated parts first), never `neither ... nor NOT ...`.
fn neither_nor(init: &[String], last: &str) -> String {
    let negated = |c: &str| c.starts_with("NOT ");
    // A part that is itself a compound (`NOT editing and NOT editor or ...`) has no
    // one-word opposite: `neither ... nor ...` says it without twisting it.
    let compound = |c: &str| {
        c.contains(" and ") || c.contains(" or ") || c.contains(", ") || c.contains(" nor ")
    };
    let all: Vec<&str> = init.iter().map(String::as_str).chain([last]).collect();
    if all.iter().any(|c| compound(c)) || !all.iter().any(|c| negated(c)) {
        return format!("neither {} nor {last}", init.join(", "));
    }
    let opposite = |c: &str| match c.strip_prefix("NOT ") {
        Some(rest) => rest.to_string(),
        None => format!("NOT {c}"),
    };
    let mut parts: Vec<String> = init.iter().map(|c| opposite(c)).collect();
    parts.push(opposite(last));
    // The false side leads with what is not (`NOT pending reconfirmation and confirmed`):
    // a reader sees at once which way the context goes.
    parts.sort_by_key(|p| !p.starts_with("NOT "));
    parts.join(" and ")
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn a_final_guarded_action_is_the_guard_then_the_action() {
        let m = analyze_one(
            "class JobCleaner\n  def cleanup\n    !running? && @job.destroy\n  end\n\n  private\n\n  def running?\n    @job.started_at.present? && @job.finished_at.nil?\n  end\nend\n",
            "cleanup",
        );
        assert_eq!(
            flat(&m),
            vec!["1 running [boolean] true:running => returns false | false:NOT running -> destroys the job"]
        );
    }

    #[test]
    fn one_returned_predicate_is_examples_and_a_returned_combination_decides() {
        // `https?` and `allows?` (after its guard) return one test: their true and false
        // are examples of one context. `both?` combines two: each is a characteristic.
        let src = "class Link\n  def https?\n    uri.start_with?(\"https://\")\n  end\n\n  def self.allows?(email)\n    candidates = domains(email)\n    return false if candidates.empty?\n    exists?(domain: candidates)\n  end\n\n  def both?\n    published? && visible?\n  end\nend\n";
        assert!(flat(&analyze_one(src, "https?")).is_empty());
        assert_eq!(
            flat(&analyze_one(src, "allows?")),
            vec!["1 candidates [presence] present:candidates present -> returns whether exists | nil:candidates missing => returns false"]
        );
        assert_eq!(flat(&analyze_one(src, "both?")).len(), 2);
    }

    #[test]
    fn a_predicate_returning_a_safe_navigated_predicate_has_three_outcomes() {
        let src = "module TokenHelpers\n  def valid_token?\n    token&.acceptable?(@scopes)\n  end\n\n  def token_name\n    token&.name\n  end\nend\n";
        let m = analyze_one(src, "valid_token?");
        let plan = flat(&m);
        assert_eq!(plan.len(), 2, "{plan:?}");
        assert!(plan[0].starts_with("1 token [presence]"), "{plan:?}");
        assert!(plan[0].contains("=> returns false"), "{plan:?}");
        assert!(
            plan[1].starts_with("2 token_acceptable [boolean]"),
            "{plan:?}"
        );
        // A value, not a predicate: present or missing.
        assert_eq!(flat(&analyze_one(src, "token_name")).len(), 1);
    }

    #[test]
    fn a_check_for_the_active_model_api_is_decided() {
        // A form builder's error notice: every model has `errors`; whether it has
        // `published_at` is a real question (J23 names only the ActiveModel API).
        let src = "class ErrorNotice\n  def render\n    if object && object.respond_to?(:errors) && object.errors.present?\n      content_tag(:p, message)\n    end\n  end\n\n  def stamp\n    object.respond_to?(:published_at) ? object.published_at : nil\n  end\nend\n";
        let m = analyze_one(src, "render");
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["object", "object_errors"], "{:?}", flat(&m));
        assert!(
            m.notes.iter().any(|n| n.starts_with("J23")),
            "{:?}",
            m.notes
        );
        let m = analyze_one(src, "stamp");
        assert_eq!(m.characteristics.len(), 1, "{:?}", flat(&m));
    }

    #[test]
    fn a_local_holding_a_keyed_read_asks_what_the_read_asked() {
        // simple_form's form helper: the caller asked `options[:html].key?(:class)`; its
        // helper asks it again through `html_options = options[:html]`.
        let m = analyze_one(
            "class FormHelper\n  def form_for(record, options)\n    if options[:html].key?(:class)\n      options[:html][:class]\n    else\n      css_class(record, options)\n    end\n  end\n\n  private\n\n  def css_class(record, options)\n    html_options = options[:html]\n    if html_options.key?(:class)\n      html_options[:class]\n    elsif record.is_a?(String)\n      options[:as] || record\n    else\n      dom_class(record)\n    end\n  end\nend\n",
            "form_for",
        );
        let plan = flat(&m);
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["html_option_key", "record_is_string", "as_option"],
            "{plan:?}"
        );
    }

    #[test]
    fn a_type_test_through_safe_navigation_asks_the_type_only() {
        // nil is of no class the test names: `user&.is_a?(User)` is false for nil.
        let src = "module TimeHelper\n  def time_zone_for(user)\n    if user&.is_a?(User) && user.preference.time_zone\n      user.preference.time_zone\n    else\n      Time.zone.name\n    end\n  end\n\n  def nil_or_user(user)\n    user&.is_a?(NilClass) ? :none : :some\n  end\nend\n";
        let plan = flat(&analyze_one(src, "time_zone_for"));
        assert_eq!(plan.len(), 2, "{plan:?}");
        // Through a chain: nil at any link is of no class either.
        let chain = "class PeriodItem\n  def group_ids\n    invoice&.recipient&.is_a?(Group) ? invoice.recipient_id : invoice&.group_id\n  end\nend\n";
        let lines = flat(&analyze_one(chain, "group_ids"));
        assert!(
            lines[0].starts_with("1 invoice_recipient_is_group [boolean]"),
            "{lines:?}"
        );
        assert!(
            plan[0].starts_with("1 user_is_a_user [boolean]"),
            "{plan:?}"
        );
        assert!(
            !plan.iter().any(|l| l.contains(" user [presence]")),
            "{plan:?}"
        );
        // `nil.is_a?(NilClass)` is true: there the `&.` decides.
        let plan = flat(&analyze_one(src, "nil_or_user"));
        assert!(plan[0].starts_with("1 user [presence]"), "{plan:?}");
    }

    #[test]
    fn a_class_case_equality_is_a_type_test() {
        // `Hash === value` is `value.is_a?(Hash)`; a value constant's `===` is its own.
        let src = "class Builder\n  def build(attrs, k)\n    if Hash === attrs[k]\n      nested(attrs[k])\n    elsif EMAIL_FORMAT === attrs[k]\n      email(attrs[k])\n    end\n  end\nend\n";
        let plan = flat(&analyze_one(src, "build"));
        assert!(
            plan[0].contains("[boolean]") && plan[0].contains("of type Hash"),
            "{plan:?}"
        );
        assert!(!plan[1].contains("of type"), "{plan:?}");
    }

    #[test]
    fn self_and_its_class_are_always_there() {
        let src = "module Permissions\n  def remove_permissions\n    to_remove = if id && self.class\n      Permission.where(asset_id: id, asset_type: self.class.name)\n    else\n      []\n    end\n    to_remove.each(&:destroy)\n  end\nend\n";
        let plan = flat(&analyze_one(src, "remove_permissions"));
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].starts_with("1 id [presence]"), "{plan:?}");
    }

    #[test]
    fn two_tests_that_read_alike_are_told_apart_by_their_arguments() {
        let m = analyze_one(
            "class DonationsController < ApplicationController\n  def destroy\n    return head(:forbidden) unless current_user.has_cached_role?(Role::SUPER_ADMIN) || current_user.has_cached_role?(Role::ORG_ADMIN, current_organization)\n    Donation.find(params[:id]).destroy\n  end\nend\n",
            "destroy",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].contains("SUPER_ADMIN"), "{plan:?}");
        assert!(plan[0].contains("ORG_ADMIN"), "{plan:?}");
    }

    #[test]
    fn a_one_line_pattern_match_on_literals_is_a_test_of_the_value() {
        let m = analyze_one(
            "class EventPolicy\n  def column_for(type)\n    return :user_id if type in \"PostApproval\" | \"PostDisapproval\"\n\n    :creator_id\n  end\nend\n",
            "column_for",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(
            plan[0].contains("type equal to \"PostApproval\" or \"PostDisapproval\""),
            "{plan:?}"
        );
    }

    #[test]
    fn a_check_that_only_warns_keeps_its_warnings() {
        // A configuration check whose whole work is warnings: the warning is what a spec
        // asserts (`expect(Rails.logger).to receive(:warn)`), and the option it reads
        // (`instance_variable_defined?`) is named after the option.
        let src = "module Validations\n  def validate!\n    validate_methods_registered\n    @limit = 100 if limit > 100\n  end\n\n  private\n\n  def validate_methods_registered\n    return unless instance_variable_defined?(:@client_authentication)\n\n    unknown = client_authentication.reject { |name| Registry.get(name) }\n    unless unknown.empty?\n      ::Rails.logger.warn(\"unknown methods: #{unknown.join(', ')}\")\n    end\n  end\nend\n";
        let m = analyze_one(src, "validate!");
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["client_authentication_set", "unknown", "limit"],
            "{:?}",
            flat(&m)
        );
    }

    #[test]
    fn a_branch_that_only_logs_decides_nothing() {
        let m = analyze_one(
            "class Reifier\n  def reify(version, attrs)\n    attrs.each do |k, v|\n      version.logger&.warn(\"no attribute #{k}\")\n    end\n    if attrs.empty?\n      Rails.logger.info { \"nothing to reify\" }\n      Sentry.capture_message(\"empty\")\n    end\n    return nil if version.nil?\n    version.item\n  end\nend\n",
            "reify",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].starts_with("1 version"), "{plan:?}");
        // A branch that logs and does something else still decides.
        let m = analyze_one(
            "class Importer\n  def import(row)\n    if row.invalid?\n      Rails.logger.warn(\"skipped\")\n      return false\n    end\n    row.save!\n  end\nend\n",
            "import",
        );
        assert_eq!(flat(&m).len(), 1, "{:?}", flat(&m));
    }

    #[test]
    fn what_the_process_loaded_is_no_characteristic() {
        let m = analyze_one(
            "module Serializers\n  class Yaml\n    def load(text)\n      if defined?(::Psych::Exception) && text.empty?\n        raise ArgumentError\n      end\n      return :legacy unless defined?(ActiveRecord.yaml_column_permitted_classes)\n      YAML.load(text)\n    end\n  end\nend\n",
            "load",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].starts_with("1 text"), "{plan:?}");
        assert!(plan[0].contains("raises ArgumentError"), "{plan:?}");
        assert!(plan[0].contains("loads the YAML"), "{plan:?}");
        // Memoization, a local and a method are asked as before.
        let m = analyze_one(
            "class Report\n  def cached_rows(scope)\n    return :none unless defined?(current_user)\n    scope.rows\n  end\nend\n",
            "cached_rows",
        );
        assert_eq!(flat(&m).len(), 1, "{:?}", flat(&m));
    }

    #[test]
    fn adding_an_error_then_returning_decides_nothing() {
        let m = analyze_one(
            "class Order < ApplicationRecord\n  def fund!\n    if payments.sum(:amount) != total\n      errors.add(:base, \"unable to fund\") && (return false)\n    end\n    true\n  end\nend\n",
            "fund!",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].starts_with("1 sum_of_payments"), "{plan:?}");
        assert!(plan[0].contains("=> returns false"), "{plan:?}");
    }

    #[test]
    fn a_chain_of_three_tests_is_one_boolean_that_lists_them() {
        let m = analyze_one(
            "class ErrorReport\n  def should_email?\n    problem_was_resolved ||\n      app.email_at_notices.include?(0) ||\n      app.email_at_notices.include?(@problem.notices_count)\n  end\nend\n",
            "should_email?",
        );
        assert_eq!(
            flat(&m),
            vec!["1 problem_was_resolved_or_app_email_at_notices_include_or_app_email_at_notices_include [boolean] true:problem was resolved present, app email at notices including 0 or app email at notices including problem notices count -> returns true | false:neither problem was resolved present, app email at notices including 0 nor app email at notices including problem notices count => returns false"]
        );
    }

    #[test]
    fn the_false_side_of_an_or_with_a_negated_part_says_each_opposite() {
        let m = analyze_one(
            "class Participation\n  def listed\n    if active? || !application.submitted?\n      :listed\n    else\n      :pending\n    end\n  end\nend\n",
            "listed",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(!plan[0].contains("nor NOT"), "{plan:?}");
        assert!(
            plan[0].contains("false:NOT active and submitted application"),
            "{plan:?}"
        );
        // A part that is a compound keeps `neither ... nor`: its opposite is no `NOT`.
        let m = analyze_one(
            "class Story\n  def editable?\n    if new_record? || (!editing_from_suggestions && (!editor || editor.id == user_id))\n      true\n    else\n      false\n    end\n  end\nend\n",
            "editable?",
        );
        let plan = flat(&m);
        assert!(
            plan.iter()
                .any(|p| p.contains("false:neither new record nor ")),
            "{plan:?}"
        );
    }

    #[test]
    fn a_value_rebuilt_under_a_condition_reads_apart() {
        let m = analyze_one(
            "module PagesHelper\n  def page_title(page)\n    text = page.name\n    text = \"#{text} (draft)\" if page.draft?\n    text\n  end\nend\n",
            "page_title",
        );
        assert_eq!(
            flat(&m),
            vec!["1 page_draft [boolean] true:draft page -> returns the text with text set to the formatted text | false:NOT draft page -> returns the text"]
        );
    }

    #[test]
    fn a_writer_whose_value_is_a_case_assigns_on_each_branch() {
        // `result[gate.key] = case ...` inside the loop that builds the answer: the gate's
        // type decides what is read, as `value = case ...` would.
        let src = "class Store\n  def get(feature)\n    result = {}\n    feature.gates.each do |gate|\n      result[gate.key] =\n        case gate.data_type\n        when :boolean, :integer\n          read gate.key\n        when :set\n          members gate.key\n        else\n          raise \"unsupported\"\n        end\n    end\n    result\n  end\nend\n";
        let m = analyze_one(src, "get");
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["gate_data_type"], "{:?}", flat(&m));
        assert_eq!(m.characteristics[0].values.len(), 4, "{:?}", flat(&m));
    }

    #[test]
    fn an_entry_deleted_from_a_nested_collection_reads_as_removed_from_it() {
        let src = "class Memory\n  def disable(feature, gate, thing)\n    case gate.data_type\n    when :set\n      @source[feature.key][gate.key].delete thing.value\n    else\n      @source[feature.key].delete(gate.key)\n    end\n    true\n  end\n\n  def drop(user)\n    user.delete\n  end\nend\n";
        let m = analyze_one(src, "disable");
        let text = flat(&m).join(" ");
        assert!(
            text.contains("removes thing value from the source feature key gate key"),
            "{text}"
        );
        assert!(
            text.contains("removes gate key from the source feature key"),
            "{text}"
        );
        assert!(!text.contains("[]"), "{text}");
        let m = analyze_one(src, "drop");
        assert_eq!(
            m.outcome.as_ref().map(|o| o.description.as_str()),
            Some("destroys the user"),
            "{:?}",
            flat(&m)
        );
    }
}
