//! Behavior texts: what a method does at the end of a path (contract §5 rule 21 and the
//! controller table of rule 28). Early exits (`return`, `raise`, `throw`, `head`,
//! `redirect_to ... and return`) end a path; the last expression of a path is what the
//! method returns.
//!
//! Decided by the parser: the exit and its kind, literal return values, the `{success:}` /
//! `{error:}` result hashes, `create!`/`save!`/`update!`/`destroy`, mailer deliveries,
//! renders, redirects and statuses. Guessed (\[J\], lowering confidence): the text for any
//! other expression (`returns <code>`), and which final values count as failures.

use std::collections::HashMap;

use crate::index::body::{Call, Node};

use super::grammar::{self, words};
use super::model::{BehaviorDraft, BehaviorKind};

/// How a path ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The `it` text.
    pub description: String,
    /// A failure (raise, `nil`/`false`, an error result, a 4xx response): terminal.
    pub failure: bool,
    /// The text was a guess from code, not a pattern.
    pub guessed: bool,
    /// For a branch that only assigns a value the rest of the method uses: what it sets
    /// (`title set to title option`), added to the outcome the rest ends with.
    pub sets: Option<String>,
}

impl Outcome {
    pub(crate) fn new(description: impl Into<String>, failure: bool) -> Self {
        Outcome {
            description: grammar::behavior(&description.into()),
            failure,
            guessed: false,
            sets: None,
        }
    }

    fn guess(description: impl Into<String>, failure: bool) -> Self {
        Outcome {
            guessed: true,
            ..Outcome::new(description, failure)
        }
    }

    /// This outcome, reached after a branch that set a value (`renders feed template with
    /// title set to title option`).
    pub fn with_sets(&self, sets: &str) -> Outcome {
        Outcome {
            description: grammar::behavior(&format!("{} with {sets}", self.description)),
            sets: None,
            ..self.clone()
        }
    }

    /// The behavior of a leaf with this outcome.
    pub fn behavior(&self, terminal: bool) -> BehaviorDraft {
        BehaviorDraft {
            description: self.description.clone(),
            kind: if terminal {
                BehaviorKind::Terminal
            } else {
                BehaviorKind::Success
            },
            subtype: None,
        }
    }
}

/// Context the texts depend on.
#[derive(Debug, Clone, Copy)]
pub struct TextContext<'a> {
    /// The class under analysis (`Payment`).
    pub class_name: &'a str,
    /// The method (`refund`).
    pub method_name: &'a str,
    /// A controller: render/redirect/head outcomes apply.
    pub controller: bool,
    /// An action (or a filter) of a controller: one that ends without responding renders
    /// its template (a filter lets the request through). Not a controller's other public
    /// methods (`render_feed(items)` takes an argument; `ApplicationController`'s methods).
    pub action: bool,
    /// A controller filter (`before_action :x`): a path that does not respond lets the
    /// request through to the action, instead of rendering a template.
    pub filter: bool,
    /// A controller's helpers that always respond (`render_404`).
    pub responders: Option<&'a Responders>,
}

/// If `node` leaves the method (or, in a controller, ends the request), how.
pub fn exit_of(node: &Node, cx: &TextContext<'_>) -> Option<Outcome> {
    match node {
        // A filter that returns without responding lets the request through.
        Node::Return { value: None, .. } if cx.filter => {
            Some(Outcome::new("lets the request through", false))
        }
        Node::Return { value, .. } => Some(match value {
            None => Outcome::new("returns nil", true),
            Some(v) => returned(v, cx),
        }),
        Node::Call(call) if call.recv.is_none() => match call.name.as_str() {
            "raise" | "fail" => Some(raise_text(call)),
            "throw" => Some(Outcome::new(
                format!(
                    "throws {}",
                    call.args
                        .first()
                        .map_or("a symbol".to_string(), |a| match a {
                            Node::Sym(s) => format!(":{s}"),
                            other => super::phrase::noun(other),
                        })
                ),
                true,
            )),
            "head"
            | "redirect_to"
            | "redirect_back"
            | "redirect_back_or_to"
            | "render"
            | "send_data"
            | "send_file"
                if cx.controller =>
            {
                Some(response(call))
            }
            name if cx.controller => cx.responders.and_then(|r| r.get(name)),
            _ => None,
        },
        // `redirect_to x and return`, `render ... and return`
        Node::And(left, right) if matches!(right.as_ref(), Node::Return { value: None, .. }) => {
            match left.as_ref() {
                Node::Call(call)
                    if call.recv.is_none()
                        && matches!(call.name.as_str(), "redirect_to" | "render" | "head") =>
                {
                    Some(response(call))
                }
                Node::Call(call) if call.recv.is_none() && cx.controller => {
                    cx.responders.and_then(|r| r.get(&call.name))
                }
                _ => None,
            }
        }
        Node::Seq(items) => items.last().and_then(|last| exit_of(last, cx)),
        _ => None,
    }
}

