//! Clients of what lies outside the process: HTTP libraries, API SDKs and Redis, wherever
//! the method holds one. A call is an external API call (or a cache write) by what it is
//! called on, not by a name: `connection.post(url)` where the class's `connection` builds
//! a `Faraday.new(...)`, `@client.get(...)` where `@client ||= Octokit::Client.new`,
//! `Net::HTTP.start(host) { |http| http.request(req) }`, `HTTP.auth(t).get(url)`,
//! `Sidekiq.redis { |conn| conn.incr(key) }`, `Redis.current.incr(key)`.
//!
//! Why it matters for specs: an external call is stubbed (`stub_request`, an SDK double)
//! and its failure is a context; test-config isolates HTTP when one is there.
//!
//! A constant of an API gem (`Stripe`, `Octokit`, `Twilio`) counts when the project's
//! `Gemfile.lock` has the gem, or when there is no lockfile; a project class that happens
//! to be called `Slack` is not a Slack API client.
//!
//! Error reporters (`Sentry.capture_exception`, `Honeybadger.notify`) are not clients: they
//! report, as the logger does, and send nothing from a test (there is no DSN there); a
//! spec stubs no request for them.

use std::collections::BTreeMap;

use crate::index::body::{walk, AssignOp, Node, Target, Visitor};
use crate::index::FileFacts;

/// HTTP client libraries: a request call on one is an external API call.
pub const HTTP_LIBRARIES: &[&str] = &[
    "HTTP",
    "HTTParty",
    "Faraday",
    "RestClient",
    "Net::HTTP",
    "Excon",
    "Typhoeus",
    "HTTPClient",
    "Curl",
    "HTTPX",
    "Mechanize",
    "OpenURI",
];

/// API client constants and the gem that defines each: any call on them (but a
/// predicate or `new`) reaches a remote service.
pub const API_CLIENTS: &[(&str, &str)] = &[
    ("Stripe", "stripe"),
    ("Octokit", "octokit"),
    ("Aws", "aws-sdk-core"),
    ("Twilio", "twilio-ruby"),
    ("Slack", "slack-ruby-client"),
    ("Braintree", "braintree"),
    ("PayPal", "paypal-sdk-rest"),
    ("ShopifyAPI", "shopify_api"),
    ("Shopify", "shopify_api"),
    ("Gibbon", "gibbon"),
    ("SendGrid", "sendgrid-ruby"),
    ("Mailchimp", "MailchimpMarketing"),
    ("MailchimpMarketing", "MailchimpMarketing"),
    ("Koala", "koala"),
    ("Twitter", "twitter"),
    ("Google::Apis", "google-apis-core"),
    ("Google::Cloud", "google-cloud-core"),
    ("DropboxApi", "dropbox_api"),
    ("Dropbox", "dropbox-sdk"),
    ("Plaid", "plaid"),
    ("OpenAI", "ruby-openai"),
    ("Anthropic", "anthropic"),
    ("Postmark", "postmark"),
    ("Mailgun", "mailgun-ruby"),
    ("Pusher", "pusher"),
    ("Geocoder", "geocoder"),
    ("Fog", "fog-core"),
    ("Net::SFTP", "net-sftp"),
    ("Net::FTP", "net-ftp"),
    ("Net::SMTP", "net-smtp"),
    ("Discordrb", "discordrb"),
    ("Telegram", "telegram-bot-ruby"),
    ("Intercom", "intercom"),
    ("Hubspot", "hubspot-api-client"),
    ("Zendesk", "zendesk_api"),
    ("ZendeskAPI", "zendesk_api"),
];

/// Calls that build or configure a client and return it (the next call in the chain is
/// made on the client).
const BUILDERS: &[&str] = &[
    "new",
    "current",
    "auth",
    "basic_auth",
    "headers",
    "timeout",
    "follow",
    "with",
    "persistent",
    "via",
    "accept",
    "cookies",
    "use",
    "nodelay",
    "encoding",
    "with_options",
    "client",
    "connection",
    "resource",
    "bucket",
    "object",
    "pool",
];

/// Parts of API gems that compute locally: no request is sent through them.
const LOCAL_PARTS: &[&str] = &[
    "Twitter::TwitterText",
    "Twitter::Autolink",
    "Stripe::Util",
    "Stripe::Webhook",
    "Stripe::StripeObject",
    "Aws::Sigv4",
    "Google::Apis::Core",
];

/// Redis clients.
pub const STORES: &[&str] = &["Redis", "$redis", "Rails.cache", "Sidekiq.redis", "Kredis"];

/// HTTP verbs and request calls of a client.
pub const REQUEST_CALLS: &[&str] = &[
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "head",
    "request",
    "run_request",
    "start",
    "get_response",
    "post_form",
    "perform",
    "execute",
    "fetch",
];

