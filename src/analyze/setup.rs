//! `setup` and `source` of a characteristic (contract §5 rules 11 and 13).
//!
//! Setup, first match wins: session or cookie access → action; a bang call → action on
//! its receiver's class; a time comparison → action; an ActiveRecord model (a class under
//! `app/models`) → model; another class of the project → data with that class; anything
//! else (primitives, params) → data without class.
//!
//! Source: external when the condition tests what a call on another class returned
//! (`result.success?` after `result = @gateway.charge(p)`, `Policy.new(p).allowed?`, a
//! call with arguments on another object such as `user.can_refund?(payment)`); internal
//! for the method's own state and plain attribute reads of its inputs (`payment.status`).
//! Deciding a receiver's class by its name is a guess (\[J\]); the analyzer lowers the
//! method's confidence when it does.

use crate::index::body::{walk, Node, Visitor};

use super::model::{Setup, SetupType, Source};
use super::types::{ClassKind, Lookup, TypeEnv, VarType};

/// Names that read the session or the current user.
const SESSION: &[&str] = &[
    "session",
    "cookies",
    "current_user",
    "current_account",
    "user_signed_in?",
    "signed_in?",
    "logged_in?",
    "authenticated?",
    "warden",
];

/// Facts about a condition used by both decisions.
struct Scan {
    session: bool,
    bang_receiver: Option<Node>,
    time: bool,
}

impl<'n> Visitor<'n> for Scan {
    fn enter(&mut self, node: &'n Node) -> bool {
        let Node::Call(c) = node else {
            // Only the condition's own expression counts: not blocks or branches in it.
            return matches!(node, Node::And(..) | Node::Or(..) | Node::Not(_));
        };
        if c.recv.is_none() && SESSION.contains(&c.name.as_str()) {
            self.session = true;
        }
        if c.name.ends_with('!') && self.bang_receiver.is_none() {
            self.bang_receiver = Some(c.recv.clone().unwrap_or(Node::SelfRef));
        }
        if ["ago", "from_now", "past?", "future?", "expired?", "today?"].contains(&c.name.as_str())
        {
            self.time = true;
        }
        if let Some(Node::Const { path, .. }) = &c.recv {
            if ["Time", "Date", "DateTime"].contains(&path.as_str()) {
                self.time = true;
            }
        }
        // The receiver and the arguments, not a block.
        if let Some(r) = &c.recv {
            walk(self, r);
        }
        for a in &c.args {
            walk(self, a);
        }
        false
    }
}

/// The receiver at the root of the condition's call chain (`payment` in
/// `payment.items.any?`), or `self` for implicit calls.
pub fn root(node: &Node) -> Node {
    match node {
        Node::Call(c) => match &c.recv {
            Some(r) if matches!(c.name.as_str(), ">=" | ">" | "<=" | "<" | "==" | "!=") => root(r),
            Some(r) => root(r),
            None if c.args.is_empty() => Node::Call(c.clone()),
            None => Node::SelfRef,
        },
        Node::Not(a) => root(a),
        other => other.clone(),
    }
}

/// Calls at the end of a condition that ask about the value before them
/// (`payment.refunded_at.present?` reads `refunded_at`).
const ASKS: &[&str] = &[
    "present?",
    "blank?",
    "nil?",
    "any?",
    "empty?",
    "none?",
    "exists?",
    "zero?",
    "positive?",
    "negative?",
    "presence",
    "!",
    "to_s",
    "to_sym",
];

/// The attribute a condition reads on its subject, when it reads one directly: `admin?`
/// in `user.admin?` or `admin?`, `status` in `payment.status == "completed"` or `case
/// payment.status`, `refunded_at` in `payment.refunded_at.present?`. `None` for anything
/// deeper (`payment.user.admin?` is about the user, not the payment) or with arguments.
///
/// A comparison counts only against a literal (`status == "completed"`: a trait sets
/// `completed`); `user.id == user_id` compares two records, which no trait sets up. Nor do
/// the record's own state (`new_record?`, `persisted?`, `changed?`: `build` or `create`
/// decides it) and its `id`.
pub fn attribute(cond: &Node) -> Option<String> {
    let mut node = cond;
    loop {
        match node {
            Node::Not(inner) => node = inner,
            Node::Call(c)
                if c.recv.is_some()
                    && matches!(
                        c.name.as_str(),
                        ">=" | ">" | "<=" | "<" | "==" | "!=" | "==="
                    ) =>
            {
                if !c.args.iter().all(Node::is_literal) {
                    return None;
                }
                node = c.recv.as_ref()?;
            }
            Node::Call(c)
                if c.recv.is_some() && ASKS.contains(&c.name.as_str()) && c.args.is_empty() =>
            {
                node = c.recv.as_ref()?;
            }
            _ => break,
        }
    }
    let Node::Call(c) = node else { return None };
    if !c.args.is_empty() || c.block.is_some() || RECORD_STATE.contains(&c.name.as_str()) {
        return None;
    }
    if c.name.ends_with("_changed?") || c.name.starts_with("saved_change_to_") {
        return None;
    }
    let direct = match &c.recv {
        None => true,
        Some(Node::Lvar(_) | Node::Ivar(_) | Node::SelfRef) => true,
        // `payment.completed?` where `payment` is a method of the object (a reader).
        Some(Node::Call(r)) => r.recv.is_none() && r.args.is_empty() && r.block.is_none(),
        _ => false,
    };
    direct.then(|| c.name.clone())
}

