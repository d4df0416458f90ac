//! Database writes (an added field, `methods[].db_writes`): the ActiveRecord calls that
//! change rows, in the method and the same-class methods it calls. The contract's
//! side-effect types have no database kind, so a service that runs `delete_all` and sends
//! mail read as `db: none` and "pure" in `test-config`; with this field `test-config`
//! knows the method writes (and keeps its exact parity on metadata without it).
//!
//! | call | operation |
//! |---|---|
//! | `save`, `save!`, `update`, `update!`, `update_column(s)`, `update_attribute(s)` | the call |
//! | `create`, `create!`, `find_or_create_by`, `first_or_create`, `insert_all`, `upsert` | the call |
//! | `destroy`, `destroy!`, `delete`, `destroy_all`, `delete_all`, `update_all`, `destroy_by` | the call |
//! | `increment!`, `decrement!`, `toggle!`, `touch` | the call |
//!
//! Not writes: the same names on a hash, the session, params, the cache, a file or a
//! string (`params.delete(:id)`, `Rails.cache.delete(k)`, `File.delete(p)`), or on a
//! client of a remote service or a store (`Stripe::Customer.create(...)`,
//! `client.v1.customers.create(...)`: a request, which `side_effects` lists).
//!
//! Example: `Token.where(user: user).delete_all` → `{operation: delete_all, target: Token}`.

use crate::index::body::{walk, Call, Node, Visitor};

use super::clients::Clients;
use super::grammar::words;
use super::model::DbWrite;

/// Calls that write rows.
const WRITES: &[&str] = &[
    "save",
    "save!",
    "update",
    "update!",
    "update_column",
    "update_columns",
    "update_attribute",
    "update_attributes",
    "update_attributes!",
    "update_all",
    "create",
    "create!",
    "find_or_create_by",
    "find_or_create_by!",
    "create_or_find_by",
    "create_or_find_by!",
    "first_or_create",
    "first_or_create!",
    "insert",
    "insert!",
    "insert_all",
    "insert_all!",
    "upsert",
    "upsert_all",
    "destroy",
    "destroy!",
    "destroy_all",
    "destroy_by",
    "delete",
    "delete_all",
    "delete_by",
    "increment!",
    "decrement!",
    "toggle!",
    "touch",
    "update_counters",
    "increment_counter",
    "decrement_counter",
];

/// Receivers that are not records: their `delete`/`update` change no row.
const NOT_RECORDS: &[&str] = &[
    "params",
    "session",
    "cookies",
    "flash",
    "headers",
    "options",
    "opts",
    "attrs",
    "attributes",
    "hash",
    "h",
    "data",
    "args",
    "env",
    "request",
    "response",
    "ENV",
    "File",
    "FileUtils",
    "Dir",
    "Rails",
    "Redis",
];

/// The writes in `bodies`, in order of appearance, each (operation, target) once.
/// `clients` are what the class holds of remote services and stores: calls on them write
/// no row.
pub fn collect(bodies: &[&Node], own: &str, clients: &Clients) -> Vec<DbWrite> {
    let mut finder = Finder {
        own,
        clients,
        out: Vec::new(),
    };
    for body in bodies {
        walk(&mut finder, body);
    }
    finder.out
}

struct Finder<'a> {
    own: &'a str,
    clients: &'a Clients,
    out: Vec<DbWrite>,
}

impl<'n> Visitor<'n> for Finder<'_> {
    fn enter(&mut self, node: &'n Node) -> bool {
        if let Node::Call(c) = node {
            let on_client = c
                .recv
                .as_ref()
                .is_some_and(|r| self.clients.root_of(r, &[]).is_some());
            if let Some(write) = write_of(c, self.own).filter(|_| !on_client) {
                if !self
                    .out
                    .iter()
                    .any(|w| w.operation == write.operation && w.target == write.target)
                {
                    self.out.push(write);
                }
            }
        }
        true
    }
}

