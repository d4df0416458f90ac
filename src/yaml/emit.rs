//! Writes YAML that Psych 4's `YAML.load` reads back to the same values: no anchors or
//! aliases, every string that Psych would read as something else (dates, `yes`, `1_000`,
//! `:sym`, `~`) quoted, symbols as `:name`. Block style, two-space indents, short lists of
//! scalars in flow style (`line_range: [10, 24]`).
//!
//! One streaming [`Writer`] over `io::Write` does it all: [`to_string`] walks a `Value`
//! with it, and the `discover` answer (hundreds of MB on a large codebase, never built as
//! a value) calls its `key: value` methods directly, so both lay YAML out the same way.

use std::io::Write;

use serde_yaml::{Mapping, Value};

use super::scalar::{tokenize, Scalar};
use super::{as_symbol, SYMBOL_TAG};

/// Longest key written in the plain `key: value` form.
const SIMPLE_KEY_MAX: usize = 1000;

/// Longest flow-style list written on one line.
const FLOW_WIDTH: usize = 80;

/// Renders `value` as a YAML document ending with a newline.
pub fn to_string(value: &Value) -> String {
    let mut out: Vec<u8> = Vec::new();
    let mut writer = Writer::new(&mut out);
    // Writing to memory does not fail.
    let _ = writer.document(value).and_then(|()| writer.flush());
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Where the next `key: value` of a block mapping goes: at column `level`, or right after
/// a sequence item's `-` for the first pair of an item.
#[derive(Debug, Clone, Copy)]
pub struct Block {
    level: usize,
    after_dash: bool,
}

impl Block {
    /// The top level of a document.
    pub fn top() -> Self {
        Block {
            level: 0,
            after_dash: false,
        }
    }
}

/// A streaming YAML writer: text goes through a buffer written out in chunks of about
/// [`Writer::CHUNK`] bytes.
pub struct Writer<'w> {
    buf: String,
    out: &'w mut dyn Write,
}

impl<'w> Writer<'w> {
    /// Bytes gathered before they are written out.
    pub const CHUNK: usize = 1 << 16;

    /// A writer to `out`.
    pub fn new(out: &'w mut dyn Write) -> Self {
        Writer {
            buf: String::with_capacity(Self::CHUNK + 4096),
            out,
        }
    }

