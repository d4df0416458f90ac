//! Placeholders as Ruby that runs (`skeleton --placeholders pending`).
//!
//! The contract's skeleton is for the spec-writer agent: `{COMMON_SETUP}`, `{SETUP_CODE}`,
//! `{EXPECTATION}` and `{THRESHOLD_VALUE}` stand where it writes code, and the file is not
//! Ruby until it does (one skeleton appended to a spec stops the whole file from running).
//! For a person, each placeholder becomes Ruby that parses and keeps the suite green:
//!
//! - `{EXPECTATION}` (the body of an example) becomes `skip 'TODO: write the
//!   expectation'`: the example is reported pending with that reason, never failing;
//! - `{COMMON_SETUP}` and `{SETUP_CODE}` (setup lines of a `describe` or `context`) become
//!   `# TODO:` comments saying which setup goes there;
//! - `{THRESHOLD_VALUE}` (a `let` value) becomes `skip('TODO: a value at the threshold')`,
//!   so an example that uses it before a person chose the value is pending, not wrong;
//! - any other `{NAME}` outside a string does the same by its place: a line of its own in
//!   an example is a `skip`, elsewhere a comment; inside an expression a `skip(...)`.
//!   Placeholders inside strings (`it '{BEHAVIOR_DESCRIPTION}'`, `context
//!   '{CONTEXT_WORD} ...'`) are already Ruby and stay for the person to reword.
//!
//! This is a pass over rendered lines: the layout (`render`) is the contract's, and both
//! forms come from one rendering.

use super::lets::THRESHOLD_VALUE;
use super::render::{COMMON_SETUP, EXPECTATION, SETUP_CODE};

/// The reason an example without its expectation is pending.
pub const EXPECTATION_REASON: &str = "TODO: write the expectation";

/// The lines with every placeholder outside a string turned into Ruby that runs.
pub fn pending(lines: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        let indent = line
            .get(..line.len() - line.trim_start().len())
            .unwrap_or("");
        let rendered = if trimmed == EXPECTATION {
            format!("{indent}skip '{EXPECTATION_REASON}'")
        } else if trimmed == COMMON_SETUP {
            format!("{indent}# TODO: setup shared by every example of this method")
        } else if trimmed == SETUP_CODE {
            format!("{indent}# TODO: setup for this context")
        } else if let Some(name) = whole_line_placeholder(trimmed) {
            if in_example(lines, index) {
                format!("{indent}skip 'TODO: {}'", words(name))
            } else {
                format!("{indent}# TODO: {}", words(name))
            }
        } else {
            inline(line)
        };
        out.push(rendered);
    }
    out
}

/// The text (lines joined by `\n`) with its placeholders turned into Ruby.
pub fn pending_text(text: &str) -> String {
    let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    pending(&lines).join("\n")
}

/// `NAME` when the line is exactly `{NAME}`.
fn whole_line_placeholder(trimmed: &str) -> Option<&str> {
    let name = trimmed.strip_prefix('{')?.strip_suffix('}')?;
    placeholder_name(name).then_some(name)
}

/// Upper-case letters, digits and `_`, starting with a letter.
fn placeholder_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// `THRESHOLD_VALUE` → `threshold value`.
fn words(name: &str) -> String {
    name.to_ascii_lowercase().replace('_', " ")
}

/// Whether line `index` sits in an example: the nearest line above it with a smaller
/// indentation opens an `it`/`specify`/`example` block.
fn in_example(lines: &[String], index: usize) -> bool {
    let width = |l: &str| l.len() - l.trim_start().len();
    let Some(line) = lines.get(index) else {
        return false;
    };
    let own = width(line);
    lines
        .get(..index)
        .unwrap_or_default()
        .iter()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .find(|l| width(l) < own)
        .is_some_and(|opener| {
            let t = opener.trim_start();
            ["it ", "it(", "specify ", "specify(", "example ", "example("]
                .iter()
                .any(|p| t.starts_with(p))
        })
}

/// `{NAME}` tokens outside string literals and comments become `skip('TODO: ...')`; the
/// threshold one says what value is wanted.
fn inline(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if let Some(q) = quote {
            out.push(c);
            rest = rest.get(c.len_utf8()..).unwrap_or("");
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '#' => {
                // A comment: the rest of the line stays as it is.
                out.push_str(rest);
                return out;
            }
            '{' => {
                if let Some(end) = rest.find('}') {
                    let name = rest.get(1..end).unwrap_or("");
                    if placeholder_name(name) {
                        if format!("{{{name}}}") == THRESHOLD_VALUE {
                            out.push_str("skip('TODO: a value at the threshold')");
                        } else {
                            out.push_str(&format!("skip('TODO: {}')", words(name)));
                        }
                        rest = rest.get(end + 1..).unwrap_or("");
                        continue;
                    }
                }
            }
            _ => {}
        }
        out.push(c);
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> String {
        pending_text(text)
    }

    #[test]
    fn each_placeholder_by_its_place() {
        let skeleton = "\
  describe '#call' do
    # rspec-testing:method_begin method=\"#call\" method_id=\"Checkout#call\"
    subject(:result) { instance.call }  # TODO: Add parameters

    {COMMON_SETUP}

    context 'when amount is above the limit' do
      let(:amount) { {THRESHOLD_VALUE} }  # >= 100
      {SETUP_CODE}

      it 'charges the card' do
        {EXPECTATION}
        # rspec-testing:example behavior_id=\"charges\" kind=\"success\" path=\"1:amount=\\\"{X}\\\"\"
      end
      it '{BEHAVIOR_DESCRIPTION}' do
        {EXPECTATION}
      end
      context '{CONTEXT_WORD} retried' do
        {RETRY_SETUP}
        it(\"retries {LATER}\") { {RETRY_CHECK} }
        it 'waits' do
          {WAIT_CHECK}
        end
      end
    end
  end";
        assert_eq!(
            run(skeleton),
            "\
  describe '#call' do
    # rspec-testing:method_begin method=\"#call\" method_id=\"Checkout#call\"
    subject(:result) { instance.call }  # TODO: Add parameters

    # TODO: setup shared by every example of this method

    context 'when amount is above the limit' do
      let(:amount) { skip('TODO: a value at the threshold') }  # >= 100
      # TODO: setup for this context

      it 'charges the card' do
        skip 'TODO: write the expectation'
        # rspec-testing:example behavior_id=\"charges\" kind=\"success\" path=\"1:amount=\\\"{X}\\\"\"
      end
      it '{BEHAVIOR_DESCRIPTION}' do
        skip 'TODO: write the expectation'
      end
      context '{CONTEXT_WORD} retried' do
        # TODO: retry setup
        it(\"retries {LATER}\") { skip('TODO: retry check') }
        it 'waits' do
          skip 'TODO: wait check'
        end
      end
    end
  end"
        );
    }

    #[test]
    fn text_without_placeholders_is_unchanged() {
        let text = "RSpec.describe A do\n  it 'x' do\n    expect(h).to eq({ a: 1 })\n  end\nend\n";
        assert_eq!(run(text), text);
        assert_eq!(run(""), "");
    }
}
