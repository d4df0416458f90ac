//! Plan quality on a real codebase: how often `analyze` finds the decisions of a method,
//! how its texts read, and whether the skeletons it leads to run, plus recall and precision
//! against expert labels (`eval/labels/*.yml`) when given.
//!
//! ```sh
//! cargo run --release --example plan_quality -- /path/to/app [--labels eval/labels/app.yml] [--details]
//! ```
//!
//! Figures (every public method of every class under `app/` and `lib/`):
//! - **reach**: of the public methods whose own body holds a decision (`if`, `unless`,
//!   ternary, `case`, `case/in`, `&&`, `||`, `rescue`, `while`/`until`, `&.`), the share
//!   with at least one characteristic;
//! - **code in descriptions**: value and behavior descriptions that hold Ruby (calls with
//!   parentheses, method chains, `snake_case` identifiers, operators, `@ivars`, `x?`);
//! - **inverted contexts**: a context whose words say the opposite of its `let`
//!   (`context 'with attachments'` over `let(:attachments) { nil }`);
//! - **leaves that say "does nothing more"**: a path that goes on, described as nothing;
//! - **characteristics whose leaves all read alike**: two values or more whose `it` texts
//!   are the same, so the spec cannot tell them apart;
//! - **skeletons that do not parse** once their placeholders are filled with Ruby.
//!
//! With `--labels`: characteristics match when the tool's `source_line` starts on a line
//! the expert gave for that characteristic (in the same file); recall is matched expert
//! characteristics over all of them, precision matched tool characteristics over all the
//! tool gave for the labelled methods. Side effects match by type, per method.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::indexing_slicing,
    missing_docs
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use rspec_scout::analyze::{self, model::MethodAnalysis, Selected};
use rspec_scout::index::body::Node;
use rspec_scout::index::walk::ScopeRules;
use rspec_scout::index::{self, walk, ExtractOptions, FileFacts, MethodFacts};
use rspec_scout::metadata::fields;
use rspec_scout::yaml::{Mapping, Value};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut root: Option<PathBuf> = None;
    let mut labels: Option<PathBuf> = None;
    let mut details = false;
    let mut examples = 12usize;
    let mut dump: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--dump" => dump = args.next().map(PathBuf::from),
            "--labels" => labels = args.next().map(PathBuf::from),
            "--details" => details = true,
            "--examples" => {
                examples = args.next().and_then(|n| n.parse().ok()).unwrap_or(12);
            }
            _ => root = Some(PathBuf::from(a)),
        }
    }
    let Some(root) = root else {
        eprintln!(
            "usage: plan_quality APP_ROOT [--labels FILE] [--details] [--examples N] [--dump FILE]"
        );
        std::process::exit(2);
    };
    let app = App::load(&root);
    if let Some(path) = dump {
        if let Err(e) = std::fs::write(&path, dump_plans(&app)) {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
    let figures = figures(&app);
    print!("{}", figures.report(&root, examples));
    if let Some(path) = labels {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("cannot read {}: {e}", path.display());
                std::process::exit(1);
            }
        };
        let file: LabelFile = match serde_yaml::from_str(&text) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                std::process::exit(1);
            }
        };
        let score = score(&app, &file);
        print!("{}", score.report(details));
    }
}

/// Every in-scope file of an app, parsed with bodies, and each class's public methods
/// analyzed as `analyze` would with no metadata.
struct App {
    files: Vec<AppFile>,
}

struct AppFile {
    facts: std::sync::Arc<FileFacts>,
    /// Per class with public methods: the analysis, the skeleton (full mode) or why not.
    classes: Vec<ClassPlan>,
}

struct ClassPlan {
    class_name: String,
    analysis: analyze::FileAnalysis,
    skeleton: Result<String, String>,
}

impl App {
    fn load(root: &Path) -> App {
        let scope = match walk::Scope::new(&ScopeRules::default()) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        let found = walk::collect_all(root, &scope, 1);
        let routes = rspec_scout::rails::routes::Routes::load(root);
        let gems = std::fs::read(root.join("Gemfile.lock"))
            .ok()
            .map(|b| analyze::clients::gems_of_lockfile(&String::from_utf8_lossy(&b)));
        // Every file first: the analysis follows calls into other files of the app.
        let parsed: Vec<std::sync::Arc<FileFacts>> = found
            .files
            .iter()
            .filter_map(|f| {
                let bytes = index::read_source(&f.path, 16 << 20).ok()?;
                Some(std::sync::Arc::new(index::extract_with(
                    &f.rel,
                    &bytes,
                    &ExtractOptions::with_bodies(),
                )))
            })
            .collect();
        let project = Parsed(
            parsed
                .iter()
                .filter(|f| f.diagnostic_count == 0)
                .map(|f| (f.path.clone(), f.clone()))
                .collect(),
            analyze::types::app_dirs(root),
        );
        let files = parsed
            .iter()
            .map(|facts| {
                let classes = plans(root, facts, &routes, gems.as_deref(), &project);
                AppFile {
                    facts: facts.clone(),
                    classes,
                }
            })
            .collect();
        App { files }
    }
}

/// The app's parsed files, by path, as the analyzer reads other classes' files.
#[derive(Debug)]
struct Parsed(BTreeMap<String, std::sync::Arc<FileFacts>>, Vec<String>);

impl analyze::via::ProjectFiles for Parsed {
    fn class_file(&self, class: &str) -> Option<(String, std::sync::Arc<FileFacts>)> {
        analyze::types::class_file_candidates(class, &self.1)
            .into_iter()
            .find_map(|(rel, _, check)| {
                self.0
                    .get(&rel)
                    .filter(|f| !check || f.classes.iter().any(|c| c.name == class))
                    .map(|f| (rel.clone(), f.clone()))
            })
    }
}

fn plans(
    root: &Path,
    facts: &FileFacts,
    routes: &rspec_scout::rails::routes::Routes,
    gems: Option<&[String]>,
    project: &Parsed,
) -> Vec<ClassPlan> {
    let mut owners: Vec<&str> = Vec::new();
    for m in &facts.methods {
        if m.is_public_api() && !m.dynamic && !owners.contains(&m.owner.as_str()) {
            owners.push(&m.owner);
        }
    }
    owners
        .into_iter()
        .map(|class_name| {
            let methods = facts
                .methods
                .iter()
                .filter(|m| m.owner == class_name && m.is_public_api() && !m.dynamic)
                .map(|m| Selected {
                    class: None,
                    name: m.name.clone(),
                    kind: Some(m.kind),
                    method_mode: "new".to_string(),
                })
                .collect();
            let chain = if class_name.ends_with("Controller") {
                analyze::controller::chain(root, facts, class_name)
            } else {
                Vec::new()
            };
            let request = analyze::Request {
                facts,
                class_name: class_name.to_string(),
                methods,
                root: Some(root.to_path_buf()),
                rules: &[],
                controller_chain: &chain,
                routes: Some(routes),
                gems,
                project: Some(project),
            };
            let analysis = analyze::analyze(&request);
            let skeleton = skeleton(facts, class_name, &analysis);
            ClassPlan {
                class_name: class_name.to_string(),
                analysis,
                skeleton,
            }
        })
        .collect()
}

