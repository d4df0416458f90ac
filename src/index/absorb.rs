//! Absorption, a fact of one file: the private and protected methods a public method calls
//! with an implicit receiver or `self.`, transitively. Discovery raises a public method to
//! `modified` when one of them changed and follows their references; the analyzer inlines
//! them.

use rustc_hash::{FxHashMap, FxHashSet};

use super::{MethodFacts, MethodKind, Visibility};

/// The private and protected methods of the same owner and kind that method `index` calls
/// with an implicit receiver or `self.`, transitively, in call order (first found first).
/// For many methods of one file, build an [`Absorber`] once instead.
pub fn absorbed(methods: &[MethodFacts], index: usize) -> Vec<usize> {
    Absorber::new(methods).absorbed(index)
}

/// [`absorbed`] for every method of a file: the non-public methods are indexed by owner,
/// kind and name once, so a class with thousands of methods is not scanned per method.
#[derive(Debug)]
pub struct Absorber<'a> {
    methods: &'a [MethodFacts],
    /// Non-public, static methods by (owner, kind, name), in file order.
    callees: FxHashMap<(&'a str, MethodKind, &'a str), Vec<usize>>,
}

impl<'a> Absorber<'a> {
    /// Indexes the non-public methods of `methods`.
    pub fn new(methods: &'a [MethodFacts]) -> Self {
        let mut callees: FxHashMap<_, Vec<usize>> = FxHashMap::default();
        for (i, m) in methods.iter().enumerate() {
            if m.visibility != Visibility::Public && !m.dynamic {
                callees
                    .entry((m.owner.as_str(), m.kind, m.name.as_str()))
                    .or_default()
                    .push(i);
            }
        }
        Absorber { methods, callees }
    }

    /// What method `index` absorbs, as [`absorbed`] says.
    pub fn absorbed(&self, index: usize) -> Vec<usize> {
        let Some(root) = self.methods.get(index) else {
            return Vec::new();
        };
        if self.callees.is_empty() {
            return Vec::new();
        }
        let mut seen: Vec<usize> = Vec::new();
        let mut seen_set: FxHashSet<usize> = FxHashSet::default();
        let mut queue: Vec<usize> = vec![index];
        while let Some(current) = queue.pop() {
            let Some(caller) = self.methods.get(current) else {
                continue;
            };
            for name in caller.calls.iter() {
                let Some(found) = self.callees.get(&(root.owner.as_str(), root.kind, name)) else {
                    continue;
                };
                for &c in found {
                    if c != index && seen_set.insert(c) {
                        seen.push(c);
                        queue.push(c);
                    }
                }
            }
        }
        seen.sort_by_key(|&i| self.methods.get(i).map(|m| m.line_range.0).unwrap_or(0));
        seen
    }
}
