//! Patching a spec file with generated method blocks (contract §4.12, the pipeline's
//! `method_block_patcher`): insert a method's `describe` block, or replace the body of the
//! existing one, leaving every other byte of the file as it was.
//!
//! Blocks are found with Ruby's parser ([`super::source`]), so modifier `if`, lambdas,
//! heredocs and `{ }` blocks cannot shift a block's end. Inserted and replacing lines are
//! re-indented to the block they land in (the generated text assumes `RSpec.describe` at
//! column 0, where nothing changes).

use std::collections::BTreeMap;

use super::source::{self, MethodBlock, SpecText};

/// How a method block is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchMode {
    /// Add the block; an existing one is a conflict.
    Insert,
    /// Replace the existing block's body; a missing one is an error.
    Replace,
    /// Replace when it exists, insert otherwise.
    Upsert,
}

/// What an insert does when the block already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// Fail.
    Error,
    /// Replace it.
    Overwrite,
    /// Leave it.
    Skip,
}

/// A generated method block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceBlock {
    /// `Class#name`.
    pub method_id: String,
    /// `#name` or `.name`.
    pub descriptor: String,
    /// From its `describe` line to its `end`, at two spaces of indentation; the second
    /// line is the `method_begin` marker and the one before last the `method_end` marker.
    pub lines: Vec<String>,
}

/// One applied operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// `Class#name`.
    pub method_id: String,
    /// `insert`, `replace` or `skip`.
    pub action: &'static str,
    /// `conflict_overwrite` or `conflict_skip`, when the action came from a conflict.
    pub reason: Option<&'static str>,
    /// `inserted`, `replaced` or `skipped`.
    pub status: &'static str,
}

/// Why a patch failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchError {
    /// An insert met an existing block under `Conflict::Error`.
    Conflict(String),
    /// Anything else (a block cannot be found, the file does not parse, ...).
    Apply(String),
}

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PatchError::Conflict(m) | PatchError::Apply(m) => f.write_str(m),
        }
    }
}

/// The request.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Insert, replace or upsert.
    pub mode: PatchMode,
    /// What an insert does with an existing block.
    pub conflict: Conflict,
    /// The methods to apply (all source blocks when empty), in this order.
    pub only: &'a [String],
    /// The class under test, to find `RSpec.describe {class_name}` for inserts.
    pub class_name: Option<&'a str>,
}

/// Applies `sources` to `text`. Every operation is decided before any is applied (so a
/// conflict changes nothing); blocks are found again after each one.
pub fn apply(
    text: &SpecText,
    sources: &[SourceBlock],
    request: Request<'_>,
) -> Result<(SpecText, Vec<Operation>), PatchError> {
    let selected: Vec<&str> = if request.only.is_empty() {
        sources.iter().map(|s| s.method_id.as_str()).collect()
    } else {
        request.only.iter().map(String::as_str).collect()
    };
    let missing: Vec<&str> = selected
        .iter()
        .filter(|id| !sources.iter().any(|s| s.method_id == **id))
        .copied()
        .collect();
    if !missing.is_empty() {
        return Err(PatchError::Apply(format!(
            "Requested method_id(s) not found in blocks input: {}",
            missing.join(", ")
        )));
    }
    let targets = target_blocks(text, sources)?;
    let mut decided = Vec::new();
    for id in &selected {
        decided.push(decide(id, targets.contains_key(*id), request)?);
    }
    let mut current = text.clone();
    let mut operations = Vec::new();
    // Where the next insert goes when the previous operation was an insert: right after
    // the block just inserted, which is then the last method block. Finding it again with
    // a parse of the whole spec per insert was quadratic for classes with thousands of
    // methods; the file is still parsed once at the end.
    let mut next_insert: Option<(usize, usize)> = None;
    for (id, op) in selected.iter().zip(decided) {
        let source = sources.iter().find(|s| s.method_id == *id).ok_or_else(|| {
            PatchError::Apply(format!(
                "Requested method_id(s) not found in blocks input: {id}"
            ))
        })?;
        match op.action {
            "insert" => {
                let (index, indent) = match next_insert {
                    Some(point) => point,
                    None => insertion_point(&current, sources, request.class_name)?,
                };
                let (patched, after) = insert_at(&current, source, index, indent);
                current = patched;
                next_insert = Some((after, indent));
            }
            "replace" => {
                next_insert = None;
                let targets = target_blocks(&current, sources)?;
                let target = targets.get(*id).ok_or_else(|| {
                    PatchError::Apply(format!("Missing target block for replace: method_id={id}"))
                })?;
                current = replace(&current, target, source)?;
            }
            _ => {}
        }
        operations.push(op);
    }
    if next_insert.is_some() {
        // The check each insert's parse used to make: the result still parses and its
        // blocks are found.
        target_blocks(&current, sources)?;
    }
    Ok((current, operations))
}

