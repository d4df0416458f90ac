//! The generator's view of a metadata file: methods, characteristics, values and side
//! effects read from the YAML mapping. Values that Ruby compares with `==` stay raw YAML
//! values so the context tree can match them exactly as the pipeline does.
//!
//! The original script crashes on some malformed shapes (a characteristic that is not a
//! Hash, `when_parent` that is a String); here they are errors naming the field.

use crate::yaml::{Mapping, Value};

use crate::ruby;

/// The parts of a metadata file the skeleton needs.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// `class_name` as Ruby's `to_s` prints it (empty when missing).
    pub class_name: String,
    /// Whether `class_name` is present and not `nil`/`false` (the generator's check).
    pub has_class_name: bool,
    /// `methods[]`, in order.
    pub methods: Vec<MethodInput>,
    /// `behaviors[]`.
    pub behaviors: Vec<(Value, Mapping)>,
    /// `source_file` as text (empty when missing).
    pub source_file: String,
    /// `spec_path` as text (empty when missing).
    pub spec_path: String,
    /// How a spec sets each characteristic value up with factories, from
    /// `factories_detected.traits[]` (`analyze` writes it); empty without factories. Only
    /// advice for a person's TODO comment: an entry that does not read is left out.
    pub setup_hints: Vec<SetupHint>,
}

/// One `factories_detected.traits[]` entry: the factory (and trait) that builds the setup
/// of a characteristic value.
#[derive(Debug, Clone)]
pub struct SetupHint {
    /// `#name` or `.name`.
    pub method: String,
    /// The characteristic's name.
    pub characteristic: String,
    /// The value.
    pub value: Value,
    /// What to build it with, in words (`factory :payment, trait :completed`).
    pub text: String,
}

/// One `methods[]` entry.
#[derive(Debug, Clone)]
pub struct MethodInput {
    /// `name` (Ruby `to_s`).
    pub name: String,
    /// `type` as written (`instance`, `class`, anything else).
    pub kind: Value,
    /// `method_mode` (Ruby `to_s`).
    pub method_mode: String,
    /// `characteristics[]` (empty when missing or null).
    pub characteristics: Vec<Characteristic>,
    /// `side_effects[]` (empty when missing or null).
    pub side_effects: Vec<SideEffectInput>,
    /// `behavior_id` of the method itself: what a method without characteristics does
    /// (an added field written by `analyze`; `Null` when missing).
    pub behavior_id: Value,
    /// `trigger` (an added field): what calls a private method Rails runs
    /// (`before_create`, `validate`); its spec goes through that trigger.
    pub trigger: Option<String>,
    /// `class_name` (an added field): the method's class when it is not the file's (a
    /// second or nested class); its block goes in that class's own example group.
    pub class_name: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Characteristic {
    /// `name`, raw (children compare `depends_on` with it).
    pub name: Value,
    /// `type`, raw (only the Strings `boolean`, `presence`, ... are known types).
    pub kind: Value,
    /// `level`, raw (compared with `==` to 1, 2, ...).
    pub level: Value,
    /// `depends_on`, `Null` when missing.
    pub depends_on: Value,
    /// `when_parent`, `None` when missing or null.
    pub when_parent: Option<Vec<Value>>,
    /// `values[]`.
    pub values: Vec<ValueInput>,
    /// `source_line`, `Null` when missing.
    pub source_line: Value,
    /// `threshold_value`, `Null` when missing.
    pub threshold_value: Value,
    /// `threshold_operator`, `Null` when missing.
    pub threshold_operator: Value,
}

/// One `values[]` entry.
#[derive(Debug, Clone)]
pub struct ValueInput {
    /// `value`, raw (`Null` when missing).
    pub value: Value,
    /// `description`, raw (`Null` when missing).
    pub description: Value,
    /// `terminal == true`.
    pub terminal: bool,
    /// `behavior_id`, raw (`Null` when missing).
    pub behavior_id: Value,
}

/// One `side_effects[]` entry.
#[derive(Debug, Clone)]
pub struct SideEffectInput {
    /// `behavior_id`, raw (`Null` when missing).
    pub behavior_id: Value,
    /// `scope: leaf` (an added field): the leaves that end with it say it; it is not an
    /// example of every leaf context.
    pub leaf: bool,
}

impl Characteristic {
    /// The `type` when it is a String.
    pub fn kind_str(&self) -> Option<&str> {
        ruby::str(&self.kind)
    }

