//! Decisions inside blocks, and `&.` as a statement (issue: 19 % of deciding methods got
//! no characteristic, most of them deciding inside a block).
//!
//! - A block that runs once (`User.transaction do`, `with_lock`, `tap`, `content_tag(:span)
//!   do`, `Rails.cache.fetch(key) do`) or once per element (`each`, `find_each`, `map`,
//!   `times`) holds decisions of the method: its statements are walked where the call
//!   stands, followed by the rest of the method. For an iteration whose result is the
//!   method's result (`items.map do ... end` last), the call itself is the final statement.
//!   Reading "once per element" as "once" is a judgement (J17): a condition inside reads
//!   as "an element that ..." set up by one element in the collection.
//! - `respond_to do |format|` with formats that do different things is one enum on the
//!   request format (`html`, `json`, ...), each value with its format's response; a format
//!   without a block renders the action's template.
//! - `x&.y` as a statement or result is `x` present (→ `x.y`) or `nil` (→ nothing,
//!   `nil` as a result).
//!
//! Example: `User.transaction do; notify unless deleted_at?; destroy!; end` gives
//! `deleted_at` (presence) with the rest of the method under each value, as if the
//! statements were written without the block.

use crate::index::body::{Block, Call, If, Node};
use crate::yaml::Value;

use super::{statements, At, End, Walker};
use crate::analyze::iteration::{ITERATIONS, MAPPED_ELEMENT};
use crate::analyze::rules::Rule;

