//! Ruby expressions in words, for every text a plan shows a person (`context` and `it`
//! strings): receiver + predicate + argument (`link includes "@"`, `attrs of type Hash`),
//! negations kept, long expressions summarised by what they produce (`a link to the user
//! path`, `the matching Moderation records`), numbers and constant names kept, never Ruby
//! punctuation. What comes out contains letters, digits, spaces, `::` inside constant
//! names and short double-quoted string literals.
//!
//! - [`noun`]: what a value is (`params[:page]` → `page param`, `@project.versions.
//!   find_by_id(id)` → `the matching project version`).
//! - [`predicate`]: what a condition asks, as a phrase that holds when it is truthy
//!   (`request.xhr?` → `XHR request`, `user.allowed_to?(:edit_issues, project)` →
//!   `user allowed to edit issues`).
//! - [`action`]: what a statement does, when it is a command (`flash[:notice] = ...` →
//!   `sets the notice flash message`, `errors.add(:comment, ...)` → `adds an error on
//!   comment`).

use crate::index::body::{Call, Node, Target};

use super::grammar::words;

/// Query methods that narrow or order a relation: the relation is still "the records".
const QUERY: &[&str] = &[
    "where",
    "not",
    "or",
    "joins",
    "left_joins",
    "left_outer_joins",
    "includes",
    "preload",
    "eager_load",
    "references",
    "order",
    "reorder",
    "limit",
    "offset",
    "distinct",
    "group",
    "having",
    "unscope",
    "merge",
    "select",
    "readonly",
    "lock",
    "all",
    "unscoped",
    "page",
    "per",
    "paginate",
];

/// Conversions and cosmetic calls that leave the value what it was.
const TRANSPARENT: &[&str] = &[
    "to_s",
    "to_str",
    "to_i",
    "to_f",
    "to_d",
    "to_r",
    "to_sym",
    "to_a",
    "to_h",
    "to_unsafe_h",
    "to_unsafe_hash",
    "to_hash",
    "to_date",
    "to_time",
    "to_datetime",
    "to_param",
    "to_json",
    "strip",
    "lstrip",
    "rstrip",
    "squish",
    "chomp",
    "downcase",
    "upcase",
    "capitalize",
    "presence",
    "html_safe",
    "freeze",
    "dup",
    "clone",
    "itself",
    "compact",
    // Enumerators that only number the elements (`items.each_with_index.map`).
    "each_with_index",
    "with_index",
    "lazy",
    "flatten",
    "uniq",
    "reload",
    "to_sentence",
    "humanize",
    "titleize",
    "parameterize",
    "abs",
    "round",
    "ceil",
    "floor",
];

/// Verbs that start a method name which does something (`register_by_email`,
/// `update_cached_columns`), as opposed to one that names a value (`data_with_month`).
const VERBS: &[&str] = &[
    "accept",
    "activate",
    "add",
    "append",
    "apply",
    "approve",
    "archive",
    "assign",
    "attach",
    "authenticate",
    "authorize",
    "ban",
    "block",
    "build",
    "calculate",
    "call",
    "cancel",
    "change",
    "check",
    "clean",
    "cleanup",
    "clear",
    "close",
    "compute",
    "confirm",
    "convert",
    "copy",
    "create",
    "deactivate",
    "decline",
    "decrement",
    "delete",
    "deliver",
    "deny",
    "destroy",
    "detach",
    "disable",
    "dismiss",
    "download",
    "enable",
    "enqueue",
    "ensure",
    "expire",
    "export",
    "fetch",
    "fill",
    "find",
    "fix",
    "flag",
    "flush",
    "follow",
    "generate",
    "grant",
    "handle",
    "hide",
    "import",
    "increment",
    "initiate",
    "insert",
    "invalidate",
    "invite",
    "load",
    "lock",
    "log",
    "mark",
    "merge",
    "migrate",
    "move",
    "normalize",
    "notify",
    "open",
    "parse",
    "perform",
    "populate",
    "prepare",
    "process",
    "publish",
    "purge",
    "push",
    "queue",
    "read",
    "rebuild",
    "recalculate",
    "record",
    "redirect",
    "refresh",
    "refill",
    "register",
    "reject",
    "reload",
    "remove",
    "rename",
    "render",
    "reopen",
    "replace",
    "request",
    "require",
    "reset",
    "resolve",
    "restore",
    "retry",
    "revoke",
    "run",
    "sanitize",
    "save",
    "schedule",
    "send",
    "set",
    "setup",
    "sort",
    "start",
    "stop",
    "store",
    "submit",
    "subscribe",
    "sync",
    "toggle",
    "touch",
    "track",
    "transfer",
    "trigger",
    "unblock",
    "unfollow",
    "unhide",
    "unlock",
    "unsubscribe",
    "update",
    "upload",
    "upsert",
    "validate",
    "verify",
    "vote",
    "write",
];

/// A noun phrase with an article: `story` → `the story`; `a new Job` stays as it is.
pub(crate) fn with_article(noun: &str) -> String {
    if ["the ", "a ", "an ", "some ", "no "]
        .iter()
        .any(|a| noun.starts_with(a))
    {
        noun.to_string()
    } else {
        format!("the {noun}")
    }
}

/// The third person of a verb: `add` → `adds`, `push` → `pushes`, `notify` → `notifies`.
pub fn third_person(verb: &str) -> String {
    if verb.ends_with('s')
        || verb.ends_with("sh")
        || verb.ends_with("ch")
        || verb.ends_with('x')
        || verb.ends_with('z')
    {
        format!("{verb}es")
    } else if verb.ends_with('y')
        && !verb.ends_with("ay")
        && !verb.ends_with("ey")
        && !verb.ends_with("oy")
    {
        format!("{}ies", verb.trim_end_matches('y'))
    } else {
        format!("{verb}s")
    }
}

/// A method name as a verb phrase when it starts with a verb: `register_by_email_activation`
/// → `registers by email activation`.
pub fn verb_phrase(name: &str) -> Option<String> {
    let bare = name.trim_end_matches(['!', '?', '=']);
    let (first, rest) = match bare.split_once('_') {
        Some((f, r)) => (f, Some(r)),
        None => (bare, None),
    };
    if !VERBS.contains(&first) {
        return None;
    }
    // `redirect_to_referer_or { ... }`: a trailing conjunction only joins the block.
    let rest = rest.map(|r| {
        r.strip_suffix("_or")
            .or_else(|| r.strip_suffix("_and"))
            .unwrap_or(r)
    });
    Some(match rest {
        Some(r) => format!("{} {}", third_person(first), words(r)),
        None => third_person(first),
    })
}

