//! Guard clauses: `return X unless cond`, `raise E if cond`, `head :forbidden unless ...`
//! (contract §5 rules 15 and 17; PRODUCT: guards chain).
//!
//! A guard is a conditional without `else` whose branch always leaves the method. Its
//! exiting value is terminal, with the exit's behavior; the rest of the method runs only
//! through the other value, so it attaches under it one level deeper: each later guard
//! depends on the earlier one's passing value.
//!
//! Example: `raise Unauthorized unless user.can_refund?(payment)` then
//! `return {...} unless refund_eligible?(payment)` gives `user_refund_allowed` (level 1;
//! false → terminal `raises Unauthorized`) and `refund_eligible` (level 2, depends on
//! `user_refund_allowed`, when_parent `[true]`).

use crate::index::body::{If, Node};

use super::{End, Walker};
use crate::analyze::rules::Rule;

impl Walker<'_> {
    /// Handles `node` as a guard clause if it is one.
    pub fn guard(&mut self, node: &If, rest: &[Node], at: super::At, tail: bool) -> Option<End> {
        if node.els.is_some() {
            return None;
        }
        let exit = crate::analyze::outcome::always_exits(&node.then, &self.cx.text)?;
        let exit = self.rescued(&node.then).unwrap_or(exit);
        if memoized(node) {
            // `return @document if @document`: memoization, which no spec sets up as a
            // context; the rest is what the method does.
            return Some(self.seq(rest, at, tail));
        }
        if let Some(holds) = self.known(&node.cond) {
            // Decided already: the guard always exits, or never does.
            return Some(if holds != node.unless {
                End::Exited(exit)
            } else {
                self.seq(rest, at, tail)
            });
        }
        let exit_when_truthy = !node.unless;
        let slots = self.condition(&node.cond, at, (node.cond_line, node.cond_line));
        let (exits, continues) = if exit_when_truthy {
            (slots.truthy, slots.falsy)
        } else {
            (slots.falsy, slots.truthy)
        };
        // `create unless subscribed; redirect_to entry` as the exiting branch: what it
        // decides before it leaves is walked under the exiting value, every path of it
        // ending the method.
        let body = super::statements(&node.then);
        // `return order_by_association(relation) unless reflection.nil?`: a private
        // helper whose body decides is what the exiting path does, its questions asked
        // under the exiting value as they would be were its body written there.
        let decides_first = body.split_last().is_some_and(|(last, before)| {
            before
                .iter()
                .any(|s| matches!(s, Node::If(_) | Node::Case(_)))
                || matches!(last, Node::Return { value: Some(v), .. }
                    if matches!(v.as_ref(), Node::Call(_))
                        && self.calls_deciding_private(std::slice::from_ref(last), 0))
        });
        match exits.as_slice() {
            [only] if decides_first => {
                let end = self.seq(&body, self.under(*only), true);
                self.finish(*only, &end, true);
            }
            _ => {
                for slot in &exits {
                    self.set_leaf(*slot, &exit, true);
                }
            }
        }
        match continues.as_slice() {
            [only] => {
                let end = self.seq(rest, self.under(*only), tail);
                self.finish(*only, &end, tail);
            }
            many => {
                self.apply(Rule::SeveralPassGuard, None);
                // `if premise && !x` leaves: from here on, the premise means `x` holds.
                let pushed = implication(&node.cond, exit_when_truthy)
                    .map(|pair| self.implied.push(pair))
                    .is_some();
                let end = self.seq(rest, at, tail);
                if pushed {
                    self.implied.pop();
                }
                for slot in many {
                    self.finish(*slot, &end, tail);
                }
            }
        }
        Some(End::Branched)
    }
}

/// What passing the guard `if cond` (`exits_when_truthy`) implies for the rest, as
/// `(premise, conclusion)`: `if premise && !x` → with the premise, `x`. `None` for other
/// shapes.
fn implication(cond: &Node, exits_when_truthy: bool) -> Option<(Node, Node)> {
    if !exits_when_truthy {
        return None;
    }
    let Node::And(a, b) = cond else { return None };
    match (a.as_ref(), b.as_ref()) {
        (premise, Node::Not(x)) | (Node::Not(x), premise) if !matches!(premise, Node::Not(_)) => {
            Some((premise.clone(), (**x).clone()))
        }
        _ => None,
    }
}

/// `return @x if @x`, `return @x if defined?(@x)`, `return @x unless @x.nil?`.
pub(crate) fn memoized(node: &If) -> bool {
    let Some(Node::Return {
        value: Some(value), ..
    }) = super::statements(&node.then).last().cloned()
    else {
        return false;
    };
    let Node::Ivar(name) = value.as_ref() else {
        return false;
    };
    let tests_it = |cond: &Node| match cond {
        Node::Ivar(n) => n == name,
        Node::Other { text, .. } => text.replace(' ', "") == format!("defined?(@{name})"),
        Node::Call(c) => {
            (matches!(c.recv.as_ref(), Some(Node::Ivar(n)) if n == name)
                && matches!(c.name.as_str(), "present?" | "nil?"))
                // `return @branch if instance_variable_defined?(:@branch)`: memoizes a
                // nil answer too.
                || (c.name == "instance_variable_defined?"
                    && matches!(c.recv, None | Some(Node::SelfRef))
                    && matches!(c.args.as_slice(), [Node::Sym(n) | Node::Str(n)]
                        if n.strip_prefix('@') == Some(name.trim_start_matches('@'))))
        }
        _ => false,
    };
    match (&node.cond, node.unless) {
        (Node::Call(c), true) if c.name == "nil?" => tests_it(&node.cond),
        (Node::Call(c), false) if c.name == "nil?" => false,
        (cond, false) => tests_it(cond),
        _ => false,
    }
}

