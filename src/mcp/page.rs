//! Large answers in pages: an agent reads an answer into a limited context, so an answer
//! over the call's budget (`max_bytes`, default [`PAGE_BYTES`]) comes back as its first
//! page with a `page` object saying where it stands and the `next_cursor` that continues
//! it. Pages are cut from the answer the call made (a snapshot the server keeps, one per
//! tool), so following the cursors gives every part once, even if the project changes in
//! between. No page is over the budget.
//!
//! Every answer but `discover`'s is cut by [`cut`]: the first page is the answer with its
//! lists and long texts cut short; each next page holds only what continues (the next
//! elements of the lists, the rest of the texts), with `status` and its own `page`. An
//! element too large for a page (a file of 2,000 methods) is itself cut: its next part
//! starts the next page's list with `"continued": true`. [`join`] puts pages back together:
//! the answer the command line gives in one piece.
//!
//! `discover` keeps its shape on every page: `method_waves` holds the page's items, and
//! `files`, `slugs` and `dependency_graph` what those items need; files without methods
//! come after the last item; `waves` gives an overview of every wave, so `wave` and `file`
//! can narrow the next call; warnings come once, on the first pages.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// Answers larger than this (compact JSON) are paged: about 12k tokens, within what agent
/// harnesses accept from one tool call (Claude Code's default limit is 25k tokens).
pub const PAGE_BYTES: usize = 48 * 1024;

/// The smallest page a call may ask for (`max_bytes`): room for a page's frame.
pub const MIN_PAGE_BYTES: usize = 1024;

/// What narrows a `discover` answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Narrow {
    /// Only this wave.
    pub wave: Option<u64>,
    /// Only this file, or the files under this folder.
    pub file: Option<String>,
}

impl Narrow {
    fn is_empty(&self) -> bool {
        self.wave.is_none() && self.file.is_none()
    }
}

/// The full answer of one call, kept for its cursors.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Names the snapshot in cursors.
    pub id: u64,
    /// The whole answer (`discover`'s, paged by offset into its items).
    pub answer: Value,
    /// The narrowing the call asked for.
    pub narrow: Narrow,
    /// The pages of any other answer, cut once by [`cut`].
    pub pages: Vec<Value>,
    /// The budget the pages were cut to.
    pub budget: usize,
    /// How the answer is paged.
    pub list: ListOf,
}

/// `"{snapshot}:{offset}"`.
pub fn cursor(id: u64, offset: usize) -> String {
    format!("{id}:{offset}")
}

/// The snapshot id and offset of a cursor.
pub fn parse_cursor(text: &str) -> Result<(u64, usize)> {
    let bad = || Error::Usage {
        message: format!("cursor {text:?} is not one this server gave"),
    };
    let (id, offset) = text.split_once(':').ok_or_else(bad)?;
    Ok((
        id.parse().map_err(|_| bad())?,
        offset.parse().map_err(|_| bad())?,
    ))
}

/// The page of `snapshot` at `offset`: the answer itself when it is small and nothing
/// narrows it.
pub fn page(snapshot: &Snapshot, list: ListOf, offset: usize) -> Value {
    match list {
        ListOf::Discover => discover_page(snapshot, offset, snapshot.budget),
        ListOf::Cut => snapshot.pages.get(offset).cloned().unwrap_or(Value::Null),
    }
}

/// Which list of an answer is paged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOf {
    /// `discover`'s waves.
    Discover,
    /// Pages from [`cut`].
    Cut,
}

/// Whether an answer must be paged (or narrowed) rather than given whole.
pub fn needs_paging(answer: &Value, narrow: &Narrow, offset: usize, budget: usize) -> bool {
    offset > 0 || !narrow.is_empty() || size(answer) > budget
}

fn size(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// One step of a path into an answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Step {
    Key(String),
    Index(usize),
}

/// A leaf of the answer at its path: a scalar, an empty list or object, one element of a
/// list small enough to move whole, or a run of lines of a long text.
#[derive(Debug, Clone)]
struct Atom {
    path: Vec<Step>,
    value: Value,
    /// The serialized size, with room for the keys that lead to it.
    size: usize,
}

/// Room kept on a page for its `page` (number, count, next cursor).
const PAGE_ROOM: usize = 120;

/// The parts of a text at most this long stay whole.
const TEXT_PART: usize = 4 * 1024;