fn skeleton(
    facts: &FileFacts,
    class_name: &str,
    analysis: &analyze::FileAnalysis,
) -> Result<String, String> {
    let data = fields::Analysis {
        slug: "x".to_string(),
        source_file: facts.path.clone(),
        source_mtime: 0,
        source_digest: String::new(),
        class_name: class_name.to_string(),
        analysis: analysis.clone(),
        inputs: fields::AnalysisInputs::default(),
        factories: None,
    }
    .data();
    let mut map = Mapping::new();
    map.insert(
        Value::from("spec_path"),
        Value::from(format!("spec/{}_spec.rb", facts.path)),
    );
    for (k, v) in data {
        map.insert(k, v);
    }
    rspec_scout::spec::generate(&map, rspec_scout::spec::Mode::Full, 3, &[])
}

/// Every plan as text, one method after another, for diffing two versions of the tool.
fn dump_plans(app: &App) -> String {
    let mut out = String::new();
    for file in &app.files {
        for plan in &file.classes {
            for m in &plan.analysis.methods {
                out.push_str(&format!(
                    "== {} {}\n",
                    file.facts.path,
                    method_id(&plan.class_name, m)
                ));
                for c in &m.characteristics {
                    let parent = c
                        .parent
                        .and_then(|p| m.characteristics.get(p))
                        .map(|p| format!(" under {}", p.name))
                        .unwrap_or_default();
                    out.push_str(&format!(
                        "  {}{} [{}] line {}{}\n",
                        "  ".repeat(c.level.saturating_sub(1) as usize),
                        c.name,
                        c.kind.as_str(),
                        c.source_line,
                        parent
                    ));
                    for v in &c.values {
                        let behavior = v
                            .behavior
                            .as_ref()
                            .map(|b| {
                                format!(
                                    "{} {}",
                                    if v.terminal { "=>" } else { "->" },
                                    b.description
                                )
                            })
                            .unwrap_or_default();
                        out.push_str(&format!(
                            "  {}  - {}: {} {behavior}\n",
                            "  ".repeat(c.level.saturating_sub(1) as usize),
                            rspec_scout::ruby::to_s(&v.value),
                            v.description
                        ));
                    }
                }
                for e in &m.side_effects {
                    out.push_str(&format!(
                        "  side effect {}: {}\n",
                        e.kind, e.behavior.description
                    ));
                }
                if let Some(o) = &m.outcome {
                    out.push_str(&format!("  outcome: {}\n", o.description));
                }
                for n in &m.notes {
                    out.push_str(&format!("  note: {n}\n"));
                }
            }
        }
    }
    out
}

/// Whether a body holds a decision: `if`, `unless`, ternary, `case`, `&&`, `||`,
/// `rescue`, loops, `&.`. Independent of the analyzer on purpose.
fn decides(node: &Node) -> bool {
    match node {
        Node::If(_) | Node::Case(_) | Node::And(..) | Node::Or(..) | Node::Loop { .. } => true,
        Node::Begin(b) => {
            !b.rescues.is_empty()
                || decides(&b.body)
                || b.els.as_ref().is_some_and(decides)
                || b.ensure.as_ref().is_some_and(decides)
        }
        Node::Call(c) => {
            c.safe_nav
                || c.recv.as_ref().is_some_and(decides)
                || c.args.iter().any(decides)
                || c.block.as_ref().is_some_and(|b| decides(&b.body))
        }
        Node::Seq(items) | Node::Array(items) => items.iter().any(decides),
        Node::Hash(pairs) => pairs.iter().any(|(k, v)| decides(k) || decides(v)),
        Node::Not(a) | Node::Splat(a) => decides(a),
        Node::Return { value: Some(v), .. } => decides(v),
        Node::Assign { value, .. } => decides(value),
        Node::Range { lo, hi, .. } => {
            lo.as_deref().is_some_and(decides) || hi.as_deref().is_some_and(decides)
        }
        _ => false,
    }
}

/// Whether a description holds Ruby rather than words. Double-quoted literals are allowed
/// (`link includes "@"`), as are constant paths and numbers.
fn looks_like_code(text: &str) -> bool {
    let mut plain = String::new();
    let mut quoted = false;
    for c in text.chars() {
        if c == '"' {
            quoted = !quoted;
        } else if !quoted {
            plain.push(c);
        }
    }
    if plain.chars().any(|c| "(){}[]|&=@$;\\<>+*#`".contains(c)) {
        return true;
    }
    let chars: Vec<char> = plain.chars().collect();
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    chars.iter().enumerate().any(|(i, c)| {
        let before = i.checked_sub(1).and_then(|j| chars.get(j));
        let after = chars.get(i + 1);
        match c {
            // `a.b`, not `1.5` and not a sentence's full stop.
            '.' => word(before) && after.is_some_and(|a| a.is_alphabetic() || *a == '_'),
            // `present?`, `save!` glued to a word.
            '?' | '!' => word(before),
            // `snake_case` identifiers (a SCREAMING_CASE constant is a name, kept).
            '_' => {
                before.is_some_and(|b| b.is_alphanumeric())
                    && after.is_some_and(|a| a.is_alphanumeric())
                    && !screaming_token(&chars, i)
            }
            _ => false,
        }
    })
}

/// Whether the token around `chars[i]` is a SCREAMING_CASE constant name.
fn screaming_token(chars: &[char], i: usize) -> bool {
    let in_token = |c: &char| c.is_alphanumeric() || *c == '_' || *c == ':';
    // `:ldaps_verify_peer` is a Symbol as RSpec authors write it in examples.
    let start = chars[..i]
        .iter()
        .rposition(|c| !in_token(c))
        .map_or(0, |p| p + 1);
    let end = chars[i..]
        .iter()
        .position(|c| !in_token(c))
        .map_or(chars.len(), |p| i + p);
    let token: String = chars[start..end].iter().collect();
    if token.starts_with(':') && !token.starts_with("::") {
        return true;
    }
    let last = token.rsplit("::").next().unwrap_or(&token);
    !last.is_empty()
        && last
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A context whose words and `let` disagree.
#[derive(Debug, Clone)]
struct Inverted {
    file: String,
    context: String,
    value: String,
}

/// The contexts of a full-mode skeleton with the literal `let` right after them:
/// `(context text, let value)`.
fn context_lets(skeleton: &str) -> Vec<(String, String)> {
    let lines: Vec<&str> = skeleton.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("context '") else {
            continue;
        };
        let Some(text) = rest.strip_suffix("' do") else {
            continue;
        };
        let next = lines
            .iter()
            .skip(i + 1)
            .find(|l| !l.starts_with('#') && !l.is_empty());
        if let Some(l) = next {
            if let Some(value) = l
                .strip_prefix("let(:")
                .and_then(|r| r.split_once(") { "))
                .and_then(|(_, v)| v.strip_suffix(" }"))
            {
                let name = l
                    .strip_prefix("let(:")
                    .and_then(|r| r.split_once(')'))
                    .map_or("", |(n, _)| n);
                let text = name_words_out(text, name);
                out.push((text, value.to_string()));
            }
        }
    }
    out
}

/// A context without the negative words that are its subject's name: `let(:no_html)
/// { true }` under `with no html`, `let(:missing) { true }` under `with missing` (a local
/// named so) negate nothing.
fn name_words_out(context: &str, name: &str) -> String {
    let name_words: Vec<&str> = name.split('_').collect();
    let mut words: Vec<&str> = context.split_whitespace().collect();
    if let (Some(&"no"), Some(next)) = (name_words.first(), name_words.get(1)) {
        if let Some(i) = words
            .windows(2)
            .position(|w| w.first() == Some(&"no") && w.get(1) == Some(next))
        {
            words.remove(i);
        }
    }
    if name_words.contains(&"missing") {
        if let Some(i) = words.iter().position(|w| *w == "missing") {
            words.remove(i);
        }
    }
    words.join(" ")
}

