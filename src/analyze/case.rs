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

use super::condition;
use super::flow::{statements, At, End, Slot, Walker};
use super::model::CharType;
use super::rules::Rule;

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
                    let attr = super::grammar::predicate_phrase(attr);
                    (recv, (value, format!("{attr} {words}")))
                }
                None => {
                    if !c.name.ends_with('?') || !c.args.is_empty() || c.block.is_some() {
                        return None;
                    }
                    let kind = super::grammar::predicate_phrase(&c.name);
                    (
                        c.recv.as_ref()?,
                        (Value::String(super::grammar::identifier(&kind)), kind),
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
        let mut arms: Vec<(Vec<(Value, String)>, Node)> = Vec::new();
        let mut subject: Option<Node> = None;
        let mut current = node;
        let els: Option<Node>;
        let mut last_line = node.cond_line;
        loop {
            let (s, lit) = equality(&current.cond)?;
            last_line = current
                .cond
                .span()
                .map_or(current.cond_line, |(_, hi)| hi)
                .max(last_line);
            match &subject {
                None => subject = Some(s.clone()),
                Some(prev) if prev.render() == s.render() => {}
                Some(_) => return None,
            }
            arms.push((vec![condition::when_value(lit)], current.then.clone()));
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
    conds.fold(first, |acc, c| Node::Or(Box::new(acc), Box::new(c)))
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

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
        assert_eq!(flat(&m), vec!["1 n_zero [boolean] true:zero n -> returns :none | false:NOT zero n -> returns :some"]);
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
}
