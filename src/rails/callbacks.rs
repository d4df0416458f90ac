//! Methods Rails calls for you: model callbacks (`before_create :x`), validations
//! (`validate :x`), controller filters (`before_action :x, only: [:create]`) and
//! `rescue_from` handlers (`with: :x`), read from the DSL calls of the method's own class
//! (in the same file, `included do` blocks of a concern too). Such a method is a unit of
//! the plan even when it is private: a change in it changes what saving a record or
//! handling a request does, and its spec exercises it through that trigger.

use crate::index::{ClassFacts, FileFacts, MethodKind};

/// Model callbacks.
const CALLBACKS: &[&str] = &[
    "before_validation",
    "after_validation",
    "before_save",
    "around_save",
    "after_save",
    "before_create",
    "around_create",
    "after_create",
    "before_update",
    "around_update",
    "after_update",
    "before_destroy",
    "around_destroy",
    "after_destroy",
    "after_commit",
    "after_rollback",
    "after_create_commit",
    "after_update_commit",
    "after_destroy_commit",
    "after_save_commit",
    "after_initialize",
    "after_find",
    "after_touch",
];

/// Controller filters.
const FILTERS: &[&str] = &[
    "before_action",
    "after_action",
    "around_action",
    "prepend_before_action",
    "append_before_action",
    "prepend_around_action",
    "append_around_action",
    "before_filter",
    "after_filter",
    "around_filter",
];

/// Why Rails calls a method, as its spec needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trigger {
    /// The DSL call: `before_create`, `validate`, `before_action`, `rescue_from`.
    pub dsl: String,
    /// What it applies to, as written: `on: create`, `only: create, update`, the exception
    /// class of a `rescue_from`.
    pub scope: Option<String>,
}

/// The attributes and associations whose presence `class` validates on every save
/// (`validates_presence_of :principal, :project`, `validates :name, presence: true`; not
/// under `if:`, `unless:`, `on:`, `allow_blank:` or `allow_nil:`), with the foreign key of each validated `belongs_to`
/// (`belongs_to :principal, foreign_key: 'user_id'` gives `user_id`; `belongs_to
/// :project` gives `project_id`).
pub fn validated_present(class: &ClassFacts) -> Vec<String> {
    // `allow_blank: true` / `allow_nil: true` let a missing value through.
    let conditional = |call: &crate::index::DslCall| {
        call.options.iter().any(|(k, _)| {
            matches!(
                k.as_str(),
                "if" | "unless" | "on" | "allow_blank" | "allow_nil"
            )
        })
    };
    let mut names: Vec<String> = Vec::new();
    for call in &class.dsl {
        let presence = match call.name.as_str() {
            "validates_presence_of" => true,
            "validates" => call
                .options
                .iter()
                .any(|(k, v)| k == "presence" && !v.iter().any(|x| x == "false")),
            _ => false,
        };
        if presence && !conditional(call) {
            names.extend(call.args.iter().cloned());
        }
    }
    let mut keys = Vec::new();
    for call in class.dsl.iter().filter(|c| c.name == "belongs_to") {
        let Some(association) = call.args.first() else {
            continue;
        };
        if !names.contains(association) {
            continue;
        }
        let key = call
            .options
            .iter()
            .find(|(k, _)| k == "foreign_key")
            .and_then(|(_, v)| v.first().cloned())
            .unwrap_or_else(|| format!("{association}_id"));
        keys.push(key);
    }
    names.extend(keys);
    names.sort_unstable();
    names.dedup();
    names
}

impl Trigger {
    /// A model callback that runs on a record that passed its validations (being saved, or
    /// loaded to be destroyed): `before_save`, `after_create`, `before_destroy`...; not
    /// `before_validation`.
    pub fn on_valid_record(&self) -> bool {
        // Every model callback but those that run before validation, on a record that
        // may not be valid (a rollback, a new or loaded record, a touch).
        CALLBACKS.contains(&self.dsl.as_str())
            && !matches!(
                self.dsl.as_str(),
                "before_validation"
                    | "after_validation"
                    | "after_rollback"
                    | "after_initialize"
                    | "after_find"
                    | "after_touch"
            )
    }

    /// `before_create`, `after_commit (on: create)`, `before_action (only: create,
    /// update)`, `rescue_from ActiveRecord::RecordNotFound`.
    pub fn text(&self) -> String {
        match (&self.scope, self.dsl.as_str()) {
            (Some(exception), "rescue_from") => format!("rescue_from {exception}"),
            (Some(scope), _) => format!("{} ({scope})", self.dsl),
            (None, _) => self.dsl.clone(),
        }
    }

    /// A model callback or validation (exercised by saving), as opposed to a controller
    /// filter or handler (exercised by a request).
    pub fn is_model(&self) -> bool {
        self.dsl == "validate" || CALLBACKS.contains(&self.dsl.as_str())
    }
}

/// For each method of the file (same order), what registers it with Rails, if anything.
pub fn triggers(facts: &FileFacts) -> Vec<Option<Trigger>> {
    facts
        .methods
        .iter()
        .map(|m| {
            if m.kind != MethodKind::Instance || m.dynamic {
                return None;
            }
            facts
                .classes
                .iter()
                .filter(|c| c.name == m.owner)
                .find_map(|c| trigger_in(c, &m.name))
        })
        .collect()
}

