//! The outline of an existing spec (contract §4.10): per marked method block, its
//! `describe`/`context` lines with their ends and its examples as `it '...'` lines, with
//! `it_behaves_like` of a known shared template shown as the template's example.
//!
//! Done right where the pipeline's outline was not: examples are listed (its regex never
//! matched `it '...' do`), and blocks come from Ruby's parser, not from `end` lines at some
//! indentation.

use std::collections::BTreeMap;

use crate::index::spec_blocks::{SpecBlocks, SpecCall};

use super::markers;
use super::source::{self, SpecText};

/// One marked method block.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    method_id: String,
    call: usize,
}

/// The outline (without a final newline). `only` keeps those method ids. Errors are the
/// pipeline's reasons (the caller prefixes `Cannot outline spec: `).
pub fn outline(text: &SpecText, only: &[String]) -> Result<String, String> {
    let blocks = source::parse(text)?;
    let header = blocks
        .calls
        .iter()
        .find(|c| c.receiver.is_some() && c.name == "describe")
        .map(|c| text.line(line_index(c.line)).trim_end().to_string());
    let ranges = method_ranges(text, &blocks)?;
    let selected: Vec<&Range> = ranges
        .iter()
        .filter(|r| only.is_empty() || only.contains(&r.method_id))
        .collect();
    if !only.is_empty() && selected.is_empty() {
        return Err(format!(
            "No method blocks found for requested method_id(s): {}",
            only.join(", ")
        ));
    }
    let shared = shared_templates(&blocks);
    let mut out: Vec<String> = Vec::new();
    if let Some(h) = &header {
        out.push(h.clone());
    }
    for range in selected {
        let mut lines = Vec::new();
        call_outline(text, &blocks, range.call, &shared, &mut lines);
        out.extend(lines);
        out.push(String::new());
    }
    if out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    if header.is_some() {
        out.push("end".to_string());
    }
    Ok(out.join("\n"))
}

fn line_index(line: u32) -> usize {
    usize::try_from(line).unwrap_or(1).saturating_sub(1)
}

/// The marked method blocks, in file order, with the pipeline's error texts.
fn method_ranges(text: &SpecText, blocks: &SpecBlocks) -> Result<Vec<Range>, String> {
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < text.lines.len() {
        let line = text.line(i);
        if markers::tag(line) != Some("method_begin") {
            i += 1;
            continue;
        }
        let method_id = markers::attr(line, "method_id").unwrap_or_default();
        if crate::ruby::blank(&method_id) {
            return Err(format!(
                "method_begin marker missing method_id at line {}",
                i + 1
            ));
        }
        let call = source::enclosing_describe(blocks, i, None).ok_or_else(|| {
            format!(
                "Cannot find describe start for method_id {method_id} (line {})",
                i + 1
            )
        })?;
        let end_marker = (i + 1..text.lines.len())
            .find(|&j| {
                let l = text.line(j);
                markers::tag(l) == Some("method_end")
                    && markers::attr(l, "method_id").as_deref() == Some(method_id.as_str())
            })
            .ok_or_else(|| {
                format!(
                    "Cannot find method_end for method_id {method_id} (line {})",
                    i + 1
                )
            })?;
        let close = blocks
            .calls
            .get(call)
            .and_then(|c| c.block)
            .map(|b| line_index(b.close_line))
            .filter(|close| *close > end_marker)
            .ok_or_else(|| {
                format!(
                    "Cannot find describe end for method_id {method_id} (after line {})",
                    end_marker + 1
                )
            })?;
        ranges.push(Range { method_id, call });
        i = close + 1;
    }
    Ok(ranges)
}

/// Shared template name → the first argument of its first example (`'returns nil'`).
fn shared_templates(blocks: &SpecBlocks) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for (index, call) in blocks.calls.iter().enumerate() {
        if !call.is_shared_definition() {
            continue;
        }
        let Some(name) = call.string_arg() else {
            continue;
        };
        let first = blocks
            .calls
            .iter()
            .skip(index + 1)
            .find(|c| c.is_example() && descends_from(blocks, c, index))
            .and_then(|c| c.arg.as_ref())
            .map(|a| a.source.clone());
        if let Some(first) = first {
            map.entry(name.to_string()).or_insert(first);
        }
    }
    map
}

fn descends_from(blocks: &SpecBlocks, call: &SpecCall, ancestor: usize) -> bool {
    let mut parent = call.parent;
    while let Some(p) = parent {
        if p == ancestor {
            return true;
        }
        parent = blocks.calls.get(p).and_then(|c| c.parent);
    }
    false
}

fn leading(line: &str) -> &str {
    let width = source::indent_of(line);
    line.get(..width).unwrap_or_default()
}