/// What a class's code holds: its methods that return a client (`def connection;
/// Faraday.new(...); end`) and its instance variables assigned one, each with the
/// client's root constant (`Faraday`).
#[derive(Debug, Default, Clone)]
pub struct Clients {
    methods: BTreeMap<String, String>,
    /// Every method the class defines (a call to another name with an ivar's name reads
    /// that ivar: `attr_reader :client`).
    defined: std::collections::BTreeSet<String>,
    ivars: BTreeMap<String, String>,
    /// The project's resolved gems (`Gemfile.lock`), `None` without a lockfile.
    gems: Option<Vec<String>>,
}

impl Clients {
    /// Whether the project's lockfile resolves `gem` (`false` without a lockfile).
    pub fn locks_gem(&self, gem: &str) -> bool {
        self.gems
            .as_deref()
            .is_some_and(|gems| gems.iter().any(|g| g == gem))
    }

    /// The clients of `class` in `facts` (every method of the class is read once).
    pub fn of_class(facts: &FileFacts, class: &str, gems: Option<&[String]>) -> Self {
        let mut clients = Clients {
            gems: gems.map(<[String]>::to_vec),
            ..Clients::default()
        };
        // Two rounds: a method may build its client from another (`def client;
        // Octokit::Client.new(access_token: token); end`, `def repo; client.repo(..)`).
        for _ in 0..2 {
            for m in facts.methods.iter().filter(|m| m.owner == class) {
                clients.defined.insert(m.name.clone());
                let Some(body) = m.body.as_deref() else {
                    continue;
                };
                if m.params.is_empty() {
                    if let Some(root) = clients.returned_root(body) {
                        clients.methods.insert(m.name.clone(), root);
                    }
                }
                let mut assigned: Vec<(String, String)> = Vec::new();
                visit_ivar_assignments(body, &mut |name, value| {
                    if let Some(root) = clients.root_of(value, &[]) {
                        assigned.push((name.to_string(), root));
                    }
                });
                clients.ivars.extend(assigned);
            }
        }
        clients
    }

    /// A class without clients (the gems still gate API constants).
    pub fn with_gems(gems: Option<&[String]>) -> Self {
        Clients {
            gems: gems.map(<[String]>::to_vec),
            ..Clients::default()
        }
    }

