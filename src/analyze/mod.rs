//! The code-analyzer stage: per-method characteristics, side effects, dependencies and the
//! behavior bank, decided from the syntax of the method (and the private methods it calls)
//! instead of by a language model.
//!
//! [`analyze`] is pure: facts (parsed with bodies) in, [`FileAnalysis`] out. Each construct
//! lives in its own file (`guard.rs`, `branch.rs`, `case.rs`, `rescue.rs`, `loops.rs`,
//! `inline.rs`, `controller.rs`); `condition.rs` types conditions, `outcome.rs` writes
//! behavior texts, `side_effects.rs` finds side effects, `setup.rs` decides `setup` and
//! `source`, `grammar.rs` keeps every text within the validator's rules; `factories.rs`
//! says which factory and trait set each characteristic up (`factories_detected`).
//!
//! Rules the contract marks \[J\] get one documented, deterministic answer; each use lowers
//! the method's `confidence` and is named in its `notes`.

pub mod clients;
pub mod condition;
pub mod controller;
mod db_writes;
pub mod factories;
pub mod flow;
pub mod grammar;
mod iteration;
pub mod model;
pub mod outcome;
pub mod phrase;
pub mod rules;
pub mod setup;
pub mod side_effects;
pub mod types;
pub mod via;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use serde::Deserialize;

use crate::index::{FileFacts, MethodFacts, MethodKind, Visibility};

use flow::{End, MethodCx, Walker};
use model::{BehaviorDraft, BehaviorKind, MethodAnalysis};
use outcome::TextContext;
use types::{Lookup, TypeEnv};

/// The side-effect types of the contract.
pub const SIDE_EFFECT_TYPES: &[&str] = crate::vocab::SideEffectKind::NAMES;

/// An extra side-effect rule: calls matching `pattern` (`Receiver.method`, `*` wildcards)
/// are side effects of `type`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideEffectRule {
    /// `SlackNotifier.*`, `*Mailer.*`, `Analytics.track`.
    pub pattern: String,
    /// `email`, `webhook`, `cache`, `event` or `external_api`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The behavior description, e.g. `notifies Slack`; derived from the call when absent.
    #[serde(default)]
    pub description: Option<String>,
}

/// A method to analyze.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    /// Its name.
    pub name: String,
    /// Its class, when it is not the request's (a second or nested class of the file).
    pub class: Option<String>,
    /// Instance or singleton, when known (`methods_to_analyze[].type`).
    pub kind: Option<MethodKind>,
    /// Passed through from discovery.
    pub method_mode: String,
}

/// What to analyze.
#[derive(Debug)]
pub struct Request<'a> {
    /// The file's facts, extracted with bodies.
    pub facts: &'a FileFacts,
    /// The class under analysis.
    pub class_name: String,
    /// The methods, in order.
    pub methods: Vec<Selected>,
    /// The project root, for finding classes by their Rails path.
    pub root: Option<PathBuf>,
    /// Extra side-effect rules from the config.
    pub rules: &'a [SideEffectRule],
    /// For controllers: the ancestors and concerns whose filters and helpers apply
    /// ([`controller::chain`]); empty otherwise.
    pub controller_chain: &'a [controller::Link],
    /// For controllers: the app's routes (`config/routes.rb`), for the params every route
    /// to an action carries (J20).
    pub routes: Option<&'a crate::rails::routes::Routes>,
    /// The gems the project's `Gemfile.lock` resolves (`None` without one): an API SDK's
    /// constant (`Stripe`) is a client when its gem is there.
    pub gems: Option<&'a [String]>,
    /// The project's files, for effects one call away ([`via`]); `None`: only the file.
    pub project: Option<&'a dyn via::ProjectFiles>,
}

/// One entry of the behavior bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Behavior {
    /// Stable snake_case id.
    pub id: String,
    /// The `it` text.
    pub description: String,
    /// `terminal`, `success` or `side_effect`.
    pub kind: BehaviorKind,
    /// The side-effect type.
    pub subtype: Option<&'static str>,
    /// How many references.
    pub used_by: usize,
}

/// The analysis of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileAnalysis {
    /// The class analyzed.
    pub class_name: String,
    /// One per requested method found.
    pub methods: Vec<MethodAnalysis>,
    /// The behavior bank.
    pub behaviors: Vec<Behavior>,
    /// Requested methods that were not found, and similar problems.
    pub warnings: Vec<String>,
}

impl FileAnalysis {
    /// The id of a behavior (by its text).
    pub fn id_of(&self, draft: &BehaviorDraft) -> Option<&str> {
        self.behaviors
            .iter()
            .find(|b| b.description == draft.description)
            .map(|b| b.id.as_str())
    }
}

/// Core classes, errors and framework namespaces that are not dependencies to stub.
const CORE: &[&str] = &[
    "Time",
    "Date",
    "DateTime",
    "Integer",
    "Float",
    "String",
    "Symbol",
    "Hash",
    "Array",
    "Rails",
    "ENV",
    "Kernel",
    "Math",
    "JSON",
    "BigDecimal",
    "Struct",
    "Set",
    "Comparable",
    "I18n",
    "Logger",
    "Object",
    "Class",
    "Module",
    "Proc",
    "Regexp",
    "Range",
    "NilClass",
    "TrueClass",
    "FalseClass",
    "StandardError",
    "ArgumentError",
    "RuntimeError",
    "NotImplementedError",
    "KeyError",
    "TypeError",
    "NoMethodError",
    "ActiveRecord",
    "ActiveSupport",
    "ActiveModel",
    "ActionController",
    "ActionDispatch",
    "ActiveJob",
    "URI",
    "CGI",
    "Base64",
    "SecureRandom",
    "Digest",
    "File",
    "Dir",
    "IO",
    "Pathname",
];

/// Analyzes the requested methods of a file: those of the request's class, and those of
/// the file's other classes and modules (a second class, a nested one, an error class,
/// each `Selected` naming its own), into one behavior bank.
pub fn analyze(request: &Request<'_>) -> FileAnalysis {
    let lookup = Lookup::new(request.root.clone(), request.facts);
    let mut methods = Vec::new();
    let mut warnings = Vec::new();
    // The classes in the order their first method was asked for, the request's first.
    let mut classes: Vec<&str> = vec![request.class_name.as_str()];
    for s in &request.methods {
        if let Some(c) = s.class.as_deref() {
            if !classes.contains(&c) {
                classes.push(c);
            }
        }
    }
    for class_name in classes {
        let selected: Vec<Selected> = request
            .methods
            .iter()
            .filter(|s| s.class.as_deref().unwrap_or(&request.class_name) == class_name)
            .cloned()
            .collect();
        if selected.is_empty() {
            continue;
        }
        let own = class_name == request.class_name;
        let sub = Request {
            facts: request.facts,
            class_name: class_name.to_string(),
            methods: selected,
            root: request.root.clone(),
            rules: request.rules,
            // A controller's chain is read for the file's class.
            controller_chain: if own { request.controller_chain } else { &[] },
            routes: request.routes,
            gems: request.gems,
            project: request.project,
        };
        let (mut found, problems) = analyze_class(&sub, &lookup);
        if !own {
            for m in &mut found {
                m.class_name = Some(class_name.to_string());
            }
        }
        methods.extend(found);
        warnings.extend(problems);
    }
    // The schema, when a condition's type came from it, is an input of the plan.
    if let (Some(file), Some(first)) = (lookup.schema_file(), methods.first_mut()) {
        first.reached_files.push(file.to_string());
    }
    let behaviors = bank(&methods);
    FileAnalysis {
        class_name: request.class_name.clone(),
        methods,
        behaviors,
        warnings,
    }
}

