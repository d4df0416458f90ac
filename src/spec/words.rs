//! Context words (contract §4.3, the guide's rule on `when`/`with`/`and`/`but`/`without`):
//! which word opens a context, from the characteristic's level and type and the value's
//! position after ordering.

use crate::yaml::Value;

use super::model::Characteristic;
use super::ruby;

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

/// The word for the value at `index` (after ordering) of `c`, whose raw description is
/// `description`, at `level`.
pub fn context_word(
    c: &Characteristic,
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
            if index == 0 {
                "with"
            } else if kind == "presence" && absence_friendly(description) {
                "without"
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
        context_word(&c(kind, values), &Value::from(description), index, level)
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
        assert_eq!(context_word(&c("presence", 2), &Value::Null, 1, 2), "but");
    }
}