fn decide(id: &str, has_target: bool, request: Request<'_>) -> Result<Operation, PatchError> {
    let op = |action, reason, status| Operation {
        method_id: id.to_string(),
        action,
        reason,
        status,
    };
    match (request.mode, has_target) {
        (PatchMode::Insert | PatchMode::Upsert, false) => Ok(op("insert", None, "inserted")),
        (PatchMode::Insert, true) => match request.conflict {
            Conflict::Overwrite => Ok(op("replace", Some("conflict_overwrite"), "replaced")),
            Conflict::Skip => Ok(op("skip", Some("conflict_skip"), "skipped")),
            Conflict::Error => Err(PatchError::Conflict(format!(
                "target spec already contains method_id={id}"
            ))),
        },
        (PatchMode::Replace, false) => Err(PatchError::Apply(format!(
            "Missing target block for replace: method_id={id}"
        ))),
        (PatchMode::Replace | PatchMode::Upsert, true) => Ok(op("replace", None, "replaced")),
    }
}

/// The method blocks already in the spec: marker blocks of any method, plus `describe`
/// blocks of the source methods; markers win.
fn target_blocks(
    text: &SpecText,
    sources: &[SourceBlock],
) -> Result<BTreeMap<String, MethodBlock>, PatchError> {
    let blocks = source::parse(text).map_err(PatchError::Apply)?;
    let wanted: Vec<(String, String)> = sources
        .iter()
        .map(|s| (s.method_id.clone(), s.descriptor.clone()))
        .collect();
    let mut targets = BTreeMap::new();
    for b in source::describe_blocks(&blocks, &wanted).map_err(PatchError::Apply)? {
        targets.insert(b.method_id.clone(), b);
    }
    for b in source::marker_blocks(text, &blocks).map_err(PatchError::Apply)? {
        targets.insert(b.method_id.clone(), b);
    }
    Ok(targets)
}

/// Re-indents generated lines by `delta` columns (blank lines stay empty).
fn shift(lines: &[String], delta: isize, crlf: bool) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            let mut out = if line.is_empty() {
                String::new()
            } else if delta >= 0 {
                format!("{}{line}", " ".repeat(delta.unsigned_abs()))
            } else {
                let cut = delta.unsigned_abs().min(source::indent_of(line));
                line.get(cut..).unwrap_or_default().to_string()
            };
            if crlf {
                out.push('\r');
            }
            out
        })
        .collect()
}

fn delta(target_indent: usize) -> isize {
    isize::try_from(target_indent).unwrap_or(0) - 2
}

/// Inserts `source` (after a blank line) before 0-based line `index`, its `describe` at
/// `indent`. Returns the text and the line after the inserted block's `end`.
fn insert_at(
    text: &SpecText,
    source: &SourceBlock,
    index: usize,
    indent: usize,
) -> (SpecText, usize) {
    let mut block = vec![String::new()];
    block.extend(source.lines.iter().cloned());
    let block = shift(&block, delta(indent), text.crlf());
    let mut lines = text.lines.clone();
    let at = index.min(lines.len());
    let after = at + block.len();
    lines.splice(at..at, block);
    (
        SpecText {
            bom: text.bom,
            lines,
        },
        after,
    )
}