/// Whether every path through `node` exits (for guard detection).
pub fn always_exits(node: &Node, cx: &TextContext<'_>) -> Option<Outcome> {
    match node {
        Node::Seq(items) => {
            // An exit anywhere makes what follows unreachable.
            items.iter().find_map(|i| exit_of(i, cx))
        }
        other => exit_of(other, cx),
    }
}

fn raise_text(call: &Call) -> Outcome {
    match call.args.first() {
        None => Outcome::new("re-raises the error", true),
        Some(Node::Const { path, .. }) => Outcome::new(format!("raises {path}"), true),
        Some(Node::Call(c)) if c.name == "new" => match &c.recv {
            Some(Node::Const { path, .. }) => Outcome::new(format!("raises {path}"), true),
            _ => Outcome::new("raises an error", true),
        },
        Some(Node::Str(_)) | Some(Node::Other { .. }) => Outcome::new("raises RuntimeError", true),
        Some(_) => Outcome::new("raises an error", true),
    }
}

/// The outcome of a controller response call.
pub fn response(call: &Call) -> Outcome {
    match call.name.as_str() {
        "send_data" | "send_file" => Outcome::new("sends a file", false),
        "head" => {
            let code = call.args.first().and_then(status_code).unwrap_or(200);
            Outcome::new(format!("returns {code} status"), code >= 400)
        }
        "redirect_to" | "redirect_back" | "redirect_back_or_to" => {
            let target = call
                .args
                .first()
                .map(path_words)
                .unwrap_or_else(|| "back".to_string());
            Outcome::new(format!("redirects to {target}"), false)
        }
        _ => {
            let status = keyword(call, "status").and_then(status_code);
            let with_status = |what: &str| match status {
                Some(code) if code != 200 => {
                    Outcome::new(format!("returns {what} with {code} status"), code >= 400)
                }
                _ => Outcome::new(format!("returns {what}"), false),
            };
            if ["plain", "html", "body", "text", "inline"]
                .iter()
                .any(|k| keyword(call, k).is_some())
            {
                return with_status("a text response");
            }
            if keyword(call, "xml").is_some() {
                return with_status("XML response");
            }
            if keyword(call, "js").is_some() {
                return with_status("JavaScript response");
            }
            if keyword(call, "nothing").is_some() {
                return with_status("an empty response");
            }
            if let Some(Node::Sym(p) | Node::Str(p)) = keyword(call, "partial") {
                let name = words(p.rsplit('/').next().unwrap_or(p));
                return match status {
                    Some(code) if code != 200 => Outcome::new(
                        format!("renders {name} partial with {code} status"),
                        code >= 400,
                    ),
                    _ => Outcome::new(format!("renders {name} partial"), false),
                };
            }
            if let Some(json) = keyword(call, "json") {
                let failure = status.is_some_and(|s| s >= 400);
                // What the JSON holds, when the code names it: `render json:
                // @article.errors` renders the article's errors.
                let what = match json {
                    Node::Call(c) if c.name == "errors" => c
                        .recv
                        .as_ref()
                        .map(|r| format!("the {} errors as JSON", receiver_words(r))),
                    _ => None,
                };
                return match (status, what) {
                    (Some(code), Some(what)) if code != 200 => {
                        Outcome::new(format!("renders {what} with {code} status"), failure)
                    }
                    (_, Some(what)) => Outcome::new(format!("renders {what}"), failure),
                    (Some(code), None) if code != 200 => {
                        Outcome::new(format!("returns JSON response with {code} status"), failure)
                    }
                    _ => Outcome::new("returns JSON response", failure),
                };
            }
            // `render :new`, `render "new"`, `render action: :new`, `render template:
            // "stories/index"`.
            let named = |n: &Node| match n {
                Node::Sym(s) | Node::Str(s) => Some(words(s.rsplit('/').next().unwrap_or(s))),
                _ => None,
            };
            let template = call
                .args
                .first()
                .and_then(named)
                .or_else(|| keyword(call, "action").and_then(named))
                .or_else(|| keyword(call, "template").and_then(named))
                .unwrap_or_else(|| "default".to_string());
            match status {
                Some(code) if code != 200 => Outcome::new(
                    format!("renders {template} template with {code} status"),
                    code >= 400,
                ),
                _ => Outcome::new(format!("renders {template} template"), false),
            }
        }
    }
}

