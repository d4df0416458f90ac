//! `references NAME`: where a class or module, or a method of one, is used in the project,
//! from the facts the index already keeps per method (constant references with their
//! line, calls with an implicit receiver, calls on instance variables and parameters).
//! Constants resolve as discovery resolves them (lexical nesting, then the top level);
//! a variable's class is guessed from its name as discovery guesses it (`@payment`,
//! `payment` → `Payment`). This is the question discovery and analysis used to ask an IDE
//! symbol server.
//!
//! What it does not see: a call on a local assigned from elsewhere
//! (`p = Payment.find(id); p.refund`), calls through `send`, and uses outside a method body
//! (class-level DSL arguments): the facts do not hold them.

use std::sync::Arc;

use serde::Serialize;

use crate::discover::deps::Known;
use crate::error::{Error, Result};
use crate::index::{FileFacts, MethodFacts, MethodKind};
use crate::naming::camelize;

/// What was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A class or module, by full name.
    Constant(String),
    /// A method of a class: `Class#name` (instance) or `Class.name` (singleton).
    Method {
        /// The class, by full name.
        class: String,
        /// The method's name.
        name: String,
        /// Instance or singleton.
        kind: MethodKind,
    },
}

impl Target {
    /// `Payment`, `::Billing::Invoice`, `Payment#refund`, `Payment.for_period`.
    pub fn parse(text: &str) -> Result<Target> {
        let text = text.trim().trim_start_matches("::");
        let bad = || {
            Error::Usage {
            message: format!(
                "{text:?} is not a constant (`Billing::Invoice`) or a method id (`Payment#refund`, `Payment.for_period`)"
            ),
        }
        };
        if let Some((class, name)) = text.split_once('#') {
            if class.is_empty() || name.is_empty() {
                return Err(bad());
            }
            return Ok(Target::Method {
                class: class.to_string(),
                name: name.to_string(),
                kind: MethodKind::Instance,
            });
        }
        // `A::B.name`: the last `.` that is not part of `::`.
        if let Some(at) = text.rfind('.') {
            let (class, name) = (
                text.get(..at).unwrap_or(""),
                text.get(at + 1..).unwrap_or(""),
            );
            if class.is_empty() || name.is_empty() {
                return Err(bad());
            }
            return Ok(Target::Method {
                class: class.to_string(),
                name: name.to_string(),
                kind: MethodKind::Singleton,
            });
        }
        let constant_like = text
            .split("::")
            .all(|part| part.chars().next().is_some_and(|c| c.is_ascii_uppercase()));
        if !constant_like {
            return Err(bad());
        }
        Ok(Target::Constant(text.to_string()))
    }

    fn class(&self) -> &str {
        match self {
            Target::Constant(class) | Target::Method { class, .. } => class,
        }
    }
}

/// The answer.
#[derive(Debug, Serialize)]
pub struct ReferencesAnswer {
    status: &'static str,
    name: String,
    target: TargetOut,
    definitions: Vec<Definition>,
    references: Vec<Reference>,
    summary: Summary,
    /// What the answer cannot see, said so no one reads "no references" as "unused".
    not_followed: &'static str,
    warnings: Vec<String>,
}

/// The uses `references` does not see.
const NOT_FOLLOWED: &str = "dynamic calls are not followed: `send`/`public_send`, `method_missing`, calls on a local assigned from elsewhere (`p = Payment.find(id); p.refund`), on a block parameter (`orders.each { |order| order.cancel! }`), through `delegate` or a reader that returns the object, and uses outside method bodies";

#[derive(Debug, Serialize)]
struct TargetOut {
    /// `constant`, `instance_method` or `singleton_method`.
    kind: &'static str,
    class: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<String>,
    /// Whether a file in scope defines it.
    defined: bool,
}

#[derive(Debug, Serialize)]
struct Definition {
    path: String,
    line_range: [u32; 2],
    /// `class`, `module`, `instance` or `singleton`.
    kind: &'static str,
}

