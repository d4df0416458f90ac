//! Conditionals inside expressions: a ternary in an argument (`{key => (ids == :all ? '1'
//! : '0')}`), an `if` used as a value (`l(if overdue then :late else :due end)`), `a&.b`
//! inside an expression (`@page ||= project.wiki&.find_page(title)`), and a value with a
//! fallback (`url = validate_back_url(back_url) || fallback_url`).
//!
//! The statement is split into one copy per branch (`if ids == :all then h = {key => '1'}
//! else h = {key => '0'} end`), so the condition becomes a characteristic like any other
//! and each value is described by what its copy does. A fallback that is an empty literal
//! (`params || {}`, `items || []`, `max || 0`) is a case too: the missing value happens
//! (an empty group, an optional key) and the method answers it on purpose; only `|| nil`
//! changes nothing. A statement with more than [`MAX_SPLITS`] such conditionals is left as
//! it is (its copies would multiply).
//!
//! Example: `@title = options[:title] || Setting.app_title` gives `title option`
//! (presence): present → the title option is used, missing → the app title.

use crate::index::body::{Call, If, Node};

use super::Walker;

/// The most conditionals inside one statement that are split out.
pub const MAX_SPLITS: usize = 3;

impl Walker<'_> {
    /// The statement as a conditional over its first embedded condition, or `None` when
    /// it holds none (or too many).
    pub fn lift_embedded(&mut self, stmt: &Node) -> Option<Node> {
        if matches!(
            stmt,
            Node::If(_) | Node::Case(_) | Node::Begin(_) | Node::Loop { .. } | Node::Seq(_)
        ) {
            return None;
        }
        let mut found = Vec::new();
        collect(stmt, true, &mut found);
        if found.is_empty() || found.len() > MAX_SPLITS {
            return None;
        }
        if found.len() > 1 {
            if let Some(hoisted) = hoist(stmt, &found) {
                return Some(hoisted);
            }
        }
        let first = found.first()?;
        let line = first
            .span()
            .or_else(|| stmt.span())
            .map_or(self.cx.method.line_range.0, |(l, _)| l);
        let (cond, then, els) = branches(first, line)?;
        // `max: grid.values.max || 0`: the fallback names itself (`with max 0`), the value
        // it stands in for by what it reads (`with max largest grid values`).
        let pair = match (value_words(&then), value_words(&els)) {
            (Some(t), Some(e)) => Some((t, e)),
            (None, Some(e)) => read_words(&then).map(|t| (t, e)),
            _ => None,
        };
        if let Some((then_words, else_words)) = pair {
            let key = key_of(stmt, first).map(|k| crate::analyze::phrase::noun(&k));
            // `end_date: end_date`: the key once.
            let named = |words: String| match &key {
                Some(k) if !k.is_empty() && !words.starts_with(k.as_str()) => {
                    format!("{k} {words}")
                }
                _ => words,
            };
            self.lifted
                .push((line, cond.clone(), named(then_words), named(else_words)));
        }
        let then_stmt = substitute(stmt, &then);
        let else_stmt = substitute(stmt, &els);
        Some(Node::If(Box::new(If::ternary(
            cond, then_stmt, else_stmt, line,
        ))))
    }
}

/// Whether the statement holds an `if` or ternary used as a value (`m.action = if new?
/// then ... end`), which [`Walker::lift_embedded`] splits out: what makes a block that holds
/// it decide (`Moderation.create do |m| ... end`).
pub fn holds_conditional_value(stmt: &Node) -> bool {
    if matches!(
        stmt,
        Node::If(_) | Node::Case(_) | Node::Begin(_) | Node::Loop { .. } | Node::Seq(_)
    ) {
        return false;
    }
    let mut found = Vec::new();
    collect(stmt, true, &mut found);
    found.len() <= MAX_SPLITS && found.iter().any(|n| matches!(n, Node::If(_)))
}

/// A value that is true or false rather than a value with a fallback.
fn boolean_ish(node: &Node) -> bool {
    match node {
        Node::True | Node::False | Node::Not(_) | Node::And(..) => true,
        Node::Or(a, b, _) => boolean_ish(a) && boolean_ish(b),
        Node::Call(c) => {
            c.name.ends_with('?')
                || matches!(
                    c.name.as_str(),
                    ">=" | ">" | "<=" | "<" | "==" | "!=" | "=~"
                )
        }
        _ => false,
    }
}

