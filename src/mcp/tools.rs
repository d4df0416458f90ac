//! The tools: each one's name, one-line description, input schema and arguments. The
//! arguments mirror the flags of the command the tool runs; paths are relative to the
//! project root (absolute ones must lie inside it).

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::vocab::{
    ConflictAction, ControllerLayout, ControllerPolicy, LegacySpec, OutlineView, Placeholders,
    ProjectType, SkeletonMode, Stage, TestFrameworkChoice, TestLevel,
};

/// One tool as `tools/list` shows it.
#[derive(Debug, Clone)]
pub struct Tool {
    /// The name a client calls.
    pub name: &'static str,
    /// One line an agent can choose from.
    pub description: &'static str,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// A title for people.
    pub title: &'static str,
    /// Reads only: never writes a file (`readOnlyHint`).
    pub read_only: bool,
    /// May replace what is in a file a person edits, a spec (`destructiveHint`); metadata
    /// the tool itself keeps does not count.
    pub destructive: bool,
    /// Calling again with the same arguments changes nothing more (`idempotentHint`).
    pub idempotent: bool,
    /// JSON Schema of the answer (`outputSchema`): what every answer of the tool holds.
    pub output_schema: Value,
}

/// Every tool, in the order of the pipeline. Each takes `cursor` and `max_bytes`, the
/// server's paging.
pub fn all() -> Vec<Tool> {
    let mut tools = tools();
    for tool in &mut tools {
        if let Some(props) = tool
            .input_schema
            .get_mut("properties")
            .and_then(Value::as_object_mut)
        {
            props.insert(
                "cursor".into(),
                string("Continue a paged answer (its page.next_cursor); other arguments are then ignored"),
            );
            props.insert(
                "max_bytes".into(),
                json!({"type": "integer", "minimum": super::page::MIN_PAGE_BYTES, "description": "Largest page, in bytes of JSON (default 49152); a larger answer comes in pages"}),
            );
        }
    }
    tools
}

fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "init",
            title: "Write the pipeline's config",
            read_only: false,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[("config_file", "string"), ("config", "object"), ("differences", "array")]),
            description: "The pipeline's first stage: detects the project's Ruby and RSpec versions, type, linter, factory gem, helper and folders and writes .claude/rspec-testing-config.yml, which every stage reads; a value already in the file is kept and a difference is listed (as `rspec-scout init`).",
            input_schema: object(
                &[
                    ("metadata_path", string("metadata_path: where every stage keeps its metadata, relative to the root (default tmp)")),
                    ("controllers_policy", one_of("rails.controllers.spec_policy of a Rails project (the answer to its question)", ControllerPolicy::NAMES)),
                    ("dry_run", boolean("Say what would be written; write nothing")),
                ],
                &[],
            ),
        },
        Tool {
            name: "discover",
            title: "Plan what to test",
            read_only: false,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[("method_waves", "array"), ("files", "array"), ("summary", "object")]),
            description: "Plan what to test: changed Ruby methods (new/modified/unchanged), complexity zones, cross-class dependencies and test order in waves; writes discovery metadata (as `rspec-scout discover`). Large plans come in pages: narrow with wave/file, continue with cursor.",
            input_schema: object(
                &[
                    ("paths", strings("Files or folders to plan (single mode); default: the files changed on the branch")),
                    ("all", boolean("Select every method; without paths, plan every in-scope file")),
                    ("staged", boolean("Plan the staged changes (the git index against HEAD)")),
                    ("base", string("Base ref for branch mode (default: config `base`, origin/HEAD, main, master)")),
                    ("only", strings("Keep selected only the methods whose id matches one of these globs (`Payment#*`)")),
                    ("exclude", strings("Deselect the methods whose id matches one of these globs (`*#call`)")),
                    ("allow_red", boolean("Proceed even when a red-zone file has only new methods")),
                    ("no_metadata", boolean("Write no metadata files")),
                    ("timings", boolean("Add how long each phase took")),
                    ("wave", integer("Only the methods of this wave")),
                    ("file", string("Only the methods of this file, or of the files under this folder")),
                ],
                &[],
            ),
        },
        Tool {
            name: "analyze",
            title: "Analyze methods",
            read_only: false,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[("results", "array")]),
            description: "Per-method characteristics (the conditions that decide its outcome), side effects, dependencies and behaviors of Ruby files; writes code-analyzer metadata (as `rspec-scout analyze`).",
            input_schema: object(
                &[
                    ("files", strings("Source files to analyze")),
                    ("from_metadata", boolean("Analyze every source file that has discovery metadata")),
                    ("force", boolean("Re-analyze even when the cached analysis is still valid")),
                ],
                &[],
            ),
        },
        Tool {
            name: "symbols",
            title: "List classes and methods",
            read_only: true,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[("files", "array"), ("summary", "object")]),
            description: "Classes, modules and methods (kind, visibility, line ranges) of Ruby files or of the whole project, or the definition of one class or method by name (as `rspec-scout symbols`).",
            input_schema: object(
                &[
                    ("paths", strings("Files or folders (default: every in-scope file of the project)")),
                    ("name", string("Only this class or module (`Billing::Invoice`) or method (`Payment#refund`, `Payment.for_period`)")),
                ],
                &[],
            ),
        },
        Tool {
            name: "references",
            title: "Find where a class or method is used",
            read_only: true,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[("references", "array"), ("summary", "object")]),
            description: "Where a class or module, or a method of one, is used in the project: the methods that reference the constant, call the method, or hold it in a variable named after the class.",
            input_schema: object(
                &[
                    ("name", string("A class or module (`Payment`, `Billing::Invoice`) or a method (`Payment#refund`, `Payment.for_period`)")),
                    ("paths", strings("Only uses in these files or folders (default: the whole project)")),
                ],
                &["name"],
            ),
        },
        Tool {
            name: "factories",
            title: "List factories and traits",
            read_only: true,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[("factories", "array"), ("summary", "object"), ("files", "array")]),
            description: "The project's FactoryBot and Fabrication factories: the class each builds, parent, aliases, associations and every trait it can be built with (its own, its parents', enum and global traits), to set a spec up with `create(:payment, :completed)` (as `rspec-scout factories`).",
            input_schema: object(
                &[("classes", strings("Only the factories that build these classes (`Spree::Order`) or are named so (`order`)"))],
                &[],
            ),
        },
        Tool {
            name: "test_config",
            title: "Decide test levels",
            read_only: false,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[]),
            description: "Decide the test level, isolation and confidence of every method of a metadata file and write it back (as `rspec-scout test-config`).",
            input_schema: object(
                &[
                    ("metadata", string("The metadata file, or its source file")),
                    ("project_type", one_of("Project type (default: the pipeline config, else detected)", ProjectType::NAMES)),
                    ("low_confidence", one_of("Test level for low-confidence methods (the answer to a needs_decision)", TestLevel::NAMES)),
                ],
                &["metadata"],
            ),
        },
        Tool {
            name: "skeleton",
            title: "Write the spec skeleton",
            read_only: false,
            destructive: true,
            idempotent: false,
            output_schema: answer(&[]),
            description: "Turn analyzed metadata into an RSpec skeleton (describe/context/it with markers) and create or patch the spec file, or return the structure with stdout (as `rspec-scout skeleton`).",
            input_schema: object(
                &[
                    ("metadata", string("The metadata file, or its source file")),
                    ("mode", one_of("Structure to return with stdout", SkeletonMode::NAMES)),
                    ("stdout", boolean("Return the structure instead of writing the spec file")),
                    ("spec", string("Spec path (default: the metadata's spec_path)")),
                    ("project_type", one_of("Project type (default: the pipeline config, else detected)", ProjectType::NAMES)),
                    ("controllers_policy", one_of("Controller spec policy", ControllerPolicy::NAMES)),
                    ("controllers_choice", one_of("Answer to a controller spec policy decision", ControllerLayout::NAMES)),
                    ("controllers_legacy", one_of("What to do with a legacy controller spec", LegacySpec::NAMES)),
                    ("test_framework", one_of("Write RSpec specs though the project tests with Minitest only (the answer to a test_framework decision)", TestFrameworkChoice::NAMES)),
                    ("on_new_conflict", one_of("Default for new methods whose block already exists", crate::app::arg_rules::NEW_CONFLICT_ACTIONS)),
                    ("new_conflict", strings("Per-method answers, METHOD_ID=overwrite|skip|beside")),
                    ("on_hand_written", one_of("Default for methods whose block was written by a person", crate::app::arg_rules::HAND_WRITTEN_ACTIONS)),
                    ("hand_written", strings("Per-method answers for hand-written blocks, METHOD_ID=beside|overwrite|skip")),
                    ("only", strings("Only these method ids")),
                    ("shared_examples_threshold", integer("Move examples repeated this many times into shared_examples")),
                    ("placeholders", one_of("How placeholders are written: pipeline (the contract's, for the spec-writer agent) or pending (Ruby that runs)", Placeholders::NAMES)),
                ],
                &["metadata"],
            ),
        },
        Tool {
            name: "outline",
            title: "Outline a spec file",
            read_only: true,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[]),
            description: "The describe/context/it outline of an existing spec file, per method block (as `rspec-scout outline`).",
            input_schema: object(
                &[
                    ("spec", string("The spec file")),
                    ("only", strings("Only these method ids")),
                    ("view", one_of("methods (the pipeline's outline per method block) or tree (every block with its line range); default: methods for a spec with markers, else tree", OutlineView::NAMES)),
                ],
                &["spec"],
            ),
        },
        Tool {
            name: "strip_markers",
            title: "Strip pipeline markers from a spec",
            read_only: false,
            destructive: true,
            idempotent: true,
            output_schema: answer(&[]),
            description: "Remove the `# rspec-testing:` marker lines from a finished spec file (as `rspec-scout strip-markers`).",
            input_schema: object(&[("spec", string("The spec file"))], &["spec"]),
        },
        Tool {
            name: "validate",
            title: "Validate metadata for a stage",
            read_only: true,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[]),
            description: "Check metadata files for a pipeline stage with the pipeline validator's rules, or only that YAML files load (as `rspec-scout validate`).",
            input_schema: object(
                &[
                    ("files", strings("Metadata files (YAML files with yaml)")),
                    ("stage", one_of("The stage to check the files for", Stage::NAMES)),
                    ("yaml", boolean("Only check that each file loads as the pipeline's YAML loader would")),
                    ("strict", boolean("Also report, as errors, the rules the original validator never checked")),
                ],
                &["files"],
            ),
        },
        Tool {
            name: "status",
            title: "Where each file stands in the pipeline",
            read_only: true,
            destructive: false,
            idempotent: true,
            output_schema: answer(&[("files", "array")]),
            description: "Where each source file stands in the pipeline: stage markers set, errors, warnings, next stage, analysis cache valid or stale (as `rspec-scout status`).",
            input_schema: object(
                &[
                    ("paths", strings("Source files or folders (default: every metadata file of the project)")),
                ],
                &[],
            ),
        },
    ]
}