/// The requested methods of one class.
fn analyze_class(request: &Request<'_>, lookup: &Lookup) -> (Vec<MethodAnalysis>, Vec<String>) {
    let controller = request.class_name.ends_with("Controller")
        || request.facts.path.contains("app/controllers/");
    let mut methods = Vec::new();
    let mut warnings = Vec::new();
    let class = ClassMethods::new(request.facts, &request.class_name, request.gems);
    let responders = controller.then(|| {
        controller::ControllerCx {
            facts: request.facts,
            class: &request.class_name,
            chain: request.controller_chain,
        }
        .responders()
    });
    for selected in &request.methods {
        let found = class.by_name.get(selected.name.as_str()).and_then(|list| {
            list.iter()
                .filter_map(|&i| request.facts.methods.get(i).map(|m| (i, m)))
                .find(|(_, m)| selected.kind.is_none_or(|k| k == m.kind))
        });
        let Some((index, method)) = found else {
            warnings.push(format!(
                "{}: no method `{}` in {}; it was not analyzed",
                request.facts.path, selected.name, request.class_name
            ));
            continue;
        };
        methods.push(analyze_method(
            request,
            (index, method),
            selected,
            &class,
            lookup,
            responders.as_ref(),
        ));
    }
    (methods, warnings)
}

/// The params every route to `class#action` carries: the dynamic segments (`:id`,
/// `*path`) outside optional groups that all its routes share. None when no route leads
/// to it (the action may be reached some other way).
fn route_params(routes: &crate::rails::routes::Routes, class: &str, action: &str) -> Vec<String> {
    let Some(controller) = crate::rails::routes::controller_path(class) else {
        return Vec::new();
    };
    let mut common: Option<Vec<String>> = None;
    for route in routes.lookup(&controller, action) {
        let mine = crate::rails::routes::required_params(&route.path);
        common = Some(match common {
            None => mine,
            Some(before) => before.into_iter().filter(|p| mine.contains(p)).collect(),
        });
    }
    common.unwrap_or_default()
}

/// The methods of the analyzed class, looked up once per file instead of once per method
/// (a class with 10,000 methods made every method scan all of them several times).
struct ClassMethods<'a> {
    /// Non-dynamic methods of the class by name, in source order.
    by_name: HashMap<&'a str, Vec<usize>>,
    initialize: Option<&'a MethodFacts>,
    private_instance: Vec<&'a MethodFacts>,
    private_singleton: Vec<&'a MethodFacts>,
    /// The private methods each method absorbs, indexed once for the file.
    absorber: crate::index::Absorber<'a>,
    /// The clients of remote services and stores the class holds.
    clients: clients::Clients,
}

impl<'a> ClassMethods<'a> {
    fn new(facts: &'a FileFacts, class: &str, gems: Option<&[String]>) -> Self {
        let mut out = ClassMethods {
            by_name: HashMap::new(),
            initialize: None,
            private_instance: Vec::new(),
            private_singleton: Vec::new(),
            absorber: crate::index::Absorber::new(&facts.methods),
            clients: clients::Clients::of_class(facts, class, gems),
        };
        // A def a later one replaces is never called: its name finds the later one.
        let redefined = crate::index::redefined(&facts.methods);
        for (i, m) in facts.methods.iter().enumerate() {
            if m.owner != class || redefined.get(i).copied().unwrap_or(false) {
                continue;
            }
            if out.initialize.is_none() && m.name == "initialize" && m.kind == MethodKind::Instance
            {
                out.initialize = Some(m);
            }
            if m.dynamic {
                continue;
            }
            out.by_name.entry(m.name.as_str()).or_default().push(i);
            if m.visibility != Visibility::Public {
                match m.kind {
                    MethodKind::Instance => out.private_instance.push(m),
                    MethodKind::Singleton => out.private_singleton.push(m),
                }
            }
        }
        out
    }

    fn privates(&self, kind: MethodKind) -> Vec<&'a MethodFacts> {
        match kind {
            MethodKind::Instance => self.private_instance.clone(),
            MethodKind::Singleton => self.private_singleton.clone(),
        }
    }
}

/// `ApplicationController` (or a namespace's, `Admin::ApplicationController`): the base
/// every controller inherits from, never routed to itself. Its public methods are filters
/// and helpers, not actions.
fn is_base_controller(class: &str) -> bool {
    crate::analyze::flow::last_segment(class) == "ApplicationController"
}

/// Whether Rails can route a request to `method`: an instance method without required
/// arguments, named like an action (no `?`, `!` or `=`).
fn can_be_action(method: &MethodFacts) -> bool {
    method.kind == MethodKind::Instance
        && method
            .name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && method.params.iter().all(|p| {
            !matches!(
                p.kind,
                crate::index::ParamKind::Required | crate::index::ParamKind::Keyword
            )
        })
}