fn keyword<'n>(call: &'n Call, key: &str) -> Option<&'n Node> {
    call.args.iter().find_map(|a| match a {
        Node::Hash(pairs) => pairs.iter().find_map(|(k, v)| match k {
            Node::Sym(s) | Node::Str(s) if s == key => Some(v),
            _ => None,
        }),
        _ => None,
    })
}

/// An HTTP status from `:not_found`, `404`, `:unprocessable_entity`, ...
pub fn status_code(node: &Node) -> Option<u16> {
    match node {
        Node::Int(i) => u16::try_from(*i).ok(),
        Node::Sym(s) | Node::Str(s) => Some(match s.as_str() {
            "ok" => 200,
            "created" => 201,
            "accepted" => 202,
            "no_content" => 204,
            "moved_permanently" => 301,
            "found" => 302,
            "see_other" => 303,
            "not_modified" => 304,
            "bad_request" => 400,
            "unauthorized" => 401,
            "payment_required" => 402,
            "forbidden" => 403,
            "not_found" => 404,
            "method_not_allowed" => 405,
            "not_acceptable" => 406,
            "conflict" => 409,
            "gone" => 410,
            "unprocessable_entity" | "unprocessable_content" => 422,
            "locked" => 423,
            "too_many_requests" => 429,
            "internal_server_error" => 500,
            "not_implemented" => 501,
            "bad_gateway" => 502,
            "service_unavailable" => 503,
            _ => return None,
        }),
        _ => None,
    }
}

/// `@payment` → `payment`, `admin_users_path` → `admin users path`, `root_path` → `root path`.
fn path_words(node: &Node) -> String {
    match node {
        Node::Ivar(n) | Node::Lvar(n) => words(n),
        Node::Call(c) if c.recv.is_none() => words(&c.name),
        // `Routes.title_path(@story)`, `main_app.root_url`: the route's name.
        Node::Call(c) if c.name.ends_with("_path") || c.name.ends_with("_url") => words(&c.name),
        Node::Str(s) if !s.contains("#{") && s.len() <= 40 => s.clone(),
        Node::Sym(s) => words(s),
        Node::Array(items) => items
            .last()
            .map(path_words)
            .unwrap_or_else(|| "the resource".to_string()),
        // `redirect_to action: :show`, `{controller: "x", action: :y}`.
        Node::Hash(pairs) => {
            let get = |key: &str| {
                pairs.iter().find_map(|(k, v)| match (k, v) {
                    (Node::Sym(k), Node::Sym(v) | Node::Str(v)) if k == key => Some(words(v)),
                    _ => None,
                })
            };
            match (get("controller"), get("action")) {
                (Some(c), Some(a)) => format!("{c} {a}"),
                (None, Some(a)) => format!("the {a} action"),
                (Some(c), None) => c,
                (None, None) => "the given page".to_string(),
            }
        }
        other => super::phrase::noun(other),
    }
}

/// What returning `value` means.
pub fn returned(value: &Node, cx: &TextContext<'_>) -> Outcome {
    match value {
        Node::Nil => Outcome::new("returns nil", true),
        Node::False => Outcome::new("returns false", true),
        Node::True => Outcome::new("returns true", false),
        Node::Int(i) => Outcome::new(format!("returns {i}"), false),
        Node::Float(f) => Outcome::new(format!("returns {f}"), false),
        Node::Sym(s) => Outcome::new(format!("returns :{s}"), is_failure_word(s)),
        Node::Str(_) => Outcome::new(format!("returns {}", super::phrase::noun(value)), false),
        Node::Hash(pairs) => result_hash(pairs),
        Node::Array(items) if items.is_empty() => Outcome::new("returns an empty list", false),
        _ => final_expression(value, cx),
    }
}