    /// The root constant of the client `node` evaluates to (`Faraday`, `Redis`,
    /// `Octokit`), if it is one. `blocks` are the block parameters known to hold one.
    pub fn root_of(&self, node: &Node, blocks: &[(String, String)]) -> Option<String> {
        match node {
            Node::Const { path, .. } => self.known(path),
            Node::Lvar(name) => blocks
                .iter()
                .rev()
                .find(|(p, _)| p == name)
                .map(|(_, root)| root.clone()),
            Node::Ivar(name) => self.ivars.get(name.trim_start_matches('@')).cloned(),
            Node::Other { text, .. } if text == "$redis" => Some("Redis".to_string()),
            Node::Call(c) => {
                if c.recv.is_none() && c.args.is_empty() {
                    if let Some(root) = self.methods.get(&c.name) {
                        return Some(root.clone());
                    }
                    // `attr_reader :client` defines no method we list: a call to a name the
                    // class does not define, over an ivar of that name, reads the ivar.
                    if !self.defined.contains(&c.name) {
                        if let Some(root) = self.ivars.get(&c.name) {
                            return Some(root.clone());
                        }
                    }
                }
                match (&c.recv, c.name.as_str()) {
                    (Some(Node::Const { path, .. }), "cache") if path == "Rails" => {
                        Some("Rails.cache".to_string())
                    }
                    (Some(Node::Const { path, .. }), "redis") if path == "Sidekiq" => {
                        Some("Redis".to_string())
                    }
                    // A builder chain on a client (`Faraday.new(url)`, `HTTP.auth(t)`,
                    // `Redis.current`, `Octokit::Client.new(...)`) is that client; any
                    // other call returns what the service answered (`Stripe::Invoice
                    // .retrieve(id).status` reads the answer, it sends no request).
                    (Some(recv), name) if BUILDERS.contains(&name) => self.root_of(recv, blocks),
                    // An SDK client's resources (`client.v1.customers`, `client.checkout
                    // .sessions`): a call without arguments on it is still the client when
                    // a call is made on it in turn, which sends the request.
                    (Some(recv), _) if c.args.is_empty() && c.block.is_none() => self
                        .root_of(recv, blocks)
                        .filter(|root| !Clients::is_http(root) && !Clients::is_store(root)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `path` when it is (under) a client constant this project has.
    fn known(&self, path: &str) -> Option<String> {
        let under = |root: &str| path == root || path.starts_with(&format!("{root}::"));
        if LOCAL_PARTS.iter().any(|p| under(p)) {
            return None;
        }
        if let Some(h) = HTTP_LIBRARIES.iter().find(|h| under(h)) {
            return Some((*h).to_string());
        }
        if under("Redis") || under("Kredis") {
            return Some("Redis".to_string());
        }
        API_CLIENTS
            .iter()
            .find(|(root, gem)| under(root) && self.has_gem(gem))
            .map(|(root, _)| (*root).to_string())
    }

    fn has_gem(&self, gem: &str) -> bool {
        match &self.gems {
            None => true,
            // `aws-sdk-core` comes with any `aws-sdk-*`; a family of gems by its prefix.
            Some(gems) => gems.iter().any(|g| {
                g == gem || (gem.ends_with("-core") && g.starts_with(gem.trim_end_matches("-core")))
            }),
        }
    }

    /// Whether a root is an HTTP library (as opposed to an API SDK or a store).
    pub fn is_http(root: &str) -> bool {
        HTTP_LIBRARIES.contains(&root)
    }

    /// Whether a root is a store (Redis, the Rails cache).
    pub fn is_store(root: &str) -> bool {
        STORES.contains(&root)
    }

    /// The client a method body returns: its last expression, or `@x ||= client`.
    fn returned_root(&self, body: &Node) -> Option<String> {
        let last = match body {
            Node::Seq(items) => items.last()?,
            other => other,
        };
        match last {
            Node::Assign {
                value,
                op: AssignOp::OrSet | AssignOp::Set,
                ..
            } => self.root_of(value, &[]),
            other => self.root_of(other, &[]),
        }
    }
}

fn visit_ivar_assignments(node: &Node, f: &mut dyn FnMut(&str, &Node)) {
    struct Ivars<'f>(&'f mut dyn FnMut(&str, &Node));
    impl<'n> Visitor<'n> for Ivars<'_> {
        fn enter(&mut self, node: &'n Node) -> bool {
            if let Node::Assign {
                target: Target::Ivar(name),
                op,
                value,
                ..
            } = node
            {
                if matches!(op, AssignOp::Set | AssignOp::OrSet) {
                    (self.0)(name, value);
                }
            }
            true
        }
    }
    walk(&mut Ivars(f), node);
}

/// The gems a `Gemfile.lock` resolves (its `specs:` entries and `DEPENDENCIES`), sorted.
pub fn gems_of_lockfile(text: &str) -> Vec<String> {
    let mut gems: Vec<String> = text
        .lines()
        .filter_map(|line| {
            let indent = line.len() - line.trim_start_matches(' ').len();
            if indent != 4 && indent != 2 {
                return None;
            }
            let name = line.trim().split([' ', '!']).next()?;
            (!name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)))
            .then(|| name.to_string())
        })
        .collect();
    gems.sort();
    gems.dedup();
    gems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    fn clients(src: &str, gems: Option<&[String]>) -> (Clients, FileFacts) {
        let facts = extract_with(
            "app/services/c.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        (Clients::of_class(&facts, "C", gems), facts)
    }

    #[test]
    fn methods_and_ivars_that_hold_clients() {
        let (c, _) = clients(
            "class C\n  def connection\n    @connection ||= Faraday.new(url: BASE) do |f|\n      f.request :json\n    end\n  end\n\n  def client\n    Octokit::Client.new(access_token: token)\n  end\n\n  def redis\n    Redis.current\n  end\n\n  def token\n    ENV['TOKEN']\n  end\n\n  def setup\n    @http = HTTP.auth(token)\n  end\nend\n",
            None,
        );
        assert_eq!(
            c.methods.get("connection").map(String::as_str),
            Some("Faraday")
        );
        assert_eq!(c.methods.get("client").map(String::as_str), Some("Octokit"));
        assert_eq!(c.methods.get("redis").map(String::as_str), Some("Redis"));
        assert_eq!(c.methods.get("token"), None);
        assert_eq!(
            c.ivars.get("connection").map(String::as_str),
            Some("Faraday")
        );
        assert_eq!(c.ivars.get("http").map(String::as_str), Some("HTTP"));
    }

    #[test]
    fn api_constants_count_when_the_lockfile_has_their_gem() {
        let lock = gems_of_lockfile("GEM\n  specs:\n    aws-sdk-s3 (1.0)\n    stripe (10.0)\n      faraday (>= 1)\n\nDEPENDENCIES\n  stripe\n  octokit!\n");
        assert_eq!(lock, ["aws-sdk-s3", "octokit", "stripe"]);
        let with = Clients::with_gems(Some(&lock));
        let konst = |p: &str| Node::Const {
            path: p.to_string(),
            absolute: false,
        };
        assert_eq!(
            with.root_of(&konst("Stripe::Charge"), &[]).as_deref(),
            Some("Stripe")
        );
        assert_eq!(
            with.root_of(&konst("Aws::S3::Client"), &[]).as_deref(),
            Some("Aws")
        );
        assert_eq!(with.root_of(&konst("Slack"), &[]), None);
        let without = Clients::with_gems(None);
        assert_eq!(
            without
                .root_of(&konst("Slack::Web::Client"), &[])
                .as_deref(),
            Some("Slack")
        );
        assert_eq!(
            with.root_of(&konst("Faraday"), &[]).as_deref(),
            Some("Faraday")
        );
    }
}
