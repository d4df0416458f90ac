//! Typed fields each stage writes into a metadata file: the only `Serialize` types for it.
//! Stages build these, convert them to YAML values and set them key by key, so keys the
//! tool does not know keep their place.

use serde::Serialize;

use super::set;
use crate::yaml::{Mapping, Value};

/// `complexity` of a file.
#[derive(Debug, Clone, Serialize)]
pub struct Complexity {
    /// `green|yellow|red`.
    pub zone: &'static str,
    /// Code lines.
    pub loc: u32,
    /// Every method defined in the file.
    pub methods: usize,
}

/// One entry of `methods_to_analyze`.
#[derive(Debug, Clone, Serialize)]
pub struct MethodToAnalyze {
    /// Method name.
    pub name: String,
    /// `instance` or `class` (added field: a class can have `#call` and `.call`).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `new|modified|unchanged`.
    pub method_mode: &'static str,
    /// `[def, end]`.
    pub line_range: [u32; 2],
    /// Whether to analyze it.
    pub selected: bool,
    /// Why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
}

/// What discovery writes.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// Project-relative source path.
    pub source_file: String,
    /// The class under test.
    pub class_name: String,
    /// Zone, LOC, methods.
    pub complexity: Complexity,
    /// Target spec path.
    pub spec_path: String,
    /// The file's public methods of its class.
    pub methods_to_analyze: Vec<MethodToAnalyze>,
    /// Classes in scope the class depends on.
    pub dependencies: Vec<String>,
}

/// The marker version written next to each `*_completed` marker.
pub fn version() -> String {
    format!("rspec-scout {}", env!("CARGO_PKG_VERSION"))
}

impl Discovery {
    /// Sets the discovery fields and `automation.discovery_agent_completed: true`.
    pub fn apply(&self, map: &mut Mapping) {
        set(map, "source_file", Value::String(self.source_file.clone()));
        set(map, "class_name", Value::String(self.class_name.clone()));
        set(map, "complexity", crate::report::to_value(&self.complexity));
        set(map, "spec_path", Value::String(self.spec_path.clone()));
        set(
            map,
            "methods_to_analyze",
            crate::report::to_value(&self.methods_to_analyze),
        );
        set(
            map,
            "dependencies",
            crate::report::to_value(&self.dependencies),
        );
        super::with_automation(map, |auto| {
            set(auto, "discovery_agent_completed", Value::Bool(true));
            set(auto, "discovery_agent_version", Value::String(version()));
        });
    }
}
