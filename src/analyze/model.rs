//! The analyzer's output model: characteristics with their values, behaviors, side effects,
//! per-method results. Converted to the contract's YAML by `metadata::fields`.

use crate::yaml::Value;

pub use crate::vocab::{BehaviorKind, CharType, SetupType};

/// `source` of a characteristic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The method's own logic or its inputs.
    Internal,
    /// The result of a call on another class.
    External {
        /// The class called.
        class: String,
        /// The method called.
        method: String,
    },
}

/// `setup`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// Model, data or action.
    pub kind: SetupType,
    /// The class to set up, if one.
    pub class: Option<String>,
}

/// The behavior a leaf or side effect points to, before ids are assigned.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BehaviorDraft {
    /// The `it` text (grammar already applied).
    pub description: String,
    /// `terminal`, `success` or `side_effect`.
    pub kind: BehaviorKind,
    /// The side-effect type, for side effects.
    pub subtype: Option<&'static str>,
}

/// One value of a characteristic.
#[derive(Debug, Clone, PartialEq)]
pub struct CharValue {
    /// The raw value (`true`, `"present"`, `"completed"`, a symbol).
    pub value: Value,
    /// The fragment after the context word.
    pub description: String,
    /// Stops branching.
    pub terminal: bool,
    /// The outcome, on leaves only.
    pub behavior: Option<BehaviorDraft>,
}

/// One characteristic.
#[derive(Debug, Clone, PartialEq)]
pub struct Characteristic {
    /// `let` name (snake_case, unique within the method).
    pub name: String,
    /// Human text.
    pub description: String,
    /// Type.
    pub kind: CharType,
    /// Values, in branch order.
    pub values: Vec<CharValue>,
    /// Internal or external.
    pub source: Source,
    /// How a test sets it up.
    pub setup: Setup,
    /// 1 for roots.
    pub level: u32,
    /// Index of the parent characteristic.
    pub parent: Option<usize>,
    /// The parent's values under which this one exists.
    pub when_parent: Vec<Value>,
    /// `"15"` or `"15-22"`.
    pub source_line: String,
    /// For ranges: the literal compared with.
    pub threshold_value: Option<Value>,
    /// For ranges: `>=`, `>`, `<=`, `<`.
    pub threshold_operator: Option<&'static str>,
    /// Index in [`Characteristic::values`] of the parent's value this one hangs under.
    pub parent_value: Option<usize>,
    /// What the condition asks, for recognising the same question asked again further
    /// down the same path. An enum of a `case` or an `elsif` chain asks `case|subject`:
    /// equality tests of its subject below it are answered by its value. Empty when it
    /// cannot be asked twice (other enums, rescues).
    pub question: String,
    /// The attribute of the setup class the condition reads (`completed?` in
    /// `payment.completed?`, `status` in `case payment.status`), when it reads one
    /// directly: what a factory trait would set. Not written to the metadata.
    pub attribute: Option<String>,
}

/// A side effect of a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideEffect {
    /// `email`, `webhook`, `cache`, `event`, `external_api`.
    pub kind: &'static str,
    /// Its behavior.
    pub behavior: BehaviorDraft,
    /// The effect is the behavior of the leaves that end with it (or of the method): a
    /// spec expects it in those contexts, not in every one (`scope: leaf`, an added field).
    pub leaf: bool,
    /// Reached through another method of the project (`Invitation#resend!`) or a model
    /// callback a write triggers (`Order after_create_commit :deliver`): `via`, an added
    /// field.
    pub via: Option<String>,
}

/// The analysis of one method.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodAnalysis {
    /// Method name.
    pub name: String,
    /// `instance` or `class`.
    pub kind: &'static str,
    /// Passed through from discovery.
    pub method_mode: String,
    /// Characteristics in source order (parents before children).
    pub characteristics: Vec<Characteristic>,
    /// Side effects, in order of appearance.
    pub side_effects: Vec<SideEffect>,
    /// Classes the method uses.
    pub dependencies: Vec<String>,
    /// 0..1: how much of the result came from parser-decidable rules.
    pub confidence: f64,
    /// Which guessed (\[J\]) rules were applied, and where.
    pub notes: Vec<String>,
    /// What a method without characteristics does (its one example).
    pub outcome: Option<BehaviorDraft>,
    /// Rows it writes (an added field, `db_writes`).
    pub db_writes: Vec<DbWrite>,
    /// For a private method Rails calls: what calls it (an added field, `trigger`).
    pub trigger: Option<String>,
    /// Other project files the analysis read (the classes its calls reach), relative to
    /// the root: the analysis cache depends on them.
    pub reached_files: Vec<String>,
    /// Its class, when it is not the file's `class_name` (a second or nested class):
    /// `class_name`, an added field of `methods[]`.
    pub class_name: Option<String>,
}

/// A database write (`Token.where(...).delete_all`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbWrite {
    /// The ActiveRecord method: `delete_all`, `update!`, `create`, ...
    pub operation: String,
    /// The model or the record/association written (`Token`, `user`, `tokens`).
    pub target: String,
    /// The line of the call.
    pub line: u32,
    /// Reached through another method of the project or a model callback (`via`, an
    /// added field).
    pub via: Option<String>,
}
