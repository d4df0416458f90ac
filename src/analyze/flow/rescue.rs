//! `rescue` clauses (a method body's or a `begin` block's, and `x rescue y`): each clause
//! is a characteristic beside the protected code, with one terminal value, "the error was
//! raised", whose behavior is what the clause does (`returns nil`, `raises PaymentError`,
//! `returns failure result`). The protected code's own characteristics stay where they
//! are, so the happy path is not duplicated under a "not raised" value. One value per
//! characteristic is our deliberate reading (\[J\]); the generator renders it as one context.
//! When the protected code decides nothing, the first clause also gets the value "no
//! error raised" with the protected code's outcome: otherwise the happy path would have
//! no context at all.
//!
//! Example: `rescue Faraday::Error => e; { success: false }` gives `faraday_error`
//! (boolean, value `true`: "Faraday::Error raised", terminal, `returns failure result`).

use crate::index::body::{AssignOp, Begin, Node, Rescue, Target};
use crate::yaml::Value;

use super::{assign_last, last_segment, statements, At, End, Rescuing, Walker};
use crate::analyze::grammar;
use crate::analyze::model::{CharType, Setup, SetupType, Source};
use crate::analyze::outcome::Outcome;
use crate::analyze::rules::Rule;

impl Walker<'_> {
    /// Handles `begin ... rescue ... end` followed by `rest`.
    pub fn rescue(&mut self, block: &Begin, rest: &[Node], at: At, tail: bool) -> End {
        let mut protected = statements(&block.body);
        if let Some(els) = &block.els {
            protected.extend(statements(els));
        }
        protected.extend_from_slice(rest);
        // A `raise` of a class rescued here ends with what the clause does (J19): only for
        // clauses that decide nothing themselves, whose outcome is known before walking.
        let outer = self.rescuing.len();
        for (at_clause, clause) in block.rescues.iter().enumerate() {
            let body = statements(&clause.body);
            let decides = body.iter().any(|n| {
                matches!(
                    n,
                    Node::If(_) | Node::Case(_) | Node::And(..) | Node::Or(..) | Node::Begin(_)
                )
            });
            if decides || clause.classes.is_empty() {
                continue;
            }
            // What the clause does ends the method when it exits (`return`, `raise`,
            // `render`) or when nothing follows the `begin` block; otherwise the method goes
            // on after it, and the clause is walked as before.
            let exits = body
                .last()
                .and_then(|last| crate::analyze::outcome::exit_of(last, &self.cx.text));
            let outcome = match exits {
                Some(o) => o,
                None if rest.is_empty() && tail => {
                    crate::analyze::outcome::final_expression(&clause.body, &self.cx.text)
                }
                None => continue,
            };
            self.rescuing.push(Rescuing {
                clause: at_clause,
                classes: clause
                    .classes
                    .iter()
                    .map(|c| last_segment(c).to_string())
                    .collect(),
                outcome,
                reached: false,
            });
        }
        let before = self.chars.len();
        let end = self.seq(&protected, at, tail);
        let handled: Vec<Rescuing> = self.rescuing.drain(outer..).collect();
        // The protected code decided nothing: its outcome is the path where no error is
        // raised, which would otherwise have no context at all.
        let happy = match &end {
            End::Done(o) if self.chars.len() == before => Some(o.clone()),
            _ => None,
        };
        let mut happy_said = false;
        for (at_clause, clause) in block.rescues.iter().enumerate() {
            let reached = handled.iter().any(|h| h.reached && h.clause == at_clause);
            if reached {
                // The condition that raises is the context where the error happens.
                continue;
            }
            let names: Vec<&str> = clause
                .classes
                .iter()
                .map(|c| c.trim_start_matches('*'))
                .collect();
            let classes = classes_said(clause);
            // `Timeout::Error` is a timeout error: a generic last segment keeps its
            // namespace in the name.
            let last = names.first().map(|c| {
                let mut parts = c.rsplit("::");
                let tail = parts.next().unwrap_or(c);
                match parts.next() {
                    Some(ns) if matches!(tail, "Error" | "Exception" | "Failure") => {
                        format!("{ns}{tail}")
                    }
                    _ => tail.to_string(),
                }
            });
            let name = grammar::identifier(&last.unwrap_or_else(|| "StandardError".to_string()));
            let body = statements(&clause.body);
            let mut values = vec![(Value::Bool(true), format!("{classes} raised"))];
            let happy_here = happy.as_ref().filter(|_| !happy_said);
            if happy_here.is_some() {
                values.push((Value::Bool(false), "no error raised".to_string()));
            }
            let index = self.push_char(
                name,
                format!("{classes} raised"),
                CharType::Boolean,
                values,
                Source::Internal,
                Setup {
                    kind: SetupType::Action,
                    class: None,
                },
                at,
                (clause.line, clause.line),
                None,
                None,
            );
            // What the clause decides (`retry if attempts < 3`) happens once the error is
            // raised: under that value, not beside it.
            // A clause that neither exits nor ends the method lets the rest run: its leaf
            // ends as the method does (J10), and stops nothing.
            let goes_on = tail && !rest.is_empty();
            match self.seq(&body, self.under((index, 0)), tail && rest.is_empty()) {
                End::Exited(o) => self.set_leaf((index, 0), &o, true),
                End::Done(o) if goes_on && o.description == super::NOTHING_MORE => match &end {
                    End::Done(last) => {
                        let last = match o.sets.as_deref() {
                            Some(sets) => last.with_sets(sets),
                            None => last.clone(),
                        };
                        self.set_leaf((index, 0), &last, false);
                    }
                    _ => {
                        self.set_leaf((index, 0), &o, false);
                        self.leave_to_final_outcome((index, 0), o.sets.as_deref());
                    }
                },
                // An empty clause (`rescue => e` and a comment) at the end of what it
                // protects: the error is swallowed and the caller (or the loop) goes on;
                // no "does nothing more" leaf, and nothing that stops.
                End::Done(o) if o.description == super::NOTHING_MORE => {
                    let swallowed = Outcome {
                        description: "swallows the error".to_string(),
                        failure: false,
                        guessed: false,
                        sets: None,
                    };
                    self.set_leaf((index, 0), &swallowed, false);
                }
                End::Done(o) => self.set_leaf((index, 0), &o, true),
                // `raise ex if locked?`: the paths that do not raise go on.
                End::Branched if goes_on => self.leave_to_final_outcome((index, 0), None),
                End::Branched => {}
            }
            if let Some(o) = happy_here {
                self.set_leaf((index, 1), o, false);
                happy_said = true;
            }
            self.apply(Rule::RescueValue, None);
        }
        end
    }
}

