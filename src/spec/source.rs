//! A spec file as text lines (kept byte for byte: BOM, line endings, final newline) and
//! its RSpec blocks from Ruby's parser, including the method blocks the patcher and the
//! outline work on.
//!
//! Skeletons contain placeholders (`{SETUP_CODE}`, `{EXPECTATION}`, ...) that are not
//! Ruby. Before parsing, each `{NAME}` is turned into `(NAME)` (same length, valid Ruby in
//! every place a placeholder is written), and string arguments are given back their
//! original text afterwards.

use crate::index::spec_blocks::{self, ArgKind, SpecBlocks, SpecCall};

use super::markers;

const BOM: &str = "\u{feff}";

/// The lines of a spec file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecText {
    /// The file started with a UTF-8 byte order mark (kept when writing).
    pub bom: bool,
    /// The text split on `\n`; a final newline gives a last empty element, and `\r` of
    /// CRLF endings stays on its line.
    pub lines: Vec<String>,
}

impl SpecText {
    /// Reads the bytes of a spec file; it must be UTF-8.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| format!("spec file is not valid UTF-8 (byte {})", e.valid_up_to()))?;
        Ok(Self::from_text(text))
    }

    /// Splits a text.
    pub fn from_text(text: &str) -> Self {
        let (bom, body) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        SpecText {
            bom,
            lines: body.split('\n').map(str::to_string).collect(),
        }
    }

    /// The text without the BOM, exactly as read (no newline is added).
    pub fn body(&self) -> String {
        self.lines.join("\n")
    }

    /// The bytes to write back: BOM (when there was one) and the lines joined by `\n`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::new();
        if self.bom {
            out.push_str(BOM);
        }
        out.push_str(&self.body());
        out.into_bytes()
    }

    /// Whether lines end with `\r\n` (judged by the first line).
    pub fn crlf(&self) -> bool {
        self.lines.len() > 1 && self.lines.first().is_some_and(|l| l.ends_with('\r'))
    }

    /// The line at a 0-based index (empty when out of range).
    pub fn line(&self, index: usize) -> &str {
        self.lines.get(index).map_or("", String::as_str)
    }
}

/// Leading whitespace width of a line (Ruby's `line[/^\s*/].length` for spaces and tabs).
pub fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// The RSpec calls of a spec text. A text prism cannot parse cleanly (even with the
/// placeholders neutralised) is refused: block ends would be guesses, and patching on
/// guesses loses code.
pub fn parse(text: &SpecText) -> Result<SpecBlocks, String> {
    let body = text.body();
    // A spec Ruby reads as it is needs nothing neutralised (and a `{...}` in it is Ruby's:
    // `"\u{3042}"`, a hash): only a text that does not parse has its placeholders swapped.
    let plain = spec_blocks::parse(body.as_bytes());
    if plain.diagnostics.is_empty() {
        return Ok(plain);
    }
    let (neutral, spans) = neutralize(&body);
    if spans.is_empty() {
        let first = plain.diagnostics.first();
        return Err(format!(
            "spec does not parse as Ruby: line {}: {}",
            first.map_or(1, |d| d.line),
            first.map_or("syntax error", |d| d.message.as_str())
        ));
    }
    let mut blocks = spec_blocks::parse(neutral.as_bytes());
    if let Some(first) = blocks.diagnostics.first() {
        return Err(format!(
            "spec does not parse as Ruby: line {}: {}",
            first.line, first.message
        ));
    }
    if !spans.is_empty() {
        for call in &mut blocks.calls {
            if let Some(arg) = call.arg.as_mut() {
                let inside: Vec<&(usize, usize)> = spans
                    .iter()
                    .filter(|(s, e)| *s >= arg.span.0 && *e <= arg.span.1)
                    .collect();
                if inside.is_empty() {
                    continue;
                }
                arg.source = body
                    .get(arg.span.0..arg.span.1)
                    .unwrap_or_default()
                    .to_string();
                if arg.kind == ArgKind::String {
                    if let Some(value) = arg.value.as_mut() {
                        for (s, e) in inside {
                            let name = body.get(s + 1..e - 1).unwrap_or_default();
                            *value =
                                value.replacen(&format!("({name})"), &format!("{{{name}}}"), 1);
                        }
                    }
                }
            }
        }
    }
    Ok(blocks)
}

