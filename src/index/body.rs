//! Method bodies as a small owned tree ([`Node`]) for the analyzer: conditionals, `case`,
//! boolean operators, calls, returns, `rescue`, assignments and literals keep their shape;
//! everything else is kept as source text. Built from prism only when asked for
//! (`ExtractOptions::bodies`), because discovery does not need it.

use ruby_prism::Node as P;

use super::prism::{bytes_to_string, const_path_text, MAX_TREE_DEPTH};

/// A statement or expression of a method body.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// Statements in order.
    Seq(Vec<Node>),
    /// `if`, `unless`, `elsif`, modifiers and ternaries.
    If(Box<If>),
    /// `case/when` and `case/in`.
    Case(Box<Case>),
    /// A method call (also operators such as `>=`, `==`, `!`, `[]`).
    Call(Box<Call>),
    /// `a && b`, `a and b`.
    And(Box<Node>, Box<Node>),
    /// `a || b`, `a or b`, with the line it starts on (its operands may carry none:
    /// `start_date || "1000-01-01"` inside a multi-line hash).
    Or(Box<Node>, Box<Node>, u32),
    /// `!a`, `not a`.
    Not(Box<Node>),
    /// `return`, `return x`.
    Return {
        /// The returned value.
        value: Option<Box<Node>>,
        /// Line.
        line: u32,
    },
    /// `next` / `break` (leave a block or loop, not the method).
    Jump {
        /// `next` or `break`.
        keyword: &'static str,
        /// Line.
        line: u32,
    },
    /// `begin ... rescue ... else ... ensure ... end`, or a method body with `rescue`.
    Begin(Box<Begin>),
    /// `while`, `until`, `for`.
    Loop {
        /// The loop's body.
        body: Box<Node>,
        /// Line.
        line: u32,
    },
    /// `x = v`, `@x ||= v`, `x += v`.
    Assign {
        /// What is assigned.
        target: Target,
        /// `=`, `||=`, `&&=` or an operator.
        op: AssignOp,
        /// The value.
        value: Box<Node>,
        /// Line.
        line: u32,
    },
    /// A local variable (or parameter).
    Lvar(String),
    /// An instance variable, without `@`.
    Ivar(String),
    /// A constant path.
    Const {
        /// `A::B` without a leading `::`.
        path: String,
        /// Written with a leading `::`.
        absolute: bool,
    },
    /// `self`.
    SelfRef,
    /// A string literal without interpolation.
    Str(String),
    /// A symbol literal, without `:`.
    Sym(String),
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// `true`.
    True,
    /// `false`.
    False,
    /// `nil`.
    Nil,
    /// `[a, b]`.
    Array(Vec<Node>),
    /// `{ k => v }` or keyword arguments.
    Hash(Vec<(Node, Node)>),
    /// `a..b`, `a...b`, `..b`.
    Range {
        /// Start.
        lo: Option<Box<Node>>,
        /// End.
        hi: Option<Box<Node>>,
        /// `...`.
        exclusive: bool,
    },
    /// `*x`.
    Splat(Box<Node>),
    /// `yield`.
    Yield {
        /// Line.
        line: u32,
    },
    /// `super` / `super(...)`.
    Super {
        /// The arguments given (`super(a, b)`; none for a bare `super`).
        args: Vec<Node>,
        /// Line.
        line: u32,
    },
    /// Anything else, as written (interpolated strings, regexps, lambdas, ...).
    Other {
        /// The source text (at most 200 bytes).
        text: String,
        /// Line.
        line: u32,
    },
}

/// An `if`-like conditional.
#[derive(Debug, Clone, PartialEq)]
pub struct If {
    /// The predicate as written (for `unless`, not negated).
    pub cond: Node,
    /// Taken when the predicate is truthy (`unless`: falsy).
    pub then: Node,
    /// The `else` / `elsif` branch; an `elsif` is an `If` with `elsif: true`.
    pub els: Option<Node>,
    /// `unless` instead of `if`.
    pub unless: bool,
    /// `x if y`.
    pub modifier: bool,
    /// `a ? b : c`.
    pub ternary: bool,
    /// This is the `elsif` of an enclosing `if`.
    pub elsif: bool,
    /// First and last line.
    pub lines: (u32, u32),
    /// The line the predicate starts on (after the body for a modifier).
    pub cond_line: u32,
}

impl If {
    /// `cond ? then : els` on one line: the form the analyzer rewrites a value-deciding
    /// expression into (`a && b`, `x = y if c`, `a || b || default`).
    pub fn ternary(cond: Node, then: Node, els: Node, line: u32) -> If {
        If {
            cond,
            then,
            els: Some(els),
            unless: false,
            modifier: false,
            ternary: true,
            elsif: false,
            lines: (line, line),
            cond_line: line,
        }
    }
}

/// A `case`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// `case subject` (absent for `case` without subject).
    pub subject: Option<Node>,
    /// The `when`/`in` branches.
    pub whens: Vec<When>,
    /// The `else` branch.
    pub els: Option<Node>,
    /// `case/in` (pattern matching).
    pub pattern: bool,
    /// First and last line.
    pub lines: (u32, u32),
}

/// A `when` (or `in`) branch.
#[derive(Debug, Clone, PartialEq)]
pub struct When {
    /// The values tested (`in`: one pattern, as `Other` text unless it is a literal).
    pub conds: Vec<Node>,
    /// The branch body.
    pub body: Node,
    /// Line.
    pub line: u32,
}

/// A method call.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The receiver (`None`: implicit `self`).
    pub recv: Option<Node>,
    /// The method name.
    pub name: String,
    /// Arguments (keyword arguments as a trailing `Hash`).
    pub args: Vec<Node>,
    /// The block, if any.
    pub block: Option<Block>,
    /// `&.`
    pub safe_nav: bool,
    /// Line.
    pub line: u32,
}

/// A block passed to a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Block parameter names.
    pub params: Vec<String>,
    /// Its body.
    pub body: Node,
}

/// `begin/rescue/else/ensure`.
#[derive(Debug, Clone, PartialEq)]
pub struct Begin {
    /// The protected body.
    pub body: Node,
    /// `rescue` clauses in order.
    pub rescues: Vec<Rescue>,
    /// `else` (runs when nothing was raised).
    pub els: Option<Node>,
    /// `ensure`.
    pub ensure: Option<Node>,
}

