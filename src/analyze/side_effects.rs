//! Side effects (contract §5 rule 24): what a method does to the world besides its result.
//! Each becomes its own example in every non-terminal leaf context.
//!
//! | call | type | text |
//! |---|---|---|
//! | `XMailer.m(...).deliver_now/later` | email | `sends m email` |
//! | `WebhookSender.call(:event, ...)`, `*Webhook*` | webhook | `sends event notification` |
//! | `Rails.cache.write/fetch/delete`, `Redis`, `$redis` | cache | `caches key` / `clears cached key` |
//! | `expire_fragment/expire_page/expire_action(key)` | cache | `expires the cached fragment key` |
//! | `EventBus.publish(:e)`, `ActiveSupport::Notifications.instrument("e")` | event | `publishes e event` |
//! | `XJob.perform_later/perform_async` | event | `enqueues x job` (\[J\]: an enqueue is an event) |
//! | `HTTP.post`, `Faraday`, `HTTParty`, `Net::HTTP`, `RestClient`, an `@http` client | external_api | `calls the x API` |
//!
//! The config's `side_effects` rules (`pattern: "SlackNotifier.*"`) come first.

use globset::GlobBuilder;

use super::SideEffectRule;
use crate::index::body::{walk, Call, Node, Visitor};

use super::clients::{Clients, REQUEST_CALLS};
use super::grammar::{self, words};
use super::model::{BehaviorDraft, BehaviorKind, SideEffect};
use super::types::{ClassKind, Lookup, ProjectFiles, TypeEnv};

/// Finds side effects in `nodes`, in order of appearance, each once. `project`, when
/// given, tells a class the app defines from a constant it assigns an object to.
pub fn collect(
    nodes: &[&Node],
    env: &TypeEnv,
    lookup: &Lookup,
    rules: &[SideEffectRule],
    own: &str,
    clients: &Clients,
    project: Option<&dyn ProjectFiles>,
) -> Vec<SideEffect> {
    let mut finder = Finder {
        env,
        lookup,
        rules,
        own,
        clients,
        project,
        blocks: Vec::new(),
        out: Vec::new(),
    };
    for node in nodes {
        walk(&mut finder, node);
    }
    finder.out
}

struct Finder<'a> {
    env: &'a TypeEnv,
    lookup: &'a Lookup,
    rules: &'a [SideEffectRule],
    own: &'a str,
    clients: &'a Clients,
    project: Option<&'a dyn ProjectFiles>,
    /// Block parameters that hold a client (`|http|` of `Net::HTTP.start`), innermost last.
    blocks: Vec<(String, String)>,
    out: Vec<SideEffect>,
}

impl<'n> Visitor<'n> for Finder<'_> {
    fn enter(&mut self, node: &'n Node) -> bool {
        let Node::Call(c) = node else {
            return true;
        };
        let effect = classify(c, self);
        // A block given a client (`Net::HTTP.start(host) { |http| ... }`,
        // `Sidekiq.redis { |conn| ... }`): its first parameter holds that client inside.
        // A constructor's block configures the client (`Faraday.new { |f| f.request :json }`
        // yields a builder, not a connection): only a call that opens one yields it.
        let yielded = c
            .block
            .as_ref()
            .filter(|b| !b.params.is_empty() && !matches!(c.name.as_str(), "new" | "configure"))
            .and_then(|_| self.clients.root_of(node, &self.blocks));
        if effect.is_none() && yielded.is_none() {
            return true;
        }
        if let Some(effect) = effect {
            if !self
                .out
                .iter()
                .any(|e| e.behavior.description == effect.behavior.description)
            {
                self.out.push(effect);
            }
        }
        // The chain of a recognised call (`Mailer.m(x)` inside `.deliver_later`) is part of
        // it; its arguments and block are not.
        for a in &c.args {
            walk(self, a);
        }
        if let Some(b) = &c.block {
            let pushed = match (&yielded, b.params.first()) {
                (Some(root), Some(param)) => {
                    self.blocks.push((param.clone(), root.clone()));
                    true
                }
                _ => false,
            };
            walk(self, &b.body);
            if pushed {
                self.blocks.pop();
            }
        }
        false
    }
}

fn effect(kind: &'static str, text: String) -> SideEffect {
    SideEffect {
        kind,
        behavior: BehaviorDraft {
            description: grammar::behavior(&text),
            kind: BehaviorKind::SideEffect,
            subtype: Some(kind),
        },
        leaf: false,
        via: None,
    }
}