fn analyze_method(
    request: &Request<'_>,
    (index, method): (usize, &MethodFacts),
    selected: &Selected,
    class_methods: &ClassMethods<'_>,
    lookup: &Lookup,
    responders: Option<&outcome::Responders>,
) -> MethodAnalysis {
    let facts = request.facts;
    let class = request.class_name.as_str();
    let initialize = class_methods.initialize;
    let privates = class_methods.privates(method.kind);
    // What registers the method with Rails, if anything; a public method is a unit of its
    // own (no trigger in its answer), but one registered as a callback (redmine's
    // `before_destroy :set_issue_category_nil`) still runs on a valid record there.
    let registered = crate::rails::callbacks::triggers(facts)
        .get(index)
        .cloned()
        .flatten();
    let on_valid_record = registered
        .as_ref()
        .is_some_and(crate::rails::callbacks::Trigger::on_valid_record);
    // A controller filter or handler, public or not (lobsters' ApplicationController
    // declares `before_action :mini_profiler` over a public `mini_profiler`).
    let filter = registered.as_ref().is_some_and(|t| !t.is_model());
    let trigger = registered.filter(|_| !method.is_public_api());
    // In a controller, render, redirect and head are outcomes; an action that ends
    // without responding renders its template (a filter lets the request through). A
    // public method that cannot be an action (`refill_story_page_cache(story)` takes an
    // argument, `agent_is_spider?` is a predicate, `ApplicationController`'s methods are
    // inherited) ends with what it does or returns.
    let controller = responders.is_some();
    let action = controller && (filter || (can_be_action(method) && !is_base_controller(class)));
    let cx = MethodCx {
        facts,
        method,
        class_name: class,
        env: TypeEnv::build(method, initialize, lookup).with_memos(&privates),
        lookup,
        text: TextContext {
            class_name: class,
            method_name: &method.name,
            controller,
            action,
            filter,
            responders,
        },
        privates,
        route_params: if action && !filter {
            request
                .routes
                .map(|routes| route_params(routes, class, &method.name))
                .unwrap_or_default()
        } else {
            Vec::new()
        },
        validated: if on_valid_record {
            facts
                .classes
                .iter()
                .filter(|c| c.name == class)
                .flat_map(crate::rails::callbacks::validated_present)
                .collect()
        } else {
            Vec::new()
        },
    };
    let mut walker = Walker::new(&cx);
    let mut stmts = method
        .body
        .as_deref()
        .map(|body| flow::statements(&flow::without_shims(body)))
        .unwrap_or_default();
    // An action runs its filters first; a filter (or handler) is a unit of its own.
    if action && !filter {
        let ccx = controller::ControllerCx {
            facts,
            class,
            chain: request.controller_chain,
        };
        let guards = controller::callback_guards(&ccx, &method.name);
        if !guards.app_wide.is_empty() {
            walker.notes.push(format!(
                "app-wide before_action callbacks also run, planned in their own spec: {}",
                guards.app_wide.join(", ")
            ));
        }
        if !guards.conditional.is_empty() {
            walker.notes.push(format!(
                "conditional before_action callbacks (if:/unless:) not planned: {}",
                guards.conditional.join(", ")
            ));
        }
        if !guards.unplanned.is_empty() {
            walker.notes.push(format!(
                "before_action callbacks that may respond under compound conditions, not planned here: {}",
                guards.unplanned.join(", ")
            ));
        }
        if !guards.statements.is_empty() {
            walker.notes.push(format!(
                "before_action callbacks run first: {}",
                guards.used.join(", ")
            ));
            let mut all = guards.statements;
            all.extend(stmts);
            stmts = all;
        }
    }
    let mut end = walker.seq(&stmts, flow::At::root(), true);
    // `a <=> b` returned by a method that decides nothing else: three outcomes.
    if walker.chars.is_empty() {
        if let Some(last) = final_statement(&stmts) {
            if walker.spaceship(&last) {
                end = End::Branched;
            }
        }
    }
    walker.note_decided();
    let outcome = match &end {
        End::Done(o) | End::Exited(o) if walker.chars.is_empty() => Some(o.behavior(false)),
        _ => None,
    };
    // Every leaf needs a behavior; the walker gives one on every path it understands.
    for slot in walker.leaves_without_behavior() {
        let fallback = match &end {
            End::Done(o) | End::Exited(o) => o.clone(),
            // The method ends in a conditional: what its branches end with (`returns the
            // pages or an empty list`), not one of them as if it were the only one.
            // Otherwise (actions, responses) what its last branch ends with.
            End::Branched => branch_outcomes(&stmts, &cx.text)
                .or_else(|| {
                    final_statement(&stmts)
                        .map(|last| outcome::final_expression(&last, &cx.text))
                        .filter(|o| !o.failure)
                })
                .unwrap_or_else(|| outcome::Outcome {
                    description: "continues".to_string(),
                    failure: false,
                    guessed: true,
                    sets: None,
                }),
        };
        // An action whose last conditional only sets what the template shows
        // (`@application = find_by(...) || build` when signed in) returns nothing: it
        // renders its template on every branch (a filter lets the request through).
        let fallback = if matches!(end, End::Branched)
            && cx.text.action
            && fallback.description.starts_with("returns ")
            && !last_conditional_responds(&stmts, &cx.text)
        {
            walker.empty_outcome(true)
        } else {
            fallback
        };
        // A path that set a value the rest reads says which (`with delta set to -1`).
        let fallback = match walker.sets_of(slot) {
            Some(sets) => fallback.with_sets(sets),
            None => fallback,
        };
        walker.apply(rules::Rule::LeafTakesFinalOutcome, None);
        walker.set_leaf(slot, &fallback, false);
    }
    walker.clear_intermediate_behaviors();

    // Side effects: the method, the private methods it absorbs, and the same-class
    // methods (public ones too) it calls, transitively.
    let absorbed = class_methods.absorber.absorbed(index);
    let mut bodies: Vec<&crate::index::body::Node> = method.body.as_deref().into_iter().collect();
    // Each helper with its own locals' types (`client = Octokit::Client.new` in a private
    // method is a client there, not in the caller).
    let mut helpers: Vec<(&crate::index::body::Node, &crate::index::MethodFacts)> = Vec::new();
    for m in absorbed.iter().filter_map(|i| facts.methods.get(*i)) {
        if let Some(body) = m.body.as_deref() {
            bodies.push(body);
            helpers.push((body, m));
        }
    }
    for helper in same_class_callees(class_methods, facts, method) {
        if let Some(body) = helper.body.as_deref() {
            if !bodies.iter().any(|b| std::ptr::eq(*b, body)) {
                bodies.push(body);
                helpers.push((body, helper));
            }
        }
    }
    let own_bodies: Vec<&crate::index::body::Node> = method.body.as_deref().into_iter().collect();
    let mut effects = side_effects::collect(
        &own_bodies,
        &cx.env,
        lookup,
        request.rules,
        class,
        &class_methods.clients,
        request.project,
    );
    for (body, helper) in &helpers {
        let env = TypeEnv::build(helper, initialize, lookup);
        for e in side_effects::collect(
            &[*body],
            &env,
            lookup,
            request.rules,
            class,
            &class_methods.clients,
            request.project,
        ) {
            if !effects
                .iter()
                .any(|o| o.behavior.description == e.behavior.description)
            {
                effects.push(e);
            }
        }
    }
    let mut db_writes = db_writes::collect(&bodies, class, &class_methods.clients);
    // One call away: the effects and writes of the project methods it calls and of the
    // model callbacks its writes run, each with where it comes from (`via`).
    let mut reached_files = Vec::new();
    if let Some(files) = request.project {
        let reached = via::reach(
            &bodies,
            &via::Cx {
                own: class,
                env: &cx.env,
                lookup,
                files,
                rules: request.rules,
                gems: request.gems,
                facts,
                kind: method.kind,
            },
        );
        for e in reached.effects {
            if effects
                .iter()
                .any(|o| o.behavior.description == e.behavior.description)
            {
                continue;
            }
            walker.notes.push(format!(
                "side effect through {}: {}",
                e.via.as_deref().unwrap_or("another method"),
                e.behavior.description
            ));
            effects.push(e);
        }
        for w in reached.writes {
            if !db_writes
                .iter()
                .any(|o| o.operation == w.operation && o.target == w.target)
            {
                db_writes.push(w);
            }
        }
        reached_files = reached.files;
    }
    let leaf_texts: BTreeSet<String> = walker
        .chars
        .iter()
        .flat_map(|c| &c.values)
        .filter_map(|v| v.behavior.as_ref())
        .map(|b| b.description.clone())
        .chain(outcome.iter().map(|b| b.description.clone()))
        .collect();
    // A side effect that a leaf (or the method) ends with is that leaf's example: it stays
    // in `side_effects` (what test-config and the spec-writer read), marked `scope: leaf`
    // so the skeleton expects it in those contexts only, not in every one. The leaf's
    // behavior keeps its side-effect type as `subtype`.
    let said: Vec<(String, Option<&'static str>)> = effects
        .iter()
        .filter(|e| leaf_texts.contains(&e.behavior.description))
        .map(|e| (e.behavior.description.clone(), e.behavior.subtype))
        .collect();
    for e in &mut effects {
        e.leaf = leaf_texts.contains(&e.behavior.description);
    }
    let mut walker_chars = walker.chars;
    if controller {
        // Guards read from a parent controller or a concern name their file.
        for c in &mut walker_chars {
            c.source_line = controller::source_line(&c.source_line, request.controller_chain);
        }
    }
    let mut outcome = outcome;
    for (text, subtype) in &said {
        for b in walker_chars
            .iter_mut()
            .flat_map(|c| c.values.iter_mut())
            .filter_map(|v| v.behavior.as_mut())
            .chain(outcome.iter_mut())
        {
            if &b.description == text {
                b.subtype = *subtype;
            }
        }
    }

    if trigger
        .as_ref()
        .is_some_and(crate::rails::callbacks::Trigger::is_model)
    {
        // Rails ignores what a callback returns: a path that only returns a value does
        // nothing (a spec through `save!` cannot see the value).
        for b in walker_chars
            .iter_mut()
            .flat_map(|c| c.values.iter_mut())
            .filter_map(|v| v.behavior.as_mut())
            .chain(outcome.iter_mut())
        {
            if b.description.starts_with("returns ") {
                b.description = "does nothing".to_string();
            }
        }
    }
    let dependencies = dependencies(method, &absorbed, facts, &cx.env, lookup, class);
    let confidence = (walker.confidence * 100.0).round() / 100.0;
    MethodAnalysis {
        name: method.name.clone(),
        kind: if method.kind == MethodKind::Singleton {
            "class"
        } else {
            "instance"
        },
        method_mode: selected.method_mode.clone(),
        characteristics: walker_chars,
        side_effects: effects,
        dependencies,
        confidence: confidence.max(0.3),
        notes: walker.notes,
        outcome,
        db_writes,
        trigger: trigger.map(|t| t.text()),
        reached_files,
        class_name: None,
    }
}

/// The methods of the same class and kind that `method` calls with an implicit receiver
/// (or `self.`), transitively, at most 30.
fn same_class_callees<'a>(
    class: &ClassMethods<'a>,
    facts: &'a FileFacts,
    method: &'a MethodFacts,
) -> Vec<&'a MethodFacts> {
    use crate::index::body::Node;
    fn calls(node: &Node, out: &mut Vec<String>) {
        if let Node::Call(c) = node {
            if c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef)) {
                out.push(c.name.clone());
            }
        }
        node.for_each_child(&mut |child| calls(child, out));
    }
    let mut out: Vec<&MethodFacts> = Vec::new();
    let mut queue = vec![method];
    while let Some(m) = queue.pop() {
        let Some(body) = m.body.as_deref() else {
            continue;
        };
        let mut names = Vec::new();
        calls(body, &mut names);
        for name in names {
            let found = class.by_name.get(name.as_str()).and_then(|list| {
                list.iter()
                    .filter_map(|&i| facts.methods.get(i))
                    .find(|f| f.kind == method.kind)
            });
            if let Some(next) = found {
                if !std::ptr::eq(next, method)
                    && !out.iter().any(|o| std::ptr::eq(*o, next))
                    && out.len() < 30
                {
                    out.push(next);
                    queue.push(next);
                }
            }
        }
    }
    out
}

