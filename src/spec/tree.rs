//! The context tree of each method (contract §4.1, §4.6): characteristics matched to their
//! parent values exactly as the pipeline's generator does (level, `depends_on`,
//! `when_parent`, with Ruby `==`), each leaf resolved to its examples.

use crate::yaml::Value;

use super::behaviors::BehaviorBank;
use super::lets::let_line;
use super::markers;
use super::model::{Characteristic, Metadata, MethodInput, SetupHint};
use super::order::order_values;
use super::text::context_text_in;
use super::words::context_word;
use crate::ruby;

/// Deepest characteristic level followed; real trees stay below 10.
pub const MAX_LEVEL: i64 = 100;

/// The placeholder description of the single example of a method without characteristics.
pub const BEHAVIOR_DESCRIPTION: &str = "{BEHAVIOR_DESCRIPTION}";

/// What an example stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExampleKind {
    /// The outcome of a terminal value.
    Terminal,
    /// The outcome of a non-terminal leaf.
    Success,
    /// A side effect of the method, in every non-terminal leaf.
    SideEffect,
}

impl ExampleKind {
    /// The marker's `kind` attribute.
    pub fn as_str(self) -> &'static str {
        match self {
            ExampleKind::Terminal => "terminal",
            ExampleKind::Success => "success",
            ExampleKind::SideEffect => "side_effect",
        }
    }
}

/// One `it` of the skeleton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// The `it` description (from the behavior bank).
    pub description: String,
    /// The behavior's id as text.
    pub behavior_id: String,
    /// Terminal, success or side effect.
    pub kind: ExampleKind,
    /// The canonical branch path.
    pub path: String,
}

/// One `context`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// `when`, `with`, `and`, `but`, `without` or `{CONTEXT_WORD}`.
    pub word: String,
    /// The text after the word.
    pub text: String,
    /// The `let` line, if the type has one.
    pub let_line: Option<String>,
    /// The characteristic's `source_line`, when set.
    pub source_line: Option<String>,
    /// The examples (leaves only).
    pub examples: Vec<Example>,
    /// Child contexts (intermediate values only).
    pub children: Vec<Context>,
    /// The leaf's behavior is disabled: the context is rendered as a `# SKIPPED` comment.
    pub skipped: bool,
    /// What builds this context's setup with factories (`factory :payment, trait
    /// :completed`), from `factories_detected`.
    pub setup_hint: Option<String>,
    /// The line written where `{SETUP_CODE}` goes (`None`: the placeholder). Set only for a
    /// person's spec ([`name_setups`]); the pipeline's skeleton keeps the contract's layout.
    pub setup_line: Option<String>,
}

/// For a spec a person reads (`--placeholders pending`): each context's setup line is a
/// TODO that names the factory and trait that build it, where `factories_detected` knows
/// one; the others keep the placeholder (made a plain TODO later).
pub fn name_setups(trees: &mut [MethodTree]) {
    fn walk(contexts: &mut [Context]) {
        for c in contexts {
            if let Some(hint) = &c.setup_hint {
                c.setup_line = Some(format!("# TODO: setup for this context ({hint})"));
            }
            walk(&mut c.children);
        }
    }
    for t in trees {
        walk(&mut t.contexts);
    }
}

/// The tree of one method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodTree {
    /// The method name.
    pub name: String,
    /// `#name` or `.name`.
    pub descriptor: String,
    /// `Class#name` or `Class.name`.
    pub method_id: String,
    /// `type == 'instance'` (the subject is `instance.name`).
    pub instance: bool,
    /// The root contexts.
    pub contexts: Vec<Context>,
    /// Whether the method has no characteristics at all. Such a method gets its side-effect
    /// examples and one success example directly in its `describe` (the original script
    /// refused to generate it).
    pub no_characteristics: bool,
    /// The examples of a method without characteristics.
    pub examples: Vec<Example>,
    /// What calls a private method Rails runs (`before_create`), if it is one.
    pub trigger: Option<String>,
    /// For a Rails controller's method, the request that exercises it (set from the app's
    /// routes by [`super::request`]); `None` renders the unit form.
    pub request: Option<super::request::RequestSubject>,
    /// Its class when it is not the file's (a second or nested class): its block goes in
    /// that class's own `RSpec.describe`.
    pub class_name: Option<String>,
}

/// Builds the tree of every method, in metadata order. Errors are the generator's
/// "Invalid metadata for structure generation" reasons.
pub fn build(meta: &Metadata) -> Result<Vec<MethodTree>, String> {
    let bank = BehaviorBank::new(meta.behaviors.clone());
    meta.methods
        .iter()
        .map(|m| build_method(meta, m, &bank))
        .collect()
}

struct SideEffect {
    id: String,
    description: String,
}