/// The receiver's name for matching: a constant path, or the class of a typed variable.
fn receiver_name(recv: &Node, env: &TypeEnv, lookup: &Lookup, own: &str) -> Option<String> {
    match recv {
        Node::Const { path, .. } => Some(path.clone()),
        Node::Call(c) if c.name == "cache" => match &c.recv {
            Some(Node::Const { path, .. }) if path == "Rails" => Some("Rails.cache".to_string()),
            _ => None,
        },
        Node::Call(c) if c.name == "new" => match &c.recv {
            Some(Node::Const { path, .. }) => Some(path.clone()),
            _ => None,
        },
        other => env.class_of(other, lookup, own),
    }
}

/// The name a call's first argument gives (an event, a webhook): `:kit_allocated` →
/// `kit allocated`, `"order.paid"` kept whole and quoted.
pub(crate) fn first_name(c: &Call) -> Option<String> {
    c.args.first().and_then(|a| match a {
        // `"order.paid"`: a dotted name is a name, kept whole and quoted.
        Node::Sym(s) | Node::Str(s) if s.contains('.') => Some(format!("\"{s}\"")),
        Node::Sym(s) | Node::Str(s) => Some(words(s)),
        Node::Other { text, .. } => {
            // "invoices/#{id}" → invoices
            let t = text.trim_matches(['"', '\'', ':']);
            let head: String = t
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ' ')
                .collect();
            (!head.is_empty()).then(|| words(&head))
        }
        _ => None,
    })
}