/// A string literal as the text shows it: short ones quoted, long ones summarised.
/// A literal value in words (`"Created new tag"`, `:archived`, `3`, `true`), `None` for
/// anything computed.
fn literal_value(node: &Node) -> Option<String> {
    Some(match node {
        Node::Str(s) => quoted(s),
        Node::Sym(s) => words(s),
        Node::Int(n) => n.to_string(),
        Node::True => "true".to_string(),
        Node::False => "false".to_string(),
        Node::Nil => "nil".to_string(),
        _ => return None,
    })
}

fn quoted(s: &str) -> String {
    if s.is_empty() {
        "an empty string".to_string()
    } else if s.chars().count() <= 24 && !s.contains(['"', '\n', '\\', '#']) {
        format!("\"{s}\"")
    } else {
        "the text".to_string()
    }
}

/// What a value is, in words.
pub fn noun(node: &Node) -> String {
    noun_at(node, 0)
}

fn noun_at(node: &Node, depth: usize) -> String {
    if depth > 8 {
        return "the value".to_string();
    }
    let d = depth + 1;
    match node {
        Node::Lvar(n) | Node::Ivar(n) => words(n),
        Node::Const { path, .. } => path.clone(),
        Node::SelfRef => "self".to_string(),
        Node::Str(s) => quoted(s),
        Node::Sym(s) => words(s),
        Node::Int(i) => i.to_string(),
        Node::Float(f) => f.to_string(),
        Node::True => "true".to_string(),
        Node::False => "false".to_string(),
        Node::Nil => "nil".to_string(),
        Node::Array(items) if items.is_empty() => "an empty list".to_string(),
        Node::Array(items) if items.len() <= 3 => items
            .iter()
            .map(|i| noun_at(i, d))
            .collect::<Vec<_>>()
            .join(" and "),
        Node::Array(_) => "a list".to_string(),
        Node::Hash(pairs) if pairs.is_empty() => "an empty hash".to_string(),
        Node::Hash(_) => "a hash".to_string(),
        Node::Range { lo, hi, .. } => match (lo, hi) {
            (Some(l), Some(h)) => format!("{} to {}", noun_at(l, d), noun_at(h, d)),
            (Some(l), None) => format!("{} onwards", noun_at(l, d)),
            (None, Some(h)) => format!("up to {}", noun_at(h, d)),
            (None, None) => "any value".to_string(),
        },
        Node::Not(a) => format!("NOT {}", predicate_at(a, d)),
        Node::And(a, b) => format!("{} and {}", predicate_at(a, d), predicate_at(b, d)),
        Node::Or(a, b, _) => format!("{} or {}", noun_at(a, d), noun_at(b, d)),
        Node::Splat(a) => noun_at(a, d),
        Node::Seq(items) => items
            .last()
            .map_or_else(|| "nil".to_string(), |l| noun_at(l, d)),
        Node::Assign { value, .. } => noun_at(value, d),
        Node::Return { value: Some(v), .. } => noun_at(v, d),
        Node::Return { value: None, .. } => "nil".to_string(),
        Node::Begin(b) => noun_at(&b.body, d),
        Node::If(i) => {
            let then = noun_at(&i.then, d);
            match &i.els {
                // Both branches alike (`scope.where(a)` or `scope.where(b)`): said once.
                Some(e) => match noun_at(e, d) {
                    other if other == then => then,
                    other => format!("{then} or {other}"),
                },
                None => then,
            }
        }
        Node::Case(c) => match &c.subject {
            Some(s) => format!("the value for the {}", noun_at(s, d)),
            None => "the matching value".to_string(),
        },
        Node::Call(c) => call_noun(c, d),
        Node::Yield { .. } => "the block's result".to_string(),
        Node::Super { .. } => "the inherited result".to_string(),
        Node::Loop { .. } => "the loop's result".to_string(),
        Node::Jump { keyword, .. } => (*keyword).to_string(),
        Node::Other { text, .. } => other_noun(text),
    }
}

/// `-(order * sign + base + created_at / WINDOW)` spelled out is a formula, not a
/// description: three arithmetic operations or more read as what they make, `the computed
/// value`, or `the built text` when they join string literals. `None` for a shorter one.
fn summarised_formula(c: &Call) -> Option<&'static str> {
    let (mut ops, mut text) = (0, false);
    formula_call(c, &mut ops, &mut text);
    (ops >= 3).then_some(if text {
        "the built text"
    } else {
        "the computed value"
    })
}

/// Counts the arithmetic operations of a formula (`+ - * / % **` and unary minus) and
/// whether it joins text (a string literal among its operands).
fn formula(node: &Node, ops: &mut usize, text: &mut bool) {
    match node {
        Node::Str(_) => *text = true,
        // Rounding and conversions leave a formula a formula.
        Node::Call(c)
            if matches!(
                c.name.as_str(),
                "round" | "floor" | "ceil" | "abs" | "to_f" | "to_i" | "to_d" | "truncate"
            ) =>
        {
            if let Some(r) = &c.recv {
                formula(r, ops, text);
            }
        }
        // Parentheses.
        Node::Seq(items) if items.len() == 1 => {
            if let Some(inner) = items.first() {
                formula(inner, ops, text);
            }
        }
        Node::Call(c) => formula_call(c, ops, text),
        _ => {}
    }
}

/// [`formula`] of one call: an arithmetic operation counts, and its operands are read.
fn formula_call(c: &Call, ops: &mut usize, text: &mut bool) {
    if matches!(c.name.as_str(), "+" | "-" | "*" | "/" | "%" | "**" | "-@") && c.args.len() <= 1 {
        *ops += 1;
        if let Some(r) = &c.recv {
            formula(r, ops, text);
        }
        for a in &c.args {
            formula(a, ops, text);
        }
    }
}

/// Arithmetic operators in words.
fn arithmetic(name: &str) -> Option<&'static str> {
    Some(match name {
        "+" => "plus",
        "-" => "minus",
        "*" => "times",
        "/" => "divided by",
        "%" => "modulo",
        "**" => "to the power of",
        "<=>" => "ordered against",
        "<<" => "followed by",
        "&" => "common with",
        "|" => "combined with",
        _ => return None,
    })
}

