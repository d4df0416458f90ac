//! The test-config decision table of the pipeline's `derive_test_config.rb`: per method, the
//! test level, isolation knobs, confidence and decision trace, from the metadata alone.
//! Pure: a metadata mapping and the project type in, decisions out; [`apply`] writes them
//! into the mapping (`target.kind`, `methods[].test_config`,
//! `automation.isolation_decider_completed`), keeping every other key where it was.
//!
//! Project-type detection (which the original leaves to `/rspec-init`) is here too, as a
//! pure function of what the caller found at the project root ([`detect_project_type`]).

use crate::ruby;
use crate::vocab::{Confidence, IsolationMode, ProjectType, TestLevel};
use crate::yaml::{Mapping, Value};

/// What the decisions depend on besides the metadata.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The project type the table assumes.
    pub project_type: ProjectType,
    /// A trace line saying how the project type was detected, inserted after
    /// `project_type: X` (the original never detects, so its traces never have it).
    pub detected: Option<String>,
}

/// Why no decision can be made: the original's messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// `source_file` or `class_name` is blank.
    MissingSourceOrClass,
    /// `methods` is not a non-empty Array.
    MissingMethods,
    /// `methods[i]` has a blank `name` or `type` (the original's `invalid_method`).
    InvalidMethod(usize),
}

impl Problem {
    /// The original's message.
    pub fn message(&self) -> &'static str {
        match self {
            Problem::MissingSourceOrClass => "metadata must include source_file and class_name",
            Problem::MissingMethods => "metadata must include methods[]",
            Problem::InvalidMethod(_) => "Method missing name/type",
        }
    }
}

/// The isolation knobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Isolation {
    /// The database.
    pub db: IsolationMode,
    /// Outgoing HTTP.
    pub external_http: IsolationMode,
    /// Queues, mail, events, webhooks.
    pub queue: IsolationMode,
}

impl Isolation {
    /// The knobs for a test level: the database is real in request and integration tests
    /// that use it and stubbed in unit tests; HTTP and queues are stubbed when used.
    fn of(level: TestLevel, uses: &Uses) -> Isolation {
        let stubbed_if = |used: bool| {
            if used {
                IsolationMode::Stubbed
            } else {
                IsolationMode::None
            }
        };
        Isolation {
            db: match level {
                TestLevel::Request => IsolationMode::Real,
                TestLevel::Integration if uses.db => IsolationMode::Real,
                _ => stubbed_if(uses.db),
            },
            external_http: stubbed_if(uses.external_http),
            queue: stubbed_if(uses.queue),
        }
    }
}

/// What a method touches, as the table reads it from the metadata.
#[derive(Debug, Clone)]
struct Uses {
    db: bool,
    external_http: bool,
    queue: bool,
    pure: bool,
    /// `methods[].db_writes` (an added field), as `Token.delete_all`.
    db_writes: Vec<String>,
}

/// The decision for one method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDecision {
    /// `Class#name` or `Class.name`.
    pub method_id: String,
    /// A setup of type model, or a cache side effect.
    pub uses_db: bool,
    /// An external_api side effect, or an external source whose class is an HTTP client.
    pub uses_external_http: bool,
    /// An event, webhook or email side effect.
    pub uses_queue: bool,
    /// None of the above and no side effects.
    pub is_pure: bool,
    /// The test level.
    pub test_level: TestLevel,
    /// The isolation knobs.
    pub isolation: Isolation,
    /// How sure the table is.
    pub confidence: Confidence,
    /// Why, in the original's exact strings.
    pub decision_trace: Vec<String>,
}

/// The decisions for a metadata file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decisions {
    /// `source_file` as text.
    pub source_file: String,
    /// `class_name` as text.
    pub class_name: String,
    /// The file type (`target.kind`).
    pub file_type: &'static str,
    /// One entry per `methods[]` item; `None` for items that are not Hashes (left alone).
    pub methods: Vec<Option<MethodDecision>>,
    /// rspec-scout's analyzer wrote the metadata (its added rules apply).
    pub analyzed_here: bool,
}

