//! RSpec blocks of a spec file, found with Ruby's own parser (prism): every
//! `describe`/`context`/`it`/`shared_examples`/`it_behaves_like`/... call (Capybara's
//! `feature`/`scenario` too) and, when they have a block, `let`/`subject`/`before`/...,
//! with its first argument, lines, indentation, parent and the modules around it. The
//! syntax tree is dropped inside [`parse`]; only owned facts leave.
//!
//! Parsing never fails: a source prism cannot fully parse still yields the calls prism
//! recovered, plus its diagnostics, and the caller decides whether that is good enough.

use ruby_prism::{Node, Visit};

use super::dispatch::dispatch;
use super::facts::Diagnostic;
use super::prism::MAX_TREE_DEPTH;

/// Calls recorded when they have no receiver.
const BARE_NAMES: &[&str] = &[
    "describe",
    "context",
    "fdescribe",
    "xdescribe",
    "fcontext",
    "xcontext",
    "it",
    "specify",
    "example",
    "fit",
    "xit",
    "fspecify",
    "xspecify",
    "fexample",
    "xexample",
    "shared_examples",
    "shared_examples_for",
    "shared_context",
    "it_behaves_like",
    "it_should_behave_like",
    "include_examples",
    "include_context",
    "feature",
    "xfeature",
    "ffeature",
    "scenario",
    "xscenario",
    "fscenario",
];

/// Calls recorded without a receiver only when they have a literal block (`subject` alone
/// is a call of the subject, not a definition).
const SETUP_NAMES: &[&str] = &[
    "let",
    "let!",
    "subject",
    "subject!",
    "given",
    "given!",
    "before",
    "after",
    "around",
    "prepend_before",
    "append_before",
    "prepend_after",
    "append_after",
    "background",
];

/// Calls recorded on the `RSpec` receiver (`RSpec.describe Foo do`).
const RSPEC_NAMES: &[&str] = &[
    "describe",
    "context",
    "fdescribe",
    "xdescribe",
    "shared_examples",
    "shared_examples_for",
    "shared_context",
    "feature",
];

/// Everything [`parse`] found in one spec source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpecBlocks {
    /// The RSpec calls in source order (a parent always comes before its children).
    pub calls: Vec<SpecCall>,
    /// Prism's syntax errors (all of them; spec files are small).
    pub diagnostics: Vec<Diagnostic>,
}

/// One RSpec call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecCall {
    /// The method name: `describe`, `context`, `it`, `it_behaves_like`, ...
    pub name: String,
    /// `Some("RSpec")` for `RSpec.describe`, `None` for a bare call.
    pub receiver: Option<String>,
    /// The first argument, if any.
    pub arg: Option<CallArg>,
    /// 1-based line where the call starts.
    pub line: u32,
    /// 1-based last line of the call (its block's closing line when it has a block).
    pub end_line: u32,
    /// Byte column of the call's first character.
    pub column: u32,
    /// Width in bytes of the leading whitespace of the start line.
    pub indent: u32,
    /// The literal block (`do ... end` or `{ ... }`), if any.
    pub block: Option<CallBlock>,
    /// Index in [`SpecBlocks::calls`] of the nearest enclosing recorded call.
    pub parent: Option<usize>,
    /// Byte range of the call's head: from its first character to its block's `do` or
    /// `{` (the whole call when it has no block), trailing blanks left out.
    pub head: (usize, usize),
    /// The `module`/`class` names around the call, outermost first (`["Billing"]` for a
    /// `describe` inside `module Billing`).
    pub namespace: Vec<String>,
}

/// The first argument of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallArg {
    /// What kind of expression it is.
    pub kind: ArgKind,
    /// The value: a plain string literal's content (unescaped), or a constant's text
    /// (`Foo::Bar`). `None` for anything else.
    pub value: Option<String>,
    /// The argument's source text.
    pub source: String,
    /// Byte range of the argument in the source.
    pub span: (usize, usize),
}

/// The kind of a first argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A string literal without interpolation (`'x'`, `"x"`, `%q(x)`).
    String,
    /// A constant or constant path (`Foo`, `Foo::Bar`, `::Foo`).
    Constant,
    /// Anything else (a symbol, an interpolated string, a method call, ...).
    Other,
}

