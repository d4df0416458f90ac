//! A routes file's prism tree → a small owned program ([`Stmt`], [`Expr`]) that the mapper
//! runs. Only what routes are made of keeps its shape: calls with their arguments and
//! blocks, literals, hashes, arrays, strings with interpolated local variables, local
//! variables, conditionals and assignments. Everything else becomes [`Expr::Other`] or
//! [`Stmt::Other`] with a short description, so the mapper can say what it skipped.

use std::rc::Rc;

use ruby_prism::Node;

use crate::index::prism::{bytes_to_string, const_path_text};

/// How deep blocks and expressions are followed. Routes files nest a handful of levels.
pub(super) const MAX_DEPTH: usize = 100;

/// An expression as written.
#[derive(Debug, Clone)]
pub(super) enum Expr {
    Sym(String),
    Str(String),
    /// A string or symbol with `#{...}`: literal pieces and local variable reads.
    Interp(Vec<Piece>),
    Array(Vec<Expr>),
    Hash(Vec<(Expr, Expr)>),
    Nil,
    True,
    False,
    /// A regexp literal (a constraint).
    Regex,
    /// A constant path (`Api::Constraint`, `DOMAINS`).
    Const(String),
    /// `-> { }` or `lambda { }`, a Rack endpoint or a constraint.
    Lambda,
    /// A local variable or block parameter.
    Var(String),
    /// A method call used as a value (`redirect("/x")`, `Rails.env.production?`).
    Call {
        name: String,
        receiver: bool,
    },
    /// Anything else: a short description for diagnostics.
    Other(&'static str),
}

/// A piece of an interpolated string.
#[derive(Debug, Clone)]
pub(super) enum Piece {
    Lit(String),
    Var(String),
    Other,
}

/// A statement of a routes body.
#[derive(Debug, Clone)]
pub(super) enum Stmt {
    Call(Call),
    /// `if`/`unless`/`case`: the branches, each a body.
    Branches {
        line: u32,
        branches: Vec<Vec<Stmt>>,
    },
    /// `x = value` or `X = value`.
    Assign {
        line: u32,
        name: String,
        value: Expr,
    },
    /// Anything else: a line and a short description.
    Other {
        line: u32,
        what: &'static str,
    },
}

/// A method call statement.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) receiver: Receiver,
    pub(super) name: String,
    pub(super) args: Vec<Expr>,
    pub(super) block: Option<Rc<Block>>,
    pub(super) line: u32,
}

/// Who a call is sent to.
#[derive(Debug, Clone)]
pub(super) enum Receiver {
    /// No receiver or `self`: the routes mapper.
    Implicit,
    /// A local variable (the `|r|` of `with_options ... do |r|`).
    Var(String),
    /// A literal array (`%w[a b].each`).
    Array(Vec<Expr>),
    /// Anything else, as written (at most 60 bytes).
    Other(String),
}

/// A block: its positional parameter names and body.
#[derive(Debug)]
pub(super) struct Block {
    pub(super) params: Vec<String>,
    pub(super) body: Vec<Stmt>,
}

/// What lowering a file gives.
pub(super) struct Lowered {
    /// The routes body: the bodies of `*.routes.draw do` blocks in order, or the whole file
    /// when it has none (a file read by `draw`).
    pub(super) body: Vec<Stmt>,
    /// Constants assigned outside the draw blocks (`ADMIN_RESOURCES = %w[a b]`).
    pub(super) constants: Vec<(String, Expr)>,
    /// Parse errors (line, message).
    pub(super) errors: Vec<(u32, String)>,
    /// Syntax nested deeper than [`MAX_DEPTH`] was cut.
    pub(super) truncated: bool,
}

/// Parses and lowers one routes file. `whole_file`: the file is a body itself (a file
/// `draw` reads), not a file with a `routes.draw` block.
pub(super) fn lower(source: &[u8], whole_file: bool) -> Lowered {
    let result = ruby_prism::parse(source);
    let errors = result
        .errors()
        .map(|e| {
            (
                line_of(e.location().start_line()),
                bytes_to_string(e.message()),
            )
        })
        .collect();
    let mut lowerer = Lowerer {
        depth: 0,
        truncated: false,
    };
    let root = result.node();
    let mut body = Vec::new();
    let mut constants = Vec::new();
    if let Some(program) = root.as_program_node() {
        let top = program.statements();
        if whole_file {
            body = lowerer.statements(&top.as_node());
        } else {
            let mut draws = Vec::new();
            lowerer.find_draws(&top.as_node(), &mut draws, &mut constants);
            if draws.is_empty() {
                body = lowerer.statements(&top.as_node());
            } else {
                for draw in draws {
                    body.extend(draw);
                }
            }
        }
    }
    Lowered {
        body,
        constants,
        errors,
        truncated: lowerer.truncated,
    }
}

