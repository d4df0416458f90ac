//! Patching a spec file with generated method blocks (contract §4.12, the pipeline's
//! `method_block_patcher`): insert a method's `describe` block, or replace the body of the
//! existing one, leaving every other byte of the file as it was.
//!
//! Blocks are found with Ruby's parser (`spec::source`), so modifier `if`, lambdas,
//! heredocs and `{ }` blocks cannot shift a block's end. Inserted and replacing lines are
//! re-indented to the block they land in (the generated text assumes `RSpec.describe` at
//! column 0, where nothing changes).
//!
//! A block the pipeline generated carries `method_begin`/`method_end` markers, and the
//! contract's upsert replaces it. A `describe '#name'` block without markers was written
//! by a person: whatever the mode, it is never replaced or removed unless the request says
//! so ([`Request::hand_written`]); the patcher's own rule, not only the caller's.

use std::collections::BTreeMap;

use crate::index::spec_blocks::{ArgKind, SpecBlocks, SpecCall};

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

/// What to do with a block that is already in the spec when the mode does not decide it
/// alone (an insert meeting a generated block; any mode meeting a hand-written block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// Fail (the caller asks the person first).
    Error,
    /// Replace it.
    Overwrite,
    /// Leave it, add nothing.
    Skip,
    /// Leave it and add the generated block right after it (hand-written blocks only).
    Beside,
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
    /// `conflict_overwrite`, `conflict_skip` or `conflict_beside` when the action came
    /// from a conflict with a generated block; `hand_written_overwrite`,
    /// `hand_written_skip` or `hand_written_beside` when it came from a hand-written one.
    pub reason: Option<&'static str>,
    /// `inserted`, `replaced` or `skipped`.
    pub status: &'static str,
}

/// Why a patch failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchError {
    /// A block exists and the request did not say what to do with it.
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
    /// What an insert does with an existing generated (marked) block.
    pub conflict: Conflict,
    /// What any mode does with an existing hand-written (unmarked) block.
    pub hand_written: Conflict,
    /// The methods to apply (all source blocks when empty), in this order.
    pub only: &'a [String],
    /// The class under test, to find `RSpec.describe {class_name}` for inserts.
    pub class_name: Option<&'a str>,
    /// The class is another class of the source file (a second or nested class): only a
    /// group that names it holds its blocks, else a new group of it is added; the file's
    /// own class falls back to the spec's first group.
    pub own_group: bool,
}

/// A method's block already in the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Existing {
    /// Generated: found through its `method_begin`/`method_end` markers.
    Marked(MethodBlock),
    /// Written by a person: `describe '#name'` blocks without markers, in file order
    /// (a hand-written spec may describe a method more than once).
    HandWritten(Vec<MethodBlock>),
}

impl Existing {
    /// How the block was found, in the words of the contract's `detected_by`.
    pub fn detected_by(&self) -> &'static str {
        match self {
            Existing::Marked(_) => "markers",
            Existing::HandWritten(_) => "describe",
        }
    }
}