fn classify(c: &Call, f: &Finder<'_>) -> Option<SideEffect> {
    let (env, lookup, rules, own) = (f.env, f.lookup, f.rules, f.own);
    let name = c.name.as_str();
    // Rails' fragment, page and action caches (a controller's or a sweeper's, or
    // `ActionController::Base.new.expire_fragment(key)` anywhere).
    if matches!(name, "expire_fragment" | "expire_page" | "expire_action") && !c.args.is_empty() {
        let what = match name {
            "expire_page" => "page",
            "expire_action" => "action",
            _ => "fragment",
        };
        let text = match first_name(c) {
            Some(key) => format!("expires the cached {what} {key}"),
            None => format!("expires a cached {what}"),
        };
        return Some(effect("cache", text));
    }
    if let Some(mail) = devise_mail(c, f.clients) {
        return Some(mail);
    }
    // `perform_later(...)` inside a job's own class method enqueues that job.
    if c.recv.is_none() {
        if ENQUEUES.contains(&name) && (own.ends_with("Job") || own.ends_with("Worker")) {
            let last = own.rsplit("::").next().unwrap_or(own);
            return Some(effect("event", format!("enqueues {}", words(last))));
        }
        if turbo_broadcast(name) {
            // Turbo's `broadcast_replace_to` and friends on a model; a method of the class
            // named `broadcast_x` (`broadcast_announcement_params`) is not one, what it
            // does is read from its body.
            // Each action its own effect: `broadcast_replace_to` and `broadcast_refresh`
            // in one method are two broadcasts.
            let action = turbo_action(name).unwrap_or("update");
            return Some(effect(
                "event",
                format!("broadcasts a {action} of the {}", words(own)),
            ));
        }
        if name == "perform_all_later" {
            return Some(effect("event", "enqueues the jobs".to_string()));
        }
        // A method of the class that returns a client is the client, not a call on it.
        return None;
    }
    let recv = c.recv.as_ref()?;
    // `CachePageJob.set(wait: 1.minute).perform_later`: the job is `set`'s receiver.
    let recv = match recv {
        Node::Call(set) if set.name == "set" && matches!(set.recv, Some(Node::Const { .. })) => {
            set.recv.as_ref().unwrap_or(recv)
        }
        other => other,
    };
    let target = receiver_name(recv, env, lookup, own);
    if let Some(target) = &target {
        let key = format!("{target}.{name}");
        for rule in rules {
            let matches = GlobBuilder::new(&rule.pattern)
                .literal_separator(false)
                .build()
                .map(|g| g.compile_matcher().is_match(&key))
                .unwrap_or(false);
            if matches {
                let kind = crate::analyze::SIDE_EFFECT_TYPES
                    .iter()
                    .copied()
                    .find(|t| *t == rule.kind)
                    .unwrap_or("event");
                let text = rule
                    .description
                    .clone()
                    .unwrap_or_else(|| format!("calls {}", words(target)));
                return Some(effect(kind, text));
            }
        }
    }
    if let Some(mail) = delivery(c, recv, own) {
        return Some(mail);
    }
    if (matches!(name, "broadcast" | "broadcast_to") || turbo_broadcast(name))
        && !matches!(recv, Node::SelfRef)
    {
        // ActionCable `ActionCable.server.broadcast`, `Channel.broadcast_to`, Turbo's
        // `Turbo::StreamsChannel.broadcast_replace_to`, `record.broadcast_refresh`. Another
        // name (`family.broadcast_sync_complete`) is the app's own method, one call away.
        // Turbo's action tells two broadcasts of a method apart when no stream is named
        // (`broadcast_replace_to(account, ...)` and `broadcast_refresh`).
        let stream = first_name(c).unwrap_or_else(|| match turbo_action(name) {
            Some(action) => format!("a {action} update"),
            None => "the update".to_string(),
        });
        return Some(effect("event", format!("broadcasts {stream}")));
    }
    if name == "perform_all_later" {
        // `ActiveJob.perform_all_later(jobs)`.
        return Some(effect("event", "enqueues the jobs".to_string()));
    }
    // What the call is made on: a client of a remote service or a store, wherever it is
    // held (a local, an ivar, a method of the class, a block parameter, a chain).
    // A variable typed by what it was built from counts when it holds a client
    // (`s3 = Aws::S3::Client.new`), not a resource an SDK returned (`charge =
    // Stripe::Charge.create(...)`: `charge.paid` reads an attribute).
    let client = f.clients.root_of(recv, &f.blocks).or_else(|| {
        target
            .as_deref()
            .filter(|t| {
                let last = t.rsplit("::").next().unwrap_or(t);
                matches!(recv, Node::Const { .. })
                    || last.ends_with("Client")
                    || last.ends_with("Service")
                    || !t.contains("::")
            })
            .and_then(|t| f.clients.root_of(&const_node(t), &f.blocks))
    });
    if let Some(root) = client.as_deref().filter(|r| Clients::is_store(r)) {
        let key = first_name(c).unwrap_or_else(|| "data".to_string());
        let _ = root;
        return match name {
            "write" | "fetch" | "set" | "setex" | "setnx" | "increment" | "incr" | "incrby"
            | "decrement" | "decr" | "decrby" | "write_multi" | "fetch_multi" | "hset"
            | "hincrby" | "hsetnx" | "lpush" | "rpush" | "sadd" | "zadd" | "zincrby" | "expire"
            | "mset" | "pfadd" => Some(effect("cache", format!("caches {key}"))),
            "delete" | "delete_matched" | "del" | "clear" | "unlink" | "srem" | "hdel" | "zrem"
            | "lpop" | "rpop" | "flushdb" => Some(effect("cache", format!("clears cached {key}"))),
            _ => None,
        };
    }
    let target = target.unwrap_or_default();
    let last = target.rsplit("::").next().unwrap_or(&target).to_string();
    // A webhook is a request sent to a hook, not any call on something named Webhook
    // (`Webhook.new`, `@webhook.save`).
    if (target.contains("Webhook") || last.ends_with("Hook"))
        && [
            "deliver",
            "deliver_now",
            "call",
            "perform",
            "post",
            "trigger",
            "fire",
            "execute",
            "notify",
            "send_payload",
            "dispatch",
        ]
        .contains(&name)
    {
        let event = first_name(c).unwrap_or_else(|| "the webhook".to_string());
        return Some(effect("webhook", format!("sends {event} notification")));
    }
    // `publish` on a class of the app is that class's own method: what it does (a row, a
    // broadcast) is found one call away, not guessed from its name. A constant the app
    // assigns a bus to (`Bus = Omnes::Bus.new` in `lib/spree/bus.rb`) is no class of its
    // own: publishing on it is the event.
    let app_class = !target.is_empty()
        && lookup.kind(&target) != ClassKind::Unknown
        && f.project.is_none_or(|p| defines(p, &target, name));
    if (target == "ActiveSupport::Notifications" && name == "instrument")
        || (["publish", "emit"].contains(&name) && !matches!(recv, Node::SelfRef) && !app_class)
    {
        let event = first_name(c).unwrap_or_else(|| words(&last));
        return Some(effect("event", format!("publishes {event} event")));
    }
    // `perform_later`/`perform_async` are ActiveJob's and Sidekiq's enqueues, whatever the
    // class is called (`UserDeleter.perform_async(id)`) or holds it (`job_class.perform_async`).
    if ENQUEUES.contains(&name) && !matches!(recv, Node::SelfRef) {
        let job = if last.ends_with("Job") || last.ends_with("Worker") {
            words(&last)
        } else if matches!(recv, Node::Const { .. }) {
            format!("{} job", words(&last))
        } else {
            "the job".to_string()
        };
        return Some(effect("event", format!("enqueues {job}")));
    }
    // The mandate gem's `Command.defer(args)` enqueues the command as a job
    // (`MandateJob.perform_later`); only where the lockfile has the gem.
    if name == "defer" && matches!(recv, Node::Const { .. }) && f.clients.locks_gem("mandate") {
        return Some(effect("event", format!("enqueues {} job", words(&last))));
    }
    if target == "Sidekiq::Client" && ["push", "push_bulk", "enqueue", "enqueue_to"].contains(&name)
    {
        return Some(effect("event", "enqueues a Sidekiq job".to_string()));
    }
    let open_uri = name == "open" && (target == "URI" || recv_is_kernel(recv));
    let http = client.as_deref().is_some_and(Clients::is_http)
        || (last.ends_with("Client")
            && ["get", "post", "put", "patch", "delete", "request"].contains(&name));
    if open_uri || (http && REQUEST_CALLS.contains(&name)) {
        // A request to a hook URL, or from a webhook sender, is a webhook.
        if own.contains("Webhook")
            || c.args
                .iter()
                .any(|a| a.render().to_ascii_lowercase().contains("hook"))
        {
            return Some(effect("webhook", "sends the webhook request".to_string()));
        }
        if open_uri {
            return Some(effect("external_api", "fetches the URL".to_string()));
        }
        let service = first_name(c)
            .filter(|s| !s.is_empty() && !s.contains('"'))
            .map(|s| format!("the {s} API"))
            .unwrap_or_else(|| match client.as_deref() {
                Some(root) if !target.is_empty() && target != root => {
                    format!("the {} API", words(&last))
                }
                Some(root) => format!(
                    "the {} API",
                    words(root.rsplit("::").next().unwrap_or(root))
                ),
                None => format!("the {} API", words(&last)),
            });
        return Some(effect("external_api", format!("calls {service}")));
    }
    if let Some(root) = client
        .as_deref()
        .filter(|r| !Clients::is_http(r) && !Clients::is_store(r))
        // What Enumerable does with an answer (`client.emails.first`) sends nothing: the
        // request is the call it is made on, found as the walk goes on.
        .filter(|_| !ENUMERABLE.contains(&name))
    {
        // An API SDK: any call but a predicate, a constructor, its configuration or what
        // it computes locally (`Stripe::Webhook.construct_event` checks a signature).
        let local = matches!(
            name,
            "new"
                | "configure"
                | "config"
                | "configuration"
                | "client"
                | "with"
                | "tap"
                | "construct_from"
                | "construct_event"
                | "parse_thin_event"
                | "parse_snapshot_event"
                | "to_h"
                | "to_json"
                | "id"
                | "[]"
        ) || name.ends_with('?')
            || name.ends_with('=');
        if !local {
            // What is called, so two calls read apart: `calls the Stripe subscription
            // update API` (`Stripe::Subscription.update`), `calls the Octokit create issue
            // API` (`client.create_issue`).
            let base = root.split("::").next().unwrap_or(root);
            let resource = target
                .strip_prefix(root)
                .map(|r| r.trim_start_matches("::"))
                .filter(|r| !r.is_empty() && !r.ends_with("Client"))
                .map(|r| format!("{} ", words(&r.replace("::", " "))))
                .or_else(|| {
                    // `client.v1.checkout.sessions.create(...)`: the resources called
                    // through (`checkout sessions`), an API version left out.
                    let mut names = Vec::new();
                    let mut at = recv;
                    while let Node::Call(inner) = at {
                        // The innermost call without a receiver is the method that holds
                        // the client (`client`), not a resource.
                        if inner.args.is_empty() && inner.recv.is_some() {
                            names.push(inner.name.as_str());
                        }
                        match &inner.recv {
                            Some(r) => at = r,
                            None => break,
                        }
                    }
                    let said: Vec<String> = names
                        .iter()
                        .rev()
                        .filter(|n| !is_version(n))
                        .map(|n| words(n))
                        .collect();
                    (!said.is_empty()).then(|| format!("{} ", said.join(" ")))
                })
                .unwrap_or_default();
            return Some(effect(
                "external_api",
                format!("calls the {base} {resource}{} API", words(name)),
            ));
        }
    }
    None
}

