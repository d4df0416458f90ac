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
    let trees = tree::build(&meta)
        .map_err(|e| format!("Invalid metadata for structure generation: {e}"))?;
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

/// The generated `describe` block of every method (metadata order), for patching a spec.
/// Errors are the generator's reasons without a prefix.
pub fn source_blocks(
    meta: &model::Metadata,
    threshold: usize,
) -> Result<Vec<patch::SourceBlock>, String> {
    tree::build(meta)?
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