fn build_method(
    meta: &Metadata,
    m: &MethodInput,
    bank: &BehaviorBank,
) -> Result<MethodTree, String> {
    let mut side_effects = Vec::new();
    // An effect a leaf ends with is that leaf's example (`scope: leaf`), not one of every
    // context; the pipeline's metadata has none such.
    for effect in m.side_effects.iter().filter(|e| !e.leaf) {
        if let Some(r) = bank.side_effect(&effect.behavior_id)? {
            side_effects.push(SideEffect {
                id: r.id,
                description: r.description,
            });
        }
    }
    let descriptor = m.descriptor();
    let hints: Vec<&SetupHint> = meta
        .setup_hints
        .iter()
        .filter(|h| h.method == descriptor)
        .collect();
    let builder = Builder {
        chars: &m.characteristics,
        bank,
        side_effects: &side_effects,
        hints: &hints,
    };
    let contexts = builder.contexts(1, None, &[])?;
    let no_characteristics = m.characteristics.is_empty();
    let examples = if no_characteristics {
        // The analyzer records what such a method does as its own `behavior_id`; without
        // it the description is left for the spec writer.
        let own = if ruby::blank_value(Some(&m.behavior_id)) {
            None
        } else {
            bank.leaf(&m.behavior_id)?
        };
        let (id, description) = match own {
            Some(r) => (r.id, r.description),
            None => (String::new(), BEHAVIOR_DESCRIPTION.to_string()),
        };
        leaf_examples(&side_effects, id, description, String::new())
    } else {
        Vec::new()
    };
    Ok(MethodTree {
        name: m.name.clone(),
        descriptor: m.descriptor(),
        method_id: m.method_id(&meta.class_name),
        class_name: m.class_name.clone(),
        instance: m.is_instance(),
        contexts,
        no_characteristics,
        examples,
        trigger: m.trigger.clone(),
        request: None,
    })
}

/// Side-effect examples, then the success example.
fn leaf_examples(
    side_effects: &[SideEffect],
    id: String,
    description: String,
    path: String,
) -> Vec<Example> {
    let mut examples: Vec<Example> = side_effects
        .iter()
        .map(|e| Example {
            description: e.description.clone(),
            behavior_id: e.id.clone(),
            kind: ExampleKind::SideEffect,
            path: path.clone(),
        })
        .collect();
    examples.push(Example {
        description,
        behavior_id: id,
        kind: ExampleKind::Success,
        path,
    });
    examples
}

struct Builder<'a> {
    chars: &'a [Characteristic],
    bank: &'a BehaviorBank,
    side_effects: &'a [SideEffect],
    /// The method's `factories_detected` entries.
    hints: &'a [&'a SetupHint],
}

