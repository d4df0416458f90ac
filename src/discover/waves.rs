//! Topological waves. Nodes are public methods; each depends on classes. A method's wave is
//! 0 when it has no dependencies, else 1 + the highest wave among the methods of the
//! classes it depends on. Classes in a dependency cycle are collapsed first (strongly
//! connected components, petgraph) and the methods of a cycle that depend on anything
//! share one wave, so every dependency points to an earlier wave or, inside a cycle, the
//! same one.

use rustc_hash::{FxHashMap, FxHashSet};

use petgraph::algo::tarjan_scc;
use petgraph::csr::Csr;
use petgraph::Directed;

/// One wave item: the class that owns it and the classes it depends on, by name ([`compute`]:
/// owned names by default, borrowed ones work too). The planner does not name them: it
/// passes the numbers its classes got at resolution ([`Numbered`], [`compute_numbered`]).
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

/// Items already numbered: node `n` is a class, `class[i]` the node of item `i`'s class,
/// and item `i` depends on the nodes `dep_nodes[dep_start[i]..dep_start[i + 1]]`
/// (`dep_start` has one more entry than there are items). The planner numbers classes
/// when it resolves them, so its wave computation hashes no names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Numbered {
    /// Number of nodes.
    pub nodes: usize,
    /// Each item's class node.
    pub class: Vec<Option<u32>>,
    /// Where each item's dependencies start in `dep_nodes`.
    pub dep_start: Vec<usize>,
    /// Every item's dependencies, item after item.
    pub dep_nodes: Vec<u32>,
}

/// Computes the wave of every item. Deterministic for the same input; never panics.
pub fn compute<S: AsRef<str>>(items: &[Item<S>]) -> Waves {
    let count = items.len();
    // Looked up for every dependency of every item: a hash map, not a tree of string
    // comparisons. Node numbers come from the sorted names.
    let mut index: FxHashMap<&str, u32> = FxHashMap::default();
    let mut unique: FxHashSet<&str> = FxHashSet::default();
    for item in items {
        unique.insert(item.class.as_ref());
        unique.extend(item.deps.iter().map(AsRef::as_ref));
    }
    // Sorting the unique names, not every mention of them (millions on a large codebase).
    let mut names: Vec<&str> = unique.into_iter().collect();
    names.sort_unstable();
    index.reserve(names.len());
    for (n, &name) in names.iter().enumerate() {
        index.insert(name, u32::try_from(n).unwrap_or(u32::MAX));
    }
    // Every name looked up once.
    let mut numbered = Numbered {
        nodes: names.len(),
        class: items
            .iter()
            .map(|item| index.get(item.class.as_ref()).copied())
            .collect(),
        dep_start: Vec::with_capacity(count + 1),
        dep_nodes: Vec::new(),
    };
    for item in items {
        numbered.dep_start.push(numbered.dep_nodes.len());
        numbered.dep_nodes.extend(
            item.deps
                .iter()
                .filter_map(|d| index.get(d.as_ref()).copied()),
        );
    }
    numbered.dep_start.push(numbered.dep_nodes.len());
    drop(index);
    compute_numbered(&numbered, |n| {
        names.get(n).map_or_else(String::new, |s| (*s).to_string())
    })
}