impl Decisions {
    /// The methods that came out with low confidence, in metadata order.
    pub fn low_confidence(&self) -> Vec<&MethodDecision> {
        self.methods
            .iter()
            .flatten()
            .filter(|m| m.confidence == Confidence::Low)
            .collect()
    }

    /// The test level to recommend for the low-confidence methods: `integration` when any of
    /// them suggests it, else `unit`; for a controller rspec-scout analyzed, `request` (its
    /// spec makes the request: the pipeline's `unit` would contradict every method's level).
    pub fn recommended_action(&self) -> TestLevel {
        if self.analyzed_here && self.file_type == "controller" {
            return TestLevel::Request;
        }
        if self
            .low_confidence()
            .iter()
            .any(|m| m.test_level == TestLevel::Integration)
        {
            TestLevel::Integration
        } else {
            TestLevel::Unit
        }
    }

    /// The choices offered for low-confidence methods (`request` for controllers only).
    pub fn choices(&self) -> Vec<(TestLevel, &'static str)> {
        let mut choices = vec![
            (TestLevel::Unit, "Unit — faster, more stubs/mocks"),
            (
                TestLevel::Integration,
                "Integration — real DB, external HTTP stubbed",
            ),
        ];
        if self.file_type == "controller" {
            choices.push((TestLevel::Request, "Request — full endpoint (controller)"));
        }
        choices
    }

    /// Resolves the low-confidence methods with the caller's choice (`--low-confidence`):
    /// each gets that test level, `high` confidence, recomputed isolation and the override
    /// trace line. Other methods keep what was computed.
    pub fn resolve(&mut self, choice: TestLevel) {
        for m in self.methods.iter_mut().flatten() {
            if m.confidence != Confidence::Low {
                continue;
            }
            m.decision_trace
                .push(format!("user_override_low_confidence: {choice}"));
            m.test_level = choice;
            m.confidence = Confidence::High;
            m.isolation = Isolation::of(choice, &m.uses());
        }
    }
}

impl MethodDecision {
    fn uses(&self) -> Uses {
        Uses {
            db: self.uses_db,
            external_http: self.uses_external_http,
            queue: self.uses_queue,
            pure: self.is_pure,
            db_writes: Vec::new(),
        }
    }
}

/// Decides every method of `metadata` (the original's order of checks: `source_file` and
/// `class_name`, then `methods[]`, then each method's `name` and `type`).
pub fn decide(metadata: &Mapping, inputs: &Inputs) -> Result<Decisions, Problem> {
    let text = |key: &str| ruby::to_s(metadata.get(key).unwrap_or(&Value::Null));
    let source_file = text("source_file");
    let class_name = text("class_name");
    if ruby::strip(&source_file).is_empty() || ruby::strip(&class_name).is_empty() {
        return Err(Problem::MissingSourceOrClass);
    }
    let methods = match metadata.get("methods") {
        Some(Value::Sequence(items)) if !items.is_empty() => items,
        _ => return Err(Problem::MissingMethods),
    };
    let file_type = file_type(&source_file, &class_name);
    let zone = ruby::to_s(&dig(metadata.get("complexity"), "zone"));
    let mut decided = Vec::with_capacity(methods.len());
    for (idx, m) in methods.iter().enumerate() {
        let Value::Mapping(m) = m else {
            decided.push(None);
            continue;
        };
        let decision = decide_method(metadata, m, inputs, file_type, &class_name, &zone)
            .ok_or(Problem::InvalidMethod(idx))?;
        decided.push(Some(decision));
    }
    Ok(Decisions {
        source_file,
        class_name,
        file_type,
        methods: decided,
        analyzed_here: analyzed_here(metadata),
    })
}

/// `Class#name`, or `Class.name` when `type` is `class`; `None` when either is blank.
pub fn method_id(class_name: &str, method: &Mapping) -> Option<String> {
    // A method of another class of the file names it (`class_name`, an added field).
    let class_name = method
        .get("class_name")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
        .unwrap_or(class_name);
    let name = ruby::to_s(method.get("name").unwrap_or(&Value::Null));
    let kind = method.get("type").unwrap_or(&Value::Null);
    if ruby::strip(&name).is_empty() || ruby::blank_value(Some(kind)) {
        return None;
    }
    let sep = if kind.as_str() == Some("class") {
        "."
    } else {
        "#"
    };
    Some(format!("{class_name}{sep}{name}"))
}