impl Walker<'_> {
    /// `uri = begin URI.parse(s) rescue URI::InvalidURIError; nil end` (and `uri =
    /// URI.parse(s) rescue nil`) followed by `rest`: the error is a context of the
    /// method, each way of ending assigns the local, and the method goes on after. When
    /// every clause leaves nil and `rest` tests the local for presence (`body&.dig`), the
    /// missing value is the error: that test's characteristic says both, at both lines.
    pub fn assigned_rescue(
        &mut self,
        target: &Target,
        block: &Begin,
        line: u32,
        rest: &[Node],
        at: At,
        tail: bool,
    ) -> End {
        let set = AssignOp::Set;
        if let Target::Lvar(name) = target {
            if block.els.is_none()
                && block.ensure.is_none()
                && block.rescues.iter().all(|r| gives_nil(&r.body))
                && tests_presence(rest, name)
            {
                let clauses = block
                    .rescues
                    .iter()
                    .map(|r| (r.line, classes_said(r)))
                    .collect();
                self.rescued_nil.insert(name.clone(), clauses);
                let mut all = statements(&assign_last(&block.body, target, &set, line));
                all.extend_from_slice(rest);
                return self.seq(&all, at, tail);
            }
        }
        let mut assigned = block.clone();
        assigned.body = assign_last(&block.body, target, &set, line);
        for clause in &mut assigned.rescues {
            clause.body = assign_last(&clause.body, target, &set, line);
        }
        self.rescue(&assigned, rest, at, tail)
    }
}