fn is_failure_word(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    [
        "fail",
        "error",
        "invalid",
        "denied",
        "forbidden",
        "unauthorized",
        "rejected",
        "not_",
    ]
    .iter()
    .any(|p| w.contains(p))
}

fn result_hash(pairs: &[(Node, Node)]) -> Outcome {
    let get = |key: &str| {
        pairs.iter().find_map(|(k, v)| match k {
            Node::Sym(s) | Node::Str(s) if s == key => Some(v),
            _ => None,
        })
    };
    match (
        get("success").or_else(|| get("ok")),
        get("error").or_else(|| get("errors")),
    ) {
        (Some(Node::True), _) => Outcome::new("returns success result", false),
        (Some(Node::False), Some(Node::Sym(reason))) => {
            Outcome::new(format!("returns {} failure result", words(reason)), true)
        }
        (Some(Node::False), _) => Outcome::new("returns failure result", true),
        (None, Some(Node::Sym(reason))) => {
            Outcome::new(format!("returns {} error result", words(reason)), true)
        }
        (None, Some(_)) => Outcome::new("returns error result", true),
        _ => Outcome::new("returns a result hash", false),
    }
}

/// The outcome of the last expression of a path.
pub fn final_expression(node: &Node, cx: &TextContext<'_>) -> Outcome {
    match node {
        Node::Seq(items) => match items.last() {
            Some(last) => final_expression(last, cx),
            None => Outcome::new("returns nil", true),
        },
        Node::Return { value: None, .. } => Outcome::new("returns nil", true),
        Node::Return { value: Some(v), .. } => returned(v, cx),
        Node::Nil
        | Node::False
        | Node::True
        | Node::Int(_)
        | Node::Float(_)
        | Node::Sym(_)
        | Node::Str(_)
        | Node::Hash(_) => returned(node, cx),
        Node::Call(call) => call_outcome(call, cx),
        Node::Assign {
            target, op, value, ..
        } => match (target, op, value.as_ref()) {
            (crate::index::body::Target::Ivar(name), crate::index::body::AssignOp::OrSet, _) => {
                Outcome::new(format!("returns cached {}", words(name)), false)
            }
            (_, _, v) => final_expression(v, cx),
        },
        Node::Ivar(n) | Node::Lvar(n) => Outcome::new(format!("returns the {}", words(n)), false),
        Node::SelfRef => Outcome::new(format!("returns the {}", words(cx.class_name)), false),
        Node::Const { path, .. } => Outcome::new(format!("returns {path}"), false),
        Node::Begin(b) => final_expression(&b.body, cx),
        // `as || record`: a value with a fallback, not a yes or no.
        Node::Or(a, b, _) if !super::flow::boolean_ish(node) => Outcome::guess(
            format!(
                "returns {} or else {}",
                super::phrase::noun(a),
                super::phrase::noun(b)
            ),
            false,
        ),
        Node::Not(_) | Node::And(..) | Node::Or(..) => Outcome::guess(
            format!("returns whether {}", super::phrase::predicate(node)),
            false,
        ),
        Node::Jump { keyword, .. } => Outcome::new(
            if *keyword == "next" {
                "skips to the next one"
            } else {
                "stops going through them"
            },
            false,
        ),
        Node::Yield { .. } => Outcome::new("returns the block's result", false),
        Node::Super { .. } => Outcome::new("returns the inherited result", false),
        // `retry` in a rescue clause runs the protected code again.
        Node::Other { text, .. } if text == "retry" => {
            Outcome::new("retries the protected code", false)
        }
        _ => value_outcome(node),
    }
}

/// What an expression without a known pattern does: its action when it is a command
/// (`flash[:notice] = ...` → `sets the notice flash message`), else what it returns, in
/// words (a guess: J02).
fn value_outcome(node: &Node) -> Outcome {
    match super::phrase::action(node) {
        Some(action) => Outcome::guess(action, false),
        None => Outcome::guess(format!("returns {}", super::phrase::noun(node)), false),
    }
}