/// Cuts `answer` into pages of at most `budget` bytes (compact JSON), each with `page`
/// (its number, the count and, after the first, the `status` of the answer). An answer
/// within the budget is one page, itself.
pub fn cut(answer: &Value, budget: usize) -> Vec<Value> {
    // Whole, when it fits with its `page` (every page, this one too, is numbered).
    if size(answer) + PAGE_ROOM <= budget {
        return vec![answer.clone()];
    }
    let status = answer.get("status").cloned().unwrap_or(Value::Null);
    let mut atoms = Vec::new();
    let mut path = Vec::new();
    // Room for `page` and `status` on every page.
    let room = budget.saturating_sub(160).max(64);
    atomize(answer, &mut path, room, &mut atoms);
    let atoms: Vec<Atom> = atoms
        .into_iter()
        .filter(|a| !matches!(a.path.first(), Some(Step::Key(k)) if k == "status"))
        .collect();

    // Pack atoms greedily, then check each page's real size and move atoms to the next
    // page while it is over.
    let mut pages: Vec<Vec<Atom>> = Vec::new();
    let mut current: Vec<Atom> = Vec::new();
    let mut used = 0;
    for atom in atoms {
        if !current.is_empty() && used + atom.size > room {
            pages.push(std::mem::take(&mut current));
            used = 0;
        }
        used += atom.size;
        current.push(atom);
    }
    if !current.is_empty() {
        pages.push(current);
    }
    let mut built: Vec<Value> = Vec::new();
    // The list elements the pages so far opened: met again, they are continued.
    let mut started: std::collections::HashSet<Vec<Step>> = std::collections::HashSet::new();
    let mut queue: std::collections::VecDeque<Vec<Atom>> = pages.into();
    while let Some(mut atoms) = queue.pop_front() {
        let mut moved: Vec<Atom> = Vec::new();
        loop {
            let mut value = assemble(&atoms, &started, &status, built.is_empty());
            strip_marks(&mut value);
            if size(&value) + PAGE_ROOM <= budget || atoms.len() <= 1 {
                built.push(value);
                for atom in &atoms {
                    for n in 1..=atom.path.len() {
                        let prefix = atom.path.get(..n).unwrap_or(&[]);
                        if matches!(prefix.last(), Some(Step::Index(_))) {
                            started.insert(prefix.to_vec());
                        }
                    }
                }
                break;
            }
            // Over the budget: the last atom moves to the next page.
            if let Some(atom) = atoms.pop() {
                moved.insert(0, atom);
            }
        }
        if !moved.is_empty() {
            match queue.front_mut() {
                Some(next) => {
                    next.splice(0..0, moved);
                }
                None => queue.push_back(moved),
            }
        }
    }
    built
}

/// Adds `page` to each of `pages` (from [`cut`]): its number, the count, and the cursor of
/// the next one (`cursor(id, n)`).
pub fn number(pages: &mut [Value], id: u64) {
    let count = pages.len();
    for (i, page) in pages.iter_mut().enumerate() {
        if let Some(map) = page.as_object_mut() {
            let mut info = Map::new();
            info.insert("number".into(), Value::from(i + 1));
            info.insert("pages".into(), Value::from(count));
            info.insert(
                "next_cursor".into(),
                if i + 1 < count {
                    Value::from(cursor(id, i + 1))
                } else {
                    Value::Null
                },
            );
            map.insert("page".into(), Value::Object(info));
        }
    }
}

/// The leaves of `value` under `path`: whole where they fit in `room`, cut where not.
fn atomize(value: &Value, path: &mut Vec<Step>, room: usize, out: &mut Vec<Atom>) {
    let depth_cost = |path: &[Step]| {
        path.iter()
            .map(|s| match s {
                Step::Key(k) => k.len() + 4,
                Step::Index(_) => 2,
            })
            .sum::<usize>()
    };
    match value {
        Value::Object(map)
            if !map.is_empty() && (path.is_empty() || size(value) + depth_cost(path) > room) =>
        {
            for (key, v) in map {
                path.push(Step::Key(key.clone()));
                atomize(v, path, room, out);
                path.pop();
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                let s = size(item) + depth_cost(path) + 1;
                // An object too large is cut; any other element moves whole (a text in
                // a list, a warning, is short: echoed input is capped).
                if s > room && matches!(item, Value::Object(m) if !m.is_empty()) {
                    atomize(item, path, room, out);
                } else {
                    out.push(Atom {
                        path: path.clone(),
                        value: item.clone(),
                        size: s,
                    });
                }
                path.pop();
            }
        }
        Value::String(text) if size(value) + depth_cost(path) > room => {
            text_atoms(text, path, room, out);
        }
        other => out.push(Atom {
            path: path.clone(),
            value: other.clone(),
            size: size(other) + depth_cost(path) + 1,
        }),
    }
}