impl Walker<'_> {
    /// The statements to walk instead of `stmt` when it is a block call (or an assignment
    /// or `return` of one) whose block holds a decision: the block's statements, then what
    /// stands for the call's value. `None` for anything else.
    pub fn splice_block(&mut self, stmt: &Node, last: bool) -> Option<Vec<Node>> {
        let (call, wrap): (&Call, Option<&Node>) = match stmt {
            Node::Call(c) => (c, None),
            Node::Assign { value, .. }
            | Node::Return {
                value: Some(value), ..
            } => match value.as_ref() {
                Node::Call(c) => (c, Some(stmt)),
                _ => return None,
            },
            _ => return None,
        };
        let Some(block) = call
            .block
            .as_ref()
            .filter(|b| call.name != "respond_to" && walked(call) && decides(&b.body))
        else {
            return self.splice_nested(stmt, wrap.is_some(), last);
        };
        let iteration = ITERATIONS.contains(&call.name.as_str());
        let mut out = self.block_statements(call, block);
        let without_block = Node::Call(Box::new(Call {
            block: None,
            ..call.clone()
        }));
        match wrap {
            // `x = items.map do ... end`: the block, then `x = items.map`.
            Some(Node::Assign {
                target, op, line, ..
            }) => {
                if iteration {
                    out.push(Node::Assign {
                        target: target.clone(),
                        op: op.clone(),
                        value: Box::new(without_block),
                        line: *line,
                    });
                } else if let Some(value) = out.pop() {
                    // A block body with a `rescue` (`benchmark do find(id) rescue
                    // NotFound; head :not_found; return false end`): the protected value is
                    // assigned, the rescue stays a rescue.
                    out.push(assign_into(value, &|v| Node::Assign {
                        target: target.clone(),
                        op: op.clone(),
                        value: Box::new(v),
                        line: *line,
                    }));
                }
            }
            Some(Node::Return { line, .. }) => {
                let value = if iteration {
                    Some(without_block)
                } else {
                    out.pop()
                };
                out.push(Node::Return {
                    value: value.map(Box::new),
                    line: *line,
                });
            }
            _ if iteration && last => out.push(without_block),
            _ => {}
        }
        Some(out)
    }

    /// The statements of a block call's block, walked where the call stands. A short block
    /// parameter is renamed after what it holds: `users.find_each do |u|` reads as one of
    /// the collection (`user`), `Moderation.create do |m|` as the record being built
    /// (`moderation`).
    fn block_statements(&mut self, call: &Call, block: &Block) -> Vec<Node> {
        let iteration = ITERATIONS.contains(&call.name.as_str());
        if iteration {
            self.apply(Rule::BlockRunsOnce, Some(&format!("`{}`", call.name)));
        }
        let mut out = statements(&block.body);
        // A `map` block's last value is the element the method keeps: said as what it
        // sets (`with each element mapped to 1`), so the two sides of a
        // condition inside read apart.
        if matches!(
            call.name.as_str(),
            "map" | "map!" | "collect" | "flat_map" | "filter_map"
        ) {
            if let Some(last) = out.pop() {
                let keeps = matches!(last, Node::If(_) | Node::Case(_))
                    || super::is_plain_value(&last)
                    || matches!(last, Node::Call(_) | Node::Lvar(_));
                let line = last.line().unwrap_or(call.line);
                out.push(if keeps && !matches!(last, Node::Return { .. }) {
                    Node::Assign {
                        target: crate::index::body::Target::Lvar(MAPPED_ELEMENT.to_string()),
                        op: crate::index::body::AssignOp::Set,
                        value: Box::new(last),
                        line,
                    }
                } else {
                    last
                });
            }
        }
        let builds = matches!(call.recv.as_ref(), Some(Node::Const { .. }))
            && BUILDERS.contains(&call.name.as_str());
        if let (true, Some(param), Some(recv)) =
            (iteration || builds, block.params.first(), &call.recv)
        {
            if param.chars().count() <= 2 {
                let noun = crate::analyze::phrase::noun(recv);
                let one = if builds { Some(noun) } else { singular(&noun) };
                if let Some(one) = one {
                    let renamed = Node::Lvar(one);
                    return out
                        .iter()
                        .map(|s| rename_lvar(s, param, &renamed))
                        .collect();
                }
            }
        }
        out
    }

    /// A deciding block call inside a statement's value, as a receiver or an argument
    /// (`@expand ||= List.new(locales.each_with_object([]) do ... end.uniq)`): the block's
    /// statements, then the statement with the block taken off.
    fn splice_nested(&mut self, stmt: &Node, wrapped: bool, last: bool) -> Option<Vec<Node>> {
        let value = match stmt {
            Node::Assign { value, .. }
            | Node::Return {
                value: Some(value), ..
            } if wrapped => value.as_ref(),
            Node::Call(_) => stmt,
            _ => return None,
        };
        // A `map` whose result the method returns combined (`items.map { ... }.join`):
        // its condition builds the method's value, a case of the method.
        let call = nested_block(value, true, last && !wrapped)?;
        let block = call.block.as_ref()?;
        let mut out = self.block_statements(call, block);
        let stripped = without_block(value, call);
        out.push(match stmt {
            Node::Assign {
                target, op, line, ..
            } => Node::Assign {
                target: target.clone(),
                op: op.clone(),
                value: Box::new(stripped),
                line: *line,
            },
            Node::Return { line, .. } => Node::Return {
                value: Some(Box::new(stripped)),
                line: *line,
            },
            _ => stripped,
        });
        Some(out)
    }

    /// `respond_to do |format| format.html { ... }; format.json { ... } end` whose formats
    /// do different things: one enum on the request format.
    pub fn respond_to(&mut self, stmt: &Node, rest: &[Node], at: At, tail: bool) -> Option<End> {
        let Node::Call(call) = stmt else { return None };
        if call.name != "respond_to" || call.recv.is_some() {
            return None;
        }
        let Block { params, body } = call.block.as_ref()?;
        let var = params.first()?;
        // Rails' scaffold: `respond_to do |format| if @article.save ... else ... end end`.
        // The condition decides first; each branch answers per format. The block is
        // distributed over the branches (statements before the condition that do not
        // answer stay before it) and walked as that conditional.
        if let Some(distributed) = distribute(call, var, params, body) {
            let mut all = distributed;
            all.extend_from_slice(rest);
            return Some(self.seq(&all, at, tail));
        }
        let mut arms: Vec<(Vec<(Value, String)>, Node)> = Vec::new();
        let mut any_body = false;
        let mut lines: Option<(u32, u32)> = None;
        for s in statements(body) {
            // `format.turbo_stream if params[:toggle] == "true"`: the format is offered
            // only when the condition holds.
            let (f, offered_if) = match &s {
                Node::Call(f) => (f.clone(), None),
                Node::If(i) if i.els.is_none() && !i.ternary => {
                    match statements(&i.then).as_slice() {
                        [Node::Call(f)] => (f.clone(), Some(i)),
                        _ => continue,
                    }
                }
                _ => continue,
            };
            if !matches!(&f.recv, Some(Node::Lvar(v)) if v == var) {
                continue;
            }
            lines = Some(lines.map_or((f.line, f.line), |(lo, hi)| {
                (lo.min(f.line), hi.max(f.line))
            }));
            let branch = match &f.block {
                Some(b) if !statements(&b.body).is_empty() => {
                    any_body = true;
                    // `format.js { @users = users_for_new_watcher }`: data one format's
                    // view shows; the helper's own choices are not this action's cases.
                    for s in statements(&b.body) {
                        if let Node::Assign {
                            target: crate::index::body::Target::Ivar(_),
                            value,
                            ..
                        } = &s
                        {
                            if let Node::Call(c) = value.as_ref() {
                                if c.recv.is_none() {
                                    self.inlined.insert(c.name.clone());
                                }
                            }
                        }
                    }
                    b.body.clone()
                }
                // `format.html` renders the action's template in that format.
                _ => Node::Call(Box::new(Call {
                    recv: None,
                    name: "render".to_string(),
                    args: vec![Node::Sym(self.cx.method.name.clone())],
                    block: None,
                    safe_nav: false,
                    line: f.line,
                })),
            };
            // Not offered, the format is one the action does not know: Rails raises
            // `ActionController::UnknownFormat` for a request that accepts only it.
            let branch = match offered_if {
                Some(i) => Node::If(Box::new(If {
                    then: branch,
                    els: Some(Node::Call(Box::new(Call {
                        recv: None,
                        name: "raise".to_string(),
                        args: vec![Node::Const {
                            path: "ActionController::UnknownFormat".to_string(),
                            absolute: false,
                        }],
                        block: None,
                        safe_nav: false,
                        line: f.line,
                    }))),
                    modifier: false,
                    ..(**i).clone()
                })),
                None => branch,
            };
            if arms
                .iter()
                .any(|(v, _)| v.first().map(|(v, _)| v.as_str()) == Some(Some(&f.name)))
            {
                continue;
            }
            arms.push((
                vec![(crate::yaml::symbol(&f.name), f.name.to_ascii_uppercase())],
                branch,
            ));
        }
        // Formats that do the same thing (`format.xml { render :show }; format.json {
        // render :show }`) are not a case to set up.
        let same = arms
            .windows(2)
            .all(|w| matches!(w, [(_, a), (_, b)] if a.render() == b.render()));
        if arms.len() < 2 || !any_body || same {
            return None;
        }
        let subject = Node::Call(Box::new(Call {
            recv: Some(Node::Call(Box::new(Call {
                recv: None,
                name: "request".to_string(),
                args: Vec::new(),
                block: None,
                safe_nav: false,
                line: call.line,
            }))),
            name: "format".to_string(),
            args: Vec::new(),
            block: None,
            safe_nav: false,
            line: call.line,
        }));
        let lines = lines.unwrap_or((call.line, call.line));
        Some(self.enum_arms_without_other(&subject, arms, lines, rest, at, tail))
    }

    /// `x&.y` as a statement: `if x then x.y end`; `x&.entry&.account` is
    /// `if x then x.entry.account end` (see [`safe_chain`]).
    pub fn safe_nav_statement(stmt: &Node) -> Option<Node> {
        let Node::Call(c) = stmt else { return None };
        if !c.safe_nav || c.block.is_some() {
            return None;
        }
        let (recv, plain) = safe_chain(stmt)?;
        Some(Node::If(Box::new(If {
            cond: recv,
            then: plain,
            els: None,
            unless: false,
            modifier: true,
            ternary: false,
            elsif: false,
            lines: (c.line, c.line),
            cond_line: c.line,
        })))
    }
}

