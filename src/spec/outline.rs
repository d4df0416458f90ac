//! The outline of an existing spec, generated or hand-written.
//!
//! Two views of one reading (blocks come from Ruby's parser, `index::spec_blocks`):
//! - **methods** (contract §4.10): a header (the first `RSpec.describe` line, else the
//!   first top-level group), then per method block its `describe`/`context` lines with
//!   their ends and its examples as `it '...'` lines, with `it_behaves_like` of a known
//!   shared template shown as the template's example. It is the view of a spec that has
//!   `rspec-testing` markers, the one the pipeline reads.
//! - **tree**: every group, example, shared example, include, `let`/`subject` and hook of
//!   the file with its line range, and the method each `describe '#name'`/`'.name'` block
//!   covers. It is the view of any other spec (hand-written, or finished by
//!   `strip-markers`), where the methods view is nearly empty.
//!
//! Method blocks are the marked ones (their `method_id` from the marker) and every other
//! `describe '#name'`/`'.name'` block, whose class is the nearest enclosing group naming a
//! constant (qualified by the modules around it). `only` finds both.
//!
//! Done right where the pipeline's outline was not: examples are listed (its regex never
//! matched `it '...' do`), blocks come from Ruby's parser, not from `end` lines at some
//! indentation, and a spec without markers is not an empty outline.

use std::collections::BTreeMap;

use crate::index::spec_blocks::{ArgKind, DescribedMethod, SpecBlocks, SpecCall};
use crate::vocab::OutlineView;

use super::markers;
use super::source::{self, SpecText};

/// An outline: its text in the chosen view, and the data under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// The view the text is in.
    pub view: OutlineView,
    /// The text (without a final newline; empty when the file has no RSpec blocks).
    pub text: String,
    /// The blocks, as a tree (narrowed to the selected methods with `only`).
    pub tree: Vec<Node>,
    /// The method blocks, in file order (the selected ones with `only`).
    pub methods: Vec<Method>,
}

/// One RSpec block of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// What the call is.
    pub kind: NodeKind,
    /// The call, with its receiver: `RSpec.describe`, `context`, `it`, `let!`, ...
    pub call: String,
    /// The call's head on one line: `describe "#create"`, `let(:user)`, `before`; an
    /// example without a description on one line is shown whole (`it { is_expected.to
    /// be_valid }`).
    pub text: String,
    /// First line (1-based).
    pub line: u32,
    /// Last line (1-based).
    pub end_line: u32,
    /// For a method block: the method it covers.
    pub method: Option<Method>,
    /// The blocks inside it.
    pub children: Vec<Node>,
}

/// The kinds of tree nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// `describe`, `context`, `feature` and their variants.
    Group,
    /// `it`, `specify`, `example`, `scenario` and their variants.
    Example,
    /// `shared_examples`, `shared_examples_for`, `shared_context`.
    Shared,
    /// `it_behaves_like`, `it_should_behave_like`, `include_examples`, `include_context`.
    Include,
    /// `let`, `let!`, `subject`, `subject!`, `given`, `given!`.
    Let,
    /// `before`, `after`, `around`, `background`, ...
    Hook,
}

impl NodeKind {
    /// The word in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Group => "group",
            NodeKind::Example => "example",
            NodeKind::Shared => "shared",
            NodeKind::Include => "include",
            NodeKind::Let => "let",
            NodeKind::Hook => "hook",
        }
    }

    fn of(call: &SpecCall) -> Option<Self> {
        if call.is_group() {
            Some(NodeKind::Group)
        } else if call.is_example() {
            Some(NodeKind::Example)
        } else if call.is_shared_definition() {
            Some(NodeKind::Shared)
        } else if call.is_include() {
            Some(NodeKind::Include)
        } else if call.is_let() {
            Some(NodeKind::Let)
        } else if call.is_hook() {
            Some(NodeKind::Hook)
        } else {
            None
        }
    }
}

/// A method block: the `describe '#name'` (or `'.name'`) of one method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    /// `Class#name`, from the markers or from the enclosing group's constant; `None` when
    /// no enclosing group names a class.
    pub method_id: Option<String>,
    /// `#name` or `.name`, as the describe line has it.
    pub descriptor: String,
    /// First line of the describe block (1-based).
    pub line: u32,
    /// Its last line.
    pub end_line: u32,
    /// The block carries `method_begin`/`method_end` markers (the pipeline generated it).
    pub markers: bool,
    call: usize,
}