/// A long text as runs of whole lines of at most [`TEXT_PART`] bytes (a longer line is cut
/// between characters).
fn text_atoms(text: &str, path: &[Step], room: usize, out: &mut Vec<Atom>) {
    // Escapes can double a text's size in JSON (`\n`, `\"`): a part is at most a third of
    // a page.
    let part = TEXT_PART.min(room / 3).max(16);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + part).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end < text.len() {
            if let Some(nl) = text[start..end].rfind('\n') {
                if nl > 0 {
                    end = start + nl + 1;
                }
            }
        }
        if end == start {
            end = text[start..]
                .char_indices()
                .nth(1)
                .map_or(text.len(), |(i, _)| start + i);
        }
        let part = Value::from(&text[start..end]);
        out.push(Atom {
            path: path.to_vec(),
            size: size(&part) + path.len() * 8,
            value: part,
        });
        start = end;
    }
}

/// The page made of `atoms`; `started` are the list elements the pages before it opened
/// (met again here, they are continuations).
fn assemble(
    atoms: &[Atom],
    started: &std::collections::HashSet<Vec<Step>>,
    status: &Value,
    first: bool,
) -> Value {
    let mut root = Value::Object(Map::new());
    if !first {
        if let Some(map) = root.as_object_mut() {
            map.insert("status".into(), status.clone());
        }
    }
    for atom in atoms {
        place(&mut root, &atom.path, atom.value.clone(), started);
    }
    if first {
        // `status` first, as the command line prints it.
        if let Some(map) = root.as_object_mut() {
            let mut ordered = Map::new();
            ordered.insert("status".into(), status.clone());
            for (k, v) in std::mem::take(map) {
                ordered.insert(k, v);
            }
            *map = ordered;
        }
    }
    root
}

/// Puts `value` at `path` under `node`; a list element opened by an earlier page is marked
/// `"continued": true`; runs of a text at the same path are appended.
fn place(
    node: &mut Value,
    path: &[Step],
    value: Value,
    started: &std::collections::HashSet<Vec<Step>>,
) {
    place_at(node, path, 0, value, started);
}

fn place_at(
    node: &mut Value,
    path: &[Step],
    depth: usize,
    value: Value,
    started: &std::collections::HashSet<Vec<Step>>,
) {
    let Some(step) = path.get(depth) else {
        match (node, value) {
            (Value::String(have), Value::String(more)) => have.push_str(&more),
            (slot, value) => *slot = value,
        }
        return;
    };
    let last = depth + 1 == path.len();
    match step {
        Step::Key(key) => {
            if !node.is_object() {
                *node = Value::Object(Map::new());
            }
            let Some(map) = node.as_object_mut() else {
                return;
            };
            let next = path.get(depth + 1);
            let child = map
                .entry(key.clone())
                .or_insert_with(|| next.map_or(Value::Null, empty_for));
            if last && child.is_null() {
                *child = value;
            } else {
                place_at(child, path, depth + 1, value, started);
            }
        }
        Step::Index(index) => {
            if !node.is_array() {
                *node = Value::Array(Vec::new());
            }
            let Some(items) = node.as_array_mut() else {
                return;
            };
            // Elements are placed in order: the element is the last one when it is
            // already open on this page.
            let open = items
                .last()
                .is_some_and(|e| element_index(e) == Some(*index));
            if !open {
                let mut element = match path.get(depth + 1) {
                    None => value.clone(),
                    Some(next) => empty_for(next),
                };
                if let Value::Object(map) = &mut element {
                    let prefix = path.get(..=depth).unwrap_or(&[]);
                    if !last && started.contains(prefix) {
                        map.insert("continued".into(), Value::Bool(true));
                    }
                    map.insert(INDEX_KEY.into(), Value::from(*index));
                } else {
                    element = serde_json::json!({ INDEX_KEY: index, WRAP_KEY: element });
                }
                items.push(element);
                if last {
                    return;
                }
            }
            if let Some(element) = items.last_mut() {
                if last {
                    return;
                }
                place_at(element, path, depth + 1, value, started);
            }
        }
    }
}

