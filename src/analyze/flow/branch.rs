//! `if`/`unless`/`elsif`/ternaries that do not merely guard (contract §5 rules 4, 5, 8, 14).
//!
//! Each branch runs under its value, one level deeper; a branch that ends the method
//! makes its value a leaf (terminal when it exits or returns a failure). An `elsif` is a
//! conditional inside the `else` value, so chains on different subjects nest; a chain that
//! compares one subject with literals (`if status == "a" elsif status == "b"`) is one
//! enum, handled by `case.rs`. In the middle of a method, when exactly one branch carries
//! on, the rest of the method nests under it.
//!
//! Example: `if result.success? ... else ... end` → `charge_result` with `true` (the
//! success path) and `false` (its failure result).

use crate::index::body::{If, Node};

use super::{decides_here, statements, At, End, Slot, Walker};
use crate::analyze::rules::Rule;

impl Walker<'_> {
    /// Handles an `if` that is not a guard.
    pub fn branch(&mut self, node: &If, rest: &[Node], at: At, tail: bool) -> End {
        if let Some(holds) = self.known(&node.cond) {
            // Decided already: only the branch taken runs.
            let taken = if holds != node.unless {
                Some(&node.then)
            } else {
                node.els.as_ref()
            };
            let mut all = taken.map(statements).unwrap_or_default();
            all.extend_from_slice(rest);
            return self.seq(&all, at, tail);
        }
        if let Some(end) = self.equality_chain(node, rest, at, tail) {
            return end;
        }
        if let Some(end) = self.range_chain(node, rest, at, tail) {
            return end;
        }
        if let Some(end) = self.predicate_chain(node, rest, at, tail) {
            return end;
        }
        let slots = self.condition(&node.cond, at, (node.cond_line, node.cond_line));
        let (then_slots, else_slots) = if node.unless {
            (slots.falsy, slots.truthy)
        } else {
            (slots.truthy, slots.falsy)
        };
        let last = rest.is_empty();
        let branch_tail = tail && last;
        let mut continuing: Vec<(Slot, End)> = Vec::new();
        // A conditional split out of an expression: what each branch gives it, to name
        // when both leaves would read alike.
        let lifted = self
            .lifted
            .iter()
            .find(|(line, cond, _, _)| *line == node.cond_line && *cond == node.cond)
            .map(|(_, _, t, e)| (t.clone(), e.clone()));
        let named = lifted.map(|words| (then_slots.clone(), else_slots.clone(), words));
        let then_body = statements(&node.then);
        let else_body = node.els.as_ref().map(statements);
        let elsif = matches!(&node.els, Some(Node::If(e)) if e.elsif);
        for (is_else, (slots, body)) in [(then_slots, Some(then_body)), (else_slots, else_body)]
            .into_iter()
            .zip([false, true])
            .map(|(pair, is_else)| (is_else, pair))
        {
            // A branch reached through several values (the `else` of `a && b`: a false, or
            // a true and b false) that decides more is walked once; the others get the
            // outcome that walk ends with, instead of a copy of every characteristic below
            // (J18).
            // Conditionals inside an expression (`set(queue: moderator ? :default : :idle)`)
            // decide as much as statements do.
            let decides_more = body.as_ref().is_some_and(|stmts| {
                decides_here(stmts) || stmts.iter().any(super::embedded::holds_conditional_value)
            });
            // The walk goes under the deepest of them (`a&.b?` false: `a` present and `b?`
            // false, not `a` nil), where the branch's own conditions are not decided
            // already by a missing subject.
            let mut slots = slots;
            if decides_more && slots.len() > 1 {
                if let Some(deepest) = (0..slots.len())
                    .max_by_key(|&i| (slots.get(i).map_or(0, |s| self.level(*s)), usize::MAX - i))
                {
                    let chosen = slots.remove(deepest);
                    slots.insert(0, chosen);
                }
            }
            // An `elsif` reached two ways (`if a && b ... elsif c`: `a` false, or `a` true
            // and `b` false) that decides one or two things more: walked under both, so
            // neither way in reads as if `c` were not asked (redmine's `if type && id ...
            // elsif project_id`). More copies than that are what J18 avoids; the rest of a
            // method after a guard is not an `elsif`.
            let copies_allowed = if is_else && elsif && slots.len() == 2 {
                2
            } else {
                0
            };
            let mut first_end: Option<End> = None;
            for slot in slots {
                // Under another of the values the branch's conditions may all be decided
                // (`user` missing): walked there too when that adds no characteristic.
                let tried = match (&body, &first_end) {
                    (Some(stmts), Some(_)) if decides_more => {
                        let before = self.snapshot();
                        let count = self.chars.len();
                        let end = self.seq(stmts, self.under(slot), branch_tail);
                        if self.chars.len() <= count + copies_allowed {
                            Some(end)
                        } else {
                            self.restore(before);
                            None
                        }
                    }
                    _ => None,
                };
                let end = match (&body, &first_end, tried) {
                    (_, _, Some(end)) => end,
                    (Some(_), Some(first), None) if decides_more => {
                        self.apply(Rule::SharedBranchWalkedOnce, None);
                        match first {
                            End::Branched => {
                                let last = body.as_ref().and_then(|b| b.last());
                                End::Done(match last {
                                    Some(l) => self.outcome_of(l, branch_tail),
                                    None => self.empty_outcome(branch_tail),
                                })
                            }
                            other => other.clone(),
                        }
                    }
                    (Some(stmts), _, None) => self.seq(stmts, self.under(slot), branch_tail),
                    (None, _, None) => End::Done(self.empty_outcome(branch_tail)),
                };
                if first_end.is_none() {
                    first_end = Some(end.clone());
                }
                match &end {
                    End::Exited(_) => self.finish(slot, &end, true),
                    // A branch that ended in conditionals of its own, in the middle of the method:
                    // the rest of the method still runs after them.
                    End::Branched if !branch_tail => continuing.push((slot, end)),
                    End::Branched => self.finish(slot, &end, true),
                    End::Done(_) if branch_tail => self.finish(slot, &end, true),
                    End::Done(_) => continuing.push((slot, end)),
                }
            }
        }
        let end = self.carry_on(continuing, rest, at, tail);
        if let Some((then_slots, else_slots, (then_words, else_words))) = named {
            self.name_what_differs(&then_slots, &else_slots, &then_words, &else_words);
        }
        end
    }

    /// Leaves on both sides of a split-out conditional that read alike ("writes
    /// attribute") are told apart by the value each side gives the expression ("writes
    /// attribute with 1" / "with 0").
    fn name_what_differs(
        &mut self,
        then_slots: &[Slot],
        else_slots: &[Slot],
        then_words: &str,
        else_words: &str,
    ) {
        if then_words == else_words || then_slots.is_empty() || else_slots.is_empty() {
            return;
        }
        let behavior = |walker: &Self, (c, v): Slot| {
            walker
                .chars
                .get(c)
                .and_then(|ch| ch.values.get(v))
                .and_then(|value| value.behavior.as_ref())
                .map(|b| b.description.clone())
        };
        let mut texts = then_slots
            .iter()
            .chain(else_slots)
            .map(|&slot| behavior(self, slot));
        let Some(Some(first)) = texts.next() else {
            return;
        };
        // A branch that only carries on says so; a value is not what it does.
        if first == super::NOTHING_MORE {
            return;
        }
        if !texts.all(|t| t.as_deref() == Some(first.as_str())) {
            return;
        }
        for (slots, words) in [(then_slots, then_words), (else_slots, else_words)] {
            for &(c, v) in slots {
                if let Some(b) = self
                    .chars
                    .get_mut(c)
                    .and_then(|ch| ch.values.get_mut(v))
                    .and_then(|value| value.behavior.as_mut())
                {
                    b.description = format!("{first} with {words}");
                }
            }
        }
    }

    /// After a conditional in the middle of a method: the rest nests under the one value
    /// that carries on, or sits beside the conditional when several do.
    pub fn carry_on(
        &mut self,
        continuing: Vec<(Slot, End)>,
        rest: &[Node],
        at: At,
        tail: bool,
    ) -> End {
        match continuing.as_slice() {
            [] => End::Branched,
            // Nothing follows here (the last statement of a branch in the middle of the
            // method): the branch ends with what it does; the level above places the rest.
            [(slot, own @ End::Done(_))] if rest.is_empty() => {
                self.finish(*slot, own, tail);
                End::Branched
            }
            [(slot, own)] => {
                let end = self.seq(rest, self.under(*slot), tail);
                if matches!(end, End::Branched)
                    && (is_nothing_more(own) || matches!(own, End::Branched))
                {
                    // The rest ends in conditionals of its own: this branch's paths that
                    // did nothing more end the way the method does (J10).
                    self.leave_to_final_outcome(*slot, None);
                } else if matches!(own, End::Branched) || is_nothing_more(own) {
                    self.fill_nothing_more(*slot, &end, tail);
                }
                if is_nothing_more(&end) && is_nothing_more(own) {
                    // Filled in by the level above, with what this branch set.
                    self.finish(*slot, own, tail);
                } else {
                    self.finish(*slot, &end, tail);
                }
                End::Branched
            }
            many => {
                self.apply(Rule::SeveralBranchesCarryOn, None);
                let end = self.seq(rest, at, tail);
                for (slot, own) in many {
                    // A branch that does nothing ends like the rest of the method; one that
                    // does something is described by what it does.
                    if let End::Done(o) = own {
                        if o.description == super::NOTHING_MORE {
                            // The rest does nothing more either (nothing follows: the
                            // last statement of a branch in the middle of the method):
                            // the level above fills it in, with what it set.
                            if is_nothing_more(&end) {
                                self.finish(*slot, own, false);
                                continue;
                            }
                            // The rest ends in conditionals of its own: this path ends the
                            // way the method does (J10), with what it set.
                            if matches!(end, End::Branched) {
                                self.leave_to_final_outcome(*slot, o.sets.as_deref());
                                continue;
                            }
                            // Its own branches that did nothing more end like the rest.
                            self.fill_nothing_more(*slot, &end, tail);
                            let end = match (&end, &o.sets) {
                                (End::Done(rest), Some(sets)) => End::Done(rest.with_sets(sets)),
                                (End::Exited(rest), Some(sets)) => {
                                    End::Exited(rest.with_sets(sets))
                                }
                                _ => end.clone(),
                            };
                            self.finish(*slot, &end, tail);
                            continue;
                        }
                    }
                    if matches!(own, End::Branched) {
                        if matches!(end, End::Branched) {
                            // Its paths that did nothing more go on into the rest's
                            // conditionals: they end the way the method does (J10), not
                            // with "does nothing more".
                            self.leave_to_final_outcome(*slot, None);
                        } else {
                            self.fill_nothing_more(*slot, &end, tail);
                        }
                    }
                    self.finish(*slot, own, false);
                }
                end
            }
        }
    }

    /// The leaves under `slot` that ended with "does nothing more" (a branch inside a
    /// branch, in the middle of the method) end the way the rest of the method does.
    fn fill_nothing_more(&mut self, slot: super::Slot, end: &End, tail: bool) {
        let outcome = match end {
            // Nothing more here either: the level above fills them in.
            End::Done(o) if o.description == super::NOTHING_MORE => return,
            End::Done(o) | End::Exited(o) => o.clone(),
            End::Branched => return,
        };
        let terminal = matches!(end, End::Exited(_)) || (tail && outcome.failure);
        let under = self.slots_under(slot);
        let nothing = super::NOTHING_MORE;
        for (ci, vi) in under {
            let leaf = self
                .chars
                .get(ci)
                .and_then(|c| c.values.get(vi))
                .is_some_and(|v| {
                    v.behavior
                        .as_ref()
                        .is_some_and(|b| b.description == nothing)
                });
            if leaf {
                let outcome = match self.sets_of((ci, vi)) {
                    Some(sets) => outcome.with_sets(sets),
                    None => outcome.clone(),
                };
                if let Some(v) = self.chars.get_mut(ci).and_then(|c| c.values.get_mut(vi)) {
                    v.terminal = terminal;
                    v.behavior = Some(outcome.behavior(terminal));
                }
            }
        }
    }
}