/// The singular of a plural noun's last word (`users` → `user`, `entries` → `entry`),
/// as an identifier; `None` when it does not look plural.
fn singular(noun: &str) -> Option<String> {
    let last = noun.split_whitespace().last()?.to_ascii_lowercase();
    if !last.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let one = if let Some(stem) = last.strip_suffix("ies") {
        format!("{stem}y")
    } else if last.ends_with("sses") || last.ends_with("shes") || last.ends_with("ches") {
        last.trim_end_matches("es").to_string()
    } else if let Some(stem) = last.strip_suffix('s').filter(|s| !s.ends_with('s')) {
        stem.to_string()
    } else {
        return None;
    };
    Some(one)
}

fn rename_lvar(node: &Node, from: &str, to: &Node) -> Node {
    match node {
        Node::Lvar(n) if n == from => to.clone(),
        other => other.map_children(&mut |c| rename_lvar(c, from, to)),
    }
}

/// The first deciding block call nested in a call's receiver chain or arguments (`node`
/// itself when `top` is false). Blocks stored to run later (`lambda do`) are neither taken
/// nor looked into.
fn nested_block(node: &Node, top: bool, maps_count: bool) -> Option<&Call> {
    let Node::Call(c) = node else { return None };
    if deferred(c) {
        return None;
    }
    // A `map` inside an expression: a condition in its block chooses an element's value,
    // which the expression goes on to combine; the method's paths stay the same.
    let maps = matches!(
        c.name.as_str(),
        "map" | "map!" | "collect" | "flat_map" | "filter_map"
    );
    if !top
        && (!maps || maps_count)
        && walked(c)
        && c.block.as_ref().is_some_and(|b| decides(&b.body))
    {
        return Some(c);
    }
    // A counted `map` is one the value is made from (`items.map { ... }.join`), found
    // down the receiver chain only: one in an argument (`a + items.map { ... }.join`)
    // is a part of the value, not the value.
    let from_recv = c
        .recv
        .as_ref()
        .and_then(|n| nested_block(n, false, maps_count));
    from_recv.or_else(|| c.args.iter().find_map(|n| nested_block(n, false, false)))
}