/// Whether the words of a context say "absent/false" (`without x`, `when NOT x`,
/// `when x missing`, `but x fails`). A compound value (`a or b`, `a and NOT b`) is negative
/// only as a whole (`neither a nor b`, `NOT both a and b`).
fn negative_words(context: &str) -> bool {
    let words: Vec<&str> = context.split_whitespace().collect();
    let body: &[&str] = words.get(1..).unwrap_or_default();
    if words.first() == Some(&"without") || body.last() == Some(&"fails") {
        return true;
    }
    // A quantified value (`some x where NOT y`, `all x y`, `no x y`, `no error raised`)
    // is negative by its quantifier only: a negation inside the element test does not
    // negate the whole.
    if body.first() == Some(&"no") {
        return true;
    }
    // A compound value (`a or NOT b`, `a and NOT b`) is negative only as a whole
    // (`neither a nor b`, `NOT both a and b`); `NOT x in "a" and "b"` is one negated
    // condition over a list.
    let joins = body.iter().enumerate().any(|(i, w)| {
        let literal = |j: Option<usize>| {
            j.and_then(|j| body.get(j))
                .is_some_and(|n| n.starts_with('"') || n.parse::<f64>().is_ok())
        };
        matches!(*w, "or" | "nor")
            || (*w == "and" && !literal(Some(i + 1)) && !literal(i.checked_sub(1)))
    });
    if joins {
        // `a or b missing`: the whole of `a || b` is absent. `NOT x in "a" and "b"` with no
        // `or`: one negated test over a list (a negated compound reads `NOT both`).
        let ors = body.iter().any(|w| matches!(*w, "or" | "nor"));
        return body.first() == Some(&"neither")
            || (body.first() == Some(&"NOT") && (body.get(1) == Some(&"both") || !ors));
    }
    body.iter()
        .any(|w| matches!(*w, "NOT" | "missing" | "fails" | "neither"))
}

fn inverted(context: &str, value: &str) -> bool {
    // `and` opens an enum's or a range's contexts: their `nil` is a value, not an absence.
    if context.starts_with("and ") {
        return false;
    }
    // `some x where NOT y`, `all x y`: a negation inside the element test does not
    // negate the whole, and `all x y` is the false value of `any? { !y }` as well as
    // the true value of `all? { y }`: the words cannot tell.
    if matches!(
        context.split_whitespace().nth(1),
        Some("some" | "all" | "exactly")
    ) {
        return false;
    }
    // `a or b missing`: the presence of `a || b` as a whole, absent.
    if value == "nil" && context.ends_with(" missing") {
        return false;
    }
    let negative_value = matches!(value, "nil" | "false");
    let positive_value = matches!(value, "true") || value.starts_with('"');
    (negative_words(context) && positive_value) || (!negative_words(context) && negative_value)
}

/// Side effects a method's code shows by its calls, found by patterns of their own (not
/// the analyzer's): the method's body and the bodies of the same-class methods it calls,
/// transitively. `(kind, key, line, call as written)`: the key is the call without its
/// arguments but a leading name (`FastlyPurgeJob.perform_later`, `Bus.publish(:paid)`),
/// so the same effect sent from two places of a method is one effect.
fn effect_sites(
    facts: &FileFacts,
    class_name: &str,
    method: &MethodFacts,
    app_classes: &BTreeSet<String>,
) -> Vec<(&'static str, String, u32, String)> {
    let mut bodies: Vec<&Node> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut queue: Vec<&MethodFacts> = vec![method];
    while let Some(m) = queue.pop() {
        if !seen.insert(m.name.as_str()) {
            continue;
        }
        let Some(body) = m.body.as_deref() else {
            continue;
        };
        bodies.push(body);
        let mut called = Vec::new();
        implicit_calls(body, &mut called);
        for name in called {
            if let Some(next) = facts.methods.iter().find(|f| {
                f.owner == class_name && f.name == name && f.kind == method.kind && !f.dynamic
            }) {
                queue.push(next);
            }
        }
    }
    let held = held_clients(facts, class_name, method, &bodies);
    let o = Oracle {
        class_name,
        app_classes,
        held: &held,
    };
    let mut out = Vec::new();
    for body in bodies {
        o.sites(body, &mut out);
    }
    out
}

fn implicit_calls(node: &Node, out: &mut Vec<String>) {
    if let Node::Call(c) = node {
        if c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef)) {
            out.push(c.name.clone());
        }
    }
    node.for_each_child(&mut |child| implicit_calls(child, out));
}

const HTTP_LIBS: &[&str] = &[
    "HTTP",
    "HTTParty",
    "Faraday",
    "RestClient",
    "Net::HTTP",
    "Excon",
    "Typhoeus",
];
const HTTP_CALLS: &[&str] = &[
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "request",
    "start",
    "get_response",
    "post_form",
    "head",
];
const SDKS: &[&str] = &[
    "Stripe::",
    "Aws::",
    "Octokit",
    "Twilio::",
    "Slack::",
    "Fog::",
    "Google::Apis::",
    "Braintree::",
    "OpenAI::",
    "Plaid::",
];
const CACHE_CALLS: &[&str] = &[
    "write",
    "fetch",
    "delete",
    "increment",
    "decrement",
    "delete_matched",
    "set",
    "setex",
    "del",
    "incr",
    "expire",
    "hset",
    "lpush",
    "sadd",
    "clear",
    "write_multi",
];

/// Enumerable's and Array's readers: what a method does with an answer it holds.
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
    "[]",
    "filter_map",
    "flat_map",
    "sort_by",
    "group_by",
    "sum",
];

#[derive(Clone, Copy, PartialEq)]
enum Held {
    Http,
    Sdk,
    Store,
}

/// What a value builds, when it is a client: an HTTP library's connection (`Faraday.new`,
/// `HTTP.auth(t)`), an SDK's client (`Aws::S3::Client.new`; not `Stripe::Charge.create`,
/// which returns the service's answer), or a store (`Rails.cache`, `Redis.new`).
fn client_value(value: &Node) -> Option<Held> {
    let rendered = value.render();
    let text = rendered.trim_start_matches("::");
    let under =
        |lib: &str| text.starts_with(&format!("{lib}.")) || text.starts_with(&format!("{lib}::"));
    if text == "Rails.cache" || text == "$redis" || under("Redis") {
        return Some(Held::Store);
    }
    if HTTP_LIBS.iter().any(|h| under(h)) {
        return Some(Held::Http);
    }
    let built = matches!(value, Node::Call(c) if c.name == "new");
    (built && SDKS.iter().any(|p| text.starts_with(p))).then_some(Held::Sdk)
}

