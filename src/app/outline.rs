//! `rspec-scout outline SPEC`: the outline of an existing spec. A generated spec (one with
//! `rspec-testing` markers) gets the pipeline generator's `--outline-spec` text, per method
//! block (with the `it` lines the original never printed); any other spec gets the tree of
//! its blocks with line ranges. The structured answer carries both the method blocks and
//! the tree.

use std::path::PathBuf;

use serde::Serialize;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::report::Answer;
use crate::spec::outline::{Method, Node};
use crate::spec::source::SpecText;
use crate::vocab::OutlineView;

/// Options of `outline`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The spec file.
    pub spec: PathBuf,
    /// Only these method ids.
    pub only: Vec<String>,
    /// The view (default: `methods` for a spec with markers, else `tree`).
    pub view: Option<OutlineView>,
}

#[derive(Debug, Serialize)]
struct OutlineAnswer {
    status: &'static str,
    spec_path: String,
    view: OutlineView,
    outline: String,
    methods: Vec<MethodAnswer>,
    tree: Vec<NodeAnswer>,
}

#[derive(Debug, Serialize)]
struct MethodAnswer {
    method_id: Option<String>,
    method: String,
    line: u32,
    end_line: u32,
    markers: bool,
}

#[derive(Debug, Serialize)]
struct NodeAnswer {
    kind: &'static str,
    call: String,
    text: String,
    line: u32,
    end_line: u32,
    /// For a method block: `Class#name` (when a group names the class), `#name`, and
    /// whether it has markers.
    #[serde(skip_serializing_if = "Option::is_none")]
    method_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    markers: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    children: Vec<NodeAnswer>,
}

fn method_answer(m: &Method) -> MethodAnswer {
    MethodAnswer {
        method_id: m.method_id.clone(),
        method: m.descriptor.clone(),
        line: m.line,
        end_line: m.end_line,
        markers: m.markers,
    }
}

fn node_answer(n: &Node) -> NodeAnswer {
    NodeAnswer {
        kind: n.kind.as_str(),
        call: n.call.clone(),
        text: n.text.clone(),
        line: n.line,
        end_line: n.end_line,
        method_id: n.method.as_ref().and_then(|m| m.method_id.clone()),
        method: n.method.as_ref().map(|m| m.descriptor.clone()),
        markers: n.method.as_ref().map(|m| m.markers),
        children: n.children.iter().map(node_answer).collect(),
    }
}

/// Runs the command.
pub fn run(_config: &Config, options: &Options) -> Result<Answer> {
    let text = read(&options.spec)?;
    let outline = crate::spec::outline::read(&text, &options.only, options.view).map_err(|e| {
        Error::Spec {
            message: format!("Cannot outline spec: {e}"),
            path: options.spec.clone(),
        }
    })?;
    let spec_path = options.spec.to_string_lossy().into_owned();
    let stdout = if outline.text.is_empty() {
        format!("{spec_path}: no RSpec blocks\n")
    } else {
        format!("{}\n", outline.text)
    };
    let answer = OutlineAnswer {
        status: "success",
        spec_path,
        view: outline.view,
        outline: outline.text,
        methods: outline.methods.iter().map(method_answer).collect(),
        tree: outline.tree.iter().map(node_answer).collect(),
    };
    Ok(Answer::new(&answer, stdout, 0))
}

/// Reads a spec file named on the command line, with the pipeline's error texts.
pub(crate) fn read(path: &std::path::Path) -> Result<SpecText> {
    let spec_error = |message: String| Error::Spec {
        message,
        path: path.to_path_buf(),
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(spec_error(format!(
                "Spec file not found: {}",
                path.display()
            )))
        }
        Err(e) => {
            return Err(Error::Unreadable {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        }
    };
    SpecText::from_bytes(&bytes).map_err(spec_error)
}