/// One `rescue` clause.
#[derive(Debug, Clone, PartialEq)]
pub struct Rescue {
    /// Exception classes as written (empty: `StandardError`).
    pub classes: Vec<String>,
    /// `=> e`
    pub var: Option<String>,
    /// Its body.
    pub body: Node,
    /// Line.
    pub line: u32,
}

/// An assignment target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A local variable.
    Lvar(String),
    /// An instance variable, without `@`.
    Ivar(String),
    /// Anything else (`a.b =`, constants, globals), as written.
    Other(String),
}

/// An assignment operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`
    Set,
    /// `||=`
    OrSet,
    /// `&&=`
    AndSet,
    /// `+=`, `-=`, ...
    Op(String),
}

/// A pass over a body tree that looks at the nodes it cares about (ruff's `Visitor`):
/// [`walk`] knows every node kind and every child, so a pass never silently skips a
/// condition, a loop or a block. Depth needs no limit of its own: trees are built at most
/// [`MAX_TREE_DEPTH`] deep (deeper code becomes `Other`).
pub trait Visitor<'n> {
    /// Called on each node before its children; `false` skips the children (the pass
    /// may [`walk`] some of them itself).
    fn enter(&mut self, node: &'n Node) -> bool;
}

/// Visits `node` and, unless the visitor declines, its children in source order.
pub fn walk<'n, V: Visitor<'n> + ?Sized>(visitor: &mut V, node: &'n Node) {
    if visitor.enter(node) {
        node.for_each_child(&mut |child| walk(visitor, child));
    }
}

impl Node {
    /// A literal or a constant: a value as written (`"x"`, `:x`, `1`, `nil`, `Payment::CARD`).
    pub fn is_literal(&self) -> bool {
        matches!(
            self,
            Node::Str(_)
                | Node::Sym(_)
                | Node::Int(_)
                | Node::Float(_)
                | Node::Nil
                | Node::True
                | Node::False
                | Node::Const { .. }
        )
    }

    /// The statements of a body: a sequence's items, else the node itself.
    pub fn statements(&self) -> Vec<Node> {
        match self {
            Node::Seq(items) => items.clone(),
            other => vec![other.clone()],
        }
    }

    /// A copy of this node whose direct children are replaced by `f(child)`, in the
    /// order [`Node::for_each_child`] visits them.
    pub fn map_children(&self, f: &mut dyn FnMut(&Node) -> Node) -> Node {
        let opt = |n: &Option<Node>, f: &mut dyn FnMut(&Node) -> Node| n.as_ref().map(&mut *f);
        let boxed = |n: &Node, f: &mut dyn FnMut(&Node) -> Node| Box::new(f(n));
        match self {
            Node::Seq(items) => Node::Seq(items.iter().map(&mut *f).collect()),
            Node::Array(items) => Node::Array(items.iter().map(&mut *f).collect()),
            Node::If(i) => {
                let cond = f(&i.cond);
                let then = f(&i.then);
                let els = opt(&i.els, f);
                Node::If(Box::new(If {
                    cond,
                    then,
                    els,
                    ..(**i).clone()
                }))
            }
            Node::Case(c) => {
                let subject = opt(&c.subject, f);
                let whens = c
                    .whens
                    .iter()
                    .map(|w| When {
                        conds: w.conds.iter().map(&mut *f).collect(),
                        body: f(&w.body),
                        line: w.line,
                    })
                    .collect();
                let els = opt(&c.els, f);
                Node::Case(Box::new(Case {
                    subject,
                    whens,
                    els,
                    ..(**c).clone()
                }))
            }
            Node::Call(c) => {
                let recv = opt(&c.recv, f);
                let args = c.args.iter().map(&mut *f).collect();
                let block = c.block.as_ref().map(|b| Block {
                    params: b.params.clone(),
                    body: f(&b.body),
                });
                Node::Call(Box::new(Call {
                    recv,
                    args,
                    block,
                    ..(**c).clone()
                }))
            }
            Node::And(a, b) => {
                let a = boxed(a, f);
                Node::And(a, boxed(b, f))
            }
            Node::Or(a, b, line) => {
                let a = boxed(a, f);
                Node::Or(a, boxed(b, f), *line)
            }
            Node::Not(a) => Node::Not(boxed(a, f)),
            Node::Splat(a) => Node::Splat(boxed(a, f)),
            Node::Return {
                value: Some(v),
                line,
            } => Node::Return {
                value: Some(boxed(v, f)),
                line: *line,
            },
            Node::Begin(b) => {
                let body = f(&b.body);
                let rescues = b
                    .rescues
                    .iter()
                    .map(|r| Rescue {
                        body: f(&r.body),
                        ..r.clone()
                    })
                    .collect();
                let els = opt(&b.els, f);
                let ensure = opt(&b.ensure, f);
                Node::Begin(Box::new(Begin {
                    body,
                    rescues,
                    els,
                    ensure,
                }))
            }
            Node::Loop { body, line } => Node::Loop {
                body: boxed(body, f),
                line: *line,
            },
            Node::Assign {
                target,
                op,
                value,
                line,
            } => Node::Assign {
                target: target.clone(),
                op: op.clone(),
                value: boxed(value, f),
                line: *line,
            },
            Node::Hash(pairs) => Node::Hash(pairs.iter().map(|(k, v)| (f(k), f(v))).collect()),
            Node::Super { args, line } => Node::Super {
                args: args.iter().map(&mut *f).collect(),
                line: *line,
            },
            Node::Range { lo, hi, exclusive } => Node::Range {
                lo: lo.as_ref().map(|l| boxed(l, f)),
                hi: hi.as_ref().map(|h| boxed(h, f)),
                exclusive: *exclusive,
            },
            other => other.clone(),
        }
    }