/// The statement a method ends with, looking through a final conditional into its last
/// branch (`if ... else render :show end` → `render :show`).
/// What the conditional a method ends in returns, over its branches that do not fail, when
/// they return two or three different values (`returns the pages or an empty list`): a
/// leaf placed beside that conditional gets either. `None` otherwise.
/// Whether a branch of the method's last statement (a conditional) responds: renders,
/// redirects, heads or calls a helper that does.
fn last_conditional_responds(
    stmts: &[crate::index::body::Node],
    text: &outcome::TextContext<'_>,
) -> bool {
    let Some(last) = stmts.last() else {
        return false;
    };
    let mut found = Vec::new();
    branch_ends(last, &mut found, 0);
    found
        .iter()
        .any(|end| flow::is_response(end, text.responders))
}

/// The last statement of each branch of `node` (`nil` for a branch left out).
fn branch_ends(
    node: &crate::index::body::Node,
    out: &mut Vec<crate::index::body::Node>,
    depth: usize,
) {
    use crate::index::body::Node;
    if depth > 20 {
        return;
    }
    match node {
        Node::If(i) => {
            branch_ends(&Node::Seq(flow::statements(&i.then)), out, depth + 1);
            match &i.els {
                Some(e) => branch_ends(&Node::Seq(flow::statements(e)), out, depth + 1),
                None => out.push(Node::Nil),
            }
        }
        Node::Case(c) => {
            for w in &c.whens {
                branch_ends(&Node::Seq(flow::statements(&w.body)), out, depth + 1);
            }
            match &c.els {
                Some(e) => branch_ends(&Node::Seq(flow::statements(e)), out, depth + 1),
                None => out.push(Node::Nil),
            }
        }
        Node::Seq(items) => match items.last() {
            Some(last) => branch_ends(last, out, depth + 1),
            None => out.push(Node::Nil),
        },
        Node::Begin(b) if b.rescues.is_empty() => {
            branch_ends(&Node::Seq(flow::statements(&b.body)), out, depth + 1)
        }
        other => out.push(other.clone()),
    }
}

fn branch_outcomes(
    stmts: &[crate::index::body::Node],
    text: &outcome::TextContext<'_>,
) -> Option<outcome::Outcome> {
    use crate::index::body::Node;
    let mut last = Vec::new();
    branch_ends(stmts.last()?, &mut last, 0);
    // Values returned (a variable, a literal, or a call of a known pattern: `returns the
    // pages`, `returns an empty list`): two or three distinct ones are joined; anything
    // else (responses, actions, texts guessed from code) is left to the caller.
    let mut outcomes: Vec<outcome::Outcome> = Vec::new();
    for node in &last {
        let o = outcome::final_expression(node, text);
        let value = matches!(
            node,
            Node::Lvar(_)
                | Node::Ivar(_)
                | Node::Array(_)
                | Node::Hash(_)
                | Node::Str(_)
                | Node::Sym(_)
                | Node::Int(_)
                | Node::Nil
                | Node::True
                | Node::False
        );
        if !value && o.guessed {
            return None;
        }
        if !o.failure && !outcomes.iter().any(|k| k.description == o.description) {
            outcomes.push(o);
        }
    }
    let values: Vec<&str> = outcomes
        .iter()
        .map(|o| o.description.strip_prefix("returns "))
        .collect::<Option<Vec<_>>>()?;
    if !(2..=3).contains(&values.len()) {
        return None;
    }
    Some(outcome::Outcome {
        description: format!("returns {}", values.join(" or ")),
        failure: false,
        guessed: true,
        sets: None,
    })
}