    /// The name as Ruby's `to_s` prints it.
    pub fn name_s(&self) -> String {
        ruby::to_s(&self.name)
    }
}

impl MethodInput {
    /// `type == 'class'`.
    pub fn is_class(&self) -> bool {
        ruby::str(&self.kind) == Some("class")
    }

    /// `type == 'instance'`.
    pub fn is_instance(&self) -> bool {
        ruby::str(&self.kind) == Some("instance")
    }

    /// `#name` or `.name` (class methods), as the method's `describe` shows it.
    pub fn descriptor(&self) -> String {
        if self.is_class() {
            format!(".{}", self.name)
        } else {
            format!("#{}", self.name)
        }
    }

    /// `Class#name` or `Class.name`.
    pub fn method_id(&self, class_name: &str) -> String {
        let class_name = self.class_name.as_deref().unwrap_or(class_name);
        if self.is_class() {
            format!("{class_name}.{}", self.name)
        } else {
            format!("{class_name}#{}", self.name)
        }
    }
}

/// Reads a metadata mapping. Only shapes the generator cannot work with are errors; missing
/// optional fields get the defaults the Ruby script uses.
pub fn read(map: &Mapping) -> Result<Metadata, String> {
    let class_name = map.get("class_name").cloned().unwrap_or(Value::Null);
    let behaviors = read_behaviors(map.get("behaviors"))?;
    let methods = match map.get("methods") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Sequence(items)) => items
            .iter()
            .enumerate()
            .map(|(i, m)| read_method(i, m))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("methods must be an Array".to_string()),
    };
    let text = |key: &str| map.get(key).map(ruby::to_s).unwrap_or_default();
    Ok(Metadata {
        has_class_name: ruby::truthy(&class_name),
        class_name: ruby::to_s(&class_name),
        methods,
        behaviors,
        source_file: text("source_file"),
        spec_path: text("spec_path"),
        setup_hints: read_setup_hints(map.get("factories_detected")),
    })
}

/// `factories_detected.traits[]` as hints; anything that does not read (a hand edit, an
/// older file) is skipped: the skeleton is the same without it.
fn read_setup_hints(value: Option<&Value>) -> Vec<SetupHint> {
    let Some(Value::Sequence(items)) = value.and_then(|d| d.get("traits")) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let text = |key: &str| item.get(key).and_then(Value::as_str);
            Some(SetupHint {
                method: text("method")?.to_string(),
                characteristic: text("characteristic")?.to_string(),
                value: item.get("value")?.clone(),
                text: hint_text(item)?,
            })
        })
        .collect()
}

/// `factory :payment, trait :completed`; `factory :subscription, no trait yet: add trait
/// :trial` for a missing one. `None` for a name that is not a plain Ruby symbol (a hand
/// edit): the text goes into a Ruby comment.
fn hint_text(item: &Value) -> Option<String> {
    let symbol = |key: &str| {
        let name = item.get(key)?.as_str()?;
        let plain = !name.is_empty()
            && name.len() <= 80
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        plain.then(|| format!(":{name}"))
    };
    let factory = symbol("factory")?;
    Some(match item.get("status")?.as_str()? {
        "trait" => format!("factory {factory}, trait {}", symbol("trait")?),
        "factory" => format!("factory {factory}"),
        "default" => format!("factory {factory}, its defaults"),
        "missing" => match symbol("suggested_trait") {
            Some(t) => format!("factory {factory}, no trait yet: add trait {t}"),
            None => format!("factory {factory}, no trait yet"),
        },
        _ => return None,
    })
}

