//! Effects one call away inside the project: what a method does to the world through
//! another class of the app. `@invitation.resend!` sends mail when `Invitation#resend!`
//! does; `Order.create!(...)` enqueues a job when `Order` has `after_create_commit
//! :notify` and `notify` enqueues it; `@user.update!(...)` in a controller writes a row.
//!
//! Why it matters for specs: the spec of the caller sees those effects
//! (`have_enqueued_mail`, `have_enqueued_job`, a changed row) and test-config isolates
//! them; an agent reading `side_effects` without them plans a pure unit.
//!
//! What is followed, one step and no further:
//! - a call on a receiver of a known project class (a typed local or ivar, a parameter
//!   named after the class, the class itself), to the method of that class's file (its
//!   Rails path), with the private methods it calls; its direct side effects and database
//!   writes are reported with `via: Class#method`;
//! - a database write on a project model (or the method's own class) to the model
//!   callbacks the write runs (`save`/`create` run the create callbacks, `update` the
//!   update ones, `destroy` the destroy ones; `update_all`, `delete_all`, `insert_all`,
//!   `update_column` run none), reported with `via: Order after_create_commit :notify`.
//!
//! Not followed: calls two steps away, methods a class inherits or mixes in, dynamic
//! dispatch (`send`, `public_send`), callbacks given as blocks or lambdas.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::clients::Clients;
use super::model::{DbWrite, SideEffect};
use super::side_effects;
use super::types::{ClassKind, Lookup, TypeEnv};
use super::SideEffectRule;
use crate::index::body::{walk, Call, Node, Visitor};
use crate::index::{FileFacts, MethodFacts, MethodKind};

/// The project's files, as the analysis of one file may read them.
pub trait ProjectFiles: Sync + std::fmt::Debug {
    /// The project-relative path and the facts (with bodies) of the file that defines
    /// `class` at its Rails path, if the project has one that parses.
    fn class_file(&self, class: &str) -> Option<(String, Arc<FileFacts>)>;
}

/// What a method reaches one call away.
#[derive(Debug, Default)]
pub struct Reached {
    /// Side effects, each with its `via`.
    pub effects: Vec<SideEffect>,
    /// Database writes, each with its `via`.
    pub writes: Vec<DbWrite>,
    /// The other files read (project-relative), for the analysis cache.
    pub files: Vec<String>,
}

/// The context the analysis of a method gives.
pub struct Cx<'a> {
    /// The method's own class.
    pub own: &'a str,
    /// Its variable types.
    pub env: &'a TypeEnv,
    /// The project's classes.
    pub lookup: &'a Lookup,
    /// The project's files.
    pub files: &'a dyn ProjectFiles,
    /// The config's side-effect rules.
    pub rules: &'a [SideEffectRule],
    /// The project's gems.
    pub gems: Option<&'a [String]>,
    /// The file being analyzed (its own class's callbacks are read from it).
    pub facts: &'a FileFacts,
}

/// At most this many other methods are followed per analyzed method.
const MAX_FOLLOWED: usize = 24;

/// What `bodies` (a method with the private methods it absorbs) reach one call away.
pub fn reach(bodies: &[&Node], cx: &Cx<'_>) -> Reached {
    let mut calls = Calls {
        cx,
        found: Vec::new(),
    };
    for body in bodies {
        walk(&mut calls, body);
    }
    let mut out = Reached::default();
    let mut seen: BTreeSet<(String, String, bool)> = BTreeSet::new();
    for found in calls.found.into_iter().take(MAX_FOLLOWED * 4) {
        if seen.len() >= MAX_FOLLOWED || !seen.insert(found.key()) {
            continue;
        }
        match found {
            Found::Call {
                class,
                method,
                singleton,
            } => follow_call(cx, &class, &method, singleton, &mut out),
            Found::Write { class, operation } => follow_callbacks(cx, &class, &operation, &mut out),
        }
    }
    out.files.sort();
    out.files.dedup();
    out
}

enum Found {
    Call {
        class: String,
        method: String,
        singleton: bool,
    },
    Write {
        class: String,
        operation: String,
    },
}

impl Found {
    fn key(&self) -> (String, String, bool) {
        match self {
            Found::Call {
                class,
                method,
                singleton,
            } => (class.clone(), method.clone(), *singleton),
            Found::Write { class, operation } => (
                class.clone(),
                format!("write:{}", callback_group(operation)),
                false,
            ),
        }
    }
}

struct Calls<'c, 'a> {
    cx: &'c Cx<'a>,
    found: Vec<Found>,
}