/// One use, in one method.
#[derive(Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct Reference {
    path: String,
    /// First line of the use when the facts know it (constants), else the method's `def`.
    line: u32,
    /// The method the use is in.
    method_id: String,
    line_range: [u32; 2],
    /// `constant` (written as a constant), `variable` (an instance variable or parameter
    /// whose name gives the class), `self` (an implicit-receiver or `self.` call inside the
    /// class), `nested` (a constant inside the class, such as `Payment::STATUSES`).
    via: &'static str,
    /// The constant or variable as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    written: Option<String>,
    /// Methods called on it there.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    calls: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Summary {
    references: usize,
    methods: usize,
    files: usize,
}

/// Where `target` is used in `files` (all of the project, so constants resolve against
/// every class in scope); only uses in files under one of `within` are listed when it is
/// not empty.
pub fn find(
    name: &str,
    target: &Target,
    files: &[Arc<FileFacts>],
    within: &[String],
) -> ReferencesAnswer {
    let known = Known::from_names(
        files
            .iter()
            .flat_map(|f| f.classes.iter().map(|c| c.name.as_str())),
    );
    let class = target.class();
    let defined_class = known.id(class).is_some();
    let mut warnings = Vec::new();
    if !defined_class {
        warnings.push(format!(
            "{class} is not defined in the files in scope (a gem, the standard library, or a typo): constants are matched as written"
        ));
    }
    let mut definitions = Vec::new();
    for file in files {
        match target {
            Target::Constant(name) => {
                for c in file.classes.iter().filter(|c| &c.name == name) {
                    definitions.push(Definition {
                        path: file.path.clone(),
                        line_range: [c.line_range.0, c.line_range.1],
                        kind: match c.kind {
                            crate::index::NamespaceKind::Class => "class",
                            crate::index::NamespaceKind::Module => "module",
                        },
                    });
                }
            }
            Target::Method { class, name, kind } => {
                for m in file
                    .methods
                    .iter()
                    .filter(|m| &m.owner == class && &m.name == name && m.kind == *kind)
                {
                    definitions.push(Definition {
                        path: file.path.clone(),
                        line_range: [m.line_range.0, m.line_range.1],
                        kind: kind_str(m.kind),
                    });
                }
            }
        }
    }

    let in_scope = |path: &str| {
        within.is_empty()
            || within.iter().any(|w| {
                let w = w.trim_end_matches('/');
                w == "." || path == w || path.strip_prefix(w).is_some_and(|r| r.starts_with('/'))
            })
    };
    let mut references = Vec::new();
    for file in files.iter().filter(|f| in_scope(&f.path)) {
        for m in &file.methods {
            uses_in(file, m, target, &known, defined_class, &mut references);
        }
    }
    references.sort();
    references.dedup();
    let mut methods: Vec<(&str, &str)> = references
        .iter()
        .map(|r| (r.path.as_str(), r.method_id.as_str()))
        .collect();
    methods.sort_unstable();
    methods.dedup();
    let mut paths: Vec<&str> = methods.iter().map(|(p, _)| *p).collect();
    paths.dedup();
    let summary = Summary {
        references: references.len(),
        methods: methods.len(),
        files: paths.len(),
    };
    let (kind, method) = match target {
        Target::Constant(_) => ("constant", None),
        Target::Method { name, kind, .. } => (
            match kind {
                MethodKind::Instance => "instance_method",
                MethodKind::Singleton => "singleton_method",
            },
            Some(name.clone()),
        ),
    };
    ReferencesAnswer {
        status: "success",
        name: name.to_string(),
        target: TargetOut {
            kind,
            class: class.to_string(),
            method,
            defined: !definitions.is_empty(),
        },
        definitions,
        references,
        summary,
        not_followed: NOT_FOLLOWED,
        warnings,
    }
}

fn kind_str(kind: MethodKind) -> &'static str {
    match kind {
        MethodKind::Instance => "instance",
        MethodKind::Singleton => "singleton",
    }
}