    /// A copy with every line number moved by `by`: code read from another file (a
    /// parent controller's filter) is placed in a line space of its own, the way a source
    /// map gives each file a range of positions, so no line of it is taken for a line of
    /// the file under analysis.
    pub fn shifted_lines(&self, by: u32) -> Node {
        let mv = |l: u32| l.saturating_add(by);
        let node = self.map_children(&mut |child| child.shifted_lines(by));
        match node {
            Node::If(mut i) => {
                i.lines = (mv(i.lines.0), mv(i.lines.1));
                i.cond_line = mv(i.cond_line);
                Node::If(i)
            }
            Node::Case(mut c) => {
                c.lines = (mv(c.lines.0), mv(c.lines.1));
                for w in &mut c.whens {
                    w.line = mv(w.line);
                }
                Node::Case(c)
            }
            Node::Call(mut c) => {
                c.line = mv(c.line);
                Node::Call(c)
            }
            Node::Begin(mut b) => {
                for r in &mut b.rescues {
                    r.line = mv(r.line);
                }
                Node::Begin(b)
            }
            Node::Return { value, line } => Node::Return {
                value,
                line: mv(line),
            },
            Node::Jump { keyword, line } => Node::Jump {
                keyword,
                line: mv(line),
            },
            Node::Loop { body, line } => Node::Loop {
                body,
                line: mv(line),
            },
            Node::Assign {
                target,
                op,
                value,
                line,
            } => Node::Assign {
                target,
                op,
                value,
                line: mv(line),
            },
            Node::Yield { line } => Node::Yield { line: mv(line) },
            Node::Super { args, line } => Node::Super {
                args,
                line: mv(line),
            },
            Node::Other { text, line } => Node::Other {
                text,
                line: mv(line),
            },
            Node::Or(a, b, line) => Node::Or(a, b, mv(line)),
            other => other,
        }
    }

    /// Calls `f` on each direct child, in source order: a condition before its branches,
    /// a receiver before the arguments and the block.
    pub fn for_each_child<'n>(&'n self, f: &mut dyn FnMut(&'n Node)) {
        match self {
            Node::Seq(items) | Node::Array(items) => items.iter().for_each(f),
            Node::If(i) => {
                f(&i.cond);
                f(&i.then);
                if let Some(e) = &i.els {
                    f(e);
                }
            }
            Node::Case(c) => {
                if let Some(s) = &c.subject {
                    f(s);
                }
                for w in &c.whens {
                    w.conds.iter().for_each(&mut *f);
                    f(&w.body);
                }
                if let Some(e) = &c.els {
                    f(e);
                }
            }
            Node::Call(c) => {
                if let Some(r) = &c.recv {
                    f(r);
                }
                c.args.iter().for_each(&mut *f);
                if let Some(b) = &c.block {
                    f(&b.body);
                }
            }
            Node::And(a, b) | Node::Or(a, b, _) => {
                f(a);
                f(b);
            }
            Node::Not(a) | Node::Splat(a) => f(a),
            Node::Return { value: Some(v), .. } => f(v),
            Node::Begin(b) => {
                f(&b.body);
                for r in &b.rescues {
                    f(&r.body);
                }
                if let Some(e) = &b.els {
                    f(e);
                }
                if let Some(e) = &b.ensure {
                    f(e);
                }
            }
            Node::Loop { body, .. } => f(body),
            Node::Assign { value, .. } => f(value),
            Node::Hash(pairs) => {
                for (k, v) in pairs {
                    f(k);
                    f(v);
                }
            }
            Node::Super { args, .. } => {
                for a in args {
                    f(a);
                }
            }
            Node::Range { lo, hi, .. } => {
                if let Some(l) = lo {
                    f(l);
                }
                if let Some(h) = hi {
                    f(h);
                }
            }
            Node::Return { value: None, .. }
            | Node::Jump { .. }
            | Node::Lvar(_)
            | Node::Ivar(_)
            | Node::Const { .. }
            | Node::SelfRef
            | Node::Str(_)
            | Node::Sym(_)
            | Node::Int(_)
            | Node::Float(_)
            | Node::True
            | Node::False
            | Node::Nil
            | Node::Yield { .. }
            | Node::Other { .. } => {}
        }
    }
}

/// Converts prism nodes, bounded in depth (deeper code becomes `Other`).
pub(crate) struct Converter<'s> {
    pub(crate) source: &'s [u8],
    pub(crate) depth: usize,
}