/// The schema every answer meets: an object with `status` (`success`, `partial`,
/// `needs_decision`, `stop` or `error`, as on the command line), its `warnings`, the
/// `page` a paged answer adds, and `keys` of the given JSON types when the call succeeds
/// (an error answer has `error`, `details`, `suggestion`, `error_code`, `recoverable`).
fn answer(keys: &[(&str, &str)]) -> Value {
    let mut props = Map::new();
    props.insert(
        "status".into(),
        json!({"type": "string", "description": "success, partial, needs_decision, stop or error"}),
    );
    props.insert("warnings".into(), json!({"type": "array"}));
    props.insert(
        "page".into(),
        json!({"type": "object", "description": "where a paged answer stands; pass next_cursor back as cursor"}),
    );
    props.insert("error".into(), json!({"type": "string"}));
    props.insert("error_code".into(), json!({"type": "string"}));
    for (key, kind) in keys {
        props.insert((*key).to_string(), json!({ "type": kind }));
    }
    json!({
        "type": "object",
        "properties": props,
        "required": ["status"],
    })
}

fn object(properties: &[(&str, Value)], required: &[&str]) -> Value {
    let mut props = Map::new();
    for (name, schema) in properties {
        props.insert((*name).to_string(), schema.clone());
    }
    json!({
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": false,
    })
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn strings(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

fn boolean(description: &str) -> Value {
    json!({"type": "boolean", "description": description})
}

fn integer(description: &str) -> Value {
    json!({"type": "integer", "minimum": 0, "description": description})
}

fn one_of(description: &str, names: &[&str]) -> Value {
    json!({"type": "string", "enum": names, "description": description})
}

/// `discover`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Discover {
    pub(crate) paths: Vec<String>,
    pub(crate) all: bool,
    pub(crate) staged: bool,
    pub(crate) base: Option<String>,
    pub(crate) only: Vec<String>,
    pub(crate) exclude: Vec<String>,
    pub(crate) allow_red: bool,
    pub(crate) no_metadata: bool,
    pub(crate) timings: bool,
    pub(crate) wave: Option<u64>,
    pub(crate) file: Option<String>,
}

/// `analyze`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Analyze {
    pub(crate) files: Vec<String>,
    pub(crate) from_metadata: bool,
    pub(crate) force: bool,
}