/// `!current_user || current_user.captcha_required?`: tests combined into a flag (every
/// operand a test), not a value with a fallback.
fn is_flag(node: &Node) -> bool {
    matches!(node, Node::Or(..) | Node::And(..)) && super::boolean_ish(node)
}

/// `a || b` whose last operand is a test: a chain of tests, not values with a fallback.
fn boolean_ish_or(node: &Node) -> bool {
    matches!(node, Node::Or(_, b, _) if boolean_ish(b))
}

/// Whether `node` (not the statement itself) is a conditional to split out.
fn is_candidate(node: &Node) -> bool {
    match node {
        Node::If(_) => true,
        Node::Call(c) => c.safe_nav && c.block.is_none() && c.recv.is_some(),
        // `x || nil` is `x`.
        Node::Or(a, b, _) => !boolean_ish(a) && !matches!(b.as_ref(), Node::Nil),
        _ => false,
    }
}

/// A branch's value in a few words (`0`, `2 minutes`, `default`), when it is short
/// enough to tell two leaves apart.
fn value_words(node: &Node) -> Option<String> {
    const MAX: usize = 40;
    // Values a reader sets up or expects as they are: literals, constants, variables,
    // durations (`2.minutes`); a call's words say what is called, not what differs.
    let plain = match node {
        Node::Int(_)
        | Node::Float(_)
        | Node::Str(_)
        | Node::Sym(_)
        | Node::True
        | Node::False
        | Node::Nil
        | Node::Const { .. }
        | Node::Lvar(_)
        | Node::Ivar(_) => true,
        Node::Call(c) => {
            matches!(c.recv, Some(Node::Int(_) | Node::Float(_)))
                && c.args.is_empty()
                && c.block.is_none()
        }
        _ => false,
    };
    if !plain {
        return None;
    }
    let words = crate::analyze::phrase::noun(node);
    (!words.is_empty() && words.len() <= MAX).then_some(words)
}

/// Several conditionals inside one statement (`{start_date: start_date || "1000-01-01",
/// end_date: end_date || "3000-01-01"}`, `(first || 0) - (second || 0)`) decide
/// independently: each is set apart in a local named after its key or its variable, in
/// order, before the statement, so each is a characteristic of its own beside the others
/// (the rest carries on after each, J15) instead of the later ones repeated under every
/// value of the first. `None` when one has no name to give it.
fn hoist(stmt: &Node, found: &[Node]) -> Option<Node> {
    let mut names: Vec<String> = Vec::new();
    for cand in found {
        let name = match (key_of(stmt, cand), cand) {
            (Some(Node::Sym(k) | Node::Str(k)), _) => k,
            (_, Node::Or(a, _, _)) => match a.as_ref() {
                Node::Lvar(v) | Node::Ivar(v) => v.clone(),
                _ => return None,
            },
            _ => return None,
        };
        if name.is_empty() || names.contains(&name) {
            return None;
        }
        names.push(name);
    }
    let mut out = Vec::with_capacity(found.len() + 1);
    let mut rewritten = stmt.clone();
    for (cand, name) in found.iter().zip(&names) {
        let line = cand.span().or_else(|| stmt.span()).map_or(0, |(l, _)| l);
        out.push(Node::Assign {
            target: crate::index::body::Target::Lvar(name.clone()),
            op: crate::index::body::AssignOp::Set,
            value: Box::new(cand.clone()),
            line,
        });
        rewritten = substitute(&rewritten, &Node::Lvar(name.clone()));
    }
    out.push(rewritten);
    Some(Node::Seq(out))
}

/// A read (`grid.values.max`) in a few words, to tell it from a fallback.
fn read_words(node: &Node) -> Option<String> {
    const MAX: usize = 40;
    let Node::Call(c) = node else {
        return None;
    };
    if !c.args.is_empty() || c.block.is_some() {
        return None;
    }
    let words = crate::analyze::phrase::noun(node);
    (!words.is_empty() && words.len() <= MAX).then_some(words)
}

