//! The `enum` declarations of an ActiveRecord model, read with prism: FactoryBot makes a
//! trait of each value (`traits_for_enum`, and by default for every enum of the model), so
//! "a trait named after the value" exists without any `trait` in the factory file.
//!
//! Every form Rails has taken: `enum status: { active: 0, archived: 1 }`,
//! `enum status: [:active, :archived]`, `enum :status, { active: 0 }`,
//! `enum :status, [:active]`, `enum :status, active: 0, archived: 1`, with `_prefix:`,
//! `prefix:`, `_suffix:`, `scopes:`, `default:`, ... options beside them. Values only a
//! running app knows (`enum status: STATUSES`) are left out.

use ruby_prism::Node;

use crate::index::prism::bytes_to_string;

/// Options `enum` takes beside the values.
const OPTIONS: &[&str] = &[
    "prefix",
    "suffix",
    "scopes",
    "default",
    "validate",
    "instance_methods",
    "_prefix",
    "_suffix",
    "_scopes",
    "_default",
    "_instance_methods",
];

/// The enums a model file declares: attribute and values, in source order.
pub fn model_enums(source: &[u8]) -> Vec<(String, Vec<String>)> {
    // Most models declare no enum: not parsed at all (one scan of the bytes).
    if !super::parse::contains(source, b"enum") {
        return Vec::new();
    }
    let result = ruby_prism::parse(source);
    let mut out = Vec::new();
    walk(&result.node(), &mut out, 0);
    out
}

fn walk(node: &Node<'_>, out: &mut Vec<(String, Vec<String>)>, depth: usize) {
    if depth > 32 {
        return;
    }
    if let Some(p) = node.as_program_node() {
        walk(&p.statements().as_node(), out, depth + 1);
    } else if let Some(s) = node.as_statements_node() {
        for n in &s.body() {
            walk(&n, out, depth + 1);
        }
    } else if let Some(c) = node.as_class_node() {
        if let Some(b) = c.body() {
            walk(&b, out, depth + 1);
        }
    } else if let Some(m) = node.as_module_node() {
        if let Some(b) = m.body() {
            walk(&b, out, depth + 1);
        }
    } else if let Some(call) = node.as_call_node() {
        if call.receiver().is_none() && call.name().as_slice() == b"enum" {
            read_enum(&call, out);
        } else if call.name().as_slice() == b"included" || call.name().as_slice() == b"class_eval" {
            // `included do ... end` of a concern.
            if let Some(b) = call
                .block()
                .and_then(|b| b.as_block_node())
                .and_then(|b| b.body())
            {
                walk(&b, out, depth + 1);
            }
        }
    }
}

fn read_enum(call: &ruby_prism::CallNode<'_>, out: &mut Vec<(String, Vec<String>)>) {
    let args: Vec<Node<'_>> = call
        .arguments()
        .map(|a| a.arguments().iter().collect())
        .unwrap_or_default();
    match args.first() {
        // `enum :status, ...` (Rails 7).
        Some(first) if first.as_symbol_node().is_some() || first.as_string_node().is_some() => {
            let Some(attribute) = name(first) else { return };
            let values = match args.get(1) {
                Some(v) if v.as_keyword_hash_node().is_some() => {
                    // `enum :status, active: 0, archived: 1` or only options.
                    let keys: Vec<String> = pairs(v)
                        .into_iter()
                        .filter(|(k, _)| !OPTIONS.contains(&k.as_str()))
                        .map(|(k, _)| k)
                        .collect();
                    (!keys.is_empty()).then_some(keys)
                }
                Some(v) => values(v),
                None => None,
            };
            if let Some(values) = values {
                out.push((attribute, values));
            }
        }
        // `enum status: {...}, _prefix: true` (Rails 4-6): one attribute per non-option key.
        Some(first) if first.as_keyword_hash_node().is_some() => {
            let mut elements = Vec::new();
            if let Some(h) = first.as_keyword_hash_node() {
                for e in &h.elements() {
                    if let Some(a) = e.as_assoc_node() {
                        elements.push(a);
                    }
                }
            }
            for a in elements {
                let Some(attribute) = name(&a.key()) else {
                    continue;
                };
                if OPTIONS.contains(&attribute.as_str()) {
                    continue;
                }
                if let Some(v) = values(&a.value()) {
                    out.push((attribute, v));
                }
            }
        }
        _ => {}
    }
}

/// A literal list of names, or a hash's keys.
fn values(node: &Node<'_>) -> Option<Vec<String>> {
    if let Some(a) = node.as_array_node() {
        return a.elements().iter().map(|e| name(&e)).collect();
    }
    if node.as_hash_node().is_some() || node.as_keyword_hash_node().is_some() {
        let keys: Vec<String> = pairs(node).into_iter().map(|(k, _)| k).collect();
        return (!keys.is_empty()).then_some(keys);
    }
    None
}

fn pairs<'a>(node: &Node<'a>) -> Vec<(String, Node<'a>)> {
    super::parse::hash_pairs(node, true)
}

fn name(node: &Node<'_>) -> Option<String> {
    if let Some(s) = node.as_symbol_node() {
        return Some(bytes_to_string(s.unescaped()));
    }
    node.as_string_node()
        .map(|s| bytes_to_string(s.unescaped()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_enum() {
        let source = br#"
class Payment < ApplicationRecord
  enum status: { pending: 0, completed: 1, failed: 2 }, _prefix: true
  enum kind: [:card, :bank]
  enum :channel, { web: "web", api: "api" }, prefix: true
  enum :priority, %i[low high]
  enum :tier, basic: 0, premium: 1, default: :basic
  enum state: STATES
  included do
    enum :nested, %w[a b]
  end
end
"#;
        assert_eq!(
            model_enums(source),
            vec![
                (
                    "status".to_string(),
                    vec![
                        "pending".to_string(),
                        "completed".to_string(),
                        "failed".to_string()
                    ]
                ),
                (
                    "kind".to_string(),
                    vec!["card".to_string(), "bank".to_string()]
                ),
                (
                    "channel".to_string(),
                    vec!["web".to_string(), "api".to_string()]
                ),
                (
                    "priority".to_string(),
                    vec!["low".to_string(), "high".to_string()]
                ),
                (
                    "tier".to_string(),
                    vec!["basic".to_string(), "premium".to_string()]
                ),
                ("nested".to_string(), vec!["a".to_string(), "b".to_string()]),
            ]
        );
    }
}
