//! Ruby's semantics for values loaded from YAML, which the pipeline's Ruby scripts apply
//! and our answers must reproduce: `==` (no coercion between types, Integer and Float by
//! value), truthiness, `to_s` and `inspect` (Ruby 3.1's: `{"a"=>1}`, `1.0e-05`,
//! `:"two words"`), `strip`, `String#[]`, `Array#-` and `#join`, `include?`, and
//! case-insensitive `\bword\b` matching with Onigmo's Unicode word characters.
//!
//! The one place these live: the validator, the test-config table, the skeleton and the
//! answers' JSON keys all print a value the same way. The tests compare them with Ruby
//! itself on edge values.

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

/// Ruby's `to_s`: `""` for nil, a Symbol's name, Arrays and Hashes as their `inspect`.
pub fn to_s(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_to_s(n),
        Value::String(s) => s.clone(),
        Value::Sequence(_) | Value::Mapping(_) => inspect(value),
        Value::Tagged(t) => yaml::as_symbol(value).map_or_else(|| to_s(&t.value), str::to_string),
    }
}

fn number_to_s(n: &yaml::Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        float_to_s(n.as_f64().unwrap_or(0.0))
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
            c if !inspect_prints(c) => {
                let code = u32::from(c);
                if code > 0xffff {
                    out.push_str(&format!("\\u{{{code:X}}}"));
                } else {
                    out.push_str(&format!("\\u{code:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether Ruby 3.1's `String#inspect` writes `c` as it is: not the C0 and C1 controls
/// (NEL, U+0085, excepted, as Onigmo's print class has it), the line and paragraph
/// separators, or a noncharacter. (Ruby also escapes code points Unicode had not
/// assigned; without a character database those are written as they are.)
fn inspect_prints(c: char) -> bool {
    let code = u32::from(c);
    !(code < 0x20
        || (0x7f..=0x9f).contains(&code) && code != 0x85
        || code == 0x2028
        || code == 0x2029
        || (0xfdd0..=0xfdef).contains(&code)
        || code & 0xfffe == 0xfffe)
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

/// Ruby's `String#strip`: removes leading and trailing ASCII whitespace and NULs (not
/// Unicode spaces).
pub fn strip(s: &str) -> &str {
    s.trim_matches(|c| matches!(c, '\0' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' '))
}

/// Ruby's `s.strip.empty?`.
pub fn blank(s: &str) -> bool {
    strip(s).is_empty()
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
    has_any_word(text, &[word])
}

/// Whether `text` matches `/\b(w1|w2|...)\b/i` (the words are lower-case ASCII).
pub fn has_any_word(text: &str, words: &[&str]) -> bool {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    (0..chars.len())
        .filter(|&i| word_start(&chars, i))
        .any(|i| words.iter().any(|w| word_at(&chars, i, w).is_some()))
}

/// Whether `text` matches `/\A(w1|w2|...)\b/i`.
pub fn starts_with_word(text: &str, words: &[&str]) -> bool {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    words.iter().any(|w| word_at(&chars, 0, w).is_some())
}

/// `text.scan(/\bword\b/i)`: every occurrence, as written.
pub fn words<'t>(text: &'t str, word: &str) -> Vec<&'t str> {
    word_matches(text, word)
        .into_iter()
        .filter_map(|(start, end)| text.get(start..end))
        .collect()
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

/// `/needle/i` matches somewhere in `text` (`needle` is ASCII).
pub fn contains_ignore_case(text: &str, needle: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let pattern: Vec<char> = needle.chars().map(|c| c.to_ascii_lowercase()).collect();
    !pattern.is_empty()
        && chars
            .windows(pattern.len())
            .any(|w| w.iter().zip(&pattern).all(|(c, p)| fold(*c) == *p))
}

/// Byte ranges of the non-overlapping matches of `/\bword\b/i`, left to right.
fn word_matches(text: &str, word: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let len = word.chars().count();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if word_start(&chars, i) {
            if let Some((start, end)) = word_at(&chars, i, word) {
                found.push((start, end.min(text.len())));
                i += len.max(1);
                continue;
            }
        }
        i += 1;
    }
    found
}

/// `\b` before char `i`: the start, or after a character that is not a word character.
fn word_start(chars: &[(usize, char)], i: usize) -> bool {
    i == 0 || chars.get(i - 1).is_none_or(|(_, c)| !word_char(*c))
}

/// The byte range of `word` (case-insensitive) at char `at`, when it is there and a word
/// boundary follows it.
fn word_at(chars: &[(usize, char)], at: usize, word: &str) -> Option<(usize, usize)> {
    let len = word.chars().count();
    let window = chars.get(at..at + len)?;
    if len == 0
        || !window
            .iter()
            .zip(word.chars())
            .all(|((_, c), w)| fold(*c) == w)
    {
        return None;
    }
    if chars.get(at + len).is_some_and(|(_, c)| word_char(*c)) {
        return None;
    }
    let start = window.first()?.0;
    let end = chars.get(at + len).map_or(usize::MAX, |(o, _)| *o);
    Some((start, end))
}

/// Onigmo's `\w` for UTF-8 strings: letters, marks, numbers and connector punctuation
/// (the combining marks of the common blocks; the standard library has no general
/// categories).
fn word_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(
            c,
            '_' | '\u{203f}'
                | '\u{2040}'
                | '\u{2054}'
                | '\u{fe33}'
                | '\u{fe34}'
                | '\u{fe4d}'..='\u{fe4f}'
                | '\u{ff3f}'
                | '\u{300}'..='\u{36f}'
                | '\u{1ab0}'..='\u{1aff}'
                | '\u{1dc0}'..='\u{1dff}'
                | '\u{20d0}'..='\u{20ff}'
                | '\u{fe20}'..='\u{fe2f}'
        )
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

/// `value.is_a?(String) && !value.strip.empty?`.
pub fn is_present_string(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::String(s)) if !strip(s).is_empty())
}

/// `value.is_a?(Integer)`.
pub fn is_integer(value: &Value) -> bool {
    matches!(value, Value::Number(n) if n.is_i64() || n.is_u64())
}

/// A number as `f64` (for comparisons only).
pub fn as_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// `Array#join(sep)`: nested Arrays are joined recursively, other items by `to_s`.
pub fn join(items: &[Value], sep: &str) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|item| match item {
            Value::Sequence(inner) => join(inner, sep),
            other => to_s(other),
        })
        .collect();
    parts.join(sep)
}