/// The method blocks of `sources` already in the spec: marker blocks of any method, then
/// `describe` blocks without markers of the source methods that have no marker block.
/// A describe call that a marker block claims is never also a hand-written block, so a
/// generated block added beside a hand-written one is told apart from it.
pub fn existing_blocks(
    text: &SpecText,
    blocks: &SpecBlocks,
    wanted: &[(String, String)],
) -> Result<BTreeMap<String, Existing>, String> {
    let marked = source::marker_blocks(text, blocks)?;
    let claimed: Vec<usize> = marked.iter().map(|b| b.call).collect();
    let mut out: BTreeMap<String, Existing> = BTreeMap::new();
    let unmarked: Vec<(String, String)> = wanted
        .iter()
        .filter(|(id, _)| !marked.iter().any(|b| &b.method_id == id))
        .cloned()
        .collect();
    for b in source::describe_blocks(blocks, &unmarked, &claimed) {
        match out.get_mut(&b.method_id) {
            Some(Existing::HandWritten(list)) => list.push(b),
            _ => {
                out.insert(b.method_id.clone(), Existing::HandWritten(vec![b]));
            }
        }
    }
    for b in marked {
        out.insert(b.method_id.clone(), Existing::Marked(b));
    }
    Ok(out)
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
        decided.push(decide(id, targets.get(*id), request)?);
    }
    let mut current = text.clone();
    let mut operations = Vec::new();
    // Where the next insert goes when the previous operation was an insert: right after
    // the block just inserted, which is then the last method block. Finding it again with
    // a parse of the whole spec per insert was quadratic for classes with thousands of
    // methods; the file is still parsed once at the end.
    let mut next_insert: Option<(usize, usize)> = None;
    let mut inserted = false;
    for (id, (op, step)) in selected.iter().zip(decided) {
        let source = sources.iter().find(|s| s.method_id == *id).ok_or_else(|| {
            PatchError::Apply(format!(
                "Requested method_id(s) not found in blocks input: {id}"
            ))
        })?;
        match step {
            Step::Insert => {
                let (index, indent) = match next_insert {
                    Some(point) => point,
                    None => match insertion_point(
                        &current,
                        sources,
                        request.class_name,
                        request.own_group,
                    )? {
                        Point::At(index, indent) => (index, indent),
                        Point::NewGroup(class_name) => {
                            let (grouped, end) = append_group(&current, class_name);
                            current = grouped;
                            (end, 2)
                        }
                    },
                };
                let (patched, after) = insert_at(&current, source, index, indent);
                current = patched;
                next_insert = Some((after, indent));
                inserted = true;
            }
            Step::Beside => {
                // After the hand-written block(s), found again in the current text.
                let targets = target_blocks(&current, sources)?;
                let Some(Existing::HandWritten(list)) = targets.get(*id) else {
                    return Err(PatchError::Apply(format!(
                        "Missing hand-written block for method_id={id}"
                    )));
                };
                let last = list.iter().max_by_key(|b| b.close).ok_or_else(|| {
                    PatchError::Apply(format!("Missing hand-written block for method_id={id}"))
                })?;
                let (patched, _) = insert_at(&current, source, last.close + 1, last.indent);
                current = patched;
                next_insert = None;
                inserted = true;
            }
            Step::Replace => {
                next_insert = None;
                let targets = target_blocks(&current, sources)?;
                let target = match targets.get(*id) {
                    Some(Existing::Marked(b)) => b,
                    Some(Existing::HandWritten(list)) => match list.as_slice() {
                        [one] => one,
                        _ => {
                            return Err(PatchError::Apply(format!(
                                "Multiple describe blocks found for method_id={id} (descriptor={})",
                                source.descriptor
                            )))
                        }
                    },
                    None => {
                        return Err(PatchError::Apply(format!(
                            "Missing target block for replace: method_id={id}"
                        )))
                    }
                };
                current = replace(&current, target, source)?;
            }
            Step::Skip => {}
        }
        operations.push(op);
    }
    if inserted {
        // The check each insert's parse used to make: the result still parses and its
        // blocks are found.
        target_blocks(&current, sources)?;
    }
    Ok((current, operations))
}

/// What is done to the text for one method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Insert,
    Beside,
    Replace,
    Skip,
}

fn decide(
    id: &str,
    existing: Option<&Existing>,
    request: Request<'_>,
) -> Result<(Operation, Step), PatchError> {
    let op = |action, reason, status, step| {
        (
            Operation {
                method_id: id.to_string(),
                action,
                reason,
                status,
            },
            step,
        )
    };
    match (request.mode, existing) {
        (PatchMode::Insert | PatchMode::Upsert, None) => {
            Ok(op("insert", None, "inserted", Step::Insert))
        }
        (PatchMode::Replace, None) => Err(PatchError::Apply(format!(
            "Missing target block for replace: method_id={id}"
        ))),
        (PatchMode::Insert, Some(Existing::Marked(_))) => match request.conflict {
            Conflict::Overwrite => Ok(op(
                "replace",
                Some("conflict_overwrite"),
                "replaced",
                Step::Replace,
            )),
            Conflict::Skip => Ok(op("skip", Some("conflict_skip"), "skipped", Step::Skip)),
            Conflict::Error | Conflict::Beside => Err(PatchError::Conflict(format!(
                "target spec already contains method_id={id}"
            ))),
        },
        (PatchMode::Replace | PatchMode::Upsert, Some(Existing::Marked(_))) => {
            Ok(op("replace", None, "replaced", Step::Replace))
        }
        (_, Some(Existing::HandWritten(list))) => match request.hand_written {
            Conflict::Overwrite => Ok(op(
                "replace",
                Some("hand_written_overwrite"),
                "replaced",
                Step::Replace,
            )),
            Conflict::Skip => Ok(op(
                "skip",
                Some("hand_written_skip"),
                "skipped",
                Step::Skip,
            )),
            Conflict::Beside => Ok(op(
                "insert",
                Some("hand_written_beside"),
                "inserted",
                Step::Beside,
            )),
            Conflict::Error => Err(PatchError::Conflict(format!(
                "target spec has a hand-written block for method_id={id} (line {}, no rspec-testing markers): keep it and add the generated block beside it, overwrite it, or skip the method",
                list.first().map_or(0, |b| b.open + 1)
            ))),
        },
    }
}