/// The words of a method name built by interpolation, `"#{attribute_name}_attachment"`
/// or `:"remote_#{name}_url"` → `attribute name attachment`; `None` for other text.
fn interpolated_name(text: &str) -> Option<String> {
    let inner = text
        .strip_prefix(":\"")
        .or_else(|| text.strip_prefix('"'))?
        .strip_suffix('"')?;
    if !inner.contains("#{") {
        return None;
    }
    let plain: String = inner
        .replace("#{", " ")
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let said = plain.split_whitespace().collect::<Vec<_>>().join(" ");
    (!said.is_empty()).then_some(said)
}

/// Expressions the body tree keeps as text.
fn other_noun(text: &str) -> String {
    let t = text.trim_start();
    if t.starts_with('/') || t.starts_with("%r") {
        "the pattern".to_string()
    } else if t.starts_with("->") || t.starts_with("lambda") || t.starts_with("proc") {
        "a callback".to_string()
    } else if t.starts_with('"')
        || t.starts_with('\'')
        || t.starts_with("%(")
        || t.starts_with("%Q")
        || t.starts_with("%q")
        || t.starts_with("<<")
    {
        "the formatted text".to_string()
    } else if t.starts_with(":\"") {
        "the symbol".to_string()
    } else if let Some(inner) = t.strip_prefix("defined?(") {
        let name: String = inner
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '@')
            .collect();
        format!("{} defined", words(&name))
    } else if t.starts_with("%w") || t.starts_with("%i") {
        "a list of words".to_string()
    } else if t.starts_with('`') || t.starts_with("%x") {
        "the command output".to_string()
    } else {
        "the value".to_string()
    }
}

/// The key of `x[:key]` / `x["key"]` in words.
fn key_words(node: &Node, depth: usize) -> String {
    match node {
        Node::Sym(s) | Node::Str(s) => words(&s.replace('.', " ")),
        other => noun_at(other, depth),
    }
}

/// The element read by `recv[key]`.
fn index_noun(recv: Option<&Node>, args: &[Node], depth: usize) -> String {
    let key = args.first();
    let holder = recv.map(|r| match r {
        Node::Call(c) if c.recv.is_none() && c.args.is_empty() => c.name.as_str(),
        // `request.cookies[...]`, `request.session[...]`: the controller's own.
        Node::Call(c)
            if c.args.is_empty()
                && matches!(c.name.as_str(), "cookies" | "session" | "params")
                && matches!(&c.recv, Some(Node::Call(r)) if r.name == "request" && r.recv.is_none()) =>
        {
            c.name.as_str()
        }
        Node::Ivar(n) | Node::Lvar(n) => n.as_str(),
        Node::Const { path, .. } => path.as_str(),
        Node::SelfRef => "self",
        _ => "",
    });
    match (holder, key) {
        (Some("params"), Some(k)) => format!("{} param", key_words(k, depth)),
        (Some("session"), Some(k)) => format!("session {}", key_words(k, depth)),
        (Some("cookies"), Some(k)) => format!("{} cookie", key_words(k, depth)),
        (Some("flash"), Some(k)) => format!("{} flash message", key_words(k, depth)),
        (Some("ENV"), Some(Node::Str(k))) => format!("{k} setting"),
        (Some("options" | "opts"), Some(k)) => format!("{} option", key_words(k, depth)),
        (Some("self"), Some(k)) => key_words(k, depth),
        (_, Some(Node::Int(0))) => format!(
            "first {}",
            recv.map_or_else(String::new, |r| noun_at(r, depth))
        ),
        (_, Some(Node::Int(-1))) => format!(
            "last {}",
            recv.map_or_else(String::new, |r| noun_at(r, depth))
        ),
        (_, Some(k)) => format!(
            "{} {}",
            recv.map_or_else(String::new, |r| noun_at(r, depth)),
            key_words(k, depth)
        )
        .trim()
        .to_string(),
        (_, None) => recv.map_or_else(|| "the value".to_string(), |r| noun_at(r, depth)),
    }
}

/// The root relation and whether a filter was applied, for query chains.
fn query_root(call: &Call) -> (&Node, bool) {
    let mut filtered = matches!(call.name.as_str(), "where" | "not" | "or" | "having");
    let mut current = call.recv.as_ref();
    while let Some(Node::Call(inner)) = current {
        if !QUERY.contains(&inner.name.as_str()) {
            break;
        }
        filtered |= matches!(inner.name.as_str(), "where" | "not" | "or" | "having");
        current = inner.recv.as_ref();
    }
    match current {
        Some(n) => (n, filtered),
        None => (&Node::SelfRef, filtered),
    }
}

fn records_of(root: &Node, depth: usize) -> String {
    match root {
        Node::Const { path, .. } => format!("{path} records"),
        Node::SelfRef => "records".to_string(),
        other => noun_at(other, depth),
    }
}

/// `of the sorted items`, without a second article when the noun brings its own.
fn of_the(base: &str) -> String {
    format!("of the {}", base.strip_prefix("the ").unwrap_or(base))
}

