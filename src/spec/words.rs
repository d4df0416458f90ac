//! Context words (contract §4.3, the guide's rule on `when`/`with`/`and`/`but`/`without`):
//! which word opens a context, from the characteristic's level and type and the value.
//!
//! The pipeline's generator picks the word by the value's position after ordering (first
//! `with`, second `without`/`but`), and ordering puts non-terminal values first, so a
//! presence whose present value is terminal came out as `context 'with attachments'`
//! over `let(:attachments) { nil }`. Here the word follows the value of a boolean or
//! presence (`true`/`present` → `with`, `false`/`nil` → `without` or `but`); every other
//! case keeps the pipeline's positional word, so skeletons stay byte-identical wherever
//! the original was right.

use crate::yaml::Value;

use super::model::Characteristic;
use crate::ruby;

/// Words that make a description unfit for `without` ("without NOT paid" reads wrong).
const ABSENCE_UNFRIENDLY: &[&str] = &[
    "not",
    "without",
    "no",
    "empty",
    "missing",
    "invalid",
    "insufficient",
    "blocked",
    "denied",
    "failed",
    "error",
];

/// The placeholder for a characteristic type the generator does not know.
pub const UNKNOWN_WORD: &str = "{CONTEXT_WORD}";

/// The word for `value` at `index` (after ordering) of `c`, whose raw description is
/// `description`, at `level`.
pub fn context_word(
    c: &Characteristic,
    value: &Value,
    description: &Value,
    index: usize,
    level: i64,
) -> &'static str {
    if level == 1 {
        return "when";
    }
    match c.kind_str() {
        Some("enum" | "sequential") => "and",
        Some(kind @ ("boolean" | "presence")) => {
            let first = match polarity(kind, value) {
                Some(positive) => positive,
                None => index == 0,
            };
            if first {
                "with"
            } else if kind == "presence" && absence_friendly(description) {
                "without"
            } else if kind == "presence"
                && polarity(kind, value) == Some(false)
                && !has_not(description)
            {
                // `context 'but error'` over `let(:error) { nil }` says the opposite.
                "but NOT"
            } else {
                "but"
            }
        }
        Some("range") => match (c.values.len(), index) {
            (2, 0) => "with",
            (2, _) => "but",
            _ => "and",
        },
        _ => UNKNOWN_WORD,
    }
}

/// Whether a boolean's or presence's value is the positive one (`true`, `"present"`) or
/// the negative one (`false`, `"nil"`); `None` for any other value.
fn polarity(kind: &str, value: &Value) -> Option<bool> {
    match (kind, value) {
        ("boolean", Value::Bool(b)) => Some(*b),
        ("presence", Value::String(s)) if s == "present" => Some(true),
        ("presence", Value::String(s)) if s == "nil" => Some(false),
        _ => None,
    }
}

/// Whether a description already says NOT.
fn has_not(description: &Value) -> bool {
    match description {
        Value::Null => false,
        other => ruby::has_word(&ruby::to_s(other), "not"),
    }
}

/// A description that reads well after `without`: not blank and none of the
/// absence-unfriendly words.
fn absence_friendly(description: &Value) -> bool {
    let text = match description {
        Value::Null => String::new(),
        other => ruby::to_s(other),
    };
    if ruby::blank(&text) {
        return false;
    }
    !ABSENCE_UNFRIENDLY.iter().any(|w| ruby::has_word(&text, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(kind: &str, values: usize) -> Characteristic {
        Characteristic {
            name: Value::from("c"),
            kind: Value::from(kind),
            level: Value::from(2),
            depends_on: Value::Null,
            when_parent: None,
            values: (0..values)
                .map(|_| crate::spec::model::ValueInput {
                    value: Value::Null,
                    description: Value::Null,
                    terminal: false,
                    behavior_id: Value::Null,
                })
                .collect(),
            source_line: Value::Null,
            threshold_value: Value::Null,
            threshold_operator: Value::Null,
        }
    }

    fn word(
        kind: &str,
        values: usize,
        description: &str,
        index: usize,
        level: i64,
    ) -> &'static str {
        context_word(
            &c(kind, values),
            &Value::Null,
            &Value::from(description),
            index,
            level,
        )
    }

    #[test]
    fn every_word() {
        assert_eq!(word("enum", 3, "card", 1, 1), "when");
        assert_eq!(word("nonsense", 3, "card", 1, 1), "when");
        assert_eq!(word("enum", 3, "card", 0, 2), "and");
        assert_eq!(word("sequential", 3, "draft", 2, 3), "and");
        assert_eq!(word("boolean", 2, "admin", 0, 2), "with");
        assert_eq!(word("boolean", 2, "admin", 1, 2), "but");
        assert_eq!(word("presence", 2, "saved card", 0, 2), "with");
        assert_eq!(word("presence", 2, "saved card", 1, 2), "without");
        assert_eq!(word("presence", 2, "NOT saved card", 1, 2), "but");
        assert_eq!(word("presence", 2, "empty cart", 1, 2), "but");
        assert_eq!(word("presence", 2, "  ", 1, 2), "but");
        assert_eq!(word("range", 2, "sufficient", 0, 2), "with");
        assert_eq!(word("range", 2, "insufficient", 1, 2), "but");
        assert_eq!(word("range", 3, "low", 0, 2), "and");
        assert_eq!(word("custom", 2, "x", 0, 2), "{CONTEXT_WORD}");
        assert_eq!(
            context_word(&c("presence", 2), &Value::Null, &Value::Null, 1, 2),
            "but"
        );
    }

    /// Regression (redmine `Version#deletable?`): the present value of `attachments` is
    /// terminal, so ordering puts `nil` first; its word is still `without`, and the
    /// present one's `with`, whatever their positions.
    #[test]
    fn the_word_follows_the_value_not_its_position() {
        let word = |kind: &str, value: Value, description: &str, index: usize| {
            context_word(&c(kind, 2), &value, &Value::from(description), index, 2)
        };
        assert_eq!(
            word("presence", Value::from("nil"), "attachments", 0),
            "without"
        );
        assert_eq!(
            word("presence", Value::from("present"), "attachments", 1),
            "with"
        );
        assert_eq!(word("boolean", Value::Bool(false), "NOT admin", 0), "but");
        assert_eq!(word("boolean", Value::Bool(true), "admin", 1), "with");
        assert_eq!(word("presence", Value::from("nil"), "NOT a card", 0), "but");
        assert_eq!(word("presence", Value::from("nil"), "error", 1), "but NOT");
        // Values the pipeline's words know nothing about keep the positional word.
        assert_eq!(word("boolean", Value::from("yes"), "x", 0), "with");
        assert_eq!(word("boolean", Value::from("yes"), "x", 1), "but");
    }
}