impl<'n> Visitor<'n> for Calls<'_, '_> {
    fn enter(&mut self, node: &'n Node) -> bool {
        if let Node::Call(c) = node {
            self.call(c);
        }
        true
    }
}

impl Calls<'_, '_> {
    fn call(&mut self, c: &Call) {
        let cx = self.cx;
        let writes_callbacks = callback_group(&c.name) != "none";
        let (class, singleton) = match &c.recv {
            // `save!`, `update!(...)` on the record itself: its own callbacks.
            None | Some(Node::SelfRef) => {
                if writes_callbacks
                    && c.recv.is_none()
                    && !(c.name == "update" && c.args.is_empty())
                {
                    self.found.push(Found::Write {
                        class: cx.own.to_string(),
                        operation: c.name.clone(),
                    });
                }
                return;
            }
            Some(Node::Const { path, .. }) => (path.clone(), true),
            Some(recv) => match cx.env.class_of(recv, cx.lookup, cx.own) {
                Some(class) => (class, false),
                None => return,
            },
        };
        // `Order.find(id)`: a query, then a record; `Order.create!(...)`: a write.
        let singleton = singleton && !matches!(c.name.as_str(), "find" | "find_by" | "find_by!");
        if class == cx.own || cx.lookup.kind(&class) == ClassKind::Unknown {
            return;
        }
        // A write on a model runs its callbacks: on a record (`@order.save!`), and on the
        // class for the writes that build or load records (`Order.create!`,
        // `Order.destroy_by(...)`); `Order.save` is no call.
        let instance_only = matches!(
            c.name.as_str(),
            "save" | "save!" | "toggle!" | "increment!" | "decrement!" | "touch"
        );
        if writes_callbacks
            && cx.lookup.kind(&class) == ClassKind::Model
            && !(singleton && instance_only)
        {
            self.found.push(Found::Write {
                class: class.clone(),
                operation: c.name.clone(),
            });
        }
        if !is_plain_method_name(&c.name) {
            return;
        }
        self.found.push(Found::Call {
            class,
            method: c.name.clone(),
            singleton,
        });
    }
}

/// Calls worth following: a method a class defines, not an operator, a query or an
/// attribute read.
fn is_plain_method_name(name: &str) -> bool {
    !name.ends_with('?')
        && !name.ends_with('=')
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && !matches!(
            name,
            "new"
                | "find"
                | "find_by"
                | "find_by!"
                | "where"
                | "all"
                | "first"
                | "last"
                | "count"
                | "exists?"
                | "pluck"
                | "includes"
                | "order"
                | "limit"
                | "each"
                | "map"
                | "to_s"
                | "to_h"
                | "to_a"
                | "id"
                | "send"
                | "public_send"
                | "try"
                | "tap"
                | "then"
        )
}

/// Which callbacks a write runs: `create`, `update`, `save` (either), `destroy`, `touch`,
/// or `none` (a write that skips callbacks, or not a write).
fn callback_group(operation: &str) -> &'static str {
    match operation {
        "create" | "create!" | "find_or_create_by" | "find_or_create_by!" | "create_or_find_by"
        | "create_or_find_by!" | "first_or_create" | "first_or_create!" => "create",
        "save" | "save!" => "save",
        "update" | "update!" | "update_attribute" | "update_attributes" | "update_attributes!"
        | "toggle!" | "increment!" | "decrement!" => "update",
        "destroy" | "destroy!" | "destroy_all" | "destroy_by" => "destroy",
        "touch" => "touch",
        _ => "none",
    }
}

/// Whether a callback (`after_create_commit`, `after_commit` with `on: create`) runs on a
/// write of `group`.
fn callback_runs(dsl: &str, scope: Option<&str>, group: &str) -> bool {
    let on = |event: &str| match group {
        "save" => event == "create" || event == "update",
        g => g == event,
    };
    match dsl {
        "before_save" | "after_save" | "around_save" | "after_save_commit" => {
            on("create") || on("update")
        }
        "before_create" | "after_create" | "around_create" | "after_create_commit" => on("create"),
        "before_update" | "after_update" | "around_update" | "after_update_commit" => on("update"),
        "before_destroy" | "after_destroy" | "around_destroy" | "after_destroy_commit" => {
            on("destroy")
        }
        "after_touch" => on("touch"),
        "after_commit" => match scope {
            None => group != "touch",
            Some(scope) => ["create", "update", "destroy"]
                .iter()
                .any(|event| scope.contains(event) && on(event)),
        },
        _ => false,
    }
}