/// The classes a clause rescues, as a spec names them: `Net::POPError or StandardError`
/// (`rescue *NETWORK_ERRORS` names its list; a bare `rescue` is `StandardError`).
fn classes_said(clause: &Rescue) -> String {
    let names: Vec<&str> = clause
        .classes
        .iter()
        .map(|c| c.trim_start_matches('*'))
        .collect();
    if names.is_empty() {
        "StandardError".to_string()
    } else {
        names.join(" or ")
    }
}

/// Whether a rescue clause's value is nil (`rescue nil`, an empty clause).
fn gives_nil(body: &Node) -> bool {
    matches!(statements(body).last(), None | Some(Node::Nil))
}

/// Whether `stmts` test the local `name` for presence: `if name`, `name&.x`,
/// `name.nil?`, `name.present?`, `name.blank?`, `name || y`.
fn tests_presence(stmts: &[Node], name: &str) -> bool {
    struct Finds<'a>(&'a str, bool);
    impl<'n> crate::index::body::Visitor<'n> for Finds<'_> {
        fn enter(&mut self, node: &'n Node) -> bool {
            let is_local = |n: Option<&Node>| matches!(n, Some(Node::Lvar(l)) if l == self.0);
            self.1 |= match node {
                Node::If(i) => is_local(Some(&i.cond)),
                Node::Or(a, _, _) | Node::And(a, _) => is_local(Some(a)),
                Node::Call(c) => {
                    is_local(c.recv.as_ref())
                        && (c.safe_nav || matches!(c.name.as_str(), "nil?" | "present?" | "blank?"))
                }
                _ => false,
            };
            !self.1
        }
    }
    let mut finds = Finds(name, false);
    for stmt in stmts {
        crate::index::body::walk(&mut finds, stmt);
    }
    finds.1
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn each_rescue_clause_is_a_terminal_characteristic_beside_the_body_and_the_first_holds_the_happy_path(
    ) {
        let m = analyze_one(
            "class G\n  def charge(payment)\n    response = Client.post(payment.id)\n    response.body\n  rescue Faraday::TimeoutError, Faraday::ConnectionFailed\n    { success: false, error: :timeout }\n  rescue StandardError => e\n    raise ChargeError, e.message\n  end\nend\n",
            "charge",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 timeout_error [boolean] true:Faraday::TimeoutError or Faraday::ConnectionFailed raised => returns timeout failure result | false:no error raised -> returns response body",
                "1 standard_error [boolean] true:StandardError raised => raises ChargeError",
            ]
        );
    }

    #[test]
    fn a_raise_the_method_rescues_ends_with_the_rescue_and_the_clause_is_not_asked_again() {
        let m = analyze_one(
            "class Adapter\n  def diff(path)\n    run('diff', path)\n  rescue CommandFailed\n    nil\n  end\n\n  private\n\n  def run(*args)\n    out = shellout(args)\n    raise CommandFailed, 'exit' if out.failed?\n    out.lines\n  end\nend\n",
            "diff",
        );
        assert_eq!(
            flat(&m),
            // The helper's value is the method's: it returns the command's lines.
            vec!["1 out_failed [boolean] true:failed out => returns nil | false:NOT failed out -> returns out lines"]
        );
        assert!(
            m.notes.iter().any(|n| n.starts_with("J19: ")),
            "{:?}",
            m.notes
        );
    }

    #[test]
    fn what_a_clause_decides_is_asked_under_the_error_and_retry_retries() {
        let m = analyze_one(
            "class Sync\n  def call(record)\n    attempts = 0\n    begin\n      attempts += 1\n      Client.push(record)\n    rescue Timeout::Error\n      retry if attempts < 3\n      raise\n    end\n  end\nend\n",
            "call",
        );
        let lines = flat(&m);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("1 timeout_error [boolean] true:Timeout::Error raised"),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("2 attempts"), "{lines:?}");
        assert!(
            lines[1].contains("-> retries the protected code"),
            "{lines:?}"
        );
        assert!(lines[1].contains("=> re-raises the error"), "{lines:?}");
    }

    #[test]
    fn a_modifier_rescue_and_a_rescue_in_a_block_are_contexts() {
        let m = analyze_one(
            "class P\n  def parse(text)\n    Integer(text) rescue 0\n  end\nend\n",
            "parse",
        );
        assert_eq!(
            flat(&m),
            vec!["1 standard_error [boolean] true:StandardError raised => returns 0 | false:no error raised -> returns the integer"]
        );
        let m = analyze_one(
            "class P\n  def rows(list)\n    list.map do |row|\n      Row.create!(row)\n    rescue ActiveRecord::RecordInvalid\n      nil\n    end\n  end\nend\n",
            "rows",
        );
        let lines = flat(&m);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("ActiveRecord::RecordInvalid raised")),
            "{lines:?}"
        );
    }

    #[test]
    fn an_empty_rescue_swallows_the_error() {
        let m = analyze_one(
            "class MentionNotifier\n  def deliver(users)\n    users.each do |u|\n      if u.email_mentions?\n        begin\n          EmailReplyMailer.mention(u).deliver_now\n        rescue => e\n          # logged elsewhere\n        end\n      end\n    end\n  end\nend\n",
            "deliver",
        );
        // Not "=> does nothing more": the loop goes on with the next user.
        assert_eq!(
            flat(&m),
            vec![
                "1 user_email_mentions [boolean] true:user email mentions | false:NOT user email mentions -> goes through each of the users",
                "2 standard_error [boolean] true:StandardError raised -> swallows the error | false:no error raised -> sends mention email",
            ]
        );
    }

    #[test]
    fn a_rescue_in_an_assigned_value_is_a_context() {
        let src = "class IssuerCheck\n  def host_of(issuer)\n    uri =\n      begin\n        URI.parse(issuer.to_s)\n      rescue URI::InvalidURIError\n        nil\n      end\n\n    uri.host\n  end\n\n  def message(response)\n    body = JSON.parse(response.body) rescue nil\n\n    Result.new(code: response.code, message: body&.dig(\"error\"))\n  end\nend\n";
        let plan = flat(&analyze_one(src, "host_of"));
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(
            plan[0].starts_with("1 invalid_uri_error [boolean] true:URI::InvalidURIError raised"),
            "{plan:?}"
        );
        // The nil a rescue leaves, tested later: one characteristic says both.
        let m = analyze_one(src, "message");
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(
            plan[0].contains("nil:body missing (StandardError raised)"),
            "{plan:?}"
        );
        assert_eq!(m.characteristics[0].source_line, "14-16");
    }

    #[test]
    fn a_rescue_in_the_middle_of_a_method_keeps_its_own_characteristic() {
        // The clause does not end the method (it sets a message, the render follows):
        // the raise stays a raise and the clause stays a context.
        let m = analyze_one(
            "class SessionsController < ApplicationController\n  def create\n    begin\n      raise LoginBanned if user.banned?\n      login(user)\n    rescue LoginBanned\n      @message = 'banned'\n    end\n    render :login\n  end\nend\n",
            "create",
        );
        let lines = flat(&m);
        assert!(
            lines.iter().any(|l| l.contains("raises LoginBanned")),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.contains("LoginBanned raised")),
            "{lines:?}"
        );
    }
}