/// What a record says about itself rather than about a column: no factory trait sets it.
const RECORD_STATE: &[&str] = &[
    "id",
    "new_record?",
    "persisted?",
    "destroyed?",
    "previously_new_record?",
    "changed?",
    "valid?",
    "invalid?",
    "frozen?",
    "readonly?",
    "marked_for_destruction?",
];

/// Decides `setup` for a condition.
pub fn setup(cond: &Node, env: &TypeEnv, lookup: &Lookup, own: &str) -> (Setup, bool) {
    let mut s = Scan {
        session: false,
        bang_receiver: None,
        time: false,
    };
    walk(&mut s, cond);
    if s.session {
        return (
            Setup {
                kind: SetupType::Action,
                class: None,
            },
            false,
        );
    }
    if let Some(recv) = s.bang_receiver {
        return (
            Setup {
                kind: SetupType::Action,
                class: env.class_of(&recv, lookup, own),
            },
            false,
        );
    }
    if s.time {
        return (
            Setup {
                kind: SetupType::Action,
                class: None,
            },
            false,
        );
    }
    let subject = root(cond);
    if matches!(&subject, Node::Call(c) if c.name == "params") {
        return (
            Setup {
                kind: SetupType::Data,
                class: None,
            },
            false,
        );
    }
    // An implicit attribute read (`state`, `completed?`) is the record's own state.
    let subject = match &subject {
        Node::Call(c) if c.recv.is_none() && lookup.class_for_name(&c.name).is_none() => {
            Node::SelfRef
        }
        other => other.clone(),
    };
    let class = match &subject {
        Node::Lvar(n) => match env.var(n) {
            Some(VarType::Instance(c)) | Some(VarType::ResultOf { class: c, .. }) => {
                Some(c.clone())
            }
            None => None,
        },
        other => env.class_of(other, lookup, own),
    };
    let guessed = matches!(&subject, Node::Lvar(_) | Node::Ivar(_));
    match class {
        Some(c) => match lookup.kind(&c) {
            ClassKind::Model => (
                Setup {
                    kind: SetupType::Model,
                    class: Some(c),
                },
                guessed,
            ),
            _ => (
                Setup {
                    kind: SetupType::Data,
                    class: Some(c),
                },
                guessed,
            ),
        },
        None => (
            Setup {
                kind: SetupType::Data,
                class: None,
            },
            false,
        ),
    }
}

/// Decides `source` for a condition; `private_sources` resolves implicit calls to private
/// predicates whose body is a call on another class.
pub fn source(
    cond: &Node,
    env: &TypeEnv,
    lookup: &Lookup,
    own: &str,
    private_source: &dyn Fn(&str) -> Option<Source>,
) -> Source {
    let call = match cond {
        Node::Not(inner) => return source(inner, env, lookup, own, private_source),
        Node::Call(c) => c,
        Node::Lvar(n) => {
            return match env.var(n) {
                Some(VarType::ResultOf { class, method }) if class != own => Source::External {
                    class: class.clone(),
                    method: method.clone(),
                },
                _ => Source::Internal,
            }
        }
        _ => return Source::Internal,
    };
    // Comparisons and equality test their left side.
    if matches!(call.name.as_str(), ">=" | ">" | "<=" | "<" | "==" | "!=") {
        return match &call.recv {
            Some(lhs) => source(lhs, env, lookup, own, private_source),
            None => Source::Internal,
        };
    }
    let Some(recv) = &call.recv else {
        return private_source(&call.name).unwrap_or(Source::Internal);
    };
    if let Node::Lvar(n) = recv {
        if let Some(VarType::ResultOf { class, method }) = env.var(n) {
            if class != own {
                return Source::External {
                    class: class.clone(),
                    method: method.clone(),
                };
            }
        }
    }
    match env.class_of(recv, lookup, own) {
        Some(class) if class != own => {
            let model = lookup.kind(&class) == ClassKind::Model;
            let query_with_inputs = !call.args.is_empty();
            let constructed = matches!(recv, Node::Call(c) if c.name == "new")
                || matches!(recv, Node::Const { .. });
            if !model || query_with_inputs || constructed {
                Source::External {
                    class,
                    method: call.name.clone(),
                }
            } else {
                Source::Internal
            }
        }
        _ => Source::Internal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    fn expr(src: &str) -> Node {
        let facts = extract_with(
            "app/services/a.rb",
            format!("class A\n  def m(payment, user)\n    {src}\n  end\nend\n").as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let body = *facts.methods[0].body.clone().unwrap();
        match body {
            Node::Seq(mut items) => items.remove(0),
            other => other,
        }
    }

    #[test]
    fn the_attribute_a_trait_would_set() {
        let cases = [
            ("user.admin?", Some("admin?")),
            ("!payment.refunded_at.present?", Some("refunded_at")),
            ("payment.status == \"completed\"", Some("status")),
            ("payment.status != :pending", Some("status")),
            ("payment.amount_cents > 100", Some("amount_cents")),
            ("payment.kind == Payment::CARD", Some("kind")),
            ("admin?", Some("admin?")),
            // About another record, or a comparison of two values: no trait sets it.
            ("payment.user.admin?", None),
            ("user.id == payment.user_id", None),
            ("payment.amount_cents > limit", None),
            // The record's own state: `build` or `create` decides it.
            ("payment.new_record?", None),
            ("payment.persisted?", None),
            ("payment.id.present?", None),
            ("payment.status_changed?", None),
            ("payment.saved_change_to_status?", None),
        ];
        for (src, expected) in cases {
            assert_eq!(attribute(&expr(src)).as_deref(), expected, "{src}");
        }
    }
}