fn call_noun(c: &Call, d: usize) -> String {
    let name = c.name.as_str();
    let recv = c.recv.as_ref();
    let recv_noun = || recv.map(|r| noun_at(r, d));
    if name == "[]" {
        return index_noun(recv, &c.args, d);
    }
    // `options.delete(:size)`, `opts.fetch(:size, 32)`: the option read (and taken out).
    if matches!(name, "delete" | "fetch") && matches!(c.args.first(), Some(Node::Sym(_))) {
        return index_noun(recv, c.args.get(..1).unwrap_or_default(), d);
    }
    // `(grouped[group] ||= [])` as a value: the element it sets.
    if let (true, Some((_, keys))) = (name == "[]=", c.args.split_last()) {
        if !keys.is_empty() {
            return index_noun(recv, keys, d);
        }
    }
    // `params.dig(:story, :url)`: the nested param, `story url param`.
    if name == "dig"
        && !c.args.is_empty()
        && c.args
            .iter()
            .all(|a| matches!(a, Node::Sym(_) | Node::Str(_)))
        && matches!(recv, Some(Node::Call(p)) if p.name == "params" && p.recv.is_none())
    {
        let keys: Vec<String> = c.args.iter().map(|k| key_words(k, d)).collect();
        return format!("{} param", keys.join(" "));
    }
    if let (Some(r), Some(a), Some(op)) = (recv, c.args.first(), arithmetic(name)) {
        if c.args.len() == 1 {
            if let Some(made) = summarised_formula(c) {
                return made.to_string();
            }
            return format!("{} {op} {}", noun_at(r, d), noun_at(a, d));
        }
    }
    if matches!(name, ">" | ">=" | "<" | "<=" | "==" | "!=" | "=~" | "!~") {
        return call_predicate(c, d).unwrap_or_else(|| "the comparison".to_string());
    }
    if TRANSPARENT.contains(&name) {
        return recv_noun().unwrap_or_else(|| words(name));
    }
    if QUERY.contains(&name) && c.block.is_none() {
        let (root, filtered) = query_root(c);
        let records = records_of(root, d);
        return if filtered {
            format!("the matching {records}")
        } else {
            format!("the {records}")
        };
    }
    match name {
        "count" | "size" | "length" => {
            return format!(
                "the number of {}",
                recv_noun().unwrap_or_else(|| "records".into())
            )
        }
        "first" | "last" | "take" | "second" => {
            let base = match recv {
                Some(Node::Call(inner)) if QUERY.contains(&inner.name.as_str()) => {
                    let (root, filtered) = query_root(inner);
                    let records = records_of(root, d);
                    if filtered {
                        format!("matching {records}")
                    } else {
                        records
                    }
                }
                Some(r) => noun_at(r, d),
                None => "records".to_string(),
            };
            return format!("the {name} {}", of_the(&base));
        }
        "find"
        | "find_by"
        | "find_by!"
        | "find_by_id"
        | "detect"
        | "find_or_initialize_by"
        | "find_or_create_by"
        | "first_or_initialize"
        | "first_or_create" => {
            let base = match recv {
                Some(Node::Const { path, .. }) => path.clone(),
                Some(r) => noun_at(r, d),
                None => "record".to_string(),
            };
            return the_adj("matching", &base);
        }
        "new" | "build" => {
            return match recv {
                Some(Node::Const { path, .. }) => format!("a new {path}"),
                Some(r) => format!("a new {}", noun_at(r, d)),
                None => "a new record".to_string(),
            }
        }
        "map" | "collect" | "flat_map" | "filter_map" | "pluck" => {
            let base = recv_noun().unwrap_or_else(|| "records".into());
            return match c.args.first() {
                Some(Node::Other { text, .. }) if text.starts_with("&:") => {
                    format!(
                        "the {} {}",
                        words(text.trim_start_matches("&:")),
                        of_the(&base)
                    )
                }
                Some(Node::Sym(s)) => format!("the {} {}", words(s), of_the(&base)),
                _ => the_adj("mapped", &base),
            };
        }
        "select" | "filter" | "find_all" => {
            return the_adj("selected", &recv_noun().unwrap_or_default())
        }
        "reject" => return the_adj("remaining", &recv_noun().unwrap_or_default()),
        "sort" | "sort_by" => return the_adj("sorted", &recv_noun().unwrap_or_default()),
        "group_by" | "index_by" => return the_adj("grouped", &recv_noun().unwrap_or_default()),
        "sum" => return format!("the sum of {}", recv_noun().unwrap_or_default()),
        "min" | "min_by" => return format!("the smallest {}", recv_noun().unwrap_or_default()),
        "max" | "max_by" => return format!("the largest {}", recv_noun().unwrap_or_default()),
        "reverse" => return the_adj("reversed", &recv_noun().unwrap_or_default()),
        "join" | "safe_join" => {
            let base = recv
                .or_else(|| c.args.first())
                .map_or_else(|| "parts".to_string(), |r| noun_at(r, d));
            return the_adj("joined", &base);
        }
        "split" => return format!("the parts of {}", recv_noun().unwrap_or_default()),
        "gsub" | "sub" | "tr" | "delete" if recv.is_some() => {
            return the_adj("cleaned", &recv_noun().unwrap_or_default())
        }
        "truncate" => return the_adj("truncated", &recv_noun().unwrap_or_default()),
        // `x.try(:[], :vote)`: the element read.
        "try" | "send" if matches!(c.args.first(), Some(Node::Sym(s)) if s == "[]") => {
            return index_noun(recv, c.args.get(1..).unwrap_or_default(), d);
        }
        "send" | "public_send" | "try" | "read_attribute" => {
            let attr = c
                .args
                .first()
                .map_or_else(|| "attribute".to_string(), |a| key_words(a, d));
            return match recv_noun() {
                Some(r) => format!("{r} {attr}"),
                None => attr,
            };
        }
        "call" => {
            return match recv {
                Some(r) => format!("the result of {}", noun_at(r, d)),
                None => "the result".to_string(),
            }
        }
        "current" if matches!(recv, Some(Node::Const { .. })) => {
            return format!("current {}", words(&recv_noun().unwrap_or_default()))
        }
        // `-LON_LIMIT`, `+x`: unary signs.
        "-@" => {
            if let Some(made) = summarised_formula(c) {
                return made.to_string();
            }
            return format!("minus {}", recv_noun().unwrap_or_default());
        }
        "+@" => return recv_noun().unwrap_or_default(),
        // `tag.time(...)`, `tag.div`: Rails' tag builder makes that element.
        _ if matches!(recv, Some(Node::Call(t)) if t.name == "tag" && t.recv.is_none() && t.args.is_empty()) =>
        {
            return tag_noun(name);
        }
        _ => {}
    }
    if recv.is_none() {
        return helper_noun(c, d);
    }
    // An attribute or reader: `hat.link`, `Rails.application.config`.
    let base = match recv {
        Some(Node::Const { path, .. }) if path == "Rails" => String::new(),
        Some(r) => noun_at(r, d),
        None => String::new(),
    };
    let own = words(name);
    if base.is_empty() {
        own
    } else if base.split_whitespace().count() >= 4 {
        // Long chains keep their last reader and what it is read from.
        let last = base
            .split_whitespace()
            .last()
            .unwrap_or_default()
            .to_string();
        format!("{last} {own}")
    } else {
        format!("{base} {own}")
    }
}

/// An HTML element by its tag: `a link` for `a`, else `an img tag`, `a span tag`.
fn tag_noun(tag: &str) -> String {
    if tag == "a" {
        return "a link".to_string();
    }
    let tag = words(tag);
    // As the tag is read aloud: `an em`, `an h3` ("aitch"), `a ul` ("you").
    let vowel_sound = tag.starts_with(['a', 'e', 'i', 'o'])
        || matches!(tag.as_str(), "hr" | "li" | "s")
        || (tag.len() == 2 && tag.starts_with('h'));
    let article = if vowel_sound { "an" } else { "a" };
    format!("{article} {tag} tag")
}

