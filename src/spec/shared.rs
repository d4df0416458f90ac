//! Shared-example deduplication (contract §4.8): within one method, an example whose
//! (`behavior_id`, `kind`) pair occurs at least `threshold` times becomes one
//! `shared_examples` template, and each occurrence an `it_behaves_like` of it.

use std::collections::BTreeMap;

use super::tree::{Context, Example, ExampleKind, MethodTree};

/// The default threshold.
pub const DEFAULT_THRESHOLD: usize = 3;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// `__rspec_testing__{method_id}__{behavior_id}__{kind}`.
    pub name: String,
    /// The description of the first occurrence.
    pub description: String,
    /// The behavior id.
    pub behavior_id: String,
    /// The example kind.
    pub kind: ExampleKind,
}

/// The templates of one method, sorted by (behavior_id, kind name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Templates in emission order.
    pub templates: Vec<Template>,
}

impl Plan {
    /// The template an example is replaced by, if any.
    pub fn template_for(&self, example: &Example) -> Option<&Template> {
        self.templates
            .iter()
            .find(|t| t.behavior_id == example.behavior_id && t.kind == example.kind)
    }
}

/// Plans the templates of `method` (no templates when `threshold` is 0).
pub fn plan(method: &MethodTree, threshold: usize) -> Plan {
    if threshold == 0 {
        return Plan::default();
    }
    let mut examples = Vec::new();
    examples.extend(method.examples.iter());
    collect(&method.contexts, &mut examples);
    // (behavior_id, kind name) -> (count, first occurrence)
    let mut counts: BTreeMap<(&str, &str), (usize, &Example)> = BTreeMap::new();
    for example in examples {
        counts
            .entry((example.behavior_id.as_str(), example.kind.as_str()))
            .and_modify(|(n, _)| *n += 1)
            .or_insert((1, example));
    }
    let templates = counts
        .into_iter()
        .filter(|(_, (n, _))| *n >= threshold)
        .map(|((id, kind), (_, first))| Template {
            name: format!("__rspec_testing__{}__{id}__{kind}", method.method_id),
            description: first.description.clone(),
            behavior_id: first.behavior_id.clone(),
            kind: first.kind,
        })
        .collect();
    Plan { templates }
}

fn collect<'a>(contexts: &'a [Context], out: &mut Vec<&'a Example>) {
    for context in contexts {
        out.extend(context.examples.iter());
        collect(&context.children, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(id: &str, kind: ExampleKind, description: &str) -> Example {
        Example {
            description: description.to_string(),
            behavior_id: id.to_string(),
            kind,
            path: String::new(),
        }
    }

    fn method(examples: Vec<Example>, nested: Vec<Example>) -> MethodTree {
        let context = |examples: Vec<Example>, children: Vec<Context>| Context {
            word: "when".to_string(),
            text: "x".to_string(),
            let_line: None,
            source_line: None,
            examples,
            children,
            skipped: false,
            setup_hint: None,
            setup_line: None,
        };
        MethodTree {
            trigger: None,
            class_name: None,
            request: None,
            name: "m".to_string(),
            descriptor: "#m".to_string(),
            method_id: "A#m".to_string(),
            instance: true,
            contexts: vec![context(examples, vec![context(nested, Vec::new())])],
            no_characteristics: false,
            examples: Vec::new(),
        }
    }

    #[test]
    fn pairs_at_the_threshold_become_sorted_templates() {
        let m = method(
            vec![
                example("zeta", ExampleKind::Success, "first zeta"),
                example("alpha", ExampleKind::SideEffect, "alpha effect"),
                example("alpha", ExampleKind::Terminal, "alpha once"),
            ],
            vec![
                example("zeta", ExampleKind::Success, "second zeta"),
                example("alpha", ExampleKind::SideEffect, "alpha effect"),
            ],
        );
        let names: Vec<(String, String)> = plan(&m, 2)
            .templates
            .iter()
            .map(|t| (t.name.clone(), t.description.clone()))
            .collect();
        assert_eq!(
            names,
            [
                (
                    "__rspec_testing__A#m__alpha__side_effect".to_string(),
                    "alpha effect".to_string()
                ),
                (
                    "__rspec_testing__A#m__zeta__success".to_string(),
                    "first zeta".to_string()
                ),
            ]
        );
        assert!(plan(&m, 3).templates.is_empty());
        assert!(plan(&m, 0).templates.is_empty());
        let p = plan(&m, 2);
        assert!(p
            .template_for(&example("alpha", ExampleKind::Terminal, ""))
            .is_none());
        assert!(p
            .template_for(&example("zeta", ExampleKind::Success, ""))
            .is_some());
    }
}