/// A literal block attached to a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallBlock {
    /// `{ ... }` rather than `do ... end`.
    pub brace: bool,
    /// 1-based line of `do` or `{`.
    pub open_line: u32,
    /// 1-based line of `end` or `}`.
    pub close_line: u32,
    /// Byte column of `end` or `}`.
    pub close_column: u32,
    /// First and last line of the block's body statements, when it has any (as prism
    /// locates them: the body of a heredoc opened on the last line is not included).
    pub body: Option<(u32, u32)>,
}

impl SpecCall {
    /// Whether this is a `describe`-like group (`describe`, `context`, Capybara's
    /// `feature` and their focus and skip variants, on any receiver).
    pub fn is_group(&self) -> bool {
        matches!(
            self.name.as_str(),
            "describe"
                | "context"
                | "fdescribe"
                | "xdescribe"
                | "fcontext"
                | "xcontext"
                | "feature"
                | "xfeature"
                | "ffeature"
        )
    }

    /// Whether this is an example (`it`, `specify`, `example`, Capybara's `scenario` and
    /// their variants).
    pub fn is_example(&self) -> bool {
        matches!(
            self.name.as_str(),
            "it" | "specify"
                | "example"
                | "fit"
                | "xit"
                | "fspecify"
                | "xspecify"
                | "fexample"
                | "xexample"
                | "scenario"
                | "xscenario"
                | "fscenario"
        )
    }

    /// Whether this defines a memoized helper: `let`, `let!`, `subject`, `subject!` (and
    /// Capybara's `given`, `given!`).
    pub fn is_let(&self) -> bool {
        matches!(
            self.name.as_str(),
            "let" | "let!" | "subject" | "subject!" | "given" | "given!"
        )
    }

    /// Whether this is a hook: `before`, `after`, `around` and their `prepend_`/`append_`
    /// forms, Capybara's `background`.
    pub fn is_hook(&self) -> bool {
        matches!(
            self.name.as_str(),
            "before"
                | "after"
                | "around"
                | "prepend_before"
                | "append_before"
                | "prepend_after"
                | "append_after"
                | "background"
        )
    }

    /// Whether this defines shared examples or a shared context.
    pub fn is_shared_definition(&self) -> bool {
        matches!(
            self.name.as_str(),
            "shared_examples" | "shared_examples_for" | "shared_context"
        )
    }

    /// Whether this includes shared examples (`it_behaves_like`, `include_examples`, ...).
    pub fn is_include(&self) -> bool {
        matches!(
            self.name.as_str(),
            "it_behaves_like" | "it_should_behave_like" | "include_examples" | "include_context"
        )
    }

    /// The first argument's value when it is a plain string literal.
    pub fn string_arg(&self) -> Option<&str> {
        self.arg
            .as_ref()
            .filter(|a| a.kind == ArgKind::String)
            .and_then(|a| a.value.as_deref())
    }

    /// The method this group describes, in every spelling RSpec authors use for a method's
    /// block: `describe '#m'`, `describe "#m"`, `context '#m'`, `describe '.m'`,
    /// `context '.m'` (a descriptor), or `describe :m` (a name whose kind the caller
    /// decides). `None` for any other call, or a call without a block.
    pub fn described_method(&self) -> Option<DescribedMethod<'_>> {
        self.block?;
        if !matches!(self.name.as_str(), "describe" | "context") {
            return None;
        }
        if self.receiver.as_deref().is_some_and(|r| r != "RSpec") {
            return None;
        }
        let arg = self.arg.as_ref()?;
        match arg.kind {
            ArgKind::String => {
                let value = arg.value.as_deref()?;
                let name = value
                    .strip_prefix('#')
                    .or_else(|| value.strip_prefix('.'))?;
                method_name(name).then_some(DescribedMethod::Descriptor(value))
            }
            ArgKind::Other if self.name == "describe" => {
                let name = arg.source.strip_prefix(':')?;
                method_name(name).then_some(DescribedMethod::Name(name))
            }
            _ => None,
        }
    }
}

