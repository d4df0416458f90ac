//! Writes YAML that Psych 4's `YAML.load` reads back to the same values: no anchors or
//! aliases, every string that Psych would read as something else (dates, `yes`, `1_000`,
//! `:sym`, `~`) quoted, symbols as `:name`. Block style, two-space indents, short lists of
//! scalars in flow style (`line_range: [10, 24]`).

use serde_yaml::{Mapping, Value};

use super::scalar::{tokenize, Scalar};
use super::{as_symbol, SYMBOL_TAG};

/// Longest key written in the plain `key: value` form.
const SIMPLE_KEY_MAX: usize = 1000;

/// Longest flow-style list written on one line.
pub(crate) const FLOW_WIDTH: usize = 80;

/// Renders `value` as a YAML document ending with a newline.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Mapping(map) if !map.is_empty() => write_mapping(&mut out, map, 0),
        Value::Sequence(seq) if !seq.is_empty() => write_sequence(&mut out, seq, 0),
        other => {
            out.push_str(&inline(other).unwrap_or_else(|| "null".to_string()));
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

fn write_mapping(out: &mut String, map: &Mapping, level: usize) {
    for (key, value) in map {
        indent(out, level);
        write_pair(out, key, value, level);
    }
}

/// One `key: value` pair, the cursor already at column `level`. A key that is a non-empty
/// collection (legal YAML, and what a hand-edited `? ` key loads as) is written in the
/// explicit form, `? key` then `: value`, which Psych reads back to the same key.
fn write_pair(out: &mut String, key: &Value, value: &Value, level: usize) {
    // libyaml only finds a plain `key:` within 1024 characters of the key's start; a longer
    // key goes in the explicit form too (as Psych writes it).
    match inline(key).filter(|text| text.len() <= SIMPLE_KEY_MAX) {
        Some(text) => out.push_str(&text),
        None => {
            out.push('?');
            write_node_after_indicator(out, key, level);
            indent(out, level);
        }
    }
    out.push(':');
    write_value_after_key(out, value, level);
}

fn write_value_after_key(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Mapping(m) if !m.is_empty() => {
            out.push('\n');
            write_mapping(out, m, level + 2);
        }
        Value::Sequence(s) if !s.is_empty() => match flow_sequence(s) {
            Some(flow) => {
                out.push(' ');
                out.push_str(&flow);
                out.push('\n');
            }
            None => {
                out.push('\n');
                write_sequence(out, s, level + 2);
            }
        },
        other => {
            out.push(' ');
            out.push_str(&inline(other).unwrap_or_else(|| "null".to_string()));
            out.push('\n');
        }
    }
}

fn write_sequence(out: &mut String, seq: &[Value], level: usize) {
    for item in seq {
        indent(out, level);
        out.push('-');
        write_node_after_indicator(out, item, level);
    }
}

/// A node after a `-` or `?` indicator at column `level`: a mapping's first pair on the
/// indicator's line and the rest aligned under it, a sequence on the following lines, a
/// scalar on the same line.
fn write_node_after_indicator(out: &mut String, node: &Value, level: usize) {
    match node {
        Value::Mapping(m) if !m.is_empty() => {
            let mut first = true;
            for (key, value) in m {
                if first {
                    out.push(' ');
                    first = false;
                } else {
                    indent(out, level + 2);
                }
                write_pair(out, key, value, level + 2);
            }
        }
        // A sequence or a scalar goes as it goes after a key.
        other => write_value_after_key(out, other, level),
    }
}

/// A one-line `[a, b]` for a list of scalars, if it fits.
fn flow_sequence(seq: &[Value]) -> Option<String> {
    let mut parts = Vec::with_capacity(seq.len());
    for item in seq {
        if matches!(item, Value::Mapping(m) if !m.is_empty())
            || matches!(item, Value::Sequence(s) if !s.is_empty())
        {
            return None;
        }
        // libyaml reads `[:card]` as a syntax error: symbols go in block style.
        if as_symbol(item).is_some() {
            return None;
        }
        parts.push(inline(item)?);
    }
    let text = format!("[{}]", parts.join(", "));
    (text.len() <= FLOW_WIDTH).then_some(text)
}