/// `node` with the block of `target` (a call inside it, from [`nested_block`]) taken off.
fn without_block(node: &Node, target: &Call) -> Node {
    let Node::Call(c) = node else {
        return node.clone();
    };
    let found = std::ptr::eq(&**c, target);
    Node::Call(Box::new(Call {
        recv: match &c.recv {
            Some(r) if !found => Some(without_block(r, target)),
            other => other.clone(),
        },
        name: c.name.clone(),
        args: if found {
            c.args.clone()
        } else {
            c.args.iter().map(|a| without_block(a, target)).collect()
        },
        block: if found { None } else { c.block.clone() },
        safe_nav: c.safe_nav,
        line: c.line,
    }))
}

/// Calls whose block computes a key or an amount per element (`sort_by { |i| i.top? ? 0 :
/// 1 }`): a condition there orders, groups or counts the elements; it chooses no path of
/// the method, so the block is not walked as the method's.
const KEY_BLOCKS: &[&str] = &[
    "sort_by",
    "sort_by!",
    "sort",
    "min_by",
    "max_by",
    "minmax_by",
    "group_by",
    "index_by",
    "partition",
    "chunk_while",
    "slice_when",
    "uniq",
    "sum",
    "count",
    "tally_by",
];

/// Whether a call's block is walked as part of the method: not stored to run later, not
/// computing a key per element.
fn walked(call: &Call) -> bool {
    !deferred(call) && !KEY_BLOCKS.contains(&call.name.as_str())
}

