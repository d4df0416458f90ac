//! `# rspec-testing:` marker comments (contract §4.7, placeholder contract v2): writing
//! them with sorted, escaped attributes, reading their attributes back, and the canonical
//! branch `path`.

use crate::yaml::Value;

use crate::ruby;

/// The prefix every marker comment starts with (after indentation and `#`).
pub const PREFIX: &str = "rspec-testing:";

/// A marker line (without indentation): `# rspec-testing:{tag} k1="v1" k2="v2"`, the
/// attributes sorted by key. Inside values `"` is written `\"` and `\` is written `\\`,
/// as the placeholder contract says (the original writer forgot the backslashes).
pub fn marker(tag: &str, attrs: &[(&str, &str)]) -> String {
    let mut sorted: Vec<&(&str, &str)> = attrs.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut line = format!("# {PREFIX}{tag}");
    for (key, value) in sorted {
        line.push(' ');
        line.push_str(key);
        line.push_str("=\"");
        line.push_str(&escape(value));
        line.push('"');
    }
    line
}

fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out
}

/// The tag of a marker line (`^\s*#\s*rspec-testing:(\w+)`), if the line is one.
pub fn tag(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix(PREFIX)?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let tag = rest.get(..end)?;
    (!tag.is_empty()).then_some(tag)
}

/// The `key="value"` attributes of a marker line, unescaped, in line order.
pub fn attrs(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        // A key is a run of word characters directly followed by `="`.
        let start = i;
        while chars
            .get(i)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            i += 1;
        }
        if i > start && chars.get(i) == Some(&'=') && chars.get(i + 1) == Some(&'"') {
            let key: String = chars.get(start..i).unwrap_or_default().iter().collect();
            let mut j = i + 2;
            let mut value = String::new();
            let mut closed = false;
            while let Some(&c) = chars.get(j) {
                match c {
                    '\\' => {
                        match chars.get(j + 1) {
                            Some(&next @ ('\\' | '"')) => value.push(next),
                            Some(&next) => {
                                value.push('\\');
                                value.push(next);
                            }
                            None => value.push('\\'),
                        }
                        j += 2;
                    }
                    '"' => {
                        closed = true;
                        break;
                    }
                    c => {
                        value.push(c);
                        j += 1;
                    }
                }
            }
            if closed {
                out.push((key, value));
                i = j + 1;
                continue;
            }
            i = start + 1;
            continue;
        }
        if i == start {
            i += 1;
        }
    }
    out
}

/// One attribute of a marker line.
pub fn attr(line: &str, key: &str) -> Option<String> {
    attrs(line)
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

/// The canonical `path` of a branch: `level:name=value` segments joined by `,`, the value
/// encoded as `nil`, `true`/`false`, `:symbol`, or Ruby's `inspect`.
pub fn path(segments: &[(i64, String, Value)]) -> String {
    segments
        .iter()
        .map(|(level, name, value)| format!("{level}:{name}={}", encode(value)))
        .collect::<Vec<_>>()
        .join(",")
}

fn encode(value: &Value) -> String {
    match crate::yaml::as_symbol(value) {
        Some(name) => format!(":{name}"),
        None => ruby::inspect(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_sorted_and_escaped() {
        assert_eq!(
            marker(
                "method_begin",
                &[("method_id", "Checkout#call"), ("method", "#call")]
            ),
            "# rspec-testing:method_begin method=\"#call\" method_id=\"Checkout#call\""
        );
        assert_eq!(
            marker("example", &[("path", "1:card=\"present\""), ("kind", "success"), ("behavior_id", "a\\b")]),
            "# rspec-testing:example behavior_id=\"a\\\\b\" kind=\"success\" path=\"1:card=\\\"present\\\"\""
        );
    }

    #[test]
    fn attributes_read_back() {
        let line = marker(
            "example",
            &[("path", "1:c=\"x \\\" y\""), ("behavior_id", "b\\")],
        );
        assert_eq!(attr(&line, "path").as_deref(), Some("1:c=\"x \\\" y\""));
        assert_eq!(attr(&line, "behavior_id").as_deref(), Some("b\\"));
        assert_eq!(attr(&line, "kind"), None);
        assert_eq!(
            attrs("  # rspec-testing:method_end method=\"#a\" junk= x=\"1\" method_id=\"A#a\""),
            vec![
                ("method".to_string(), "#a".to_string()),
                ("x".to_string(), "1".to_string()),
                ("method_id".to_string(), "A#a".to_string())
            ]
        );
    }

    #[test]
    fn tags() {
        assert_eq!(
            tag("    # rspec-testing:method_begin method=\"#a\""),
            Some("method_begin")
        );
        assert_eq!(tag("#rspec-testing:example"), Some("example"));
        assert_eq!(tag("  #   rspec-testing:x_1 y"), Some("x_1"));
        assert_eq!(tag("  # rspec-testing: x"), None);
        assert_eq!(tag("  x # rspec-testing:example"), None);
        assert_eq!(tag("  # other"), None);
    }

    #[test]
    fn paths() {
        let segments = vec![
            (1, "authenticated".to_string(), Value::Bool(true)),
            (2, "card".to_string(), Value::from("present")),
            (3, "state".to_string(), crate::yaml::symbol("done")),
            (4, "n".to_string(), Value::from(42)),
            (5, "x".to_string(), Value::Null),
        ];
        assert_eq!(
            path(&segments),
            "1:authenticated=true,2:card=\"present\",3:state=:done,4:n=42,5:x=nil"
        );
        assert_eq!(path(&[]), "");
    }
}
