//! The spec-writer's deterministic stage: RSpec skeletons from metadata, and patching,
//! outlining and cleaning spec files.
//!
//! Metadata → `model` (the generator's view) → `tree` (contexts per method, matched with
//! Ruby `==`; `order`, `words`, `text`, `lets`, `behaviors`) → `render` (exact
//! layout with `markers` and `shared` examples). Existing spec files are read by
//! `source` (lines as written, blocks from Ruby's parser via
//! [`crate::index::spec_blocks`]) and changed by [`patch`]; `outline` and `strip` read
//! and clean them; `materialize` holds the decisions of `skeleton` (controller spec
//! policy, new-method conflicts).
//!
//! Everything here takes text and returns text or plain values; reading and writing files
//! happens in `app::skeleton`, `app::outline` and `app::strip_markers`.

pub(crate) mod behaviors;
pub(crate) mod lets;
pub(crate) mod markers;
pub(crate) mod materialize;
pub(crate) mod model;
pub(crate) mod order;
pub(crate) mod outline;
pub mod patch;
pub(crate) mod placeholders;
pub(crate) mod render;
pub mod request;
pub(crate) mod shared;
pub(crate) mod source;
pub(crate) mod strip;
pub mod test_config;
pub(crate) mod text;
pub(crate) mod tree;
pub(crate) mod words;

use crate::ruby;
use crate::yaml::Mapping;

pub use render::Mode;
pub use request::Requests;

/// Renders the skeleton of a metadata mapping in `mode` (no final newline). `only` keeps
/// just those method ids (all methods when empty). Errors are one line in the pipeline
/// generator's wording (`Missing class_name in metadata`, `Invalid metadata for structure
/// generation: ...`, `Cannot generate structure: ...`).
pub fn generate(
    map: &Mapping,
    mode: Mode,
    threshold: usize,
    only: &[String],
) -> Result<String, String> {
    generate_with(map, mode, threshold, only, None, false)
}

/// [`generate`], with the methods of a Rails controller exercised by requests from the
/// app's routes when `requests` is given (see [`request`]), and with each context's setup
/// line naming its factory and trait when `name_setups` (a person's spec; see
/// [`tree::name_setups`]).
pub fn generate_with(
    map: &Mapping,
    mode: Mode,
    threshold: usize,
    only: &[String],
    requests: Option<&Requests>,
    name_setups: bool,
) -> Result<String, String> {
    if !map.get("class_name").is_some_and(ruby::truthy) {
        return Err("Missing class_name in metadata".to_string());
    }
    let no_methods = match map.get("methods") {
        None | Some(crate::yaml::Value::Null | crate::yaml::Value::Bool(false)) => true,
        Some(crate::yaml::Value::Sequence(items)) => items.is_empty(),
        Some(crate::yaml::Value::Mapping(m)) => m.is_empty(),
        Some(_) => false,
    };
    if no_methods {
        return Err("No methods found in metadata".to_string());
    }
    let meta =
        model::read(map).map_err(|e| format!("Invalid metadata for structure generation: {e}"))?;
    let mut trees = tree::build(&meta)
        .map_err(|e| format!("Invalid metadata for structure generation: {e}"))?;
    with_requests(&mut trees, &meta.class_name, requests);
    if name_setups {
        tree::name_setups(&mut trees);
    }
    let selected = select(trees, only)?;
    render::render(&meta.class_name, &selected, mode, threshold)
        .map_err(|e| format!("Cannot generate structure: {e}"))
}

/// Keeps the trees named in `only` (in metadata order); all when `only` is empty.
pub fn select(
    trees: Vec<tree::MethodTree>,
    only: &[String],
) -> Result<Vec<tree::MethodTree>, String> {
    if only.is_empty() {
        return Ok(trees);
    }
    let missing: Vec<&str> = only
        .iter()
        .filter(|id| !trees.iter().any(|t| &t.method_id == *id))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "Requested method_id(s) not found in metadata: {}",
            missing.join(", ")
        ));
    }
    Ok(trees
        .into_iter()
        .filter(|t| only.contains(&t.method_id))
        .collect())
}

/// The generated `describe` block of every method (metadata order), for patching a spec
/// (`name_setups` as in [`generate_with`]). Errors are the generator's reasons without a
/// prefix.
pub fn source_blocks(
    meta: &model::Metadata,
    threshold: usize,
    requests: Option<&Requests>,
    name_setups: bool,
) -> Result<Vec<patch::SourceBlock>, String> {
    let mut trees = tree::build(meta)?;
    with_requests(&mut trees, &meta.class_name, requests);
    if name_setups {
        tree::name_setups(&mut trees);
    }
    trees
        .iter()
        .map(|t| {
            render::method_block(t, threshold).map(|lines| patch::SourceBlock {
                method_id: t.method_id.clone(),
                descriptor: t.descriptor.clone(),
                lines,
            })
        })
        .collect()
}

/// Gives each instance method of a controller class its request (nothing without
/// `requests`, or for a class that is not a controller).
fn with_requests(trees: &mut [tree::MethodTree], class_name: &str, requests: Option<&Requests>) {
    let Some(requests) = requests else {
        return;
    };
    // A request reaches the file's controller class, not another class of the file.
    for t in trees
        .iter_mut()
        .filter(|t| t.instance && t.class_name.is_none())
    {
        let mut lets = Vec::new();
        for context in &t.contexts {
            let_names(context, &mut lets);
        }
        t.request = requests.subject(class_name, &t.name, t.trigger.as_deref(), &lets);
    }
}

/// The names `let` by a context and its children: `let(:project) { nil }` → `project`.
fn let_names(context: &tree::Context, out: &mut Vec<String>) {
    let name = context
        .let_line
        .as_deref()
        .and_then(|l| l.strip_prefix("let(:"))
        .and_then(|l| l.split_once(')'))
        .map(|(name, _)| name.to_string());
    if let Some(name) = name.filter(|n| !out.contains(n)) {
        out.push(name);
    }
    for child in &context.children {
        let_names(child, out);
    }
}
