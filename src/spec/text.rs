//! Context description text (contract §4.4): the value's description (or its value) with
//! `not` upper-cased, prefixed by `{name} is` for non-binary types, and the quoting used
//! inside `context '...'`.

use super::model::{Characteristic, ValueInput};
use crate::ruby;

/// [`context_text`] of a characteristic among the method's `all`: a name the analyzer made
/// unique with a number (`request_format_2`: the format asked again under another branch)
/// reads as the subject it is (`request format is HTML`), not `request format 2`. The
/// number stays in the name (children find their parent by it). A name that merely ends
/// in a digit (`address_2`, with no `address` beside it) is read as written.
pub fn context_text_in(c: &Characteristic, v: &ValueInput, all: &[Characteristic]) -> String {
    let name = c.name_s();
    let base = name
        .rsplit_once('_')
        .filter(|(_, n)| n.len() <= 3 && n.parse::<u32>().is_ok_and(|n| n >= 2))
        .map(|(base, _)| base)
        .filter(|base| all.iter().any(|o| o.name_s() == *base));
    match base {
        Some(base) if !matches!(c.kind_str(), Some("boolean" | "presence")) => {
            let renamed = Characteristic {
                name: crate::yaml::Value::String(base.to_string()),
                ..c.clone()
            };
            context_text(&renamed, v)
        }
        _ => context_text(c, v),
    }
}

/// The text after the context word, e.g. `NOT authenticated` or `payment method is card`.
pub fn context_text(c: &Characteristic, v: &ValueInput) -> String {
    let description = if ruby::truthy(&v.description) {
        ruby::to_s(&v.description)
    } else {
        ruby::to_s(&v.value)
    };
    let description = ruby::replace_word(&description, "not", "NOT");
    match c.kind_str() {
        Some("boolean" | "presence") => description,
        _ => format!("{} is {description}", c.name_s().replace('_', " ")),
    }
}

/// Text for a single-quoted Ruby string: `'` becomes `\'` and `\` becomes `\\`, so the
/// string reads back exactly (the original script escaped only quotes, which broke on a
/// trailing backslash).
pub fn single_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Value;

    fn text(kind: &str, name: &str, value: Value, description: Value) -> String {
        let c = Characteristic {
            name: Value::from(name),
            kind: Value::from(kind),
            level: Value::from(1),
            depends_on: Value::Null,
            when_parent: None,
            values: Vec::new(),
            source_line: Value::Null,
            threshold_value: Value::Null,
            threshold_operator: Value::Null,
        };
        let v = ValueInput {
            value,
            description,
            terminal: false,
            behavior_id: Value::Null,
        };
        context_text(&c, &v)
    }

    #[test]
    fn binary_uses_the_description_and_others_name_is() {
        assert_eq!(
            text(
                "boolean",
                "authenticated",
                Value::Bool(false),
                Value::from("not authenticated")
            ),
            "NOT authenticated"
        );
        assert_eq!(
            text(
                "enum",
                "payment_method",
                Value::from("card"),
                Value::from("card")
            ),
            "payment method is card"
        );
        assert_eq!(
            text(
                "range",
                "total",
                Value::from("low"),
                Value::from("Not enough, nothing")
            ),
            "total is NOT enough, nothing"
        );
        assert_eq!(
            text("presence", "card", Value::from("present"), Value::Null),
            "present"
        );
        assert_eq!(
            text(
                "enum",
                "state",
                crate::yaml::symbol("done"),
                Value::Bool(false)
            ),
            "state is done"
        );
    }

    #[test]
    fn quotes_and_backslashes_are_escaped() {
        assert_eq!(single_quoted("user's card"), "user\\'s card");
        assert_eq!(single_quoted("a\\b"), "a\\\\b");
    }
}