impl Walker<'_> {
    /// `slot` and every value of the characteristics below it, parents first.
    fn slots_under(&self, slot: super::Slot) -> Vec<super::Slot> {
        let mut under = vec![slot];
        let mut i = 0;
        while let Some(&(ci, vi)) = under.get(i) {
            i += 1;
            for (index, c) in self.chars.iter().enumerate() {
                if c.parent == Some(ci) && c.parent_value == Some(vi) {
                    under.extend((0..c.values.len()).map(|v| (index, v)));
                }
            }
        }
        under
    }

    /// The leaves under `slot` (and `slot` itself) that did nothing more, when the rest of
    /// the method ends in conditionals of its own: they end the way the method does, with
    /// what they set (J10, filled in once the walk ends), not with "does nothing more",
    /// which would say the rest does not run.
    pub(super) fn leave_to_final_outcome(&mut self, slot: super::Slot, sets: Option<&str>) {
        if let Some(sets) = sets {
            self.leaf_sets.retain(|(s, _)| *s != slot);
            self.leaf_sets.push((slot, sets.to_string()));
        }
        let nothing = super::NOTHING_MORE;
        let under = self.slots_under(slot);
        for (ci, vi) in under {
            if let Some(v) = self.chars.get_mut(ci).and_then(|c| c.values.get_mut(vi)) {
                if v.behavior
                    .as_ref()
                    .is_some_and(|b| b.description == nothing)
                {
                    v.behavior = None;
                    v.terminal = false;
                }
            }
        }
    }
}

