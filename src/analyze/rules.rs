//! The judgement rules: where the contract leaves a choice to judgement (\[J\] in the
//! digest's §5), the analyzer takes one documented, deterministic answer. Each answer is a
//! [`Rule`] with an id, a text, and the factor by which it lowers the method's
//! `confidence`; the method's `notes` name every rule applied (`J04: ...`), once per
//! detail, so an agent knows what to double-check.

/// A judgement the analyzer makes for the reader to double-check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// J01. The method nests more conditions than the walker follows
    /// (`flow::MAX_WALK_DEPTH`); the rest of it reads as its last statement. Real
    /// methods never get there; generated code can.
    NestingLimit,
    /// J02. A behavior's text was written from the code it ends with rather than from a
    /// known pattern (`returns the formatted total`): the words may miss the intent.
    GuessedBehaviorText,
    /// J03. A branch in the middle of a method is described by its own last statement,
    /// since the method goes on after it.
    MidMethodBranchOutcome,
    /// J05. A call with arguments tested for truthiness (`if gateway.hold(amount)`) reads
    /// as "succeeds / fails".
    TruthinessAsSuccess,
    /// J06. An expression tested for truthiness that is neither a predicate nor a known
    /// value reads as a boolean.
    TruthinessAsBoolean,
    /// J07. The class of a variable was inferred from its name (`payment` → `Payment`),
    /// for `setup` and `source`.
    ClassFromName,
    /// J08. An empty branch in the middle of a method reads as "does nothing more".
    EmptyBranch,
    /// J09. A path ending in `nil`, `false` or an error result is a terminal failure (the
    /// contract's heuristic 1 applies to exits; this extends it to returned failures).
    ReturnedFailureIsTerminal,
    /// J10. A leaf the walker could not give an outcome takes the method's final outcome.
    LeafTakesFinalOutcome,
    /// J11. `case/in` patterns other than literals and constants are listed as enum values
    /// by their text.
    PatternsAsText,
    /// J12. The guard clauses of a private method are inlined where the public method
    /// calls it: they become the caller's characteristics.
    PrivateGuardsInlined,
    /// J13. A `rescue` clause is one terminal value (the error raised) beside the
    /// protected code, whose own characteristics stay where they are.
    RescueValue,
    /// J14. Several values pass a guard: the rest of the method is placed beside it, not
    /// under each.
    SeveralPassGuard,
    /// J15. Several branches carry on: the rest of the method is placed beside the
    /// conditional, and each branch is described by what it does.
    SeveralBranchesCarryOn,
    /// J16. A guard inside a loop is read as "some element fails the check".
    LoopGuardSomeElement,
    /// J17. A block that runs once per element (`each`, `find_each`, `map`) is walked as
    /// if it ran once: a condition inside is about one element of the collection, set up
    /// by putting such an element in it.
    BlockRunsOnce,
    /// J18. A branch reached through several values (the `else` of `a && b`) that holds
    /// further conditions is walked once, under the deepest of those values (`a` true and
    /// `b` false rather than `a` false, where a missing subject would decide the branch's
    /// own conditions); the others end with the outcome that walk ends with.
    SharedBranchWalkedOnce,
    /// J19. A `raise` of a class the method itself rescues ends with what the `rescue`
    /// clause does (`returns nil`), and that clause gets no characteristic of its own: the
    /// condition that raises is the context where the error happens.
    RaiseRescuedHere,
    /// J20. A param every route to a controller action carries (`params[:id]` of a member
    /// route: a required dynamic segment of each of its paths in `config/routes.rb`) is
    /// present whenever the action runs: checks of it are decided, not contexts.
    RouteParamPresent,
    /// J21. `node && node[name]`: a nil guard before reading an element of the same
    /// value. A missing `node` is one way for the element to be missing, and both take the
    /// same branch, so the element's presence is the one characteristic (an attribute
    /// read, `user && user.admin`, keeps both: a missing user is a case of its own).
    NilGuardOnRead,
    /// J22. In a model callback that runs on a valid record (`before_save`,
    /// `before_destroy`...), an attribute or association the model validates the presence
    /// of (`validates_presence_of :project`, with the `project_id` of its `belongs_to`) is
    /// present: checks of it are decided. A record saved with `validate: false` or
    /// `update_column` could still lack it, hence the note.
    ValidatedPresent,
    /// J23. `record.respond_to?(:persisted?)`, `object.respond_to?(:errors)`,
    /// `klass.respond_to?(:human_attribute_name)`: a method of the ActiveModel API (what
    /// `ActiveModel::Lint` requires of every model, and `human_attribute_name` of its class)
    /// is there on any model a form or view is given: the check guards against nothing a
    /// spec sets up, and is decided true. Asked of another method, or of a class (`object.class.respond_to?(:human_attribute_name)`, where the object may be nil or a plain object), it stays a question.
    ActiveModelApi,
}