/// `symbols`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Symbols {
    pub(crate) paths: Vec<String>,
    pub(crate) name: Option<String>,
}

/// `init`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Init {
    pub(crate) metadata_path: Option<String>,
    pub(crate) controllers_policy: Option<ControllerPolicy>,
    pub(crate) dry_run: bool,
}

/// `factories`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Factories {
    pub(crate) classes: Vec<String>,
}

/// `references`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct References {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) paths: Vec<String>,
}

/// `test_config`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TestConfig {
    pub(crate) metadata: String,
    #[serde(default)]
    pub(crate) project_type: Option<ProjectType>,
    #[serde(default)]
    pub(crate) low_confidence: Option<TestLevel>,
}

/// `skeleton`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Skeleton {
    pub(crate) metadata: String,
    #[serde(default)]
    pub(crate) mode: Option<SkeletonMode>,
    #[serde(default)]
    pub(crate) stdout: bool,
    #[serde(default)]
    pub(crate) spec: Option<String>,
    #[serde(default)]
    pub(crate) project_type: Option<ProjectType>,
    #[serde(default)]
    pub(crate) controllers_policy: Option<ControllerPolicy>,
    #[serde(default)]
    pub(crate) controllers_choice: Option<ControllerLayout>,
    #[serde(default)]
    pub(crate) controllers_legacy: Option<LegacySpec>,
    pub(crate) test_framework: Option<TestFrameworkChoice>,
    #[serde(default)]
    pub(crate) on_new_conflict: Option<ConflictAction>,
    #[serde(default)]
    pub(crate) new_conflict: Vec<String>,
    #[serde(default)]
    pub(crate) on_hand_written: Option<ConflictAction>,
    #[serde(default)]
    pub(crate) hand_written: Vec<String>,
    #[serde(default)]
    pub(crate) only: Vec<String>,
    #[serde(default)]
    pub(crate) shared_examples_threshold: Option<usize>,
    #[serde(default)]
    pub(crate) placeholders: Option<Placeholders>,
}