/// The clients the method can reach by a name: locals and instance variables assigned one
/// (`s3 = Aws::S3::Client.new`, `@cache = Rails.cache` in `initialize`), and methods of the
/// class without parameters that return one (`def connection; Faraday.new(...); end`,
/// `@client ||= Octokit::Client.new`). Keyed by the receiver as written (`s3`, `@cache`).
fn held_clients(
    facts: &FileFacts,
    class_name: &str,
    method: &MethodFacts,
    bodies: &[&Node],
) -> BTreeMap<String, Held> {
    fn assigned(node: &Node, locals: bool, out: &mut BTreeMap<String, Held>) {
        if let Node::Assign { target, value, .. } = node {
            let name = match target {
                index::body::Target::Lvar(n) if locals => Some(n.clone()),
                index::body::Target::Ivar(n) => Some(format!("@{n}")),
                _ => None,
            };
            if let (Some(name), Some(held)) = (name, client_value(value)) {
                out.insert(name, held);
            }
        }
        node.for_each_child(&mut |child| assigned(child, locals, out));
    }
    let mut out = BTreeMap::new();
    for m in facts.methods.iter().filter(|m| m.owner == class_name) {
        let Some(body) = m.body.as_deref() else {
            continue;
        };
        assigned(body, false, &mut out);
        if m.kind == method.kind && m.params.is_empty() {
            let last = match body {
                Node::Seq(items) => items.last(),
                other => Some(other),
            };
            let value = match last {
                Some(Node::Assign { value, .. }) => Some(&**value),
                other => other,
            };
            if let Some(held) = value.and_then(client_value) {
                out.insert(m.name.clone(), held);
            }
        }
    }
    for body in bodies {
        assigned(body, true, &mut out);
    }
    // `@client = create_client`: an ivar assigned what a method of the class returns.
    fn by_method(node: &Node, out: &mut BTreeMap<String, Held>) {
        if let Node::Assign {
            target: index::body::Target::Ivar(n),
            value,
            ..
        } = node
        {
            if let Node::Call(c) = &**value {
                if c.recv.is_none() && c.args.is_empty() {
                    if let Some(held) = out.get(&c.name).copied() {
                        out.insert(format!("@{n}"), held);
                    }
                }
            }
        }
        node.for_each_child(&mut |child| by_method(child, out));
    }
    for m in facts.methods.iter().filter(|m| m.owner == class_name) {
        if let Some(body) = m.body.as_deref() {
            by_method(body, &mut out);
        }
    }
    // `attr_reader :client` defines no method the facts list: a name the class does not
    // define reads the instance variable of that name.
    let readers: Vec<(String, Held)> = out
        .iter()
        .filter_map(|(name, held)| {
            let bare = name.strip_prefix('@')?;
            (!facts
                .methods
                .iter()
                .any(|m| m.owner == class_name && m.name == bare))
            .then(|| (bare.to_string(), *held))
        })
        .collect();
    for (name, held) in readers {
        out.entry(name).or_insert(held);
    }
    out
}

/// The receiver a chain of calls without arguments starts from: an SDK's resources are
/// reached through it (`client.v1.customers` → `client`).
fn chain_root(node: &Node) -> &Node {
    match node {
        Node::Call(c) if c.args.is_empty() && c.block.is_none() => {
            c.recv.as_ref().map_or(node, chain_root)
        }
        other => other,
    }
}

/// Turbo's broadcasts (`Turbo::StreamsChannel.broadcast_replace_to`, a record's
/// `broadcast_refresh_later`): `broadcast_{action}[_later][_to]`.
fn turbo_broadcast(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("broadcast_") else {
        return false;
    };
    let rest = rest.strip_suffix("_to").unwrap_or(rest);
    let rest = rest.strip_suffix("_later").unwrap_or(rest);
    [
        "remove", "replace", "update", "before", "after", "append", "prepend", "refresh", "action",
        "render",
    ]
    .contains(&rest)
}

/// The call without its arguments, but a leading symbol or string (the event's, stream's
/// or key's name): what tells two effects apart.
fn effect_key(node: &Node) -> String {
    match node {
        Node::Call(c) => {
            let recv = c.recv.as_ref().map(effect_key).unwrap_or_default();
            // A name, interpolated or not, up to its first interpolation.
            let name = match c.args.first().map(Node::render) {
                Some(arg) if arg.starts_with(['"', ':', '\'']) => {
                    let head = arg.split("#{").next().unwrap_or(&arg);
                    format!("{}({head})", c.name)
                }
                _ => c.name.clone(),
            };
            if recv.is_empty() {
                name
            } else {
                format!("{recv}.{name}")
            }
        }
        other => other.render(),
    }
}

struct Oracle<'a> {
    class_name: &'a str,
    app_classes: &'a BTreeSet<String>,
    held: &'a BTreeMap<String, Held>,
}

impl Oracle<'_> {
    fn sites(&self, node: &Node, out: &mut Vec<(&'static str, String, u32, String)>) {
        let (class_name, app_classes) = (self.class_name, self.app_classes);
        if let Node::Call(c) = node {
            let recv = c.recv.as_ref().map(Node::render).unwrap_or_default();
            let name = c.name.as_str();
            let text = node.render();
            let lower = recv.to_ascii_lowercase();
            // What Enumerable does with a service's answer (`client.emails.first`) is no
            // call of its own: the call is the one it is made on.
            if ENUMERABLE.contains(&name) {
                node.for_each_child(&mut |child| self.sites(child, out));
                return;
            }
            let held = self.held.get(&recv).copied().or_else(|| {
                c.recv
                    .as_ref()
                    .map(|r| chain_root(r).render())
                    .and_then(|root| self.held.get(&root).copied())
                    .filter(|h| *h == Held::Sdk)
            });
            let kind = if name.starts_with("deliver")
                && (recv.contains("Mailer")
                    || recv.contains("Notifier")
                    || (c
                        .recv
                        .as_ref()
                        .is_some_and(|r| matches!(r, Node::Call(i) if i.recv.is_none()))
                        && class_name.ends_with("Mailer")))
            {
                Some("email")
            } else if (recv == "Rails.cache"
                || lower.contains("redis")
                || held == Some(Held::Store))
                && CACHE_CALLS.contains(&name)
            {
                Some("cache")
            } else if ["perform_later", "perform_async", "perform_in", "perform_at"]
                .contains(&name)
                || (recv == "Sidekiq::Client" && ["push", "push_bulk"].contains(&name))
                || name == "perform_all_later"
                || (recv == "ActiveSupport::Notifications" && name == "instrument")
                || (["broadcast", "broadcast_to"].contains(&name) && c.recv.is_some())
                // `publish` on a class the app defines is that class's own method (one
                // call away, judged by the labels); on anything else it publishes.
                || (name == "publish" && c.recv.is_some() && !app_classes.contains(&recv))
                // Turbo's broadcasts, on a stream channel, a record or the record itself; a
                // method of the app named `broadcast_x` is no broadcast of its own (its body
                // is read when it is the class's).
                || turbo_broadcast(name)
            {
                Some("event")
            } else if (lower.contains("webhook") || lower.contains("hook"))
                && [
                    "deliver",
                    "deliver_later",
                    "post",
                    "call",
                    "perform",
                    "trigger",
                    "execute",
                ]
                .contains(&name)
            {
                Some("webhook")
            } else if HTTP_LIBS.iter().any(|h| {
                recv == *h
                    || recv.starts_with(&format!("{h}."))
                    || recv.starts_with(&format!("{h}::"))
            }) && HTTP_CALLS.contains(&name)
                || (held == Some(Held::Http) && HTTP_CALLS.contains(&name))
                || (recv == "URI" && name == "open")
                // API SDKs: any call but a constructor, a predicate or configuration.
                || ((SDKS
                    .iter()
                    .any(|p| recv.starts_with(p) || recv == p.trim_end_matches("::"))
                    || held == Some(Held::Sdk))
                    // Stripe's webhook checks verify a signature locally.
                    && ![
                        "new",
                        "configure",
                        "config",
                        "construct_event",
                        "parse_thin_event",
                    ]
                    .contains(&name)
                    && !name.ends_with('?')
                    // `client.api_endpoint = url` sets the client up; nothing is sent.
                    && !name.ends_with('='))
            {
                Some("external_api")
            } else {
                None
            };
            if let Some(kind) = kind {
                out.push((kind, effect_key(node), c.line, text));
                // What the call is given runs too: its arguments, and its block (`Rails
                // .cache.fetch(key) { Octokit.releases(repo) }` calls the API on a miss).
                for a in &c.args {
                    self.sites(a, out);
                }
                if let Some(b) = &c.block {
                    self.sites(&b.body, out);
                }
                return;
            }
        }
        node.for_each_child(&mut |child| self.sites(child, out));
    }
}