/// `detect_repos if @any_repos.nil?` followed, at the end of the method, by `@any_repos`:
/// the value is filled once and read; being filled already is memoization, no context.
pub(crate) fn fills_memo(node: &If, rest: &[Node]) -> bool {
    if node.els.is_some() {
        return false;
    }
    let returned = match rest.last() {
        Some(Node::Ivar(n)) => n,
        Some(Node::Return { value: Some(v), .. }) => match v.as_ref() {
            Node::Ivar(n) => n,
            _ => return false,
        },
        _ => return false,
    };
    let absent = match (&node.cond, node.unless) {
        (Node::Call(c), false) => {
            matches!(c.recv.as_ref(), Some(Node::Ivar(n)) if n == returned)
                && matches!(c.name.as_str(), "nil?" | "blank?")
        }
        (Node::Not(inner), false) => matches!(inner.as_ref(), Node::Ivar(n) if n == returned),
        (Node::Ivar(n), true) => n == returned,
        (Node::Other { text, .. }, true) => {
            text.replace(' ', "") == format!("defined?(@{returned})")
        }
        _ => false,
    };
    absent
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::analyze_one;

    #[test]
    fn filling_a_value_read_at_the_end_is_memoization() {
        let m = analyze_one(
            "module AppsHelper\n  def any_bitbucket_repos?\n    detect_any_apps_with_attributes if @any_bitbucket_repos.nil?\n    @any_bitbucket_repos\n  end\nend\n",
            "any_bitbucket_repos?",
        );
        assert!(
            m.characteristics.is_empty(),
            "{:?}",
            crate::analyze::tests::flat(&m)
        );
        // Read at the end, but another value decides: a characteristic.
        let m = analyze_one(
            "class Report\n  def summary\n    refresh if @stale.nil?\n    @summary\n  end\nend\n",
            "summary",
        );
        assert_eq!(m.characteristics.len(), 1);
    }

    #[test]
    fn a_value_memoized_even_when_nil_is_no_context() {
        // A release helper reading the branch from a file once, nil included.
        let src = "module Release
  def self.branch
    return @branch if instance_variable_defined?(:@branch)

    @branch = File.exist?(\"BRANCH\") ? File.read(\"BRANCH\").strip : nil
  end
end
";
        let m = analyze_one(src, "branch");
        let names: Vec<String> = m.characteristics.iter().map(|c| c.name.clone()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names.iter().all(|n| !n.contains("defined")), "{names:?}");
        // Another variable's definedness is a question.
        let m = analyze_one(
            &src.replace("defined?(:@branch)", "defined?(:@tag)"),
            "branch",
        );
        assert_eq!(
            m.characteristics.len(),
            2,
            "{:?}",
            crate::analyze::tests::flat(&m)
        );
    }

    #[test]
    fn guards_chain_under_the_passing_value() {
        let m = analyze_one(
            "class R\n  def refund(payment, user:)\n    raise Unauthorized unless user.can_refund?(payment)\n    return false if payment.refunded?\n\n    payment.refund!\n  end\nend\n",
            "refund",
        );
        type Row = (String, u32, Option<String>, Vec<(bool, Option<String>)>);
        let chars: Vec<Row> = m
            .characteristics
            .iter()
            .map(|c| {
                (
                    c.name.clone(),
                    c.level,
                    c.parent.map(|p| m.characteristics[p].name.clone()),
                    c.values
                        .iter()
                        .map(|v| {
                            (
                                v.terminal,
                                v.behavior.as_ref().map(|b| b.description.clone()),
                            )
                        })
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            chars,
            vec![
                (
                    "user_refund_allowed".into(),
                    1,
                    None,
                    vec![(false, None), (true, Some("raises Unauthorized".into()))]
                ),
                (
                    "payment_refunded".into(),
                    2,
                    Some("user_refund_allowed".into()),
                    vec![
                        (true, Some("returns false".into())),
                        (false, Some("refunds the payment".into()))
                    ]
                ),
            ]
        );
    }

    #[test]
    fn a_passed_guard_decides_what_its_premise_implies() {
        // After leaving when friends or nearby come without a user, `friends && user`
        // asks only about friends: the user is there.
        let m = analyze_one(
            "class ChangesetsController < ApplicationController\n  def index\n    if (params[:friends] || params[:nearby]) && !current_user\n      require_user\n      return\n    end\n    @changesets = current_user.changesets if params[:friends] && current_user\n    render :index\n  end\nend\n",
            "index",
        );
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "friends_param_or_nearby_param",
                "current_user",
                "friends_param"
            ]
        );
    }
}