/// Whether the app's file for `class` defines that class or module with a method `name`
/// (either kind): then a call to it is the app's method, not the library's.
fn defines(project: &dyn ProjectFiles, class: &str, name: &str) -> bool {
    project.class_file(class).is_some_and(|(_, facts)| {
        facts
            .methods
            .iter()
            .any(|m| m.owner == class && m.name == name)
    })
}

/// Turbo's broadcasts (`Turbo::StreamsChannel.broadcast_replace_to`, a record's
/// `broadcast_refresh_later`): `broadcast_{action}[_later][_to]`.
pub fn turbo_broadcast(name: &str) -> bool {
    turbo_action(name).is_some()
}

/// The action of a Turbo broadcast (`broadcast_replace_later_to` → `replace`).
fn turbo_action(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("broadcast_")?;
    let rest = rest.strip_suffix("_to").unwrap_or(rest);
    let rest = rest.strip_suffix("_later").unwrap_or(rest);
    matches!(
        rest,
        "remove"
            | "replace"
            | "update"
            | "before"
            | "after"
            | "append"
            | "prepend"
            | "refresh"
            | "action"
            | "render"
    )
    .then_some(rest)
}

/// Enumerable's and Array's readers, which work on an answer already received.
const ENUMERABLE: &[&str] = &[
    "first",
    "last",
    "map",
    "select",
    "reject",
    "each",
    "find",
    "detect",
    "count",
    "size",
    "to_a",
    "any?",
    "dig",
    "filter_map",
    "flat_map",
    "sort_by",
    "group_by",
    "sum",
];