impl Builder<'_> {
    /// The contexts at `level` under `parent` (`(name, value)` of the parent context).
    fn contexts(
        &self,
        level: i64,
        parent: Option<(&Value, &Value)>,
        path: &[(i64, String, Value)],
    ) -> Result<Vec<Context>, String> {
        if level > MAX_LEVEL {
            return Err(format!(
                "characteristics nested deeper than {MAX_LEVEL} levels"
            ));
        }
        let level_value = Value::from(level);
        let mut out = Vec::new();
        for c in self.chars {
            if !ruby::eq(&c.level, &level_value) {
                continue;
            }
            let attached = match parent {
                None => c.depends_on.is_null(),
                Some((name, value)) => {
                    ruby::eq(&c.depends_on, name)
                        && c.when_parent
                            .as_deref()
                            .unwrap_or_default()
                            .iter()
                            .any(|w| ruby::eq(w, value))
                }
            };
            if !attached {
                continue;
            }
            for (index, v) in order_values(c).into_iter().enumerate() {
                let mut segments = path.to_vec();
                segments.push((level, c.name_s(), v.value.clone()));
                let context_path = markers::path(&segments);
                let mut context = Context {
                    word: context_word(c, &v.value, &v.description, index, level).to_string(),
                    text: context_text_in(c, v, self.chars),
                    let_line: let_line(c, v),
                    source_line: ruby::truthy(&c.source_line).then(|| ruby::to_s(&c.source_line)),
                    examples: Vec::new(),
                    children: Vec::new(),
                    skipped: false,
                    setup_hint: self
                        .hints
                        .iter()
                        .find(|h| h.characteristic == c.name_s() && ruby::eq(&h.value, &v.value))
                        .map(|h| h.text.clone()),
                    setup_line: None,
                };
                if v.terminal {
                    match self.bank.leaf(&v.behavior_id)? {
                        None => context.skipped = true,
                        Some(r) => context.examples.push(Example {
                            description: r.description,
                            behavior_id: r.id,
                            kind: ExampleKind::Terminal,
                            path: context_path,
                        }),
                    }
                } else {
                    context.children =
                        self.contexts(level + 1, Some((&c.name, &v.value)), &segments)?;
                    if context.children.is_empty() {
                        match self.bank.leaf(&v.behavior_id)? {
                            None => context.skipped = true,
                            Some(r) => {
                                context.examples = leaf_examples(
                                    self.side_effects,
                                    r.id,
                                    r.description,
                                    context_path,
                                );
                            }
                        }
                    }
                }
                out.push(context);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Value;

    fn trees(yaml: &str) -> Result<Vec<MethodTree>, String> {
        let map = match crate::yaml::load(yaml.as_bytes(), "t").unwrap() {
            Value::Mapping(m) => m,
            _ => panic!("not a mapping"),
        };
        build(&crate::spec::model::read(&map).unwrap())
    }

    /// `word text [examples] {children}` per context, one line each, indented.
    fn summary(contexts: &[Context], depth: usize, out: &mut String) {
        for c in contexts {
            let examples: Vec<String> = c
                .examples
                .iter()
                .map(|e| format!("{}:{}@{}", e.kind.as_str(), e.behavior_id, e.path))
                .collect();
            out.push_str(&format!(
                "{}{} {}{} [{}]\n",
                "  ".repeat(depth),
                c.word,
                c.text,
                if c.skipped { " SKIPPED" } else { "" },
                examples.join(" ")
            ));
            summary(&c.children, depth + 1, out);
        }
    }

    const BANK: &str = "class_name: A\nbehaviors:\n  - {id: ok, description: ok}\n  - {id: bad, description: bad}\n";

    #[test]
    fn siblings_follow_each_other_without_a_cross_product() {
        let yaml = format!(
            "{BANK}methods:\n  - name: m\n    type: instance\n    side_effects: [{{behavior_id: ok}}]\n    characteristics:\n      - {{name: a, type: boolean, level: 1, values: [{{value: true, description: a, terminal: false}}, {{value: false, description: not a, terminal: true, behavior_id: bad}}]}}\n      - {{name: b, type: boolean, level: 2, depends_on: a, when_parent: [true], values: [{{value: true, description: b, terminal: false, behavior_id: ok}}]}}\n      - {{name: c, type: enum, level: 2, depends_on: a, when_parent: [1.0, true], values: [{{value: x, description: x, terminal: false, behavior_id: ok}}]}}\n      - {{name: d, type: enum, level: 2, depends_on: a, when_parent: ['true'], values: [{{value: y, terminal: false, behavior_id: ok}}]}}\n"
        );
        let t = trees(&yaml).unwrap();
        let mut out = String::new();
        summary(&t[0].contexts, 0, &mut out);
        assert_eq!(
            out,
            "\
when a []
  with b [side_effect:ok@1:a=true,2:b=true success:ok@1:a=true,2:b=true]
  and c is x [side_effect:ok@1:a=true,2:c=\"x\" success:ok@1:a=true,2:c=\"x\"]
when NOT a [terminal:bad@1:a=false]
"
        );
        assert_eq!(t[0].method_id, "A#m");
        assert!(t[0].instance);
    }

    #[test]
    fn integer_and_float_levels_and_parents_compare_like_ruby() {
        let yaml = format!(
            "{BANK}methods:\n  - name: m\n    type: class\n    characteristics:\n      - {{name: n, type: enum, level: 1.0, values: [{{value: 1, description: one, terminal: false}}]}}\n      - {{name: k, type: enum, level: 2, depends_on: n, when_parent: [1.0], values: [{{value: z, description: z, terminal: false, behavior_id: ok}}]}}\n"
        );
        let t = trees(&yaml).unwrap();
        let mut out = String::new();
        summary(&t[0].contexts, 0, &mut out);
        assert_eq!(
            out,
            "when n is one []\n  and k is z [success:ok@1:n=1,2:k=\"z\"]\n"
        );
        assert_eq!(t[0].method_id, "A.m");
    }

    #[test]
    fn runaway_nesting_is_an_error() {
        let mut yaml = format!("{BANK}methods:\n  - name: m\n    characteristics:\n");
        for level in 1..=MAX_LEVEL + 1 {
            let parent = if level == 1 {
                String::new()
            } else {
                format!(", depends_on: c{}, when_parent: [true]", level - 1)
            };
            yaml.push_str(&format!(
                "      - {{name: c{level}, type: boolean, level: {level}{parent}, values: [{{value: true, terminal: false, behavior_id: ok}}]}}\n"
            ));
        }
        assert_eq!(
            trees(&yaml).unwrap_err(),
            "characteristics nested deeper than 100 levels"
        );
    }
}