fn final_statement(stmts: &[crate::index::body::Node]) -> Option<crate::index::body::Node> {
    use crate::index::body::Node;
    let mut last = stmts.last()?.clone();
    for _ in 0..20 {
        last = match last {
            Node::If(i) => match &i.els {
                Some(e) => flow::statements(e).pop()?,
                None => flow::statements(&i.then).pop()?,
            },
            Node::Case(c) => match &c.els {
                Some(e) => flow::statements(e).pop()?,
                None => flow::statements(&c.whens.last()?.body).pop()?,
            },
            Node::Begin(b) => flow::statements(&b.body).pop()?,
            other => return Some(other),
        };
    }
    None
}

/// Classes the method uses: constants it and its absorbed methods reference (not its own
/// class, core classes or exceptions it raises), and classes of its typed parameters.
fn dependencies(
    method: &MethodFacts,
    absorbed: &[usize],
    facts: &FileFacts,
    env: &TypeEnv,
    lookup: &Lookup,
    own: &str,
) -> Vec<String> {
    let mut out = BTreeSet::new();
    let methods: Vec<&MethodFacts> = std::iter::once(method)
        .chain(absorbed.iter().filter_map(|&i| facts.methods.get(i)))
        .collect();
    let mut raised = BTreeSet::new();
    for m in &methods {
        if let Some(body) = &m.body {
            raised_constants(body, &mut raised);
        }
    }
    for m in &methods {
        for c in &m.constants {
            let root = c.path.split("::").next().unwrap_or(&c.path);
            let last = c.path.rsplit("::").next().unwrap_or(&c.path);
            let is_error = c.path.ends_with("Error")
                || c.path.ends_with("Exception")
                || raised.contains(&c.path);
            // `FREE_SHIPPING_CENTS`: a value, not a class.
            let value_constant = last
                .chars()
                .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || ch == '_');
            let nested_here = facts
                .classes
                .iter()
                .any(|k| k.name == format!("{own}::{}", c.path));
            if c.path == own
                || CORE.contains(&root)
                || is_error
                || value_constant
                || nested_here
                || c.path.starts_with(&format!("{own}::"))
            {
                continue;
            }
            out.insert(c.path.clone());
        }
        for p in &m.params {
            if let Some(types::VarType::Instance(class)) = env.var(&p.name) {
                if class != own {
                    out.insert(class.clone());
                }
            }
        }
        for ivar in m.ivars.iter() {
            if let Some(types::VarType::Instance(class)) = env.ivar(ivar, lookup) {
                if class != own && !CORE.contains(&class.as_str()) {
                    out.insert(class);
                }
            }
        }
    }
    out.into_iter().collect()
}

/// Constants a body raises (`raise OutOfStock`, `raise Errors::Bad.new(...)`), anywhere in
/// it.
fn raised_constants(node: &crate::index::body::Node, out: &mut BTreeSet<String>) {
    use crate::index::body::{walk, Node, Visitor};
    struct Raised<'o>(&'o mut BTreeSet<String>);
    impl<'n> Visitor<'n> for Raised<'_> {
        fn enter(&mut self, node: &'n Node) -> bool {
            if let Node::Call(c) = node {
                if c.recv.is_none() && matches!(c.name.as_str(), "raise" | "fail") {
                    match c.args.first() {
                        Some(Node::Const { path, .. }) => {
                            self.0.insert(path.clone());
                        }
                        Some(Node::Call(inner)) => {
                            if let Some(Node::Const { path, .. }) = &inner.recv {
                                self.0.insert(path.clone());
                            }
                        }
                        _ => {}
                    }
                }
            }
            true
        }
    }
    walk(&mut Raised(out), node);
}

