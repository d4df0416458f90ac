//! The `symbols` answer: classes, modules and methods of Ruby files, for an agent that would
//! otherwise ask an IDE symbol server.

use serde::Serialize;

use crate::index::{FileFacts, MethodKind, NamespaceKind, Visibility};

use super::Answer;

/// `status: success` with one entry per file.
#[derive(Debug, Serialize)]
pub struct SymbolsAnswer {
    /// Always `success` (per-file problems are reported per file).
    pub status: &'static str,
    /// One entry per file, sorted by path.
    pub files: Vec<FileSymbols>,
    pub summary: SymbolsSummary,
    /// Problems that did not stop the run (unreadable folders, link loops).
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct FileSymbols {
    /// Path relative to the root.
    pub path: String,
    /// `ok`, `error` (parsed with errors; what prism recovered is listed) or `skipped`.
    pub parse: &'static str,
    /// Why the file was not parsed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Parse errors with their line (the first 20).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<crate::index::Diagnostic>,
    /// Total number of parse errors, when there were more than listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostic_count: Option<usize>,
    /// `loc` and `methods`, as discovery counts them.
    pub complexity: Counts,
    /// Classes and modules, in source order.
    pub classes: Vec<ClassSymbol>,
    /// Methods, in source order.
    pub methods: Vec<MethodSymbol>,
}

/// Code lines and method count.
#[derive(Debug, Serialize)]
pub struct Counts {
    /// Non-blank, non-comment lines.
    pub loc: u32,
    /// Every `def` in the file.
    pub methods: usize,
}

/// One class or module statement.
#[derive(Debug, Serialize)]
pub struct ClassSymbol {
    pub name: String,
    /// `class` or `module`.
    pub kind: NamespaceKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superclass: Option<String>,
    /// `[first, last]`.
    pub line_range: [u32; 2],
}

#[derive(Debug, Serialize)]
pub struct MethodSymbol {
    /// `Class#name` or `Class.name`.
    pub id: String,
    pub name: String,
    /// The owning class or module.
    pub class_name: String,
    /// `instance` or `singleton`.
    pub kind: MethodKind,
    /// `public`, `protected` or `private`.
    pub visibility: Visibility,
    /// `[def line, end line]`.
    pub line_range: [u32; 2],
    /// Defined at run time (inside a method body or an expression's block): listed because
    /// Ruby's parser lists it, never a wave item.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dynamic: bool,
}

/// Totals over all files.
#[derive(Debug, Serialize)]
pub struct SymbolsSummary {
    pub files: usize,
    /// Files with parse errors.
    pub files_with_errors: usize,
    /// Files not parsed.
    pub files_skipped: usize,
    /// Class and module statements.
    pub classes: usize,
    pub methods: usize,
}

/// Builds the answer for indexed files.
pub fn answer(facts: &[FileFacts], warnings: Vec<String>) -> Answer {
    let files: Vec<FileSymbols> = facts.iter().map(file_symbols).collect();
    let summary = SymbolsSummary {
        files: files.len(),
        files_with_errors: files.iter().filter(|f| f.parse == "error").count(),
        files_skipped: files.iter().filter(|f| f.parse == "skipped").count(),
        classes: files.iter().map(|f| f.classes.len()).sum(),
        methods: files.iter().map(|f| f.methods.len()).sum(),
    };
    let body = SymbolsAnswer {
        status: "success",
        files,
        summary,
        warnings,
    };
    let text = text(&body);
    Answer::new(&body, text, 0)
}

fn file_symbols(f: &FileFacts) -> FileSymbols {
    let parse = if f.skipped.is_some() {
        "skipped"
    } else if f.diagnostic_count > 0 {
        "error"
    } else {
        "ok"
    };
    FileSymbols {
        path: f.path.clone(),
        parse,
        reason: f.skipped.clone(),
        diagnostics: f.diagnostics.clone(),
        diagnostic_count: (f.diagnostic_count > f.diagnostics.len()).then_some(f.diagnostic_count),
        complexity: Counts {
            loc: f.loc,
            methods: f.methods.len(),
        },
        classes: f
            .classes
            .iter()
            .map(|c| ClassSymbol {
                name: c.name.clone(),
                kind: c.kind,
                superclass: c.superclass.clone(),
                line_range: [c.line_range.0, c.line_range.1],
            })
            .collect(),
        methods: f
            .methods
            .iter()
            .map(|m| MethodSymbol {
                id: m.id(),
                name: m.name.clone(),
                class_name: m.owner.clone(),
                kind: m.kind,
                visibility: m.visibility,
                line_range: [m.line_range.0, m.line_range.1],
                dynamic: m.dynamic,
            })
            .collect(),
    }
}

fn text(body: &SymbolsAnswer) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for f in &body.files {
        let _ = writeln!(
            out,
            "{}  ({} loc, {} methods)",
            f.path, f.complexity.loc, f.complexity.methods
        );
        if let Some(reason) = &f.reason {
            let _ = writeln!(out, "  skipped: {reason}");
        }
        for d in &f.diagnostics {
            let _ = writeln!(out, "  line {}: {}", d.line, d.message);
        }
        for c in &f.classes {
            let kind = match c.kind {
                NamespaceKind::Class => "class",
                NamespaceKind::Module => "module",
            };
            let sup = c
                .superclass
                .as_ref()
                .map(|s| format!(" < {s}"))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {kind} {}{sup}  {}-{}",
                c.name, c.line_range[0], c.line_range[1]
            );
        }
        let width = f.methods.iter().map(|m| m.id.len()).max().unwrap_or(0);
        for m in &f.methods {
            let vis = match m.visibility {
                Visibility::Public => "public",
                Visibility::Protected => "protected",
                Visibility::Private => "private",
            };
            let _ = writeln!(
                out,
                "    {:<width$}  {:<9}  {}-{}",
                m.id, vis, m.line_range[0], m.line_range[1]
            );
        }
    }
    let s = &body.summary;
    let _ = writeln!(
        out,
        "{}, {} classes/modules, {} ({} with parse errors, {} skipped)",
        super::plural(s.files, "file"),
        s.classes,
        super::plural(s.methods, "method"),
        s.files_with_errors,
        s.files_skipped
    );
    for w in &body.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}