/// `a - b` for Arrays: the items of `a` (duplicates kept, in order) not in `b`
/// (`eql?`: `1` and `1.0` differ).
pub fn difference(a: &[Value], b: &[Value]) -> Vec<Value> {
    a.iter().filter(|x| !b.contains(x)).cloned().collect()
}

/// `container.include?(item)` as the generator calls it on `when_parent`: an Array
/// compares with `==`, a Hash looks at its keys, a String looks for a substring; other
/// types (where Ruby raises) include nothing.
pub fn includes(container: &Value, item: &Value) -> bool {
    match container {
        Value::Sequence(items) => items.iter().any(|x| eq(x, item)),
        Value::Mapping(map) => map.contains_key(item),
        Value::String(s) => item.as_str().is_some_and(|needle| s.contains(needle)),
        _ => false,
    }
}

/// `value[key]`: a Hash's value; for a String or Symbol, Ruby's `String#[](str)` (the
/// key itself when it occurs in the text, else nil); `None` for anything else.
pub fn index(value: &Value, key: &str) -> Option<Value> {
    match value {
        Value::Mapping(map) => map.get(key).cloned(),
        Value::String(s) => s.contains(key).then(|| Value::String(key.to_string())),
        Value::Tagged(_) => yaml::as_symbol(value)
            .filter(|s| s.contains(key))
            .map(|_| Value::String(key.to_string())),
        _ => None,
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

    /// The values Ruby prints differently from a naive rendering: floats at the edges of
    /// fixed notation, escapes, symbols that need quotes, nested collections.
    const EDGE_VALUES: &[&str] = &[
        "~",
        "true",
        "42",
        "-7",
        "9223372036854775807",
        "1.5",
        "0.00001",
        "0.0001",
        "100.0",
        "1.0e+15",
        "1.0e+16",
        "1.0e+100",
        "5.0e-324",
        "-0.0",
        "0.1",
        "123456789.12345679",
        "2.5e+20",
        ".nan",
        ".inf",
        "-.inf",
        "present",
        "''",
        "'say \\\"hi\\\" #{x} #$y #@z #a'",
        "\"tab\\there\\nnew\\r\\e\\a\\x7f\\x01\"",
        "\"\\u0085\\u2028\\u00a0\\u00e9\\u200b\\ufffe\\U0010ffff\"",
        "'back\\slash'",
        ":card",
        ":valid?",
        ":name=",
        ":[]=",
        ":+",
        ":\"two words\"",
        ":\"9x\"",
        ":\"@\"",
        ":@a",
        "- 1\n- 1.0e-05\n- ~\n- :a\n- b\n- [c]\n",
        "a: 1\nb:\n  - x\n  - :y\n1.5: ~\n",
        "[]",
        "{}",
    ];

    /// `to_s` and `inspect` of every edge value, as Ruby prints them.
    #[test]
    fn to_s_and_inspect_agree_with_ruby_itself() {
        let Some(ruby) = ruby_on_path() else {
            return;
        };
        let script = r#"
            require "yaml"
            STDIN.read.split("\0").each do |doc|
              v = YAML.unsafe_load(doc)
              STDOUT.write(v.to_s, "\0", v.inspect, "\0")
            end
        "#;
        let input = EDGE_VALUES.join("\0");
        let printed = run_ruby(&ruby, script, &input);
        let mut fields = printed.split('\0');
        for yaml in EDGE_VALUES {
            let value = v(yaml);
            let (to_s_ruby, inspect_ruby) = (fields.next().unwrap(), fields.next().unwrap());
            assert_eq!(to_s(&value), to_s_ruby, "to_s of {yaml}");
            assert_eq!(inspect(&value), inspect_ruby, "inspect of {yaml}");
        }
    }

    /// Word matching as Ruby's regular expressions do it, on boundaries Onigmo draws with
    /// Unicode word characters.
    #[test]
    fn words_agree_with_ruby_itself() {
        let Some(ruby) = ruby_on_path() else {
            return;
        };
        let texts = [
            "not paid",
            "is NOT here",
            "x-not",
            "\u{f1}ot",
            "note",
            "not_x",
            "x\u{203f}not",
            "x\u{301}not",
            "\u{b2}not",
            "\u{1c5}not",
            "Not sent, nothing, knot, NOT",
            "\u{17f}hould",
            "it is",
            "It's",
            "\u{212a}not",
        ];
        let script = r#"
            STDIN.read.split("\0").each do |t|
              STDOUT.write(t.scan(/\bnot\b/i).join(","), "\0", t.match?(/\Ait\b/i).to_s, "\0",
                t.match?(/\b(should|can)\b/i).to_s, "\0", t.gsub(/\bnot\b/i, "NOT"), "\0")
            end
        "#;
        let printed = run_ruby(&ruby, script, &texts.join("\0"));
        let mut fields = printed.split('\0');
        for text in texts {
            let mut next = || fields.next().unwrap().to_string();
            assert_eq!(words(text, "not").join(","), next(), "scan {text:?}");
            assert_eq!(
                starts_with_word(text, &["it"]).to_string(),
                next(),
                "{text:?}"
            );
            assert_eq!(
                has_any_word(text, &["should", "can"]).to_string(),
                next(),
                "{text:?}"
            );
            assert_eq!(replace_word(text, "not", "NOT"), next(), "gsub {text:?}");
        }
    }

    /// `ruby`, when it is installed (required when RSPEC_SCOUT_REQUIRE_RUBY is set).
    fn ruby_on_path() -> Option<std::path::PathBuf> {
        let found = std::process::Command::new("ruby")
            .args(["-e", "exit 0"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            found || std::env::var_os("RSPEC_SCOUT_REQUIRE_RUBY").is_none(),
            "RSPEC_SCOUT_REQUIRE_RUBY is set but no ruby is on PATH"
        );
        found.then(|| std::path::PathBuf::from("ruby"))
    }

    fn run_ruby(ruby: &std::path::Path, script: &str, input: &str) -> String {
        use std::io::Write;
        let mut child = std::process::Command::new(ruby)
            .args(["-e", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "ruby failed");
        String::from_utf8(out.stdout).unwrap()
    }
}