/// [`compute`] on numbered items; `name` names a node (for the cycles).
pub fn compute_numbered(items: &Numbered, name: impl Fn(usize) -> String) -> Waves {
    let count = items.class.len();
    let deps_of = |i: usize| row(&items.dep_start, &items.dep_nodes, i);
    // Whether item `i` depends on anything.
    let has_deps = |i: usize| !deps_of(i).is_empty();
    // Every node number used must exist, whatever `nodes` says.
    let highest = items
        .class
        .iter()
        .flatten()
        .chain(items.dep_nodes.iter())
        .map(|&n| n as usize + 1)
        .max()
        .unwrap_or(0);
    let nodes = items.nodes.max(highest);

    // Sized once: growing a list of a million edges by doubling copied it and touched
    // fresh memory at every step (the largest serial cost of the waves at 50k files).
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(items.dep_nodes.len());
    for (i, from) in items.class.iter().enumerate() {
        let Some(from) = *from else { continue };
        for &to in deps_of(i) {
            if from != to {
                edges.push((from, to));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    // A compressed graph: one number per edge and one start per node (an adjacency-list
    // graph took four times that, most of the waves' share of the peak at 50k files).
    // The edges are sorted and unique, so building cannot fail; an empty graph if it did.
    let mut graph: Csr<(), (), Directed, u32> = Csr::from_sorted_edges(&edges).unwrap_or_default();
    drop(edges);
    while graph.node_count() < nodes {
        graph.add_node(());
    }

    // tarjan_scc lists components in post-order: every component after the ones it
    // depends on.
    let sccs = tarjan_scc(&graph);
    let mut component = vec![0usize; graph.node_count()];
    for (c, scc) in sccs.iter().enumerate() {
        for node in scc {
            if let Some(slot) = component.get_mut(*node as usize) {
                *slot = c;
            }
        }
    }
    // The items of each class, in item order: one list and a start per class (a list per
    // class was an allocation for each of a hundred thousand classes).
    let mut class_start = vec![0usize; graph.node_count() + 1];
    for &n in items.class.iter().flatten() {
        if let Some(slot) = class_start.get_mut(n as usize + 1) {
            *slot += 1;
        }
    }
    for c in 1..class_start.len() {
        let before = class_start.get(c - 1).copied().unwrap_or(0);
        if let Some(slot) = class_start.get_mut(c) {
            *slot += before;
        }
    }
    let mut class_items = vec![0usize; class_start.last().copied().unwrap_or(0)];
    let mut cursor = class_start.clone();
    for (i, node) in items.class.iter().enumerate() {
        let Some(at) = node.and_then(|n| cursor.get_mut(n as usize)) else {
            continue;
        };
        if let Some(slot) = class_items.get_mut(*at) {
            *slot = i;
        }
        *at += 1;
    }
    drop(cursor);
    let items_of_class = |n: usize| row(&class_start, &class_items, n);

    let mut wave = vec![0usize; count];
    // The highest wave among a class's items; None for a class without items.
    let mut class_max: Vec<Option<usize>> = vec![None; graph.node_count()];
    let mut cycles = Vec::new();
    let mut members: Vec<usize> = Vec::new();
    for (c, scc) in sccs.iter().enumerate() {
        let cyclic = scc.len() > 1;
        let mut shared = 0usize;
        members.clear();
        for node in scc {
            members.extend_from_slice(items_of_class(*node as usize));
        }
        for &i in &members {
            let mut base = 0usize;
            for &dep in deps_of(i) {
                let dep = dep as usize;
                if component.get(dep) == Some(&c) {
                    continue;
                }
                if let Some(max) = class_max.get(dep).copied().flatten() {
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
            let mut names: Vec<String> = scc.iter().map(|&n| name(n as usize)).collect();
            names.sort();
            cycles.push(names);
        }
        for node in scc {
            let max = items_of_class(*node as usize)
                .iter()
                .filter_map(|&i| wave.get(i).copied())
                .max();
            if let Some(slot) = class_max.get_mut(*node as usize) {
                *slot = max;
            }
        }
    }
    cycles.sort();
    Waves { wave, cycles }
}

/// Row `i` of a list of rows kept as one list of values and the start of each row
/// (`starts` has one more entry than there are rows); empty for a row that is not there.
fn row<'a, T>(starts: &[usize], values: &'a [T], i: usize) -> &'a [T] {
    match (starts.get(i), starts.get(i + 1)) {
        (Some(&a), Some(&b)) => values.get(a..b).unwrap_or_default(),
        _ => &[],
    }
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