/// A branch that did nothing the rest of the method does not do.
fn is_nothing_more(end: &End) -> bool {
    matches!(end, End::Done(o) if o.description == super::NOTHING_MORE)
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn if_else_in_return_position() {
        let m = analyze_one(
            "class PaymentsController < ApplicationController\n  def create\n    @payment = Payment.new(payment_params)\n    if @payment.save\n      redirect_to @payment\n    else\n      render :new, status: :unprocessable_entity\n    end\n  end\nend\n",
            "create",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 payment_save [boolean] true:payment save succeeds -> redirects to payment | false:payment save fails => renders new template with 422 status",
            ]
        );
    }

    #[test]
    fn elsif_on_different_subjects_nests_under_else() {
        let m = analyze_one(
            "class Order\n  def discount_for(user)\n    if user.admin?\n      total_cents\n    elsif total_cents >= 10_000\n      (total_cents * 0.1).round\n    else\n      0\n    end\n  end\nend\n",
            "discount_for",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 user_admin [boolean] true:admin user -> returns the total cents | false:NOT admin user",
                "2 total_cents [range] at_least:at least 10000 -> returns total cents times 0.1 | below:below 10000 -> returns 0",
            ]
        );
    }

    #[test]
    fn and_nests_the_second_condition_under_the_first() {
        let m = analyze_one(
            "class P\n  def refundable?\n    if completed? && recent?\n      true\n    else\n      false\n    end\n  end\nend\n",
            "refundable?",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 completed [boolean] true:completed | false:NOT completed => returns false",
                "2 recent [boolean] true:recent -> returns true | false:NOT recent => returns false",
            ]
        );
    }

    #[test]
    fn a_shared_branch_is_walked_where_its_own_conditions_are_still_open() {
        // The `elsif` runs when `user` is nil or is not a moderator: walked under "not a
        // moderator", where the author's own case (`user.id == user_id`) can still hold;
        // under "user missing" its conditions would all be false.
        let m = crate::analyze::tests::analyze_one(
            "class Comment\n  def undeletable_by?(user)\n    if user&.moderator?\n      true\n    elsif user && user.id == user_id && !moderated?\n      true\n    else\n      false\n    end\n  end\nend\n",
            "undeletable_by?",
        );
        assert_eq!(
            crate::analyze::tests::flat(&m),
            vec![
                "1 user [presence] present:user present | nil:user missing => returns false",
                "2 user_moderator [boolean] true:moderator user -> returns true | false:NOT moderator user",
                "3 user_id_matches [boolean] true:user id matching the record's user id | false:user id NOT matching the record's user id => returns false",
                "4 moderated [boolean] true:moderated => returns false | false:NOT moderated -> returns true",
            ]
        );
    }

    #[test]
    fn an_assigned_elsif_chain_on_one_subject_is_one_enum_each_value_set() {
        // `delta = if ... elsif ... else ... end` mid-method: each value leads to the rest
        // of the method with what it set, not to "does nothing more".
        let m = analyze_one(
            "class Scorer\n  def apply(new_vote, story)\n    delta = if new_vote == 1\n      1\n    elsif new_vote == -1\n      -1\n    else\n      0\n    end\n    story.update_score!(delta)\n  end\nend\n",
            "apply",
        );
        assert_eq!(flat(&m), vec![
                "1 new_vote [enum] 1:1 -> updates the story score with delta set to 1 | -1:-1 -> updates the story score with delta set to -1 | other:other new vote -> updates the story score with delta set to 0",
            ]);
    }

    #[test]
    fn nested_branches_that_only_set_values_end_like_the_rest_of_the_method() {
        // The `elsif` tests another subject: a conditional inside the `else`, whose own
        // branches carry on too.
        let m = analyze_one(
            "class Vote\n  def self.cast(vote, new_vote, target)\n    delta = if new_vote == 1\n      1\n    elsif vote.value == 1\n      -1\n    else\n      0\n    end\n    target.update_score!(delta)\n  end\nend\n",
            "cast",
        );
        assert_eq!(flat(&m), vec![
                "1 new_vote [enum] 1:1 -> updates the target score with delta set to 1 | other:NOT 1",
                "2 vote_value [enum] 1:1 -> updates the target score with delta set to -1 | other:NOT 1 -> updates the target score with delta set to 0",
            ]);
    }

    #[test]
    fn a_branch_that_sets_a_literal_says_which() {
        // Both leaves return the same expression: the value set is what tells them apart.
        let m = analyze_one(
            "class Badge\n  def label(user)\n    title = if user.admin?\n      \"Admin\"\n    else\n      user.name\n    end\n    \"#{title}!\"\n  end\nend\n",
            "label",
        );
        assert_eq!(flat(&m), vec![
                "1 user_admin [boolean] true:admin user -> returns the formatted text with title set to \"Admin\" | false:NOT admin user -> returns the formatted text with title set to user name",
            ]);
    }

    #[test]
    fn a_value_nothing_uses_in_the_middle_is_called_not_returned() {
        // `vote.story if ...` preloads: the method goes on, so "returns vote story" would
        // be false.
        let m = analyze_one(
            "class VoteCaster\n  def cast(vote, story_id, new_vote)\n    vote.story if story_id.present?\n    return if vote.value == new_vote\n\n    vote.value = new_vote\n    vote.save!\n    :cast\n  end\nend\n",
            "cast",
        );
        assert_eq!(flat(&m), vec![
                "1 story_id [presence] present:story id present -> calls story on the vote | nil:story id missing -> returns :cast",
                "1 vote_value_matches [boolean] true:vote value matching new vote => returns nil | false:vote value NOT matching new vote -> returns :cast",
            ]);
    }

    #[test]
    fn an_elsif_after_a_conjunction_is_asked_whichever_operand_failed() {
        // `type` missing or `id` missing: either way `project_id` is asked next.
        let m = analyze_one(
            "class WatchableFinder\n  def find(type, id, project_id)\n    if type && id\n      Watchable.where(type: type, id: id).to_a\n    elsif project_id\n      Project.find(project_id)\n    end\n  end\nend\n",
            "find",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 type [presence] present:type present | nil:type missing",
                "2 id [presence] present:id -> returns the matching Watchable records | nil:id",
                "3 project_id [presence] present:project id -> returns the project | nil:project id => returns nil",
                "2 project_id_2 [presence] present:project id -> returns the project | nil:project id => returns nil",
            ]
        );
    }

    #[test]
    fn a_branch_that_carries_on_into_a_decided_condition_ends_as_the_action_does() {
        let m = analyze_one(
            "class SignupController < ApplicationController\n  def invited\n    if !Rails.application.open_signups?\n      if !(@invitation = Invitation.find_by(code: params[:code]))\n        return redirect_to \"/signup\"\n      end\n    end\n    @new_user = User.new\n    if !Rails.application.open_signups?\n      @new_user.email = @invitation.email\n    end\n  end\nend\n",
            "invited",
        );
        // Not "does nothing more": the path with an invitation goes on to the end.
        assert_eq!(
            flat(&m),
            vec![
                "1 application_open_signups [boolean] true:application open signups -> renders invited template | false:NOT application open signups",
                "2 invitation [presence] present:invitation -> sets the new user email | nil:invitation => redirects to /signup",
            ]
        );
    }

    #[test]
    fn a_conjunction_whose_second_part_is_known_false_asks_nothing_more() {
        // Under "without most recent similar", `user&.is_new? && most_recent_similar` is
        // false whoever the user is: no user characteristics there.
        let m = analyze_one(
            "class Story < ApplicationRecord\n  def already_posted_recently?\n    if most_recent_similar&.is_recent?\n      true\n    elsif user&.is_new? && most_recent_similar\n      true\n    else\n      false\n    end\n  end\nend\n",
            "already_posted_recently?",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 most_recent_similar [presence] present:most recent similar present | nil:most recent similar missing => returns false",
                "2 most_recent_similar_recent [boolean] true:recent most recent similar -> returns true | false:NOT recent most recent similar",
                "3 user [presence] present:user | nil:user => returns false",
                "4 user_new [boolean] true:new user -> returns true | false:NOT new user => returns false",
            ]
        );
    }

    #[test]
    fn two_patterns_are_two_questions() {
        // `line` not matching /^commit/ says nothing about /^(\w+):/.
        let m = analyze_one(
            "class LogParser\n  def kind(line, state)\n    if line =~ /^commit/\n      :commit\n    elsif state.zero? && line =~ /^(\\w+):/\n      :header\n    else\n      :other\n    end\n  end\nend\n",
            "kind",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 line_matches [boolean] true:line matching the pattern -> returns :commit | false:NOT line matching the pattern",
                "2 state [range] zero:zero | non_zero:non-zero -> returns :other",
                "3 line_matches_2 [boolean] true:line matching the pattern -> returns :header | false:NOT line matching the pattern -> returns :other",
            ]
        );
    }

    #[test]
    fn a_state_known_equal_to_one_value_decides_a_list_of_others() {
        // Under "state is 0", `[1, 2].include?(state)` is false.
        let m = analyze_one(
            "class LogParser\n  def step(state, line)\n    if state == 0 && line.empty?\n      :start\n    elsif [1, 2].include?(state) && line.start_with?(\":\")\n      :file\n    else\n      :other\n    end\n  end\nend\n",
            "step",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 state [enum] 0:0 | other:NOT 0",
                "2 line [presence] present:line -> returns :other | nil:line -> returns :start",
                "2 state_listed [boolean] true:state in 1 and 2 | false:NOT state in 1 and 2 -> returns :other",
                "3 line_start_with [boolean] true:line starting with \":\" -> returns :file | false:NOT line starting with \":\" -> returns :other",
            ]
        );
    }

    #[test]
    fn a_state_known_equal_to_one_value_is_not_another() {
        // Under "state is 0", `state == 1` is false: no "state is 1" below it.
        let m = analyze_one(
            "class LogParser\n  def step(state, line)\n    if state == 0 && line.empty?\n      :start\n    elsif state == 1\n      :description\n    else\n      :other\n    end\n  end\nend\n",
            "step",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 state [enum] 0:0 | other:NOT 0",
                "2 line [presence] present:line -> returns :other | nil:line -> returns :start",
                "2 state_2 [enum] 1:1 -> returns :description | other:NOT 1 -> returns :other",
            ]
        );
    }

    #[test]
    fn a_counter_increased_in_a_branch_says_by_how_much() {
        let m = analyze_one(
            "class Tally\n  def bump(count, big)\n    if big\n      count += 10\n    else\n      count -= 1\n    end\n    store(count)\n  end\nend\n",
            "bump",
        );
        assert_eq!(flat(&m), vec![
                "1 big [presence] present:big present -> stores count with count increased by 10 | nil:big missing -> stores count with count decreased by 1",
            ]);
    }

    #[test]
    fn a_string_the_behavior_rules_would_rewrite_is_not_quoted() {
        // `can't` would read `is able to't`; the value is left out instead.
        let m = analyze_one(
            "class Flash\n  def message(story)\n    if story.nil?\n      error = \"can't find story\"\n    else\n      error = \"merged\"\n    end\n    notify(error)\n  end\nend\n",
            "message",
        );
        assert_eq!(flat(&m), vec![
                "1 story [presence] present:story present -> notifies error with error set to \"merged\" | nil:story missing -> notifies error",
            ]);
    }

    #[test]
    fn a_one_letter_record_local_is_named_after_its_class() {
        // `v` reads as nothing in `destroys the v`.
        let m = analyze_one(
            "class Vote\n  def self.cast(user_id, story_id, value)\n    v = Vote.where(user_id: user_id, story_id: story_id).first_or_initialize\n    if value == 0\n      v.destroy!\n    else\n      v.save!\n    end\n  end\nend\n",
            "cast",
        );
        assert_eq!(
            flat(&m),
            vec!["1 value [enum] 0:0 -> destroys the vote | other:NOT 0 -> saves the vote"]
        );
    }
}
