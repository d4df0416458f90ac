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
//!   named after the class, the class itself, a memoizing method of the caller's class,
//!   `def client; @client ||= Flodesk::Client.new; end`), to the method of that class's
//!   file (its Rails path, else the file of a namespace around it that defines it:
//!   `lib/flodesk.rb`), with the private methods it calls; its direct side effects and
//!   database writes are reported with `via: Class#method`;
//! - a database write on a project model (or the method's own class) to the model
//!   callbacks the write runs (`save`/`create` run the create callbacks, `update` the
//!   update ones, `destroy` the destroy ones; `update_all`, `delete_all`, `insert_all`,
//!   `update_column` run none), reported with `via: Order after_create_commit :notify`.
//!
//! - a method the class (its own, or the receiver's) does not define but gets from a project
//!   module it includes (`include Notifiable`, an `ActiveSupport::Concern`) or from its
//!   project superclass, as Ruby's method lookup finds it: the class's modules (the last
//!   included first), then its superclass and that one's modules; reported with `via:
//!   Notifiable#notify_followers`.
//!
//! Not followed: calls two steps away, modules of gems, dynamic dispatch (`send`,
//! `public_send`), callbacks given as blocks or lambdas.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::clients::Clients;
use super::model::{DbWrite, SideEffect};
use super::side_effects;
use super::types::{ClassKind, Lookup, TypeEnv};
use super::SideEffectRule;
use crate::index::body::{walk, Call, Node, Visitor};
use crate::index::{FileFacts, MethodFacts, MethodKind};