/// How a group names the method it describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescribedMethod<'a> {
    /// `#name` or `.name`.
    Descriptor(&'a str),
    /// `:name`: instance or class method, whichever the class has.
    Name(&'a str),
}

/// Whether `name` is a Ruby method name as a spec's descriptor spells it (`call`,
/// `valid?`, `save!`, `name=`, `[]`, `==`), not an ivar, a global or a phrase.
fn method_name(name: &str) -> bool {
    !name.starts_with(['@', '$']) && crate::ruby::simple_symbol(name) && !name.contains(['.', '#'])
}

/// Parses a spec source and lists its RSpec calls. The walk runs on a thread with a large
/// stack ([`super::WORKER_STACK`]), so any caller can use it.
pub fn parse(source: &[u8]) -> SpecBlocks {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("rspec-scout-spec".to_string())
            .stack_size(super::WORKER_STACK)
            .spawn_scoped(scope, || parse_here(source))
            .ok()
            .and_then(|handle| handle.join().ok())
    })
    .unwrap_or_else(|| parse_here(source))
}

fn parse_here(source: &[u8]) -> SpecBlocks {
    let lines = LineIndex::new(source);
    let result = ruby_prism::parse(source);
    let mut diagnostics: Vec<Diagnostic> = result
        .errors()
        .map(|e| Diagnostic {
            line: lines.line(e.location().start() as usize),
            message: String::from_utf8_lossy(e.message()).into_owned(),
        })
        .collect();
    let mut finder = Finder {
        source,
        lines: &lines,
        calls: Vec::new(),
        stack: Vec::new(),
        namespace: Vec::new(),
        depth: 0,
        truncated: false,
    };
    finder.visit(&result.node());
    if finder.truncated {
        diagnostics.push(Diagnostic {
            line: 1,
            message: format!(
                "syntax nested deeper than {MAX_TREE_DEPTH} levels; blocks below that depth were not read"
            ),
        });
    }
    SpecBlocks {
        calls: finder.calls,
        diagnostics,
    }
}

/// Byte offsets → 1-based lines and columns.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(source: &[u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', source).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The 0-based line index holding `offset`.
    fn index(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    fn line(&self, offset: usize) -> u32 {
        u32::try_from(self.index(offset) + 1).unwrap_or(u32::MAX)
    }

    fn column(&self, offset: usize) -> u32 {
        let start = self.starts.get(self.index(offset)).copied().unwrap_or(0);
        u32::try_from(offset.saturating_sub(start)).unwrap_or(u32::MAX)
    }

    /// The line of the last byte of `[start, end)`.
    fn last_line(&self, start: usize, end: usize) -> u32 {
        if end > start {
            self.line(end - 1)
        } else {
            self.line(start)
        }
    }

    fn indent(&self, source: &[u8], offset: usize) -> u32 {
        let start = self.starts.get(self.index(offset)).copied().unwrap_or(0);
        let width = source
            .get(start..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        u32::try_from(width).unwrap_or(u32::MAX)
    }
}

struct Finder<'s> {
    source: &'s [u8],
    lines: &'s LineIndex,
    calls: Vec<SpecCall>,
    stack: Vec<usize>,
    /// The names of the `module`/`class` bodies the walk is in.
    namespace: Vec<String>,
    depth: usize,
    truncated: bool,
}