impl Rule {
    /// The id named in `notes` (`J01`...).
    pub fn id(self) -> &'static str {
        match self {
            Rule::NestingLimit => "J01",
            Rule::GuessedBehaviorText => "J02",
            Rule::MidMethodBranchOutcome => "J03",
            Rule::TruthinessAsSuccess => "J05",
            Rule::TruthinessAsBoolean => "J06",
            Rule::ClassFromName => "J07",
            Rule::EmptyBranch => "J08",
            Rule::ReturnedFailureIsTerminal => "J09",
            Rule::LeafTakesFinalOutcome => "J10",
            Rule::PatternsAsText => "J11",
            Rule::PrivateGuardsInlined => "J12",
            Rule::RescueValue => "J13",
            Rule::SeveralPassGuard => "J14",
            Rule::SeveralBranchesCarryOn => "J15",
            Rule::LoopGuardSomeElement => "J16",
            Rule::BlockRunsOnce => "J17",
            Rule::SharedBranchWalkedOnce => "J18",
            Rule::RaiseRescuedHere => "J19",
            Rule::RouteParamPresent => "J20",
            Rule::NilGuardOnRead => "J21",
            Rule::ValidatedPresent => "J22",
            Rule::ActiveModelApi => "J23",
        }
    }

    /// What the rule decided, in one sentence.
    pub fn text(self) -> &'static str {
        match self {
            Rule::NestingLimit => {
                "the method nests more conditions than are followed; the rest of it reads as its last statement"
            }
            Rule::GuessedBehaviorText => "behavior text written from the code",
            Rule::MidMethodBranchOutcome => "a mid-method branch's behavior is its own last statement",
            Rule::TruthinessAsSuccess => "a call tested for truthiness reads as succeeds/fails",
            Rule::TruthinessAsBoolean => "an expression tested for truthiness reads as a boolean",
            Rule::ClassFromName => "the class of a variable was inferred from its name",
            Rule::EmptyBranch => {
                "an empty branch in the middle of a method reads as `does nothing more`"
            }
            Rule::ReturnedFailureIsTerminal => {
                "a path ending in nil, false or an error result is treated as terminal"
            }
            Rule::LeafTakesFinalOutcome => {
                "a leaf without its own outcome takes the method's final outcome"
            }
            Rule::PatternsAsText => "`case/in` patterns are listed as enum values by their text",
            Rule::PrivateGuardsInlined => {
                "guard clauses of a private method are inlined where it is called"
            }
            Rule::RescueValue => {
                "a rescue clause is one terminal value (the error raised) beside the protected code"
            }
            Rule::SeveralPassGuard => {
                "several values pass a guard: the rest of the method is placed beside it"
            }
            Rule::SeveralBranchesCarryOn => {
                "several branches carry on: the rest of the method is placed beside the conditional"
            }
            Rule::LoopGuardSomeElement => {
                "a guard inside a loop is read as `some element fails the check`"
            }
            Rule::BlockRunsOnce => {
                "a block run per element is walked once: its conditions are about one element"
            }
            Rule::SharedBranchWalkedOnce => {
                "a branch reached through several values is walked once, under the deepest"
            }
            Rule::RaiseRescuedHere => {
                "a raise the method rescues ends with what its rescue clause does"
            }
            Rule::RouteParamPresent => {
                "a param every route to the action carries is present: its checks are decided"
            }
            Rule::NilGuardOnRead => {
                "a nil guard before reading an element of the same value is part of that read's presence"
            }
            Rule::ValidatedPresent => {
                "what the model validates the presence of is present in a callback on a valid record: its checks are decided"
            }
            Rule::ActiveModelApi => {
                "a model responds to the ActiveModel API: checking that it does is decided"
            }
        }
    }

    /// The factor by which one use lowers the method's `confidence`.
    pub fn factor(self) -> f64 {
        match self {
            Rule::NestingLimit => 0.5,
            Rule::LoopGuardSomeElement => 0.85,
            Rule::GuessedBehaviorText
            | Rule::MidMethodBranchOutcome
            | Rule::TruthinessAsSuccess
            | Rule::TruthinessAsBoolean
            | Rule::LeafTakesFinalOutcome
            | Rule::PatternsAsText
            | Rule::SeveralPassGuard
            | Rule::SeveralBranchesCarryOn
            | Rule::BlockRunsOnce
            | Rule::SharedBranchWalkedOnce => 0.9,
            Rule::ClassFromName
            | Rule::EmptyBranch
            | Rule::ReturnedFailureIsTerminal
            | Rule::PrivateGuardsInlined
            | Rule::RescueValue
            | Rule::RaiseRescuedHere
            | Rule::RouteParamPresent
            | Rule::NilGuardOnRead
            | Rule::ValidatedPresent
            | Rule::ActiveModelApi => 0.95,
        }
    }

    /// The note for one use: `J05: a call tested for truthiness ... (`gateway.hold(1)`)`.
    pub fn note(self, detail: Option<&str>) -> String {
        match detail {
            Some(d) => format!("{}: {} ({d})", self.id(), self.text()),
            None => format!("{}: {}", self.id(), self.text()),
        }
    }

    /// Every rule, in id order (for docs/rules.md and tests).
    pub const ALL: [Rule; 22] = [
        Rule::NestingLimit,
        Rule::GuessedBehaviorText,
        Rule::MidMethodBranchOutcome,
        Rule::TruthinessAsSuccess,
        Rule::TruthinessAsBoolean,
        Rule::ClassFromName,
        Rule::EmptyBranch,
        Rule::ReturnedFailureIsTerminal,
        Rule::LeafTakesFinalOutcome,
        Rule::PatternsAsText,
        Rule::PrivateGuardsInlined,
        Rule::RescueValue,
        Rule::SeveralPassGuard,
        Rule::SeveralBranchesCarryOn,
        Rule::LoopGuardSomeElement,
        Rule::BlockRunsOnce,
        Rule::SharedBranchWalkedOnce,
        Rule::RaiseRescuedHere,
        Rule::RouteParamPresent,
        Rule::NilGuardOnRead,
        Rule::ValidatedPresent,
        Rule::ActiveModelApi,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_in_order() {
        // Ids are never reused: J04 (`a && b` in a guard as one characteristic) was
        // retired when guards started to chain like every `&&` (contract rule 8).
        let ids: Vec<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(ids, sorted);
        assert!(!ids.contains(&"J04"));
        for r in Rule::ALL {
            assert!(r.factor() > 0.0 && r.factor() < 1.0, "{r:?}");
            assert!(!r.text().ends_with('.'), "{r:?}");
        }
        // docs/rules.md lists every rule as it is: id, note and factor on its row.
        let doc = include_str!("../../docs/rules.md");
        for r in Rule::ALL {
            let row = format!(
                "| {} | {} | {} |",
                r.id(),
                r.text().replace('|', "\\|"),
                r.factor()
            );
            assert!(doc.contains(&row), "docs/rules.md lacks {row}");
        }
        assert_eq!(
            doc.lines().filter(|l| l.starts_with("| J")).count(),
            Rule::ALL.len(),
            "docs/rules.md lists a rule that is gone"
        );
        assert_eq!(
            Rule::TruthinessAsSuccess.note(Some("`gateway.hold(1)`")),
            "J05: a call tested for truthiness reads as succeeds/fails (`gateway.hold(1)`)"
        );
    }
}