/// A scalar (or empty collection) on one line; `None` for non-empty collections.
fn inline(value: &Value) -> Option<String> {
    Some(match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::String(s) => string_text(s),
        Value::Sequence(s) if s.is_empty() => "[]".to_string(),
        Value::Mapping(m) if m.is_empty() => "{}".to_string(),
        Value::Sequence(_) | Value::Mapping(_) => return None,
        Value::Tagged(tagged) => {
            if let Some(name) = as_symbol(value) {
                symbol_text(name)
            } else {
                let inner = inline(&tagged.value)?;
                format!("{} {inner}", tagged.tag)
            }
        }
    })
}

fn number_text(n: &serde_yaml::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.is_nan() {
        ".nan".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { ".inf" } else { "-.inf" }.to_string()
    } else {
        // Psych only reads a float with a `.` in the mantissa and a signed exponent
        // (`8e18` and `8e+18` come back as strings): `8.0e+18`, `1.5e-7`, `2.0`.
        let text = format!("{f:?}");
        let (mantissa, exponent) = match text.split_once('e') {
            Some((m, e)) => (m, Some(e)),
            None => (text.as_str(), None),
        };
        let mut out = mantissa.to_string();
        if !out.contains('.') {
            out.push_str(".0");
        }
        if let Some(e) = exponent {
            out.push('e');
            if !e.starts_with('-') {
                out.push('+');
            }
            out.push_str(e);
        }
        out
    }
}

fn symbol_text(name: &str) -> String {
    let simple = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .trim_end_matches(['?', '!', '='])
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    // Psych reads a plain `:"..."` without processing escapes and drops a leading `:` of
    // the quoted text, so that form only carries tame names; any other name goes in the
    // tagged form, whose double-quoted text Psych unescapes (`!ruby/symbol ":0}"`).
    let tame = !name.is_empty()
        && !name.starts_with([':', ' '])
        && !name.ends_with(' ')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || " _-.?!=+*/<>%&|^~@$[]()".contains(c));
    if simple {
        format!(":{name}")
    } else if tame {
        format!(":\"{name}\"")
    } else {
        format!("{SYMBOL_TAG} {}", double_quoted(name))
    }
}

/// `n` in decimal, appended to `out` without a `String` or the formatting machinery of its
/// own (a large answer writes millions of line numbers, waves and counts).
pub fn push_decimal(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            // A digit: `rest % 10` is below 10.
            *d = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
        if rest == 0 || at == 0 {
            break;
        }
    }
    for &d in digits.get(at..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

/// Plain when Psych reads the plain text back as this very string; double-quoted otherwise.
pub fn string_text(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// [`string_text`] appended to `out` (no allocation for the usual plain string).
pub fn push_string_text(out: &mut String, s: &str) {
    if plain_is_safe(s) {
        out.push_str(s);
    } else {
        out.push_str(&double_quoted(s));
    }
}

/// Bytes of the usual plain text of an answer: letters, digits and `_:#/.?!=`. A table:
/// callgrind counts 26% fewer instructions in the check than with the comparisons.
// Indexing in a constant is evaluated by the compiler: out of bounds fails the build, it
// cannot panic at run time.
#[allow(clippy::indexing_slicing)]
const PLAIN_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0usize;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric()
            || matches!(c, b'_' | b':' | b'#' | b'/' | b'.' | b'?' | b'!' | b'=');
        b += 1;
    }
    table
};

/// Whether `b` is one of the [`PLAIN_BYTE`]s.
fn plain_byte(b: u8) -> bool {
    PLAIN_BYTE.get(usize::from(b)).copied().unwrap_or(false)
}

