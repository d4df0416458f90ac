//! Large answers in pages: an agent reads an answer into a limited context, so an answer
//! over [`PAGE_BYTES`] comes back as its first page with a `page` object saying where it
//! stands and the `next_cursor` that continues it. Pages are cut from the answer the call
//! made (a snapshot the server keeps, one per tool), so following the cursors gives every
//! item once, even if the project changes in between.
//!
//! List answers (`symbols`, `status`, `analyze` of several files, `references`) keep their
//! shape with the list cut. `discover` keeps its shape too: `method_waves` holds the page's
//! items, and `files`, `slugs` and `dependency_graph` only what those items need; `waves`
//! adds an overview of every wave, so `wave` and `file` can narrow the next call.

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// Answers larger than this (compact JSON) are paged: about 12k tokens, within what agent
/// harnesses accept from one tool call (Claude Code's default limit is 25k tokens).
pub const PAGE_BYTES: usize = 48 * 1024;

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
    /// The whole answer.
    pub answer: Value,
    /// The narrowing the call asked for.
    pub narrow: Narrow,
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
pub fn page(snapshot: &Snapshot, list: ListOf, offset: usize, budget: usize) -> Value {
    match list {
        ListOf::Discover => discover_page(snapshot, offset, budget),
        ListOf::Key(key) => list_page(snapshot, key, offset, budget),
    }
}

/// Which list of an answer is paged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListOf {
    /// `discover`'s waves.
    Discover,
    /// The list under this top-level key.
    Key(&'static str),
}

/// Whether an answer must be paged (or narrowed) rather than given whole.
pub fn needs_paging(answer: &Value, narrow: &Narrow, offset: usize, budget: usize) -> bool {
    offset > 0 || !narrow.is_empty() || size(answer) > budget
}