/// The file type (and `target.kind`), first match wins.
pub fn file_type(source_file: &str, class_name: &str) -> &'static str {
    const BY_DIR_OR_SUFFIX: &[(&str, &str, &str)] = &[
        ("app/controllers/", "Controller", "controller"),
        ("app/channels/", "Channel", "channel"),
        ("app/helpers/", "Helper", "helper"),
        ("app/jobs/", "Job", "job"),
        ("app/mailboxes/", "Mailbox", "mailbox"),
        ("app/policies/", "Policy", "policy"),
        ("app/serializers/", "Serializer", "serializer"),
        ("app/validators/", "Validator", "validator"),
        ("app/workers/", "Worker", "worker"),
    ];
    for (dir, suffix, kind) in BY_DIR_OR_SUFFIX {
        if source_file.starts_with(dir) || class_name.ends_with(suffix) {
            return kind;
        }
    }
    if source_file.starts_with("app/services/") || source_file.starts_with("app/interactors/") {
        "service"
    } else if source_file.starts_with("app/models/") {
        "model"
    } else if source_file.starts_with("lib/") {
        "lib"
    } else {
        "other"
    }
}

fn dig(value: Option<&Value>, key: &str) -> Value {
    match value {
        Some(Value::Mapping(map)) => map.get(key).cloned().unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

fn array<'a>(method: &'a Mapping, key: &str) -> &'a [Value] {
    match method.get(key) {
        Some(Value::Sequence(items)) => items,
        _ => &[],
    }
}

/// The method's line count from its `methods_to_analyze` entry (first with the same name).
fn loc(metadata: &Mapping, name: &str) -> Option<i64> {
    let Some(Value::Sequence(list)) = metadata.get("methods_to_analyze") else {
        return None;
    };
    let entry = list.iter().find_map(|m| match m {
        Value::Mapping(m) if ruby::to_s(m.get("name").unwrap_or(&Value::Null)) == name => Some(m),
        _ => None,
    })?;
    let Some(Value::Sequence(range)) = entry.get("line_range") else {
        return None;
    };
    let [start, end] = range.as_slice() else {
        return None;
    };
    let (start, end) = (start.as_i64()?, end.as_i64()?);
    (end >= start).then(|| end.saturating_sub(start).saturating_add(1))
}

fn is_http_client(class: &Value) -> bool {
    let name = ruby::to_s(class);
    !ruby::strip(&name).is_empty()
        && ["HTTP", "Faraday", "RestClient"]
            .iter()
            .any(|needle| ruby::contains_ignore_case(&name, needle))
}

