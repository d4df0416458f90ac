//! The context tree the generator would render, as the validator walks it.

use crate::ruby;
use crate::yaml::Value;

use super::{field, get, MAX_CONTEXTS};

/// The context tree of one method, built the way the generator builds it (digest §4.1):
/// children of a value are the characteristics one level deeper whose `depends_on` is the
/// value's characteristic name and whose `when_parent` includes the value (Ruby `==`, no
/// type coercion). Only the leaves (in pre-order) and which characteristics were reached
/// are kept.
pub(super) struct Tree<'a> {
    /// Value objects that end a context path: terminal, or with no children.
    pub(super) leaves: Vec<&'a Value>,
    /// Per characteristic index: rendered somewhere in the tree.
    pub(super) visited: Vec<bool>,
    /// The walk stopped at [`MAX_CONTEXTS`].
    pub(super) overflow: bool,
    nodes: usize,
}

impl<'a> Tree<'a> {
    pub(super) fn build(chars: &'a [Value]) -> Self {
        let mut tree = Tree {
            leaves: Vec::new(),
            visited: vec![false; chars.len()],
            overflow: false,
            nodes: 0,
        };
        tree.walk(chars, 1, None);
        tree
    }

    /// Adds the contexts at `level` under `parent` (characteristic name, value); returns
    /// how many there were.
    fn walk(&mut self, chars: &'a [Value], level: i64, parent: Option<(&Value, &Value)>) -> usize {
        let mut count = 0;
        for (cidx, c) in chars.iter().enumerate() {
            // A String characteristic reads `nil` for 'level' (Ruby `String#[]`), so only
            // Hashes can be reached; the original crashes on other types.
            let Value::Mapping(c) = c else { continue };
            if !ruby::eq(&field(c, "level"), &Value::from(level)) {
                continue;
            }
            let depends_on = field(c, "depends_on");
            let attached = match parent {
                None => depends_on.is_null(),
                Some((name, state)) => {
                    let when_parent = match get(c, "when_parent") {
                        None | Some(Value::Null) | Some(Value::Bool(false)) => {
                            Value::Sequence(Vec::new())
                        }
                        Some(other) => other.clone(),
                    };
                    ruby::eq(&depends_on, name) && ruby::includes(&when_parent, state)
                }
            };
            if !attached {
                continue;
            }
            if let Some(slot) = self.visited.get_mut(cidx) {
                *slot = true;
            }
            let Some(Value::Sequence(values)) = get(c, "values") else {
                continue;
            };
            let name = get(c, "name").unwrap_or(&Value::Null);
            for v in values {
                if self.overflow {
                    return count;
                }
                self.nodes += 1;
                if self.nodes > MAX_CONTEXTS {
                    self.overflow = true;
                    return count;
                }
                count += 1;
                let terminal = ruby::index(v, "terminal") == Some(Value::Bool(true));
                if terminal {
                    self.leaves.push(v);
                    continue;
                }
                let state = ruby::index(v, "value").unwrap_or(Value::Null);
                let children = self.walk(chars, level.saturating_add(1), Some((name, &state)));
                if children == 0 {
                    self.leaves.push(v);
                }
            }
        }
        count
    }
}