/// A translation key in words, from its last segments: `users.no_such_user.deleted` →
/// `no such user deleted`, `issues.helper.reportable_heading.user_html` → `reportable
/// heading user` (the `_html` suffix only says the text is safe).
fn translation_words(key: &str) -> String {
    let segments: Vec<&str> = key
        .split('.')
        .filter(|s| !s.is_empty())
        .map(|s| s.strip_suffix("_html").unwrap_or(s))
        .collect();
    match segments.as_slice() {
        [] => "translated".to_string(),
        [.., before, last] if !last.contains('_') => words(&format!("{before}_{last}")),
        [.., last] => words(last),
    }
}

/// Implicit-receiver calls (helpers, attributes, private readers).
fn helper_noun(c: &Call, d: usize) -> String {
    let name = c.name.as_str();
    match name {
        "params" => "the params".to_string(),
        "link_to" | "link_to_if" | "link_to_unless" | "button_to" | "mail_to" => {
            match c.args.get(1) {
                Some(target) => format!("a link to the {}", noun_at(target, d)),
                None => "a link".to_string(),
            }
        }
        "content_tag" => match c.args.first() {
            Some(Node::Sym(s) | Node::Str(s)) => tag_noun(s),
            _ => "an HTML tag".to_string(),
        },
        "tag" => "an HTML tag".to_string(),
        "image_tag" => "an image tag".to_string(),
        "javascript_tag" => "a script tag".to_string(),
        "render" => "the rendered partial".to_string(),
        "l" | "t" | "translate" | "localize" => match c.args.first() {
            Some(Node::Sym(k) | Node::Str(k)) => format!("the {} text", translation_words(k)),
            _ => "the translated text".to_string(),
        },
        "h" | "html_escape" | "sanitize" | "raw" | "strip_tags" | "simple_format"
        | "escape_javascript" | "j" => c
            .args
            .first()
            .map_or_else(|| "the text".to_string(), |a| noun_at(a, d)),
        "url_for" => "the URL".to_string(),
        "lambda" | "proc" => "a callback".to_string(),
        _ if name.ends_with("_path") || name.ends_with("_url") => {
            let base = name.trim_end_matches("_path").trim_end_matches("_url");
            format!("{} path", words(base))
        }
        _ if name.starts_with("format_") => format!("the formatted {}", words(&name[7..])),
        _ => {
            if let Some(rest) = name.strip_suffix('?') {
                return words(rest);
            }
            let w = words(name);
            let ends_with_preposition = matches!(
                w.split_whitespace().last(),
                Some("of" | "by" | "to" | "for" | "on" | "in" | "with" | "from" | "at")
            );
            match c.args.first() {
                None => w,
                // `rate_for(destination)` → `the rate for destination`.
                Some(a) if ends_with_preposition => format!("the {w} {}", noun_at(a, d)),
                // `occurrences(:authoring, track_id)`: the symbol says which of them.
                Some(Node::Sym(kind)) => format!("the {w} for {}", words(kind)),
                Some(_) => format!("the {w}"),
            }
        }
    }
}

/// A condition as a phrase that holds when it is truthy.
pub fn predicate(node: &Node) -> String {
    predicate_at(node, 0)
}

/// [`predicate`], with a predicate call's arguments said even where its words leave them
/// out (`current user cached role Role::SUPER_ADMIN`): to tell apart two tests that read
/// alike (`has_cached_role?(Role::SUPER_ADMIN) || has_cached_role?(Role::ORG_ADMIN)`).
pub fn predicate_with_arguments(node: &Node) -> String {
    match node {
        Node::Not(inner) => format!("NOT {}", predicate_with_arguments(inner)),
        Node::Call(c) if c.name.ends_with('?') => {
            let words = predicate(node);
            let args: Vec<String> = c
                .args
                .iter()
                .filter(|a| !matches!(a, Node::SelfRef | Node::Hash(_)))
                .map(|a| match a {
                    // `Role::SUPER_ADMIN`: its own name says which.
                    Node::Const { path, .. } => {
                        path.rsplit("::").next().unwrap_or(path).to_string()
                    }
                    other => noun(other),
                })
                .filter(|a| !a.is_empty() && !words.contains(a.as_str()))
                .collect();
            if args.is_empty() {
                words
            } else {
                format!("{words} {}", args.join(" and "))
            }
        }
        other => predicate(other),
    }
}

fn predicate_at(node: &Node, depth: usize) -> String {
    if depth > 8 {
        return "the condition".to_string();
    }
    let d = depth + 1;
    match node {
        Node::Not(a) => format!("NOT {}", predicate_at(a, d)),
        Node::And(a, b) => format!("{} and {}", predicate_at(a, d), predicate_at(b, d)),
        Node::Or(a, b, _) => format!("{} or {}", predicate_at(a, d), predicate_at(b, d)),
        Node::Call(c) => call_predicate(c, d).unwrap_or_else(|| noun_at(node, d)),
        other => noun_at(other, d),
    }
}

