//! The `let` line of a context (contract §4.5): the characteristic's value for this branch,
//! shadowing the outer one.
//!
//! The line is the pipeline's wherever that is valid Ruby. Where the original wrote invalid
//! Ruby (`let(:amount) { :1 }`, `{ :bank transfer }`, `{ : }` for an enum value of nil, a
//! name with spaces), the value or name is written as a literal that parses: `1`,
//! `:"bank transfer"`, `nil`, `let(:"payment method")`.

use crate::yaml::Value;

use super::model::{Characteristic, ValueInput};
use crate::ruby;

/// The placeholder for a range value the spec writer computes.
pub const THRESHOLD_VALUE: &str = "{THRESHOLD_VALUE}";

/// The `let(...)` line for value `v` of `c`, or `None` for an unknown type.
pub fn let_line(c: &Characteristic, v: &ValueInput) -> Option<String> {
    let name = ruby::symbol_literal(&c.name_s());
    match c.kind_str()? {
        "boolean" => Some(format!("let({name}) {{ {} }}", boolean_value(&v.value))),
        "presence" => {
            let value = if ruby::str(&v.value) == Some("present") {
                "true"
            } else {
                "nil"
            };
            Some(format!("let({name}) {{ {value} }}"))
        }
        "enum" | "sequential" => Some(format!("let({name}) {{ {} }}", enum_value(&v.value))),
        "range" => {
            if ruby::truthy(&c.threshold_value) && ruby::truthy(&c.threshold_operator) {
                Some(format!(
                    "let({name}) {{ {THRESHOLD_VALUE} }}  # {} {}",
                    ruby::to_s(&c.threshold_operator),
                    ruby::to_s(&c.threshold_value)
                ))
            } else {
                Some(format!("let({name}) {{ {THRESHOLD_VALUE} }}"))
            }
        }
        _ => None,
    }
}

/// `true`/`false`, a number, or a bare word as the pipeline wrote it; other text as a
/// string literal.
fn boolean_value(value: &Value) -> String {
    let text = ruby::to_s(value);
    match value {
        Value::String(_) | Value::Tagged(_) if !ruby::identifier(&text) => ruby::inspect_str(&text),
        _ => text,
    }
}

/// `:value` as the pipeline wrote it when that is a Symbol literal; else `nil`, the
/// number, or a quoted Symbol.
fn enum_value(value: &Value) -> String {
    let text = ruby::to_s(value);
    match value {
        Value::Null => "nil".to_string(),
        Value::Number(_) | Value::Bool(_) => {
            if ruby::simple_symbol(&text) {
                format!(":{text}")
            } else {
                text
            }
        }
        _ => ruby::symbol_literal(&text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Value;

    fn line(kind: &str, value: Value, threshold: Value, operator: Value) -> Option<String> {
        let c = Characteristic {
            name: Value::from("amount"),
            kind: Value::from(kind),
            level: Value::from(1),
            depends_on: Value::Null,
            when_parent: None,
            values: Vec::new(),
            source_line: Value::Null,
            threshold_value: threshold,
            threshold_operator: operator,
        };
        let v = ValueInput {
            value,
            description: Value::Null,
            terminal: false,
            behavior_id: Value::Null,
        };
        let_line(&c, &v)
    }

    #[test]
    fn one_line_per_type() {
        let n = Value::Null;
        assert_eq!(
            line("boolean", Value::Bool(false), n.clone(), n.clone()).unwrap(),
            "let(:amount) { false }"
        );
        assert_eq!(
            line("presence", Value::from("present"), n.clone(), n.clone()).unwrap(),
            "let(:amount) { true }"
        );
        assert_eq!(
            line(
                "presence",
                crate::yaml::symbol("present"),
                n.clone(),
                n.clone()
            )
            .unwrap(),
            "let(:amount) { nil }"
        );
        assert_eq!(
            line("enum", Value::from("card"), n.clone(), n.clone()).unwrap(),
            "let(:amount) { :card }"
        );
        assert_eq!(
            line(
                "sequential",
                crate::yaml::symbol("draft"),
                n.clone(),
                n.clone()
            )
            .unwrap(),
            "let(:amount) { :draft }"
        );
        assert_eq!(
            line(
                "range",
                Value::from("high"),
                Value::from(100),
                Value::from(">=")
            )
            .unwrap(),
            "let(:amount) { {THRESHOLD_VALUE} }  # >= 100"
        );
        assert_eq!(
            line("range", Value::from("high"), Value::from(0.5), n.clone()).unwrap(),
            "let(:amount) { {THRESHOLD_VALUE} }"
        );
        assert_eq!(line("custom", Value::from("x"), n.clone(), n.clone()), None);
    }

    #[test]
    fn values_the_original_wrote_as_invalid_ruby_are_literals() {
        let n = Value::Null;
        assert_eq!(
            line("enum", Value::from(1), n.clone(), n.clone()).unwrap(),
            "let(:amount) { 1 }"
        );
        assert_eq!(
            line("enum", Value::from(2.5), n.clone(), n.clone()).unwrap(),
            "let(:amount) { 2.5 }"
        );
        assert_eq!(
            line("enum", Value::Null, n.clone(), n.clone()).unwrap(),
            "let(:amount) { nil }"
        );
        assert_eq!(
            line("enum", Value::Bool(true), n.clone(), n.clone()).unwrap(),
            "let(:amount) { :true }"
        );
        assert_eq!(
            line(
                "sequential",
                Value::from("bank transfer"),
                n.clone(),
                n.clone()
            )
            .unwrap(),
            "let(:amount) { :\"bank transfer\" }"
        );
        assert_eq!(
            line("boolean", Value::from("yes_refund"), n.clone(), n.clone()).unwrap(),
            "let(:amount) { yes_refund }"
        );
        assert_eq!(
            line("boolean", Value::from("it's"), n.clone(), n.clone()).unwrap(),
            "let(:amount) { \"it's\" }"
        );
        assert_eq!(
            line("boolean", Value::Null, n.clone(), n).unwrap(),
            "let(:amount) {  }"
        );
    }
}