/// The key of the hash pair (or keyword argument) whose value is `target` in `node`.
fn key_of(node: &Node, target: &Node) -> Option<Node> {
    let mut found = None;
    find_key(node, target, &mut found, 0);
    found
}

fn find_key(node: &Node, target: &Node, found: &mut Option<Node>, depth: usize) {
    if found.is_some() || depth > 32 {
        return;
    }
    if let Node::Hash(pairs) = node {
        for (k, v) in pairs {
            if v == target {
                *found = Some(k.clone());
                return;
            }
        }
    }
    if let Node::Call(c) = node {
        if let Some(r) = &c.recv {
            find_key(r, target, found, depth + 1);
        }
        for a in &c.args {
            find_key(a, target, found, depth + 1);
        }
        return;
    }
    node.for_each_child(&mut |child| find_key(child, target, found, depth + 1));
}

/// The embedded conditionals of `node` in source order, not looking inside one once found,
/// nor inside blocks (`splice_block` walks those).
fn collect(node: &Node, root: bool, out: &mut Vec<Node>) {
    if !root && is_candidate(node) {
        out.push(node.clone());
        return;
    }
    if let (true, Node::Or(a, b, _)) = (root, node) {
        if !boolean_ish(b) {
            // `params[:locale] || session[:locale] || default`: sources in order.
            node.for_each_child(&mut |child| collect(child, false, out));
            return;
        }
        // `resolved || notices.include?(0) || ...` as the statement: one test (the walk
        // reads the chain whole), whose `resolved || ...` is no fallback of its own.
        collect(a, matches!(a.as_ref(), Node::Or(..)), out);
        collect(b, matches!(b.as_ref(), Node::Or(..)), out);
        return;
    }
    // `captcha_required: !current_user || current_user.captcha_required?`: a flag the
    // statement passes on, computed from tests (one characteristic, `a || b` whole).
    if let Node::Hash(pairs) = node {
        for (_, value) in pairs {
            if is_flag(value) {
                out.push(value.clone());
            } else {
                collect(value, false, out);
            }
        }
        return;
    }
    if let Node::Call(c) = node {
        if let Some(r) = &c.recv {
            collect(r, false, out);
        }
        for a in &c.args {
            collect(a, false, out);
        }
        return;
    }
    node.for_each_child(&mut |child| collect(child, false, out));
}

/// The first embedded conditional replaced by `replacement`, everything else as it was.
fn substitute(stmt: &Node, replacement: &Node) -> Node {
    let mut done = false;
    replace_first(stmt, true, replacement, &mut done)
}

fn replace_first(node: &Node, root: bool, replacement: &Node, done: &mut bool) -> Node {
    if *done {
        return node.clone();
    }
    if !root && is_candidate(node) {
        *done = true;
        return replacement.clone();
    }
    if let (true, Node::Or(a, b, line), true) = (root, node, boolean_ish_or(node)) {
        let a = replace_first(a, matches!(a.as_ref(), Node::Or(..)), replacement, done);
        let b = replace_first(b, matches!(b.as_ref(), Node::Or(..)), replacement, done);
        return Node::Or(Box::new(a), Box::new(b), *line);
    }
    if let Node::Hash(pairs) = node {
        let pairs = pairs
            .iter()
            .map(|(k, v)| {
                let v = if !*done && is_flag(v) {
                    *done = true;
                    replacement.clone()
                } else {
                    replace_first(v, false, replacement, done)
                };
                (k.clone(), v)
            })
            .collect();
        return Node::Hash(pairs);
    }
    if let Node::Call(c) = node {
        let recv = c
            .recv
            .as_ref()
            .map(|r| replace_first(r, false, replacement, done));
        let args = c
            .args
            .iter()
            .map(|a| replace_first(a, false, replacement, done))
            .collect();
        return Node::Call(Box::new(Call {
            recv,
            args,
            ..(**c).clone()
        }));
    }
    node.map_children(&mut |child| replace_first(child, false, replacement, done))
}