struct Figures {
    /// Side-effect call sites (oracle) per kind: (sites, matched by the tool).
    effects: BTreeMap<&'static str, (usize, usize)>,
    /// The tool's side effects per kind: (reported, backed by a call site).
    reported: BTreeMap<&'static str, (usize, usize)>,
    /// Missed call sites, for reading.
    missed_effects: Vec<String>,
    /// Reported side effects without a call site, for reading.
    extra_effects: Vec<String>,
    files: usize,
    public_methods: usize,
    deciding: usize,
    deciding_reached: usize,
    unreached: Vec<String>,
    descriptions: usize,
    code: Vec<String>,
    contexts: usize,
    inverted: Vec<Inverted>,
    /// Leaf values (values with a behavior).
    leaves: usize,
    /// Leaves that read "does nothing more" (the path goes on, but the text says nothing).
    nothing_more: Vec<String>,
    /// Characteristics with two leaves or more, and those whose leaves all read alike.
    compared: usize,
    alike: Vec<String>,
    skeletons: usize,
    unparsable: Vec<String>,
    skeleton_errors: Vec<String>,
}

fn figures(app: &App) -> Figures {
    let app_classes: BTreeSet<String> = app
        .files
        .iter()
        .flat_map(|f| f.facts.classes.iter().map(|c| c.name.clone()))
        .collect();
    let mut f = Figures {
        effects: BTreeMap::new(),
        reported: BTreeMap::new(),
        missed_effects: Vec::new(),
        extra_effects: Vec::new(),
        files: app.files.len(),
        public_methods: 0,
        deciding: 0,
        deciding_reached: 0,
        unreached: Vec::new(),
        descriptions: 0,
        code: Vec::new(),
        contexts: 0,
        inverted: Vec::new(),
        leaves: 0,
        nothing_more: Vec::new(),
        compared: 0,
        alike: Vec::new(),
        skeletons: 0,
        unparsable: Vec::new(),
        skeleton_errors: Vec::new(),
    };
    for file in &app.files {
        for plan in &file.classes {
            for m in &plan.analysis.methods {
                f.public_methods += 1;
                let Some(facts) = find_method(&file.facts, &plan.class_name, m) else {
                    continue;
                };
                // Side effects: per method and kind, the tool's count against the sites'.
                let sites = effect_sites(&file.facts, &plan.class_name, facts, &app_classes);
                let mut by_kind: BTreeMap<&'static str, Vec<(String, String)>> = BTreeMap::new();
                for (kind, key, line, text) in &sites {
                    by_kind
                        .entry(kind)
                        .or_default()
                        .push((key.clone(), format!("{}:{line} {text}", file.facts.path)));
                }
                let mut tool: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
                // The oracle reads the method's own code: effects one call away (`via`)
                // are measured against the labels instead.
                for e in m.side_effects.iter().filter(|e| e.via.is_none()) {
                    tool.entry(e.kind)
                        .or_default()
                        .push(e.behavior.description.clone());
                }
                // `side_effects` holds every effect (those a leaf ends with too, `scope:
                // leaf`): the oracle is compared with that list alone.
                let kinds: BTreeSet<&'static str> =
                    by_kind.keys().chain(tool.keys()).copied().collect();
                for kind in kinds {
                    let s = by_kind.get(kind).map_or(&[][..], Vec::as_slice);
                    let t = tool.get(kind).map_or(&[][..], Vec::as_slice);
                    // Two sites sending the same mail are one side effect of the method.
                    let mut distinct: BTreeSet<&String> = BTreeSet::new();
                    let s: Vec<&String> = s
                        .iter()
                        .filter(|(key, _)| distinct.insert(key))
                        .map(|(_, site)| site)
                        .collect();
                    let sites_n = s.len();
                    let matched = sites_n.min(t.len());
                    let e = f.effects.entry(kind).or_default();
                    e.0 += sites_n;
                    e.1 += matched;
                    let r = f.reported.entry(kind).or_default();
                    r.0 += t.len();
                    r.1 += matched;
                    if t.len() < sites_n {
                        for site in s.iter().skip(t.len()) {
                            f.missed_effects
                                .push(format!("{} {kind}: {site}", method_id(&plan.class_name, m)));
                        }
                    }
                    if t.len() > sites_n {
                        for text in t.iter().skip(sites_n) {
                            f.extra_effects
                                .push(format!("{} {kind}: {text}", method_id(&plan.class_name, m)));
                        }
                    }
                }
                if facts.body.as_deref().is_some_and(decides) {
                    f.deciding += 1;
                    if m.characteristics.is_empty() {
                        f.unreached.push(format!(
                            "{}:{} {}",
                            file.facts.path,
                            facts.line_range.0,
                            method_id(&plan.class_name, m)
                        ));
                    } else {
                        f.deciding_reached += 1;
                    }
                }
                for c in &m.characteristics {
                    let leaves: Vec<&str> = c
                        .values
                        .iter()
                        .filter_map(|v| v.behavior.as_ref())
                        .map(|b| b.description.as_str())
                        .collect();
                    f.leaves += leaves.len();
                    for leaf in &leaves {
                        if leaf.starts_with("does nothing more") {
                            f.nothing_more.push(format!(
                                "{} {}",
                                method_id(&plan.class_name, m),
                                c.name
                            ));
                        }
                    }
                    if leaves.len() >= 2 {
                        f.compared += 1;
                        if leaves.iter().all(|l| *l == leaves[0]) {
                            f.alike.push(format!(
                                "{} {}: {}",
                                method_id(&plan.class_name, m),
                                c.name,
                                leaves[0]
                            ));
                        }
                    }
                    for v in &c.values {
                        f.descriptions += 1;
                        if looks_like_code(&v.description) {
                            f.code.push(format!(
                                "{} value: {}",
                                method_id(&plan.class_name, m),
                                v.description
                            ));
                        }
                    }
                }
            }
            for b in &plan.analysis.behaviors {
                f.descriptions += 1;
                if looks_like_code(&b.description) {
                    f.code
                        .push(format!("{} behavior: {}", plan.class_name, b.description));
                }
            }
            match &plan.skeleton {
                Ok(text) => {
                    f.skeletons += 1;
                    for (context, value) in context_lets(text) {
                        f.contexts += 1;
                        if inverted(&context, &value) {
                            f.inverted.push(Inverted {
                                file: format!("{} {}", file.facts.path, plan.class_name),
                                context,
                                value,
                            });
                        }
                    }
                    let filled = fill(text);
                    let parsed = index::spec_blocks::parse(filled.as_bytes());
                    if let Some(d) = parsed.diagnostics.first() {
                        let line = filled
                            .lines()
                            .nth((d.line as usize).saturating_sub(1))
                            .unwrap_or("")
                            .trim();
                        f.unparsable.push(format!(
                            "{} {}: line {}: {} `{line}`",
                            file.facts.path, plan.class_name, d.line, d.message
                        ));
                    }
                }
                Err(e) => f
                    .skeleton_errors
                    .push(format!("{} {}: {e}", file.facts.path, plan.class_name)),
            }
        }
    }
    f
}

/// Placeholders replaced by Ruby, as a spec writer would.
fn fill(text: &str) -> String {
    text.replace("{COMMON_SETUP}", "nil")
        .replace("{SETUP_CODE}", "nil")
        .replace("{EXPECTATION}", "expect(result).to be_truthy")
        .replace("{THRESHOLD_VALUE}", "1")
        .replace("{BEHAVIOR_DESCRIPTION}", "works")
        .replace("{CONTEXT_WORD}", "when")
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", n as f64 * 100.0 / d as f64)
    }
}