/// The method blocks of the source methods already in the spec.
fn target_blocks(
    text: &SpecText,
    sources: &[SourceBlock],
) -> Result<BTreeMap<String, Existing>, PatchError> {
    let blocks = source::parse(text).map_err(PatchError::Apply)?;
    let wanted: Vec<(String, String)> = sources
        .iter()
        .map(|s| (s.method_id.clone(), s.descriptor.clone()))
        .collect();
    existing_blocks(text, &blocks, &wanted).map_err(PatchError::Apply)
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

/// Where an inserted block goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Point<'a> {
    /// Before this 0-based line, its `describe` at this indentation.
    At(usize, usize),
    /// The file has no example group: in a new `RSpec.describe` of this class at its end.
    NewGroup(&'a str),
}

/// Where an inserted block goes: after the last method block directly inside the class's
/// example group; else before the end of that group; else, in a file without any group
/// (a spec whose examples were all removed or commented out), in a new group of the class
/// at the end of the file, never before some `end` that may close a module, a heredoc or
/// lie in a comment; without a class name, before the last `end` line.
fn insertion_point<'a>(
    text: &SpecText,
    sources: &[SourceBlock],
    class_name: Option<&'a str>,
    own_group: bool,
) -> Result<Point<'a>, PatchError> {
    let blocks = source::parse(text).map_err(PatchError::Apply)?;
    let wanted: Vec<(String, String)> = sources
        .iter()
        .map(|s| (s.method_id.clone(), s.descriptor.clone()))
        .collect();
    let targets = existing_blocks(text, &blocks, &wanted).map_err(PatchError::Apply)?;
    let group = class_group(&blocks, class_name, own_group)?;
    if own_group && group.is_none() {
        if let Some(class_name) = class_name.filter(|c| !crate::ruby::blank(c)) {
            return Ok(Point::NewGroup(class_name));
        }
    }
    let last = targets
        .values()
        .flat_map(|e| match e {
            Existing::Marked(b) => std::slice::from_ref(b),
            Existing::HandWritten(list) => list.as_slice(),
        })
        .filter(|b| match group {
            Some(g) => blocks.calls.get(b.call).and_then(|c| c.parent) == Some(g),
            None => true,
        })
        .max_by_key(|b| b.close);
    if let Some(last) = last {
        return Ok(Point::At(last.close + 1, last.indent));
    }
    if let Some(call) = group.and_then(|g| blocks.calls.get(g)) {
        let (index, indent) = close_of(call);
        return Ok(Point::At(index, indent));
    }
    if let Some(class_name) = class_name.filter(|c| !crate::ruby::blank(c)) {
        return Ok(Point::NewGroup(class_name));
    }
    let last_end = text
        .lines
        .iter()
        .rposition(|l| l.trim() == "end")
        .ok_or_else(|| {
            PatchError::Apply("Cannot find insertion point: no 'end' found".to_string())
        })?;
    Ok(Point::At(
        last_end,
        source::indent_of(text.line(last_end)) + 2,
    ))
}