impl Converter<'_> {
    fn line(&self, loc: &ruby_prism::Location<'_>) -> u32 {
        u32::try_from(loc.start_line()).unwrap_or(1).max(1)
    }

    fn end_line(&self, loc: &ruby_prism::Location<'_>) -> u32 {
        u32::try_from(loc.end_line()).unwrap_or(1).max(1)
    }

    fn text(&self, loc: &ruby_prism::Location<'_>) -> String {
        let start = loc.start() as usize;
        let end = (loc.end() as usize).min(start + 200);
        bytes_to_string(self.source.get(start..end).unwrap_or_default())
    }

    fn other(&self, node: &P<'_>) -> Node {
        let loc = node.location();
        Node::Other {
            text: self.text(&loc),
            line: self.line(&loc),
        }
    }

    fn boxed(&mut self, node: &P<'_>) -> Box<Node> {
        Box::new(self.convert(node))
    }

    fn opt(&mut self, node: Option<P<'_>>) -> Option<Node> {
        node.map(|n| self.convert(&n))
    }

    fn statements(&mut self, stmts: Option<ruby_prism::StatementsNode<'_>>) -> Node {
        match stmts {
            Some(s) => {
                let items: Vec<Node> = s.body().iter().map(|n| self.convert(&n)).collect();
                Node::Seq(items)
            }
            None => Node::Seq(Vec::new()),
        }
    }

    fn args(&mut self, args: Option<ruby_prism::ArgumentsNode<'_>>) -> Vec<Node> {
        args.map(|a| a.arguments().iter().map(|n| self.convert(&n)).collect())
            .unwrap_or_default()
    }

    /// Converts one node.
    pub(crate) fn convert(&mut self, node: &P<'_>) -> Node {
        if self.depth >= MAX_TREE_DEPTH {
            return self.other(node);
        }
        self.depth += 1;
        let out = self.convert_inner(node);
        self.depth -= 1;
        out
    }

    /// One node, by kind: each kind its own method below, in the order a method body
    /// meets them (statements, control flow, calls, jumps, rescue, loops, writes, reads,
    /// literals). A kind not listed is [`Self::other`] (its text).
    fn convert_inner(&mut self, node: &P<'_>) -> Node {
        let converted = match node {
            P::StatementsNode { .. } => node.as_statements_node().map(|s| self.statements(Some(s))),
            P::ParenthesesNode { .. } => Some(self.parentheses(node)),
            P::IfNode { .. } => node.as_if_node().map(|n| self.if_node(&n)),
            P::UnlessNode { .. } => node.as_unless_node().map(|n| self.unless_node(&n)),
            P::CaseNode { .. } => node.as_case_node().map(|n| self.case_node(&n)),
            P::CaseMatchNode { .. } => node.as_case_match_node().map(|n| self.case_match_node(&n)),
            P::AndNode { .. } => node
                .as_and_node()
                .map(|n| Node::And(self.boxed(&n.left()), self.boxed(&n.right()))),
            P::OrNode { .. } => node.as_or_node().map(|n| {
                Node::Or(
                    self.boxed(&n.left()),
                    self.boxed(&n.right()),
                    self.line(&n.location()),
                )
            }),
            P::CallNode { .. } => node.as_call_node().map(|c| self.call(&c)),
            // `type in "PostApproval" | "PostDisapproval"`: a test of the value against
            // literals, read as `type == "PostApproval" || type == "PostDisapproval"`.
            P::MatchPredicateNode { .. } => node
                .as_match_predicate_node()
                .and_then(|m| self.match_predicate(&m)),
            // `update!(num_submissions:)`: the value left out is the call (or local) of
            // the key's name.
            P::ImplicitNode { .. } => node.as_implicit_node().map(|i| self.convert(&i.value())),
            P::ReturnNode { .. } => node.as_return_node().map(|r| self.return_node(&r)),
            P::NextNode { .. } | P::BreakNode { .. } => Some(self.jump(node)),
            P::BeginNode { .. } => node.as_begin_node().map(|b| self.begin_node(&b)),
            P::RescueModifierNode { .. } => node
                .as_rescue_modifier_node()
                .map(|r| self.rescue_modifier_node(&r)),
            P::WhileNode { .. } => node
                .as_while_node()
                .map(|w| self.loop_node(w.statements(), &w.location())),
            P::UntilNode { .. } => node
                .as_until_node()
                .map(|w| self.loop_node(w.statements(), &w.location())),
            P::ForNode { .. } => node
                .as_for_node()
                .map(|f| self.loop_node(f.statements(), &f.location())),
            P::LocalVariableWriteNode { .. }
            | P::InstanceVariableWriteNode { .. }
            | P::LocalVariableOrWriteNode { .. }
            | P::InstanceVariableOrWriteNode { .. }
            | P::InstanceVariableAndWriteNode { .. }
            | P::LocalVariableOperatorWriteNode { .. }
            | P::InstanceVariableOperatorWriteNode { .. } => self.variable_write(node),
            P::IndexOrWriteNode { .. } => node
                .as_index_or_write_node()
                .map(|w| self.index_or_write(&w, node)),
            P::CallOrWriteNode { .. } => node
                .as_call_or_write_node()
                .map(|w| self.call_or_write(&w, node)),
            P::MultiWriteNode { .. } => node
                .as_multi_write_node()
                .map(|w| self.multi_write(&w, node)),
            P::LocalVariableReadNode { .. } => node
                .as_local_variable_read_node()
                .map(|l| Node::Lvar(bytes_to_string(l.name().as_slice()))),
            P::InstanceVariableReadNode { .. } => node
                .as_instance_variable_read_node()
                .map(|i| Node::Ivar(ivar(i.name().as_slice()))),
            P::ConstantReadNode { .. } | P::ConstantPathNode { .. } => {
                let (path, absolute) = const_path_text(node);
                (!path.is_empty()).then_some(Node::Const { path, absolute })
            }
            P::SelfNode { .. } => Some(Node::SelfRef),
            P::NilNode { .. } => Some(Node::Nil),
            P::TrueNode { .. } => Some(Node::True),
            P::FalseNode { .. } => Some(Node::False),
            P::StringNode { .. } => node
                .as_string_node()
                .map(|s| Node::Str(bytes_to_string(s.unescaped()))),
            P::SymbolNode { .. } => node
                .as_symbol_node()
                .map(|s| Node::Sym(bytes_to_string(s.unescaped()))),
            P::IntegerNode { .. } => self.integer(node),
            P::FloatNode { .. } => node.as_float_node().map(|f| Node::Float(f.value())),
            P::ArrayNode { .. } => node
                .as_array_node()
                .map(|a| Node::Array(a.elements().iter().map(|e| self.convert(&e)).collect())),
            P::HashNode { .. } => node.as_hash_node().map(|h| self.hash(h.elements())),
            P::KeywordHashNode { .. } => {
                node.as_keyword_hash_node().map(|h| self.hash(h.elements()))
            }
            P::RangeNode { .. } => node.as_range_node().map(|r| Node::Range {
                lo: r.left().map(|l| self.boxed(&l)),
                hi: r.right().map(|h| self.boxed(&h)),
                exclusive: r.is_exclude_end(),
            }),
            P::SplatNode { .. } => node
                .as_splat_node()
                .and_then(|s| s.expression())
                .map(|e| Node::Splat(self.boxed(&e))),
            P::YieldNode { .. } => Some(Node::Yield {
                line: self.line(&node.location()),
            }),
            P::SuperNode { .. } => node.as_super_node().map(|n| Node::Super {
                args: self.args(n.arguments()),
                line: self.line(&node.location()),
            }),
            P::ForwardingSuperNode { .. } => Some(Node::Super {
                args: Vec::new(),
                line: self.line(&node.location()),
            }),
            _ => None,
        };
        converted.unwrap_or_else(|| self.other(node))
    }

    /// `(x)`: its one statement; several are a sequence; `()` is nil.
    fn parentheses(&mut self, node: &P<'_>) -> Node {
        match node.as_parentheses_node().and_then(|p| p.body()) {
            Some(body) => match self.convert(&body) {
                Node::Seq(mut items) if items.len() == 1 => items.pop().unwrap_or(Node::Nil),
                other => other,
            },
            None => Node::Nil,
        }
    }

    /// `if`, `elsif`, a modifier `if` and the ternary.
    fn if_node(&mut self, n: &ruby_prism::IfNode<'_>) -> Node {
        let loc = n.location();
        let ternary = n.if_keyword_loc().is_none();
        let modifier =
            !ternary && n.end_keyword_loc().is_none() && self.is_modifier(&n.predicate(), &loc);
        let elsif = n.if_keyword_loc().is_some_and(|k| k.as_slice() == b"elsif");
        let els = n.subsequent().map(|s| {
            if let Some(e) = s.as_else_node() {
                self.statements(e.statements())
            } else {
                self.convert(&s)
            }
        });
        Node::If(Box::new(If {
            cond: self.convert(&n.predicate()),
            then: self.statements(n.statements()),
            els,
            unless: false,
            modifier,
            ternary,
            elsif,
            lines: (self.line(&loc), self.end_line(&loc)),
            cond_line: self.line(&n.predicate().location()),
        }))
    }

    /// `unless` and a modifier `unless`.
    fn unless_node(&mut self, n: &ruby_prism::UnlessNode<'_>) -> Node {
        let loc = n.location();
        let modifier = n.end_keyword_loc().is_none();
        Node::If(Box::new(If {
            cond: self.convert(&n.predicate()),
            then: self.statements(n.statements()),
            els: n.else_clause().map(|e| self.statements(e.statements())),
            unless: true,
            modifier,
            ternary: false,
            elsif: false,
            lines: (self.line(&loc), self.end_line(&loc)),
            cond_line: self.line(&n.predicate().location()),
        }))
    }

    /// `case ... when`.
    fn case_node(&mut self, n: &ruby_prism::CaseNode<'_>) -> Node {
        let whens = n
            .conditions()
            .iter()
            .filter_map(|w| w.as_when_node())
            .map(|w| When {
                conds: w.conditions().iter().map(|c| self.convert(&c)).collect(),
                body: self.statements(w.statements()),
                line: self.line(&w.location()),
            })
            .collect();
        self.case(n.predicate(), whens, n.else_clause(), false, &n.location())
    }

    /// `value in lit | lit`: one equality per literal, joined by `||`. `None` when a
    /// pattern is more than a literal (an array, a hash, a binding): left as written.
    fn match_predicate(&mut self, m: &ruby_prism::MatchPredicateNode<'_>) -> Option<Node> {
        fn literals<'p>(pattern: P<'p>, out: &mut Vec<P<'p>>) -> bool {
            if let Some(alt) = pattern.as_alternation_pattern_node() {
                return literals(alt.left(), out) && literals(alt.right(), out);
            }
            // Not a constant: `x in Admin` tests the class (`Admin === x`), no equality.
            let literal = literal_pattern(&pattern);
            if literal {
                out.push(pattern);
            }
            literal && out.len() <= 8
        }
        let mut found = Vec::new();
        if !literals(m.pattern(), &mut found) {
            return None;
        }
        let line = self.line(&m.location());
        let value = self.convert(&m.value());
        let mut tests = found.iter().map(|lit| {
            Node::Call(Box::new(Call {
                recv: Some(value.clone()),
                name: "==".to_string(),
                args: vec![self.convert(lit)],
                block: None,
                safe_nav: false,
                line,
            }))
        });
        let first = tests.next()?;
        Some(tests.fold(first, |acc, t| Node::Or(Box::new(acc), Box::new(t), line)))
    }

    /// `case ... in` (pattern matching): each `in` is a `When` with its pattern.
    /// A guard (`in :creator if can_search_flagger?`) is a condition inside its arm: when
    /// it fails, the next arm with the same pattern (`in :creator`) runs, else none of
    /// this arm does.
    fn case_match_node(&mut self, n: &ruby_prism::CaseMatchNode<'_>) -> Node {
        let ins: Vec<ruby_prism::InNode<'_>> = n
            .conditions()
            .iter()
            .filter_map(|w| w.as_in_node())
            .collect();
        let mut whens = Vec::with_capacity(ins.len());
        for (at, w) in ins.iter().enumerate() {
            let pattern = w.pattern();
            let body = self.statements(w.statements());
            let line = self.line(&w.location());
            let Some((inner, guard, unless)) = guard_of(&pattern) else {
                whens.push(When {
                    conds: vec![self.pattern(&pattern)],
                    body,
                    line,
                });
                continue;
            };
            let same = |other: &ruby_prism::InNode<'_>| {
                let p = other.pattern();
                guard_of(&p).is_none() && p.location().as_slice() == inner.location().as_slice()
            };
            let els = ins
                .get(at + 1)
                .filter(|next| same(next))
                .map(|next| self.statements(next.statements()));
            let loc = pattern.location();
            let guarded = Node::If(Box::new(If {
                cond: self.convert(&guard),
                then: body,
                els,
                unless,
                modifier: true,
                ternary: false,
                elsif: false,
                lines: (self.line(&loc), self.end_line(&loc)),
                cond_line: self.line(&guard.location()),
            }));
            whens.push(When {
                conds: vec![self.pattern(&inner)],
                body: Node::Seq(vec![guarded]),
                line,
            });
        }
        self.case(n.predicate(), whens, n.else_clause(), true, &n.location())
    }

    /// A `Case` from either form's parts.
    fn case(
        &mut self,
        subject: Option<P<'_>>,
        whens: Vec<When>,
        els: Option<ruby_prism::ElseNode<'_>>,
        pattern: bool,
        loc: &ruby_prism::Location<'_>,
    ) -> Node {
        Node::Case(Box::new(Case {
            subject: self.opt(subject),
            whens,
            els: els.map(|e| self.statements(e.statements())),
            pattern,
            lines: (self.line(loc), self.end_line(loc)),
        }))
    }

    /// `return`, `return x`, `return a, b` (an array).
    fn return_node(&mut self, r: &ruby_prism::ReturnNode<'_>) -> Node {
        let mut args = self.args(r.arguments());
        let value = match args.len() {
            0 => None,
            1 => args.pop().map(Box::new),
            _ => Some(Box::new(Node::Array(args))),
        };
        Node::Return {
            value,
            line: self.line(&r.location()),
        }
    }

    /// `next` or `break`.
    fn jump(&mut self, node: &P<'_>) -> Node {
        Node::Jump {
            keyword: if node.as_next_node().is_some() {
                "next"
            } else {
                "break"
            },
            line: self.line(&node.location()),
        }
    }

    /// `begin ... rescue ... else ... ensure ... end` (a method's own `rescue` too); a plain
    /// `begin ... end` is its body.
    fn begin_node(&mut self, b: &ruby_prism::BeginNode<'_>) -> Node {
        let body = self.statements(b.statements());
        let mut rescues = Vec::new();
        let mut next = b.rescue_clause();
        while let Some(r) = next {
            rescues.push(Rescue {
                classes: r
                    .exceptions()
                    .iter()
                    .map(|e| {
                        let (path, _) = const_path_text(&e);
                        if path.is_empty() {
                            self.text(&e.location())
                        } else {
                            path
                        }
                    })
                    .collect(),
                var: r.reference().map(|v| self.text(&v.location())),
                body: self.statements(r.statements()),
                line: self.line(&r.location()),
            });
            next = r.subsequent();
        }
        if rescues.is_empty() && b.ensure_clause().is_none() && b.else_clause().is_none() {
            return body;
        }
        Node::Begin(Box::new(Begin {
            body,
            rescues,
            els: b.else_clause().map(|e| self.statements(e.statements())),
            ensure: b.ensure_clause().map(|e| self.statements(e.statements())),
        }))
    }

    /// `x rescue y`: a `begin` with one bare rescue.
    fn rescue_modifier_node(&mut self, r: &ruby_prism::RescueModifierNode<'_>) -> Node {
        Node::Begin(Box::new(Begin {
            body: self.convert(&r.expression()),
            rescues: vec![Rescue {
                classes: Vec::new(),
                var: None,
                body: self.convert(&r.rescue_expression()),
                line: self.line(&r.location()),
            }],
            els: None,
            ensure: None,
        }))
    }

    /// `while`, `until` and `for`: a loop over their body.
    fn loop_node(
        &mut self,
        statements: Option<ruby_prism::StatementsNode<'_>>,
        loc: &ruby_prism::Location<'_>,
    ) -> Node {
        Node::Loop {
            body: Box::new(self.statements(statements)),
            line: self.line(loc),
        }
    }

    /// A write of a local or instance variable: `=`, `||=`, `&&=`, `+=` and the others.
    fn variable_write(&mut self, node: &P<'_>) -> Option<Node> {
        let lvar = |name: &[u8]| Target::Lvar(bytes_to_string(name));
        let op = |o: &[u8]| AssignOp::Op(bytes_to_string(o));
        let (target, op, value) = if let Some(w) = node.as_local_variable_write_node() {
            (lvar(w.name().as_slice()), AssignOp::Set, w.value())
        } else if let Some(w) = node.as_instance_variable_write_node() {
            (
                Target::Ivar(ivar(w.name().as_slice())),
                AssignOp::Set,
                w.value(),
            )
        } else if let Some(w) = node.as_local_variable_or_write_node() {
            (lvar(w.name().as_slice()), AssignOp::OrSet, w.value())
        } else if let Some(w) = node.as_instance_variable_or_write_node() {
            (
                Target::Ivar(ivar(w.name().as_slice())),
                AssignOp::OrSet,
                w.value(),
            )
        } else if let Some(w) = node.as_instance_variable_and_write_node() {
            (
                Target::Ivar(ivar(w.name().as_slice())),
                AssignOp::AndSet,
                w.value(),
            )
        } else if let Some(w) = node.as_local_variable_operator_write_node() {
            (
                lvar(w.name().as_slice()),
                op(w.binary_operator().as_slice()),
                w.value(),
            )
        } else if let Some(w) = node.as_instance_variable_operator_write_node() {
            (
                Target::Ivar(ivar(w.name().as_slice())),
                op(w.binary_operator().as_slice()),
                w.value(),
            )
        } else {
            return None;
        };
        Some(self.assign(target, op, &value, node))
    }

    /// `attrs["dir"] ||= "auto"`: a write of that index (`[]=`), which is what the
    /// statement does.
    fn index_or_write(&mut self, w: &ruby_prism::IndexOrWriteNode<'_>, node: &P<'_>) -> Node {
        let recv = w.receiver().map(|r| self.convert(&r));
        let mut args = self.args(w.arguments());
        args.push(self.convert(&w.value()));
        self.write_call(recv, "[]=".to_string(), args, node)
    }

    /// `self.status ||= :draft`: a write of that attribute (`status=`).
    fn call_or_write(&mut self, w: &ruby_prism::CallOrWriteNode<'_>, node: &P<'_>) -> Node {
        let recv = w.receiver().map(|r| self.convert(&r));
        let name = bytes_to_string(w.write_name().as_slice());
        let args = vec![self.convert(&w.value())];
        self.write_call(recv, name, args, node)
    }

    /// `a, b = value`: the targets as written.
    fn multi_write(&mut self, w: &ruby_prism::MultiWriteNode<'_>, node: &P<'_>) -> Node {
        let value = w.value();
        let targets = bytes_to_string(
            self.source
                .get(w.location().start() as usize..value.location().start() as usize)
                .unwrap_or_default(),
        );
        let targets = targets.trim().trim_end_matches('=').trim().to_string();
        self.assign(Target::Other(targets), AssignOp::Set, &value, node)
    }

    /// An integer literal (`1_000`); one too large for an `i64` is [`Self::other`].
    fn integer(&mut self, node: &P<'_>) -> Option<Node> {
        let text: String = self
            .text(&node.location())
            .chars()
            .filter(|c| *c != '_')
            .collect();
        text.parse::<i64>().ok().map(Node::Int)
    }

    /// A modifier `if` has its predicate after its body.
    fn is_modifier(&self, predicate: &P<'_>, whole: &ruby_prism::Location<'_>) -> bool {
        predicate.location().start() > whole.start()
            && self
                .source
                .get(whole.start() as usize..)
                .is_some_and(|s| !s.starts_with(b"if"))
    }

    fn assign(&mut self, target: Target, op: AssignOp, value: &P<'_>, node: &P<'_>) -> Node {
        Node::Assign {
            target,
            op,
            value: self.boxed(value),
            line: self.line(&node.location()),
        }
    }

    fn hash(&mut self, elements: ruby_prism::NodeList<'_>) -> Node {
        let pairs = elements
            .iter()
            .filter_map(|e| e.as_assoc_node())
            .map(|a| (self.convert(&a.key()), self.convert(&a.value())))
            .collect();
        Node::Hash(pairs)
    }

    fn pattern(&mut self, pattern: &P<'_>) -> Node {
        let plain = literal_pattern(pattern)
            || matches!(
                pattern,
                P::ConstantReadNode { .. } | P::ConstantPathNode { .. } | P::RangeNode { .. }
            );
        if plain {
            self.convert(pattern)
        } else {
            self.other(pattern)
        }
    }

    fn write_call(
        &mut self,
        recv: Option<Node>,
        name: String,
        args: Vec<Node>,
        node: &ruby_prism::Node<'_>,
    ) -> Node {
        Node::Call(Box::new(Call {
            recv,
            name,
            args,
            block: None,
            safe_nav: false,
            line: self.line(&node.location()),
        }))
    }

    fn call(&mut self, c: &ruby_prism::CallNode<'_>) -> Node {
        let name = bytes_to_string(c.name().as_slice());
        let line = self.line(&c.location());
        let recv = c.receiver().map(|r| self.convert(&r));
        if name == "!" && c.arguments().is_none() {
            if let Some(r) = recv {
                return Node::Not(Box::new(r));
            }
        }
        let block = c.block().and_then(|b| {
            if let Some(block) = b.as_block_node() {
                let params = block
                    .parameters()
                    .and_then(|p| p.as_block_parameters_node())
                    .and_then(|p| p.parameters())
                    .map(|p| {
                        p.requireds()
                            .iter()
                            .filter_map(|r| r.as_required_parameter_node())
                            .map(|r| bytes_to_string(r.name().as_slice()))
                            .collect()
                    })
                    .unwrap_or_default();
                let body = block
                    .body()
                    .map_or(Node::Seq(Vec::new()), |b| self.convert(&b));
                Some(Block { params, body })
            } else {
                None
            }
        });
        let mut args = self.args(c.arguments());
        // `map(&:email)`: the block argument, as written, after the arguments.
        if let Some(arg) = c.block().and_then(|b| b.as_block_argument_node()) {
            args.push(self.other(&arg.as_node()));
        }
        // `Hash === attrs[k]`: a class's or module's `===` is `is_a?` (a constant named in
        // CamelCase names one; `EMAIL_FORMAT === text` is a value's own `===`).
        if name == "===" && args.len() == 1 && block.is_none() {
            if let Some(Node::Const { path, .. }) = recv.as_ref() {
                let last = path.rsplit("::").next().unwrap_or(path);
                if last.chars().next().is_some_and(char::is_uppercase)
                    && last.chars().any(char::is_lowercase)
                {
                    let subject = args.pop();
                    return Node::Call(Box::new(Call {
                        recv: subject,
                        name: "is_a?".to_string(),
                        args: recv.into_iter().collect(),
                        block: None,
                        safe_nav: false,
                        line,
                    }));
                }
            }
        }
        // `user&.is_a?(User)`: nil is of no class a test names (but NilClass and the
        // classes every object is), so the `&.` guards nothing; read as `user.is_a?(User)`.
        let type_test = matches!(name.as_str(), "is_a?" | "kind_of?" | "instance_of?")
            && matches!(args.as_slice(), [Node::Const { path, .. }]
                if !matches!(path.as_str(), "NilClass" | "Object" | "BasicObject" | "Kernel"));
        // The same for each `&.` of its receiver's chain (`invoice&.recipient&.is_a?(Group)`
        // is false whenever a link is nil).
        let recv = if type_test {
            recv.map(plain_chain)
        } else {
            recv
        };
        Node::Call(Box::new(Call {
            recv,
            name,
            args,
            block,
            safe_nav: c.is_safe_navigation() && !type_test,
            line,
        }))
    }
}