impl Figures {
    fn report(&self, root: &Path, examples: usize) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        line(format!(
            "{}: {} files, {} public methods",
            root.display(),
            self.files,
            self.public_methods
        ));
        line(format!(
            "reach: {}/{} deciding public methods get characteristics ({})",
            self.deciding_reached,
            self.deciding,
            pct(self.deciding_reached, self.deciding)
        ));
        for u in self.unreached.iter().take(examples) {
            line(format!("  no characteristic: {u}"));
        }
        line(format!(
            "code in descriptions: {}/{} ({})",
            self.code.len(),
            self.descriptions,
            pct(self.code.len(), self.descriptions)
        ));
        for c in self.code.iter().take(examples) {
            line(format!("  {c}"));
        }
        line(format!(
            "inverted contexts: {}/{} ({})",
            self.inverted.len(),
            self.contexts,
            pct(self.inverted.len(), self.contexts)
        ));
        for i in self.inverted.iter().take(examples) {
            line(format!(
                "  {}: context '{}' let {{ {} }}",
                i.file, i.context, i.value
            ));
        }
        line(format!(
            "leaves that say \"does nothing more\": {}/{} ({})",
            self.nothing_more.len(),
            self.leaves,
            pct(self.nothing_more.len(), self.leaves)
        ));
        for n in self.nothing_more.iter().take(examples) {
            line(format!("  {n}"));
        }
        line(format!(
            "characteristics whose leaves all read alike: {}/{} ({})",
            self.alike.len(),
            self.compared,
            pct(self.alike.len(), self.compared)
        ));
        for a in self.alike.iter().take(examples) {
            line(format!("  {a}"));
        }
        line(format!(
            "skeletons that do not parse once filled: {}/{} ({})",
            self.unparsable.len(),
            self.skeletons,
            pct(self.unparsable.len(), self.skeletons)
        ));
        for u in self.unparsable.iter().take(examples) {
            line(format!("  {u}"));
        }
        let (sites, found) = self
            .effects
            .values()
            .fold((0, 0), |(a, b), (s, m)| (a + s, b + m));
        let (reported, backed) = self
            .reported
            .values()
            .fold((0, 0), |(a, b), (r, k)| (a + r, b + k));
        line(format!(
            "side effects (call-site oracle): recall {found}/{sites} ({}), precision {backed}/{reported} ({})",
            pct(found, sites),
            pct(backed, reported)
        ));
        for (kind, (s, m)) in &self.effects {
            let (r, k) = self.reported.get(kind).copied().unwrap_or_default();
            line(format!(
                "  {kind}: sites {s}, found {m}; reported {r}, backed {k}"
            ));
        }
        for x in self.missed_effects.iter().take(examples) {
            line(format!("  missed {x}"));
        }
        for x in self.extra_effects.iter().take(examples) {
            line(format!("  extra  {x}"));
        }
        if !self.skeleton_errors.is_empty() {
            line(format!(
                "skeletons refused by the generator: {}",
                self.skeleton_errors.len()
            ));
            for e in self.skeleton_errors.iter().take(examples) {
                line(format!("  {e}"));
            }
        }
        out
    }
}

fn method_id(class_name: &str, m: &MethodAnalysis) -> String {
    let sep = if m.kind == "class" { "." } else { "#" };
    format!("{class_name}{sep}{}", m.name)
}

fn find_method<'a>(
    facts: &'a FileFacts,
    class_name: &str,
    m: &MethodAnalysis,
) -> Option<&'a MethodFacts> {
    let singleton = m.kind == "class";
    facts.methods.iter().find(|f| {
        f.owner == class_name
            && f.name == m.name
            && !f.dynamic
            && (f.kind == index::MethodKind::Singleton) == singleton
    })
}

// ---------------------------------------------------------------------------------------
// Labels

#[derive(Debug, Deserialize)]
struct LabelFile {
    app: String,
    #[serde(default)]
    commit: String,
    #[serde(default)]
    methods: Vec<LabelMethod>,
}

#[derive(Debug, Deserialize)]
struct LabelMethod {
    id: String,
    file: String,
    #[serde(default)]
    characteristics: Vec<LabelChar>,
    #[serde(default)]
    side_effects: Vec<LabelEffect>,
    #[serde(default)]
    drop: Vec<LabelDrop>,
}

#[derive(Debug, Deserialize)]
struct LabelChar {
    subject: String,
    #[serde(default)]
    parent: Option<String>,
    #[serde(default)]
    lines: Vec<u32>,
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    file: Option<String>,
}

#[derive(Debug, Deserialize)]
struct LabelEffect {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Debug, Deserialize)]
struct LabelDrop {
    line: u32,
}

/// One labelled method against the tool's answer.
struct MethodScore {
    id: String,
    found: bool,
    expert: usize,
    matched: usize,
    tool: usize,
    tool_matched: usize,
    type_agrees: usize,
    dropped_reported: usize,
    /// Characteristics from `before_action` guards: outside the labels' scope (the
    /// sampling reads a method's own body and its same-class private helpers only).
    filter_guards: usize,
    missed: Vec<String>,
    /// Matched characteristics whose type is not the expert's, for reading.
    retyped: Vec<String>,
    extra: Vec<String>,
    /// Characteristics on the lines of one the expert found, beside the one matched.
    repeats: Vec<String>,
    /// Matched characteristics under another parent than the expert's, for reading.
    reparented: Vec<String>,
    effects_expert: usize,
    effects_matched: usize,
    effects_tool: usize,
    effects_tool_matched: usize,
    /// Matched characteristics whose parent is the expert's (both top-level, or the
    /// tool's parent is the match of the expert's parent).
    structure_agrees: usize,
    /// Database writes: the expert's call sites, the tool's, matched (per method, min).
    writes_expert: usize,
    writes_tool: usize,
    writes_matched: usize,
}

struct Score {
    app: String,
    commit: String,
    methods: Vec<MethodScore>,
}

/// The tool's side-effect types, in the labels' words.
const EFFECT_TYPES: &[&str] = &["email", "webhook", "cache", "event", "external_api"];