impl Finder<'_> {
    fn text(&self, start: usize, end: usize) -> String {
        String::from_utf8_lossy(self.source.get(start..end).unwrap_or_default()).into_owned()
    }

    fn record(&mut self, node: &ruby_prism::CallNode<'_>) -> Option<usize> {
        let name = node.name().as_slice();
        let receiver = match node.receiver() {
            None => None,
            Some(recv) => {
                let is_rspec = recv
                    .as_constant_read_node()
                    .is_some_and(|c| c.name().as_slice() == b"RSpec")
                    || recv.as_constant_path_node().is_some_and(|p| {
                        p.parent().is_none() && p.name().is_some_and(|n| n.as_slice() == b"RSpec")
                    });
                if !is_rspec {
                    return None;
                }
                Some("RSpec".to_string())
            }
        };
        let name = std::str::from_utf8(name).ok()?;
        let block_node = node.block().and_then(|b| b.as_block_node());
        let known = if receiver.is_some() {
            RSPEC_NAMES.contains(&name)
        } else {
            BARE_NAMES.contains(&name) || (block_node.is_some() && SETUP_NAMES.contains(&name))
        };
        if !known {
            return None;
        }
        let loc = node.location();
        let (start, end) = (loc.start() as usize, loc.end() as usize);
        let arg = node
            .arguments()
            .and_then(|args| args.arguments().iter().next())
            .map(|first| self.arg(&first));
        let head_end = block_node
            .as_ref()
            .map_or(end, |b| b.opening_loc().start() as usize);
        let head_end = start
            + self
                .source
                .get(start..head_end)
                .unwrap_or_default()
                .trim_ascii_end()
                .len();
        let block = block_node.map(|b| self.block(&b));
        let end_line = match &block {
            Some(b) => b.close_line,
            None => self.lines.last_line(start, end),
        };
        let call = SpecCall {
            name: name.to_string(),
            receiver,
            arg,
            line: self.lines.line(start),
            end_line,
            column: self.lines.column(start),
            indent: self.lines.indent(self.source, start),
            block,
            parent: self.stack.last().copied(),
            head: (start, head_end),
            namespace: self.namespace.clone(),
        };
        self.calls.push(call);
        Some(self.calls.len() - 1)
    }

    fn arg(&self, node: &Node<'_>) -> CallArg {
        let loc = node.location();
        let span = (loc.start() as usize, loc.end() as usize);
        let source = self.text(span.0, span.1);
        if let Some(s) = node.as_string_node() {
            return CallArg {
                kind: ArgKind::String,
                value: Some(String::from_utf8_lossy(s.unescaped()).into_owned()),
                source,
                span,
            };
        }
        if node.as_constant_read_node().is_some() || node.as_constant_path_node().is_some() {
            return CallArg {
                kind: ArgKind::Constant,
                value: Some(source.trim().to_string()),
                source,
                span,
            };
        }
        CallArg {
            kind: ArgKind::Other,
            value: None,
            source,
            span,
        }
    }

    fn block(&self, block: &ruby_prism::BlockNode<'_>) -> CallBlock {
        let open = block.opening_loc();
        let close = block.closing_loc();
        let body = block.body().map(|b| {
            let l = b.location();
            let (s, e) = (l.start() as usize, l.end() as usize);
            (self.lines.line(s), self.lines.last_line(s, e))
        });
        CallBlock {
            brace: open.as_slice() == b"{",
            open_line: self.lines.line(open.start() as usize),
            close_line: self.lines.line(close.start() as usize),
            close_column: self.lines.column(close.start() as usize),
            body,
        }
    }
}