/// Marks an element with its index while a page is assembled (see [`strip_marks`]).
const INDEX_KEY: &str = "\u{0}index";

/// Holds an element that is not an object while a page is assembled.
const WRAP_KEY: &str = "\u{0}value";

fn element_index(element: &Value) -> Option<usize> {
    element
        .get(INDEX_KEY)
        .and_then(Value::as_u64)
        .map(|i| i as usize)
}

fn empty_for(step: &Step) -> Value {
    match step {
        Step::Key(_) => Value::Object(Map::new()),
        Step::Index(_) => Value::Array(Vec::new()),
    }
}

/// Takes the assembly marks off: an element that is not an object gets its value back.
fn strip_marks(value: &mut Value) {
    match value {
        Value::Array(items) => {
            for item in items.iter_mut() {
                let plain = item.as_object().and_then(|m| m.get(WRAP_KEY).cloned());
                if let Some(inner) = plain {
                    *item = inner;
                }
                if let Some(map) = item.as_object_mut() {
                    map.remove(INDEX_KEY);
                }
                strip_marks(item);
            }
        }
        Value::Object(map) => {
            for v in map.values_mut() {
                strip_marks(v);
            }
        }
        _ => {}
    }
}

/// The answer the pages of [`cut`] were cut from: `status` and `page` are each page's
/// own; everything else continues (lists go on, an element marked `"continued": true`
/// continues the last one, texts are appended).
pub fn join(pages: &[Value]) -> Value {
    let Some((first, rest)) = pages.split_first() else {
        return Value::Null;
    };
    let mut whole = first.clone();
    if let Some(map) = whole.as_object_mut() {
        map.remove("page");
    }
    for page in rest {
        let mut page = page.clone();
        if let Some(map) = page.as_object_mut() {
            map.remove("page");
            map.remove("status");
        }
        merge(&mut whole, page);
    }
    whole
}

fn merge(into: &mut Value, piece: Value) {
    match (into, piece) {
        (Value::Object(have), Value::Object(more)) => {
            for (key, value) in more {
                if key == "continued" {
                    continue;
                }
                match have.get_mut(&key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        have.insert(key, value);
                    }
                }
            }
        }
        (Value::Array(have), Value::Array(more)) => {
            for item in more {
                let continues = item.get("continued") == Some(&Value::Bool(true));
                match (continues, have.last_mut()) {
                    (true, Some(last)) => merge(last, item),
                    _ => have.push(item),
                }
            }
        }
        (Value::String(have), Value::String(more)) => have.push_str(&more),
        (slot, value) => *slot = value,
    }
}

fn page_info(
    id: u64,
    list: &str,
    offset: usize,
    count: usize,
    total: usize,
    narrow: &Narrow,
) -> Value {
    let next = offset + count;
    let mut page = Map::new();
    page.insert("list".into(), Value::from(list));
    if let Some(wave) = narrow.wave {
        page.insert("wave".into(), Value::from(wave));
    }
    if let Some(file) = &narrow.file {
        page.insert("file".into(), Value::from(file.as_str()));
    }
    page.insert("offset".into(), Value::from(offset));
    page.insert("count".into(), Value::from(count));
    page.insert("total".into(), Value::from(total));
    page.insert(
        "next_cursor".into(),
        if next < total {
            Value::from(cursor(id, next))
        } else {
            Value::Null
        },
    );
    Value::Object(page)
}

/// One wave item with where it came from.
struct WaveItem<'a> {
    wave: &'a Value,
    name: &'a Value,
    item: &'a Value,
}