fn call_outcome(call: &Call, cx: &TextContext<'_>) -> Outcome {
    let name = call.name.as_str();
    if call.recv.is_none() {
        if let Some(exit) = exit_of(&Node::Call(Box::new(call.clone())), cx) {
            return exit;
        }
        match name {
            "update!" | "update" => {
                return Outcome::new(format!("updates the {}", words(cx.class_name)), false)
            }
            "save!" | "save" => {
                return Outcome::new(format!("saves the {}", words(cx.class_name)), false)
            }
            "destroy!" | "destroy" => {
                return Outcome::new(format!("destroys the {}", words(cx.class_name)), false)
            }
            "mail" => {
                return Outcome::new(format!("builds the {} email", words(cx.method_name)), false)
            }
            _ => {}
        }
    }
    // Mailer deliveries: `PaymentMailer.receipt(p).deliver_later`, `Mailer.deliver_x`,
    // notifiers: the side effect's own words.
    if let Some(text) = super::side_effects::delivery_text(call, cx.class_name) {
        return Outcome::new(text, false);
    }
    if name == "perform_all_later" {
        return Outcome::new("enqueues the jobs".to_string(), false);
    }
    // `Shop::Bus.publish(:kit_allocated, kit: kit)`: the event, as the side effect says.
    if matches!(name, "publish" | "emit") && matches!(call.recv, Some(Node::Const { .. })) {
        if let Some(event) = super::side_effects::first_name(call) {
            return Outcome::new(format!("publishes {event} event"), false);
        }
    }
    // `CachePageJob.set(wait: 2.minutes).perform_later(path)`: the job, with its options.
    if matches!(
        name,
        "perform_later" | "perform_async" | "perform_in" | "perform_at"
    ) {
        if let Some(Node::Call(set)) = &call.recv {
            if set.name == "set" {
                if let Some(Node::Const { path, .. }) = &set.recv {
                    return Outcome::new(format!("enqueues {}", words(path)), false);
                }
            }
        }
    }
    let receiver = call.recv.as_ref().map(receiver_words);
    if let Some(Node::Const { path, .. }) = &call.recv {
        match name {
            "create!" | "create" => {
                return Outcome::new(format!("creates the {}", words(path)), false)
            }
            "call" | "perform" | "run" | "execute" => {
                return Outcome::new(format!("calls {}", words(path)), false)
            }
            "perform_later" | "perform_async" | "perform_now" => {
                return Outcome::new(format!("enqueues {}", words(path)), false)
            }
            "find" | "find_by!" => {
                return Outcome::new(format!("returns the {}", words(path)), false)
            }
            "find_by" => return Outcome::new(format!("returns the {} or nil", words(path)), false),
            "new" => return Outcome::new(format!("returns a new {}", words(path)), false),
            _ => {}
        }
    }
    if name == "call" {
        if let Some(Node::Call(inner)) = &call.recv {
            if inner.name == "new" {
                if let Some(Node::Const { path, .. }) = &inner.recv {
                    return Outcome::new(format!("calls {}", words(path)), false);
                }
            }
        }
    }
    if name == "first" || name == "last" {
        if let Some(Node::Call(inner)) = &call.recv {
            if inner.name == "where" {
                if let Some(Node::Const { path, .. }) = &inner.recv {
                    return Outcome::new(format!("returns {} or nil", words(path)), false);
                }
            }
        }
    }
    let subject = receiver.unwrap_or_else(|| words(cx.class_name));
    match name {
        "save!" | "save" => Outcome::new(format!("saves the {subject}"), false),
        "update_column" | "update_attribute" => match call.args.first() {
            Some(Node::Sym(attr) | Node::Str(attr)) => {
                Outcome::new(format!("updates the {subject} {}", words(attr)), false)
            }
            _ => Outcome::new(format!("updates the {subject}"), false),
        },
        "update!" | "update" | "update_columns" => {
            Outcome::new(format!("updates the {subject}"), false)
        }
        // `Hash#delete(key)`, `Set#delete(x)`: one entry out of a collection (a record's
        // `delete` takes no argument).
        "delete" if !call.args.is_empty() => Outcome::new(
            format!(
                "removes {} from the {subject}",
                call.args.first().map(receiver_words).unwrap_or_default()
            ),
            false,
        ),
        "destroy!" | "destroy" | "delete" => Outcome::new(format!("destroys the {subject}"), false),
        "touch" => Outcome::new(format!("touches the {subject}"), false),
        "reload" => Outcome::new(format!("reloads the {subject}"), false),
        ">=" | ">" | "<=" | "<" | "==" | "!=" | "=~" | "!~" => Outcome::guess(
            format!(
                "returns whether {}",
                super::phrase::predicate(&Node::Call(Box::new(call.clone())))
            ),
            false,
        ),
        "respond_to" if call.recv.is_none() => {
            Outcome::new(format!("renders {} template", words(cx.method_name)), false)
        }
        // `find_by! short_id:`, `Story.find_by!(slug: s)`: what it finds the record by.
        "find_by!" | "find_or_create_by!" => {
            let keys: Vec<String> = match call.args.first() {
                Some(Node::Hash(pairs)) => pairs.iter().map(|(k, _)| receiver_words(k)).collect(),
                _ => Vec::new(),
            };
            let by = if keys.is_empty() {
                String::new()
            } else {
                format!(" by {}", keys.join(" and "))
            };
            let verb = if name == "find_by!" {
                "finds"
            } else {
                "finds or creates"
            };
            Outcome::new(format!("{verb} the {subject}{by}"), false)
        }
        _ if name.ends_with('!') && call.recv.is_some() => {
            Outcome::guess(bang_text(name, &subject), false)
        }
        _ if name.ends_with('?') => Outcome::guess(
            format!(
                "returns whether {}",
                super::phrase::predicate(&Node::Call(Box::new(call.clone())))
            ),
            false,
        ),
        // `perform!`, `validate_x!`: a command on the record itself.
        _ if name.ends_with('!') => Outcome::guess(bang_text(name, &subject), false),
        _ if call.recv.is_none() && call.args.is_empty() && call.block.is_none() => {
            match super::phrase::verb_phrase(name) {
                Some(verb) => Outcome::guess(verb, false),
                None => Outcome::new(format!("returns the {}", words(name)), false),
            }
        }
        _ => value_outcome(&Node::Call(Box::new(call.clone()))),
    }
}