impl<'pr> Visit<'pr> for Finder<'_> {
    fn visit(&mut self, node: &Node<'pr>) {
        if self.depth >= MAX_TREE_DEPTH {
            self.truncated = true;
            return;
        }
        self.depth += 1;
        dispatch(self, node);
        self.depth -= 1;
    }

    fn visit_module_node(&mut self, node: &ruby_prism::ModuleNode<'pr>) {
        let path = node.constant_path().location();
        let name = self.text(path.start() as usize, path.end() as usize);
        self.namespace.push(name);
        ruby_prism::visit_module_node(self, node);
        self.namespace.pop();
    }

    fn visit_class_node(&mut self, node: &ruby_prism::ClassNode<'pr>) {
        let path = node.constant_path().location();
        let name = self.text(path.start() as usize, path.end() as usize);
        self.namespace.push(name);
        ruby_prism::visit_class_node(self, node);
        self.namespace.pop();
    }

    fn visit_call_node(&mut self, node: &ruby_prism::CallNode<'pr>) {
        match self.record(node) {
            Some(index) => {
                self.stack.push(index);
                ruby_prism::visit_call_node(self, node);
                self.stack.pop();
            }
            None => ruby_prism::visit_call_node(self, node),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One line per call: `name arg line-end_line indent parent block`.
    fn summary(source: &str) -> String {
        let blocks = parse(source.as_bytes());
        assert!(blocks.diagnostics.is_empty(), "{:?}", blocks.diagnostics);
        let mut out = String::new();
        for (i, c) in blocks.calls.iter().enumerate() {
            let recv = c
                .receiver
                .as_deref()
                .map_or(String::new(), |r| format!("{r}."));
            let arg = c.arg.as_ref().map_or("-".to_string(), |a| match &a.value {
                Some(v) => format!("{:?}={v:?}", a.kind),
                None => format!("{:?}:{}", a.kind, a.source),
            });
            let block = c.block.map_or("no-block".to_string(), |b| {
                format!(
                    "{}{}-{}@{} body={:?}",
                    if b.brace { "{}" } else { "do" },
                    b.open_line,
                    b.close_line,
                    b.close_column,
                    b.body
                )
            });
            out.push_str(&format!(
                "{i}: {recv}{} {arg} {}-{} col={} indent={} parent={:?} {block}\n",
                c.name, c.line, c.end_line, c.column, c.indent, c.parent
            ));
        }
        out
    }

    #[test]
    fn nested_groups_examples_and_parents() {
        let src = "\
RSpec.describe Billing::Invoice do
  describe '#total' do
    context \"when paid\" do
      it 'returns the sum' do
        expect(1).to eq(1)
      end
    end
  end
end
";
        assert_eq!(
            summary(src),
            "\
0: RSpec.describe Constant=\"Billing::Invoice\" 1-9 col=0 indent=0 parent=None do1-9@0 body=Some((2, 8))
1: describe String=\"#total\" 2-8 col=2 indent=2 parent=Some(0) do2-8@2 body=Some((3, 7))
2: context String=\"when paid\" 3-7 col=4 indent=4 parent=Some(1) do3-7@4 body=Some((4, 6))
3: it String=\"returns the sum\" 4-6 col=6 indent=6 parent=Some(2) do4-6@6 body=Some((5, 5))
"
        );
    }

    #[test]
    fn modifier_if_and_unless_do_not_confuse_block_ends() {
        let src = "\
describe '#x' do
  it 'a' do
    return if skip?
    foo unless bar
    x = 1 while x < 0
  end
  it 'b' do
  end
end
";
        assert_eq!(
            summary(src),
            "\
0: describe String=\"#x\" 1-9 col=0 indent=0 parent=None do1-9@0 body=Some((2, 8))
1: it String=\"a\" 2-6 col=2 indent=2 parent=Some(0) do2-6@2 body=Some((3, 5))
2: it String=\"b\" 7-8 col=2 indent=2 parent=Some(0) do7-8@2 body=None
"
        );
    }

    #[test]
    fn lambdas_and_brace_blocks() {
        let src = "\
describe('#call') {
  let(:handler) { -> { raise 'x' } }
  it('raises') { expect { handler.call }.to raise_error('x') }
  it 'spans', :focus do
    f = lambda do
      1
    end
  end
}
";
        assert_eq!(
            summary(src),
            "\
0: describe String=\"#call\" 1-9 col=0 indent=0 parent=None {}1-9@0 body=Some((2, 8))
1: let Other::handler 2-2 col=2 indent=2 parent=Some(0) {}2-2@35 body=Some((2, 2))
2: it String=\"raises\" 3-3 col=2 indent=2 parent=Some(0) {}3-3@61 body=Some((3, 3))
3: it String=\"spans\" 4-8 col=2 indent=2 parent=Some(0) do4-8@2 body=Some((5, 7))
"
        );
    }

    #[test]
    fn heredocs_inside_examples() {
        let src = "\
describe '#render' do
  it 'renders' do
    expect(subject).to eq(<<~TEXT)
      end
      describe 'not a block'
    TEXT
  end
end
";
        assert_eq!(
            summary(src),
            "\
0: describe String=\"#render\" 1-8 col=0 indent=0 parent=None do1-8@0 body=Some((2, 7))
1: it String=\"renders\" 2-7 col=2 indent=2 parent=Some(0) do2-7@2 body=Some((3, 3))
"
        );
    }

    #[test]
    fn shared_examples_includes_and_one_liners() {
        let src = "\
describe \"#pay\" do
  shared_examples 'charges' do
    it('charges') { is_expected.to be(true) }
  end
  it_behaves_like 'charges'
  include_examples \"charges\"
  it { is_expected.to be_truthy }
  specify :sym do
  end
end
";
        assert_eq!(
            summary(src),
            "\
0: describe String=\"#pay\" 1-10 col=0 indent=0 parent=None do1-10@0 body=Some((2, 9))
1: shared_examples String=\"charges\" 2-4 col=2 indent=2 parent=Some(0) do2-4@2 body=Some((3, 3))
2: it String=\"charges\" 3-3 col=4 indent=4 parent=Some(1) {}3-3@44 body=Some((3, 3))
3: it_behaves_like String=\"charges\" 5-5 col=2 indent=2 parent=Some(0) no-block
4: include_examples String=\"charges\" 6-6 col=2 indent=2 parent=Some(0) no-block
5: it - 7-7 col=2 indent=2 parent=Some(0) {}7-7@32 body=Some((7, 7))
6: specify Other::sym 8-9 col=2 indent=2 parent=Some(0) do8-9@2 body=None
"
        );
    }

    #[test]
    fn escaped_and_interpolated_strings() {
        let src = "\
describe 'it\\'s' do
  context \"with #{x}\" do
  end
  context %q(plain) do
  end
end
";
        assert_eq!(
            summary(src),
            "\
0: describe String=\"it's\" 1-6 col=0 indent=0 parent=None do1-6@0 body=Some((2, 5))
1: context Other:\"with #{x}\" 2-3 col=2 indent=2 parent=Some(0) do2-3@2 body=None
2: context String=\"plain\" 4-5 col=2 indent=2 parent=Some(0) do4-5@2 body=None
"
        );
    }

    #[test]
    fn other_receivers_and_names_are_ignored() {
        let src = "\
Foo.describe 'x' do
end
::RSpec.describe Foo do
  before { describe_thing }
  let(:it) { 1 }
end
";
        assert_eq!(
            summary(src),
            "\
0: RSpec.describe Constant=\"Foo\" 3-6 col=0 indent=0 parent=None do3-6@0 body=Some((4, 5))
1: before - 4-4 col=2 indent=2 parent=Some(0) {}4-4@26 body=Some((4, 4))
2: let Other::it 5-5 col=2 indent=2 parent=Some(0) {}5-5@15 body=Some((5, 5))
"
        );
    }

    #[test]
    fn setup_calls_with_a_block_capybara_heads_and_namespaces() {
        let src = "\
module Billing
  class Admin; end
  RSpec.feature \"Invoices\", type: :feature do
    given(:user) { create(:user) }
    let!(:invoice) do
      create(:invoice)
    end
    subject { described_class.new }
    background { sign_in user }
    around(:each) { |ex| ex.run }
    scenario \"pays\",
             js: true do
      expect(subject).to be_paid
      subject.call
    end
    it { is_expected.to be_valid }
  end
end
";
        let blocks = parse(src.as_bytes());
        assert!(blocks.diagnostics.is_empty());
        let rows: Vec<String> = blocks
            .calls
            .iter()
            .map(|c| {
                format!(
                    "{} {}-{} {:?} {:?}",
                    c.name,
                    c.line,
                    c.end_line,
                    &src[c.head.0..c.head.1],
                    c.namespace
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                "feature 3-17 \"RSpec.feature \\\"Invoices\\\", type: :feature\" [\"Billing\"]",
                "given 4-4 \"given(:user)\" [\"Billing\"]",
                "let! 5-7 \"let!(:invoice)\" [\"Billing\"]",
                "subject 8-8 \"subject\" [\"Billing\"]",
                "background 9-9 \"background\" [\"Billing\"]",
                "around 10-10 \"around(:each)\" [\"Billing\"]",
                "scenario 11-15 \"scenario \\\"pays\\\",\\n             js: true\" [\"Billing\"]",
                "it 16-16 \"it\" [\"Billing\"]",
            ]
        );
        let kinds: Vec<(bool, bool, bool, bool)> = blocks
            .calls
            .iter()
            .map(|c| (c.is_group(), c.is_example(), c.is_let(), c.is_hook()))
            .collect();
        assert_eq!(
            kinds,
            [
                (true, false, false, false),
                (false, false, true, false),
                (false, false, true, false),
                (false, false, true, false),
                (false, false, false, true),
                (false, false, false, true),
                (false, true, false, false),
                (false, true, false, false),
            ]
        );
    }

    #[test]
    fn syntax_errors_are_diagnostics_not_failures() {
        let blocks = parse(b"describe 'x' do\n  it 'y' do\nend\n");
        assert!(!blocks.diagnostics.is_empty());
        assert_eq!(
            blocks.calls.first().map(|c| c.name.as_str()),
            Some("describe")
        );
    }

    #[test]
    fn deep_chains_are_bounded_and_later_blocks_still_found() {
        let src = format!("x = 1{}\ndescribe 'y' do\nend\n", " + 1".repeat(5_000));
        let blocks = parse(src.as_bytes());
        assert_eq!(blocks.calls.len(), 1);
        assert_eq!(blocks.calls.first().map(|c| c.line), Some(2));
        assert_eq!(blocks.diagnostics.len(), 1);
        assert!(blocks
            .diagnostics
            .iter()
            .all(|d| d.message.starts_with("syntax nested deeper than")));
    }
}