fn call_predicate(c: &Call, d: usize) -> Option<String> {
    let name = c.name.as_str();
    let recv = c.recv.as_ref();
    let subject = || recv.map_or_else(String::new, |r| noun_at(r, d));
    let arg = |i: usize| c.args.get(i).map(|a| noun_at(a, d));
    let with_subject = |phrase: String| {
        let s = subject();
        if s.is_empty() || s == "self" {
            phrase
        } else {
            format!("{s} {phrase}")
        }
    };
    Some(match name {
        "==" | "===" | "eql?" | "equal?" => format!("{} equal to {}", subject(), arg(0)?),
        "!=" => format!("{} NOT equal to {}", subject(), arg(0)?),
        // `instance_variable_defined?(:@client_authentication)`: the option was set.
        "instance_variable_defined?" => match c.args.first() {
            Some(Node::Sym(ivar)) => {
                with_subject(format!("{} set", words(ivar.trim_start_matches('@'))))
            }
            _ => return None,
        },
        ">" => format!("{} above {}", subject(), arg(0)?),
        ">=" => format!("{} at least {}", subject(), arg(0)?),
        "<" => format!("{} below {}", subject(), arg(0)?),
        "<=" => format!("{} at most {}", subject(), arg(0)?),
        // `VALID_KEY.match?(key)`: the pattern is the receiver.
        "=~" | "match" | "match?"
            if matches!(recv, Some(Node::Const { .. } | Node::Other { .. }))
                && !matches!(c.args.first(), Some(Node::Const { .. })) =>
        {
            format!("{} matching {}", arg(0)?, pattern_words(recv))
        }
        "=~" | "match" | "match?" => {
            with_subject(format!("matching {}", pattern_words(c.args.first())))
        }
        "!~" => with_subject(format!("NOT matching {}", pattern_words(c.args.first()))),
        // `ALLOWED_SIZES.include?(size)`, `%w[a b].include?(x)`: the argument is the subject.
        "include?" | "member?" | "cover?"
            if matches!(
                recv,
                Some(Node::Const { .. } | Node::Array(_) | Node::Other { .. } | Node::Range { .. })
            ) =>
        {
            format!("{} in {}", arg(0)?, subject())
        }
        "include?" | "member?" | "includes?" | "cover?" => {
            with_subject(format!("including {}", arg(0)?))
        }
        "exist?" | "exists?" | "file?" | "directory?" if matches!(recv, Some(Node::Const { path, .. }) if matches!(path.as_str(), "File" | "Dir" | "FileTest" | "Pathname")) =>
        {
            format!("{} existing", arg(0)?)
        }
        // `entry.subscribers.exists?(user.id)`: the id is among them.
        "exists?"
            if c.block.is_none()
                && c.args.len() == 1
                && !matches!(c.args.first(), Some(Node::Hash(_))) =>
        {
            with_subject(format!("including {}", arg(0)?))
        }
        // ActiveSupport's `exclude?`: `expanded.exclude?(candidate)`.
        "exclude?" => with_subject(format!("excluding {}", arg(0)?)),
        "in?" => with_subject(format!("in {}", arg(0)?)),
        "start_with?" => with_subject(format!("starting with {}", arg(0)?)),
        "end_with?" => with_subject(format!("ending with {}", arg(0)?)),
        "is_a?" | "kind_of?" | "instance_of?" => with_subject(format!("of type {}", arg(0)?)),
        // `respond_to?("#{name}_attachment")`: the method's name as it is built.
        "respond_to?" => match c.args.first() {
            Some(Node::Other { text, .. }) if interpolated_name(text).is_some() => {
                with_subject(format!("responding to {}", interpolated_name(text)?))
            }
            _ => with_subject(format!("responding to {}", arg(0)?)),
        },
        "key?" | "has_key?" | "include_key?" => with_subject(format!("with key {}", arg(0)?)),
        "between?" => with_subject(format!("between {} and {}", arg(0)?, arg(1)?)),
        "any?" | "present?" | "exists?" if c.block.is_none() && c.args.is_empty() => {
            let s = subject();
            if s.is_empty() {
                "any records".to_string()
            } else {
                format!("any {s}")
            }
        }
        "none?" | "empty?" | "blank?" if c.block.is_none() && c.args.is_empty() => {
            let s = subject();
            if s.is_empty() {
                "no records".to_string()
            } else {
                format!("no {s}")
            }
        }
        "nil?" => format!("{} missing", subject()),
        "allowed_to?" | "allowed_to_globally?" => {
            let action = match c.args.first() {
                Some(Node::Sym(s) | Node::Str(s)) => words(s),
                // `allowed_to?({controller: ctrl, action: action}, @project)`
                Some(Node::Hash(_)) | None => "perform the action".to_string(),
                // `allowed_to?(:"#{action}_watchers", w.project)`: a permission built at
                // run time; what it is checked on says more than "the symbol".
                Some(_) => match c.args.get(1) {
                    Some(on) => {
                        return Some(with_subject(format!("allowed on {}", noun_at(on, d))))
                    }
                    None => "perform the action".to_string(),
                },
            };
            with_subject(format!("allowed to {action}"))
        }
        // `User.current.logged?`: logged in, not "logged current user".
        "logged?" | "logged_in?" | "signed_in?" if c.args.is_empty() => {
            let state = if name == "signed_in?" {
                "signed in"
            } else {
                "logged in"
            };
            with_subject(state.to_string())
        }
        "can?" | "authorized?" => {
            let action = c
                .args
                .first()
                .map_or_else(|| "do it".to_string(), |a| key_words(a, d));
            with_subject(format!("allowed to {action}"))
        }
        _ if name.ends_with('?') => {
            let phrase = super::grammar::predicate_phrase(name);
            let s = subject();
            let object = c
                .args
                .iter()
                .filter(|a| !matches!(a, Node::SelfRef | Node::Hash(_)))
                .map(|a| noun_at(a, d))
                .collect::<Vec<_>>()
                .join(" and ");
            // `member_of?(project)` → `member of project`; an argument the name already
            // says (`editable_by_user?(@user)`) or that does not follow a preposition
            // (`can_refund?(payment)` → `refund allowed`) is left out.
            let last = phrase.split_whitespace().last().unwrap_or_default();
            let said = object.split_whitespace().last() == Some(last);
            let takes_object = matches!(
                last,
                "of" | "by" | "to" | "for" | "on" | "in" | "with" | "from" | "at" | "as" | "into"
            );
            let phrase = if object.is_empty() || said || !takes_object {
                phrase
            } else {
                format!("{phrase} {object}")
            };
            if s.is_empty() || s == "self" {
                phrase
            } else if !phrase.contains(' ') {
                // `user.admin?` → `admin user`.
                format!("{phrase} {s}")
            } else {
                format!("{s} {phrase}")
            }
        }
        _ => return None,
    })
}

/// The pattern of a `=~` / `match?`: a constant's name in words, else "the pattern".
fn pattern_words(node: Option<&Node>) -> String {
    match node {
        Some(Node::Const { path, .. })
            if path
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit() || c == ':') =>
        {
            path.clone()
        }
        Some(Node::Const { path, .. }) => {
            let last = path.rsplit("::").next().unwrap_or(path);
            let base = words(last)
                .replace(" regexp", "")
                .replace(" regex", "")
                .replace(" re", "")
                .replace(" pattern", "");
            format!("the {base} pattern")
        }
        Some(Node::Str(s)) => quoted(s),
        Some(Node::Lvar(n) | Node::Ivar(n)) => words(n),
        _ => "the pattern".to_string(),
    }
}

/// What a statement does, when it is a command rather than a value.
pub fn action(node: &Node) -> Option<String> {
    match node {
        Node::Call(c) => call_action(c),
        Node::Assign {
            target: Target::Other(t),
            ..
        } => Some(format!("sets {}", words(t.trim_start_matches("self.")))),
        Node::Seq(items) => items.last().and_then(action),
        _ => None,
    }
}