    /// Writes out what is buffered.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.write_all(self.buf.as_bytes())?;
        self.buf.clear();
        Ok(())
    }

    fn maybe_flush(&mut self) -> std::io::Result<()> {
        if self.buf.len() >= Self::CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn indent(&mut self, level: usize) {
        // One copy from a run of spaces (levels stay far below it), not a push per column.
        const SPACES: &str = "                                                                ";
        match SPACES.get(..level) {
            Some(spaces) => self.buf.push_str(spaces),
            None => {
                for _ in 0..level {
                    self.buf.push(' ');
                }
            }
        }
    }

    /// `key:` of a block mapping, for a key that is plain YAML as it is (`method_id`).
    fn key(&mut self, m: &mut Block, key: &str) {
        if m.after_dash {
            m.after_dash = false;
            self.buf.push(' ');
        } else {
            self.indent(m.level);
        }
        self.buf.push_str(key);
        self.buf.push(':');
    }

    /// `key: value` for a string, quoted when Psych would read it as something else.
    pub fn str(&mut self, m: &mut Block, key: &str, value: &str) -> std::io::Result<()> {
        self.key(m, key);
        self.buf.push(' ');
        push_string_text(&mut self.buf, value);
        self.buf.push('\n');
        self.maybe_flush()
    }

    /// `key: value`, or `key: null`.
    pub fn opt_str(
        &mut self,
        m: &mut Block,
        key: &str,
        value: Option<&str>,
    ) -> std::io::Result<()> {
        match value {
            Some(v) => self.str(m, key, v),
            None => {
                self.key(m, key);
                self.buf.push_str(" null\n");
                Ok(())
            }
        }
    }

    /// `key: 42`.
    pub fn num(&mut self, m: &mut Block, key: &str, value: impl itoa::Integer) {
        self.key(m, key);
        self.buf.push(' ');
        self.buf.push_str(itoa::Buffer::new().format(value));
        self.buf.push('\n');
    }

    /// `key: [1, 2]`: a short list of numbers in flow style.
    pub fn nums<I: itoa::Integer>(&mut self, m: &mut Block, key: &str, values: &[I]) {
        self.key(m, key);
        self.buf.push_str(" [");
        let mut digits = itoa::Buffer::new();
        for (i, &value) in values.iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.buf.push_str(digits.format(value));
        }
        self.buf.push_str("]\n");
    }

    /// `key: true`.
    pub fn bool(&mut self, m: &mut Block, key: &str, value: bool) {
        self.key(m, key);
        self.buf
            .push_str(if value { " true\n" } else { " false\n" });
    }

    /// `key:` for a non-empty nested mapping; its pairs go two columns further in.
    pub fn map(&mut self, m: &mut Block, key: &str) -> std::io::Result<Block> {
        self.key(m, key);
        self.buf.push('\n');
        self.maybe_flush()?;
        Ok(Block {
            level: m.level + 2,
            after_dash: false,
        })
    }

    /// `key:` for a sequence of mappings: `key: []` when empty (`None`), else the column
    /// of its items.
    pub fn seq(&mut self, m: &mut Block, key: &str, empty: bool) -> std::io::Result<Option<usize>> {
        self.key(m, key);
        if empty {
            self.buf.push_str(" []\n");
            return Ok(None);
        }
        self.buf.push('\n');
        self.maybe_flush()?;
        Ok(Some(m.level + 2))
    }

    /// A sequence item that is a mapping: `-` at `level`, its first pair on that line.
    pub fn item(&mut self, level: usize) -> Block {
        self.indent(level);
        self.buf.push('-');
        Block {
            level: level + 2,
            after_dash: true,
        }
    }

    /// A list of strings: `[]`, `[a, b]` when it fits, else one `- item` per line.
    pub fn strings<'s, I, S>(&mut self, m: &mut Block, key: &str, items: I) -> std::io::Result<()>
    where
        I: Iterator<Item = &'s S> + Clone,
        S: AsRef<str> + ?Sized + 's,
    {
        self.key(m, key);
        // The flow form is written in place and taken back if it does not fit (a list per
        // item and per dependency: no String of its own for each).
        let before = self.buf.len();
        self.buf.push_str(" [");
        let flow_start = before + 1;
        let mut fits = true;
        for (count, item) in items.clone().enumerate() {
            if count > 0 {
                self.buf.push_str(", ");
            }
            push_flow_string_text(&mut self.buf, item.as_ref());
            if self.buf.len() - flow_start + 1 > FLOW_WIDTH {
                fits = false;
                break;
            }
        }
        if fits {
            self.buf.push_str("]\n");
            return Ok(());
        }
        self.buf.truncate(before);
        self.buf.push('\n');
        for item in items {
            self.indent(m.level + 2);
            self.buf.push_str("- ");
            push_string_text(&mut self.buf, item.as_ref());
            self.buf.push('\n');
            self.maybe_flush()?;
        }
        Ok(())
    }

    /// Writes `render` of every element of `all`, in order. On a pool, chunks of elements
    /// are rendered in parallel into their own buffers, a bounded batch at a time, and
    /// written in order: the long lists of a large answer (hundreds of MB of YAML) use
    /// every core and the output is the same bytes as a serial write.
    pub fn write_each<T: Sync>(
        &mut self,
        pool: Option<&rayon::ThreadPool>,
        all: &[T],
        render: impl Fn(&mut Writer<'_>, &T) -> std::io::Result<()> + Sync,
    ) -> std::io::Result<()> {
        use rayon::prelude::*;
        const CHUNK: usize = 256;
        const BATCH: usize = 32;
        let Some(pool) = pool.filter(|p| p.current_num_threads() > 1 && all.len() > CHUNK) else {
            for x in all {
                render(self, x)?;
                self.maybe_flush()?;
            }
            return Ok(());
        };
        self.flush()?;
        for batch in all.chunks(CHUNK * BATCH) {
            let rendered: Vec<std::io::Result<Vec<u8>>> = pool.install(|| {
                batch
                    .par_chunks(CHUNK)
                    .map(|chunk| {
                        let mut bytes: Vec<u8> = Vec::new();
                        let mut y = Writer::new(&mut bytes);
                        for x in chunk {
                            render(&mut y, x)?;
                            y.maybe_flush()?;
                        }
                        y.flush()?;
                        Ok(bytes)
                    })
                    .collect()
            });
            for bytes in rendered {
                self.out.write_all(&bytes?)?;
            }
        }
        Ok(())
    }

    /// `value` as a whole document.
    pub fn document(&mut self, value: &Value) -> std::io::Result<()> {
        match value {
            Value::Mapping(map) if !map.is_empty() => self.mapping(map, 0),
            Value::Sequence(seq) if !seq.is_empty() => self.sequence(seq, 0),
            other => {
                self.buf
                    .push_str(&inline(other).unwrap_or_else(|| "null".to_string()));
                self.buf.push('\n');
                Ok(())
            }
        }
    }

    fn mapping(&mut self, map: &Mapping, level: usize) -> std::io::Result<()> {
        for (key, value) in map {
            self.indent(level);
            self.pair(key, value, level)?;
        }
        Ok(())
    }

    /// One `key: value` pair, the cursor already at column `level`. A key that is a
    /// non-empty collection (legal YAML, and what a hand-edited `? ` key loads as) is
    /// written in the explicit form, `? key` then `: value`, which Psych reads back to the
    /// same key.
    fn pair(&mut self, key: &Value, value: &Value, level: usize) -> std::io::Result<()> {
        // libyaml only finds a plain `key:` within 1024 characters of the key's start; a
        // longer key goes in the explicit form too (as Psych writes it).
        match inline(key).filter(|text| text.len() <= SIMPLE_KEY_MAX) {
            Some(text) => self.buf.push_str(&text),
            None => {
                self.buf.push('?');
                self.after_indicator(key, level)?;
                self.indent(level);
            }
        }
        self.buf.push(':');
        self.after_key(value, level)
    }

    fn after_key(&mut self, value: &Value, level: usize) -> std::io::Result<()> {
        match value {
            Value::Mapping(m) if !m.is_empty() => {
                self.buf.push('\n');
                self.mapping(m, level + 2)?;
            }
            Value::Sequence(s) if !s.is_empty() => match flow_sequence(s) {
                Some(flow) => {
                    self.buf.push(' ');
                    self.buf.push_str(&flow);
                    self.buf.push('\n');
                }
                None => {
                    self.buf.push('\n');
                    self.sequence(s, level + 2)?;
                }
            },
            other => {
                self.buf.push(' ');
                self.buf
                    .push_str(&inline(other).unwrap_or_else(|| "null".to_string()));
                self.buf.push('\n');
            }
        }
        self.maybe_flush()
    }

    fn sequence(&mut self, seq: &[Value], level: usize) -> std::io::Result<()> {
        for item in seq {
            self.indent(level);
            self.buf.push('-');
            self.after_indicator(item, level)?;
        }
        Ok(())
    }

    /// A node after a `-` or `?` indicator at column `level`: a mapping's first pair on the
    /// indicator's line and the rest aligned under it, a sequence on the following lines, a
    /// scalar on the same line.
    fn after_indicator(&mut self, node: &Value, level: usize) -> std::io::Result<()> {
        match node {
            Value::Mapping(m) if !m.is_empty() => {
                let mut first = true;
                for (key, value) in m {
                    if first {
                        self.buf.push(' ');
                        first = false;
                    } else {
                        self.indent(level + 2);
                    }
                    self.pair(key, value, level + 2)?;
                }
                Ok(())
            }
            // A sequence or a scalar goes as it goes after a key.
            other => self.after_key(other, level),
        }
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
        match item {
            Value::String(s) => {
                let mut text = String::new();
                push_flow_string_text(&mut text, s);
                parts.push(text);
            }
            _ => parts.push(inline(item)?),
        }
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

/// Plain when Psych reads the plain text back as this very string; double-quoted otherwise.
pub fn string_text(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// [`string_text`] appended to `out` (no allocation for the usual plain string).
fn push_string_text(out: &mut String, s: &str) {
    if plain_is_safe(s) {
        out.push_str(s);
    } else {
        out.push_str(&double_quoted(s));
    }
}

/// A string as an item of a flow list (`[a, b]`): as [`string_text`], but quoted when it
/// holds a `?`. YAML 1.2 and libyaml (Psych) read `[Foo#dry_run?]` as one plain scalar;
/// PyYAML (YAML 1.1) ends a plain scalar at `?` inside a flow collection and refuses the
/// file, and agent harnesses written in Python load these files with it.
fn push_flow_string_text(out: &mut String, s: &str) {
    if memchr::memchr(b'?', s.as_bytes()).is_some() {
        out.push_str(&double_quoted(s));
    } else {
        push_string_text(out, s);
    }
}

/// Bytes of the usual plain text of an answer: letters, digits and `_:#/.?!=`. A table,
/// which costs fewer instructions per byte than the comparisons it replaces.
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