pub use super::types::ProjectFiles;

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
    /// The kind of the method analyzed (an implicit call is to a method of that kind).
    pub kind: MethodKind,
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
    let (inherited, found): (Vec<Found>, Vec<Found>) = calls
        .found
        .into_iter()
        .partition(|f| matches!(f, Found::Inherited { .. }));
    let mut seen: BTreeSet<(String, String, bool)> = BTreeSet::new();
    for found in found.into_iter().take(MAX_FOLLOWED * 4) {
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
            Found::Inherited { .. } => {}
        }
    }
    // The own class's modules and superclasses, read once for every implicit call to a
    // method the class does not define.
    if !inherited.is_empty() {
        let own = ancestors(cx.files, cx.facts, cx.own);
        let mut names: BTreeSet<String> = BTreeSet::new();
        for found in inherited {
            let Found::Inherited { method } = found else {
                continue;
            };
            if names.len() >= MAX_FOLLOWED || !names.insert(method.clone()) {
                continue;
            }
            follow_ancestors(cx, &own, &method, cx.kind, &mut out);
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
    /// An implicit call to a method the own class does not define.
    Inherited {
        method: String,
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
            Found::Inherited { method } => (String::new(), method.clone(), true),
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
                // A method the class does not define comes from a module or a superclass.
                if is_plain_method_name(&c.name)
                    && !cx
                        .facts
                        .methods
                        .iter()
                        .any(|m| m.owner == cx.own && m.name == c.name && m.kind == cx.kind)
                {
                    self.found.push(Found::Inherited {
                        method: c.name.clone(),
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
        // Not the class's own: one of its modules' or its superclass's.
        let before = out.files.len();
        follow_ancestors(cx, &ancestors(cx.files, &facts, class), method, kind, out);
        if out.files.len() > before {
            out.files.push(rel);
        }
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

/// At most this many modules and superclasses are read per class.
const MAX_ANCESTORS: usize = 12;

/// Follows `method` (of `kind`) into the first of a class's project modules and
/// superclasses (`ancestors`, in lookup order) that defines it, as Ruby's lookup would.
fn follow_ancestors(
    cx: &Cx<'_>,
    ancestors: &[(String, String, Arc<FileFacts>)],
    method: &str,
    kind: MethodKind,
    out: &mut Reached,
) {
    for (name, rel, found) in ancestors {
        let Some(target) = found
            .methods
            .iter()
            .find(|m| m.owner == *name && m.name == method && m.kind == kind && !m.dynamic)
        else {
            continue;
        };
        out.files.push(rel.clone());
        let via = format!(
            "{name}{}{method}",
            if kind == MethodKind::Singleton {
                "."
            } else {
                "#"
            }
        );
        let (effects, writes) = direct(cx, found, name, target);
        push(out, effects, writes, &via);
        return;
    }
}

/// The project modules and superclasses of `class` (defined in `facts`), in Ruby's lookup
/// order: its modules (the last included first), then its superclass and that one's, each
/// with its file. Modules of gems and framework classes have no file and are left out.
fn ancestors(
    files: &dyn ProjectFiles,
    facts: &FileFacts,
    class: &str,
) -> Vec<(String, String, Arc<FileFacts>)> {
    let mut out: Vec<(String, String, Arc<FileFacts>)> = Vec::new();
    let mut seen = vec![class.to_string()];
    let Some(mut current) = facts.classes.iter().find(|c| c.name == class).cloned() else {
        return out;
    };
    for _ in 0..4 {
        let includes: Vec<&String> = current
            .dsl
            .iter()
            .filter(|d| d.name == "include")
            .flat_map(|d| d.args.iter())
            .collect();
        for module in includes.into_iter().rev() {
            if out.len() >= MAX_ANCESTORS {
                return out;
            }
            if let Some((name, rel, found)) = resolve(files, module, &current.nesting, &seen) {
                seen.push(name.clone());
                out.push((name, rel, found));
            }
        }
        let Some(parent) = current.superclass.as_deref() else {
            break;
        };
        // The superclass is written in the scope around the class statement.
        let outer = current.nesting.get(1..).unwrap_or_default();
        let Some((name, rel, found)) = resolve(files, parent, outer, &seen) else {
            break;
        };
        let Some(next) = found.classes.iter().find(|c| c.name == name).cloned() else {
            break;
        };
        seen.push(name.clone());
        out.push((name, rel, found));
        current = next;
    }
    out
}

/// The class or module `written` names from inside `scopes` (innermost first), as Ruby
/// resolves a constant, when the project defines it at its Rails path.
fn resolve(
    files: &dyn ProjectFiles,
    written: &str,
    scopes: &[String],
    seen: &[String],
) -> Option<(String, String, Arc<FileFacts>)> {
    let written = written.trim_start_matches("::");
    let mut candidates: Vec<String> = scopes.iter().map(|s| format!("{s}::{written}")).collect();
    candidates.push(written.to_string());
    candidates.into_iter().find_map(|name| {
        if seen.contains(&name) {
            return None;
        }
        let (rel, found) = files.class_file(&name)?;
        found
            .classes
            .iter()
            .any(|c| c.name == name)
            .then_some((name, rel, found))
    })
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
    let effects = side_effects::collect(
        &bodies,
        &env,
        lookup,
        cx.rules,
        class,
        &clients,
        Some(cx.files),
    );
    let writes = super::db_writes::collect(&bodies, class, &clients);
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
            kind: MethodKind::Instance,
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

    fn reached_effects(
        project: &Files,
        root: &std::path::Path,
        path: &str,
        src: &str,
        class: &str,
        method: &str,
    ) -> Vec<String> {
        let facts = extract_with(path, src.as_bytes(), &ExtractOptions::with_bodies());
        let lookup = Lookup::new(Some(root.to_path_buf()), &facts);
        let m = facts.methods.iter().find(|m| m.name == method).unwrap();
        let env = TypeEnv::build(m, None, &lookup);
        let cx = Cx {
            own: class,
            env: &env,
            lookup: &lookup,
            files: project,
            rules: &[],
            gems: None,
            facts: &facts,
            kind: m.kind,
        };
        let mut bodies = vec![m.body.as_deref().unwrap()];
        let direct = side_effects::collect(
            &bodies,
            &env,
            &lookup,
            &[],
            class,
            &Clients::default(),
            Some(project),
        );
        bodies.truncate(1);
        let reached = reach(&bodies, &cx);
        direct
            .iter()
            .chain(&reached.effects)
            .map(|e| {
                format!(
                    "{} {} via {}",
                    e.kind,
                    e.behavior.description,
                    e.via.as_deref().unwrap_or("-")
                )
            })
            .collect()
    }

    /// Ruby's method lookup: a method the class gets from a project module it includes
    /// (a concern) or from its project superclass brings that method's effects, named
    /// by the module; a call on a record of a class that includes the module too.
    #[test]
    fn effects_of_included_modules_and_superclasses() {
        let dir = tempfile::tempdir().unwrap();
        for rel in [
            "app/models/user.rb",
            "app/models/concerns/notifiable.rb",
            "app/services/base_sync.rb",
        ] {
            std::fs::create_dir_all(dir.path().join(rel).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(rel), "").unwrap();
        }
        let project = files(&[
            (
                "User",
                "app/models/user.rb",
                "class User < ApplicationRecord\n  include Notifiable\nend\n",
            ),
            (
                "Notifiable",
                "app/models/concerns/notifiable.rb",
                "module Notifiable\n  extend ActiveSupport::Concern\n\n  def notify_followers\n    FollowerMailer.followed(self).deliver_later\n  end\nend\n",
            ),
            (
                "BaseSync",
                "app/services/base_sync.rb",
                "class BaseSync\n  def enqueue_followup\n    FollowupJob.perform_later(id)\n  end\nend\n",
            ),
        ]);
        let own = "class Post < ApplicationRecord\n  include Notifiable\n\n  def publish!\n    notify_followers\n    render_preview\n  end\nend\n";
        assert_eq!(
            reached_effects(
                &project,
                dir.path(),
                "app/models/post.rb",
                own,
                "Post",
                "publish!"
            ),
            ["email sends followed email via Notifiable#notify_followers"]
        );
        let sync = "class PostSync < BaseSync\n  def call(user)\n    enqueue_followup\n    @user = User.find(user)\n    @user.notify_followers\n  end\nend\n";
        assert_eq!(
            reached_effects(
                &project,
                dir.path(),
                "app/services/post_sync.rb",
                sync,
                "PostSync",
                "call"
            ),
            [
                "email sends followed email via Notifiable#notify_followers",
                "event enqueues followup job via BaseSync#enqueue_followup",
            ]
        );
    }

    /// `publish` on a class the app defines with a `publish` method is that method (one
    /// call away); on a constant the app assigns a bus to, it publishes the event.
    #[test]
    fn publish_on_a_bus_constant_is_the_event() {
        let dir = tempfile::tempdir().unwrap();
        for rel in ["lib/shop/bus.rb", "app/models/kit_event.rb"] {
            std::fs::create_dir_all(dir.path().join(rel).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(rel), "").unwrap();
        }
        let project = files(&[
            ("Shop::Bus", "lib/shop/bus.rb", "module Shop\n  Bus = Omnes::Bus.new\nend\n"),
            (
                "KitEvent",
                "app/models/kit_event.rb",
                "class KitEvent < ApplicationRecord\n  def self.publish(kit)\n    create!(kit: kit)\n  end\nend\n",
            ),
        ]);
        let src = "class Kit < ApplicationRecord\n  def allocate!\n    KitEvent.publish(self)\n    Shop::Bus.publish(:kit_allocated, kit: self)\n  end\nend\n";
        assert_eq!(
            reached_effects(
                &project,
                dir.path(),
                "app/models/kit.rb",
                src,
                "Kit",
                "allocate!"
            ),
            ["event publishes kit allocated event via -"]
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