/// A chain of calls without its `&.`s (blocks and arguments left as they are).
fn plain_chain(node: Node) -> Node {
    match node {
        Node::Call(mut c) if c.block.is_none() => {
            c.safe_nav = false;
            c.recv = c.recv.take().map(plain_chain);
            Node::Call(c)
        }
        other => other,
    }
}

fn ivar(bytes: &[u8]) -> String {
    bytes_to_string(bytes.strip_prefix(b"@").unwrap_or(bytes))
}

impl Node {
    /// Compact Ruby text of the node (for descriptions and notes), at most `max` bytes.
    pub fn render(&self) -> String {
        let mut out = String::new();
        render_into(self, &mut out, 0);
        if out.len() > 120 {
            let cut = (0..=117)
                .rev()
                .find(|&i| out.is_char_boundary(i))
                .unwrap_or(0);
            out.truncate(cut);
            out.push_str("...");
        }
        out
    }

    /// The first and last line of the code under this node, as far as its nodes tell
    /// (calls and literals know where they start, not where they end).
    pub fn span(&self) -> Option<(u32, u32)> {
        struct Span(Option<(u32, u32)>);
        impl<'n> Visitor<'n> for Span {
            fn enter(&mut self, node: &'n Node) -> bool {
                let lines = match node {
                    Node::If(i) => Some(i.lines),
                    Node::Case(c) => Some(c.lines),
                    other => other.own_line().map(|l| (l, l)),
                };
                if let Some((a, b)) = lines {
                    self.0 = Some(match self.0 {
                        Some((lo, hi)) => (lo.min(a), hi.max(b)),
                        None => (a, b),
                    });
                }
                true
            }
        }
        let mut span = Span(None);
        walk(&mut span, self);
        span.0
    }