/// Condition, value when it holds, value when it does not.
fn branches(node: &Node, line: u32) -> Option<(Node, Node, Node)> {
    match node {
        // A flag computed from tests: true or false.
        Node::Or(..) | Node::And(..) if is_flag(node) => {
            Some((node.clone(), Node::True, Node::False))
        }
        Node::If(i) => {
            let then = last_value(&i.then);
            let els = i.els.as_ref().map_or(Node::Nil, last_value);
            if i.unless {
                Some((i.cond.clone(), els, then))
            } else {
                Some((i.cond.clone(), then, els))
            }
        }
        Node::Call(_) => {
            let (recv, plain) = super::blocks::safe_chain(node)?;
            Some((recv, plain, Node::Nil))
        }
        Node::Or(..) => {
            // `a || b || c` is an ordered choice: `a` when it is present, else the choice
            // among the rest (`b || c`, split again when walked: one presence per source,
            // each under the previous one's missing value).
            let mut operands = Vec::new();
            or_chain(node, &mut operands);
            let (first, rest) = operands.split_first()?;
            // `name&.split(' ').drop(1).join(' ') || ''`: after the `&.`, every call
            // answers a value, so the chain is nil only when `name` is: `name` is asked.
            let asked = nil_only_with(first).unwrap_or(first);
            let present = Node::Call(Box::new(Call {
                recv: Some(asked.clone()),
                name: "present?".to_string(),
                args: Vec::new(),
                block: None,
                safe_nav: false,
                line,
            }));
            let otherwise = rest
                .iter()
                .skip(1)
                .fold((*rest.first()?).clone(), |acc, n| {
                    Node::Or(Box::new(acc), Box::new((*n).clone()), line)
                });
            // Present, `name&.split(' ').first` went through every `&.` of its chain:
            // the value is the plain chain, with no question of its own left.
            Some((present, without_safe_navs(first), otherwise))
        }
        _ => None,
    }
}

/// The receiver whose nil alone makes `node` nil: `name` in `name&.split(' ').first`'s
/// neighbour `name&.split(' ').drop(1).join(' ')`, where no call after the `&.` answers
/// nil ([`super::shim::NEVER_NIL`]).
fn nil_only_with(node: &Node) -> Option<&Node> {
    let Node::Call(c) = node else { return None };
    if c.safe_nav {
        return if super::shim::NEVER_NIL.contains(&c.name.as_str()) {
            c.recv.as_ref()
        } else {
            None
        };
    }
    if !super::shim::NEVER_NIL.contains(&c.name.as_str()) {
        return None;
    }
    nil_only_with(c.recv.as_ref()?)
}

/// `a&.b.c` with the `&.`s of its receiver chain made plain: the value once it is known
/// not to be nil (a nil anywhere on a `&.` chain makes the whole chain nil).
fn without_safe_navs(node: &Node) -> Node {
    match node {
        Node::Call(c) => Node::Call(Box::new(Call {
            safe_nav: false,
            recv: c.recv.as_ref().map(without_safe_navs),
            ..(**c).clone()
        })),
        other => other.clone(),
    }
}

/// The operands of `a || b || c`, in order.
fn or_chain<'n>(node: &'n Node, out: &mut Vec<&'n Node>) {
    match node {
        Node::Or(a, b, _) => {
            or_chain(a, out);
            or_chain(b, out);
        }
        other => out.push(other),
    }
}

