//! Ruby semantics the pipeline's generator relies on, for metadata values: `==`,
//! truthiness, `to_s`, `inspect`, `strip.empty?`, and case-insensitive `\bword\b` matching
//! with Onigmo's Unicode word characters.

use crate::yaml::{self, Value};

/// Ruby's `a == b` for metadata values: no coercion between types (`true != "true"`,
/// `:card != "card"`, `1 != "1"`), but Integer and Float compare by value (`1 == 1.0`).
pub fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Sequence(x), Value::Sequence(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(p, q))
        }
        (Value::Mapping(x), Value::Mapping(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|other| eq(v, other)))
        }
        (Value::Tagged(_), Value::Tagged(_)) => match (yaml::as_symbol(a), yaml::as_symbol(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
        _ => false,
    }
}

fn number_eq(x: &yaml::Number, y: &yaml::Number) -> bool {
    if let (Some(p), Some(q)) = (x.as_i64(), y.as_i64()) {
        return p == q;
    }
    if let (Some(p), Some(q)) = (x.as_u64(), y.as_u64()) {
        return p == q;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(p), Some(q)) => p == q,
        _ => false,
    }
}

/// The text of a String value; `None` for anything else, Symbols included (Ruby's
/// `type == 'enum'` is false for `:enum`).
pub fn str(value: &Value) -> Option<&str> {
    match value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// Ruby truthiness: everything but `nil` and `false`.
pub fn truthy(value: &Value) -> bool {
    !matches!(value, Value::Null | Value::Bool(false))
}

/// Ruby's `to_s`.
pub fn to_s(value: &Value) -> String {
    match value {
        Value::Number(n) if n.is_f64() => float_to_s(n.as_f64().unwrap_or(0.0)),
        Value::Sequence(_) | Value::Mapping(_) => inspect(value),
        other => yaml::ruby_to_s(other),
    }
}

/// Ruby's `inspect` (Ruby 3.1: `{"a"=>1}` for hashes).
pub fn inspect(value: &Value) -> String {
    match value {
        Value::Null => "nil".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(_) => to_s(value),
        Value::String(s) => inspect_str(s),
        Value::Sequence(items) => {
            let inner: Vec<String> = items.iter().map(inspect).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Mapping(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}=>{}", inspect(k), inspect(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
        Value::Tagged(t) => match yaml::as_symbol(value) {
            Some(name) if simple_symbol(name) => format!(":{name}"),
            Some(name) => format!(":{}", inspect_str(name)),
            None => inspect(&t.value),
        },
    }
}

/// Ruby's `String#inspect` for a UTF-8 string.
pub fn inspect_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            '#' if matches!(chars.peek(), Some('{' | '$' | '@')) => out.push_str("\\#"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Symbol literal for `name`: `:card`, or `:"bank transfer"` when the bare form is not
/// valid Ruby.
pub fn symbol_literal(name: &str) -> String {
    if simple_symbol(name) {
        format!(":{name}")
    } else {
        format!(":{}", inspect_str(name))
    }
}

/// Whether `name` is a bare identifier or method call (`card`, `valid?`, `Card`).
pub fn identifier(name: &str) -> bool {
    let body = name
        .strip_suffix('?')
        .or_else(|| name.strip_suffix('!'))
        .unwrap_or(name);
    let mut chars = body.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => chars.all(|c| c.is_alphanumeric() || c == '_'),
        _ => false,
    }
}

/// Whether `:name` needs no quotes in Ruby (`:card`, `:valid?`, `:name=`, `:+`).
pub fn simple_symbol(name: &str) -> bool {
    const OPERATORS: &[&str] = &[
        "+", "-", "*", "/", "%", "**", "==", "===", "!=", "<=>", "<", "<=", ">", ">=", "<<", ">>",
        "!", "~", "=~", "!~", "&", "|", "^", "[]", "[]=", "+@", "-@",
    ];
    if OPERATORS.contains(&name) {
        return true;
    }
    let body = name
        .strip_prefix("@@")
        .or_else(|| name.strip_prefix('@'))
        .or_else(|| name.strip_prefix('$'))
        .unwrap_or(name);
    let body = body
        .strip_suffix('?')
        .or_else(|| body.strip_suffix('!'))
        .or_else(|| body.strip_suffix('='))
        .unwrap_or(body);
    let mut chars = body.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => chars.all(|c| c.is_alphanumeric() || c == '_'),
        _ => false,
    }
}

/// Ruby's `Float#to_s`: shortest round-trip digits, fixed notation for decimal exponents
/// from -4 to 14 (`0.0001`, `100.0`), scientific otherwise (`1.0e-05`, `1.0e+16`).
pub fn float_to_s(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0" } else { "0.0" }.to_string();
    }
    // `{:e}` gives the shortest digits that round-trip: `-1.2345e-7`.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if f < 0.0 { "-" } else { "" };
    let decpt = exponent + 1;
    let n = i32::try_from(digits.len()).unwrap_or(i32::MAX);
    if (-4..=14).contains(&exponent) {
        if decpt <= 0 {
            let zeros = "0".repeat(usize::try_from(-decpt).unwrap_or(0));
            format!("{sign}0.{zeros}{digits}")
        } else if decpt >= n {
            let zeros = "0".repeat(usize::try_from(decpt - n).unwrap_or(0));
            format!("{sign}{digits}{zeros}.0")
        } else {
            let split = usize::try_from(decpt).unwrap_or(0);
            let (int, frac) = digits.split_at(split.min(digits.len()));
            format!("{sign}{int}.{frac}")
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let rest = if rest.is_empty() { "0" } else { rest };
        let esign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{first}.{rest}e{esign}{:02}", exponent.abs())
    }
}

/// Ruby's `s.strip.empty?` (strip removes ASCII whitespace and NUL, not other Unicode
/// spaces).
pub fn blank(s: &str) -> bool {
    s.chars()
        .all(|c| matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\0'))
}

/// A value that is missing, `nil`, or whose `to_s` is blank (`x.nil? || x.to_s.strip.empty?`).
pub fn blank_value(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(v) => blank(&to_s(v)),
    }
}

/// Whether `text` matches `/\bword\b/i` (`word` is lower-case ASCII).
pub fn has_word(text: &str, word: &str) -> bool {
    !word_matches(text, word).is_empty()
}

/// `text.gsub(/\bword\b/i, replacement)` (`word` is lower-case ASCII).
pub fn replace_word(text: &str, word: &str, replacement: &str) -> String {
    let matches = word_matches(text, word);
    if matches.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end) in matches {
        out.push_str(text.get(last..start).unwrap_or_default());
        out.push_str(replacement);
        last = end;
    }
    out.push_str(text.get(last..).unwrap_or_default());
    out
}