/// Where an inserted block goes (a 0-based line index to insert before) and the
/// indentation of its `describe` line: after the last method block; else before the end
/// of `RSpec.describe {class_name}`, else of any `RSpec.describe`; else before the last
/// `end` line.
fn insertion_point(
    text: &SpecText,
    sources: &[SourceBlock],
    class_name: Option<&str>,
) -> Result<(usize, usize), PatchError> {
    let targets = target_blocks(text, sources)?;
    if let Some(last) = targets.values().max_by_key(|b| b.close) {
        return Ok((last.close + 1, last.indent));
    }
    let blocks = source::parse(text).map_err(PatchError::Apply)?;
    let rspec: Vec<&crate::index::spec_blocks::SpecCall> = blocks
        .calls
        .iter()
        .filter(|c| c.receiver.is_some() && c.name == "describe" && c.block.is_some())
        .collect();
    if let Some(class_name) = class_name.filter(|c| !super::ruby::blank(c)) {
        let named: Vec<&&crate::index::spec_blocks::SpecCall> = rspec
            .iter()
            .filter(|c| {
                c.arg.as_ref().is_some_and(|a| {
                    a.kind == crate::index::spec_blocks::ArgKind::Constant
                        && a.value.as_deref() == Some(class_name)
                })
            })
            .collect();
        match named.as_slice() {
            [] => {}
            [call] => return Ok(close_of(call)),
            _ => {
                return Err(PatchError::Apply(format!(
                    "Multiple RSpec.describe blocks found for class_name={class_name}"
                )))
            }
        }
    }
    if let Some(call) = rspec.first() {
        return Ok(close_of(call));
    }
    let last_end = text
        .lines
        .iter()
        .rposition(|l| l.trim() == "end")
        .ok_or_else(|| {
            PatchError::Apply("Cannot find insertion point: no 'end' found".to_string())
        })?;
    Ok((last_end, source::indent_of(text.line(last_end)) + 2))
}

fn close_of(call: &crate::index::spec_blocks::SpecCall) -> (usize, usize) {
    let close = call
        .block
        .map_or(call.end_line, |b| b.close_line)
        .saturating_sub(1);
    (
        usize::try_from(close).unwrap_or(0),
        usize::try_from(call.indent).unwrap_or(0) + 2,
    )
}