fn decide_method(
    metadata: &Mapping,
    m: &Mapping,
    inputs: &Inputs,
    file_type: &'static str,
    class_name: &str,
    zone: &str,
) -> Option<MethodDecision> {
    let name = ruby::to_s(m.get("name").unwrap_or(&Value::Null));
    let method_id = method_id(class_name, m)?;
    let dependencies = array(m, "dependencies").len();
    let side_effect_types: Vec<String> = array(m, "side_effects")
        .iter()
        .filter_map(|e| match e {
            Value::Mapping(e) => e.get("type").filter(|t| !t.is_null()).map(ruby::to_s),
            _ => None,
        })
        .collect();
    // Exactly what the metadata lists: `side_effects` (every effect, those a leaf ends
    // with included) and `db_writes`.
    let mut uses = uses(m, &side_effect_types);
    uses.db_writes = db_writes(m);
    let db_by_rules = uses.db;
    let loc = loc(metadata, &name);
    let project_type = inputs.project_type;
    let base_test_level = base_test_level(project_type, file_type);

    let mut trace = vec![format!("project_type: {project_type}")];
    trace.extend(inputs.detected.clone());
    trace.push(format!("file_type: {file_type}"));
    trace.push(format!("base_test_level: {base_test_level}"));
    if !ruby::strip(zone).is_empty() {
        trace.push(format!("complexity.zone: {zone}"));
    }
    if let Some(loc) = loc {
        trace.push(format!("loc: {loc}"));
    }
    if dependencies > 0 {
        trace.push(format!("dependencies.count: {dependencies}"));
    }
    if !side_effect_types.is_empty() {
        trace.push(format!("side_effects: {}", side_effect_types.join(", ")));
    }
    if db_by_rules {
        trace.push("uses_db: true (setup.type=model or side_effect cache)".to_string());
    } else if !uses.db_writes.is_empty() {
        // An added field; metadata without it keeps the pipeline's exact trace.
        trace.push(format!(
            "uses_db: true (db writes: {})",
            uses.db_writes.join(", ")
        ));
        uses.db = true;
        uses.pure = false;
    }
    if uses.external_http {
        trace
            .push("uses_external_http: true (side_effect external_api or HTTP client)".to_string());
    }
    if uses.queue {
        trace.push("uses_queue: true (event/webhook/email)".to_string());
    }
    if uses.pure && file_type == "controller" && analyzed_here(metadata) {
        // An added rule, on metadata rspec-scout analyzed (the pipeline's keeps its exact
        // table): an action reads a request and answers it, so "pure" does not make it a
        // unit; its spec makes the request.
        trace.push("rule: controller action => request (exercised through its route)".to_string());
        uses.pure = false;
    }
    if uses.pure {
        trace.push("is_pure: true (no side effects, no db/http/queue)".to_string());
    }

    let mut test_level = base_test_level;
    if uses.pure {
        test_level = TestLevel::Unit;
    } else if project_type != ProjectType::Library {
        if file_type == "controller" {
            test_level = TestLevel::Request;
        } else if uses.db {
            let integrate = loc.is_some_and(|l| l > 20)
                || zone == "yellow"
                || zone == "red"
                || dependencies > 1;
            if integrate {
                trace.push(
                    "rule: uses_db + (loc>20 or zone>=yellow or deps>1) => integration".to_string(),
                );
                test_level = TestLevel::Integration;
            } else {
                trace.push("rule: uses_db + small/simple => unit (db stubbed)".to_string());
                test_level = TestLevel::Unit;
            }
        }
    }

    Some(MethodDecision {
        method_id,
        uses_db: uses.db,
        uses_external_http: uses.external_http,
        uses_queue: uses.queue,
        is_pure: uses.pure,
        test_level,
        isolation: Isolation::of(test_level, &uses),
        confidence: confidence(zone, loc, file_type, &uses),
        decision_trace: trace,
    })
}

/// Whether rspec-scout's analyzer wrote the metadata (it records `analysis_inputs`).
fn analyzed_here(metadata: &Mapping) -> bool {
    metadata.get("analysis_inputs").is_some()
}

/// `methods[].db_writes` (an added field) as `Token.delete_all`, `user.update!`.
fn db_writes(m: &Mapping) -> Vec<String> {
    array(m, "db_writes")
        .iter()
        .filter_map(|w| match w {
            Value::Mapping(w) => {
                let op = ruby::to_s(w.get("operation").unwrap_or(&Value::Null));
                let target = ruby::to_s(w.get("target").unwrap_or(&Value::Null));
                let via = match w.get("via").and_then(Value::as_str) {
                    Some(via) => format!(" via {via}"),
                    None => String::new(),
                };
                (!op.is_empty()).then(|| format!("{target}.{op}{via}"))
            }
            _ => None,
        })
        .collect()
}