/// `refunded!` → `marks the payment as refunded`; `mark_completed!` → `marks the payment
/// completed`; `capture_funds!` → `captures the payment funds`.
fn bang_text(name: &str, subject: &str) -> String {
    let bare = name.trim_end_matches('!');
    match bare.split_once('_') {
        // Rails enum bangs set a state (`refunded!`); others are verbs (`refund!`).
        None if bare.ends_with("ed") => format!("marks the {subject} as {}", words(bare)),
        None => format!("{} the {subject}", third_person(bare)),
        Some((verb, rest)) => format!("{} the {subject} {}", third_person(verb), words(rest)),
    }
}

fn third_person(verb: &str) -> String {
    if verb.ends_with('s') || verb.ends_with("sh") || verb.ends_with("ch") || verb.ends_with('x') {
        format!("{verb}es")
    } else if verb.ends_with('y') && !verb.ends_with("ay") && !verb.ends_with("ey") {
        format!("{}ies", verb.trim_end_matches('y'))
    } else {
        format!("{verb}s")
    }
}

fn receiver_words(node: &Node) -> String {
    match node {
        Node::Lvar(n) | Node::Ivar(n) => words(n),
        Node::Const { path, .. } => words(path),
        Node::SelfRef => "record".to_string(),
        Node::Call(c) if c.recv.is_none() => words(&c.name),
        // `@source[feature.key][gate.key]`: the collection, then each key.
        Node::Call(c) if c.name == "[]" => std::iter::once(receiver_words_opt(c.recv.as_ref()))
            .chain(c.args.iter().map(receiver_words))
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
        Node::Sym(s) | Node::Str(s) => words(s),
        Node::Call(c) => format!("{} {}", receiver_words_opt(c.recv.as_ref()), words(&c.name))
            .trim()
            .to_string(),
        _ => "result".to_string(),
    }
}

fn receiver_words_opt(node: Option<&Node>) -> String {
    node.map(receiver_words).unwrap_or_default()
}

/// The helpers that respond on every path, by name.
#[derive(Debug, Clone, Default)]
pub struct Responders {
    map: HashMap<String, Outcome>,
}

impl Responders {
    /// The helpers a controller's chain defines whose every path responds, by name.
    pub fn from_map(map: HashMap<String, Outcome>) -> Self {
        Responders { map }
    }

    /// The response of a call to helper `name`.
    pub fn get(&self, name: &str) -> Option<Outcome> {
        self.map.get(name).cloned().or_else(|| Self::by_name(name))
    }

