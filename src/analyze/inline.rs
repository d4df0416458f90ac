//! Private methods inlined into their public caller (PRODUCT: "a private method's
//! conditions are inlined where the public method calls it"). When a statement calls a
//! private method of the same class whose body holds guard clauses that leave the caller
//! too (`raise`, `throw`, a controller's `head`/`redirect_to`), those guards are walked at
//! the call site, so they become the caller's characteristics at the right level. A
//! private method's own `return` only leaves that method, so its `return` guards are not
//! the caller's. Private predicates used as conditions (`if refund_eligible?(p)`) keep
//! their name as the characteristic instead (see `condition.rs`).
//!
//! Example: `def process; validate!; ...` with a private
//! `def validate!; raise Invalid unless valid?; end` gives `valid` (false → terminal
//! `raises Invalid`) in `process`, with the rest of `process` under `true`.

use crate::index::body::Node;

use super::flow::{statements, Walker};
use super::rules::Rule;

impl Walker<'_> {
    /// The statements to walk instead of `stmt` when it calls a private method with
    /// caller-leaving guards; pushes the method on the inlining stack (the caller pops it).
    pub fn inline_private(&mut self, stmt: &Node) -> Option<Vec<Node>> {
        let Node::Call(call) = stmt else { return None };
        if !(call.recv.is_none() || matches!(call.recv, Some(Node::SelfRef)))
            || self.inlining.len() >= 3
        {
            return None;
        }
        if self.inlining.contains(&call.name) {
            return None;
        }
        let private = self.cx.privates.iter().find(|m| m.name == call.name)?;
        let body = private.body.as_ref()?;
        let guards: Vec<Node> = statements(body)
            .into_iter()
            .filter(|s| match s {
                Node::If(i) if i.els.is_none() => {
                    super::outcome::always_exits(&i.then, &self.cx.text).is_some()
                        && !matches!(statements(&i.then).last(), Some(Node::Return { .. }))
                }
                _ => false,
            })
            .collect();
        if guards.is_empty() {
            return None;
        }
        self.apply(
            Rule::PrivateGuardsInlined,
            Some(&format!("`{}`", call.name)),
        );
        self.inlining.push(call.name.clone());
        let mut out = guards;
        out.push(stmt.clone());
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

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
}