fn replace(
    text: &SpecText,
    target: &MethodBlock,
    source: &SourceBlock,
) -> Result<SpecText, PatchError> {
    let blocks = source::parse(text).map_err(PatchError::Apply)?;
    let shares_line = blocks
        .calls
        .get(target.call)
        .and_then(|c| c.block)
        .is_some_and(|b| {
            b.body.is_some_and(|(start, _)| start == b.open_line)
                || text
                    .line(usize::try_from(b.close_line).unwrap_or(1).saturating_sub(1))
                    .get(..usize::try_from(b.close_column).unwrap_or(0))
                    .is_some_and(|before| !before.trim().is_empty())
        });
    if target.body_open >= target.close || shares_line {
        return Err(PatchError::Apply(format!(
            "Cannot replace the block of {} at line {}: its body shares a line with its describe or its end",
            target.method_id,
            target.open + 1
        )));
    }
    // The source body: from the method_begin marker through the method_end marker.
    let body_len = source.lines.len().saturating_sub(2);
    let body: Vec<String> = source
        .lines
        .iter()
        .skip(1)
        .take(body_len)
        .cloned()
        .collect();
    let body = shift(&body, delta(target.indent), text.crlf());
    let mut lines = text.lines.clone();
    lines.splice(target.body_open + 1..target.close, body);
    Ok(SpecText {
        bom: text.bom,
        lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source_block(id: &str, descriptor: &str) -> SourceBlock {
        SourceBlock {
            method_id: id.to_string(),
            descriptor: descriptor.to_string(),
            lines: vec![
                format!("  describe '{descriptor}' do"),
                format!(
                    "    # rspec-testing:method_begin method=\"{descriptor}\" method_id=\"{id}\""
                ),
                "    it 'works' do".to_string(),
                "      {EXPECTATION}".to_string(),
                "    end".to_string(),
                format!(
                    "    # rspec-testing:method_end method=\"{descriptor}\" method_id=\"{id}\""
                ),
                "  end".to_string(),
            ],
        }
    }

    fn run(
        spec: &str,
        sources: &[SourceBlock],
        mode: PatchMode,
        conflict: Conflict,
    ) -> Result<(String, Vec<String>), PatchError> {
        let (text, ops) = apply(
            &SpecText::from_text(spec),
            sources,
            Request {
                mode,
                conflict,
                only: &[],
                class_name: Some("A"),
            },
        )?;
        let ops = ops
            .iter()
            .map(|o| format!("{} {} {:?} {}", o.method_id, o.action, o.reason, o.status))
            .collect();
        Ok((String::from_utf8(text.to_bytes()).unwrap(), ops))
    }

    const WRAPPER: &str =
        "# frozen_string_literal: true\n\nrequire 'spec_helper'\n\nRSpec.describe A do\nend\n";

    #[test]
    fn insert_into_the_wrapper_before_its_end() {
        let (out, ops) = run(
            WRAPPER,
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
        )
        .unwrap();
        assert_eq!(
            out,
            "# frozen_string_literal: true\n\nrequire 'spec_helper'\n\nRSpec.describe A do\n\n  describe '#a' do\n    # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\n    it 'works' do\n      {EXPECTATION}\n    end\n    # rspec-testing:method_end method=\"#a\" method_id=\"A#a\"\n  end\nend\n"
        );
        assert_eq!(ops, ["A#a insert None inserted"]);
    }

    #[test]
    fn second_insert_goes_after_the_last_method_block() {
        let (once, _) = run(
            WRAPPER,
            &[source_block("A#a", "#a")],
            PatchMode::Insert,
            Conflict::Error,
        )
        .unwrap();
        let (twice, ops) = run(
            &once,
            &[source_block("A#a", "#a"), source_block("A.b", ".b")],
            PatchMode::Insert,
            Conflict::Skip,
        )
        .unwrap();
        assert_eq!(
            ops,
            [
                "A#a skip Some(\"conflict_skip\") skipped",
                "A.b insert None inserted"
            ]
        );
        assert_eq!(
            twice,
            format!(
                "{}\n  describe '.b' do\n    # rspec-testing:method_begin method=\".b\" method_id=\"A.b\"\n    it 'works' do\n      {{EXPECTATION}}\n    end\n    # rspec-testing:method_end method=\".b\" method_id=\"A.b\"\n  end\nend\n",
                once.strip_suffix("end\n").unwrap()
            )
        );
    }

    #[test]
    fn replace_keeps_the_describe_line_and_end_and_reindents_nested_blocks() {
        let spec = "module Billing\n  RSpec.describe A do\n    describe('#a', :focus) do # hand-written\n      it('old') { expect(1).to eq(1) if true }\n      let(:f) { -> { 1 } }\n    end # keep me\n  end\nend\n";
        let (out, ops) = run(
            spec,
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
        )
        .unwrap();
        assert_eq!(ops, ["A#a replace None replaced"]);
        assert_eq!(
            out,
            "module Billing\n  RSpec.describe A do\n    describe('#a', :focus) do # hand-written\n      # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\n      it 'works' do\n        {EXPECTATION}\n      end\n      # rspec-testing:method_end method=\"#a\" method_id=\"A#a\"\n    end # keep me\n  end\nend\n"
        );
    }

    #[test]
    fn conflicts_and_missing_targets() {
        let (once, _) = run(
            WRAPPER,
            &[source_block("A#a", "#a")],
            PatchMode::Insert,
            Conflict::Error,
        )
        .unwrap();
        assert_eq!(
            run(
                &once,
                &[source_block("A#a", "#a")],
                PatchMode::Insert,
                Conflict::Error
            )
            .unwrap_err(),
            PatchError::Conflict("target spec already contains method_id=A#a".to_string())
        );
        let (over, ops) = run(
            &once,
            &[source_block("A#a", "#a")],
            PatchMode::Insert,
            Conflict::Overwrite,
        )
        .unwrap();
        assert_eq!(over, once);
        assert_eq!(ops, ["A#a replace Some(\"conflict_overwrite\") replaced"]);
        assert_eq!(
            run(
                WRAPPER,
                &[source_block("A#a", "#a")],
                PatchMode::Replace,
                Conflict::Error
            )
            .unwrap_err(),
            PatchError::Apply("Missing target block for replace: method_id=A#a".to_string())
        );
        assert_eq!(
            run(
                "x = 1\n",
                &[source_block("A#a", "#a")],
                PatchMode::Insert,
                Conflict::Error
            )
            .unwrap_err(),
            PatchError::Apply("Cannot find insertion point: no 'end' found".to_string())
        );
    }

    #[test]
    fn one_line_blocks_are_not_replaced() {
        let err = run(
            "describe('#a') { it { } }\n",
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
        )
        .unwrap_err();
        assert_eq!(
            err,
            PatchError::Apply("Cannot replace the block of A#a at line 1: its body shares a line with its describe or its end".to_string())
        );
    }

    #[test]
    fn crlf_files_get_crlf_lines_and_no_final_newline_is_added() {
        let spec = "RSpec.describe A do\r\nend";
        let (out, _) = run(
            spec,
            &[source_block("A#a", "#a")],
            PatchMode::Insert,
            Conflict::Error,
        )
        .unwrap();
        assert_eq!(
            out,
            "RSpec.describe A do\r\n\r\n  describe '#a' do\r\n    # rspec-testing:method_begin method=\"#a\" method_id=\"A#a\"\r\n    it 'works' do\r\n      {EXPECTATION}\r\n    end\r\n    # rspec-testing:method_end method=\"#a\" method_id=\"A#a\"\r\n  end\r\nend"
        );
    }
}