/// What a method touches: the database (a `model` setup or a `cache` side effect), HTTP
/// (an `external_api` side effect or an external source whose class is an HTTP client),
/// queues (`event`, `webhook`, `email`); pure when none and no side effect at all.
fn uses(m: &Mapping, side_effect_types: &[String]) -> Uses {
    let characteristics = array(m, "characteristics");
    let has_type = |t: &str| side_effect_types.iter().any(|s| s == t);
    let db = characteristics.iter().any(
        |c| matches!(c, Value::Mapping(c) if ruby::to_s(&dig(c.get("setup"), "type")) == "model"),
    ) || has_type("cache");
    let external_http = has_type("external_api")
        || characteristics.iter().any(|c| match c {
            Value::Mapping(c) => {
                ruby::to_s(&dig(c.get("source"), "kind")) == "external"
                    && is_http_client(&dig(c.get("source"), "class"))
            }
            _ => false,
        });
    let queue = ["event", "webhook", "email"].iter().any(|t| has_type(t));
    Uses {
        db,
        external_http,
        queue,
        pure: !db && !external_http && !queue && side_effect_types.is_empty(),
        db_writes: Vec::new(),
    }
}

/// The level before the rules: unit for libraries, else by the file type.
fn base_test_level(project_type: ProjectType, file_type: &str) -> TestLevel {
    if project_type == ProjectType::Library {
        return TestLevel::Unit;
    }
    match file_type {
        "controller" => TestLevel::Request,
        "job" | "worker" => TestLevel::Integration,
        _ => TestLevel::Unit,
    }
}

/// High, lowered by each doubt (the lowest wins): a yellow zone, a database and HTTP
/// together, or 15-25 lines give medium; a red zone, or a controller method that looks
/// pure (request-vs-unit is ambiguous), give low.
fn confidence(zone: &str, loc: Option<i64>, file_type: &str, uses: &Uses) -> Confidence {
    let mut confidence = Confidence::High;
    let mut lower = |to: Confidence| confidence = confidence.max(to);
    if zone == "yellow" {
        lower(Confidence::Medium);
    }
    if zone == "red" {
        lower(Confidence::Low);
    }
    if uses.db && uses.external_http {
        lower(Confidence::Medium);
    }
    if loc.is_some_and(|l| (15..=25).contains(&l)) {
        lower(Confidence::Medium);
    }
    if file_type == "controller" && uses.pure {
        lower(Confidence::Low);
    }
    confidence
}

/// Writes the decisions into the metadata: `target.kind` (in place, or `target` appended),
/// every decided method's `test_config` (keys `test_level`, `isolation{db, external_http,
/// queue}`, `confidence`, `decision_trace`), and `automation.isolation_decider_completed:
/// true`. Returns how many methods now have a `test_config`.
pub fn apply(metadata: &mut Mapping, decisions: &Decisions) -> usize {
    let mut target = match metadata.get("target") {
        Some(Value::Mapping(t)) => t.clone(),
        _ => Mapping::new(),
    };
    crate::metadata::set(&mut target, "kind", Value::from(decisions.file_type));
    crate::metadata::set(metadata, "target", Value::Mapping(target));

    let mut updated = 0;
    if let Some(Value::Sequence(methods)) = metadata.get_mut("methods") {
        for (m, decision) in methods.iter_mut().zip(&decisions.methods) {
            let (Value::Mapping(m), Some(d)) = (m, decision) else {
                continue;
            };
            crate::metadata::set(m, "test_config", test_config_value(d));
            updated += 1;
        }
    }
    crate::metadata::mark_completed(metadata, "isolation_decider");
    updated
}

fn test_config_value(d: &MethodDecision) -> Value {
    let mut isolation = Mapping::new();
    isolation.insert("db".into(), d.isolation.db.as_str().into());
    isolation.insert(
        "external_http".into(),
        d.isolation.external_http.as_str().into(),
    );
    isolation.insert("queue".into(), d.isolation.queue.as_str().into());
    let mut tc = Mapping::new();
    tc.insert("test_level".into(), d.test_level.as_str().into());
    tc.insert("isolation".into(), Value::Mapping(isolation));
    tc.insert("confidence".into(), d.confidence.as_str().into());
    tc.insert(
        "decision_trace".into(),
        Value::Sequence(d.decision_trace.iter().map(|s| s.as_str().into()).collect()),
    );
    Value::Mapping(tc)
}