    /// The line recorded on this node itself (not on its children).
    fn own_line(&self) -> Option<u32> {
        match self {
            Node::Call(c) => Some(c.line),
            Node::Or(_, _, line) => Some(*line),
            Node::Return { line, .. }
            | Node::Jump { line, .. }
            | Node::Loop { line, .. }
            | Node::Assign { line, .. }
            | Node::Yield { line }
            | Node::Super { line, .. }
            | Node::Other { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The line the node starts on, when known.
    pub fn line(&self) -> Option<u32> {
        match self {
            Node::If(i) => Some(i.lines.0),
            Node::Case(c) => Some(c.lines.0),
            Node::Call(c) => Some(c.line),
            Node::Return { line, .. }
            | Node::Jump { line, .. }
            | Node::Loop { line, .. }
            | Node::Assign { line, .. } => Some(*line),
            Node::Yield { line } | Node::Super { line, .. } | Node::Other { line, .. } => {
                Some(*line)
            }
            Node::Seq(items) => items.iter().find_map(Node::line),
            Node::And(a, b) => a.line().or_else(|| b.line()),
            Node::Or(a, b, line) => a.line().or_else(|| b.line()).or(Some(*line)),
            Node::Not(a) | Node::Splat(a) => a.line(),
            Node::Begin(b) => b.body.line(),
            _ => None,
        }
    }
}

fn render_into(node: &Node, out: &mut String, depth: usize) {
    if depth > 40 {
        out.push_str("...");
        return;
    }
    let d = depth + 1;
    match node {
        Node::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str("; ");
                }
                render_into(item, out, d);
            }
        }
        Node::If(i) => {
            out.push_str(if i.unless { "unless " } else { "if " });
            render_into(&i.cond, out, d);
        }
        Node::Case(c) => {
            out.push_str("case");
            if let Some(s) = &c.subject {
                out.push(' ');
                render_into(s, out, d);
            }
        }
        Node::Call(c) => {
            let operator = !c
                .name
                .chars()
                .next()
                .is_some_and(|ch| ch.is_alphabetic() || ch == '_');
            match (&c.recv, operator, c.args.len()) {
                (Some(r), true, 1) if c.name != "[]" => {
                    render_into(r, out, d);
                    out.push(' ');
                    out.push_str(&c.name);
                    out.push(' ');
                    if let Some(a) = c.args.first() {
                        render_into(a, out, d);
                    }
                }
                (Some(r), _, _) if c.name == "[]" => {
                    render_into(r, out, d);
                    out.push('[');
                    render_list(&c.args, out, d);
                    out.push(']');
                }
                _ => {
                    if let Some(r) = &c.recv {
                        // `(a * b).round`: an operator receiver needs its parentheses back.
                        let operator_recv = matches!(r, Node::Call(rc) if rc.args.len() == 1
                            && !rc.name.chars().next().is_some_and(|ch| ch.is_alphabetic() || ch == '_')
                            && rc.name != "[]")
                            || matches!(r, Node::And(..) | Node::Or(..));
                        if operator_recv {
                            out.push('(');
                            render_into(r, out, d);
                            out.push(')');
                        } else {
                            render_into(r, out, d);
                        }
                        out.push_str(if c.safe_nav { "&." } else { "." });
                    }
                    out.push_str(&c.name);
                    if !c.args.is_empty() {
                        out.push('(');
                        render_list(&c.args, out, d);
                        out.push(')');
                    }
                }
            }
        }
        Node::And(a, b) => {
            render_into(a, out, d);
            out.push_str(" && ");
            render_into(b, out, d);
        }
        Node::Or(a, b, _) => {
            render_into(a, out, d);
            out.push_str(" || ");
            render_into(b, out, d);
        }
        Node::Not(a) => {
            out.push('!');
            render_into(a, out, d);
        }
        Node::Return { value, .. } => {
            out.push_str("return");
            if let Some(v) = value {
                out.push(' ');
                render_into(v, out, d);
            }
        }
        Node::Jump { keyword, .. } => out.push_str(keyword),
        Node::Begin(b) => render_into(&b.body, out, d),
        Node::Loop { .. } => out.push_str("loop"),
        Node::Assign { target, value, .. } => {
            match target {
                Target::Lvar(n) | Target::Other(n) => out.push_str(n),
                Target::Ivar(n) => {
                    out.push('@');
                    out.push_str(n);
                }
            }
            out.push_str(" = ");
            render_into(value, out, d);
        }
        Node::Lvar(n) => out.push_str(n),
        Node::Ivar(n) => {
            out.push('@');
            out.push_str(n);
        }
        Node::Const { path, absolute } => {
            if *absolute {
                out.push_str("::");
            }
            out.push_str(path);
        }
        Node::SelfRef => out.push_str("self"),
        Node::Str(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        Node::Sym(s) => {
            out.push(':');
            out.push_str(s);
        }
        Node::Int(i) => out.push_str(&i.to_string()),
        Node::Float(f) => out.push_str(&f.to_string()),
        Node::True => out.push_str("true"),
        Node::False => out.push_str("false"),
        Node::Nil => out.push_str("nil"),
        Node::Array(items) => {
            out.push('[');
            render_list(items, out, d);
            out.push(']');
        }
        Node::Hash(pairs) => {
            out.push('{');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                render_into(k, out, d);
                out.push_str(" => ");
                render_into(v, out, d);
            }
            out.push('}');
        }
        Node::Range { lo, hi, exclusive } => {
            if let Some(l) = lo {
                render_into(l, out, d);
            }
            out.push_str(if *exclusive { "..." } else { ".." });
            if let Some(h) = hi {
                render_into(h, out, d);
            }
        }
        Node::Splat(a) => {
            out.push('*');
            render_into(a, out, d);
        }
        Node::Yield { .. } => out.push_str("yield"),
        Node::Super { args, .. } => {
            out.push_str("super");
            if !args.is_empty() {
                out.push('(');
                render_list(args, out, depth + 1);
                out.push(')');
            }
        }
        Node::Other { text, .. } => out.push_str(text.lines().next().unwrap_or("")),
    }
}

fn render_list(items: &[Node], out: &mut String, depth: usize) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        render_into(item, out, depth);
    }
}

/// The pattern, the guard and whether it is `unless` of an `in pattern if guard`.
fn guard_of<'p>(pattern: &P<'p>) -> Option<(P<'p>, P<'p>, bool)> {
    let (stmts, guard, unless) = if let Some(g) = pattern.as_if_node() {
        (g.statements(), g.predicate(), false)
    } else if let Some(g) = pattern.as_unless_node() {
        (g.statements(), g.predicate(), true)
    } else {
        return None;
    };
    let inner = stmts?.body().iter().next()?;
    Some((inner, guard, unless))
}

/// A literal as a pattern (`"a"`, `:a`, `1`, `nil`, `true`): it matches what equals it.
fn literal_pattern(pattern: &P<'_>) -> bool {
    matches!(
        pattern,
        P::StringNode { .. }
            | P::SymbolNode { .. }
            | P::IntegerNode { .. }
            | P::NilNode { .. }
            | P::TrueNode { .. }
            | P::FalseNode { .. }
    )
}