/// Appends an empty `RSpec.describe {class_name} do`/`end` group to the text, after a
/// blank line (none at the start of an empty file), keeping the file's final newline or
/// its absence. Returns the text and the index of the group's `end` line.
fn append_group(text: &SpecText, class_name: &str) -> (SpecText, usize) {
    let mut lines = text.lines.clone();
    let cr = if text.crlf() { "\r" } else { "" };
    let final_newline = lines.last().is_some_and(String::is_empty);
    let at = if final_newline {
        lines.len() - 1
    } else {
        // The last line gets the line ending it did not need as the last one.
        if let Some(last) = lines.last_mut() {
            last.push_str(cr);
        }
        lines.len()
    };
    let mut group = Vec::new();
    if lines
        .get(..at)
        .is_some_and(|before| before.iter().any(|l| !l.trim().is_empty()))
    {
        group.push(cr.to_string());
    }
    group.push(format!("RSpec.describe {class_name} do{cr}"));
    let end = at + group.len();
    group.push(if final_newline {
        format!("end{cr}")
    } else {
        "end".to_string()
    });
    lines.splice(at..at, group);
    (
        SpecText {
            bom: text.bom,
            lines,
        },
        end,
    )
}

/// The example group of the class under test: among the top-level `describe` blocks
/// (`RSpec.describe Foo`, `describe Foo` outside any group, inside modules too, with
/// metadata such as `type: :model`), the one naming the class (`Foo::Bar`, or `Bar`
/// inside `module Foo`, or the string `"Foo::Bar"`); else the first `RSpec.describe`,
/// else the first top-level `describe`.
fn class_group(
    blocks: &SpecBlocks,
    class_name: Option<&str>,
    exact: bool,
) -> Result<Option<usize>, PatchError> {
    let top: Vec<(usize, &SpecCall)> = blocks
        .calls
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            c.name == "describe"
                && c.block.is_some()
                && (c.receiver.is_some() || c.parent.is_none())
        })
        .collect();
    if let Some(class_name) = class_name.filter(|c| !crate::ruby::blank(c)) {
        let named: Vec<usize> = top
            .iter()
            .filter(|(_, c)| c.arg.as_ref().is_some_and(|a| names_class(a, class_name)))
            .map(|(i, _)| *i)
            .collect();
        match named.as_slice() {
            [] => {}
            [one] => return Ok(Some(*one)),
            _ => {
                return Err(PatchError::Apply(format!(
                    "Multiple RSpec.describe blocks found for class_name={class_name}"
                )))
            }
        }
    }
    if exact {
        return Ok(None);
    }
    Ok(top
        .iter()
        .find(|(_, c)| c.receiver.is_some())
        .or_else(|| top.first())
        .map(|(i, _)| *i))
}

/// Whether a describe argument names `class_name`.
fn names_class(arg: &crate::index::spec_blocks::CallArg, class_name: &str) -> bool {
    let Some(value) = arg.value.as_deref() else {
        return false;
    };
    match arg.kind {
        ArgKind::Constant => {
            let value = value.trim_start_matches("::");
            let class_name = class_name.trim_start_matches("::");
            value == class_name
                || class_name
                    .strip_suffix(value)
                    .is_some_and(|prefix| prefix.ends_with("::"))
        }
        ArgKind::String => value == class_name,
        ArgKind::Other => false,
    }
}