fn score(app: &App, labels: &LabelFile) -> Score {
    let mut methods = Vec::new();
    for label in &labels.methods {
        let (class_name, name, singleton) = split_id(&label.id);
        let file = app.files.iter().find(|f| f.facts.path == label.file);
        let found = file.and_then(|f| {
            let plan = f.classes.iter().find(|p| p.class_name == class_name)?;
            plan.analysis
                .methods
                .iter()
                .find(|m| m.name == name && (m.kind == "class") == singleton)
        });
        // The line ranges of the filters whose guards the action starts with.
        let filter_ranges: Vec<(u32, u32)> = match (found, file) {
            (Some(m), Some(f)) => m
                .notes
                .iter()
                .filter_map(|n| n.strip_prefix("before_action callbacks run first: "))
                .flat_map(|list| list.split(", "))
                .filter_map(|cb| {
                    f.facts
                        .methods
                        .iter()
                        .find(|fm| fm.owner == class_name && fm.name == cb)
                        .map(|fm| fm.line_range)
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut s = MethodScore {
            id: label.id.clone(),
            found: found.is_some(),
            expert: label.characteristics.len(),
            matched: 0,
            tool: 0,
            tool_matched: 0,
            type_agrees: 0,
            dropped_reported: 0,
            filter_guards: 0,
            missed: Vec::new(),
            retyped: Vec::new(),
            extra: Vec::new(),
            repeats: Vec::new(),
            reparented: Vec::new(),
            effects_expert: 0,
            effects_matched: 0,
            effects_tool: 0,
            effects_tool_matched: 0,
            structure_agrees: 0,
            writes_expert: 0,
            writes_tool: 0,
            writes_matched: 0,
        };
        let Some(m) = found else {
            s.missed = label
                .characteristics
                .iter()
                .map(|c| format!("{} {:?}", c.subject, c.lines))
                .collect();
            methods.push(s);
            continue;
        };
        let starts: Vec<u32> = m
            .characteristics
            .iter()
            .map(|c| {
                c.source_line
                    .split('-')
                    .next()
                    .and_then(|n| n.trim().parse().ok())
                    .unwrap_or(0)
            })
            .collect();
        let mut used = vec![false; m.characteristics.len()];
        let mut guard = vec![false; m.characteristics.len()];
        for (i, c) in m.characteristics.iter().enumerate() {
            guard[i] = c.source_line.contains(':')
                || filter_ranges
                    .iter()
                    .any(|(lo, hi)| (*lo..=*hi).contains(&starts[i]));
        }
        s.filter_guards = guard.iter().filter(|g| **g).count();
        s.tool = m.characteristics.len() - s.filter_guards;
        // The expert's lines of each label characteristic that was found.
        let mut matched_lines: Vec<(u32, &str)> = Vec::new();
        // (expert index, tool index) of each match, for the structure.
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (ei, expert) in label.characteristics.iter().enumerate() {
            let same_file = expert.file.as_deref().is_none_or(|f| f == label.file);
            // Among the tool's characteristics on the expert's lines, the one whose name
            // shares most words with the expert's subject (two tests on one line, such as
            // `request.format == :html && !params[:list]`, are told apart by what they
            // test, not by which comes first).
            let hit = (0..m.characteristics.len())
                .filter(|&i| !used[i] && same_file && expert.lines.contains(&starts[i]))
                .max_by_key(|&i| {
                    let overlap = shared_words(&expert.subject, &m.characteristics[i].name);
                    (overlap, std::cmp::Reverse(i))
                });
            match hit {
                Some(i) => {
                    matched_lines
                        .extend(expert.lines.iter().map(|&l| (l, expert.subject.as_str())));
                    used[i] = true;
                    pairs.push((ei, i));
                    s.matched += 1;
                    if m.characteristics[i].kind.as_str() == expert.kind {
                        s.type_agrees += 1;
                    } else {
                        s.retyped.push(format!(
                            "{} [{}], expert [{}] {}",
                            m.characteristics[i].name,
                            m.characteristics[i].kind.as_str(),
                            expert.kind,
                            expert.subject
                        ));
                    }
                }
                None => s.missed.push(format!(
                    "{} [{}] lines {:?}",
                    expert.subject, expert.kind, expert.lines
                )),
            }
        }
        s.tool_matched = used.iter().filter(|u| **u).count();
        // Structure: the tool's parent of a matched characteristic is the match of the
        // expert's parent (both at the top counts).
        for &(ei, ti) in &pairs {
            let expert_parent = label.characteristics[ei].parent.as_deref();
            // A filter guard is outside the labels (the README: before_action filters are
            // never characteristics), so a characteristic nested under one is at the top of
            // the method as the expert writes it.
            let mut tool_parent = m.characteristics[ti].parent;
            let mut hops = 0;
            while let Some(tp) = tool_parent.filter(|tp| guard.get(*tp).copied().unwrap_or(false)) {
                tool_parent = m.characteristics.get(tp).and_then(|c| c.parent);
                hops += 1;
                if hops > m.characteristics.len() {
                    tool_parent = None;
                    break;
                }
            }
            let agrees = match (expert_parent, tool_parent) {
                (None, None) => true,
                (Some(subject), Some(tp)) => label
                    .characteristics
                    .iter()
                    .position(|c| c.subject == subject)
                    .and_then(|pe| pairs.iter().find(|(e, _)| *e == pe))
                    .is_some_and(|(_, t)| *t == tp),
                _ => false,
            };
            if agrees {
                s.structure_agrees += 1;
            } else {
                let tool_name = tool_parent
                    .and_then(|tp| m.characteristics.get(tp))
                    .map_or("(top)", |c| c.name.as_str());
                s.reparented.push(format!(
                    "{} [{}] under {}, expert: under {}",
                    m.characteristics[ti].name,
                    label.characteristics[ei].subject,
                    tool_name,
                    expert_parent.unwrap_or("(top)")
                ));
            }
        }
        for (i, c) in m.characteristics.iter().enumerate() {
            if used[i] || guard[i] {
                continue;
            }
            let dropped = label.drop.iter().any(|d| d.line == starts[i]);
            let repeat = matched_lines
                .iter()
                .any(|&(l, subject)| l == starts[i] && shared_words(subject, &c.name) > 0);
            if !dropped && repeat {
                // A second characteristic on the lines of one the expert found, about the
                // same subject (asked again on another path: `display_name` at lines 35
                // and 54): the expert's one characteristic, repeated where the tree needs
                // it. Neither a hit nor an invented case: counted apart.
                s.repeats.push(format!(
                    "{} [{}] line {}",
                    c.name,
                    c.kind.as_str(),
                    c.source_line
                ));
                continue;
            }
            if dropped {
                s.dropped_reported += 1;
            }
            let values: Vec<String> = c.values.iter().map(|v| v.description.clone()).collect();
            s.extra.push(format!(
                "{} [{}] line {} ({})",
                c.name,
                c.kind.as_str(),
                c.source_line,
                values.join(" | ")
            ));
        }
        s.tool -= s.repeats.len();
        // Side effects by type, per method.
        let mut expert: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &label.side_effects {
            // The labels' `job` is the contract's `event` (an enqueue).
            let kind = if e.kind == "job" {
                "event"
            } else {
                e.kind.as_str()
            };
            if EFFECT_TYPES.contains(&kind) {
                *expert.entry(kind).or_default() += 1;
            }
        }
        // Database writes: call sites against the tool's `db_writes`.
        s.writes_expert = label
            .side_effects
            .iter()
            .filter(|e| e.kind == "db_write")
            .count();
        s.writes_tool = m.db_writes.len();
        s.writes_matched = s.writes_expert.min(s.writes_tool);
        let mut tool: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &m.side_effects {
            *tool.entry(e.kind).or_default() += 1;
        }
        let kinds: BTreeSet<&str> = expert.keys().chain(tool.keys()).copied().collect();
        for k in kinds {
            let (a, b) = (
                expert.get(k).copied().unwrap_or(0),
                tool.get(k).copied().unwrap_or(0),
            );
            s.effects_expert += a;
            s.effects_tool += b;
            s.effects_matched += a.min(b);
            s.effects_tool_matched += a.min(b);
            if a > b {
                s.missed.push(format!("side effect {k} x{}", a - b));
            }
            if b > a {
                s.extra.push(format!("side effect {k} x{}", b - a));
            }
        }
        methods.push(s);
    }
    Score {
        app: labels.app.clone(),
        commit: labels.commit.clone(),
        methods,
    }
}

/// Words two names share (`display_name` and `display_name_param_2`: 2).
fn shared_words(subject: &str, name: &str) -> usize {
    let theirs: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    subject
        .split('_')
        .filter(|w| !w.is_empty() && theirs.contains(w))
        .count()
}

/// `A::B#c` → (`A::B`, `c`, false); `A.c` → (`A`, `c`, true).
fn split_id(id: &str) -> (String, String, bool) {
    if let Some((class, name)) = id.rsplit_once('#') {
        return (class.to_string(), name.to_string(), false);
    }
    // The method name follows the last `.` that is not part of `::`.
    match id.rfind('.') {
        Some(i) => (
            id.get(..i).unwrap_or("").to_string(),
            id.get(i + 1..).unwrap_or("").to_string(),
            true,
        ),
        None => (id.to_string(), String::new(), false),
    }
}

impl Score {
    fn report(&self, details: bool) -> String {
        let sum = |f: fn(&MethodScore) -> usize| self.methods.iter().map(f).sum::<usize>();
        let (expert, matched, tool, tool_matched) = (
            sum(|m| m.expert),
            sum(|m| m.matched),
            sum(|m| m.tool),
            sum(|m| m.tool_matched),
        );
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        line(format!(
            "labels: {} ({}), {} methods, {} not found by the tool",
            self.app,
            self.commit.get(..12).unwrap_or(&self.commit),
            self.methods.len(),
            self.methods.iter().filter(|m| !m.found).count()
        ));
        line(format!(
            "characteristics: recall {}/{} ({}), precision {}/{} ({}), type agrees {}/{} matched, dropped-by-expert reported {}, filter guards (outside the labels) {}, repeats of a found one {}",
            matched,
            expert,
            pct(matched, expert),
            tool_matched,
            tool,
            pct(tool_matched, tool),
            sum(|m| m.type_agrees),
            matched,
            sum(|m| m.dropped_reported),
            sum(|m| m.filter_guards),
            sum(|m| m.repeats.len())
        ));
        let (ee, em, et, etm) = (
            sum(|m| m.effects_expert),
            sum(|m| m.effects_matched),
            sum(|m| m.effects_tool),
            sum(|m| m.effects_tool_matched),
        );
        line(format!(
            "side effects: recall {}/{} ({}), precision {}/{} ({})",
            em,
            ee,
            pct(em, ee),
            etm,
            et,
            pct(etm, et)
        ));
        line(format!(
            "structure: {}/{} matched characteristics under the expert's parent ({})",
            sum(|m| m.structure_agrees),
            matched,
            pct(sum(|m| m.structure_agrees), matched)
        ));
        let (we, wt, wm) = (
            sum(|m| m.writes_expert),
            sum(|m| m.writes_tool),
            sum(|m| m.writes_matched),
        );
        line(format!(
            "db writes: recall {}/{} ({}), precision {}/{} ({})",
            wm,
            we,
            pct(wm, we),
            wm,
            wt,
            pct(wm, wt)
        ));
        if details {
            for m in &self.methods {
                if m.missed.is_empty() && m.extra.is_empty() && m.reparented.is_empty() {
                    continue;
                }
                line(format!(
                    "  {}{}: {}/{} found, {} extra",
                    m.id,
                    if m.found { "" } else { " (not analyzed)" },
                    m.matched,
                    m.expert,
                    m.extra.len()
                ));
                for x in &m.missed {
                    line(format!("    missed: {x}"));
                }
                for x in &m.repeats {
                    line(format!("    repeat: {x}"));
                }
                for x in &m.retyped {
                    line(format!("    type:   {x}"));
                }
                for x in &m.extra {
                    line(format!("    extra:  {x}"));
                }
                for x in &m.reparented {
                    line(format!("    parent: {x}"));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_in_descriptions() {
        for code in [
            "returns content_tag(:span, {:class => \"hat\"})",
            "match \\a[a z0 9]+\\z i",
            "returns data_with_extrapolated_month",
            "user.admin",
            "present?",
            "due date.nil? || start date.nil or 100",
            "@x",
        ] {
            assert!(looks_like_code(code), "{code}");
        }
        for words in [
            "link includes \"@\"",
            "attrs is a Hash",
            "amount above THRESHOLD (100)"
                .replace(['(', ')'], "")
                .as_str(),
            "raises ActiveRecord::RecordNotFound",
            "amount above Billing::MAX_AMOUNT",
            "returns 1.5",
            "NOT admin user",
            "sends document added email",
        ] {
            assert!(!looks_like_code(words), "{words}");
        }
    }

    #[test]
    fn contexts_and_their_lets() {
        let skeleton = "    context 'with attachments' do\n      # Logic: 401\n      let(:attachments) { nil }\n      {SETUP_CODE}\n    end\n    context 'without attachments' do\n      let(:attachments) { true }\n    end\n    context 'when NOT admin' do\n      let(:admin) { false }\n    end\n";
        let found = context_lets(skeleton);
        assert_eq!(
            found,
            vec![
                ("with attachments".to_string(), "nil".to_string()),
                ("without attachments".to_string(), "true".to_string()),
                ("when NOT admin".to_string(), "false".to_string()),
            ]
        );
        let flags: Vec<bool> = found.iter().map(|(c, v)| inverted(c, v)).collect();
        assert_eq!(flags, [true, true, false]);
        assert!(!inverted("when fixed issues missing", "nil"));
        assert!(!inverted("with saved card", "\"present\""));
        assert!(!inverted("when status", ":active"));
        assert!(!inverted("when wiki or NOT user allowed", "true"));
        assert!(inverted("when neither wiki nor user allowed", "true"));
        assert!(!inverted(
            "with NOT visible issue or include changesets",
            "true"
        ));
        assert!(inverted("when NOT both paid and shipped", "true"));
        assert!(!inverted("when none muted messages", "true"));
        assert!(!inverted("but no error raised", "false"));
        assert!(!inverted(
            "with some watchables where NOT current user allowed",
            "true"
        ));
        assert!(!inverted(
            "but all watchables where current user allowed",
            "false"
        ));
        assert!(inverted("with no journals where any value notes", "true"));
        assert!(!inverted("but NOT action name in new and create", "false"));
        assert!(inverted("when action name in new and create", "false"));
        assert!(!inverted(
            "when sort param or session sort name missing",
            "nil"
        ));
        assert!(inverted(
            "when sort param or session sort name present",
            "nil"
        ));
        let flag = "    context 'with no html' do\n      let(:no_html) { true }\n    end\n    context 'with no journals' do\n      let(:journals_any) { true }\n    end\n    context 'but no error raised' do\n      let(:no_method_error) { false }\n    end\n    context 'with missing' do\n      let(:missing) { true }\n    end\n";
        let flags: Vec<bool> = context_lets(flag)
            .iter()
            .map(|(c, v)| inverted(c, v))
            .collect();
        assert_eq!(flags, [false, true, false, false]);
        assert!(!inverted(
            "with param blank or source tracker missing and source role missing",
            "true"
        ));
    }

    #[test]
    fn decisions_are_found_in_blocks_and_operators() {
        let facts = index::extract_with(
            "app/models/a.rb",
            b"class A\n  def a\n    User.transaction do\n      x if y\n    end\n  end\n\n  def b\n    c&.d\n  end\n\n  def c\n    @x ||= 1\n  end\nend\n",
            &ExtractOptions::with_bodies(),
        );
        let flags: Vec<bool> = facts
            .methods
            .iter()
            .map(|m| m.body.as_deref().is_some_and(decides))
            .collect();
        assert_eq!(flags, [true, true, false]);
    }

    #[test]
    fn method_ids_split() {
        assert_eq!(
            split_id("A::B#c?"),
            ("A::B".to_string(), "c?".to_string(), false)
        );
        assert_eq!(
            split_id("A::B.c"),
            ("A::B".to_string(), "c".to_string(), true)
        );
    }
}