fn last_value(node: &Node) -> Node {
    match node {
        Node::Seq(items) => items.last().cloned().unwrap_or(Node::Nil),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use crate::analyze::tests::{analyze_one, flat};

    #[test]
    fn a_flag_passed_in_a_hash_and_to_super_is_a_context() {
        let m = analyze_one(
            "class FooterForm < ReactComponent\n  def to_s\n    super(\"form\", { signed_in: user_signed_in?, captcha_required: !current_user || current_user.captcha_required? })\n  end\nend\n",
            "to_s",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].contains("[boolean]"), "{plan:?}");
        assert!(plan[0].contains("captcha required true"), "{plan:?}");
        // A value with a fallback in a hash is no flag: `name: nick || email` stays a
        // presence of the nick.
        let m = analyze_one(
            "class Card\n  def to_h\n    { name: nick || email }\n  end\nend\n",
            "to_h",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].contains("[presence]"), "{plan:?}");
    }

    #[test]
    fn a_shorthand_hash_value_calls_the_helper_of_its_name() {
        let m = analyze_one(
            "class UpdateCount\n  def call\n    record.update!(num_submissions:)\n  end\n\n  private\n\n  def num_submissions\n    return 0 if record.slug == \"hello-world\"\n\n    record.submissions.count\n  end\nend\n",
            "call",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert!(plan[0].contains("hello"), "{plan:?}");
    }

    #[test]
    fn a_ternary_in_an_argument_is_a_characteristic() {
        let m = analyze_one(
            "class Role\n  def set_permission_trackers(permission, tracker_ids)\n    h = {permission.to_s => (tracker_ids == :all ? '1' : '0')}\n    self.permissions_all_trackers = permissions_all_trackers.merge(h)\n    self\n  end\nend\n",
            "set_permission_trackers",
        );
        assert_eq!(
            flat(&m),
            vec!["1 tracker_ids [enum] all:all -> returns the role with permission \"1\" | other:NOT all -> returns the role with permission \"0\""]
        );
        assert_eq!(m.characteristics[0].source_line, "3");
    }

    #[test]
    fn leaves_that_would_read_alike_name_the_value_each_side_gives() {
        // A model writer: both sides write the attribute; what differs is the value.
        let m = analyze_one(
            "class Message < ApplicationRecord\n  def sticky=(arg)\n    write_attribute :sticky, (arg == true || arg.to_s == '1' ? 1 : 0)\n  end\nend\n",
            "sticky=",
        );
        let lines = flat(&m);
        assert_eq!(lines.len(), 1, "{lines:#?}");
        let line = lines.first().map_or("", String::as_str);
        assert!(
            line.ends_with(
                " with 1 | false:neither arg equal to true nor \"1\" -> writes attribute with 0"
            ),
            "{line}"
        );
        // A keyword argument: its name says which setting differs.
        let m = analyze_one(
            "class StoriesController < ApplicationController\n  def refill(story, is_moderator: false)\n    CachePageJob.set(wait: is_moderator ? 0 : 2.minutes).perform_later(story.path)\n  end\nend\n",
            "refill",
        );
        let lines = flat(&m);
        assert_eq!(lines.len(), 1, "{lines:#?}");
        let line = lines.first().map_or("", String::as_str);
        assert!(
            line.contains("enqueues cache page job with wait 0 |"),
            "{line}"
        );
        assert!(line.ends_with(" with wait 2 minutes"), "{line}");
    }

    #[test]
    fn a_one_letter_local_is_said_by_what_it_holds() {
        let m = analyze_one(
            "class NotifyCommentJob < ApplicationJob\n  def followers(comment)\n    followers = Set.new\n    if (u = comment.parent_comment.try(:user)) && u.is_active?\n      followers << u\n    end\n    followers\n  end\nend\n",
            "followers",
        );
        let lines = flat(&m);
        assert!(
            lines
                .iter()
                .all(|l| !l.contains(" u ") && !l.contains(":u ")),
            "{lines:#?}"
        );
        assert!(lines.iter().any(|l| l.contains("user")), "{lines:#?}");
    }

    #[test]
    fn a_literal_among_the_sources_is_no_case() {
        // `message(default = nil)` inlined where it is called without the argument: the
        // chain is `warden_message || nil || :unauthenticated`, and `nil` is no source to
        // set up (devise's FailureApp had a characteristic named `nil`, nil | nil).
        let m = analyze_one(
            "class FailureApp\n  def respond\n    if flashing?\n      flash[:alert] = i18n_message\n    end\n    redirect_to redirect_url\n  end\n\n  protected\n\n  def i18n_message(default = nil)\n    message = warden_message || default || :unauthenticated\n\n    if message.is_a?(Symbol)\n      I18n.t(:\"devise.failure.#{message}\")\n    else\n      message.to_s\n    end\n  end\nend\n",
            "respond",
        );
        let lines = flat(&m);
        assert!(lines.iter().all(|l| !l.contains(" nil [")), "{lines:#?}");
    }

    #[test]
    fn a_fallback_value_is_a_presence_even_an_empty_literal() {
        let m = analyze_one(
            "class FeedsController < ApplicationController\n  def render_feed(items, options = {})\n    @items = (items || []).to_a\n    @title = options[:title] || Setting.app_title\n    render template: \"common/feed\"\n  end\nend\n",
            "render_feed",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 items [presence] present:items present -> renders feed template with items set to items | nil:items missing -> renders feed template with items set to an empty list",
                "1 title_option [presence] present:title option present -> renders feed template with title set to title option | nil:title option missing -> renders feed template with title set to Setting app title",
            ]
        );
        // The maximum of an empty grid is nil: `|| 0` answers it. `|| nil` changes nothing.
        let m = analyze_one(
            "class MetricsReport\n  def heatmap(months)\n    grid = contacts.where(created_at: months.months.ago..).group(:hour).count\n    {grid: grid, max: grid.values.max || 0, min: grid.values.min || nil}\n  end\nend\n",
            "heatmap",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 1, "{plan:?}");
        assert_eq!(
            plan,
            vec!["1 largest_grid_values [presence] present:largest grid values present -> returns a result hash with max the largest grid values | nil:largest grid values missing -> returns a result hash with max 0"]
        );
    }

    #[test]
    fn several_fallbacks_in_one_statement_stand_side_by_side_on_their_own_lines() {
        let m = analyze_one(
            "class SummaryQuery\n  def self.call(organization_id:, start_date: nil, end_date: nil)\n    params = {\n      organization_id: organization_id,\n      start_date: start_date || \"1000-01-01\",\n      end_date: end_date || \"3000-01-01\"\n    }\n    execute(to_sql(SQL, **params)).to_a\n  end\nend\n",
            "call",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 start_date [presence] present:start date present -> returns the execute | nil:start date missing -> returns the execute with start date set to \"1000-01-01\"",
                "1 end_date [presence] present:end date present -> returns the execute | nil:end date missing -> returns the execute with end date set to \"3000-01-01\"",
            ]
        );
        let lines: Vec<_> = m
            .characteristics
            .iter()
            .map(|c| c.source_line.clone())
            .collect();
        assert_eq!(lines, vec!["5".to_string(), "6".to_string()]);
    }

    #[test]
    fn a_default_after_a_safe_chain_asks_only_what_can_be_nil() {
        // An OAuth callback filling a member's names from the provider's `name`:
        // present, the chain went through its `&.`s (no question of its own left);
        // `split`, `drop` and `join` never answer nil, so the surname's default is
        // about `name` alone.
        let m = analyze_one(
            "class Member < ApplicationRecord\n  def fill_name(info)\n    self.name ||= info[:name]&.split(' ')&.first || ''\n    self.surname ||= info[:name]&.split(' ')&.drop(1)&.join(' ') || ''\n    save\n  end\nend\n",
            "fill_name",
        );
        let plan = flat(&m);
        assert_eq!(plan.len(), 2, "{plan:?}");
        assert!(plan[0].contains("[presence] present:first of the parts of info name present -> sets the name | nil:first of the parts of info name missing -> sets the name to an empty string"), "{plan:?}");
        assert!(plan[1].contains("info_name [presence] present:info name present -> sets the surname | nil:info name missing -> sets the surname to an empty string"), "{plan:?}");
    }

    #[test]
    fn safe_navigation_inside_an_expression() {
        let m = analyze_one(
            "class Version\n  def wiki_page\n    @wiki_page ||= project.wiki&.find_page(wiki_page_title) if wiki_page_title.present?\n  end\nend\n",
            "wiki_page",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 wiki_page_title [presence] present:wiki page title present | nil:wiki page title missing => returns nil",
                "2 project_wiki [presence] present:project wiki -> returns cached wiki page | nil:project wiki -> returns cached wiki page",
            ]
        );
    }

    #[test]
    fn a_chain_of_fallbacks_is_one_presence_per_source_in_order() {
        let m = analyze_one(
            "class ApplicationController < ActionController::Base\n  def requested_locale\n    params[:locale] || session[:locale] || I18n.default_locale\n  end\nend\n",
            "requested_locale",
        );
        assert_eq!(
            flat(&m),
            vec![
                "1 locale_param [presence] present:locale param present -> returns locale param | nil:locale param missing",
                // Deeper, the context reads `with session locale` / `without session locale`.
                "2 session_locale [presence] present:session locale -> returns session locale | nil:session locale -> returns I18n default locale",
            ]
        );
    }
}