/// A block that is stored to run later, not run by the call: `lambda do`, `proc`,
/// `Proc.new`, `define_method`, `Thread.new`, `Enumerator.new`, a `Hash.new` default, an
/// `at_exit` or signal handler, and anything handed to concurrent-ruby
/// (`Concurrent::ScheduledTask.new(delay) do`, `Concurrent::Promises.future do`): what the
/// block decides happens later, on another thread or another call, not in this method.
pub(super) fn deferred(call: &Call) -> bool {
    if matches!(
        call.name.as_str(),
        "lambda" | "proc" | "define_method" | "at_exit"
    ) {
        return true;
    }
    let Some(Node::Const { path, .. }) = &call.recv else {
        return call.name == "trap";
    };
    let path = path.trim_start_matches("::");
    path == "Concurrent"
        || path.starts_with("Concurrent::")
        || match call.name.as_str() {
            "new" => matches!(
                path,
                "Proc" | "Thread" | "Fiber" | "Ractor" | "Enumerator" | "Hash"
            ),
            "start" | "fork" => path == "Thread",
            "trap" => path == "Signal",
            "define_finalizer" => path == "ObjectSpace",
            _ => false,
        }
}

/// Whether a block body decides something the method's outcome depends on: a conditional,
/// a `case`, a `rescue`, a loop, a `&.` statement, or such a block inside it.
/// Class methods whose block gets the record they build.
const BUILDERS: &[&str] = &[
    "new",
    "create",
    "create!",
    "build",
    "find_or_create_by",
    "find_or_create_by!",
    "find_or_initialize_by",
    "create_or_find_by",
];

fn decides(body: &Node) -> bool {
    statements(body).iter().any(|s| match s {
        Node::If(_) | Node::Case(_) | Node::Loop { .. } => true,
        Node::Begin(b) => !b.rescues.is_empty() || decides(&b.body),
        Node::Call(c) => {
            c.safe_nav
                || super::writer_of_case(c).is_some()
                || (walked(c) && c.block.as_ref().is_some_and(|b| decides(&b.body)))
                || nested_block(s, true, false).is_some()
                || super::embedded::holds_conditional_value(s)
        }
        Node::Assign { value, .. } | Node::Return { value: Some(value), .. } => {
            matches!(value.as_ref(), Node::If(_) | Node::Case(_))
                || matches!(value.as_ref(), Node::Call(c) if walked(c) && c.block.as_ref().is_some_and(|b| decides(&b.body)))
                || nested_block(value, true, false).is_some()
                || super::embedded::holds_conditional_value(s)
        }
        other => super::embedded::holds_conditional_value(other),
    })
}

/// `respond_to do |format| pre; if c then A else B end end` as `pre; if c then
/// respond_to { A } else respond_to { B } end`, when the conditional is the block's last
/// statement, its branches answer per format and nothing before it does; `None`
/// otherwise.
fn distribute(call: &Call, var: &str, params: &[String], body: &Node) -> Option<Vec<Node>> {
    let stmts = statements(body);
    let (last, pre) = stmts.split_last()?;
    let Node::If(cond) = last else { return None };
    let answers = |n: &Node| mentions_lvar(n, var);
    if pre.iter().any(answers) || mentions_lvar(&cond.cond, var) {
        return None;
    }
    if !answers(&cond.then) && !cond.els.as_ref().is_some_and(answers) {
        return None;
    }
    let wrap = |branch: &Node| {
        Node::Call(Box::new(Call {
            recv: None,
            name: "respond_to".to_string(),
            args: call.args.clone(),
            block: Some(Block {
                params: params.to_vec(),
                body: branch.clone(),
            }),
            safe_nav: false,
            line: call.line,
        }))
    };
    let distributed = Node::If(Box::new(crate::index::body::If {
        then: wrap(&cond.then),
        els: cond.els.as_ref().map(wrap),
        ..(**cond).clone()
    }));
    let mut out: Vec<Node> = pre.to_vec();
    out.push(distributed);
    Some(out)
}