fn follow_call(cx: &Cx<'_>, class: &str, method: &str, singleton: bool, out: &mut Reached) {
    let Some((rel, facts)) = cx.files.class_file(class) else {
        return;
    };
    let kind = if singleton {
        MethodKind::Singleton
    } else {
        MethodKind::Instance
    };
    let Some(target) = facts
        .methods
        .iter()
        .find(|m| m.owner == class && m.name == method && m.kind == kind && !m.dynamic)
    else {
        return;
    };
    out.files.push(rel);
    let via = format!("{class}{}{method}", if singleton { "." } else { "#" });
    let (effects, writes) = direct(cx, &facts, class, target);
    push(out, effects, writes, &via);
}

fn follow_callbacks(cx: &Cx<'_>, class: &str, operation: &str, out: &mut Reached) {
    let group = callback_group(operation);
    let own = class == cx.own;
    let loaded = if own {
        None
    } else {
        match cx.files.class_file(class) {
            Some(found) => Some(found),
            None => return,
        }
    };
    let facts: &FileFacts = match &loaded {
        Some((_, facts)) => facts,
        None => cx.facts,
    };
    let triggers = crate::rails::callbacks::triggers(facts);
    let mut any = false;
    for (m, trigger) in facts.methods.iter().zip(&triggers) {
        let Some(trigger) = trigger else { continue };
        if m.owner != class || !callback_runs(&trigger.dsl, trigger.scope.as_deref(), group) {
            continue;
        }
        any = true;
        let via = format!("{class} {} :{}", trigger.dsl, m.name);
        let (effects, writes) = direct(cx, facts, class, m);
        push(out, effects, writes, &via);
    }
    if any {
        if let Some((rel, _)) = loaded {
            out.files.push(rel);
        }
    }
}

/// The side effects and writes of `method` of `class` itself, with the private methods of
/// its class it calls.
fn direct(
    cx: &Cx<'_>,
    facts: &FileFacts,
    class: &str,
    method: &MethodFacts,
) -> (Vec<SideEffect>, Vec<DbWrite>) {
    let lookup = if std::ptr::eq(facts, cx.facts) {
        None
    } else {
        Some(Lookup::new(cx.lookup.root().cloned(), facts))
    };
    let lookup = lookup.as_ref().unwrap_or(cx.lookup);
    let initialize = facts
        .methods
        .iter()
        .find(|m| m.owner == class && m.name == "initialize" && m.kind == MethodKind::Instance);
    let env = TypeEnv::build(method, initialize, lookup);
    let bodies = with_callees(facts, class, method);
    let clients = Clients::of_class(facts, class, cx.gems);
    let effects = side_effects::collect(&bodies, &env, lookup, cx.rules, class, &clients);
    let writes = super::db_writes::collect(&bodies, class);
    (effects, writes)
}

/// `method`'s body and the bodies of the methods of its class (and kind) it calls with an
/// implicit receiver, transitively (at most 20).
fn with_callees<'f>(facts: &'f FileFacts, class: &str, method: &'f MethodFacts) -> Vec<&'f Node> {
    fn implicit(node: &Node, out: &mut Vec<String>) {
        if let Node::Call(c) = node {
            if c.recv.is_none() || matches!(c.recv, Some(Node::SelfRef)) {
                out.push(c.name.clone());
            }
        }
        node.for_each_child(&mut |child| implicit(child, out));
    }
    let mut methods: Vec<&MethodFacts> = vec![method];
    let mut i = 0;
    while let Some(m) = methods.get(i).copied() {
        i += 1;
        if methods.len() >= 20 {
            break;
        }
        let Some(body) = m.body.as_deref() else {
            continue;
        };
        let mut names = Vec::new();
        implicit(body, &mut names);
        for name in names {
            if let Some(next) = facts
                .methods
                .iter()
                .find(|f| f.owner == class && f.name == name && f.kind == method.kind && !f.dynamic)
            {
                if !methods.iter().any(|m| std::ptr::eq(*m, next)) {
                    methods.push(next);
                }
            }
        }
    }
    methods.iter().filter_map(|m| m.body.as_deref()).collect()
}

