//! Topological waves. Nodes are public methods; each depends on classes. A method's wave is
//! 0 when it has no dependencies, else 1 + the highest wave among the methods of the
//! classes it depends on. Classes in a dependency cycle are collapsed first (strongly
//! connected components, petgraph) and the methods of a cycle that depend on anything
//! share one wave, so every dependency points to an earlier wave or, inside a cycle, the
//! same one.

use std::collections::HashMap;

use super::deps::FxBuild;

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

/// One wave item: the class that owns it and the classes it depends on. Owned names by
/// default; the planner passes names borrowed from its items (`Item<&str>`), which saves a
/// copy of every class name of a large codebase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item<S = String> {
    /// Owning class.
    pub class: S,
    /// Classes it depends on (other than its own).
    pub deps: Vec<S>,
}

/// The result of [`compute`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waves {
    /// The wave of each item, in input order.
    pub wave: Vec<usize>,
    /// The classes of each dependency cycle, each sorted, the list sorted.
    pub cycles: Vec<Vec<String>>,
}

/// What the wave computation reads of its items: the planner's items answer directly, so
/// no list of every item's class and dependencies is built for it.
pub trait Input {
    /// Number of items.
    fn count(&self) -> usize;
    /// The class owning item `i`.
    fn class(&self, i: usize) -> &str;
    /// The classes item `i` depends on.
    fn deps(&self, i: usize) -> impl Iterator<Item = &str>;
}

impl<S: AsRef<str>> Input for [Item<S>] {
    fn count(&self) -> usize {
        self.len()
    }

    fn class(&self, i: usize) -> &str {
        self.get(i).map_or("", |item| item.class.as_ref())
    }

    fn deps(&self, i: usize) -> impl Iterator<Item = &str> {
        self.get(i)
            .into_iter()
            .flat_map(|item| item.deps.iter().map(AsRef::as_ref))
    }
}

/// Computes the wave of every item. Deterministic for the same input; never panics.
pub fn compute<S: AsRef<str>>(items: &[Item<S>]) -> Waves {
    compute_on(items)
}