/// Builds the behavior bank: one entry per distinct text, in order of first use; ids are
/// slugs of the text, made unique with `_2`, `_3` when two texts slug alike.
fn bank(methods: &[MethodAnalysis]) -> Vec<Behavior> {
    use std::collections::{HashMap, HashSet};
    let mut bank: Vec<Behavior> = Vec::new();
    // Lookups by text and by id, and per base id the next suffix to try: scanning the bank
    // for each behavior was cubic for thousands of texts that slug alike.
    let mut by_description: HashMap<String, usize> = HashMap::new();
    let mut ids: HashSet<String> = HashSet::new();
    let mut next_suffix: HashMap<String, usize> = HashMap::new();
    let mut add = |draft: &BehaviorDraft| {
        if let Some(existing) = by_description
            .get(&draft.description)
            .and_then(|&i| bank.get_mut(i))
        {
            existing.used_by += 1;
            if existing.subtype.is_none() {
                existing.subtype = draft.subtype;
            }
            return;
        }
        let base = grammar::behavior_id(&draft.description);
        let mut id = base.clone();
        let mut n = next_suffix.get(&base).copied().unwrap_or(2);
        while ids.contains(&id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        if id != base {
            next_suffix.insert(base, n);
        }
        ids.insert(id.clone());
        by_description.insert(draft.description.clone(), bank.len());
        bank.push(Behavior {
            id,
            description: draft.description.clone(),
            kind: draft.kind,
            subtype: draft.subtype,
            used_by: 1,
        });
    };
    for m in methods {
        for c in &m.characteristics {
            for v in &c.values {
                if let Some(b) = &v.behavior {
                    add(b);
                }
            }
        }
        // An effect a leaf ends with is counted once, as that leaf's behavior.
        for e in m.side_effects.iter().filter(|e| !e.leaf) {
            add(&e.behavior);
        }
        if let Some(o) = &m.outcome {
            add(o);
        }
    }
    bank
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    /// Analyzes one method of a source string (no project root).
    pub fn analyze_one(src: &str, method: &str) -> MethodAnalysis {
        let facts = extract_with(
            "app/services/x.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let class = facts
            .methods
            .iter()
            .find(|m| m.name == method)
            .map(|m| m.owner.clone())
            .expect("method");
        let request = Request {
            facts: &facts,
            class_name: class,
            methods: vec![Selected {
                class: None,
                name: method.to_string(),
                kind: None,
                method_mode: "new".to_string(),
            }],
            root: None,
            rules: &[],
            controller_chain: &[],
            routes: None,
            gems: None,
            project: None,
        };
        analyze(&request)
            .methods
            .into_iter()
            .next()
            .expect("analyzed")
    }

    /// One line per characteristic: `level name [type] value:desc -> success | value:desc => terminal`.
    pub fn flat(m: &MethodAnalysis) -> Vec<String> {
        m.characteristics
            .iter()
            .map(|c| {
                let values: Vec<String> = c
                    .values
                    .iter()
                    .map(|v| {
                        let mut s = format!("{}:{}", crate::ruby::to_s(&v.value), v.description);
                        if let Some(b) = &v.behavior {
                            s.push_str(if v.terminal { " => " } else { " -> " });
                            s.push_str(&b.description);
                        }
                        s
                    })
                    .collect();
                format!(
                    "{} {} [{}] {}",
                    c.level,
                    c.name,
                    c.kind.as_str(),
                    values.join(" | ")
                )
            })
            .collect()
    }

    #[test]
    fn an_action_ending_in_a_conditional_assignment_renders_its_template() {
        // An adoption app's pet page: what comes before the last `if` ends as the action
        // does, and the action renders its template whichever branch ran.
        let src = "class PetsController < ApplicationController\n  def show\n    @info = CustomPage.first&.info\n    if current_user\n      @application = Application.find_by(pet_id: params[:id]) || Application.new\n    end\n  end\n\n  def edit\n    @info = CustomPage.first&.info\n    if current_user\n      @pet = Pet.find(params[:id])\n    else\n      redirect_to login_path\n    end\n  end\nend\n";
        let m = analyze_one(src, "show");
        let plan = flat(&m);
        assert!(plan[0].contains("present:first of the CustomPage present -> renders show template with info set to CustomPage info"), "{plan:?}");
        // A branch that responds keeps the outcomes its branches say.
        let m = analyze_one(src, "edit");
        let plan = flat(&m);
        assert!(!plan[0].contains("renders edit template"), "{plan:?}");
    }

    #[test]
    fn a_method_defined_twice_is_planned_from_its_last_definition() {
        // Ruby keeps the last `def`: the abstract stub above is never called.
        let src = "class Condition\n  def arel_predicate\n    raise \"not implemented\"\n  end\n\n  def arel_predicate\n    negative? ? attr.not_eq(value) : attr.eq(value)\n  end\nend\n";
        let m = analyze_one(src, "arel_predicate");
        let names: Vec<&str> = m.characteristics.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["negative"], "{:?}", flat(&m));
    }

    #[test]
    fn a_method_without_conditions_has_an_outcome() {
        let m = analyze_one(
            "class Payment\n  def total_with_fee\n    amount_cents + calculate_fee\n  end\nend\n",
            "total_with_fee",
        );
        assert!(m.characteristics.is_empty());
        assert_eq!(
            m.outcome.map(|o| o.description),
            Some("returns amount cents plus calculate fee".to_string())
        );
    }

    #[test]
    fn an_else_reached_several_ways_whose_call_holds_a_ternary_is_walked_once() {
        // The `else` of `(gone || merged) && slug.present?` is reached when the story is
        // neither, or is but has no slug: the ternary in its arguments is one
        // characteristic, walked under the deepest of those values, not one per way in.
        let m = analyze_one(
            "class StoriesController < ApplicationController\n  def refill_cache(story, is_moderator: false)\n    if (story.gone? || story.merged?) && story.slug.present?\n      FileUtils.rm_rf(story.cache_path)\n    else\n      CachePageJob.set(wait: is_moderator ? 0 : 2.minutes).perform_later(story.path)\n    end\n  end\nend\n",
            "refill_cache",
        );
        let lines = flat(&m);
        let moderator: Vec<&String> = lines.iter().filter(|l| l.contains("moderator")).collect();
        assert_eq!(moderator.len(), 1, "{lines:#?}");
        assert!(
            m.notes.iter().any(|n| n.starts_with("J18")),
            "{:?}",
            m.notes
        );
    }

    #[test]
    fn a_param_every_route_carries_is_decided() {
        let src = "class NotesController < ApplicationController\n  def comment\n    raise OSM::APIBadUserInput, 'No id was given' unless params[:id]\n    raise OSM::APIBadUserInput, 'No text was given' if params[:text].blank?\n\n    @note = Note.find(params[:id])\n    render :comment\n  end\n\n  def search\n    raise OSM::APIBadUserInput, 'No query' unless params[:q]\n    return head :no_content if params[:id].blank?\n\n    render :search\n  end\nend\n";
        let facts = extract_with(
            "app/controllers/notes_controller.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let routes = crate::rails::routes::Routes::parse(
            "config/routes.rb",
            b"Rails.application.routes.draw do\n  resources :notes, only: [] do\n    member { post :comment }\n    collection { get :search }\n  end\n  get '/notes(/:id)/search' => 'notes#search'\nend\n",
        );
        let request = Request {
            facts: &facts,
            class_name: "NotesController".to_string(),
            methods: ["comment", "search"]
                .iter()
                .map(|name| Selected {
                    class: None,
                    name: name.to_string(),
                    kind: None,
                    method_mode: "new".to_string(),
                })
                .collect(),
            root: None,
            rules: &[],
            controller_chain: &[],
            routes: Some(&routes),
            gems: None,
            project: None,
        };
        let analysis = analyze(&request);
        let names = |m: &MethodAnalysis| -> Vec<String> {
            m.characteristics.iter().map(|c| c.name.clone()).collect()
        };
        // `POST /notes/:id/comment`: id is always there; text is not.
        let comment = &analysis.methods[0];
        assert_eq!(names(comment), vec!["text_param"]);
        assert!(
            comment
                .notes
                .iter()
                .any(|n| n.starts_with("J20:") && n.contains("`params[:id]`")),
            "{:?}",
            comment.notes
        );
        // A collection route and an optional segment: nothing is always there.
        let search = &analysis.methods[1];
        assert_eq!(names(search), vec!["q_param", "id_param"]);
        assert!(!search.notes.iter().any(|n| n.starts_with("J20:")));
    }

    #[test]
    fn one_test_of_one_subject_against_many_patterns_is_one_characteristic() {
        let m = analyze_one(
            "class Story < ApplicationRecord\n  def check_not_brigading\n    return if url.blank? || !(url.match(A) || url.match(B) || url.match(C))\n\n    errors.add(:url, 'is brigading')\n  end\nend\n",
            "check_not_brigading",
        );
        assert_eq!(m.characteristics.len(), 1, "{:?}", tests::flat(&m));
        let c = &m.characteristics[0];
        assert_eq!(c.name, "url_or_url_matching_any");
        let values: Vec<&str> = c.values.iter().map(|v| v.description.as_str()).collect();
        assert_eq!(
            values,
            vec![
                "url missing or url NOT matching any of the 3 patterns",
                "neither url missing nor url NOT matching any of the 3 patterns"
            ]
        );
    }

    #[test]
    fn a_leaf_beside_the_final_conditional_gets_either_value() {
        let m = analyze_one(
            "class Paginator\n  def linked_pages\n    pages = []\n    if item_count > 0\n      pages += [first_page, page, last_page]\n    end\n    pages = pages.compact.uniq.sort\n    if pages.size > 1\n      pages\n    else\n      []\n    end\n  end\nend\n",
            "linked_pages",
        );
        // Not `returns an empty list` for more than 0 items: that is one of two ends.
        assert_eq!(
            tests::flat(&m).first().map(String::as_str),
            Some("1 item_count [range] above:above 0 -> returns the pages or an empty list | at_most:at most 0 -> returns the pages or an empty list")
        );
    }

    #[test]
    fn the_exit_status_guard_asks_the_exit_status_only() {
        let m = analyze_one(
            "class Adapter\n  def revisions(path)\n    list = shellout(\"svn log #{path}\")\n    return nil if $? && $?.exitstatus != 0\n\n    list\n  end\nend\n",
            "revisions",
        );
        assert_eq!(m.characteristics.len(), 1, "{:?}", tests::flat(&m));
        assert!(
            m.characteristics[0].name.contains("exitstatus"),
            "{:?}",
            tests::flat(&m)
        );
    }

    #[test]
    fn a_nil_guard_before_an_element_read_is_that_reads_presence() {
        // `entry["paths"] && entry["paths"]["path"]`: one question, whether the entry
        // lists paths; `user && user.admin?` keeps the missing user as a case.
        let m = analyze_one(
            "class Svn\n  def paths(entry, user)\n    return [] unless entry[\"paths\"] && entry[\"paths\"][\"path\"]\n    return [] unless user && user.admin?\n\n    entry[\"paths\"][\"path\"]\n  end\nend\n",
            "paths",
        );
        assert_eq!(
            tests::flat(&m),
            vec![
                "1 entry_paths_path [presence] present:entry paths path present | nil:entry paths path missing => returns an empty list",
                "2 user [presence] present:user | nil:user => returns an empty list",
                "3 user_admin [boolean] true:admin user -> returns entry paths path | false:NOT admin user => returns an empty list",
            ]
        );
        assert!(
            m.notes.iter().any(|n| n.starts_with("J21: ")),
            "{:?}",
            m.notes
        );
    }

    #[test]
    fn what_the_model_validates_is_present_in_its_destroy_callback() {
        // Member validates its principal (foreign key user_id) and project: the nil guard
        // of its before_destroy callback is decided. Before validation it is not.
        let model = |callback: &str| {
            format!(
                "class Member < ApplicationRecord\n  belongs_to :principal, :foreign_key => 'user_id'\n  belongs_to :project\n  validates_presence_of :principal, :project\n  {callback} :unassign\n\n  private\n\n  def unassign\n    if user_id && project_id\n      IssueCategory.where(project_id: project_id, assigned_to_id: user_id).update_all(assigned_to_id: nil)\n    end\n  end\nend\n"
            )
        };
        let m = analyze_one(&model("before_destroy"), "unassign");
        assert!(m.characteristics.is_empty(), "{:?}", tests::flat(&m));
        assert!(
            m.notes
                .iter()
                .any(|n| n.starts_with("J22: ") && n.contains("`project_id`, `user_id`")),
            "{:?}",
            m.notes
        );
        let m = analyze_one(&model("before_validation"), "unassign");
        assert_eq!(m.characteristics.len(), 2, "{:?}", tests::flat(&m));
    }

    #[test]
    fn an_exiting_branch_keeps_what_it_decides_before_it_leaves() {
        let m = analyze_one(
            "class Entry\n  def subscribe(user, post)\n    if post\n      subscriptions.create(user: user) unless subscribers.exists?(user.id)\n      return :subscribed\n    end\n\n    :shown\n  end\nend\n",
            "subscribe",
        );
        // Before, the exiting branch was one leaf (`returns :subscribed`) and the
        // subscription check was lost.
        assert_eq!(
            tests::flat(&m),
            vec![
                "1 post [presence] present:post present | nil:post missing -> returns :shown",
                "2 subscribers_exists [boolean] true:subscribers including user id => returns :subscribed | false:NOT subscribers including user id -> creates the subscriptions",
            ]
        );
    }

    #[test]
    fn the_last_branch_of_a_branch_ends_with_what_it_does() {
        // The `elsif`/`else` after `user&.new_email?` set a flash each: not "does nothing
        // more" because nothing follows them inside the branch.
        let m = analyze_one(
            "class Confirmation\n  def confirm(user)\n    if user&.new_email?\n      user.confirm!\n    elsif user\n      flash[:error] = \"failure\"\n    else\n      flash[:error] = \"unknown\"\n    end\n    notify_all\n  end\nend\n",
            "confirm",
        );
        assert_eq!(
            tests::flat(&m),
            vec![
                "1 user [presence] present:user present | nil:user missing -> sets the error flash message",
                "2 user_new_email [boolean] true:user new email -> confirms the user | false:NOT user new email -> sets the error flash message",
            ]
        );
    }

    #[test]
    fn a_local_flag_is_asked_by_its_name() {
        let m = analyze_one(
            "class Sections\n  def split(lines)\n    ended = false\n    out = []\n    lines.each do |line|\n      if ended\n        out << line\n      end\n      ended = true if line.start_with?(\"h1\")\n    end\n    out\n  end\nend\n",
            "split",
        );
        // Not `false [boolean]`, the literal it started as.
        assert_eq!(
            tests::flat(&m).first().map(String::as_str),
            Some("1 ended [boolean] true:ended -> adds to the out | false:NOT ended -> returns the out")
        );
    }

    #[test]
    fn a_dirty_change_compared_with_a_pair_reads_from_and_to() {
        // redmine's UsersController#update: `status_change == [STATUS_REGISTERED,
        // STATUS_ACTIVE]` is whether the status went from one to the other.
        let m = analyze_one(
            "class Account\n  def activated?(user)\n    user.status_change == [User::STATUS_REGISTERED, User::STATUS_ACTIVE] ? :welcome : :none\n  end\nend\n",
            "activated?",
        );
        assert_eq!(
            tests::flat(&m),
            vec!["1 user_status_change [boolean] true:user status changing from registered to active -> returns :welcome | false:NOT user status changing from registered to active -> returns :none"]
        );
    }

    #[test]
    fn a_ternary_inside_a_condition_asks_its_test_first() {
        // redmine's acts_as_searchable: `enabled && (titles_only ? kind == "only" : kind
        // != "0")` read as `kind equal to "only" or kind NOT equal to "0"`, without the
        // test that picks one of them.
        let m = analyze_one(
            "class Search\n  def attachments?(options)\n    if options[:enabled] && (options[:titles_only] ? options[:attachments] == 'only' : options[:attachments] != '0')\n      :with\n    else\n      :without\n    end\n  end\nend\n",
            "attachments?",
        );
        assert_eq!(
            tests::flat(&m),
            vec![
                "1 enabled_option [presence] present:enabled option present | nil:enabled option missing -> returns :without",
                "2 titles_only_option [presence] present:titles only option | nil:titles only option",
                "3 attachments_option [enum] only:only -> returns :with | other:NOT only -> returns :without",
                "3 attachments_option_2 [enum] other:NOT 0 -> returns :with | 0:0 -> returns :without",
            ]
        );
    }

    #[test]
    fn a_one_letter_local_a_class_made_is_named_after_the_class() {
        // redmine's acts_as_attachable: `a = Attachment.find_by_token(token)` then `next
        // unless a` asked `a present`, which reads as an article.
        let m = analyze_one(
            "class Saver\n  def attach(token)\n    a = Attachment.find_by_token(token)\n    return :none unless a\n\n    :ok\n  end\n\n  def timeout\n    m = Settings[\"timeout\"].to_i\n    m > 0 ? m : 15\n  end\nend\n",
            "attach",
        );
        assert_eq!(
            tests::flat(&m).first().map(String::as_str),
            Some("1 attachment [presence] present:attachment present -> returns :ok | nil:attachment missing => returns :none")
        );
        // In a compound too; a record's `invalid?` is its validation, not the finder
        // failing (it read `attachment find by token fails`).
        let m = analyze_one(
            "class Saver\n  def keep(token)\n    a = Attachment.find_by_token(token)\n    if a.new_record? || a.invalid?\n      :unsaved\n    else\n      :saved\n    end\n  end\nend\n",
            "keep",
        );
        assert_eq!(
            tests::flat(&m),
            vec!["1 attachment_new_record_or_attachment_invalid [boolean] true:attachment new record or invalid attachment -> returns :unsaved | false:neither attachment new record nor invalid attachment -> returns :saved"]
        );
        // A setting read is no record: no class name; the local is said by what it holds.
        let m = analyze_one(
            "class Saver\n  def timeout\n    m = Settings[\"timeout\"].to_i\n    m > 0 ? m : 15\n  end\nend\n",
            "timeout",
        );
        assert!(
            tests::flat(&m)
                .first()
                .is_some_and(|f| f.starts_with("1 settings_timeout [range] above:above 0")),
            "{:?}",
            tests::flat(&m)
        );
    }

    #[test]
    fn none_of_a_literal_list_is_asked_as_its_membership() {
        // redmine's URL helper: `%w(data javascript vbscript).none?(scheme)`.
        let m = analyze_one(
            "class UrlCheck\n  def safe?(scheme)\n    scheme.present? && %w(data javascript vbscript).none?(scheme)\n  end\nend\n",
            "safe?",
        );
        assert_eq!(
            tests::flat(&m).get(1).map(String::as_str),
            Some("2 scheme_listed [boolean] true:scheme in \"data\" and \"javascript\" and \"vbscript\" => returns false | false:NOT scheme in \"data\" and \"javascript\" and \"vbscript\" -> returns true")
        );
        // A block pass is a test per element, as before.
        let m = analyze_one(
            "class Form\n  def filled?(values)\n    values.any?(&:present?) && valid?\n  end\nend\n",
            "filled?",
        );
        assert_eq!(
            tests::flat(&m)
                .first()
                .map(|f| f.split(' ').nth(1).unwrap_or("").to_string()),
            Some("some_values".to_string())
        );
    }

    #[test]
    fn a_comparison_with_the_empty_string_is_a_presence() {
        // osm's require_cookies: `request.cookies["_osm_session"].to_s == ""` is whether
        // the cookie is there, not an enum whose value has an empty name.
        let m = analyze_one(
            "class SessionGate\n  def check\n    if request.cookies[\"_app_session\"].to_s == \"\"\n      :retry\n    else\n      :ok\n    end\n  end\n\n  def named(user)\n    return \"anonymous\" if user.name.strip != \"\"\n    user.name\n  end\nend\n",
            "check",
        );
        assert_eq!(
            tests::flat(&m),
            vec!["1 app_session_cookie [presence] present:app session cookie present -> returns :ok | nil:app session cookie missing -> returns :retry"]
        );
        let m = analyze_one(
            "class SessionGate\n  def named(user)\n    return \"anonymous\" if user.name.strip != \"\"\n    user.name\n  end\nend\n",
            "named",
        );
        assert_eq!(
            tests::flat(&m).first().map(String::as_str),
            Some("1 user_name [presence] present:user name present => returns \"anonymous\" | nil:user name missing -> returns user name")
        );
    }

    #[test]
    fn a_part_asked_already_on_the_path_is_not_asked_again() {
        // osm's check_database_readable then check_database_writable: under `NOT
        // offline`, `offline || readonly` asks only readonly.
        let m = analyze_one(
            "class Gate\n  def open?(status)\n    return false if status == \"offline\"\n    return false if status == \"offline\" || status == \"readonly\"\n\n    true\n  end\nend\n",
            "open?",
        );
        assert_eq!(
            tests::flat(&m),
            vec![
                "1 status [enum] offline:offline => returns false | other:NOT offline",
                "2 status_2 [enum] readonly:readonly => returns false | other:NOT readonly -> returns true",
            ]
        );
    }

    #[test]
    fn a_short_local_reads_as_what_it_holds() {
        let m = analyze_one(
            "class Comment\n  def undelete(user)\n    if user.moderator?\n      m = Moderation.new\n      m.action = \"undeleted\"\n      m.save!\n    end\n  end\nend\n",
            "undelete",
        );
        assert_eq!(
            tests::flat(&m),
            vec!["1 user_moderator [boolean] true:moderator user -> saves the moderation | false:NOT moderator user => returns nil"]
        );
    }

    #[test]
    fn bank_ids_are_unique_and_counted() {
        let src = "class A\n  def a(x)\n    return nil unless x\n    1\n  end\n\n  def b(y)\n    return nil if y.nil?\n    2\n  end\nend\n";
        let facts = extract_with(
            "app/models/a.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let request = Request {
            facts: &facts,
            class_name: "A".into(),
            methods: vec![
                Selected {
                    class: None,
                    name: "a".into(),
                    kind: None,
                    method_mode: "new".into(),
                },
                Selected {
                    class: None,
                    name: "b".into(),
                    kind: None,
                    method_mode: "new".into(),
                },
                Selected {
                    class: None,
                    name: "missing".into(),
                    kind: None,
                    method_mode: "new".into(),
                },
            ],
            root: None,
            rules: &[],
            controller_chain: &[],
            routes: None,
            gems: None,
            project: None,
        };
        let analysis = analyze(&request);
        let bank: Vec<(String, usize)> = analysis
            .behaviors
            .iter()
            .map(|b| (b.id.clone(), b.used_by))
            .collect();
        // In order of first reference: `a`'s present value (returns 1) comes before its nil value.
        assert_eq!(
            bank,
            vec![
                ("returns_1".into(), 1),
                ("returns_nil".into(), 2),
                ("returns_2".into(), 1)
            ]
        );
        assert_eq!(
            analysis.warnings,
            vec!["app/models/a.rb: no method `missing` in A; it was not analyzed".to_string()]
        );
    }

    #[test]
    fn raised_constants_are_found_in_conditions_loops_and_rescues() {
        let facts = extract_with(
            "app/services/r.rb",
            b"class R\n  def r(x)\n    if x || raise(Bad)\n      1\n    end\n    while x\n      raise Worse.new(1)\n    end\n  rescue Other\n    fail Fallback\n  end\nend\n",
            &ExtractOptions::with_bodies(),
        );
        let mut raised = BTreeSet::new();
        raised_constants(facts.methods[0].body.as_ref().unwrap(), &mut raised);
        assert_eq!(
            raised.into_iter().collect::<Vec<_>>(),
            ["Bad", "Fallback", "Worse"]
        );
    }
}