/// What [`detect_project_type`] looks at, found at the project root by the caller.
#[derive(Debug, Clone, Default)]
pub struct ProjectFacts {
    /// The name of a `*.gemspec` file at the root, if any.
    pub gemspec: Option<String>,
    /// The Gemfile's text, if there is one.
    pub gemfile: Option<String>,
    /// Whether `app/controllers/` exists.
    pub has_controllers: bool,
}

/// Detects the project type as `/rspec-init` does (a gemspec → library; `gem 'rails'` or
/// `gem 'railties'` → rails; roda, hanami, sinatra, grape, jsonapi-serializer or jbuilder →
/// web; an `app/controllers` folder → web; else service). Returns the type and a trace line
/// saying why. Commented-out Gemfile lines do not count.
pub fn detect_project_type(facts: &ProjectFacts) -> (ProjectType, String) {
    let detected =
        |kind: ProjectType, why: &str| (kind, format!("project_type detected: {kind} ({why})"));
    if let Some(gemspec) = &facts.gemspec {
        return detected(
            ProjectType::Library,
            &format!("{gemspec} at the project root"),
        );
    }
    let gemfile = facts.gemfile.as_deref().unwrap_or_default();
    let gem = |name: &str| gemfile_has_gem(gemfile, name);
    for name in ["rails", "railties"] {
        if gem(name) {
            return detected(ProjectType::Rails, &format!("Gemfile has gem '{name}'"));
        }
    }
    for name in [
        "roda",
        "hanami",
        "sinatra",
        "grape",
        "jsonapi-serializer",
        "jbuilder",
    ] {
        if gem(name) {
            return detected(ProjectType::Web, &format!("Gemfile has gem '{name}'"));
        }
    }
    if facts.has_controllers {
        return detected(ProjectType::Web, "app/controllers exists");
    }
    detected(
        ProjectType::Service,
        "no gemspec, no web framework in the Gemfile, no app/controllers",
    )
}

