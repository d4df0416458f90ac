//! Controllers (contract §5 rule 28): an action's outcome is its response (`render`,
//! `redirect_to`, `head`; an implicit render otherwise), and the `before_action` callbacks
//! that apply to it (honouring `only:`/`except:` and `skip_before_action`, from the
//! controller and from `ApplicationController`) run first: their halting guards
//! (`head :forbidden unless current_user.admin?`, `redirect_to login_path unless
//! current_user`) become the action's first characteristics. A callback that loads a
//! record with `find` where the controller rescues `ActiveRecord::RecordNotFound` gives a
//! presence characteristic whose `nil` value returns 404 (\[J\]: we assume the handler
//! responds 404, as the contract's table says).

use crate::index::body::{Call, If, Node};
use crate::index::{ClassFacts, FileFacts, MethodFacts, MethodKind};

use super::flow::statements;

/// A controller class and, when found, its parent's facts (`ApplicationController`).
pub struct ControllerCx<'a> {
    /// The controller file.
    pub facts: &'a FileFacts,
    /// The controller class.
    pub class: &'a str,
    /// `ApplicationController` (or another parent) parsed with bodies, if found.
    pub parent: Option<&'a FileFacts>,
}

fn class_dsl<'a>(facts: &'a FileFacts, class: &str) -> Vec<&'a crate::index::DslCall> {
    facts
        .classes
        .iter()
        .filter(|c: &&ClassFacts| c.name == class)
        .flat_map(|c| c.dsl.iter())
        .collect()
}

fn applies(options: &[(String, Vec<String>)], action: &str) -> bool {
    let get = |k: &str| options.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    if let Some(only) = get("only") {
        return only.iter().any(|a| a == action);
    }
    if let Some(except) = get("except") {
        return !except.iter().any(|a| a == action);
    }
    true
}

/// The guard statements the `before_action` callbacks of `action` contribute, in order.
pub fn callback_guards(cx: &ControllerCx<'_>, action: &str) -> (Vec<Node>, Vec<String>) {
    let mut sources: Vec<(&FileFacts, String)> = Vec::new();
    if let Some(parent) = cx.parent {
        for class in parent.class_names() {
            sources.push((parent, class.to_string()));
        }
    }
    sources.push((cx.facts, cx.class.to_string()));
    let mut callbacks: Vec<String> = Vec::new();
    let mut rescues_not_found = false;
    for (facts, class) in &sources {
        for call in class_dsl(facts, class) {
            match call.name.as_str() {
                "before_action" | "prepend_before_action" if applies(&call.options, action) => {
                    for name in &call.args {
                        if !callbacks.contains(name) {
                            callbacks.push(name.clone());
                        }
                    }
                }
                "skip_before_action" if applies(&call.options, action) => {
                    callbacks.retain(|c| !call.args.contains(c))
                }
                "rescue_from" if call.args.iter().any(|a| a.ends_with("RecordNotFound")) => {
                    rescues_not_found = true
                }
                _ => {}
            }
        }
    }
    let mut guards = Vec::new();
    let mut used = Vec::new();
    for name in callbacks {
        let Some(method) = find_method(cx, &name) else {
            continue;
        };
        let Some(body) = &method.body else { continue };
        let mut found = false;
        for stmt in statements(body) {
            match &stmt {
                Node::If(i) if i.els.is_none() && halts(&i.then) => {
                    guards.push(stmt.clone());
                    found = true;
                }
                Node::Assign {
                    target: crate::index::body::Target::Ivar(var),
                    value,
                    line,
                    ..
                } if rescues_not_found && finds(value) => {
                    guards.push(not_found_guard(var, *line));
                    found = true;
                }
                _ => {}
            }
        }
        if found {
            used.push(name);
        }
    }
    (guards, used)
}

fn find_method<'a>(cx: &'a ControllerCx<'_>, name: &str) -> Option<&'a MethodFacts> {
    let own = cx
        .facts
        .methods
        .iter()
        .find(|m| m.name == name && m.owner == cx.class && m.kind == MethodKind::Instance);
    own.or_else(|| {
        cx.parent?
            .methods
            .iter()
            .find(|m| m.name == name && m.kind == MethodKind::Instance)
    })
}

fn halts(node: &Node) -> bool {
    statements(node).iter().any(|s| match s {
        Node::Call(c) => {
            c.recv.is_none()
                && matches!(
                    c.name.as_str(),
                    "head" | "redirect_to" | "render" | "raise" | "redirect_back"
                )
        }
        Node::And(a, _) => halts(a),
        _ => false,
    })
}

/// `Model.find(...)`, `current_user.payments.find(params[:id])`, `find_by!`.
fn finds(node: &Node) -> bool {
    match node {
        Node::Call(c) => {
            matches!(c.name.as_str(), "find" | "find_by!") || c.recv.as_ref().is_some_and(finds)
        }
        _ => false,
    }
}

fn not_found_guard(var: &str, line: u32) -> Node {
    Node::If(Box::new(If {
        cond: Node::Ivar(var.to_string()),
        then: Node::Call(Box::new(Call {
            recv: None,
            name: "head".to_string(),
            args: vec![Node::Sym("not_found".to_string())],
            block: None,
            safe_nav: false,
            line,
        })),
        els: None,
        unless: true,
        modifier: true,
        ternary: false,
        elsif: false,
        lines: (line, line),
        cond_line: line,
    }))
}