/// Whether local `var` is read anywhere in `node`.
fn mentions_lvar(node: &Node, var: &str) -> bool {
    if matches!(node, Node::Lvar(v) if v == var) {
        return true;
    }
    let mut found = false;
    node.for_each_child(&mut |child| {
        if !found && mentions_lvar(child, var) {
            found = true;
        }
    });
    found
}

/// `x&.entry&.account`: the first receiver guarded, and the chain without its `&.`s. The
/// later links read what the first one holds (a transaction's entry): one absence a spec
/// sets up, not one per link. `None` when `node` is no safe navigation.
pub fn safe_chain(node: &Node) -> Option<(Node, Node)> {
    let Node::Call(c) = node else { return None };
    if !c.safe_nav {
        return None;
    }
    let recv = c.recv.as_ref()?;
    let (root, plain_recv) = match safe_chain(recv) {
        Some((root, plain)) if matches!(recv, Node::Call(r) if r.block.is_none()) => (root, plain),
        _ => (recv.clone(), recv.clone()),
    };
    let plain = Node::Call(Box::new(Call {
        safe_nav: false,
        recv: Some(plain_recv),
        ..(**c).clone()
    }));
    Some((root, plain))
}

/// `wrap` applied to `value`, or, when `value` is a `begin ... rescue` (a block body with a
/// rescue clause), to the last statement of its protected body.
fn assign_into(value: Node, wrap: &dyn Fn(Node) -> Node) -> Node {
    match value {
        Node::Begin(mut b) if !b.rescues.is_empty() => {
            let mut body = statements(&b.body);
            if let Some(last) = body.pop() {
                body.push(wrap(last));
            }
            b.body = Node::Seq(body);
            Node::Begin(b)
        }
        other => wrap(other),
    }
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn a_condition_inside_a_transaction_is_the_methods() {
        let m = analyze_one(
            "class User\n  def ban!(banner)\n    User.transaction do\n      BanMailer.notify(self, banner).deliver_now unless deleted_at?\n      delete!\n    end\n    true\n  end\nend\n",
            "ban!",
        );
        assert_eq!(
            flat(&m),
            vec!["1 deleted_at [boolean] true:deleted -> returns true | false:NOT deleted -> sends notify email"]
        );
        assert_eq!(m.characteristics[0].source_line, "4");
    }

    #[test]
    fn a_conditional_value_inside_a_builder_block_is_the_methods() {
        let m = analyze_one(
            "class Tag < ApplicationRecord\n  def log_modifications\n    Moderation.create do |m|\n      m.action = if is_new? then \"Created new tag\" else \"Updating tag\" end\n      m.moderator_user_id = edit_user_id\n    end\n  end\nend\n",
            "log_modifications",
        );
        assert_eq!(
            flat(&m),
            vec!["1 new [boolean] true:new -> sets the moderation action to \"Created new tag\" | false:NOT new -> sets the moderation action to \"Updating tag\""]
        );
        assert_eq!(m.characteristics[0].source_line, "4");
    }

    #[test]
    fn a_condition_per_element_is_read_as_one_element() {
        let m = analyze_one(
            "class NotifyJob\n  def deliver(users)\n    users.find_each do |u|\n      if u.email_mentions?\n        MentionMailer.mention(u).deliver_now\n      end\n    end\n  end\nend\n",
            "deliver",
        );
        assert_eq!(
            flat(&m),
            vec!["1 user_email_mentions [boolean] true:user email mentions -> sends mention email | false:NOT user email mentions -> goes through each of the users"]
        );
        assert!(
            m.notes.iter().any(|n| n.starts_with("J17")),
            "{:?}",
            m.notes
        );
    }

    #[test]
    fn respond_to_formats_that_differ_are_an_enum() {
        let m = analyze_one(
            "class StoriesController < ApplicationController\n  def index\n    respond_to do |format|\n      format.html { render action: \"index\" }\n      format.rss do\n        if @user\n          render action: \"stories\", layout: false\n        else\n          head :unauthorized\n        end\n      end\n      format.json\n    end\n  end\nend\n",
            "index",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 request_format [enum] html:HTML -> renders index template | rss:RSS | json:JSON -> renders index template",
                "2 user [presence] present:user -> renders stories template | nil:user => returns 401 status",
            ]
        );
    }

    #[test]
    fn a_format_offered_under_a_condition_is_asked_under_its_format() {
        // pet-rescue's toggle form: the turbo_stream answer exists only for the toggle;
        // any other turbo_stream-only request is a format the action does not know.
        let m = analyze_one(
            "class PetsController < ApplicationController\n  def update\n    if @pet.update(pet_params)\n      respond_to do |format|\n        format.html { redirect_to pet_path(@pet) }\n        format.turbo_stream if params[:pet][:toggle] == \"true\"\n      end\n    else\n      render :edit, status: :unprocessable_entity\n    end\n  end\nend\n",
            "update",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 3, "{plan:?}");
        assert!(plan[1].starts_with("2 request_format [enum] html:HTML -> redirects to pet path | turbo_stream:TURBO_STREAM"), "{plan:?}");
        assert!(plan[2].contains("-> renders update template"), "{plan:?}");
        assert!(
            plan[2].contains("=> raises ActionController::UnknownFormat"),
            "{plan:?}"
        );
        assert_eq!(m.characteristics[2].parent, Some(1));
    }

    #[test]
    fn a_rescue_inside_a_block_whose_value_is_assigned_is_walked() {
        let m = analyze_one(
            "class ProblemsController < ApplicationController\n  def show\n    result = benchmark(\"query time\") do\n      Problem.find(params[:id])\n    rescue Mongoid::Errors::DocumentNotFound\n      head :not_found\n      return false\n    end\n    render json: result\n  end\nend\n",
            "show",
        );
        assert_eq!(
            flat(&m),
            vec!["1 document_not_found [boolean] true:Mongoid::Errors::DocumentNotFound raised => returns 404 status | false:no error raised -> returns JSON response"]
        );
    }

    #[test]
    fn a_chain_of_safe_navigations_is_one_absence() {
        let m = analyze_one(
            "class Transfer < ApplicationRecord\n  def from_account\n    outflow_transaction&.entry&.account\n  end\n\n  def label\n    \"From #{outflow_transaction&.entry&.account&.name}\"\n  end\nend\n",
            "from_account",
        );
        assert_eq!(
            flat(&m),
            vec!["1 outflow_transaction [presence] present:outflow transaction present -> returns outflow transaction entry account | nil:outflow transaction missing => returns nil"]
        );
        let plan = flat(&analyze_one(
            "class Transfer < ApplicationRecord\n  def label\n    \"From \" + outflow_transaction&.entry&.account&.name.to_s\n  end\nend\n",
            "label",
        ));
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(
            plan[0].starts_with("1 outflow_transaction [presence]"),
            "{plan:?}"
        );
    }

    #[test]
    fn safe_navigation_statements_are_presence() {
        let m = analyze_one(
            "class Story\n  def update_cached_columns\n    merged_into_story&.update_cached_columns\n    update_column :hotness, 1\n  end\n\n  def category_name\n    category&.category\n  end\nend\n",
            "category_name",
        );
        assert_eq!(
            flat(&m),
            vec!["1 category [presence] present:category present -> returns category | nil:category missing => returns nil"]
        );
    }

    #[test]
    fn a_deciding_block_nested_in_a_memoized_value_is_walked() {
        let m = analyze_one(
            "class LocaleList < Array\n  def expand\n    @expand ||= LocaleList.new(reverse.each_with_object([]) do |locale, expanded|\n      expanded << locale if expanded.exclude?(locale)\n    end.uniq)\n  end\nend\n",
            "expand",
        );
        assert_eq!(
            flat(&m),
            vec!["1 expanded_exclude [boolean] true:expanded excluding locale -> adds to the expanded | false:NOT expanded excluding locale -> returns cached expand"]
        );
    }

    #[test]
    fn a_map_inside_an_expression_and_a_sort_key_choose_no_path() {
        let src = "class LocaleList < Array\n  def labels\n    names.join(\", \") + items.map { |i| i.admin? ? \"A\" : \"B\" }.join\n  end\n\n  def ranked\n    items.sort_by { |i| i.preferred? ? 0 : 1 }.first\n  end\nend\n";
        assert!(flat(&analyze_one(src, "labels")).is_empty());
        let ranked = analyze_one(src, "ranked");
        assert!(flat(&ranked).is_empty());
        assert_eq!(
            ranked.outcome.map(|o| o.description).as_deref(),
            Some("returns the first of the sorted items")
        );
    }

    #[test]
    fn a_condition_in_a_joined_map_builds_the_value() {
        let m = analyze_one(
            "module UsersHelper\n  def role_labels(users)\n    users.map { |u| u.admin? ? \"Admin\" : \"Member\" }.join(\", \")\n  end\n\n  def breadcrumb(items)\n    items.each_with_index.map { |item, i| i > 0 ? \" / #{item}\" : item }.join\n  end\nend\n",
            "role_labels",
        );
        assert_eq!(
            flat(&m),
            // The one-letter block parameter reads as what the list holds.
            vec!["1 user_admin [boolean] true:admin user -> returns the joined mapped users with each element mapped to \"Admin\" | false:NOT admin user -> returns the joined mapped users with each element mapped to \"Member\""]
        );
        let m = analyze_one(
            "module UsersHelper\n  def breadcrumb(items)\n    items.each_with_index.map { |item, i| i > 0 ? \" / #{item}\" : item }.join\n  end\nend\n",
            "breadcrumb",
        );
        assert_eq!(
            flat(&m),
            vec!["1 i [range] above:above 0 -> returns the joined mapped items with each element mapped to the formatted text | at_most:at most 0 -> returns the joined mapped items with each element mapped to item"]
        );
    }

    #[test]
    fn a_block_stored_to_run_later_decides_nothing_now() {
        // A tracker that schedules its own refresh: the scheduled block's guard runs on
        // another thread, later; the method only schedules it.
        for (head, tail) in [
            (
                "Concurrent::ScheduledTask.new(5, executor: @executor) do",
                "end.execute",
            ),
            ("Concurrent::Promises.future do", "end"),
            ("Thread.new do", "end"),
            ("at_exit do", "end"),
        ] {
            let src = format!("class Tracker\n  def schedule\n    @task = {head}\n      next unless @locks.positive?\n\n      renew\n    {tail}\n    true\n  end\nend\n");
            let m = analyze_one(&src, "schedule");
            assert!(m.characteristics.is_empty(), "{head}: {:?}", flat(&m));
        }
        // A block the call runs now keeps its question.
        let src = "class Tracker\n  def schedule\n    @tasks.each do |task|\n      next unless task.positive?\n\n      task.renew\n    end\n    true\n  end\nend\n";
        let m = analyze_one(src, "schedule");
        assert!(!m.characteristics.is_empty(), "{:?}", flat(&m));
    }
}