/// Whether an uncommented Gemfile line has `gem 'name'` or `gem "name"` (the `/rspec-init`
/// pattern).
fn gemfile_has_gem(gemfile: &str, name: &str) -> bool {
    gemfile
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .any(|l| {
            ["'", "\""]
                .iter()
                .any(|q| l.contains(&format!("gem {q}{name}{q}")))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> Mapping {
        match crate::yaml::load(text.as_bytes(), "t.yml").expect("test YAML loads") {
            Value::Mapping(m) => m,
            other => panic!("not a mapping: {other:?}"),
        }
    }

    fn inputs(project_type: &str) -> Inputs {
        Inputs {
            project_type: ProjectType::parse(project_type).unwrap(),
            detected: None,
        }
    }

    const PAYMENT: &str = "source_file: app/models/payment.rb\nclass_name: Payment\ncomplexity: {zone: green}\nmethods_to_analyze:\n  - {name: charge, line_range: [10, 40]}\n  - {name: total, line_range: [42, 45]}\nmethods:\n  - name: charge\n    type: instance\n    dependencies: [Gateway]\n    side_effects: [{type: email, behavior_id: x}, {type: external_api, behavior_id: y}]\n    characteristics:\n      - {name: user, setup: {type: model}, source: {kind: internal}}\n  - name: total\n    type: class\n    characteristics: []\n";

    #[test]
    fn decides_like_the_table() {
        let d = decide(&map(PAYMENT), &inputs("rails")).expect("decides");
        assert_eq!(d.file_type, "model");
        let charge = d.methods[0].as_ref().expect("hash method");
        assert_eq!(charge.method_id, "Payment#charge");
        assert_eq!(charge.test_level.as_str(), "integration");
        assert_eq!(
            charge.isolation,
            Isolation {
                db: IsolationMode::Real,
                external_http: IsolationMode::Stubbed,
                queue: IsolationMode::Stubbed
            }
        );
        assert_eq!(charge.confidence.as_str(), "medium");
        assert_eq!(
            charge.decision_trace,
            vec![
                "project_type: rails",
                "file_type: model",
                "base_test_level: unit",
                "complexity.zone: green",
                "loc: 31",
                "dependencies.count: 1",
                "side_effects: email, external_api",
                "uses_db: true (setup.type=model or side_effect cache)",
                "uses_external_http: true (side_effect external_api or HTTP client)",
                "uses_queue: true (event/webhook/email)",
                "rule: uses_db + (loc>20 or zone>=yellow or deps>1) => integration",
            ]
        );
        let total = d.methods[1].as_ref().expect("hash method");
        assert_eq!(total.method_id, "Payment.total");
        assert_eq!(total.test_level.as_str(), "unit");
        assert_eq!(total.confidence.as_str(), "high");
        assert!(total.is_pure);
        assert!(d.low_confidence().is_empty());
    }

    #[test]
    fn small_db_methods_are_unit_with_stubbed_db() {
        let text = PAYMENT
            .replace("[10, 40]", "[10, 12]")
            .replace("    dependencies: [Gateway]\n", "")
            .replace("side_effects: [{type: email, behavior_id: x}, {type: external_api, behavior_id: y}]", "side_effects: []");
        let d = decide(&map(&text), &inputs("rails")).expect("decides");
        let charge = d.methods[0].as_ref().expect("hash method");
        assert_eq!(charge.test_level.as_str(), "unit");
        assert_eq!(charge.isolation.db, IsolationMode::Stubbed);
        assert_eq!(
            charge.decision_trace.last().map(String::as_str),
            Some("rule: uses_db + small/simple => unit (db stubbed)")
        );
    }

    #[test]
    fn pure_controller_methods_are_low_confidence_and_resolved_by_choice() {
        let text = "source_file: app/controllers/home_controller.rb\nclass_name: HomeController\nmethods:\n  - {name: index, type: instance}\n  - 7\n";
        let mut d = decide(&map(text), &inputs("rails")).expect("decides");
        assert_eq!(d.file_type, "controller");
        let index = d.methods[0].clone().expect("hash method");
        assert_eq!(
            (index.test_level.as_str(), index.confidence.as_str()),
            ("unit", "low")
        );
        assert_eq!(d.methods[1], None);
        assert_eq!(d.recommended_action(), TestLevel::Unit);
        assert_eq!(d.choices().len(), 3);
        d.resolve(TestLevel::Request);
        let index = d.methods[0].clone().expect("hash method");
        assert_eq!(
            (index.test_level.as_str(), index.confidence.as_str()),
            ("request", "high")
        );
        assert_eq!(index.isolation.db, IsolationMode::Real);
        assert_eq!(
            index.decision_trace.last().map(String::as_str),
            Some("user_override_low_confidence: request")
        );
    }

    #[test]
    fn controllers_rspec_scout_analyzed_are_request_specs() {
        let text = "source_file: app/controllers/home_controller.rb\nclass_name: HomeController\nanalysis_inputs: {analyzer: x, rules: y, files: []}\nmethods:\n  - {name: index, type: instance}\n";
        let d = decide(&map(text), &inputs("rails")).expect("decides");
        let index = d.methods[0].clone().expect("hash method");
        assert_eq!(
            (index.test_level.as_str(), index.confidence.as_str()),
            ("request", "high")
        );
        assert!(!index.is_pure);
        assert_eq!(index.isolation.db, IsolationMode::Real);
        assert_eq!(
            index.decision_trace.last().map(String::as_str),
            Some("rule: controller action => request (exercised through its route)")
        );
        assert!(d.low_confidence().is_empty(), "no decision to ask");
        // In a red file every method is low confidence: the answer recommended is still
        // the request every method suggests, not the table's unit.
        let red = text.replace(
            "analysis_inputs:",
            "complexity: {zone: red}\nanalysis_inputs:",
        );
        let d = decide(&map(&red), &inputs("rails")).expect("decides");
        assert_eq!(d.low_confidence().len(), 1);
        assert_eq!(d.recommended_action(), TestLevel::Request);
    }

    #[test]
    fn libraries_and_jobs() {
        let text = "source_file: app/jobs/sync_job.rb\nclass_name: SyncJob\ncomplexity: {zone: red}\nmethods:\n  - name: perform\n    type: instance\n    side_effects: [{type: webhook}]\n";
        let d = decide(&map(text), &inputs("rails")).expect("decides");
        let perform = d.methods[0].as_ref().expect("hash method");
        assert_eq!(
            (perform.test_level.as_str(), perform.confidence.as_str()),
            ("integration", "low")
        );
        assert_eq!(d.recommended_action(), TestLevel::Integration);
        let d = decide(&map(text), &inputs("library")).expect("decides");
        let perform = d.methods[0].as_ref().expect("hash method");
        assert_eq!(perform.test_level.as_str(), "unit");
        assert_eq!(perform.decision_trace[2], "base_test_level: unit");
    }

    #[test]
    fn problems_in_the_original_order() {
        assert_eq!(
            decide(&map("class_name: A\nmethods: []\n"), &inputs("rails")),
            Err(Problem::MissingSourceOrClass)
        );
        assert_eq!(
            decide(
                &map("source_file: a.rb\nclass_name: A\nmethods: []\n"),
                &inputs("rails")
            ),
            Err(Problem::MissingMethods)
        );
        assert_eq!(
            decide(
                &map("source_file: a.rb\nclass_name: A\nmethods: [{name: x, type: ' '}]\n"),
                &inputs("rails")
            ),
            Err(Problem::InvalidMethod(0))
        );
    }

    #[test]
    fn apply_keeps_keys_and_order() {
        let mut m = map("target: {path: x, kind: old}\nsource_file: lib/a.rb\nclass_name: A\nmethods:\n  - {name: x, type: instance, test_config: old, extra: 1}\n  - plain\nautomation: [broken]\nlast: 1\n");
        let d = decide(&m, &inputs("service")).expect("decides");
        assert_eq!(apply(&mut m, &d), 1);
        let text = crate::yaml::to_string(&Value::Mapping(m));
        assert_eq!(
            text,
            "target:\n  path: x\n  kind: lib\nsource_file: lib/a.rb\nclass_name: A\nmethods:\n  - name: x\n    type: instance\n    test_config:\n      test_level: unit\n      isolation:\n        db: none\n        external_http: none\n        queue: none\n      confidence: high\n      decision_trace:\n        - \"project_type: service\"\n        - \"file_type: lib\"\n        - \"base_test_level: unit\"\n        - \"is_pure: true (no side effects, no db/http/queue)\"\n    extra: 1\n  - plain\nautomation:\n  isolation_decider_completed: true\nlast: 1\n"
        );
    }

    #[test]
    fn http_clients_by_name() {
        assert!(is_http_client(&Value::from("Net::HTTP")));
        assert!(is_http_client(&Value::from("HttpClient")));
        assert!(is_http_client(&Value::from("Faraday::Connection")));
        assert!(!is_http_client(&Value::from("Stripe")));
        assert!(!is_http_client(&Value::Null));
    }

    #[test]
    fn project_type_detection() {
        let facts = |gemspec: Option<&str>, gemfile: Option<&str>, controllers| ProjectFacts {
            gemspec: gemspec.map(str::to_string),
            gemfile: gemfile.map(str::to_string),
            has_controllers: controllers,
        };
        assert_eq!(
            detect_project_type(&facts(Some("a.gemspec"), Some("gem 'rails'"), true)).0,
            ProjectType::Library
        );
        assert_eq!(
            detect_project_type(&facts(
                None,
                Some("source 'x'\ngem \"rails\", '~> 7'\n"),
                false
            )),
            (
                ProjectType::Rails,
                "project_type detected: rails (Gemfile has gem 'rails')".to_string()
            )
        );
        assert_eq!(
            detect_project_type(&facts(None, Some("# gem 'rails'\ngem 'sinatra'\n"), false)).0,
            ProjectType::Web
        );
        assert_eq!(
            detect_project_type(&facts(None, None, true)).0,
            ProjectType::Web
        );
        assert_eq!(
            detect_project_type(&facts(None, Some("gem 'rake'\n"), false)).0,
            ProjectType::Service
        );
    }
}