fn call_action(c: &Call) -> Option<String> {
    let name = c.name.as_str();
    let recv = c.recv.as_ref();
    let holder = recv.and_then(|r| match r {
        Node::Call(h) if h.recv.is_none() && h.args.is_empty() => Some(h.name.as_str()),
        Node::Ivar(n) | Node::Lvar(n) => Some(n.as_str()),
        _ => None,
    });
    let owner = || recv.map_or_else(|| "the record".to_string(), |r| with_article(&noun(r)));
    if name == "[]=" {
        let key = c
            .args
            .first()
            .map_or_else(|| "value".to_string(), |k| key_words(k, 0));
        return Some(match holder {
            Some("flash") => format!("sets the {key} flash message"),
            Some("session") => format!("stores {key} in the session"),
            Some("cookies") => format!("sets the {key} cookie"),
            Some("params") => format!("sets the {key} param"),
            _ => {
                // `attrs["dir"] = "auto"`: a literal value is said.
                let to = c
                    .args
                    .get(1)
                    .filter(|_| c.args.len() == 2)
                    .and_then(literal_value)
                    .map(|v| format!(" to {v}"))
                    .unwrap_or_default();
                format!("sets {} {key}{to}", owner())
            }
        });
    }
    if let Some(attr) = name.strip_suffix('=') {
        if !matches!(name, "==" | "!=" | "<=" | ">=" | "===") {
            let to = c
                .args
                .first()
                .and_then(literal_value)
                .map(|v| format!(" to {v}"))
                .unwrap_or_default();
            return Some(match recv {
                Some(Node::SelfRef) | None => format!("sets the {}{to}", words(attr)),
                Some(r) => format!("sets the {} {}{to}", noun(r), words(attr)),
            });
        }
    }
    match name {
        "add"
            if holder == Some("errors")
                || matches!(recv, Some(Node::Call(e)) if e.name == "errors") =>
        {
            let field = c
                .args
                .first()
                .map_or_else(|| "the record".to_string(), |f| key_words(f, 0));
            return Some(format!("adds an error on {field}"));
        }
        "debug" | "info" | "warn" | "error" | "fatal"
            if holder == Some("logger")
                || matches!(recv, Some(Node::Call(l)) if l.name == "logger") =>
        {
            return Some(format!("logs a {name} message"));
        }
        // `"tag " << extra`: building a string is a value, not an action.
        "<<" if matches!(recv, Some(Node::Str(_) | Node::Other { .. })) => return None,
        "push" | "<<" | "append" | "add" | "concat" | "unshift" | "insert" if recv.is_some() => {
            let base = recv.map_or_else(String::new, |r| match r {
                // `text << "a" << "b"`: the string being built.
                Node::Call(inner) if inner.name == "<<" => "the text".to_string(),
                other => format!("the {}", noun(other).trim_start_matches("the ")),
            });
            return Some(format!("adds to {base}"));
        }
        "concat" | "safe_concat" | "content_for" => {
            return Some(match c.args.first() {
                Some(a) => format!("adds {} to the output", noun(a)),
                None => "adds to the output".to_string(),
            });
        }
        "each" | "each_with_index" | "each_with_object" | "find_each" | "find_in_batches"
        | "each_pair" | "each_value" | "each_key" | "times" | "reverse_each" => {
            let base = recv.map_or_else(|| "the records".to_string(), noun);
            return Some(format!("goes through each {}", of_the(&base)));
        }
        "send_data" | "send_file" => return Some("sends the file".to_string()),
        "update_column" | "update_columns" | "update_attribute" | "update_all" | "increment!"
        | "decrement!" | "toggle!" | "touch" | "delete_all" | "destroy_all" | "update"
        | "update!" | "save" | "save!" | "destroy" | "destroy!" | "delete" => {
            let verb = match name {
                "save" | "save!" => "saves",
                "destroy" | "destroy!" | "destroy_all" => "destroys",
                "delete" | "delete_all" => "deletes",
                "touch" => "touches",
                "increment!" => "increments",
                "decrement!" => "decrements",
                "toggle!" => "toggles",
                _ => "updates",
            };
            let what = match (name, c.args.first()) {
                (
                    "update_column" | "update_attribute" | "increment!" | "decrement!" | "toggle!",
                    Some(Node::Sym(s)),
                ) => {
                    format!(" {}", words(s))
                }
                _ => String::new(),
            };
            return Some(format!("{verb} {}{what}", owner()));
        }
        _ => {}
    }
    if recv.is_none() {
        // `parse(file)` → `parses file`; `register_by_email(@user)` says its object.
        return verb_phrase(name).map(|v| match (v.contains(' '), c.args.first()) {
            (false, Some(a)) if !matches!(a, Node::Hash(_)) => format!("{v} {}", noun(a)),
            _ => object_of_preposition(&v, c),
        });
    }
    verb_phrase(name).map(|v| {
        // `story.update_cached_columns` → `updates the story cached columns`.
        let mut parts = v.splitn(2, ' ');
        let verb = parts.next().unwrap_or_default().to_string();
        match parts.next() {
            Some(rest) => object_of_preposition(&format!("{verb} {} {rest}", owner()), c),
            None => format!("{verb} {}", owner()),
        }
    })
}

/// A phrase ending in a preposition (`increments the Keystore value for`) takes the
/// call's first argument when it is a name (`... for the user`), else ends before it:
/// `increment_value_for("user:#{id}:stories", -1)` → `increments the Keystore value`.
fn object_of_preposition(phrase: &str, c: &Call) -> String {
    let Some((head, last)) = phrase.rsplit_once(' ') else {
        return phrase.to_string();
    };
    if !matches!(
        last,
        "of" | "by" | "to" | "for" | "on" | "in" | "with" | "from" | "at" | "as" | "into"
    ) {
        return phrase.to_string();
    }
    match c.args.first() {
        Some(a @ (Node::Lvar(_) | Node::Ivar(_) | Node::Sym(_))) => format!("{phrase} {}", noun(a)),
        Some(a @ Node::Call(n)) if n.args.is_empty() && n.block.is_none() => {
            format!("{phrase} {}", noun(a))
        }
        _ => head.to_string(),
    }
}