/// The uses of `target` in method `m` of `file`.
fn uses_in(
    file: &FileFacts,
    m: &MethodFacts,
    target: &Target,
    known: &Known,
    defined_class: bool,
    out: &mut Vec<Reference>,
) {
    let class = target.class();
    let empty: Vec<String> = Vec::new();
    let nesting = m
        .scope
        .and_then(|s| file.classes.get(s))
        .map_or(&empty, |c| &c.nesting);
    // What a name written in this method means: the class in scope, or (for a class no
    // file defines) the name as written from the top level.
    let resolve = |path: &str, absolute: bool| -> Option<(String, bool)> {
        if defined_class {
            known
                .resolve_full(nesting, path, absolute)
                .map(|(c, whole)| (c.to_string(), whole))
        } else {
            Some((path.to_string(), true))
        }
    };
    let reference =
        |line: u32, via: &'static str, written: Option<String>, calls: Vec<String>| Reference {
            path: file.path.clone(),
            line,
            method_id: m.id(),
            line_range: [m.line_range.0, m.line_range.1],
            via,
            written,
            calls,
        };
    for c in &m.constants {
        let Some((resolved, whole)) = resolve(&c.path, c.absolute) else {
            continue;
        };
        let calls: Vec<String> = if whole {
            c.methods.to_vec()
        } else {
            Vec::new()
        };
        match target {
            Target::Constant(_) if resolved == class => {
                let via = if whole { "constant" } else { "nested" };
                out.push(reference(c.line, via, Some(c.path.clone()), calls));
            }
            Target::Method {
                name,
                kind: MethodKind::Singleton,
                ..
            } if resolved == class && calls.iter().any(|c| c == name) => {
                out.push(reference(
                    c.line,
                    "constant",
                    Some(c.path.clone()),
                    vec![name.clone()],
                ));
            }
            _ => {}
        }
    }
    // Variables whose name gives the class (`@payment`, `payment`), with what is called on
    // them.
    let variable_class = |name: &str| -> Option<String> {
        let camel = camelize(name);
        if defined_class {
            known
                .resolve_full(nesting, &camel, false)
                .filter(|(_, whole)| *whole)
                .map(|(c, _)| c.to_string())
        } else {
            Some(camel)
        }
    };
    let mut variables: Vec<(String, Vec<String>)> = Vec::new();
    for call in m.receiver_calls() {
        if variable_class(call.name).as_deref() != Some(class) {
            continue;
        }
        let written = match call.kind {
            crate::index::ReceiverKind::Ivar => format!("@{}", call.name),
            crate::index::ReceiverKind::Param => call.name.to_string(),
        };
        match variables.iter_mut().find(|(w, _)| *w == written) {
            Some((_, calls)) => calls.push(call.method.to_string()),
            None => variables.push((written, vec![call.method.to_string()])),
        }
    }
    let plain = m.ivars.iter().map(|ivar| format!("@{ivar}")).chain(
        m.params
            .iter()
            .filter(|p| !p.name.is_empty())
            .map(|p| p.name.clone()),
    );
    for written in plain {
        let bare = written.trim_start_matches('@');
        if variable_class(bare).as_deref() == Some(class)
            && !variables.iter().any(|(w, _)| *w == written)
        {
            variables.push((written, Vec::new()));
        }
    }
    for (written, calls) in variables {
        match target {
            Target::Constant(_) => {
                out.push(reference(m.line_range.0, "variable", Some(written), calls));
            }
            Target::Method {
                name,
                kind: MethodKind::Instance,
                ..
            } if calls.iter().any(|c| c == name) => {
                out.push(reference(
                    m.line_range.0,
                    "variable",
                    Some(written),
                    vec![name.clone()],
                ));
            }
            _ => {}
        }
    }
    // Implicit-receiver and `self.` calls inside the class itself.
    if let Target::Method { name, kind, .. } = target {
        if m.owner == class && m.kind == *kind && m.calls.contains(name) && m.name != *name {
            out.push(reference(m.line_range.0, "self", None, vec![name.clone()]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::extract;

    fn project() -> Vec<Arc<FileFacts>> {
        let files = [
            (
                "app/models/payment.rb",
                "class Payment < ApplicationRecord\n  STATUSES = %w[a b].freeze\n\n  def self.for_period(range)\n    where(created_at: range)\n  end\n\n  def refund\n    return false unless refundable?\n\n    update!(status: :refunded)\n  end\n\n  def refundable?\n    STATUSES.include?(status)\n  end\nend\n",
            ),
            (
                "app/services/billing/refunder.rb",
                "module Billing\n  class Refunder\n    def initialize(payment)\n      @payment = payment\n    end\n\n    def call\n      return if Payment::STATUSES.empty?\n\n      @payment.refund\n      Payment.for_period(1..2).count\n    end\n  end\nend\n",
            ),
            (
                "app/jobs/report_job.rb",
                "class ReportJob\n  def perform(payment)\n    Rails.logger.info(payment.id)\n  end\nend\n",
            ),
        ];
        files
            .iter()
            .map(|(path, src)| Arc::new(extract(path, src.as_bytes())))
            .collect()
    }

    fn summary(answer: &ReferencesAnswer) -> Vec<String> {
        answer
            .references
            .iter()
            .map(|r| {
                format!(
                    "{}:{} {} {} {} [{}]",
                    r.path,
                    r.line,
                    r.method_id,
                    r.via,
                    r.written.as_deref().unwrap_or("-"),
                    r.calls.join(",")
                )
            })
            .collect()
    }

    #[test]
    fn a_class_is_found_through_constants_and_variables() {
        let files = project();
        let target = Target::parse("Payment").unwrap();
        let answer = find("Payment", &target, &files, &[]);
        assert_eq!(
            summary(&answer),
            [
                "app/jobs/report_job.rb:2 ReportJob#perform variable payment [id]",
                "app/services/billing/refunder.rb:3 Billing::Refunder#initialize variable payment []",
                "app/services/billing/refunder.rb:7 Billing::Refunder#call variable @payment [refund]",
                "app/services/billing/refunder.rb:8 Billing::Refunder#call nested Payment::STATUSES []",
                "app/services/billing/refunder.rb:11 Billing::Refunder#call constant Payment [for_period]",
            ]
        );
        assert_eq!(answer.definitions.len(), 1);
        assert!(answer.warnings.is_empty());
        let within = find("Payment", &target, &files, &["app/jobs".to_string()]);
        assert_eq!(within.references.len(), 1);
    }

    #[test]
    fn a_method_is_found_through_its_callers() {
        let files = project();
        let refund = find(
            "Payment#refund",
            &Target::parse("Payment#refund").unwrap(),
            &files,
            &[],
        );
        assert_eq!(
            summary(&refund),
            ["app/services/billing/refunder.rb:7 Billing::Refunder#call variable @payment [refund]"]
        );
        let refundable = find(
            "Payment#refundable?",
            &Target::parse("Payment#refundable?").unwrap(),
            &files,
            &[],
        );
        assert_eq!(
            summary(&refundable),
            ["app/models/payment.rb:8 Payment#refund self - [refundable?]"]
        );
        let for_period = find(
            "Payment.for_period",
            &Target::parse("Payment.for_period").unwrap(),
            &files,
            &[],
        );
        assert_eq!(
            summary(&for_period),
            ["app/services/billing/refunder.rb:11 Billing::Refunder#call constant Payment [for_period]"]
        );
        assert_eq!(for_period.definitions.len(), 1);
        assert_eq!(for_period.target.kind, "singleton_method");
    }

    #[test]
    fn names_that_are_neither_constants_nor_methods_are_refused() {
        for bad in ["payment", "#refund", "Payment#", "", "Payment."] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Target::parse("::Billing::Refunder").unwrap(),
            Target::Constant("Billing::Refunder".to_string())
        );
    }

    #[test]
    fn a_class_no_file_defines_is_matched_as_written() {
        let files = project();
        let answer = find("Rails", &Target::parse("Rails").unwrap(), &files, &[]);
        assert_eq!(
            summary(&answer),
            ["app/jobs/report_job.rb:3 ReportJob#perform constant Rails [logger]"]
        );
        assert_eq!(answer.warnings.len(), 1);
    }
}