fn read_behaviors(value: Option<&Value>) -> Result<Vec<(Value, Mapping)>, String> {
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Sequence(items)) => items,
        Some(_) => return Err("behaviors must be an Array".to_string()),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, b)| match b {
            Value::Mapping(m) => Ok((m.get("id").cloned().unwrap_or(Value::Null), m.clone())),
            _ => Err(format!("behaviors[{i}] must be a Hash")),
        })
        .collect()
}

fn list<'a>(map: &'a Mapping, key: &str, label: &str) -> Result<&'a [Value], String> {
    match map.get(key) {
        None | Some(Value::Null | Value::Bool(false)) => Ok(&[]),
        Some(Value::Sequence(items)) => Ok(items),
        Some(_) => Err(format!("{label}.{key} must be an Array")),
    }
}

fn field(map: &Mapping, key: &str) -> Value {
    map.get(key).cloned().unwrap_or(Value::Null)
}

fn read_method(index: usize, value: &Value) -> Result<MethodInput, String> {
    let label = format!("methods[{index}]");
    let Value::Mapping(map) = value else {
        return Err(format!("{label} must be a Hash"));
    };
    let characteristics = list(map, "characteristics", &label)?
        .iter()
        .enumerate()
        .map(|(j, c)| read_characteristic(&format!("{label}.characteristics[{j}]"), c))
        .collect::<Result<_, _>>()?;
    let side_effects = list(map, "side_effects", &label)?
        .iter()
        .enumerate()
        .map(|(k, e)| match e {
            Value::Mapping(m) => Ok(SideEffectInput {
                behavior_id: field(m, "behavior_id"),
                leaf: ruby::str(&field(m, "scope")) == Some("leaf"),
            }),
            _ => Err(format!("{label}.side_effects[{k}] must be a Hash")),
        })
        .collect::<Result<_, _>>()?;
    Ok(MethodInput {
        name: ruby::to_s(&field(map, "name")),
        kind: field(map, "type"),
        method_mode: ruby::to_s(&field(map, "method_mode")),
        characteristics,
        side_effects,
        behavior_id: field(map, "behavior_id"),
        trigger: match field(map, "trigger") {
            Value::String(t) if !t.trim().is_empty() => Some(t),
            _ => None,
        },
        class_name: match field(map, "class_name") {
            Value::String(c) if !c.trim().is_empty() => Some(c),
            _ => None,
        },
    })
}