/// `{NAME}` placeholders (`NAME` an upper-case letter, then upper-case letters, digits and
/// `_`; not after `#`, not a `\u{...}` escape) become `(NAME)`. Returns the new text and the
/// byte spans that changed.
fn neutralize(text: &str) -> (String, Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let after = |back: usize, b: u8| i >= back && bytes.get(i - back) == Some(&b);
        let escape = after(1, b'u') && after(2, b'\\');
        if bytes.get(i) == Some(&b'{')
            && !after(1, b'#')
            && !escape
            && bytes.get(i + 1).is_some_and(u8::is_ascii_uppercase)
        {
            let mut j = i + 1;
            while bytes
                .get(j)
                .is_some_and(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
            {
                j += 1;
            }
            if j > i + 1 && bytes.get(j) == Some(&b'}') {
                if let Some(b) = out.get_mut(i) {
                    *b = b'(';
                }
                if let Some(b) = out.get_mut(j) {
                    *b = b')';
                }
                spans.push((i, j + 1));
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    // Only ASCII bytes were swapped for ASCII bytes, so the text is still UTF-8.
    (String::from_utf8_lossy(&out).into_owned(), spans)
}

/// A method's block in a spec file (0-based line indexes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodBlock {
    /// `Class#name`.
    pub method_id: String,
    /// The `describe` call's first line.
    pub open: usize,
    /// The line of its `do` (or `{`).
    pub body_open: usize,
    /// The line of its `end` (or `}`).
    pub close: usize,
    /// The `describe` line's indentation.
    pub indent: usize,
    /// Found through `method_begin`/`method_end` markers (else through the describe line).
    pub by_markers: bool,
    /// Index of the `describe` call in the parsed calls.
    pub call: usize,
}

fn block_of(
    call: &SpecCall,
    index: usize,
    method_id: &str,
    by_markers: bool,
) -> Option<MethodBlock> {
    let block = call.block?;
    Some(MethodBlock {
        method_id: method_id.to_string(),
        open: usize::try_from(call.line).ok()?.checked_sub(1)?,
        body_open: usize::try_from(block.open_line).ok()?.checked_sub(1)?,
        close: usize::try_from(block.close_line).ok()?.checked_sub(1)?,
        indent: usize::try_from(call.indent).ok()?,
        by_markers,
        call: index,
    })
}

/// The innermost `describe` whose block holds 0-based line `line`, preferring one whose
/// first argument is `descriptor` (when given).
pub fn enclosing_describe(
    blocks: &SpecBlocks,
    line: usize,
    descriptor: Option<&str>,
) -> Option<usize> {
    let line = u32::try_from(line + 1).ok()?;
    // A `describe`, or a method's group in another spelling (`context '#x'`).
    let holds = |c: &SpecCall| {
        (c.name == "describe" || c.described_method().is_some())
            && c.block
                .is_some_and(|b| b.open_line < line && line < b.close_line)
    };
    let innermost = |want: Option<&str>| {
        blocks
            .calls
            .iter()
            .enumerate()
            .filter(|(_, c)| holds(c))
            .filter(|(_, c)| want.is_none_or(|d| c.string_arg() == Some(d)))
            .max_by_key(|(_, c)| c.line)
            .map(|(i, _)| i)
    };
    match descriptor.filter(|d| !crate::ruby::blank(d)) {
        Some(d) => innermost(Some(d)),
        None => innermost(None),
    }
}

/// The method blocks marked with `method_begin`/`method_end`, as the patcher reads them.
/// Errors are the pipeline patcher's texts.
pub fn marker_blocks(text: &SpecText, blocks: &SpecBlocks) -> Result<Vec<MethodBlock>, String> {
    use crate::index::spec_blocks::DescribedMethod;
    let mut found: Vec<MethodBlock> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    // The describe calls by string argument, for the markers' `method="#x"` attribute (a
    // scan of every call per marker was quadratic).
    // A hand-written `context '#x'` overwritten with a generated body keeps its own line,
    // so every spelling of a method's group counts (`describe :x` as `#x`).
    let mut by_arg: std::collections::HashMap<String, Vec<usize>> =
        std::collections::HashMap::new();
    for (index, c) in blocks.calls.iter().enumerate() {
        if c.name == "describe" {
            if let Some(arg) = c.string_arg() {
                by_arg.entry(arg.to_string()).or_default().push(index);
                continue;
            }
        }
        match c.described_method() {
            Some(DescribedMethod::Descriptor(d)) => by_arg.entry(d.to_string()).or_default(),
            Some(DescribedMethod::Name(n)) => by_arg.entry(format!("#{n}")).or_default(),
            None => continue,
        }
        .push(index);
    }
    let mut i = 0;
    while i < text.lines.len() {
        let line = text.line(i);
        if markers::tag(line) != Some("method_begin") {
            i += 1;
            continue;
        }
        let method_id = markers::attr(line, "method_id").unwrap_or_default();
        if crate::ruby::blank(&method_id) {
            return Err(format!("method_begin missing method_id at line {}", i + 1));
        }
        if !seen.insert(method_id.clone()) {
            return Err(format!("Duplicate method_id in input: {method_id}"));
        }
        let end = matching_end(text, i, &method_id)?;
        let descriptor = markers::attr(line, "method");
        let enclosing = match descriptor.as_deref().filter(|d| !crate::ruby::blank(d)) {
            Some(d) => {
                let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
                by_arg
                    .get(d)
                    .into_iter()
                    .flatten()
                    .filter_map(|&index| blocks.calls.get(index).map(|c| (index, c)))
                    .filter(|(_, c)| {
                        c.block
                            .is_some_and(|b| b.open_line < line && line < b.close_line)
                    })
                    .max_by_key(|(_, c)| c.line)
                    .map(|(index, _)| index)
            }
            None => enclosing_describe(blocks, i, None),
        };
        let describe = enclosing
            .and_then(|index| blocks.calls.get(index).map(|c| (index, c)))
            .and_then(|(index, c)| block_of(c, index, &method_id, true))
            .ok_or_else(|| {
                format!(
                    "Cannot find describe line for {method_id} before line {}",
                    i + 1
                )
            })?;
        if describe.close <= end {
            return Err(format!(
                "Cannot find closing end line for {method_id} after line {}",
                end + 1
            ));
        }
        found.push(describe);
        i = end + 1;
    }
    Ok(found)
}

fn matching_end(text: &SpecText, begin: usize, method_id: &str) -> Result<usize, String> {
    for j in begin + 1..text.lines.len() {
        let line = text.line(j);
        if markers::tag(line) != Some("method_end") {
            continue;
        }
        let end_id = markers::attr(line, "method_id").unwrap_or_default();
        if crate::ruby::blank(&end_id) {
            return Err(format!("method_end missing method_id at line {}", j + 1));
        }
        if end_id != method_id {
            return Err(format!(
                "method_end method_id mismatch (begin={method_id}, end={end_id}) at line {}",
                j + 1
            ));
        }
        return Ok(j);
    }
    Err(format!(
        "Missing method_end for {method_id} (begin at line {})",
        begin + 1
    ))
}

/// The `describe '#name'` blocks of the given `(method_id, descriptor)` pairs, in that
/// order and, for one descriptor, in file order, leaving out the describe calls listed in
/// `claimed` (those that marker blocks own). A hand-written spec may describe a method
/// more than once; every block is listed and the caller decides.
pub fn describe_blocks(
    blocks: &SpecBlocks,
    wanted: &[(String, String)],
    claimed: &[usize],
) -> Vec<MethodBlock> {
    use crate::index::spec_blocks::DescribedMethod;
    // The method groups by the descriptor they spell, in order (one scan of the calls,
    // not one per wanted method). `describe :m` names the instance method when it is
    // wanted, else the class method.
    let wants = |d: &str| wanted.iter().any(|(_, w)| w == d);
    let mut by_arg: std::collections::HashMap<String, Vec<(usize, &SpecCall)>> =
        std::collections::HashMap::new();
    for (index, c) in blocks.calls.iter().enumerate() {
        if claimed.contains(&index) {
            continue;
        }
        let descriptor = match c.described_method() {
            Some(DescribedMethod::Descriptor(d)) => d.to_string(),
            Some(DescribedMethod::Name(name)) => {
                let instance = format!("#{name}");
                let singleton = format!(".{name}");
                if !wants(&instance) && wants(&singleton) {
                    singleton
                } else {
                    instance
                }
            }
            None => continue,
        };
        by_arg.entry(descriptor).or_default().push((index, c));
    }
    let mut found = Vec::new();
    for (method_id, descriptor) in wanted {
        if crate::ruby::blank(descriptor) {
            continue;
        }
        let groups = by_arg.get(descriptor.as_str());
        let groups: Vec<&(usize, &SpecCall)> = groups.into_iter().flatten().collect();
        for (index, call) in &groups {
            // A `context '#m'` inside a `describe '#m'` is part of that block, not a
            // second one.
            let nested = groups
                .iter()
                .any(|(other, _)| other != index && holds(blocks, *other, *index));
            if !nested {
                found.extend(block_of(call, *index, method_id, false));
            }
        }
    }
    found
}

/// Whether call `outer` is an ancestor of call `inner`.
fn holds(blocks: &SpecBlocks, outer: usize, inner: usize) -> bool {
    let mut parent = blocks.calls.get(inner).and_then(|c| c.parent);
    while let Some(p) = parent {
        if p == outer {
            return true;
        }
        parent = blocks.calls.get(p).and_then(|c| c.parent);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> SpecText {
        SpecText::from_text(s)
    }

    #[test]
    fn text_round_trips_byte_for_byte() {
        for s in ["a\nb\n", "a\nb", "\u{feff}x\r\ny\r\n", "", "\n\n"] {
            let t = text(s);
            assert_eq!(String::from_utf8(t.to_bytes()).unwrap(), s);
        }
        assert!(text("a\r\nb\r\n").crlf());
        assert!(!text("a\nb\r\n").crlf());
        assert!(SpecText::from_bytes(b"\xff\n").is_err());
    }

    #[test]
    fn unicode_escapes_and_hashes_are_ruby_not_placeholders() {
        // `\u{3042}` was read as a placeholder and broke the parse of real specs.
        for spec in [
            "describe '#a' do\n  it { expect(x).to eq(\"\\u{3042}\") }\nend\n",
            "describe '#a' do\n  it { expect(x).to eq(\"\\u{FEFF}\") }\nend\n",
            "describe '#a' do\n  let(:h) { {A1: 1} }\n  {COMMON_SETUP}\n  it { expect(\"\\u{1F600}\").to be }\nend\n",
        ] {
            let blocks = parse(&text(spec)).unwrap_or_else(|e| panic!("{e}: {spec}"));
            assert_eq!(blocks.calls.first().map(|c| c.name.as_str()), Some("describe"));
        }
        assert!(parse(&text("describe '#a' do\n  it { \"\\u{3042\" }\nend\n")).is_err());
    }

    #[test]
    fn placeholders_do_not_break_parsing_and_strings_keep_them() {
        let t = text(
            "describe '#a' do\n  let(:x) { {THRESHOLD_VALUE} }\n  {COMMON_SETUP}\n  context '{CONTEXT_WORD} x is {Y}' do\n    {SETUP_CODE}\n    it \"v #{X}\" do\n      {EXPECTATION}\n    end\n  end\nend\n",
        );
        let blocks = parse(&t).unwrap();
        let args: Vec<String> = blocks
            .calls
            .iter()
            .map(|c| {
                format!(
                    "{:?} {}",
                    c.arg.as_ref().and_then(|a| a.value.clone()),
                    c.arg.as_ref().map(|a| a.source.clone()).unwrap_or_default()
                )
            })
            .collect();
        assert_eq!(
            args,
            [
                "Some(\"#a\") '#a'",
                "None :x",
                "Some(\"{CONTEXT_WORD} x is {Y}\") '{CONTEXT_WORD} x is {Y}'",
                "None \"v #{X}\""
            ]
        );
        let lines: Vec<(u32, u32)> = blocks.calls.iter().map(|c| (c.line, c.end_line)).collect();
        assert_eq!(lines, [(1, 10), (2, 2), (4, 9), (6, 8)]);
    }

    #[test]
    fn broken_ruby_is_refused_with_its_line() {
        let err = parse(&text("describe '#a' do\n  it 'x' do\nend\n")).unwrap_err();
        assert!(
            err.starts_with("spec does not parse as Ruby: line "),
            "{err}"
        );
    }

    const MARKED: &str = "\
RSpec.describe A do
  describe '#a' do
    # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"
    it 'x' do
      foo if bar
    end
    # rspec-testing:method_end method=\"#a\" method_id=\"A#a\"
  end

  describe '.b' do
    it 'y' do
    end
  end
end
";

    #[test]
    fn marker_and_describe_blocks() {
        let t = text(MARKED);
        let blocks = parse(&t).unwrap();
        let marked = marker_blocks(&t, &blocks).unwrap();
        assert_eq!(
            marked,
            [MethodBlock {
                method_id: "A#a".to_string(),
                open: 1,
                body_open: 1,
                close: 7,
                indent: 2,
                by_markers: true,
                call: 1
            }]
        );
        let described = describe_blocks(
            &blocks,
            &[
                ("A.b".to_string(), ".b".to_string()),
                ("A#c".to_string(), "#c".to_string()),
            ],
            &[],
        );
        assert_eq!(described.len(), 1);
        assert_eq!((described[0].open, described[0].close), (9, 12));
    }

    #[test]
    fn marker_errors_are_the_patchers() {
        let check = |src: &str, expected: &str| {
            let t = text(src);
            let blocks = parse(&t).unwrap();
            assert_eq!(marker_blocks(&t, &blocks).unwrap_err(), expected);
        };
        check(
            "describe '#a' do\n  # rspec-testing:method_begin method=\"#a\"\nend\n",
            "method_begin missing method_id at line 2",
        );
        check(
            "describe '#a' do\n  # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\nend\n",
            "Missing method_end for A#a (begin at line 2)",
        );
        check(
            "describe '#a' do\n  # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\n  # rspec-testing:method_end method_id=\"A#b\"\nend\n",
            "method_end method_id mismatch (begin=A#a, end=A#b) at line 3",
        );
        check(
            "# rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\n# rspec-testing:method_end method_id=\"A#a\"\n",
            "Cannot find describe line for A#a before line 1",
        );
        check(
            "describe '#a' do\n  # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\nend\n# rspec-testing:method_end method_id=\"A#a\"\n",
            "Cannot find closing end line for A#a after line 4",
        );
        check(
            "describe '#a' do\n  # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\n  # rspec-testing:method_end method_id=\"A#a\"\nend\ndescribe '#a' do\n  # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\n  # rspec-testing:method_end method_id=\"A#a\"\nend\n",
            "Duplicate method_id in input: A#a",
        );
    }

    #[test]
    fn a_descriptor_described_twice_gives_both_blocks_and_claimed_calls_are_left_out() {
        let t = text("describe '#a' do\nend\ncontext 'x' do\n  describe(\"#a\") { }\nend\n");
        let blocks = parse(&t).unwrap();
        let wanted = [("A#a".to_string(), "#a".to_string())];
        let lines = |claimed: &[usize]| -> Vec<(usize, usize)> {
            describe_blocks(&blocks, &wanted, claimed)
                .iter()
                .map(|b| (b.open, b.close))
                .collect()
        };
        assert_eq!(lines(&[]), [(0, 1), (3, 3)]);
        assert_eq!(lines(&[0]), [(3, 3)]);
    }
}
