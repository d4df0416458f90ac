//! `a <=> b` as what a method returns: three outcomes, not one. `def <=>(other);
//! sort_key <=> other.sort_key; end` is specified by three contexts (`sort key is below
//! other sort key` → `returns -1`, equal → `0`, above → `1`), the cases `Comparable` and
//! `sort` rely on; a plan with one leaf (`returns sort key ordered against ...`) tests
//! none of them.
//!
//! Applies when the method decides nothing else and ends with the comparison.

use crate::index::body::Node;
use crate::yaml::Value;

use super::{At, Walker};
use crate::analyze::model::{CharType, Setup, SetupType, Source};
use crate::analyze::outcome::Outcome;

impl Walker<'_> {
    /// Plans `last`, the final statement of a method that decides nothing else, when it is
    /// a `<=>` comparison: one characteristic with three values. Returns whether it did.
    pub fn spaceship(&mut self, last: &Node) -> bool {
        let Node::Call(c) = last else { return false };
        let (Some(left), [right]) = (&c.recv, c.args.as_slice()) else {
            return false;
        };
        if c.name != "<=>" {
            return false;
        }
        let left_words = crate::analyze::phrase::noun(left);
        let right_words = crate::analyze::phrase::noun(right);
        let name = crate::analyze::grammar::identifier(&left_words);
        let values = vec![
            (
                Value::String("below".into()),
                format!("below {right_words}"),
            ),
            (
                Value::String("equal".into()),
                format!("equal to {right_words}"),
            ),
            (
                Value::String("above".into()),
                format!("above {right_words}"),
            ),
        ];
        let index = self.push_char(
            name,
            format!("{left_words} compared with {right_words}"),
            CharType::Enum,
            values,
            Source::Internal,
            Setup {
                kind: SetupType::Data,
                class: None,
            },
            At::root(),
            (c.line, c.line),
            None,
            None,
        );
        for (slot, result) in [(0, "-1"), (1, "0"), (2, "1")] {
            let outcome = Outcome {
                description: format!("returns {result}"),
                failure: false,
                guessed: false,
                sets: None,
            };
            self.set_leaf((index, slot), &outcome, false);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn a_comparison_returned_has_three_outcomes() {
        let m = analyze_one(
            "class Version\n  def <=>(other)\n    sort_key <=> other.sort_key\n  end\nend\n",
            "<=>",
        );
        assert_eq!(
            flat(&m),
            vec!["1 sort_key [enum] below:below other sort key -> returns -1 | equal:equal to other sort key -> returns 0 | above:above other sort key -> returns 1"]
        );
    }
}