/// The outline text in the view a spec calls for (without a final newline), as the
/// `skeleton` answer shows it.
pub fn outline(text: &SpecText, only: &[String]) -> Result<String, String> {
    read(text, only, None).map(|o| o.text)
}

/// Reads a spec's outline. `only` keeps those method ids; `view` forces a view (default:
/// `methods` for a spec with markers, `tree` otherwise). Errors are the pipeline's reasons
/// (the caller prefixes `Cannot outline spec: `).
pub fn read(
    text: &SpecText,
    only: &[String],
    view: Option<OutlineView>,
) -> Result<Outline, String> {
    let blocks = source::parse(text)?;
    let body = text.body();
    let marked = method_ranges(text, &blocks)?;
    let methods = method_blocks(&blocks, &marked);
    let selected: Vec<&Method> = methods
        .iter()
        .filter(|m| only.is_empty() || only.iter().any(|id| selects(id, m)))
        .collect();
    if !only.is_empty() && selected.is_empty() {
        return Err(format!(
            "No method blocks found for requested method_id(s): {}",
            only.join(", ")
        ));
    }
    let view = view.unwrap_or(if marked.is_empty() {
        OutlineView::Tree
    } else {
        OutlineView::Methods
    });
    let keep = kept(&blocks, only.is_empty(), &selected);
    let tree = nodes(&body, &blocks, &methods, &keep, None);
    let text = match view {
        OutlineView::Methods => methods_text(text, &blocks, &selected),
        OutlineView::Tree => tree_text(&tree),
    };
    Ok(Outline {
        view,
        text,
        tree,
        methods: selected.into_iter().cloned().collect(),
    })
}

fn line_index(line: u32) -> usize {
    usize::try_from(line).unwrap_or(1).saturating_sub(1)
}

/// Whether `--only ID` names method block `m`: the same id, or the same method of a class
/// named by more or fewer leading modules (`Billing::Invoice#total` and `Invoice#total`).
fn selects(id: &str, m: &Method) -> bool {
    let Some(found) = m.method_id.as_deref() else {
        return false;
    };
    if id == found {
        return true;
    }
    let split = |s: &str| -> Option<(String, String)> {
        let at = s.rfind(['#', '.'])?;
        Some((
            s.get(..at)?.trim_start_matches("::").to_string(),
            s.get(at..)?.to_string(),
        ))
    };
    let (Some((a, am)), Some((b, bm))) = (split(id), split(found)) else {
        return false;
    };
    let suffix = |long: &str, short: &str| {
        long.strip_suffix(short)
            .is_some_and(|prefix| prefix.ends_with("::"))
    };
    am == bm && !a.is_empty() && !b.is_empty() && (suffix(&a, &b) || suffix(&b, &a))
}

/// One marked method block.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Range {
    method_id: String,
    call: usize,
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

/// Every method block in file order: the marked ones, and each other `describe` with a
/// block whose argument is `#name` or `.name` (a Ruby method name).
fn method_blocks(blocks: &SpecBlocks, marked: &[Range]) -> Vec<Method> {
    let mut out = Vec::new();
    for (index, call) in blocks.calls.iter().enumerate() {
        let Some(block) = call.block else {
            continue;
        };
        let marker = marked.iter().find(|r| r.call == index);
        // Every spelling of a method's group: `describe`/`context` with `'#m'`, `".m"`,
        // or `describe :m` (an instance method unless told otherwise).
        let descriptor = call.described_method().map(|m| match m {
            DescribedMethod::Descriptor(d) => d.to_string(),
            DescribedMethod::Name(n) => format!("#{n}"),
        });
        let (method_id, descriptor, markers) = match (marker, descriptor) {
            (Some(r), d) => (
                Some(r.method_id.clone()),
                d.unwrap_or_else(|| descriptor_of(&r.method_id)),
                true,
            ),
            (None, Some(d)) => {
                // A `context '#m'` inside the block of `#m` is part of it.
                if out.iter().any(|m: &Method| {
                    m.descriptor == d && m.line < call.line && call.line <= m.end_line
                }) {
                    continue;
                }
                (
                    class_of(blocks, index).map(|class| format!("{class}{d}")),
                    d,
                    false,
                )
            }
            _ => continue,
        };
        out.push(Method {
            method_id,
            descriptor,
            line: call.line,
            end_line: block.close_line,
            markers,
            call: index,
        });
    }
    out
}

/// `#name` or `.name` where `name` is a Ruby method name (`#valid?`, `.find_by`, `#[]=`).
fn descriptor_of(method_id: &str) -> String {
    method_id
        .rfind(['#', '.'])
        .and_then(|at| method_id.get(at..))
        .unwrap_or_default()
        .to_string()
}