/// `outline`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Outline {
    pub(crate) spec: String,
    #[serde(default)]
    pub(crate) only: Vec<String>,
    #[serde(default)]
    pub(crate) view: Option<OutlineView>,
}

/// `strip_markers`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StripMarkers {
    pub(crate) spec: String,
}

/// `validate`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Validate {
    pub(crate) files: Vec<String>,
    #[serde(default)]
    pub(crate) stage: Option<Stage>,
    #[serde(default)]
    pub(crate) yaml: bool,
    #[serde(default)]
    pub(crate) strict: bool,
}

/// `status`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct Status {
    pub(crate) paths: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An example value for a property, from its schema.
    fn example(schema: &Value) -> Value {
        if let Some(names) = schema.get("enum").and_then(Value::as_array) {
            return names[0].clone();
        }
        match schema["type"].as_str().unwrap() {
            "string" => json!("app/models/payment.rb"),
            "array" => json!(["app/models/payment.rb"]),
            "boolean" => json!(true),
            "integer" => json!(2),
            other => panic!("no example for {other}"),
        }
    }

    fn parses(tool: &str, args: Value) -> Result<(), String> {
        let r = match tool {
            "init" => serde_json::from_value::<Init>(args).map(drop),
            "factories" => serde_json::from_value::<Factories>(args).map(drop),
            "discover" => serde_json::from_value::<Discover>(args).map(drop),
            "analyze" => serde_json::from_value::<Analyze>(args).map(drop),
            "symbols" => serde_json::from_value::<Symbols>(args).map(drop),
            "references" => serde_json::from_value::<References>(args).map(drop),
            "test_config" => serde_json::from_value::<TestConfig>(args).map(drop),
            "skeleton" => serde_json::from_value::<Skeleton>(args).map(drop),
            "outline" => serde_json::from_value::<Outline>(args).map(drop),
            "strip_markers" => serde_json::from_value::<StripMarkers>(args).map(drop),
            "validate" => serde_json::from_value::<Validate>(args).map(drop),
            "status" => serde_json::from_value::<Status>(args).map(drop),
            other => panic!("no arguments for {other}"),
        };
        r.map_err(|e| e.to_string())
    }

    #[test]
    fn every_schema_property_is_an_argument_and_required_ones_are_required() {
        let tools = all();
        assert_eq!(tools.len(), 12);
        for tool in &tools {
            let schema = &tool.input_schema;
            let props = schema["properties"].as_object().unwrap();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            // Every property at once, each with a value its schema allows (`cursor` and
            // `max_bytes` are the server's paging, taken out before the tool's own).
            assert!(props.contains_key("cursor") && props.contains_key("max_bytes"));
            let full: Map<String, Value> = props
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "cursor" | "max_bytes"))
                .map(|(k, v)| (k.clone(), example(v)))
                .collect();
            parses(tool.name, Value::Object(full.clone()))
                .unwrap_or_else(|e| panic!("{}: {e}", tool.name));
            // The required ones alone suffice; leaving one out fails.
            let only_required: Map<String, Value> = full
                .iter()
                .filter(|(k, _)| required.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            parses(tool.name, Value::Object(only_required.clone()))
                .unwrap_or_else(|e| panic!("{}: {e}", tool.name));
            for r in &required {
                let mut missing = only_required.clone();
                missing.remove(*r);
                let err = parses(tool.name, Value::Object(missing)).unwrap_err();
                assert_eq!(err, format!("missing field `{r}`"), "{}", tool.name);
            }
            // A property the schema does not list is refused.
            let mut extra = only_required.clone();
            extra.insert("colour".into(), json!(1));
            let err = parses(tool.name, Value::Object(extra)).unwrap_err();
            assert!(
                err.starts_with("unknown field `colour`"),
                "{}: {err}",
                tool.name
            );
            assert!(!tool.description.contains('\n'), "{}", tool.name);
        }
    }
}
