//! Side effects (contract §5 rule 24): what a method does to the world besides its result.
//! Each becomes its own example in every non-terminal leaf context.
//!
//! | call | type | text |
//! |---|---|---|
//! | `XMailer.m(...).deliver_now/later` | email | `sends m email` |
//! | `WebhookSender.call(:event, ...)`, `*Webhook*` | webhook | `sends event notification` |
//! | `Rails.cache.write/fetch/delete`, `Redis`, `$redis` | cache | `caches key` / `clears cached key` |
//! | `EventBus.publish(:e)`, `ActiveSupport::Notifications.instrument("e")` | event | `publishes e event` |
//! | `XJob.perform_later/perform_async` | event | `enqueues x job` (\[J\]: an enqueue is an event) |
//! | `HTTP.post`, `Faraday`, `HTTParty`, `Net::HTTP`, `RestClient`, an `@http` client | external_api | `calls the x API` |
//!
//! The config's `side_effects` rules (`pattern: "SlackNotifier.*"`) come first.

use globset::GlobBuilder;

use super::SideEffectRule;
use crate::index::body::{walk, Call, Node, Visitor};

use super::grammar::{self, words};
use super::model::{BehaviorDraft, BehaviorKind, SideEffect};
use super::types::{Lookup, TypeEnv};

/// Finds side effects in `nodes`, in order of appearance, each once.
pub fn collect(
    nodes: &[&Node],
    env: &TypeEnv,
    lookup: &Lookup,
    rules: &[SideEffectRule],
    own: &str,
) -> Vec<SideEffect> {
    let mut finder = Finder {
        env,
        lookup,
        rules,
        own,
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
    out: Vec<SideEffect>,
}

impl<'n> Visitor<'n> for Finder<'_> {
    fn enter(&mut self, node: &'n Node) -> bool {
        let Node::Call(c) = node else {
            return true;
        };
        let Some(effect) = classify(c, self.env, self.lookup, self.rules, self.own) else {
            return true;
        };
        if !self
            .out
            .iter()
            .any(|e| e.behavior.description == effect.behavior.description)
        {
            self.out.push(effect);
        }
        // The chain of a recognised call (`Mailer.m(x)` inside `.deliver_later`) is part of
        // it; its arguments and block are not.
        for a in &c.args {
            walk(self, a);
        }
        if let Some(b) = &c.block {
            walk(self, &b.body);
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

fn first_name(c: &Call) -> Option<String> {
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

fn classify(
    c: &Call,
    env: &TypeEnv,
    lookup: &Lookup,
    rules: &[SideEffectRule],
    own: &str,
) -> Option<SideEffect> {
    let recv = c.recv.as_ref()?;
    let name = c.name.as_str();
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
    // Mail: `PaymentMailer.receipt(p).deliver_later`, `...with(x).receipt.deliver_now`.
    if name.starts_with("deliver") {
        if let Node::Call(inner) = recv {
            let mut mailer = inner.recv.as_ref();
            if let Some(Node::Call(with)) = mailer {
                if with.name == "with" {
                    mailer = with.recv.as_ref();
                }
            }
            if let Some(Node::Const { path, .. }) = mailer {
                if path.ends_with("Mailer") {
                    return Some(effect(
                        "email",
                        format!("sends {} email", words(&inner.name)),
                    ));
                }
            }
        }
    }
    let target = target?;
    let last = target.rsplit("::").next().unwrap_or(&target);
    if last.contains("Webhook") && !name.ends_with('?') {
        let event = first_name(c).unwrap_or_else(|| "webhook".to_string());
        return Some(effect("webhook", format!("sends {event} notification")));
    }
    if target == "Rails.cache" || last == "Redis" || target == "$redis" {
        let key = first_name(c).unwrap_or_else(|| "data".to_string());
        return match name {
            "write" | "fetch" | "set" | "setex" | "increment" | "incr" => {
                Some(effect("cache", format!("caches {key}")))
            }
            "delete" | "delete_matched" | "del" | "clear" => {
                Some(effect("cache", format!("clears cached {key}")))
            }
            _ => None,
        };
    }
    if (target == "ActiveSupport::Notifications" && name == "instrument")
        || (["publish", "broadcast", "emit"].contains(&name) && !matches!(recv, Node::SelfRef))
    {
        let event = first_name(c).unwrap_or_else(|| words(last));
        return Some(effect("event", format!("publishes {event} event")));
    }
    let enqueue = [
        "perform_later",
        "perform_async",
        "perform_in",
        "perform_at",
        "set",
    ]
    .contains(&name);
    if (last.ends_with("Job") || last.ends_with("Worker")) && enqueue {
        return Some(effect("event", format!("enqueues {}", words(last))));
    }
    let http_client = [
        "HTTP",
        "HTTParty",
        "Faraday",
        "RestClient",
        "Net::HTTP",
        "Excon",
        "Typhoeus",
    ]
    .iter()
    .any(|h| target == *h || target.starts_with(&format!("{h}::")))
        || last.ends_with("Client")
            && ["get", "post", "put", "patch", "delete", "request"].contains(&name);
    if http_client
        && [
            "get",
            "post",
            "put",
            "patch",
            "delete",
            "request",
            "start",
            "get_response",
            "post_form",
        ]
        .contains(&name)
    {
        let service = first_name(c)
            .filter(|s| !s.is_empty())
            .map(|s| format!("the {s} API"))
            .unwrap_or_else(|| format!("the {} API", words(last)));
        return Some(effect("external_api", format!("calls {service}")));
    }
    None
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
            &ExtractOptions { bodies: true },
        );
        let lookup = Lookup::new(None, &facts);
        let env = TypeEnv::build(&facts.methods[1], Some(&facts.methods[0]), &lookup);
        let body = facts.methods[1].body.clone().unwrap();
        collect(&[&body], &env, &lookup, rules, "C")
            .into_iter()
            .map(|e| (e.kind, e.behavior.description))
            .collect()
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