    /// Helpers whose name says their status: `render_404`, `render_forbidden`,
    /// `head_not_found`, `respond_with_unauthorized`.
    pub fn by_name(name: &str) -> Option<Outcome> {
        // `redirect_to_referer_or`, `redirect_back_or_default`: a redirect.
        if name.starts_with("redirect_") {
            return super::phrase::verb_phrase(name).map(|text| Outcome::new(text, false));
        }
        let rest = ["render_", "head_", "respond_with_"]
            .iter()
            .find_map(|p| name.strip_prefix(p))?;
        let code = match rest.parse::<u16>() {
            Ok(code) if (100..600).contains(&code) => code,
            _ => status_code(&Node::Sym(rest.to_string()))?,
        };
        Some(Outcome::new(format!("returns {code} status"), code >= 400))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    fn body(src: &str) -> Node {
        let facts = extract_with("t.rb", src.as_bytes(), &ExtractOptions::with_bodies());
        *facts.methods[0].body.clone().expect("body")
    }

    fn cx(controller: bool) -> TextContext<'static> {
        TextContext {
            class_name: "Payment",
            method_name: "refund",
            controller,
            action: controller,
            filter: false,
            responders: None,
        }
    }

    fn exit(src: &str, controller: bool) -> Option<(String, bool)> {
        exit_of(&body(src), &cx(controller)).map(|o| (o.description, o.failure))
    }

    #[test]
    fn exits_and_their_texts() {
        assert_eq!(
            exit("def a\n  raise Unauthorized\nend", false),
            Some(("raises Unauthorized".into(), true))
        );
        assert_eq!(
            exit("def a\n  raise Errors::Bad, 'x'\nend", false),
            Some(("raises Errors::Bad".into(), true))
        );
        assert_eq!(
            exit("def a\n  raise 'boom'\nend", false),
            Some(("raises RuntimeError".into(), true))
        );
        assert_eq!(
            exit("def a\n  return\nend", false),
            Some(("returns nil".into(), true))
        );
        assert_eq!(
            exit(
                "def a\n  return { success: false, error: :not_refundable }\nend",
                false
            ),
            Some(("returns NOT refundable failure result".into(), true))
        );
        assert_eq!(
            exit("def a\n  head :forbidden\nend", true),
            Some(("returns 403 status".into(), true))
        );
        assert_eq!(exit("def a\n  head :forbidden\nend", false), None);
        assert_eq!(
            exit("def a\n  redirect_to root_path and return\nend", true),
            Some(("redirects to root path".into(), false))
        );
        assert_eq!(exit("def a\n  x = 1\nend", false), None);
    }

    #[test]
    fn final_expressions() {
        let text =
            |src: &str, controller: bool| final_expression(&body(src), &cx(controller)).description;
        assert_eq!(
            text("def a\n  { success: true, status: :completed }\nend", false),
            "returns success result"
        );
        assert_eq!(
            text("def a\n  update!(status: :done)\nend", false),
            "updates the payment"
        );
        // What a `find_by!` finds the record by, shorthand keys included.
        assert_eq!(
            text("def a(short_id)\n  find_by! short_id:\nend", false),
            "finds the payment by short id"
        );
        assert_eq!(
            text("def a(s)\n  find_by!(slug: s, state: 1)\nend", false),
            "finds the payment by slug and state"
        );
        // A value with a fallback is no yes or no; two tests joined are.
        assert_eq!(
            text("def a(as, record)\n  as || record\nend", false),
            "returns as or else record"
        );
        assert_eq!(
            text("def a\n  admin? || owner?\nend", false),
            "returns whether admin or owner"
        );
        assert_eq!(
            text("def a\n  Invoice.create!(x: 1)\nend", false),
            "creates the invoice"
        );
        assert_eq!(
            text(
                "def a\n  PaymentMailer.receipt(p).deliver_later\nend",
                false
            ),
            "sends receipt email"
        );
        assert_eq!(
            text("def a\n  render json: @payment\nend", true),
            "returns JSON response"
        );
        assert_eq!(
            text(
                "def a\n  render :new, status: :unprocessable_entity\nend",
                true
            ),
            "renders new template with 422 status"
        );
        assert_eq!(
            text("def a\n  @payments ||= Payment.all\nend", false),
            "returns cached payments"
        );
        assert_eq!(
            text("def a\n  payment.refunded!\nend", false),
            "marks the payment as refunded"
        );
        assert_eq!(
            text("def a\n  payment.mark_completed!(1)\nend", false),
            "marks the payment completed"
        );
        assert_eq!(
            text("def a\n  total_cents\nend", false),
            "returns the total cents"
        );
    }
}