/// The class a method block of call `index` describes: the nearest enclosing group whose
/// first argument is a constant (qualified by the modules around that group, unless it
/// starts with `::`) or a string spelling a constant path (`"Billing::Invoice"`).
fn class_of(blocks: &SpecBlocks, index: usize) -> Option<String> {
    let mut parent = blocks.calls.get(index).and_then(|c| c.parent);
    while let Some(p) = parent {
        let call = blocks.calls.get(p)?;
        if call.is_group() {
            if let Some(arg) = &call.arg {
                let value = arg.value.as_deref().unwrap_or_default();
                match arg.kind {
                    ArgKind::Constant => {
                        return Some(match value.strip_prefix("::") {
                            Some(top) => top.to_string(),
                            None if call.namespace.is_empty() => value.to_string(),
                            None => format!("{}::{value}", call.namespace.join("::")),
                        })
                    }
                    ArgKind::String if constant_path(value) => return Some(value.to_string()),
                    _ => {}
                }
            }
        }
        parent = call.parent;
    }
    None
}

fn constant_path(text: &str) -> bool {
    let text = text.strip_prefix("::").unwrap_or(text);
    !text.is_empty()
        && text.split("::").all(|segment| {
            let mut chars = segment.chars();
            chars.next().is_some_and(|c| c.is_ascii_uppercase())
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Which calls the tree keeps: all of them without `only`; else the selected method
/// blocks with everything inside them, the groups around them, and the `let`s, subjects
/// and hooks of those groups (the setup the blocks run with).
fn kept(blocks: &SpecBlocks, all: bool, selected: &[&Method]) -> Vec<bool> {
    let n = blocks.calls.len();
    if all {
        return vec![true; n];
    }
    let mut keep = vec![false; n];
    let mut around = vec![false; n];
    for m in selected {
        let mut parent = blocks.calls.get(m.call).and_then(|c| c.parent);
        while let Some(p) = parent {
            if let Some(slot) = around.get_mut(p) {
                *slot = true;
            }
            parent = blocks.calls.get(p).and_then(|c| c.parent);
        }
    }
    for (i, call) in blocks.calls.iter().enumerate() {
        let inside = selected
            .iter()
            .any(|m| m.call == i || descends_from(blocks, call, m.call));
        let setup_around = (call.is_let() || call.is_hook())
            && call.parent.is_some_and(|p| around.get(p) == Some(&true));
        if let Some(slot) = keep.get_mut(i) {
            *slot = inside || around.get(i) == Some(&true) || setup_around;
        }
    }
    keep
}

/// The tree of the kept calls under `parent` (the roots when `None`).
fn nodes(
    body: &str,
    blocks: &SpecBlocks,
    methods: &[Method],
    keep: &[bool],
    parent: Option<usize>,
) -> Vec<Node> {
    let mut out = Vec::new();
    for (index, call) in blocks.calls.iter().enumerate() {
        if call.parent != parent || keep.get(index) != Some(&true) {
            continue;
        }
        let Some(kind) = NodeKind::of(call) else {
            continue;
        };
        out.push(Node {
            kind,
            call: match &call.receiver {
                Some(r) => format!("{r}.{}", call.name),
                None => call.name.clone(),
            },
            text: head_text(body, call, kind),
            line: call.line,
            end_line: call.end_line,
            method: methods.iter().find(|m| m.call == index).cloned(),
            children: nodes(body, blocks, methods, keep, Some(index)),
        });
    }
    out
}

/// The call's head on one line (runs of whitespace with a newline become one space); an
/// example without arguments written on one line is shown whole.
fn head_text(body: &str, call: &SpecCall, kind: NodeKind) -> String {
    let one_liner = kind == NodeKind::Example && call.arg.is_none() && call.line == call.end_line;
    let text = if one_liner {
        let start = call.head.0;
        let rest = body.get(start..).unwrap_or_default();
        rest.split('\n')
            .next()
            .unwrap_or_default()
            .trim_end_matches('\r')
            .trim_end()
            .to_string()
    } else {
        body.get(call.head.0..call.head.1)
            .unwrap_or_default()
            .to_string()
    };
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split('\n');
    if let Some(first) = lines.next() {
        out.push_str(first.trim_end());
    }
    for line in lines {
        out.push(' ');
        out.push_str(line.trim());
    }
    out
}

/// The tree view's text: one line per block, its line range first.
fn tree_text(tree: &[Node]) -> String {
    fn walk<'a>(nodes: &'a [Node], depth: usize, out: &mut Vec<(String, usize, &'a Node)>) {
        for n in nodes {
            let range = if n.end_line > n.line {
                format!("{}-{}", n.line, n.end_line)
            } else {
                n.line.to_string()
            };
            out.push((range, depth, n));
            walk(&n.children, depth + 1, out);
        }
    }
    let mut rows = Vec::new();
    walk(tree, 0, &mut rows);
    let width = rows.iter().map(|(r, _, _)| r.len()).max().unwrap_or(0);
    let mut out: Vec<String> = Vec::with_capacity(rows.len());
    for (range, depth, node) in rows {
        let mut line = format!("{range:<width$}  {}{}", "  ".repeat(depth), node.text);
        if let Some(m) = &node.method {
            line.push_str("  [");
            line.push_str(m.method_id.as_deref().unwrap_or(&m.descriptor));
            if m.markers {
                line.push_str(", markers");
            }
            line.push(']');
        }
        out.push(line);
    }
    out.join("\n")
}

/// The methods view's text (contract §4.10): the header, the selected method blocks (a
/// block inside another one is shown as part of it) and `end`.
fn methods_text(text: &SpecText, blocks: &SpecBlocks, selected: &[&Method]) -> String {
    let header = blocks
        .calls
        .iter()
        .find(|c| c.receiver.is_some() && c.name == "describe")
        .or_else(|| {
            blocks
                .calls
                .iter()
                .find(|c| c.parent.is_none() && c.is_group())
        })
        .map(|c| text.line(line_index(c.line)).trim_end().to_string());
    let shared = shared_templates(blocks);
    let mut out: Vec<String> = Vec::new();
    if let Some(h) = &header {
        out.push(h.clone());
    }
    for m in selected {
        let nested = selected.iter().any(|outer| {
            outer.call != m.call
                && blocks
                    .calls
                    .get(m.call)
                    .is_some_and(|c| descends_from(blocks, c, outer.call))
        });
        if nested {
            continue;
        }
        call_outline(text, blocks, m.call, &shared, &mut out);
        out.push(String::new());
    }
    if out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    if header.is_some() {
        out.push("end".to_string());
    }
    out.join("\n")
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

    /// Regression: lobsters' hat_spec.rb (a bare `describe Hat` without markers) printed
    /// one blank line, and every spec `strip-markers` finished printed only its header.
    #[test]
    fn a_spec_without_markers_outlines_as_its_tree() {
        let src = "\
# typed: false

require \"rails_helper\"

module Billing
  module_function

  def build_invoice = Invoice.new
end

shared_examples \"a priced thing\" do
  it { is_expected.to respond_to(:price) }
end

describe Invoice do
  let(:user) { create(:user) }
  let!(:body) do
    <<~TEXT
      end
      describe '#not_a_block'
    TEXT
  end
  subject { described_class.new(user: user) }

  before { travel_to Time.utc(2024, 1, 1) }
  around(:each) { |ex| ex.run }

  it_behaves_like \"a priced thing\"
  include_examples \"a priced thing\"

  describe \"#total\" do
    context \"with lines\" do
      specify { expect(subject.total).to eq(0) }
      example \"is rounded\",
              :slow do
        expect(subject.total).to eq(0.0)
      end
    end
  end

  describe \"#total\" do
    it(\"is cached\") { expect(subject.total).to be(subject.total) }
  end

  describe \"#to_s and #inspect\" do
    it \"is readable\" do
    end
  end
end
";
        let outline = read(&SpecText::from_text(src), &[], None).unwrap();
        assert_eq!(outline.view, OutlineView::Tree);
        assert_eq!(
            outline.text,
            "\
11-13  shared_examples \"a priced thing\"
12       it { is_expected.to respond_to(:price) }
15-49  describe Invoice
16       let(:user)
17-22    let!(:body)
23       subject
25       before
26       around(:each)
28       it_behaves_like \"a priced thing\"
29       include_examples \"a priced thing\"
31-39    describe \"#total\"  [Invoice#total]
32-38      context \"with lines\"
33           specify { expect(subject.total).to eq(0) }
34-37        example \"is rounded\", :slow
41-43    describe \"#total\"  [Invoice#total]
42         it(\"is cached\")
45-48    describe \"#to_s and #inspect\"
46-47      it \"is readable\""
        );
        let lines: Vec<(Option<&str>, u32, u32, bool)> = outline
            .methods
            .iter()
            .map(|m| (m.method_id.as_deref(), m.line, m.end_line, m.markers))
            .collect();
        assert_eq!(
            lines,
            [
                (Some("Invoice#total"), 31, 39, false),
                (Some("Invoice#total"), 41, 43, false)
            ]
        );
        // The pipeline's view of the same file: the header and its method blocks.
        let methods = read(&SpecText::from_text(src), &[], Some(OutlineView::Methods)).unwrap();
        assert_eq!(
            methods.text,
            "\
describe Invoice do
  describe \"#total\" do
    context \"with lines\" do
      specify
      example \"is rounded\"
    end
  end

  describe \"#total\" do
    it \"is cached\"
  end
end"
        );
        assert_eq!(outline_of("x = 1\n", &[]).unwrap(), "");
        assert_eq!(outline_of("", &[]).unwrap(), "");
    }

    /// Regression: `--only 'ModMail#create'` on lobsters' mod_mail_spec.rb, whose
    /// `describe "#create"` has no markers, was "No method blocks found".
    #[test]
    fn only_finds_hand_written_blocks_with_the_groups_and_setup_around_them() {
        let src = "\
require \"rails_helper\"

module Admin
  RSpec.describe ModMail, type: :model do
    let(:user) { create :user }
    before { sign_in user }

    describe \"#create\" do
      subject { ModMail.create(recipients: [user]) }

      it \"creates the ModMail\" do
        expect(subject).to be_persisted
      end
    end

    describe \".recent\" do
      let(:other) { 1 }
      it { is_expected.to be_empty }
    end

    context \"#not_a_method_block\" do
    end
  end
end
";
        let expected = "\
4-23   RSpec.describe ModMail, type: :model
5        let(:user)
6        before
8-14     describe \"#create\"  [Admin::ModMail#create]
9          subject
11-13      it \"creates the ModMail\"";
        for id in [
            "Admin::ModMail#create",
            "ModMail#create",
            "X::Admin::ModMail#create",
        ] {
            assert_eq!(outline_of(src, &[id]).unwrap(), expected, "{id}");
        }
        assert_eq!(
            outline_of(src, &["Admin::ModMail.recent", "Admin::ModMail#nope"]).unwrap(),
            "\
4-23   RSpec.describe ModMail, type: :model
5        let(:user)
6        before
16-19    describe \".recent\"  [Admin::ModMail.recent]
17         let(:other)
18         it { is_expected.to be_empty }"
        );
        // `context '#m'` is a method's block as much as `describe '#m'` is.
        assert_eq!(
            outline_of(src, &["Admin::ModMail#not_a_method_block"]).unwrap(),
            "\
4-23   RSpec.describe ModMail, type: :model
5        let(:user)
6        before
21-22    context \"#not_a_method_block\"  [Admin::ModMail#not_a_method_block]"
        );
        for missing in ["ModMail.create", "Mail#create", "Admin::ModMail#archive"] {
            assert_eq!(
                outline_of(src, &[missing]).unwrap_err(),
                format!("No method blocks found for requested method_id(s): {missing}")
            );
        }
    }

    /// A generated block added beside a hand-written one: the pipeline's view lists both
    /// method blocks; the tree tells them apart.
    #[test]
    fn generated_and_hand_written_blocks_side_by_side() {
        let src = "\
describe Hat do
  describe '#destroy' do
    it 'destroys' do
    end
  end

  describe '#destroy' do
    # rspec-testing:method_begin method=\"#destroy\" method_id=\"Hat#destroy\"
    context 'when doffed' do
      it 'returns true' do
        {EXPECTATION}
      end
    end
    # rspec-testing:method_end method=\"#destroy\" method_id=\"Hat#destroy\"
  end
end
";
        let outline = read(
            &SpecText::from_text(src),
            &["Hat#destroy".to_string()],
            None,
        )
        .unwrap();
        assert_eq!(outline.view, OutlineView::Methods);
        assert_eq!(
            outline.text,
            "\
describe Hat do
  describe '#destroy' do
    it 'destroys'
  end

  describe '#destroy' do
    context 'when doffed' do
      it 'returns true'
    end
  end
end"
        );
        let tree = read(&SpecText::from_text(src), &[], Some(OutlineView::Tree)).unwrap();
        assert_eq!(
            tree.text,
            "\
1-16   describe Hat
2-5      describe '#destroy'  [Hat#destroy]
3-4        it 'destroys'
7-15     describe '#destroy'  [Hat#destroy, markers]
9-13       context 'when doffed'
10-12        it 'returns true'"
        );
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