fn trigger_in(class: &ClassFacts, method: &str) -> Option<Trigger> {
    for call in &class.dsl {
        let name = call.name.as_str();
        let option = |key: &str| {
            call.options
                .iter()
                .find(|(k, _)| k == key)
                .map(|(k, v)| format!("{k}: {}", v.join(", ")))
        };
        if name == "rescue_from" {
            let handler = call.options.iter().find(|(k, _)| k == "with");
            if handler.is_some_and(|(_, v)| v.iter().any(|h| h == method)) {
                return Some(Trigger {
                    dsl: "rescue_from".to_string(),
                    scope: Some(call.args.join(", ")).filter(|s| !s.is_empty()),
                });
            }
            continue;
        }
        let registers = CALLBACKS.contains(&name) || FILTERS.contains(&name) || name == "validate";
        if registers && call.args.iter().any(|a| a == method) {
            let scope = option("on")
                .or_else(|| option("only"))
                .or_else(|| option("except"));
            return Some(Trigger {
                dsl: name.to_string(),
                scope,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::extract;

    fn triggers_of(src: &str) -> Vec<(String, Option<String>)> {
        let facts = extract("app/models/x.rb", src.as_bytes());
        facts
            .methods
            .iter()
            .zip(triggers(&facts))
            .map(|(m, t)| (m.id(), t.map(|t| t.text())))
            .collect()
    }

    #[test]
    fn callbacks_validations_filters_and_handlers() {
        assert_eq!(
            triggers_of(
                "class Token < ApplicationRecord\n  before_create :delete_previous_tokens, :generate_value\n  after_commit :notify, on: :create\n  validate :value_format\n\n  def to_s; end\n\n  private\n\n  def delete_previous_tokens; end\n  def generate_value; end\n  def notify; end\n  def value_format; end\n  def unused; end\nend\n"
            ),
            vec![
                ("Token#to_s".to_string(), None),
                ("Token#delete_previous_tokens".to_string(), Some("before_create".to_string())),
                ("Token#generate_value".to_string(), Some("before_create".to_string())),
                ("Token#notify".to_string(), Some("after_commit (on: create)".to_string())),
                ("Token#value_format".to_string(), Some("validate".to_string())),
                ("Token#unused".to_string(), None),
            ]
        );
        assert_eq!(
            triggers_of(
                "class WatchersController < ApplicationController\n  before_action :find_project, :authorize, only: [:new, :create]\n  rescue_from ActiveRecord::RecordNotFound, with: :render_404\n\n  private\n\n  def find_project; end\n  def authorize; end\n  def render_404; end\nend\n"
            ),
            vec![
                ("WatchersController#find_project".to_string(), Some("before_action (only: new, create)".to_string())),
                ("WatchersController#authorize".to_string(), Some("before_action (only: new, create)".to_string())),
                ("WatchersController#render_404".to_string(), Some("rescue_from ActiveRecord::RecordNotFound".to_string())),
            ]
        );
    }

    #[test]
    fn validated_presence_with_the_keys_of_validated_associations() {
        let facts = extract(
            "app/models/member.rb",
            b"class Member < ApplicationRecord\n  belongs_to :principal, :foreign_key => 'user_id'\n  belongs_to :project\n  belongs_to :role\n  validates_presence_of :principal, :project\n  validates :name, presence: true, length: { maximum: 30 }\n  validates :token, presence: true, allow_blank: true\n  validates :mail, presence: true, if: :active?\n  validates :login, presence: false\n  validates :about, length: { maximum: 100 }\nend\n",
        );
        let class = facts.classes.first().expect("class");
        assert_eq!(
            validated_present(class),
            vec!["name", "principal", "project", "project_id", "user_id"]
        );
    }

    #[test]
    fn a_validation_under_with_options_is_conditional() {
        let facts = extract(
            "app/models/member.rb",
            b"class Member < ApplicationRecord\n  with_options if: :active? do\n    validates_presence_of :project\n  end\n  validates :name, presence: true\nend\n",
        );
        let class = facts.classes.first().expect("class");
        assert_eq!(validated_present(class), vec!["name"]);
        // A filter inside takes the block's `only:`.
        assert_eq!(
            triggers_of(
                "class PostsController < ApplicationController\n  with_options only: [:show, :edit] do\n    before_action :find_post\n  end\n\n  private\n\n  def find_post; end\nend\n"
            ),
            vec![(
                "PostsController#find_post".to_string(),
                Some("before_action (only: show, edit)".to_string())
            )]
        );
    }

    #[test]
    fn a_concern_registers_in_its_included_block() {
        assert_eq!(
            triggers_of(
                "module Watchable\n  extend ActiveSupport::Concern\n  included do\n    before_save :touch_watchers\n  end\n\n  private\n\n  def touch_watchers; end\nend\n"
            ),
            vec![("Watchable#touch_watchers".to_string(), Some("before_save".to_string()))]
        );
    }
}