fn call_outline(
    text: &SpecText,
    blocks: &SpecBlocks,
    index: usize,
    shared: &BTreeMap<String, String>,
    out: &mut Vec<String>,
) {
    let Some(call) = blocks.calls.get(index) else {
        return;
    };
    let first_line = text.line(line_index(call.line));
    let indent = leading(first_line);
    if call.is_group() {
        out.push(first_line.trim_end().to_string());
        let Some(block) = call.block.filter(|b| b.close_line > call.line) else {
            return;
        };
        for (child, _) in blocks
            .calls
            .iter()
            .enumerate()
            .filter(|(_, c)| c.parent == Some(index))
        {
            call_outline(text, blocks, child, shared, out);
        }
        out.push(format!("{indent}{}", if block.brace { "}" } else { "end" }));
    } else if call.is_example() {
        match &call.arg {
            Some(arg) => out.push(format!("{indent}{} {}", call.name, arg.source)),
            None => out.push(format!("{indent}{}", call.name)),
        }
    } else if matches!(
        call.name.as_str(),
        "it_behaves_like" | "it_should_behave_like" | "include_examples"
    ) {
        match call.string_arg().and_then(|name| shared.get(name)) {
            Some(description) => out.push(format!("{indent}it {description}")),
            None => out.push(first_line.trim_end().to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline_of(src: &str, only: &[&str]) -> Result<String, String> {
        let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
        outline(&SpecText::from_text(src), &only)
    }

    const SPEC: &str = "\
# frozen_string_literal: true

require 'spec_helper'

RSpec.describe Checkout do
  describe '#call' do
    # rspec-testing:method_begin method=\"#call\" method_id=\"Checkout#call\"
    subject(:result) { instance.call }

    shared_examples '__rspec_testing__Checkout#call__charges__success' do
      it 'charges the card' do
        {EXPECTATION}
      end
    end

    context 'when authenticated' do
      let(:authenticated) { true }
      before { allow(x).to receive(:y) if z }

      # rspec-testing:example behavior_id=\"charges\" kind=\"success\" path=\"1:authenticated=true\"
      it_behaves_like '__rspec_testing__Checkout#call__charges__success'
      it \"sends a receipt\" do
        expect(1).to eq(1) unless false
      end
      it { is_expected.to be_truthy }
    end
    context 'when NOT authenticated' do
      it('raises') { expect { result }.to raise_error(StandardError) }
    end
    # rspec-testing:method_end method=\"#call\" method_id=\"Checkout#call\"
  end

  describe '.build' do
    # rspec-testing:method_begin method=\".build\" method_id=\"Checkout.build\"
    it 'builds' do
    end
    # rspec-testing:method_end method=\".build\" method_id=\"Checkout.build\"
  end
end
";

    #[test]
    fn lists_groups_examples_and_shared_includes() {
        assert_eq!(
            outline_of(SPEC, &[]).unwrap(),
            "\
RSpec.describe Checkout do
  describe '#call' do
    context 'when authenticated' do
      it 'charges the card'
      it \"sends a receipt\"
      it
    end
    context 'when NOT authenticated' do
      it 'raises'
    end
  end

  describe '.build' do
    it 'builds'
  end
end"
        );
    }

    #[test]
    fn only_selects_and_unknown_ids_fail() {
        assert_eq!(
            outline_of(SPEC, &["Checkout.build"]).unwrap(),
            "RSpec.describe Checkout do\n  describe '.build' do\n    it 'builds'\n  end\nend"
        );
        assert_eq!(
            outline_of(SPEC, &["Checkout#nope", "X#y"]).unwrap_err(),
            "No method blocks found for requested method_id(s): Checkout#nope, X#y"
        );
    }

    #[test]
    fn without_markers_only_the_header_is_left() {
        assert_eq!(
            outline_of("RSpec.describe A do\n  it 'x' do\n  end\nend\n", &[]).unwrap(),
            "RSpec.describe A do\nend"
        );
        assert_eq!(outline_of("x = 1\n", &[]).unwrap(), "");
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            outline_of(
                "describe '#a' do\n  # rspec-testing:method_begin method=\"#a\"\nend\n",
                &[]
            )
            .unwrap_err(),
            "method_begin marker missing method_id at line 2"
        );
        assert_eq!(
            outline_of("# rspec-testing:method_begin method_id=\"A#a\"\n", &[]).unwrap_err(),
            "Cannot find describe start for method_id A#a (line 1)"
        );
        assert_eq!(
            outline_of(
                "describe '#a' do\n  # rspec-testing:method_begin method_id=\"A#a\"\nend\n",
                &[]
            )
            .unwrap_err(),
            "Cannot find method_end for method_id A#a (line 2)"
        );
        assert_eq!(
            outline_of("describe '#a' do\n  # rspec-testing:method_begin method_id=\"A#a\"\nend\n# rspec-testing:method_end method_id=\"A#a\"\n", &[]).unwrap_err(),
            "Cannot find describe end for method_id A#a (after line 4)"
        );
    }
}