fn write_of(c: &Call, own: &str) -> Option<DbWrite> {
    let name = c.name.as_str();
    if !WRITES.contains(&name) {
        return None;
    }
    let target = match c.recv.as_ref() {
        // `save!`, `self.touch`: the record itself.
        None | Some(Node::SelfRef) => {
            // `delete(x)` / `update(x)` with arguments on self is usually a Hash or
            // collection method of a non-model; records save and destroy themselves.
            if matches!(name, "delete" | "insert") && !c.args.is_empty() {
                return None;
            }
            own.to_string()
        }
        Some(recv) => {
            if not_a_record(recv) {
                return None;
            }
            // `array.delete(x)`, `list.insert(i, x)` on a local are collection calls.
            if matches!(name, "delete" | "insert" | "update")
                && matches!(recv, Node::Lvar(_))
                && !c.args.is_empty()
                && name != "update"
            {
                return None;
            }
            target_of(recv)
        }
    };
    Some(DbWrite {
        operation: name.to_string(),
        target,
        line: c.line,
        via: None,
    })
}

/// Whether the receiver is known not to be a record or relation.
fn not_a_record(recv: &Node) -> bool {
    match recv {
        // Hashes, files and remote APIs (`Stripe::Charge.create` is a request, not a row).
        Node::Const { path, .. } => {
            let root = path.split("::").next().unwrap_or(path);
            NOT_RECORDS.contains(&root)
                || super::clients::API_CLIENTS.iter().any(|(r, _)| *r == root)
                || super::clients::HTTP_LIBRARIES
                    .iter()
                    .any(|h| path == h || path.starts_with(&format!("{h}::")))
        }
        Node::Lvar(n) | Node::Ivar(n) => NOT_RECORDS.contains(&n.as_str()),
        Node::Call(c) => {
            (c.recv.is_none() && NOT_RECORDS.contains(&c.name.as_str()))
                || c.name == "cache"
                || c.name == "[]"
                || c.recv.as_ref().is_some_and(not_a_record)
        }
        Node::Str(_) | Node::Array(_) | Node::Hash(_) | Node::Other { .. } => true,
        _ => false,
    }
}

/// The model (a constant at the chain's root), else the record or association in words.
fn target_of(recv: &Node) -> String {
    match recv {
        Node::Const { path, .. } => path.clone(),
        Node::Call(c) => match c.recv.as_ref() {
            Some(inner @ (Node::Const { .. } | Node::Call(_))) => target_of(inner),
            _ => words(&c.name),
        },
        Node::Lvar(n) | Node::Ivar(n) => words(n),
        other => super::phrase::noun(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    fn writes(body: &str) -> Vec<(String, String)> {
        let src =
            format!("class Token < ApplicationRecord\n  def m(user, list)\n{body}\n  end\nend\n");
        let facts = extract_with(
            "app/models/token.rb",
            src.as_bytes(),
            &ExtractOptions::with_bodies(),
        );
        let body = facts.methods[0].body.clone().unwrap();
        collect(&[&body], "Token", &Clients::of_class(&facts, "Token", None))
            .into_iter()
            .map(|w| (w.operation, w.target))
            .collect()
    }

    #[test]
    fn writes_on_records_relations_and_associations() {
        assert_eq!(
            writes("    Token.where(user: user).delete_all\n    user.update!(name: \"x\")\n    save!\n    user.tokens.create(kind: 1)\n    @story.touch\n    Token.where(user: user).delete_all"),
            vec![
                ("delete_all".into(), "Token".into()),
                ("update!".into(), "user".into()),
                ("save!".into(), "Token".into()),
                ("create".into(), "tokens".into()),
                ("touch".into(), "story".into()),
            ]
        );
    }

    #[test]
    fn the_same_names_on_hashes_caches_files_collections_and_clients_are_not_writes() {
        assert!(writes("    Stripe::Customer.create(email: user.email)\n    Redis.current.del(\"k\")\n    params.delete(:id)\n    session.delete(:user_id)\n    Rails.cache.delete(\"k\")\n    File.delete(\"x\")\n    list.delete(1)\n    options[:x].update(y: 1)\n    \"abc\".delete(\"a\")").is_empty());
    }
}