fn size(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

fn list_page(snapshot: &Snapshot, key: &str, offset: usize, budget: usize) -> Value {
    let answer = &snapshot.answer;
    let Some(items) = answer.get(key).and_then(Value::as_array) else {
        return answer.clone();
    };
    if offset == 0 && size(answer) <= budget {
        return answer.clone();
    }
    let mut rest = answer.clone();
    if let Some(map) = rest.as_object_mut() {
        map.insert(key.to_string(), Value::Array(Vec::new()));
    }
    let mut used = size(&rest) + 200;
    let mut taken = Vec::new();
    for item in items.iter().skip(offset) {
        let s = size(item) + 1;
        if !taken.is_empty() && used + s > budget {
            break;
        }
        used += s;
        taken.push(item.clone());
    }
    let count = taken.len();
    if let Some(map) = rest.as_object_mut() {
        map.insert(key.to_string(), Value::Array(taken));
        map.insert(
            "page".to_string(),
            page_info(
                snapshot.id,
                key,
                offset,
                count,
                items.len(),
                &Narrow::default(),
            ),
        );
    }
    rest
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

fn discover_page(snapshot: &Snapshot, offset: usize, budget: usize) -> Value {
    let answer = &snapshot.answer;
    let narrow = &snapshot.narrow;
    if offset == 0 && narrow.is_empty() && size(answer) <= budget {
        return answer.clone();
    }
    let waves: &[Value] = answer
        .get("method_waves")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let in_file = |item: &Value| match &narrow.file {
        None => true,
        Some(file) => item
            .get("source_file")
            .and_then(Value::as_str)
            .is_some_and(|path| {
                path == file
                    || path
                        .strip_prefix(file.trim_end_matches('/'))
                        .is_some_and(|rest| rest.starts_with('/'))
            }),
    };
    let all: Vec<WaveItem<'_>> = waves
        .iter()
        .filter(|w| narrow.wave.is_none() || w.get("wave").and_then(Value::as_u64) == narrow.wave)
        .flat_map(|w| {
            let items: &[Value] = w
                .get("items")
                .and_then(Value::as_array)
                .map_or(&[], Vec::as_slice);
            items
                .iter()
                .filter(|i| in_file(i))
                .map(move |item| WaveItem {
                    wave: w.get("wave").unwrap_or(&Value::Null),
                    name: w.get("name").unwrap_or(&Value::Null),
                    item,
                })
        })
        .collect();
    let files: Vec<&Value> = answer
        .get("files")
        .and_then(Value::as_array)
        .map(|f| f.iter().collect())
        .unwrap_or_default();
    let file_of = |path: &str| {
        files
            .iter()
            .find(|f| f.get("path").and_then(Value::as_str) == Some(path))
            .copied()
    };
    let edges: Vec<&Value> = answer
        .get("dependency_graph")
        .and_then(|g| g.get("edges"))
        .and_then(Value::as_array)
        .map(|e| e.iter().collect())
        .unwrap_or_default();

    // The answer without its long lists, then items while they fit.
    let mut out = Map::new();
    for (key, value) in answer.as_object().into_iter().flatten() {
        if !matches!(
            key.as_str(),
            "slugs" | "method_waves" | "files" | "dependency_graph"
        ) {
            out.insert(key.clone(), value.clone());
        }
    }
    out.insert("waves".into(), overview(waves));
    let mut used = size(&Value::Object(out.clone())) + 400;
    let mut taken: Vec<&WaveItem<'_>> = Vec::new();
    let mut page_files: Vec<&str> = Vec::new();
    for wave_item in all.iter().skip(offset) {
        let path = wave_item
            .item
            .get("source_file")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut s = size(wave_item.item) * 2 + 40;
        if !page_files.contains(&path) {
            s += file_of(path).map_or(0, size) + 60;
        }
        if !taken.is_empty() && used + s > budget {
            break;
        }
        used += s;
        if !page_files.contains(&path) {
            page_files.push(path);
        }
        taken.push(wave_item);
    }

    let ids: Vec<&str> = taken
        .iter()
        .filter_map(|w| w.item.get("method_id").and_then(Value::as_str))
        .collect();
    let mut method_waves: Vec<Value> = Vec::new();
    for w in &taken {
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
        if let Some(items) = method_waves
            .last_mut()
            .and_then(|l| l.get_mut("items"))
            .and_then(Value::as_array_mut)
        {
            items.push(w.item.clone());
        }
    }
    let page_file_values: Vec<Value> = files
        .iter()
        .filter(|f| {
            f.get("path")
                .and_then(Value::as_str)
                .is_some_and(|p| page_files.contains(&p))
        })
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
            _ => value.clone(),
        };
        ordered.insert(key.clone(), value);
    }
    if let Some(waves) = out.remove("waves") {
        ordered.insert("waves".into(), waves);
    }
    ordered.insert(
        "page".into(),
        page_info(
            snapshot.id,
            "method_waves",
            offset,
            taken.len(),
            all.len(),
            narrow,
        ),
    );
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
        }
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
        assert_eq!(page(&s, ListOf::Discover, 0, PAGE_BYTES), answer);
        let list = json!({"status": "success", "files": [1, 2, 3]});
        let s = snapshot(list.clone(), Narrow::default());
        assert_eq!(page(&s, ListOf::Key("files"), 0, PAGE_BYTES), list);
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
        let got = page(&s, ListOf::Discover, 0, PAGE_BYTES);
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
                "page": {"list": "method_waves", "wave": 1, "offset": 0, "count": 1, "total": 1, "next_cursor": null}
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
            let got = page(&s, ListOf::Discover, offset, 10);
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
        let got = page(&s, ListOf::Discover, 0, PAGE_BYTES);
        assert_eq!(got["page"]["total"], 3);
        assert_eq!(got["slugs"], json!(["app_models_a", "app_models_b"]));
    }

    #[test]
    fn a_long_list_is_cut_and_continued() {
        let files: Vec<Value> = (0..100)
            .map(|i| json!({"path": format!("f{i}.rb")}))
            .collect();
        let s = snapshot(
            json!({"status": "success", "files": files}),
            Narrow::default(),
        );
        let first = page(&s, ListOf::Key("files"), 0, 600);
        let count = first["page"]["count"].as_u64().unwrap() as usize;
        assert!(count > 1 && count < 100, "{count}");
        assert!(serde_json::to_string(&first).unwrap().len() <= 600);
        assert_eq!(first["files"][0]["path"], "f0.rb");
        let next = first["page"]["next_cursor"].as_str().unwrap();
        assert_eq!(parse_cursor(next).unwrap(), (7, count));
        let second = page(&s, ListOf::Key("files"), count, 600);
        assert_eq!(second["files"][0]["path"], format!("f{count}.rb"));
        assert!(parse_cursor("nope").is_err());
    }
}