fn push(out: &mut Reached, effects: Vec<SideEffect>, writes: Vec<DbWrite>, via: &str) {
    for mut e in effects {
        if out
            .effects
            .iter()
            .any(|o| o.behavior.description == e.behavior.description)
        {
            continue;
        }
        e.via = Some(via.to_string());
        out.effects.push(e);
    }
    for mut w in writes {
        if out
            .writes
            .iter()
            .any(|o| o.operation == w.operation && o.target == w.target)
        {
            continue;
        }
        w.via = Some(via.to_string());
        out.writes.push(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};
    use std::collections::HashMap;

    /// Files in memory, by class.
    #[derive(Debug)]
    struct Files(HashMap<String, (String, Arc<FileFacts>)>);

    impl ProjectFiles for Files {
        fn class_file(&self, class: &str) -> Option<(String, Arc<FileFacts>)> {
            self.0.get(class).cloned()
        }
    }

    fn files(sources: &[(&str, &str, &str)]) -> Files {
        Files(
            sources
                .iter()
                .map(|(class, path, src)| {
                    let facts = extract_with(path, src.as_bytes(), &ExtractOptions::with_bodies());
                    (class.to_string(), (path.to_string(), Arc::new(facts)))
                })
                .collect(),
        )
    }

    #[test]
    fn effects_of_a_project_method_and_of_the_callbacks_a_write_runs() {
        let dir = tempfile::tempdir().unwrap();
        for rel in ["app/models/invitation.rb", "app/models/order.rb"] {
            std::fs::create_dir_all(dir.path().join(rel).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(rel), "").unwrap();
        }
        let project = files(&[
            (
                "Invitation",
                "app/models/invitation.rb",
                "class Invitation < ApplicationRecord\n  def resend!\n    touch(:sent_at)\n    deliver\n  end\n\n  private\n\n  def deliver\n    InvitationMailer.invitation(self).deliver_later\n  end\nend\n",
            ),
            (
                "Order",
                "app/models/order.rb",
                "class Order < ApplicationRecord\n  after_create_commit :notify\n  after_commit :sync, on: :update\n  before_destroy :log\n\n  private\n\n  def notify\n    OrderMailer.placed(self).deliver_later\n  end\n\n  def sync\n    SyncJob.perform_later(id)\n  end\n\n  def log\n    Rails.logger.info(id)\n  end\nend\n",
            ),
        ]);
        let src = "class InvitationsController < ApplicationController\n  def resend\n    @invitation = Invitation.find(params[:id])\n    @invitation.resend!\n    Order.create!(user: current_user)\n    Order.where(user: current_user).update_all(state: 1)\n    redirect_to invitations_path\n  end\nend\n";
        let facts = extract_with(
            "app/controllers/invitations_controller.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let lookup = Lookup::new(Some(dir.path().to_path_buf()), &facts);
        let method = &facts.methods[0];
        let env = TypeEnv::build(method, None, &lookup);
        let cx = Cx {
            own: "InvitationsController",
            env: &env,
            lookup: &lookup,
            files: &project,
            rules: &[],
            gems: None,
            facts: &facts,
        };
        let reached = reach(&[method.body.as_deref().unwrap()], &cx);
        let effects: Vec<String> = reached
            .effects
            .iter()
            .map(|e| {
                format!(
                    "{} {} via {}",
                    e.kind,
                    e.behavior.description,
                    e.via.as_deref().unwrap_or("")
                )
            })
            .collect();
        assert_eq!(
            effects,
            [
                "email sends invitation email via Invitation#resend!",
                "email sends placed email via Order after_create_commit :notify",
            ]
        );
        let writes: Vec<String> = reached
            .writes
            .iter()
            .map(|w| {
                format!(
                    "{} {} via {}",
                    w.operation,
                    w.target,
                    w.via.as_deref().unwrap_or("")
                )
            })
            .collect();
        assert_eq!(writes, ["touch Invitation via Invitation#resend!"]);
        assert_eq!(
            reached.files,
            ["app/models/invitation.rb", "app/models/order.rb"]
        );
    }

    #[test]
    fn callbacks_by_the_write_that_runs_them() {
        assert!(callback_runs("after_create_commit", None, "create"));
        assert!(callback_runs("after_create_commit", None, "save"));
        assert!(!callback_runs("after_create_commit", None, "update"));
        assert!(callback_runs(
            "after_commit",
            Some("on: create, update"),
            "update"
        ));
        assert!(!callback_runs(
            "after_commit",
            Some("on: destroy"),
            "update"
        ));
        assert!(callback_runs("after_commit", None, "destroy"));
        assert!(callback_runs("before_save", None, "update"));
        assert!(!callback_runs("before_save", None, "destroy"));
        assert_eq!(callback_group("update_all"), "none");
        assert_eq!(callback_group("update_column"), "none");
        assert_eq!(callback_group("destroy_all"), "destroy");
    }
}