/// Byte ranges of the non-overlapping matches of `/\bword\b/i`, left to right.
fn word_matches(text: &str, word: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let target: Vec<char> = word.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + target.len() <= chars.len() {
        let window = chars.get(i..i + target.len()).unwrap_or_default();
        let same = window.iter().zip(&target).all(|((_, c), t)| fold(*c) == *t);
        let before_ok = i == 0 || chars.get(i - 1).is_none_or(|(_, c)| !word_char(*c));
        let after_ok = chars
            .get(i + target.len())
            .is_none_or(|(_, c)| !word_char(*c));
        if same && before_ok && after_ok {
            let start = chars.get(i).map_or(0, |(o, _)| *o);
            let end = chars.get(i + target.len()).map_or(text.len(), |(o, _)| *o);
            found.push((start, end));
            i += target.len();
        } else {
            i += 1;
        }
    }
    found
}

/// Onigmo's `\w` for UTF-8 strings: letters, marks, numbers and connector punctuation.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\u{203f}' || c == '\u{2040}'
}

/// Simple case folding of one character, as `/i` compares them.
fn fold(c: char) -> char {
    match c {
        '\u{17f}' => 's',
        '\u{212a}' => 'k',
        c => {
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) => l,
                _ => c,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::load;

    fn v(yaml: &str) -> Value {
        load(yaml.as_bytes(), "t").unwrap()
    }

    #[test]
    fn equality_has_no_coercion_between_types() {
        assert!(eq(&v("true"), &v("true")));
        assert!(!eq(&v("true"), &v("'true'")));
        assert!(!eq(&v(":card"), &v("card")));
        assert!(eq(&v(":card"), &v(":card")));
        assert!(!eq(&v("1"), &v("'1'")));
        assert!(eq(&v("1"), &v("1.0")));
        assert!(!eq(&v("~"), &v("nil")));
        assert!(eq(&v("- 1\n- :a\n"), &v("- 1.0\n- :a\n")));
        assert!(!eq(&v("- 1\n- :a\n"), &v("- 1\n- a\n")));
    }

    #[test]
    fn to_s_and_inspect_match_ruby() {
        let cases = [
            ("nil", "\"nil\"", "nil"),
            ("~", "nil", ""),
            ("present", "\"present\"", "present"),
            (":card", ":card", "card"),
            (":\"two words\"", ":\"two words\"", "two words"),
            ("42", "42", "42"),
            ("1.5", "1.5", "1.5"),
            ("false", "false", "false"),
            (
                "'say \"hi\" #{x}'",
                "\"say \\\"hi\\\" \\#{x}\"",
                "say \"hi\" #{x}",
            ),
            ("[1, a]", "[1, \"a\"]", "[1, \"a\"]"),
            ("{a: 1}", "{\"a\"=>1}", "{\"a\"=>1}"),
        ];
        for (yaml, inspected, s) in cases {
            assert_eq!(inspect(&v(yaml)), inspected, "{yaml}");
            assert_eq!(to_s(&v(yaml)), s, "{yaml}");
        }
        assert_eq!(
            inspect_str("\u{1}\u{7f}\u{1b}\0"),
            "\"\\u0001\\u007F\\e\\u0000\""
        );
    }

    #[test]
    fn floats_print_like_ruby() {
        let cases = [
            (1e16, "1.0e+16"),
            (1e15, "1.0e+15"),
            (1e14, "100000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1.0e-05"),
            (1.5, "1.5"),
            (100.0, "100.0"),
            (-0.0, "-0.0"),
            (123_456_789_012_345_680.0, "1.2345678901234568e+17"),
            (2.5e20, "2.5e+20"),
            (0.00012, "0.00012"),
            (-12.25, "-12.25"),
        ];
        for (f, s) in cases {
            assert_eq!(float_to_s(f), s, "{f}");
        }
    }

    #[test]
    fn words_use_unicode_boundaries_and_ignore_case() {
        assert!(has_word("not authenticated", "not"));
        assert!(has_word("is NOT here", "not"));
        assert!(has_word("x-not", "not"));
        assert!(!has_word("ñot", "not"));
        assert!(!has_word("note", "not"));
        assert!(!has_word("not_x", "not"));
        assert!(has_word("BLOCKED", "blocked"));
        assert_eq!(
            replace_word("not paid, Not sent, nothing, knot", "not", "NOT"),
            "NOT paid, NOT sent, nothing, knot"
        );
    }

    #[test]
    fn symbol_literals_and_identifiers() {
        assert_eq!(symbol_literal("card"), ":card");
        assert_eq!(symbol_literal("valid?"), ":valid?");
        assert_eq!(symbol_literal("amount="), ":amount=");
        assert_eq!(symbol_literal("[]"), ":[]");
        assert_eq!(symbol_literal("bank transfer"), ":\"bank transfer\"");
        assert_eq!(symbol_literal("1"), ":\"1\"");
        assert_eq!(symbol_literal(""), ":\"\"");
        assert!(identifier("yes_refund"));
        assert!(identifier("Card"));
        assert!(identifier("ok?"));
        assert!(!identifier("x'y"));
        assert!(!identifier("a="));
        assert!(!identifier(""));
    }

    #[test]
    fn blank_is_ruby_strip_empty() {
        assert!(blank(" \t\n\0"));
        assert!(!blank("\u{a0}"));
        assert!(blank_value(None));
        assert!(blank_value(Some(&Value::Null)));
        assert!(!blank_value(Some(&v("false"))));
    }
}