/// [`compute`] on any [`Input`].
pub fn compute_on<I: Input + ?Sized>(items: &I) -> Waves {
    let count = items.count();
    // Nodes carry no weight: node n is names[n] (no copy of every class name).
    let mut graph: DiGraph<(), ()> = DiGraph::new();
    // Looked up for every dependency of every item: a hash map, not a tree of string
    // comparisons. Node numbers come from the sorted names, so the result is the same.
    let mut index: HashMap<&str, NodeIndex, FxBuild> = HashMap::default();
    // Classes in sorted order so node numbering does not depend on input order.
    let mut unique: std::collections::HashSet<&str, FxBuild> = std::collections::HashSet::default();
    for i in 0..count {
        unique.insert(items.class(i));
        unique.extend(items.deps(i));
    }
    // Sorting the unique names, not every mention of them (millions on a large codebase).
    let mut names: Vec<&str> = unique.into_iter().collect();
    names.sort_unstable();
    index.reserve(names.len());
    graph.reserve_nodes(names.len());
    for &name in &names {
        index.insert(name, graph.add_node(()));
    }
    // Every name looked up once: each item's class and dependencies as node numbers, the
    // dependencies of item `i` at `dep_nodes[dep_start[i]..dep_start[i + 1]]`.
    let class_node: Vec<Option<NodeIndex>> = (0..count)
        .map(|i| index.get(items.class(i)).copied())
        .collect();
    let mut dep_start: Vec<usize> = Vec::with_capacity(count + 1);
    let mut dep_nodes: Vec<NodeIndex> = Vec::new();
    for i in 0..count {
        dep_start.push(dep_nodes.len());
        dep_nodes.extend(items.deps(i).filter_map(|d| index.get(d).copied()));
    }
    dep_start.push(dep_nodes.len());
    let deps_of = |i: usize| -> &[NodeIndex] {
        match (dep_start.get(i), dep_start.get(i + 1)) {
            (Some(&a), Some(&b)) => dep_nodes.get(a..b).unwrap_or_default(),
            _ => &[],
        }
    };
    drop(index);
    // Whether item `i` depends on anything (every dependency has a node).
    let has_deps = |i: usize| !deps_of(i).is_empty();

    let mut edges: Vec<(NodeIndex, NodeIndex)> = Vec::new();
    for (i, from) in class_node.iter().enumerate() {
        let Some(from) = *from else { continue };
        for &to in deps_of(i) {
            if from != to {
                edges.push((from, to));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    graph.reserve_edges(edges.len());
    for (from, to) in edges {
        graph.add_edge(from, to, ());
    }

    // tarjan_scc lists components in post-order: every component after the ones it
    // depends on.
    let sccs = tarjan_scc(&graph);
    let mut component = vec![0usize; graph.node_count()];
    for (c, scc) in sccs.iter().enumerate() {
        for node in scc {
            if let Some(slot) = component.get_mut(node.index()) {
                *slot = c;
            }
        }
    }
    let mut items_of_class: Vec<Vec<usize>> = vec![Vec::new(); graph.node_count()];
    for (i, node) in class_node.iter().enumerate() {
        if let Some(list) = node.and_then(|n| items_of_class.get_mut(n.index())) {
            list.push(i);
        }
    }

    let mut wave = vec![0usize; count];
    // The highest wave among a class's items; None for a class without items.
    let mut class_max: Vec<Option<usize>> = vec![None; graph.node_count()];
    let mut cycles = Vec::new();
    for (c, scc) in sccs.iter().enumerate() {
        let cyclic = scc.len() > 1;
        let mut shared = 0usize;
        let mut members: Vec<usize> = Vec::new();
        for node in scc {
            members.extend(
                items_of_class
                    .get(node.index())
                    .into_iter()
                    .flatten()
                    .copied(),
            );
        }
        for &i in &members {
            let mut base = 0usize;
            for dep in deps_of(i) {
                if component.get(dep.index()) == Some(&c) {
                    continue;
                }
                if let Some(max) = class_max.get(dep.index()).copied().flatten() {
                    base = base.max(max + 1);
                }
            }
            if let Some(slot) = wave.get_mut(i) {
                *slot = base;
            }
            if has_deps(i) {
                shared = shared.max(base);
            }
        }
        if cyclic {
            for &i in &members {
                if has_deps(i) {
                    if let Some(slot) = wave.get_mut(i) {
                        *slot = shared;
                    }
                }
            }
            let mut names: Vec<String> = scc
                .iter()
                .filter_map(|n| names.get(n.index()).map(|name| (*name).to_string()))
                .collect();
            names.sort();
            cycles.push(names);
        }
        for node in scc {
            let max = items_of_class
                .get(node.index())
                .into_iter()
                .flatten()
                .filter_map(|&i| wave.get(i).copied())
                .max();
            if let Some(slot) = class_max.get_mut(node.index()) {
                *slot = max;
            }
        }
    }
    cycles.sort();
    Waves { wave, cycles }
}

/// The contract's wave names.
pub fn wave_name(wave: usize) -> String {
    if wave == 0 {
        "Leaf methods (no dependencies)".to_string()
    } else {
        format!("Depends on wave {}", wave - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(class: &str, deps: &[&str]) -> Item {
        Item {
            class: class.to_string(),
            deps: deps.iter().map(|d| d.to_string()).collect(),
        }
    }

    #[test]
    fn chain_gives_increasing_waves() {
        let items = vec![
            item("Processor", &["Payment"]),
            item("Payment", &[]),
            item("Payment", &["Money"]),
            item("Money", &[]),
            item("Controller", &["Processor"]),
        ];
        let w = compute(&items);
        // Money 0 → Payment#1 1 → Processor 2 → Controller 3.
        assert_eq!(w.wave, vec![2, 0, 1, 0, 3]);
        assert!(w.cycles.is_empty());
    }

    #[test]
    fn cycles_share_a_wave_and_are_reported() {
        let items = vec![
            item("A", &["B"]),
            item("A", &[]),
            item("B", &["A", "Leaf"]),
            item("Leaf", &[]),
            item("Top", &["A"]),
        ];
        let w = compute(&items);
        assert_eq!(w.wave, vec![1, 0, 1, 0, 2]);
        assert_eq!(w.cycles, vec![vec!["A".to_string(), "B".to_string()]]);
    }

    #[test]
    fn classes_without_items_add_nothing() {
        let items = vec![item("A", &["Constants"])];
        assert_eq!(compute(&items).wave, vec![0]);
    }

    #[test]
    fn names() {
        assert_eq!(wave_name(0), "Leaf methods (no dependencies)");
        assert_eq!(wave_name(2), "Depends on wave 1");
    }
}