fn read_characteristic(label: &str, value: &Value) -> Result<Characteristic, String> {
    let Value::Mapping(map) = value else {
        return Err(format!("{label} must be a Hash"));
    };
    let when_parent = match map.get("when_parent") {
        None | Some(Value::Null | Value::Bool(false)) => None,
        Some(Value::Sequence(items)) => Some(items.clone()),
        Some(_) => return Err(format!("{label}.when_parent must be an Array")),
    };
    let values = list(map, "values", label)?
        .iter()
        .enumerate()
        .map(|(k, v)| match v {
            Value::Mapping(m) => Ok(ValueInput {
                value: field(m, "value"),
                description: field(m, "description"),
                terminal: m.get("terminal") == Some(&Value::Bool(true)),
                behavior_id: field(m, "behavior_id"),
            }),
            _ => Err(format!("{label}.values[{k}] must be a Hash")),
        })
        .collect::<Result<_, _>>()?;
    Ok(Characteristic {
        name: field(map, "name"),
        kind: field(map, "type"),
        level: field(map, "level"),
        depends_on: field(map, "depends_on"),
        when_parent,
        values,
        source_line: field(map, "source_line"),
        threshold_value: field(map, "threshold_value"),
        threshold_operator: field(map, "threshold_operator"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_yaml(text: &str) -> Result<Metadata, String> {
        match crate::yaml::load(text.as_bytes(), "t").unwrap() {
            Value::Mapping(m) => read(&m),
            _ => panic!("not a mapping"),
        }
    }

    #[test]
    fn defaults_for_missing_fields() {
        let m = read_yaml("class_name: A\nmethods:\n  - name: call\n    type: class\n").unwrap();
        assert!(m.has_class_name);
        let method = &m.methods[0];
        assert_eq!(method.descriptor(), ".call");
        assert_eq!(method.method_id("A"), "A.call");
        assert!(method.characteristics.is_empty());
        assert!(method.side_effects.is_empty());
        assert!(m.behaviors.is_empty());
    }

    #[test]
    fn shapes_the_generator_cannot_use_are_named() {
        assert_eq!(
            read_yaml("methods: [x]\n").unwrap_err(),
            "methods[0] must be a Hash"
        );
        assert_eq!(
            read_yaml("methods:\n  - name: a\n    characteristics:\n      - name: c\n        when_parent: 'true'\n")
                .unwrap_err(),
            "methods[0].characteristics[0].when_parent must be an Array"
        );
        assert_eq!(
            read_yaml("methods:\n  - name: a\n    characteristics: {}\n").unwrap_err(),
            "methods[0].characteristics must be an Array"
        );
        assert_eq!(
            read_yaml("behaviors: [1]\n").unwrap_err(),
            "behaviors[0] must be a Hash"
        );
    }

    #[test]
    fn terminal_is_only_true_itself() {
        let m = read_yaml(
            "methods:\n  - name: a\n    characteristics:\n      - name: c\n        values:\n          - {value: x, terminal: 'true'}\n          - {value: y, terminal: true}\n",
        )
        .unwrap();
        let values = &m.methods[0].characteristics[0].values;
        assert!(!values[0].terminal);
        assert!(values[1].terminal);
    }

    #[test]
    fn factories_detected_gives_one_hint_per_value_and_skips_what_does_not_read() {
        let m = read_yaml(
            "factories_detected:\n  traits:\n    - {method: '#call', characteristic: payment_status, value: completed, factory: payment, trait: completed, status: trait}\n    - {method: '#call', characteristic: payment_refunded_at, value: present, factory: refunded_payment, trait: null, status: factory}\n    - {method: '#call', characteristic: user_admin, value: false, factory: user, trait: null, status: default}\n    - {method: '#renewal_price', characteristic: subscription_trial, value: true, factory: subscription, trait: null, status: missing, suggested_trait: trial}\n    - {method: '#call', characteristic: x, value: 1, factory: \"user) }\\nsystem('x')\", status: default}\n    - {method: '#call', characteristic: y, value: 1, factory: user, status: unknown}\n    - {method: '#call', value: 1, factory: user, status: default}\n    - 3\n",
        )
        .unwrap();
        let hints: Vec<(&str, &str, &str)> = m
            .setup_hints
            .iter()
            .map(|h| {
                (
                    h.method.as_str(),
                    h.characteristic.as_str(),
                    h.text.as_str(),
                )
            })
            .collect();
        assert_eq!(
            hints,
            [
                (
                    "#call",
                    "payment_status",
                    "factory :payment, trait :completed"
                ),
                ("#call", "payment_refunded_at", "factory :refunded_payment"),
                ("#call", "user_admin", "factory :user, its defaults"),
                (
                    "#renewal_price",
                    "subscription_trial",
                    "factory :subscription, no trait yet: add trait :trial"
                ),
            ]
        );
        assert_eq!(m.setup_hints[2].value, Value::Bool(false));
        // No factories_detected, or one of another shape: no hints, and no error.
        assert!(read_yaml("class_name: A\n").unwrap().setup_hints.is_empty());
        assert!(read_yaml("factories_detected: [1]\n")
            .unwrap()
            .setup_hints
            .is_empty());
    }
}