/// The enqueue calls of ActiveJob and Sidekiq.
const ENQUEUES: &[&str] = &[
    "perform_later",
    "perform_async",
    "perform_in",
    "perform_at",
    "perform_bulk",
];

fn const_node(path: &str) -> Node {
    Node::Const {
        path: path.to_string(),
        absolute: false,
    }
}

/// `v1`, `v2`: an API version in a client's chain.
fn is_version(name: &str) -> bool {
    name.strip_prefix('v')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn recv_is_kernel(recv: &Node) -> bool {
    matches!(recv, Node::Const { path, .. } if path == "Kernel")
}

/// A mail delivery: `UserMailer.welcome(u).deliver_later`, `UserMailer.with(u: u).welcome
/// .deliver_now`, Redmine's `Mailer.deliver_document_added(doc, user)`, a Noticed
/// notifier (`NewFollowerNotifier.with(record: f).deliver_later`), and inside a mailer
/// its own `document_added(...).deliver_later`. Building a mail (`mail(...)`) is not one.
fn delivery(c: &Call, recv: &Node, own: &str) -> Option<SideEffect> {
    let name = c.name.as_str();
    if !name.starts_with("deliver") {
        return None;
    }
    let mail_class = |path: &str| {
        let last = path.rsplit("::").next().unwrap_or(path);
        last.ends_with("Mailer") || last.ends_with("Notifier") || last.ends_with("Notification")
    };
    // `Mailer.deliver_document_added(...)`: the mail is named by the method.
    if let Node::Const { path, .. } = recv {
        if mail_class(path) {
            let mail = name
                .strip_prefix("deliver_")
                .filter(|m| !matches!(*m, "now" | "later" | "now!" | "later!"))
                .map(words);
            return Some(effect(
                "email",
                match mail {
                    Some(m) => format!("sends {m} email"),
                    None => format!("sends {} notification", notifier_words(path)),
                },
            ));
        }
    }
    let Node::Call(inner) = recv else {
        return None;
    };
    // `X.with(...)` directly: a notifier or a parameterized mailer without a method name.
    if inner.name == "with" {
        if let Some(Node::Const { path, .. }) = &inner.recv {
            if mail_class(path) {
                return Some(effect(
                    "email",
                    format!("sends {} notification", notifier_words(path)),
                ));
            }
        }
    }
    let mut mailer = inner.recv.as_ref();
    if let Some(Node::Call(with)) = mailer {
        if with.name == "with" {
            mailer = with.recv.as_ref();
        }
    }
    // `mailer.send(:waiting_list_reminder, ...)`: the mail is the one named.
    let mail = match (inner.name.as_str(), inner.args.first()) {
        ("send" | "public_send", Some(Node::Sym(m))) => m.as_str(),
        (name, _) => name,
    };
    match mailer {
        Some(Node::Const { path, .. }) if mail_class(path) => {
            Some(effect("email", format!("sends {} email", words(mail))))
        }
        // `workshop_mailer = virtual? ? VirtualMailer : WorkshopMailer`, then
        // `workshop_mailer.send(:reminder, ...).deliver_later`: a variable named for a
        // mailer holds one.
        Some(Node::Lvar(v) | Node::Ivar(v)) if v.ends_with("mailer") => {
            Some(effect("email", format!("sends {} email", words(mail))))
        }
        // Inside a mailer: `document_added(user, doc).deliver_later`.
        None if own.ends_with("Mailer") => Some(effect(
            "email",
            format!("sends {} email", words(&inner.name)),
        )),
        _ => None,
    }
}

/// A mail Devise (or devise_invitable) sends from a method it adds to the model:
/// `user.send_reset_password_instructions`, `User.send_confirmation_instructions(attrs)`,
/// `@user.invite!(current_user)`, when the project's lockfile resolves the gem. An
/// invitation whose block sets `skip_invitation` sends nothing.
fn devise_mail(c: &Call, clients: &Clients) -> Option<SideEffect> {
    let mail = match c.name.as_str() {
        "send_reset_password_instructions" => "reset password instructions",
        "send_confirmation_instructions" | "resend_confirmation_instructions" => {
            "confirmation instructions"
        }
        "send_unlock_instructions" => "unlock instructions",
        "send_email_changed_notification" => "email changed notification",
        "send_password_change_notification" => "password change notification",
        "invite!" | "deliver_invitation" if clients.locks_gem("devise_invitable") => "invitation",
        _ => return None,
    };
    if !clients.locks_gem("devise") {
        return None;
    }
    let skipped = c
        .block
        .as_ref()
        .is_some_and(|b| b.body.render().contains("skip_invitation"));
    (!skipped).then(|| effect("email", format!("sends {mail} email")))
}

/// The words of a mail delivery (`sends receipt email`), for a path that ends with one.
pub fn delivery_text(c: &Call, own: &str) -> Option<String> {
    let recv = c.recv.as_ref()?;
    delivery(c, recv, own).map(|e| e.behavior.description)
}

/// `NewFollowerNotifier` → `new follower`.
fn notifier_words(path: &str) -> String {
    let last = path.rsplit("::").next().unwrap_or(path);
    let bare = last
        .strip_suffix("Notifier")
        .or_else(|| last.strip_suffix("Notification"))
        .or_else(|| last.strip_suffix("Mailer"))
        .unwrap_or(last);
    let w = words(bare);
    if w.is_empty() {
        words(last)
    } else {
        w
    }
}

/// Whether an instance variable named like an HTTP client (`@http`, `@client`) holds one:
/// its type came from `Faraday.new` / `HTTP` in `initialize`.
pub fn is_http_ivar(name: &str, env: &TypeEnv, lookup: &Lookup) -> bool {
    matches!(env.ivar(name, lookup), Some(super::types::VarType::Instance(c)) if ["Faraday", "HTTP", "HTTParty", "RestClient"].iter().any(|h| c.starts_with(h)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    fn effects(body: &str, rules: &[SideEffectRule]) -> Vec<(&'static str, String)> {
        let src = format!("class C\n  def initialize(http: Faraday.new)\n    @http = http\n  end\n\n  def m(order)\n{body}\n  end\nend\n");
        let facts = extract_with(
            "app/services/c.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let lookup = Lookup::new(None, &facts);
        let env = TypeEnv::build(&facts.methods[1], Some(&facts.methods[0]), &lookup);
        let body = facts.methods[1].body.clone().unwrap();
        let clients = Clients::of_class(&facts, "C", None);
        collect(&[&body], &env, &lookup, rules, "C", &clients, None)
            .into_iter()
            .map(|e| (e.kind, e.behavior.description))
            .collect()
    }

    fn effects_with_gems(body: &str, gems: &[&str]) -> Vec<(&'static str, String)> {
        let src = format!("class C\n  def m(user)\n{body}\n  end\nend\n");
        let facts = extract_with(
            "app/controllers/c.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let lookup = Lookup::new(None, &facts);
        let env = TypeEnv::build(&facts.methods[0], None, &lookup);
        let body = facts.methods[0].body.clone().unwrap();
        let gems: Vec<String> = gems.iter().map(|g| (*g).to_string()).collect();
        let clients = Clients::of_class(&facts, "C", Some(&gems));
        collect(&[&body], &env, &lookup, &[], "C", &clients, None)
            .into_iter()
            .map(|e| (e.kind, e.behavior.description))
            .collect()
    }

    #[test]
    fn mails_devise_sends_from_the_model() {
        let body = "    user.send_reset_password_instructions\n    User.send_confirmation_instructions(email: user.email)\n    user.invite!(current_user)\n    User.invite!(email: user.email) { |u| u.skip_invitation = true }";
        assert_eq!(
            effects_with_gems(body, &["devise", "devise_invitable"]),
            vec![
                (
                    "email",
                    "sends reset password instructions email".to_string()
                ),
                ("email", "sends confirmation instructions email".to_string()),
                ("email", "sends invitation email".to_string()),
            ]
        );
        // Without devise_invitable, `invite!` is the app's own method; without devise,
        // nothing is Devise's.
        assert_eq!(effects_with_gems(body, &["devise"]).len(), 2);
        assert!(effects_with_gems(body, &[]).is_empty());
    }

    #[test]
    fn a_mail_through_a_variable_holding_a_mailer() {
        let body = "    workshop_mailer = user.virtual? ? VirtualInvitationMailer : InvitationMailer\n    workshop_mailer.send(:waiting_list_reminder, user).deliver_later\n    notifier.send(:ping, user).deliver_later";
        assert_eq!(
            effects_with_gems(body, &[]),
            vec![("email", "sends waiting list reminder email".to_string())]
        );
    }

    #[test]
    fn the_pattern_table() {
        let found = effects(
            "    PaymentMailer.receipt(order).deliver_later\n    WebhookSender.call(:payment_completed, order)\n    Rails.cache.delete(\"invoices/#{order.id}\")\n    ActiveSupport::Notifications.instrument(\"order.paid\")\n    SyncJob.perform_later(order.id)\n    @http.post(\"/charges\", {})\n    PaymentMailer.receipt(order).deliver_later",
            &[],
        );
        assert_eq!(
            found,
            vec![
                ("email", "sends receipt email".to_string()),
                (
                    "webhook",
                    "sends payment completed notification".to_string()
                ),
                ("cache", "clears cached invoices".to_string()),
                ("event", "publishes \"order.paid\" event".to_string()),
                ("event", "enqueues sync job".to_string()),
                ("external_api", "calls the charges API".to_string()),
            ]
        );
    }

    /// Rails' fragment, page and action caches, in a sweeper or on a controller built for
    /// it; a call with no key is no expiry.
    #[test]
    fn expired_fragments_pages_and_actions_are_cache_effects() {
        let found = effects(
            "    ActionController::Base.new.expire_fragment(\"tag_set_show_#{order.id}\")\n    expire_page(:orders)\n    expire_action(controller: \"orders\", action: \"index\")\n    expire_fragment",
            &[],
        );
        assert_eq!(
            found,
            vec![
                (
                    "cache",
                    "expires the cached fragment tag set show".to_string()
                ),
                ("cache", "expires the cached page orders".to_string()),
                ("cache", "expires a cached action".to_string()),
            ]
        );
    }

    /// The shapes of the three public apps the call-site oracle measured: Redmine's
    /// `Mailer.deliver_x`, Noticed notifiers, a job set then enqueued, open-uri, an API
    /// gem, ActionCable; and what is not a side effect (a webhook record, a mail built but
    /// not delivered, a hash's delete).
    #[test]
    fn mails_notifiers_jobs_and_what_is_not_a_side_effect() {
        let found = effects(
            "    Mailer.deliver_document_added(order, User.current)\n    NewFollowerNotifier.with(record: order).deliver_later\n    CachePageJob.set(wait: 1.minute).perform_later(order)\n    URI.open(\"https://example.com/feed\")\n    Stripe::Charge.create(amount: 1)\n    ActionCable.server.broadcast(\"orders\", order)\n    @webhook = Webhook.new(url: order.url)\n    @webhook.save\n    mail(to: order.email)\n    params.delete(:id)\n    Net::HTTP.post(URI(order.webhook_url), order.to_json)",
            &[],
        );
        assert_eq!(
            found,
            vec![
                ("email", "sends document added email".to_string()),
                ("email", "sends new follower notification".to_string()),
                ("event", "enqueues cache page job".to_string()),
                ("external_api", "fetches the URL".to_string()),
                (
                    "external_api",
                    "calls the Stripe charge create API".to_string()
                ),
                ("event", "broadcasts orders".to_string()),
                ("webhook", "sends the webhook request".to_string()),
            ]
        );
    }

    /// Clients by what holds them: a method of the class, a memoized ivar, a block
    /// parameter, a builder chain; jobs and broadcasts in their other spellings.
    #[test]
    fn clients_wherever_they_are_held_and_jobs_in_every_spelling() {
        let src = "class C\n  def connection\n    @connection ||= Faraday.new(url: BASE)\n  end\n\n  def client\n    @client ||= Octokit::Client.new(access_token: ENV['T'])\n  end\n\n  def redis\n    Redis.current\n  end\n\n  def m(order)\n    connection.post(\"/orders\", order.to_h)\n    client.create_issue(order.repo, order.title)\n    Net::HTTP.start(order.host) { |http| http.request(order.req) }\n    HTTP.auth(order.token).get(order.url)\n    Sidekiq.redis { |conn| conn.incr(\"orders\") }\n    redis.hincrby(\"stats\", \"orders\", 1)\n    ActiveJob.perform_all_later(order.jobs)\n    Turbo::StreamsChannel.broadcast_replace_to(order)\n    Sidekiq::Client.push(\"class\" => SyncWorker, \"args\" => [1])\n    client.configure { |c| c.per_page = 10 }\n    connection.get?\n    Faraday.new(url: BASE) { |f| f.request :json }\n    Stripe::Invoice.retrieve(order.invoice_id).status\n  end\nend\n";
        let facts = extract_with(
            "app/services/c.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let lookup = Lookup::new(None, &facts);
        let m = facts.methods.iter().find(|m| m.name == "m").unwrap();
        let env = TypeEnv::build(m, None, &lookup);
        let clients = Clients::of_class(&facts, "C", None);
        let found: Vec<(&str, String)> = collect(
            &[m.body.as_deref().unwrap()],
            &env,
            &lookup,
            &[],
            "C",
            &clients,
            None,
        )
        .into_iter()
        .map(|e| (e.kind, e.behavior.description))
        .collect();
        assert_eq!(
            found,
            vec![
                ("external_api", "calls the orders API".to_string()),
                (
                    "external_api",
                    "calls the Octokit create issue API".to_string()
                ),
                ("external_api", "calls the http API".to_string()),
                ("cache", "caches orders".to_string()),
                ("cache", "caches stats".to_string()),
                ("event", "enqueues the jobs".to_string()),
                ("event", "broadcasts a replace update".to_string()),
                ("event", "enqueues a Sidekiq job".to_string()),
                (
                    "external_api",
                    "calls the Stripe invoice retrieve API".to_string()
                ),
            ]
        );
    }

    /// The mandate gem's `Command.defer(args)` enqueues the command, where the lockfile
    /// resolves the gem; elsewhere `defer` says nothing.
    #[test]
    fn a_mandate_defer_is_an_enqueue_where_the_gem_is_locked() {
        let src = "class Activate\n  include Mandate\n\n  def call\n    User::SetDiscordRoles.defer(user)\n    user.defer\n  end\nend\n";
        let facts = extract_with(
            "app/commands/activate.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let lookup = Lookup::new(None, &facts);
        let m = facts.methods.iter().find(|m| m.name == "call").unwrap();
        let env = TypeEnv::build(m, None, &lookup);
        let found = |gems: &[String]| -> Vec<String> {
            let clients = Clients::of_class(&facts, "Activate", Some(gems));
            collect(
                &[m.body.as_deref().unwrap()],
                &env,
                &lookup,
                &[],
                "Activate",
                &clients,
                None,
            )
            .into_iter()
            .map(|e| e.behavior.description)
            .collect()
        };
        assert_eq!(
            found(&["mandate".to_string()]),
            vec!["enqueues set discord roles job".to_string()]
        );
        assert!(found(&["rails".to_string()]).is_empty());
    }

    /// What is called tells an effect: Turbo's and ActionCable's broadcasts (each Turbo
    /// action its own), not a method of the app named `broadcast_x`; an SDK client read
    /// through `attr_reader` and its resources (`client.v1.checkout.sessions`); the request
    /// under Enumerable's readers; and what sends nothing: an error reporter, a webhook
    /// signature check.
    #[test]
    fn broadcasts_sdk_resources_and_what_sends_nothing() {
        let src = "class C\n  attr_reader :client, :github\n\n  def initialize(key)\n    @client = Stripe::StripeClient.new(key)\n    @github = Octokit::Client.new(access_token: key)\n  end\n\n  def m(account, body, sig)\n    account.family.broadcast_sync_complete\n    broadcast_announcement_params\n    account.broadcast_replace_to(account, target: \"balance\")\n    account.broadcast_refresh\n    Sentry.capture_exception(StandardError.new)\n    client.parse_thin_event(body, sig, KEY)\n    client.v1.checkout.sessions.create(customer: account.id)\n    client.v1.customers.update(account.id, metadata: {})\n    github.emails.first\n    github.emails.select(&:primary)\n  end\nend\n";
        let facts = extract_with(
            "app/services/c.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let lookup = Lookup::new(None, &facts);
        let m = facts.methods.iter().find(|m| m.name == "m").unwrap();
        let env = TypeEnv::build(m, None, &lookup);
        let gems = vec![
            "octokit".to_string(),
            "sentry-ruby".to_string(),
            "stripe".to_string(),
        ];
        let clients = Clients::of_class(&facts, "C", Some(&gems));
        let found: Vec<(&str, String)> = collect(
            &[m.body.as_deref().unwrap()],
            &env,
            &lookup,
            &[],
            "C",
            &clients,
            None,
        )
        .into_iter()
        .map(|e| (e.kind, e.behavior.description))
        .collect();
        assert_eq!(
            found,
            vec![
                ("event", "broadcasts a replace update".to_string()),
                ("event", "broadcasts a refresh update".to_string()),
                (
                    "external_api",
                    "calls the Stripe checkout sessions create API".to_string()
                ),
                (
                    "external_api",
                    "calls the Stripe customers update API".to_string()
                ),
                ("external_api", "calls the Octokit emails API".to_string()),
            ]
        );
    }

    #[test]
    fn config_rules_come_first() {
        let rules = vec![SideEffectRule {
            pattern: "SlackNotifier.*".into(),
            kind: "webhook".into(),
            description: Some("notifies Slack".into()),
        }];
        assert_eq!(
            effects("    SlackNotifier.ping(order)", &rules),
            vec![("webhook", "notifies Slack".to_string())]
        );
        assert!(effects("    SlackNotifier.ping(order)", &[]).is_empty());
    }
}