/// The usual text of an answer (class names, method ids such as `Order#paid?` and
/// `User#name=`, paths): a letter, then [`PLAIN_BYTE`]s, longer than any YAML keyword, not
/// ending in `:`, without `:?`. One pass over the bytes (the answer of a large codebase
/// writes millions of them); what it accepts, the full rules below accept too.
fn plain_fast(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes.len() > 5
        && bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes.last() != Some(&b':')
        && bytes.iter().all(|&b| plain_byte(b))
        // `?` is rare: found with memchr, not by comparing every pair of bytes.
        && !memchr::memchr_iter(b'?', bytes).any(|i| i > 0 && bytes.get(i - 1) == Some(&b':'))
}

fn plain_is_safe(s: &str) -> bool {
    if plain_fast(s) {
        return true;
    }
    plain_by_rules(s)
}

/// Whether `s` reads back as this string when written plain, by YAML's (and Psych's) rules.
fn plain_by_rules(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if first.is_whitespace() || s.ends_with(char::is_whitespace) {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    // `:?` is a syntax error for libyaml inside a flow list (`[a:?b]`), where our short
    // lists go; `:` before `,[]{}` too, but those never go plain.
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') || s.contains(":?") {
        return false;
    }
    // YAML 1.1 gives `=` (value) and `<<` (merge) meanings some loaders honour; `---` and
    // `...` at the start of a line are document markers (a top-level `...` does not load).
    if s == "=" || s == "<<" || s.starts_with("---") || s.starts_with("...") {
        return false;
    }
    if s.chars().any(|c| {
        c.is_control()
            || !printable(c)
            || matches!(
                c,
                ',' | '[' | ']' | '{' | '}' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'
            )
    }) {
        return false;
    }
    tokenize(s) == Scalar::Str
}

/// YAML's printable set (libyaml refuses anything else in a document, even quoted):
/// tab, line breaks, U+0020-U+007E, U+0085, U+00A0-U+D7FF, U+E000-U+FFFD, U+10000 and up.
fn printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7e}' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        || c >= '\u{10000}'
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            '\u{feff}' => out.push_str("\\uFEFF"),
            c if c.is_control() || !printable(c) => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0u64, 7, 10, 99, 12_345, u64::from(u32::MAX), u64::MAX] {
            let mut buf = String::from("x");
            push_decimal(&mut buf, n);
            assert_eq!(buf, format!("x{n}"));
        }
    }

    /// Every string the one-pass check writes plain, the full rules write plain too: over
    /// every string of up to 4 bytes after a 3-letter start from an alphabet of the plain
    /// bytes and their neighbours, and over the method-id shapes of real code.
    #[test]
    fn the_fast_check_accepts_only_what_the_rules_accept() {
        let alphabet = b"aZ9_:#/.?!=";
        let mut checked = 0usize;
        let mut fast = 0usize;
        for len in 0..=4u32 {
            for mut n in 0..alphabet.len().pow(len) {
                let mut s = String::from("Abc");
                for _ in 0..len {
                    s.push(char::from(alphabet[n % alphabet.len()]));
                    n /= alphabet.len();
                }
                checked += 1;
                if plain_fast(&s) {
                    fast += 1;
                    assert!(
                        plain_by_rules(&s),
                        "{s:?} taken plain by the fast check only"
                    );
                }
            }
        }
        assert!(fast > 1000 && fast < checked, "{fast} of {checked}");
        for id in [
            "Order#paid?",
            "User#name=",
            "Cart#clear!",
            "Admin::Report.call",
            "Foo#==",
            "Foo#[]=",
        ] {
            assert_eq!(plain_is_safe(id), plain_by_rules(id), "{id}");
        }
        for quoted in ["Abc::?", "Abcdef:", "Abc: x", "Abc #x"] {
            assert!(!plain_fast(quoted), "{quoted}");
        }
    }
}
