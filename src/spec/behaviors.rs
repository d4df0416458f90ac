//! The behavior bank as the generator reads it: `behavior_id` → `it` description, with
//! disabled behaviors (`enabled: false`) resolving to nothing. Error texts are the
//! pipeline generator's.

use crate::yaml::{Mapping, Value};

use crate::ruby;

/// `behaviors[]` keyed by id. Like the Ruby script's Hash, a later entry with the same id
/// replaces an earlier one, and ids match by type and value (`1` is not `"1"`).
#[derive(Debug, Clone, Default)]
pub struct BehaviorBank {
    entries: Vec<(Value, Mapping)>,
    /// Id → index of its last entry: one lookup per leaf instead of a scan of the bank
    /// (quadratic on a class with thousands of behaviors).
    by_id: std::collections::HashMap<Value, usize>,
}

/// A resolved, enabled behavior.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The id as text.
    pub id: String,
    /// The `it` description.
    pub description: String,
}

impl BehaviorBank {
    /// A bank over `behaviors[]` entries (`(id, entry)` pairs in file order).
    pub fn new(entries: Vec<(Value, Mapping)>) -> Self {
        let mut by_id = std::collections::HashMap::with_capacity(entries.len());
        for (i, (key, _)) in entries.iter().enumerate() {
            by_id.insert(key.clone(), i);
        }
        BehaviorBank { entries, by_id }
    }

    fn get(&self, id: &Value) -> Option<&Mapping> {
        let i = *self.by_id.get(id)?;
        self.entries.get(i).map(|(_, entry)| entry)
    }

    /// Resolves a leaf value's `behavior_id`: `Ok(None)` when the behavior is disabled.
    pub fn leaf(&self, id: &Value) -> Result<Option<Resolved>, String> {
        if ruby::blank_value(Some(id)) {
            return Err("Missing values[].behavior_id on leaf value in metadata".to_string());
        }
        self.resolve(id)
    }

    /// Resolves a side effect's `behavior_id`: `Ok(None)` when the behavior is disabled.
    pub fn side_effect(&self, id: &Value) -> Result<Option<Resolved>, String> {
        if ruby::blank_value(Some(id)) {
            return Err("Missing side_effects[].behavior_id in metadata".to_string());
        }
        self.resolve(id)
    }

    fn resolve(&self, id: &Value) -> Result<Option<Resolved>, String> {
        let id_s = ruby::to_s(id);
        let Some(entry) = self.get(id) else {
            return Err(format!("Unknown behavior_id in metadata: {id_s}"));
        };
        if entry.get("enabled") == Some(&Value::Bool(false)) {
            return Ok(None);
        }
        let description = entry.get("description");
        if ruby::blank_value(description) {
            return Err(format!(
                "Missing behavior description in behavior bank: {id_s}"
            ));
        }
        Ok(Some(Resolved {
            id: id_s,
            description: description.map(ruby::to_s).unwrap_or_default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bank(yaml: &str) -> BehaviorBank {
        let value = crate::yaml::load(yaml.as_bytes(), "t").unwrap();
        let entries = value
            .as_sequence()
            .unwrap()
            .iter()
            .map(|b| {
                let m = b.as_mapping().unwrap().clone();
                (m.get("id").cloned().unwrap_or(Value::Null), m)
            })
            .collect();
        BehaviorBank::new(entries)
    }

    #[test]
    fn resolves_disables_and_reports_like_the_generator() {
        let b = bank(
            "- {id: a, description: first}\n- {id: a, description: second}\n- {id: disabled, enabled: false}\n- {id: empty, description: '  '}\n- {id: 1, description: one}\n",
        );
        let s = |x: &str| Value::String(x.to_string());
        assert_eq!(b.leaf(&s("a")).unwrap().unwrap().description, "second");
        assert_eq!(b.leaf(&s("disabled")).unwrap(), None);
        assert_eq!(
            b.leaf(&s("empty")).unwrap_err(),
            "Missing behavior description in behavior bank: empty"
        );
        assert_eq!(
            b.leaf(&s("1")).unwrap_err(),
            "Unknown behavior_id in metadata: 1"
        );
        assert_eq!(b.leaf(&Value::from(1)).unwrap().unwrap().description, "one");
        assert_eq!(
            b.leaf(&Value::Null).unwrap_err(),
            "Missing values[].behavior_id on leaf value in metadata"
        );
        assert_eq!(
            b.side_effect(&s(" ")).unwrap_err(),
            "Missing side_effects[].behavior_id in metadata"
        );
    }
}