/// What a `discover` page holds, in order: the warnings (on the first pages), the wave
/// items, then the files without a method on a wave (no public method, parse errors).
enum Unit<'a> {
    Warning(&'a Value),
    Item(WaveItem<'a>),
    File(&'a Value),
}

/// The `discover` page at `offset`, within `budget` unless one unit alone is larger.
fn discover_page(snapshot: &Snapshot, offset: usize, budget: usize) -> Value {
    let mut within = budget;
    loop {
        let page = discover_page_within(snapshot, offset, within);
        let over = size(&page).saturating_sub(budget);
        let count = page
            .get("page")
            .and_then(|p| p.get("count"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if over == 0 || count <= 1 || within <= over {
            return page;
        }
        within -= over.max(64);
    }
}

fn discover_page_within(snapshot: &Snapshot, offset: usize, budget: usize) -> Value {
    let answer = &snapshot.answer;
    let narrow = &snapshot.narrow;
    if offset == 0 && narrow.is_empty() && size(answer) <= budget {
        return answer.clone();
    }
    let waves: &[Value] = answer
        .get("method_waves")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let in_file = |path: &str| match &narrow.file {
        None => true,
        Some(file) => {
            path == file
                || path
                    .strip_prefix(file.trim_end_matches('/'))
                    .is_some_and(|rest| rest.starts_with('/'))
        }
    };
    let source = |item: &Value| {
        item.get("source_file")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let files: Vec<&Value> = answer
        .get("files")
        .and_then(Value::as_array)
        .map(|f| f.iter().collect())
        .unwrap_or_default();
    let path_of = |f: &Value| {
        f.get("path")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let file_of = |path: &str| files.iter().find(|f| path_of(f) == path).copied();

    let mut units: Vec<Unit<'_>> = answer
        .get("warnings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(Unit::Warning)
        .collect();
    let mut with_items: std::collections::HashSet<String> = std::collections::HashSet::new();
    for w in waves {
        let items: &[Value] = w
            .get("items")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        for item in items {
            with_items.insert(source(item));
        }
        if narrow.wave.is_some() && w.get("wave").and_then(Value::as_u64) != narrow.wave {
            continue;
        }
        units.extend(items.iter().filter(|i| in_file(&source(i))).map(|item| {
            Unit::Item(WaveItem {
                wave: w.get("wave").unwrap_or(&Value::Null),
                name: w.get("name").unwrap_or(&Value::Null),
                item,
            })
        }));
    }
    // Files no item names (no public method, a parse error): after the items, unless a
    // wave narrows the answer (they are on no wave).
    if narrow.wave.is_none() {
        units.extend(
            files
                .iter()
                .filter(|f| !with_items.contains(&path_of(f)) && in_file(&path_of(f)))
                .map(|f| Unit::File(f)),
        );
    }
    let total_items = units.iter().filter(|u| matches!(u, Unit::Item(_))).count();
    let edges: Vec<&Value> = answer
        .get("dependency_graph")
        .and_then(|g| g.get("edges"))
        .and_then(Value::as_array)
        .map(|e| e.iter().collect())
        .unwrap_or_default();

    // The answer without its long lists, then units while they fit.
    let mut out = Map::new();
    for (key, value) in answer.as_object().into_iter().flatten() {
        if !matches!(
            key.as_str(),
            "slugs" | "method_waves" | "files" | "dependency_graph" | "warnings"
        ) {
            out.insert(key.clone(), value.clone());
        }
    }
    out.insert("waves".into(), overview(waves));
    let mut used = size(&Value::Object(out.clone())) + 400;
    let mut taken: Vec<&Unit<'_>> = Vec::new();
    let mut page_files: Vec<String> = Vec::new();
    for unit in units.iter().skip(offset) {
        let (path, mut s) = match unit {
            Unit::Warning(w) => (None, size(w) + 1),
            Unit::Item(w) => (Some(source(w.item)), size(w.item) * 2 + 40),
            Unit::File(f) => (Some(path_of(f)), 0),
        };
        let new_file = path.as_ref().filter(|p| !page_files.contains(p));
        if let Some(p) = new_file {
            s += file_of(p).map_or(0, size) + p.len() + 60;
        }
        if !taken.is_empty() && used + s > budget {
            break;
        }
        used += s;
        if let Some(p) = new_file {
            page_files.push(p.clone());
        }
        taken.push(unit);
    }

    let items: Vec<&WaveItem<'_>> = taken
        .iter()
        .filter_map(|u| match u {
            Unit::Item(w) => Some(w),
            _ => None,
        })
        .collect();
    let ids: Vec<&str> = items
        .iter()
        .filter_map(|w| w.item.get("method_id").and_then(Value::as_str))
        .collect();
    let mut method_waves: Vec<Value> = Vec::new();
    for w in &items {
        let same = method_waves
            .last()
            .is_some_and(|last: &Value| last.get("wave") == Some(w.wave));
        if !same {
            let mut wave = Map::new();
            wave.insert("wave".into(), w.wave.clone());
            wave.insert("name".into(), w.name.clone());
            wave.insert("items".into(), Value::Array(Vec::new()));
            method_waves.push(Value::Object(wave));
        }
        if let Some(list) = method_waves
            .last_mut()
            .and_then(|l| l.get_mut("items"))
            .and_then(Value::as_array_mut)
        {
            list.push(w.item.clone());
        }
    }
    let warnings: Vec<Value> = taken
        .iter()
        .filter_map(|u| match u {
            Unit::Warning(w) => Some((*w).clone()),
            _ => None,
        })
        .collect();
    let page_file_values: Vec<Value> = files
        .iter()
        .filter(|f| page_files.contains(&path_of(f)))
        .map(|f| (*f).clone())
        .collect();
    let slugs: Vec<Value> = page_files
        .iter()
        .map(|p| Value::from(crate::naming::slug(p)))
        .filter(|slug| {
            answer
                .get("slugs")
                .and_then(Value::as_array)
                .is_some_and(|all| all.contains(slug))
        })
        .collect();
    let page_edges: Vec<Value> = edges
        .iter()
        .filter(|e| {
            e.get("from")
                .and_then(Value::as_str)
                .is_some_and(|from| ids.contains(&from))
        })
        .map(|e| (*e).clone())
        .collect();
    let mut graph = Map::new();
    graph.insert(
        "nodes".into(),
        Value::Array(ids.iter().map(|&id| Value::from(id)).collect()),
    );
    graph.insert("edges".into(), Value::Array(page_edges));

    let mut ordered = Map::new();
    for (key, value) in answer.as_object().into_iter().flatten() {
        let value = match key.as_str() {
            "slugs" => Value::Array(slugs.clone()),
            "method_waves" => Value::Array(method_waves.clone()),
            "files" => Value::Array(page_file_values.clone()),
            "dependency_graph" => Value::Object(graph.clone()),
            "warnings" => Value::Array(warnings.clone()),
            _ => value.clone(),
        };
        ordered.insert(key.clone(), value);
    }
    if let Some(waves) = out.remove("waves") {
        ordered.insert("waves".into(), waves);
    }
    let mut info = page_info(
        snapshot.id,
        "method_waves",
        offset,
        taken.len(),
        units.len(),
        narrow,
    );
    if let Some(map) = info.as_object_mut() {
        map.insert("items".into(), Value::from(total_items));
    }
    ordered.insert("page".into(), info);
    Value::Object(ordered)
}

/// Every wave with its numbers: `{wave, name, methods, selected, files}`.
fn overview(waves: &[Value]) -> Value {
    Value::Array(
        waves
            .iter()
            .map(|w| {
                let items: &[Value] = w
                    .get("items")
                    .and_then(Value::as_array)
                    .map_or(&[], Vec::as_slice);
                let selected = items
                    .iter()
                    .filter(|i| i.get("selected").and_then(Value::as_bool) == Some(true))
                    .count();
                let mut files: Vec<&str> = items
                    .iter()
                    .filter_map(|i| i.get("source_file").and_then(Value::as_str))
                    .collect();
                files.sort_unstable();
                files.dedup();
                let mut out = Map::new();
                out.insert("wave".into(), w.get("wave").cloned().unwrap_or(Value::Null));
                out.insert("name".into(), w.get("name").cloned().unwrap_or(Value::Null));
                out.insert("methods".into(), Value::from(items.len()));
                out.insert("selected".into(), Value::from(selected));
                out.insert("files".into(), Value::from(files.len()));
                Value::Object(out)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn snapshot(answer: Value, narrow: Narrow) -> Snapshot {
        Snapshot {
            id: 7,
            answer,
            narrow,
            pages: Vec::new(),
            budget: PAGE_BYTES,
            list: ListOf::Discover,
        }
    }

    fn discover_page_at(s: &Snapshot, offset: usize, budget: usize) -> Value {
        discover_page(s, offset, budget)
    }

    fn discover_answer() -> Value {
        let item = |id: &str, file: &str, selected: bool| json!({"method_id": id, "source_file": file, "selected": selected});
        json!({
            "status": "success",
            "mode": "all",
            "slugs": ["app_models_a", "app_models_b", "app_services_c"],
            "method_waves": [
                {"wave": 0, "name": "Leaf methods (no dependencies)", "items": [
                    item("A#x", "app/models/a.rb", true),
                    item("A#y", "app/models/a.rb", false),
                    item("B#z", "app/models/b.rb", true)]},
                {"wave": 1, "name": "Depends on wave 0", "items": [
                    item("C#call", "app/services/c.rb", true)]}
            ],
            "files": [
                {"path": "app/models/a.rb"}, {"path": "app/models/b.rb"}, {"path": "app/services/c.rb"}
            ],
            "dependency_graph": {
                "nodes": ["A#x", "A#y", "B#z", "C#call"],
                "edges": [{"from": "C#call", "to": "A"}]
            },
            "summary": {"total_methods": 4},
            "warnings": []
        })
    }

    #[test]
    fn a_small_answer_comes_back_whole() {
        let answer = discover_answer();
        let s = snapshot(answer.clone(), Narrow::default());
        assert_eq!(page(&s, ListOf::Discover, 0), answer);
        let list = json!({"status": "success", "files": [1, 2, 3]});
        assert_eq!(cut(&list, PAGE_BYTES), vec![list]);
    }

    #[test]
    fn a_wave_narrows_discover_to_its_items_files_and_edges() {
        let s = snapshot(
            discover_answer(),
            Narrow {
                wave: Some(1),
                file: None,
            },
        );
        let got = page(&s, ListOf::Discover, 0);
        assert_eq!(
            got,
            json!({
                "status": "success",
                "mode": "all",
                "slugs": ["app_services_c"],
                "method_waves": [{"wave": 1, "name": "Depends on wave 0", "items": [
                    {"method_id": "C#call", "source_file": "app/services/c.rb", "selected": true}]}],
                "files": [{"path": "app/services/c.rb"}],
                "dependency_graph": {"nodes": ["C#call"], "edges": [{"from": "C#call", "to": "A"}]},
                "summary": {"total_methods": 4},
                "warnings": [],
                "waves": [
                    {"wave": 0, "name": "Leaf methods (no dependencies)", "methods": 3, "selected": 2, "files": 2},
                    {"wave": 1, "name": "Depends on wave 0", "methods": 1, "selected": 1, "files": 1}
                ],
                "page": {"list": "method_waves", "wave": 1, "offset": 0, "count": 1, "total": 1, "next_cursor": null, "items": 1}
            })
        );
    }

    #[test]
    fn following_the_cursors_gives_every_item_once() {
        let s = snapshot(discover_answer(), Narrow::default());
        // A budget so small that each page holds one item.
        let mut offset = 0;
        let mut seen = Vec::new();
        loop {
            let got = discover_page_at(&s, offset, 10);
            for wave in got["method_waves"].as_array().unwrap() {
                for item in wave["items"].as_array().unwrap() {
                    seen.push(item["method_id"].as_str().unwrap().to_string());
                }
            }
            match got["page"]["next_cursor"].as_str() {
                Some(next) => offset = parse_cursor(next).unwrap().1,
                None => break,
            }
        }
        assert_eq!(seen, ["A#x", "A#y", "B#z", "C#call"]);
        // A file narrows to that file or folder.
        let s = snapshot(
            discover_answer(),
            Narrow {
                wave: None,
                file: Some("app/models/".to_string()),
            },
        );
        let got = page(&s, ListOf::Discover, 0);
        assert_eq!(got["page"]["total"], 3);
        assert_eq!(got["slugs"], json!(["app_models_a", "app_models_b"]));
    }

    #[test]
    fn files_without_methods_and_warnings_come_once() {
        let mut answer = discover_answer();
        answer["files"]
            .as_array_mut()
            .unwrap()
            .push(json!({"path": "app/models/concerns/taggable.rb"}));
        answer["warnings"] = json!(["w1", "w2"]);
        let s = snapshot(answer, Narrow::default());
        let (mut offset, mut files, mut warnings) = (0, Vec::new(), Vec::new());
        loop {
            let got = discover_page_at(&s, offset, 10);
            for f in got["files"].as_array().unwrap() {
                let path = f["path"].as_str().unwrap().to_string();
                if !files.contains(&path) {
                    files.push(path);
                }
            }
            warnings.extend(got["warnings"].as_array().unwrap().iter().cloned());
            match got["page"]["next_cursor"].as_str() {
                Some(next) => offset = parse_cursor(next).unwrap().1,
                None => break,
            }
        }
        assert_eq!(warnings, [json!("w1"), json!("w2")]);
        assert_eq!(
            files,
            [
                "app/models/a.rb",
                "app/models/b.rb",
                "app/services/c.rb",
                "app/models/concerns/taggable.rb"
            ]
        );
    }

    /// Every page within the budget, and the pages joined are the answer.
    fn round_trip(answer: &Value, budget: usize) -> Vec<Value> {
        let mut pages = cut(answer, budget);
        number(&mut pages, 3);
        for (i, p) in pages.iter().enumerate() {
            let len = serde_json::to_string(p).unwrap().len();
            assert!(len <= budget, "page {i} is {len} bytes, over {budget}: {p}");
        }
        assert_eq!(&join(&pages), answer);
        pages
    }

    #[test]
    fn a_long_list_is_cut_and_continued() {
        let files: Vec<Value> = (0..100)
            .map(|i| json!({"path": format!("f{i}.rb")}))
            .collect();
        let answer = json!({"status": "success", "files": files, "summary": {"files": 100}});
        let pages = round_trip(&answer, 1024);
        assert!(pages.len() > 2, "{}", pages.len());
        assert_eq!(pages[0]["files"][0]["path"], "f0.rb");
        assert_eq!(pages[1]["status"], "success");
        assert_eq!(pages[1]["page"]["number"], 2);
        assert_eq!(pages[0]["page"]["next_cursor"], "3:1");
        assert!(pages.last().unwrap()["page"]["next_cursor"].is_null());
        assert!(parse_cursor("nope").is_err());
    }

    #[test]
    fn an_item_larger_than_a_page_is_cut_and_marked_continued() {
        // One analyzed file of many methods, and a long text.
        let methods: Vec<Value> = (0..60)
            .map(|i| json!({"name": format!("m{i}"), "characteristics": [{"name": "x", "values": [true, false]}]}))
            .collect();
        let answer = json!({
            "status": "success",
            "results": [
                {"status": "success", "source_file": "app/models/big.rb", "data": {"class_name": "Big", "behaviors": [{"id": "b"}], "methods": methods}},
                {"status": "success", "source_file": "app/models/small.rb", "data": {"class_name": "Small", "behaviors": [], "methods": []}}
            ],
            "structure": "RSpec.describe Big do\n".repeat(400),
            "warnings": ["x".repeat(300)],
        });
        let pages = round_trip(&answer, 1500);
        let continued = pages
            .iter()
            .skip(1)
            .any(|p| p["results"][0]["continued"] == true);
        assert!(continued, "no continued part");
        // Texts are cut between lines.
        assert!(
            pages
                .iter()
                .filter(|p| p.get("structure").is_some())
                .count()
                > 1
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn any_answer_cut_at_any_budget_joins_back(
            seed in 0u64..10_000,
            budget in 1024usize..6000,
        ) {
            let answer = generated(seed);
            let mut pages = cut(&answer, budget);
            number(&mut pages, 1);
            for p in &pages {
                proptest::prop_assert!(serde_json::to_string(p).unwrap().len() <= budget);
            }
            proptest::prop_assert_eq!(join(&pages), answer);
        }
    }

    /// A nested answer of lists, objects and texts, from `seed`.
    fn generated(seed: u64) -> Value {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n.max(1)
        };
        let files: Vec<Value> = (0..next(30))
            .map(|f| {
                let methods: Vec<Value> = (0..next(40))
                    .map(|m| json!({
                        "id": format!("C{f}#m{m}"),
                        "line_range": [m, m + next(20)],
                        "calls": (0..next(6)).map(|c| format!("call_{c}")).collect::<Vec<_>>(),
                        "note": "n".repeat(next(200) as usize),
                    }))
                    .collect();
                json!({"path": format!("app/models/f{f}.rb"), "methods": methods, "empty": [], "meta": {}})
            })
            .collect();
        json!({
            "status": "success",
            "files": files,
            "text": "line of text\n".repeat(next(700) as usize),
            "summary": {"files": 3, "nested": {"list": (0..next(50)).collect::<Vec<_>>()}},
            "warnings": (0..next(5)).map(|w| format!("warning {w}")).collect::<Vec<_>>(),
        })
    }
}
