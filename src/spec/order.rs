//! Value ordering (contract §4.2): non-terminal values before terminal ones, and for a
//! binary characteristic the "positive" value first, so the happy path comes first.

use super::model::{Characteristic, ValueInput};
use crate::ruby;

/// Prefixes that make a value "negative" (compared on `value.to_s.downcase`). `un` also
/// catches words like "unique"; that is the pipeline's rule.
const NEGATIVE_PREFIXES: &[&str] = &["not_", "no_", "invalid_", "missing_", "without_", "un"];

/// The values of `c` in rendering order.
pub fn order_values(c: &Characteristic) -> Vec<&ValueInput> {
    let (mut non_terminal, terminal): (Vec<&ValueInput>, Vec<&ValueInput>) =
        c.values.iter().partition(|v| !v.terminal);
    let binary = matches!(c.kind_str(), Some("boolean" | "presence"));
    if binary && non_terminal.len() == 2 && non_terminal.first().is_some_and(|v| negative(v)) {
        non_terminal.reverse();
    }
    non_terminal.extend(terminal);
    non_terminal
}

/// Whether a value reads as the negative side: `not_x`, `no_x`, `false`, `nil` (the
/// string; a real null is `""` and is not negative).
fn negative(v: &ValueInput) -> bool {
    let s = ruby::to_s(&v.value).to_lowercase();
    NEGATIVE_PREFIXES.iter().any(|p| s.starts_with(p)) || s == "false" || s == "nil"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model;
    use crate::yaml::Value;

    fn order(yaml: &str) -> Vec<String> {
        let map = match crate::yaml::load(yaml.as_bytes(), "t").unwrap() {
            Value::Mapping(m) => m,
            _ => panic!(),
        };
        let meta = model::read(&map).unwrap();
        let c = &meta.methods[0].characteristics[0];
        order_values(c)
            .into_iter()
            .map(|v| ruby::inspect(&v.value))
            .collect()
    }

    fn chars(kind: &str, values: &str) -> String {
        format!("methods:\n  - name: m\n    characteristics:\n      - name: c\n        type: {kind}\n        values: {values}\n")
    }

    #[test]
    fn non_terminal_first_and_negative_binary_swapped() {
        assert_eq!(
            order(&chars(
                "boolean",
                "[{value: false, terminal: false}, {value: true, terminal: false}]"
            )),
            ["true", "false"]
        );
        assert_eq!(
            order(&chars("presence", "[{value: nil}, {value: present}]")),
            ["\"present\"", "\"nil\""]
        );
        assert_eq!(
            order(&chars(
                "boolean",
                "[{value: false, terminal: true}, {value: true}]"
            )),
            ["true", "false"]
        );
        assert_eq!(
            order(&chars(
                "presence",
                "\n          - value: :no_card\n          - value: :card"
            )),
            [":card", ":no_card"]
        );
        // "unique" starts with "un": the pipeline swaps it too.
        assert_eq!(
            order(&chars("boolean", "[{value: unique}, {value: shared}]")),
            ["\"shared\"", "\"unique\""]
        );
    }

    #[test]
    fn real_null_is_not_negative_and_only_pairs_swap() {
        assert_eq!(
            order(&chars("presence", "[{value: ~}, {value: present}]")),
            ["nil", "\"present\""]
        );
        assert_eq!(
            order(&chars(
                "boolean",
                "[{value: false}, {value: true}, {value: x}]"
            )),
            ["false", "true", "\"x\""]
        );
    }

    #[test]
    fn enum_range_and_sequential_keep_the_analyzer_order() {
        for kind in ["enum", "range", "sequential"] {
            assert_eq!(
                order(&chars(
                    kind,
                    "[{value: no_x, terminal: true}, {value: false}, {value: b}]"
                )),
                ["false", "\"b\"", "\"no_x\""],
                "{kind}"
            );
        }
    }
}