struct Lowerer {
    depth: usize,
    truncated: bool,
}

fn line_of(line: i32) -> u32 {
    u32::try_from(line).unwrap_or(1).max(1)
}

impl Lowerer {
    fn enter(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            self.truncated = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn line(node: &Node<'_>) -> u32 {
        line_of(node.location().start_line())
    }

    fn text(&self, node: &Node<'_>, max: usize) -> String {
        let loc = node.location();
        let bytes = loc.as_slice();
        let mut text = bytes_to_string(bytes.get(..max.min(bytes.len())).unwrap_or_default());
        if bytes.len() > max {
            // Cut at a character boundary.
            while text.pop().is_some_and(|c| c == char::REPLACEMENT_CHARACTER) {}
            text.push_str("...");
        }
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Finds `X.routes.draw do ... end` blocks at the top of the file (also inside
    /// `if`/`begin`/`module` bodies) and constant assignments beside them.
    fn find_draws(
        &mut self,
        node: &Node<'_>,
        draws: &mut Vec<Vec<Stmt>>,
        constants: &mut Vec<(String, Expr)>,
    ) {
        if !self.enter() {
            return;
        }
        if let Some(stmts) = node.as_statements_node() {
            for stmt in &stmts.body() {
                self.find_draws(&stmt, draws, constants);
            }
        } else if let Some(call) = node.as_call_node() {
            let receiver_ends_in_routes = call.receiver().is_some_and(|r| {
                r.as_call_node()
                    .is_some_and(|rc| rc.name().as_slice() == b"routes")
            });
            if call.name().as_slice() == b"draw" && receiver_ends_in_routes {
                if let Some(block) = call.block().and_then(|b| b.as_block_node()) {
                    draws.push(
                        block
                            .body()
                            .map(|b| self.statements(&b))
                            .unwrap_or_default(),
                    );
                }
            }
        } else if let Some(write) = node.as_constant_write_node() {
            let value = self.expr(&write.value());
            constants.push((bytes_to_string(write.name().as_slice()), value));
        } else if let Some(n) = node.as_if_node() {
            if let Some(s) = n.statements() {
                self.find_draws(&s.as_node(), draws, constants);
            }
            if let Some(s) = n.subsequent() {
                self.find_draws(&s, draws, constants);
            }
        } else if let Some(n) = node.as_unless_node() {
            if let Some(s) = n.statements() {
                self.find_draws(&s.as_node(), draws, constants);
            }
        } else if let Some(n) = node.as_else_node() {
            if let Some(s) = n.statements() {
                self.find_draws(&s.as_node(), draws, constants);
            }
        } else if let Some(n) = node.as_begin_node() {
            if let Some(s) = n.statements() {
                self.find_draws(&s.as_node(), draws, constants);
            }
        } else if let Some(n) = node.as_module_node() {
            if let Some(b) = n.body() {
                self.find_draws(&b, draws, constants);
            }
        } else if let Some(n) = node.as_parentheses_node() {
            if let Some(b) = n.body() {
                self.find_draws(&b, draws, constants);
            }
        }
        self.leave();
    }

    /// A body: a statements node or one statement.
    fn statements(&mut self, node: &Node<'_>) -> Vec<Stmt> {
        let mut out = Vec::new();
        if !self.enter() {
            return out;
        }
        self.push_statements(node, &mut out);
        self.leave();
        out
    }

    fn push_statements(&mut self, node: &Node<'_>, out: &mut Vec<Stmt>) {
        if let Some(stmts) = node.as_statements_node() {
            for stmt in &stmts.body() {
                self.push_statement(&stmt, out);
            }
        } else {
            self.push_statement(node, out);
        }
    }

    fn push_statement(&mut self, node: &Node<'_>, out: &mut Vec<Stmt>) {
        if !self.enter() {
            return;
        }
        let line = Self::line(node);
        if let Some(call) = node.as_call_node() {
            out.push(Stmt::Call(self.call(&call, line)));
        } else if let Some(n) = node.as_if_node() {
            let mut branches = vec![n
                .statements()
                .map(|s| self.statements(&s.as_node()))
                .unwrap_or_default()];
            if let Some(s) = n.subsequent() {
                branches.push(self.statements(&s));
            }
            out.push(Stmt::Branches { line, branches });
        } else if let Some(n) = node.as_unless_node() {
            let mut branches = vec![n
                .statements()
                .map(|s| self.statements(&s.as_node()))
                .unwrap_or_default()];
            if let Some(e) = n.else_clause() {
                branches.push(self.statements(&e.as_node()));
            }
            out.push(Stmt::Branches { line, branches });
        } else if let Some(n) = node.as_else_node() {
            if let Some(s) = n.statements() {
                self.push_statements(&s.as_node(), out);
            }
        } else if let Some(n) = node.as_case_node() {
            let mut branches: Vec<Vec<Stmt>> = n
                .conditions()
                .iter()
                .filter_map(|w| w.as_when_node())
                .map(|w| {
                    w.statements()
                        .map(|s| self.statements(&s.as_node()))
                        .unwrap_or_default()
                })
                .collect();
            if let Some(e) = n.else_clause() {
                branches.push(self.statements(&e.as_node()));
            }
            out.push(Stmt::Branches { line, branches });
        } else if let Some(n) = node.as_begin_node() {
            // `begin ... rescue ... end`: the protected body; handlers make no routes.
            if let Some(s) = n.statements() {
                self.push_statements(&s.as_node(), out);
            }
        } else if let Some(n) = node.as_parentheses_node() {
            if let Some(b) = n.body() {
                self.push_statements(&b, out);
            }
        } else if let Some(n) = node.as_local_variable_write_node() {
            let value = self.expr(&n.value());
            out.push(Stmt::Assign {
                line,
                name: bytes_to_string(n.name().as_slice()),
                value,
            });
        } else if let Some(n) = node.as_constant_write_node() {
            let value = self.expr(&n.value());
            out.push(Stmt::Assign {
                line,
                name: bytes_to_string(n.name().as_slice()),
                value,
            });
        } else {
            let what = describe(node);
            // Comments-only and literal statements make nothing and say nothing.
            if !what.is_empty() {
                out.push(Stmt::Other { line, what });
            }
        }
        self.leave();
    }

    fn call(&mut self, call: &ruby_prism::CallNode<'_>, line: u32) -> Call {
        let name = bytes_to_string(call.name().as_slice());
        let receiver = match call.receiver() {
            None => Receiver::Implicit,
            Some(r) if r.as_self_node().is_some() => Receiver::Implicit,
            Some(r) => {
                if let Some(v) = r.as_local_variable_read_node() {
                    Receiver::Var(bytes_to_string(v.name().as_slice()))
                } else if let Some(a) = r.as_array_node() {
                    Receiver::Array(a.elements().iter().map(|e| self.expr(&e)).collect())
                } else if r.as_constant_read_node().is_some() {
                    // `NAMES.each do |n|`: a constant is looked up like a variable.
                    Receiver::Var(const_path_text(&r).0)
                } else {
                    Receiver::Other(self.text(&r, 60))
                }
            }
        };
        let args = call
            .arguments()
            .map(|a| a.arguments().iter().map(|e| self.expr(&e)).collect())
            .unwrap_or_default();
        let block = call.block().and_then(|b| b.as_block_node()).map(|b| {
            let params = b
                .parameters()
                .and_then(|p| p.as_block_parameters_node())
                .and_then(|p| p.parameters())
                .map(|p| {
                    p.requireds()
                        .iter()
                        .map(|r| {
                            r.as_required_parameter_node()
                                .map(|r| bytes_to_string(r.name().as_slice()))
                                .unwrap_or_default()
                        })
                        .collect()
                })
                .unwrap_or_default();
            let body = b.body().map(|s| self.statements(&s)).unwrap_or_default();
            Rc::new(Block { params, body })
        });
        Call {
            receiver,
            name,
            args,
            block,
            line,
        }
    }

    fn expr(&mut self, node: &Node<'_>) -> Expr {
        if !self.enter() {
            return Expr::Other("syntax nested too deeply");
        }
        let out = self.expr_inner(node);
        self.leave();
        out
    }

    fn expr_inner(&mut self, node: &Node<'_>) -> Expr {
        if let Some(s) = node.as_symbol_node() {
            return Expr::Sym(bytes_to_string(s.unescaped()));
        }
        if let Some(s) = node.as_string_node() {
            return Expr::Str(bytes_to_string(s.unescaped()));
        }
        if let Some(s) = node.as_interpolated_string_node() {
            return self.interpolated(s.parts().iter());
        }
        if let Some(s) = node.as_interpolated_symbol_node() {
            return match self.interpolated(s.parts().iter()) {
                Expr::Str(text) => Expr::Sym(text),
                other => other,
            };
        }
        if let Some(a) = node.as_array_node() {
            return Expr::Array(a.elements().iter().map(|e| self.expr(&e)).collect());
        }
        if let Some(h) = node.as_keyword_hash_node() {
            return self.hash(h.elements().iter());
        }
        if let Some(h) = node.as_hash_node() {
            return self.hash(h.elements().iter());
        }
        if node.as_nil_node().is_some() {
            return Expr::Nil;
        }
        if node.as_true_node().is_some() {
            return Expr::True;
        }
        if node.as_false_node().is_some() {
            return Expr::False;
        }
        if node.as_regular_expression_node().is_some()
            || node.as_interpolated_regular_expression_node().is_some()
        {
            return Expr::Regex;
        }
        if node.as_lambda_node().is_some() {
            return Expr::Lambda;
        }
        if let Some(v) = node.as_local_variable_read_node() {
            return Expr::Var(bytes_to_string(v.name().as_slice()));
        }
        if node.as_constant_read_node().is_some() || node.as_constant_path_node().is_some() {
            let (path, _) = const_path_text(node);
            return if path.is_empty() {
                Expr::Other("a constant")
            } else {
                Expr::Const(path)
            };
        }
        if let Some(c) = node.as_call_node() {
            let name = bytes_to_string(c.name().as_slice());
            if name == "lambda" || name == "proc" {
                return Expr::Lambda;
            }
            return Expr::Call {
                name,
                receiver: c.receiver().is_some(),
            };
        }
        if let Some(p) = node.as_parentheses_node() {
            if let Some(body) = p.body() {
                if let Some(stmts) = body.as_statements_node() {
                    let items: Vec<Node<'_>> = stmts.body().iter().collect();
                    if let [only] = items.as_slice() {
                        return self.expr(only);
                    }
                } else {
                    return self.expr(&body);
                }
            }
            return Expr::Other("an expression");
        }
        Expr::Other(describe_expr(node))
    }

    fn interpolated<'pr>(&mut self, parts: impl Iterator<Item = Node<'pr>>) -> Expr {
        let mut pieces = Vec::new();
        for part in parts {
            if let Some(s) = part.as_string_node() {
                pieces.push(Piece::Lit(bytes_to_string(s.unescaped())));
            } else if let Some(e) = part.as_embedded_statements_node() {
                let single = e.statements().and_then(|s| {
                    let items: Vec<Node<'_>> = s.body().iter().collect();
                    match items.as_slice() {
                        [only] => Some(self.expr(only)),
                        _ => None,
                    }
                });
                pieces.push(match single {
                    Some(Expr::Var(name)) => Piece::Var(name),
                    Some(Expr::Str(text) | Expr::Sym(text)) => Piece::Lit(text),
                    _ => Piece::Other,
                });
            } else {
                pieces.push(Piece::Other);
            }
        }
        if pieces.iter().all(|p| matches!(p, Piece::Lit(_))) {
            let text = pieces
                .iter()
                .map(|p| match p {
                    Piece::Lit(t) => t.as_str(),
                    _ => "",
                })
                .collect();
            return Expr::Str(text);
        }
        Expr::Interp(pieces)
    }

    fn hash<'pr>(&mut self, elements: impl Iterator<Item = Node<'pr>>) -> Expr {
        let mut pairs = Vec::new();
        for element in elements {
            if let Some(assoc) = element.as_assoc_node() {
                let key = self.expr(&assoc.key());
                let value = self.expr(&assoc.value());
                pairs.push((key, value));
            } else {
                // `**options`: keys unknown.
                pairs.push((Expr::Other("a double splat"), Expr::Other("a double splat")));
            }
        }
        Expr::Hash(pairs)
    }
}

/// What a statement the mapper does not run is, or "" for one that makes nothing.
fn describe(node: &Node<'_>) -> &'static str {
    match node {
        Node::StringNode { .. }
        | Node::SymbolNode { .. }
        | Node::IntegerNode { .. }
        | Node::NilNode { .. }
        | Node::TrueNode { .. }
        | Node::FalseNode { .. }
        | Node::ErrorRecoveryNode { .. } => "",
        Node::DefNode { .. } => "a method definition",
        Node::ClassNode { .. } | Node::ModuleNode { .. } => "a class or module",
        Node::WhileNode { .. } | Node::UntilNode { .. } | Node::ForNode { .. } => "a loop",
        Node::InstanceVariableWriteNode { .. } | Node::InstanceVariableOrWriteNode { .. } => {
            "an instance variable assignment"
        }
        _ => "a statement",
    }
}

fn describe_expr(node: &Node<'_>) -> &'static str {
    match node {
        Node::IntegerNode { .. } | Node::FloatNode { .. } => "a number",
        Node::InstanceVariableReadNode { .. } => "an instance variable",
        Node::SplatNode { .. } => "a splat",
        Node::IfNode { .. } | Node::UnlessNode { .. } => "a conditional",
        Node::ErrorRecoveryNode { .. } => "broken syntax",
        _ => "an expression",
    }
}