fn close_of(call: &SpecCall) -> (usize, usize) {
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
        run_with(spec, sources, mode, conflict, Conflict::Error)
    }

    fn run_with(
        spec: &str,
        sources: &[SourceBlock],
        mode: PatchMode,
        conflict: Conflict,
        hand_written: Conflict,
    ) -> Result<(String, Vec<String>), PatchError> {
        let (text, ops) = apply(
            &SpecText::from_text(spec),
            sources,
            Request {
                mode,
                conflict,
                hand_written,
                only: &[],
                class_name: Some("A"),
                own_group: false,
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
        let (out, ops) = run_with(
            spec,
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
            Conflict::Overwrite,
        )
        .unwrap();
        assert_eq!(
            ops,
            ["A#a replace Some(\"hand_written_overwrite\") replaced"]
        );
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
        let no_class = apply(
            &SpecText::from_text("x = 1\n"),
            &[source_block("A#a", "#a")],
            Request {
                mode: PatchMode::Insert,
                conflict: Conflict::Error,
                hand_written: Conflict::Error,
                only: &[],
                class_name: None,
                own_group: false,
            },
        );
        assert_eq!(
            no_class.unwrap_err(),
            PatchError::Apply("Cannot find insertion point: no 'end' found".to_string())
        );
    }

    /// Regression (human-essentials' admins_controller_spec.rb, whose whole body is inside
    /// `=begin`/`=end`): the insert went before the last `end` line, inside the comment,
    /// and the patch failed. A file without any example group gets a new group of the
    /// class at its end; every byte before it stays.
    #[test]
    fn a_file_without_any_group_gets_a_new_group_at_its_end() {
        let block = source_block("A#a", "#a").lines.join("\n");
        let check = |spec: &str, expected: String| {
            let (out, ops) = run(
                spec,
                &[source_block("A#a", "#a"), source_block("A#b", "#b")],
                PatchMode::Insert,
                Conflict::Error,
            )
            .unwrap();
            assert_eq!(ops.len(), 2);
            assert_eq!(out, expected);
            assert!(out.starts_with(spec.trim_end_matches(['\r', '\n'])));
        };
        let both = format!("{block}\n\n{}", source_block("A#b", "#b").lines.join("\n"));
        let commented =
            "require \"rails_helper\"\n\n=begin\nRSpec.describe A do\n  it { }\nend\n=end\n";
        check(
            commented,
            format!("{commented}\nRSpec.describe A do\n\n{both}\nend\n"),
        );
        check("", format!("RSpec.describe A do\n\n{both}\nend\n"));
        check(
            "module Helpers\n  module_function\nend",
            format!("module Helpers\n  module_function\nend\n\nRSpec.describe A do\n\n{both}\nend"),
        );
        check(
            "x = 1\r\ny = 2",
            format!(
                "x = 1\r\ny = 2\r\n\r\nRSpec.describe A do\r\n\r\n{}\r\nend",
                both.replace('\n', "\r\n")
            ),
        );
    }

    #[test]
    fn one_line_blocks_are_not_replaced() {
        let err = run_with(
            "describe('#a') { it { } }\n",
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
            Conflict::Overwrite,
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

    /// Lobsters-shaped: a hand-written `describe "#generate"` with two examples, inside
    /// `RSpec.describe StoryImage, type: :model`.
    const PERSON: &str = "require \"rails_helper\"\n\nRSpec.describe A, type: :model do\n  describe \"#a\" do\n    let(:story) { create(:story) }\n\n    it \"handles download failures\" do\n      expect { story.a }.not_to change { story.exists? }\n    end\n\n    it \"skips large images\" do\n      expect(story.a).to be_nil\n    end\n  end\nend\n";

    /// Every line of `before` is in `after`, in order.
    fn keeps_every_line(before: &str, after: &str) -> bool {
        let mut rest = after.lines();
        before.lines().all(|line| rest.any(|l| l == line))
    }

    #[test]
    fn a_hand_written_block_is_never_replaced_without_a_choice_in_any_mode() {
        for mode in [PatchMode::Insert, PatchMode::Upsert, PatchMode::Replace] {
            for conflict in [Conflict::Error, Conflict::Overwrite, Conflict::Skip] {
                let err = run(PERSON, &[source_block("A#a", "#a")], mode, conflict).unwrap_err();
                assert_eq!(
                    err,
                    PatchError::Conflict("target spec has a hand-written block for method_id=A#a (line 4, no rspec-testing markers): keep it and add the generated block beside it, overwrite it, or skip the method".to_string()),
                    "{mode:?} {conflict:?}"
                );
            }
        }
    }

    #[test]
    fn beside_keeps_the_hand_written_block_and_adds_the_generated_one_after_it() {
        let (out, ops) = run_with(
            PERSON,
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
            Conflict::Beside,
        )
        .unwrap();
        assert_eq!(ops, ["A#a insert Some(\"hand_written_beside\") inserted"]);
        let generated = source_block("A#a", "#a").lines.join("\n");
        assert_eq!(
            out,
            PERSON.replace("  end\nend\n", &format!("  end\n\n{generated}\nend\n"))
        );
        assert!(keeps_every_line(PERSON, &out));

        // The next run finds the generated block by its markers and replaces only it;
        // the hand-written block beside it is neither a conflict nor touched.
        let (again, ops) = run(
            &out,
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
        )
        .unwrap();
        assert_eq!(ops, ["A#a replace None replaced"]);
        assert_eq!(again, out);
    }

    #[test]
    fn skip_and_overwrite_of_a_hand_written_block() {
        let (out, ops) = run_with(
            PERSON,
            &[source_block("A#a", "#a")],
            PatchMode::Insert,
            Conflict::Error,
            Conflict::Skip,
        )
        .unwrap();
        assert_eq!(ops, ["A#a skip Some(\"hand_written_skip\") skipped"]);
        assert_eq!(out, PERSON);
        let (out, _) = run_with(
            PERSON,
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
            Conflict::Overwrite,
        )
        .unwrap();
        assert!(!out.contains("skips large images"));
        assert!(out.contains("rspec-testing:method_begin"));
    }

    #[test]
    fn a_method_described_twice_by_hand_can_be_kept_but_not_overwritten() {
        let spec = "describe A do\n  context 'admin' do\n    describe '#a' do\n      it { }\n    end\n  end\n  context 'guest' do\n    describe '#a' do\n      it { }\n    end\n  end\nend\n";
        let err = run_with(
            spec,
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
            Conflict::Overwrite,
        )
        .unwrap_err();
        assert_eq!(
            err,
            PatchError::Apply(
                "Multiple describe blocks found for method_id=A#a (descriptor=#a)".to_string()
            )
        );
        let (out, _) = run_with(
            spec,
            &[source_block("A#a", "#a")],
            PatchMode::Upsert,
            Conflict::Error,
            Conflict::Beside,
        )
        .unwrap();
        // After the last of them, at its indentation.
        assert!(
            out.contains(
                "      it { }\n    end\n\n    describe '#a' do\n      # rspec-testing:method_begin"
            ),
            "{out}"
        );
        assert!(keeps_every_line(spec, &out));
    }

    #[test]
    fn inserts_land_in_the_class_group_whatever_its_form() {
        let check = |spec: &str, expected_tail: &str| {
            let (out, _) = run(
                spec,
                &[source_block("A#b", "#b")],
                PatchMode::Insert,
                Conflict::Error,
            )
            .unwrap();
            assert!(out.ends_with(expected_tail), "{out}");
            assert!(keeps_every_line(spec, &out));
            assert!(source::parse(&SpecText::from_text(&out)).is_ok());
        };
        let block = source_block("A#b", "#b").lines.join("\n");
        let indented = shift(&source_block("A#b", "#b").lines, 2, false).join("\n");
        // A bare `describe A do` after a helper module using module_function.
        check(
            "module Helpers\n  module_function\n\n  def build\n  end\nend\n\ndescribe A do\n  it { }\nend\n",
            &format!("  it {{ }}\n\n{block}\nend\n"),
        );
        // `RSpec.describe A, type: :model` after another group.
        check(
            "RSpec.describe B do\nend\n\nRSpec.describe A, type: :model do\n  it { }\nend\n",
            &format!("  it {{ }}\n\n{block}\nend\n"),
        );
        // Inside a module, at its indentation.
        check(
            "module Billing\n  RSpec.describe Billing::A do\n    it { }\n  end\nend\n",
            &format!("    it {{ }}\n\n{indented}\n  end\nend\n"),
        );
    }

    #[test]
    fn a_describe_argument_names_the_class_by_its_path_or_last_segments() {
        let arg = |kind, value: &str| crate::index::spec_blocks::CallArg {
            kind,
            value: Some(value.to_string()),
            source: value.to_string(),
            span: (0, 0),
        };
        assert!(names_class(
            &arg(ArgKind::Constant, "Billing::Invoice"),
            "Billing::Invoice"
        ));
        assert!(names_class(
            &arg(ArgKind::Constant, "::Billing::Invoice"),
            "Billing::Invoice"
        ));
        assert!(names_class(
            &arg(ArgKind::Constant, "Invoice"),
            "Billing::Invoice"
        ));
        assert!(!names_class(
            &arg(ArgKind::Constant, "Voice"),
            "Billing::Invoice"
        ));
        assert!(!names_class(
            &arg(ArgKind::Constant, "Billing"),
            "Billing::Invoice"
        ));
        assert!(names_class(
            &arg(ArgKind::String, "Billing::Invoice"),
            "Billing::Invoice"
        ));
        assert!(!names_class(
            &arg(ArgKind::Other, "Billing::Invoice"),
            "Billing::Invoice"
        ));
    }
}