/// `the {adjective} {base}`, without a second article when `base` has one: `the joined
/// the mapped values` reads `the joined mapped values`.
fn the_adj(adjective: &str, base: &str) -> String {
    let base = base.strip_prefix("the ").unwrap_or(base);
    format!("the {adjective} {base}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    fn expr(src: &str) -> Node {
        let facts = extract_with(
            "app/models/a.rb",
            format!("class A\n  def m\n    {src}\n  end\nend\n").as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let body = *facts.methods[0].body.clone().unwrap();
        match body {
            Node::Seq(mut items) => items.remove(0),
            other => other,
        }
    }

    /// No Ruby punctuation outside quoted literals and constant names.
    fn is_words(text: &str) -> bool {
        let text: String = text
            .split(' ')
            .filter(|w| {
                !w.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == ':')
            })
            .collect::<Vec<_>>()
            .join(" ");
        let mut plain = String::new();
        let mut quoted = false;
        for c in text.chars() {
            if c == '"' {
                quoted = !quoted;
            } else if !quoted {
                plain.push(c);
            }
        }
        !plain.chars().any(|c| "(){}[]|&=@$;<>+*#.?!_".contains(c))
    }

    #[test]
    fn nouns() {
        for (src, expected) in [
            ("params[:page]", "page param"),
            ("@params[:display_name]", "display name param"),
            ("options.delete(:size)", "size option"),
            (
                "occurrences(:authoring, track_id)",
                "the occurrences for authoring",
            ),
            ("opts.fetch(:size, 32)", "size option"),
            ("name.delete(\"-\")", "the cleaned name"),
            ("session[:user_id]", "session user id"),
            ("hat.link", "hat link"),
            ("User.current", "current user"),
            (
                "@project.versions.find_by_id(version_id)",
                "the matching project versions",
            ),
            (
                "Moderation.where(story: @story).where(\"x\")",
                "the matching Moderation records",
            ),
            ("Comment.none", "Comment none"),
            ("@notes.visible", "notes visible"),
            ("items.count", "the number of items"),
            ("total - 1", "total minus 1"),
            ("(total - 1) / per_page + 1", "the computed value"),
            (
                "-((order * sign) + base + (created_at.to_f / WINDOW)).round(7)",
                "the computed value",
            ),
            ("\"(\" + sql + \" OR \" + more + \")\"", "the built text"),
            ("users.map(&:email)", "the email of the users"),
            (
                "link_to(avatar_img(user, 16), user_path(user))",
                "a link to the user path",
            ),
            ("content_tag(:span, label, class: \"x\")", "a span tag"),
            ("content_tag(:a, label, href: url)", "a link"),
            ("content_tag(:img, nil, src: url)", "an img tag"),
            ("content_tag(:ul, items)", "a ul tag"),
            ("content_tag(:h3, title)", "an h3 tag"),
            ("tag.time(label, datetime: at)", "a time tag"),
            ("-LON_LIMIT", "minus LON_LIMIT"),
            ("params.dig(:story, :url)", "story url param"),
            (
                "l(:notice_account_activated)",
                "the notice account activated text",
            ),
            ("t(\".terms_accepted\")", "the terms accepted text"),
            (
                "t(\"users.no_such_user.deleted\")",
                "the no such user deleted text",
            ),
            (
                "t(\"issues.helper.reportable_heading.user_html\")",
                "the reportable heading user text",
            ),
            (
                "BoundingBox.from_bbox_params(params)",
                "BoundingBox from bbox params",
            ),
            ("generated_id.to_s", "generated id"),
            ("Rails.application.config.x", "application config x"),
            ("\"tag tag_#{tag}\"", "the formatted text"),
            ("[a, b]", "a and b"),
            ("x[0]", "first x"),
        ] {
            let got = noun(&expr(src));
            assert_eq!(got, expected, "{src}");
            assert!(is_words(&got), "{got}");
        }
    }

    #[test]
    fn predicates() {
        for (src, expected) in [
            ("link.include?(\"@\")", "link including \"@\""),
            ("expanded.exclude?(locale)", "expanded excluding locale"),
            ("attrs.is_a?(Hash)", "attrs of type Hash"),
            ("email.match?(BLOCKLIST_RE)", "email matching BLOCKLIST_RE"),
            (
                "email.match?(Blocklist)",
                "email matching the blocklist pattern",
            ),
            ("email =~ /\\A[a-z]+\\z/i", "email matching the pattern"),
            ("user.admin?", "admin user"),
            ("u.email_mentions?", "u email mentions"),
            (
                "User.current.allowed_to?(:edit_issues, @project)",
                "current user allowed to edit issues",
            ),
            ("request.xhr?", "xhr request"),
            ("params[:ids].blank?", "no ids param"),
            ("obj.is_flaggable?(self)", "flaggable obj"),
            ("user.member_of?(project)", "user member of project"),
            // A method name built by interpolation reads as it is built.
            (
                "@object.respond_to?(\"remote_#{attribute_name}_url\")",
                "object responding to remote attribute name url",
            ),
            (
                "@object.respond_to?(:\"#{attribute_name}_attacher\")",
                "object responding to attribute name attacher",
            ),
        ] {
            let got = predicate(&expr(src));
            assert_eq!(got, expected, "{src}");
            assert!(is_words(&got), "{got}");
        }
    }

    #[test]
    fn actions() {
        for (src, expected) in [
            (
                "flash[:notice] = l(:notice_account_activated)",
                Some("sets the notice flash message"),
            ),
            (
                "session[:user_id] = user.id",
                Some("stores user id in the session"),
            ),
            (
                "errors.add(:comment, \"too fast\")",
                Some("adds an error on comment"),
            ),
            ("logger.debug(\"x\")", Some("logs a debug message")),
            ("self.tags = list", Some("sets the tags")),
            (
                "element.attr[\"dir\"] ||= \"auto\"",
                Some("sets the element attr dir to \"auto\""),
            ),
            ("self.status ||= :draft", Some("sets the status to draft")),
            (
                "items.each_with_index { |i, n| i }",
                Some("goes through each of the items"),
            ),
            (
                "story.update_cached_columns",
                Some("updates the story cached columns"),
            ),
            (
                "register_by_email_activation(@user)",
                Some("registers by email activation"),
            ),
            (
                "update_column :hotness, 1",
                Some("updates the record hotness"),
            ),
            ("pages.push(max)", Some("adds to the pages")),
            (
                "Keystore.increment_value_for(\"user:#{id}:stories\", -1)",
                Some("increments the Keystore value"),
            ),
            (
                "Notifier.send_notice_to(user)",
                Some("sends the Notifier notice to user"),
            ),
            (
                "to_remove.each { |t| t.destroy }",
                Some("goes through each of the to remove"),
            ),
            ("data_with_extrapolated_month(data)", None),
        ] {
            let got = action(&expr(src));
            assert_eq!(got.as_deref(), expected, "{src}");
            if let Some(g) = got {
                assert!(is_words(&g), "{g}");
            }
        }
    }
}
