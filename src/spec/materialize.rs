//! The decisions of `skeleton` when it writes a spec file (contract §4.11, the pipeline's
//! `materialize_spec_skeleton`): Rails controller spec paths and policy, legacy controller
//! specs, new methods whose block already exists, the `--new-conflict` flags, and the
//! manual spec wrapper. The decision objects keep the pipeline's fields and texts.

use serde::Serialize;

use crate::yaml::{Mapping, Value};

pub use crate::vocab::ConflictAction;

/// Parses `--new-conflict METHOD_ID=ACTION` flags. The value is split at its **last** `=`,
/// so setters work (`Foo#bar==skip` is `Foo#bar=` → skip). A later flag for the same id
/// wins. `beside` is accepted as well as the contract's `overwrite` and `skip`: it is the
/// third choice of a conflict with a hand-written block.
pub fn parse_new_conflicts(flags: &[String]) -> Result<Vec<(String, ConflictAction)>, String> {
    parse_method_actions(flags, "--new-conflict")
}

/// Parses `--hand-written METHOD_ID=ACTION` flags, like [`parse_new_conflicts`].
pub fn parse_hand_written(flags: &[String]) -> Result<Vec<(String, ConflictAction)>, String> {
    parse_method_actions(flags, "--hand-written")
}

fn parse_method_actions(
    flags: &[String],
    flag_name: &str,
) -> Result<Vec<(String, ConflictAction)>, String> {
    let mut out: Vec<(String, ConflictAction)> = Vec::new();
    for flag in flags {
        let Some((id, action)) = flag.rsplit_once('=') else {
            return Err(format!("{flag_name} must be METHOD_ID=ACTION"));
        };
        if crate::ruby::blank(id) || crate::ruby::blank(action) {
            return Err(format!("{flag_name} must be METHOD_ID=ACTION"));
        }
        let action = match ConflictAction::parse(action) {
            Some(a) if a != ConflictAction::Ask => a,
            _ => {
                return Err(format!(
                    "{flag_name} ACTION must be overwrite, skip or beside"
                ))
            }
        };
        out.retain(|(existing, _)| existing != id);
        out.push((id.to_string(), action));
    }
    Ok(out)
}

/// A controller's spec paths (relative to the project root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerPaths {
    /// `spec/requests/{dir}/{name without _controller}_spec.rb`.
    pub preferred: String,
    /// `spec/controllers/{rel}_spec.rb`.
    pub legacy: String,
}

/// The spec paths of `app/controllers/{rel}.rb`; `None` for other sources.
pub fn controller_paths(source_file: &str) -> Option<ControllerPaths> {
    let rel = source_file
        .strip_prefix("app/controllers/")?
        .strip_suffix(".rb")
        .filter(|r| !r.is_empty())?;
    let (dir, file) = match rel.rsplit_once('/') {
        Some((dir, file)) => (Some(dir), file),
        None => (None, rel),
    };
    let name = file.strip_suffix("_controller").unwrap_or(file);
    let preferred = match dir {
        Some(dir) => format!("spec/requests/{dir}/{name}_spec.rb"),
        None => format!("spec/requests/{name}_spec.rb"),
    };
    Some(ControllerPaths {
        preferred,
        legacy: format!("spec/controllers/{rel}_spec.rb"),
    })
}

/// The wrapper of a new spec file: frozen-string comment, `require '{helper}'` (when the
/// helper is not blank), and an empty `RSpec.describe {class_name} do ... end`.
pub fn wrapper(helper: &str, class_name: &str) -> String {
    let mut lines = vec!["# frozen_string_literal: true".to_string(), String::new()];
    if !crate::ruby::blank(helper) {
        lines.push(format!("require '{helper}'"));
        lines.push(String::new());
    }
    lines.push(format!("RSpec.describe {class_name} do"));
    lines.push("end".to_string());
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// A question for the caller (the answer comes back as a flag on the next run).
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    /// `controllers_spec_policy`, `controllers_dual_specs`, `controllers_legacy_cleanup` or
    /// `new_method_conflict`.
    pub decision: &'static str,
    /// A short title.
    pub title: &'static str,
    /// The question.
    pub question: String,
    /// The recommended choice's action.
    pub recommended_action: &'static str,
    /// What the question is about.
    pub context: Mapping,
    /// The possible answers.
    pub choices: Vec<Choice>,
}

/// One answer to a decision.
#[derive(Debug, Clone, Serialize)]
pub struct Choice {
    /// The answer.
    pub action: &'static str,
    /// For people.
    pub label: &'static str,
    /// The flag that gives this answer.
    pub flag: String,
    /// What it will do.
    pub effects: Mapping,
}

fn map(pairs: Vec<(&str, Value)>) -> Mapping {
    let mut m = Mapping::new();
    for (k, v) in pairs {
        m.insert(Value::from(k), v);
    }
    m
}

/// Where a controller's specs are and which exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerState {
    /// The paths.
    pub paths: ControllerPaths,
    /// Whether the request spec exists.
    pub preferred_exists: bool,
    /// Whether the legacy controller spec exists.
    pub legacy_exists: bool,
}

fn controller_context(source_file: &str, c: &ControllerState) -> Mapping {
    map(vec![
        ("file", Value::from(source_file)),
        (
            "preferred_spec_path",
            Value::from(c.paths.preferred.as_str()),
        ),
        ("preferred_exists", Value::Bool(c.preferred_exists)),
        ("legacy_spec_path", Value::from(c.paths.legacy.as_str())),
        ("legacy_exists", Value::Bool(c.legacy_exists)),
    ])
}

fn spec_choice(action: &'static str, label: &'static str, path: &str) -> Choice {
    Choice {
        action,
        label,
        flag: format!("--controllers-choice={action}"),
        effects: map(vec![("use_spec_path", Value::from(path))]),
    }
}

/// A legacy controller spec exists but no request spec: where should tests go?
pub fn controllers_spec_policy(source_file: &str, c: &ControllerState) -> Decision {
    Decision {
        decision: "controllers_spec_policy",
        title: "Rails controller spec policy",
        question: "Legacy controller spec detected, but request spec is missing.\nChoose where controller tests should be written for this file.".to_string(),
        recommended_action: "request",
        context: controller_context(source_file, c),
        choices: vec![
            spec_choice("request", "Create request spec (recommended)", &c.paths.preferred),
            spec_choice(
                "controller",
                "Update existing legacy controller spec (not recommended)",
                &c.paths.legacy,
            ),
        ],
    }
}

/// Both a request spec and a legacy controller spec exist: which one is updated?
pub fn controllers_dual_specs(source_file: &str, c: &ControllerState) -> Decision {
    Decision {
        decision: "controllers_dual_specs",
        title: "Rails controller: both request and legacy specs exist",
        question: "Both a request spec and a legacy controller spec exist for this controller.\nChoose which spec file should be updated by the pipeline.".to_string(),
        recommended_action: "request",
        context: controller_context(source_file, c),
        choices: vec![
            spec_choice("request", "Update request spec (recommended)", &c.paths.preferred),
            spec_choice(
                "controller",
                "Update legacy controller spec (not recommended)",
                &c.paths.legacy,
            ),
        ],
    }
}

/// What deleting a legacy controller spec would lose: its examples, and those without a
/// counterpart in the request spec (an example of the same description, or for an example
/// without one the same body, outside the generated blocks).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LegacyLoss {
    /// The examples of the legacy spec.
    pub examples: usize,
    /// The descriptions (or first body line) of those without a counterpart, in file order.
    pub without_counterpart: Vec<String>,
}

impl LegacyLoss {
    /// Whether deleting the legacy spec loses nothing.
    pub fn nothing_lost(&self) -> bool {
        self.without_counterpart.is_empty()
    }
}

/// Compares the examples of a legacy controller spec with those of the request spec
/// (`None` when it does not exist yet). Errors when either does not parse.
pub fn legacy_loss(
    legacy: &super::source::SpecText,
    request: Option<&super::source::SpecText>,
) -> Result<LegacyLoss, String> {
    let legacy_keys = example_keys(legacy, false)?;
    let request_keys = match request {
        Some(text) => example_keys(text, true)?,
        None => Vec::new(),
    };
    let without_counterpart = legacy_keys
        .iter()
        .filter(|(key, _)| !request_keys.iter().any(|(k, _)| k == key))
        .map(|(_, shown)| shown.clone())
        .collect();
    Ok(LegacyLoss {
        examples: legacy_keys.len(),
        without_counterpart,
    })
}

/// The examples of a spec outside its generated (marked) method blocks: the ones a person
/// wrote.
pub fn hand_written_examples(text: &super::source::SpecText) -> Result<usize, String> {
    Ok(example_keys(text, true)?.len())
}

/// Each example of a spec as (the key it is compared by, the text a person recognises):
/// its description, lower-cased with runs of spaces made one; without a description, its
/// body. With `skip_generated`, examples inside generated (marked) method blocks are left
/// out: a placeholder is no counterpart of a person's example.
fn example_keys(
    text: &super::source::SpecText,
    skip_generated: bool,
) -> Result<Vec<(String, String)>, String> {
    let blocks = super::source::parse(text)?;
    let generated: Vec<(usize, usize)> = if skip_generated {
        super::source::marker_blocks(text, &blocks)
            .unwrap_or_default()
            .iter()
            .map(|b| (b.open, b.close))
            .collect()
    } else {
        Vec::new()
    };
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for call in blocks.calls.iter().filter(|c| c.is_example()) {
        let line = usize::try_from(call.line).unwrap_or(1).saturating_sub(1);
        if generated
            .iter()
            .any(|(open, close)| *open <= line && line <= *close)
        {
            continue;
        }
        let described = call
            .arg
            .as_ref()
            .map(|a| a.value.clone().unwrap_or_else(|| a.source.clone()));
        let (key, shown) = match described {
            Some(d) => (squeeze(&d).to_lowercase(), d),
            None => {
                let last = call
                    .block
                    .map_or(line, |b| usize::try_from(b.close_line).unwrap_or(1) - 1);
                let body: Vec<&str> = (line..=last).map(|i| text.line(i).trim()).collect();
                let body = body.join(" ");
                (squeeze(&body), squeeze(&body))
            }
        };
        out.push((key, shown));
    }
    Ok(out)
}

/// Request specs are written and a legacy controller spec exists: delete it afterwards?
/// Never recommended when it would lose a person's examples, and offered only when every
/// example has a counterpart in the request spec (the contract recommends delete always;
/// taking that deleted hand-written specs).
pub fn controllers_legacy_cleanup(
    source_file: &str,
    c: &ControllerState,
    loss: &LegacyLoss,
) -> Decision {
    let lost = loss.without_counterpart.len();
    let question = if loss.nothing_lost() {
        format!(
            "A legacy controller spec exists under spec/controllers ({}): {} example{}, each with a counterpart in the request spec.\nDo you want to delete it after updating the request spec?",
            c.paths.legacy,
            loss.examples,
            if loss.examples == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "A legacy controller spec exists under spec/controllers ({}): {} example{}, {lost} of them without a counterpart in the request spec ({}).\nIt is kept: deleting it would lose those examples. Move them to the request spec first; delete is offered once none would be lost.",
            c.paths.legacy,
            loss.examples,
            if loss.examples == 1 { "" } else { "s" },
            c.paths.preferred
        )
    };
    let mut choices = vec![Choice {
        action: "keep",
        label: if loss.nothing_lost() {
            "Keep legacy controller spec (no deletion)"
        } else {
            "Keep legacy controller spec (recommended: it holds examples the request spec lacks)"
        },
        flag: "--controllers-legacy=keep".to_string(),
        effects: map(vec![("delete_paths", Value::Sequence(Vec::new()))]),
    }];
    if loss.nothing_lost() {
        choices.push(Choice {
            action: "delete",
            label: "Delete legacy controller spec (recommended: every example has a counterpart)",
            flag: "--controllers-legacy=delete".to_string(),
            effects: map(vec![(
                "delete_paths",
                Value::Sequence(vec![Value::from(c.paths.legacy.as_str())]),
            )]),
        });
    }
    Decision {
        decision: "controllers_legacy_cleanup",
        title: "Rails controller: legacy controller spec cleanup",
        question,
        recommended_action: if loss.nothing_lost() {
            "delete"
        } else {
            "keep"
        },
        context: map(vec![
            ("file", Value::from(source_file)),
            ("request_spec_path", Value::from(c.paths.preferred.as_str())),
            ("legacy_spec_path", Value::from(c.paths.legacy.as_str())),
            ("legacy_examples", Value::from(loss.examples)),
            ("examples_without_counterpart", Value::from(lost)),
            (
                "examples_lost_by_delete",
                Value::Sequence(
                    loss.without_counterpart
                        .iter()
                        .map(|d| Value::from(d.as_str()))
                        .collect(),
                ),
            ),
        ]),
        choices,
    }
}

/// The project tests with Minitest and shows no sign of RSpec: writing RSpec specs there
/// (each requiring a helper that does not exist, run by no test command) is the owner's
/// call, not a default.
pub fn test_framework_minitest(minitest: &[String]) -> Decision {
    Decision {
        decision: "test_framework",
        title: "This project tests with Minitest",
        question: format!(
            "This project tests with Minitest ({}) and has no RSpec setup (no rspec gem, no spec/ helper).\nrspec-scout writes RSpec specs: written here they would require a helper that does not exist and no test command would run them. Write them anyway (add RSpec first: `bundle add rspec-rails --group development,test` and `bin/rails generate rspec:install`), or stop here.",
            minitest.join(", ")
        ),
        recommended_action: "stop",
        context: map(vec![(
            "minitest_evidence",
            Value::Sequence(minitest.iter().map(|e| Value::from(e.as_str())).collect()),
        )]),
        choices: vec![
            Choice {
                action: "rspec",
                label: "Write RSpec specs anyway (remembered for this project)",
                flag: "--test-framework=rspec".to_string(),
                effects: map(vec![("writes", Value::from("RSpec specs under spec/"))]),
            },
            Choice {
                action: "stop",
                label: "Write nothing (recommended until RSpec is set up)",
                flag: String::new(),
                effects: map(vec![("writes", Value::Null)]),
            },
        ],
    }
}

/// Where a hand-written block is and what it holds, for the question about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandWritten {
    /// 1-based `first-last` line ranges of the method's `describe` blocks, in file order.
    pub lines: Vec<String>,
    /// The examples (`it`, `specify`, `example`, ...) inside them.
    pub examples: usize,
}

impl HandWritten {
    fn context(&self) -> Vec<(&'static str, Value)> {
        vec![
            (
                "hand_written_lines",
                Value::Sequence(self.lines.iter().map(|l| Value::from(l.as_str())).collect()),
            ),
            ("hand_written_examples", Value::from(self.examples)),
        ]
    }

    fn sentence(&self) -> String {
        format!(
            "The existing block has no rspec-testing markers: a person wrote it ({} example{}, lines {}).",
            self.examples,
            if self.examples == 1 { "" } else { "s" },
            self.lines.join(", ")
        )
    }
}

/// A method marked `new` already has a block in the spec: overwrite or skip? When the
/// block is hand-written (`detected_by: describe`), the question says so and a third
/// choice keeps it and adds the generated block beside it.
pub fn new_method_conflict(
    spec_path: &str,
    method_id: &str,
    detected_by: &str,
    hand_written: Option<&HandWritten>,
) -> Decision {
    let mut question = format!(
        "Metadata marks this method as new, but the spec already contains a describe block for method_id={method_id}.\nChoose whether to overwrite the existing block or skip this method."
    );
    let mut context = vec![
        ("spec_path", Value::from(spec_path)),
        ("method_id", Value::from(method_id)),
        ("detected_by", Value::from(detected_by)),
    ];
    let mut choices = vec![
        Choice {
            action: "overwrite",
            label: "Overwrite existing method block",
            flag: format!("--new-conflict={method_id}=overwrite"),
            effects: map(vec![("patch_action", Value::from("replace"))]),
        },
        Choice {
            action: "skip",
            label: "Skip this method (leave existing block unchanged)",
            flag: format!("--new-conflict={method_id}=skip"),
            effects: map(vec![("patch_action", Value::from("skip"))]),
        },
    ];
    if let Some(hand) = hand_written {
        question.push('\n');
        question.push_str(&hand.sentence());
        context.extend(hand.context());
        choices.push(beside_choice(format!("--new-conflict={method_id}=beside")));
    }
    Decision {
        decision: "new_method_conflict",
        title: "Conflict: method_mode=new but spec already contains the block",
        question,
        recommended_action: "skip",
        context: map(context),
        choices,
    }
}

/// A method that is not new has a hand-written block (no markers) in the spec. The
/// contract's patcher would replace its body; a person's examples are never removed
/// without a decision.
pub fn hand_written_block(
    spec_path: &str,
    method_id: &str,
    method_mode: &str,
    hand: &HandWritten,
) -> Decision {
    let mut context = vec![
        ("spec_path", Value::from(spec_path)),
        ("method_id", Value::from(method_id)),
        ("method_mode", Value::from(method_mode)),
        ("detected_by", Value::from("describe")),
    ];
    context.extend(hand.context());
    Decision {
        decision: "hand_written_block",
        title: "Conflict: the spec already has a hand-written block for this method",
        question: format!(
            "The spec already contains a describe block for method_id={method_id}.\n{}\nChoose whether to keep it and add the generated block beside it, overwrite it (its examples are lost), or skip this method.",
            hand.sentence()
        ),
        recommended_action: "beside",
        context: map(context),
        choices: vec![
            beside_choice(format!("--hand-written={method_id}=beside")),
            Choice {
                action: "overwrite",
                label: "Overwrite the hand-written block (its examples are removed)",
                flag: format!("--hand-written={method_id}=overwrite"),
                effects: map(vec![("patch_action", Value::from("replace"))]),
            },
            Choice {
                action: "skip",
                label: "Skip this method (leave the hand-written block unchanged)",
                flag: format!("--hand-written={method_id}=skip"),
                effects: map(vec![("patch_action", Value::from("skip"))]),
            },
        ],
    }
}

fn beside_choice(flag: String) -> Choice {
    Choice {
        action: "beside",
        label: "Keep the hand-written block and add the generated block after it",
        flag,
        effects: map(vec![
            ("patch_action", Value::from("insert")),
            ("position", Value::from("after_hand_written_block")),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_conflicts_split_at_the_last_equals_sign() {
        let flags = vec![
            "Foo#bar==skip".to_string(),
            "Foo#call=overwrite".to_string(),
            "Foo#call=skip".to_string(),
        ];
        assert_eq!(
            parse_new_conflicts(&flags).unwrap(),
            vec![
                ("Foo#bar=".to_string(), ConflictAction::Skip),
                ("Foo#call".to_string(), ConflictAction::Skip)
            ]
        );
        assert_eq!(
            parse_new_conflicts(&["Foo#call".to_string()]).unwrap_err(),
            "--new-conflict must be METHOD_ID=ACTION"
        );
        assert_eq!(
            parse_new_conflicts(&["=skip".to_string()]).unwrap_err(),
            "--new-conflict must be METHOD_ID=ACTION"
        );
        assert_eq!(
            parse_new_conflicts(&["Foo#call=ask".to_string()]).unwrap_err(),
            "--new-conflict ACTION must be overwrite, skip or beside"
        );
        assert_eq!(
            parse_hand_written(&["Foo#x?=beside".to_string(), "Foo#y=keep".to_string()])
                .unwrap_err(),
            "--hand-written ACTION must be overwrite, skip or beside"
        );
        assert_eq!(
            parse_hand_written(&["Foo#x?=beside".to_string()]).unwrap(),
            vec![("Foo#x?".to_string(), ConflictAction::Beside)]
        );
    }

    #[test]
    fn controller_spec_paths() {
        assert_eq!(
            controller_paths("app/controllers/admin/users_controller.rb"),
            Some(ControllerPaths {
                preferred: "spec/requests/admin/users_spec.rb".to_string(),
                legacy: "spec/controllers/admin/users_controller_spec.rb".to_string(),
            })
        );
        assert_eq!(
            controller_paths("app/controllers/payments_controller.rb").map(|p| p.preferred),
            Some("spec/requests/payments_spec.rb".to_string())
        );
        assert_eq!(controller_paths("app/models/user.rb"), None);
    }

    #[test]
    fn a_legacy_spec_loses_the_examples_the_request_spec_lacks() {
        use super::super::source::SpecText;
        let legacy = SpecText::from_text(
            "describe UsersController do\n  describe 'GET #index' do\n    it 'returns   Success' do\n      get :index\n    end\n    it { is_expected.to respond_with(200) }\n  end\n  it 'redirects guests' do\n  end\nend\n",
        );
        let request = SpecText::from_text(
            "RSpec.describe 'Users', type: :request do\n  it 'returns success' do\n    get '/users'\n  end\n  describe '#show' do\n    # rspec-testing:method_begin method=\"#show\" method_id=\"UsersController#show\"\n    it 'redirects guests' do\n      {EXPECTATION}\n    end\n    # rspec-testing:method_end method=\"#show\" method_id=\"UsersController#show\"\n  end\nend\n",
        );
        let loss = legacy_loss(&legacy, Some(&request)).unwrap();
        // `returns success` has a counterpart; the one-liner and the example whose only
        // match is a generated placeholder do not.
        assert_eq!(loss.examples, 3);
        assert_eq!(
            loss.without_counterpart,
            [
                "it { is_expected.to respond_with(200) }",
                "redirects guests"
            ]
        );
        let none = legacy_loss(&legacy, None).unwrap();
        assert_eq!(none.without_counterpart.len(), 3);
        let same = legacy_loss(&legacy, Some(&legacy)).unwrap();
        assert!(same.nothing_lost());

        let state = ControllerState {
            paths: controller_paths("app/controllers/users_controller.rb").unwrap(),
            preferred_exists: true,
            legacy_exists: true,
        };
        let asked =
            controllers_legacy_cleanup("app/controllers/users_controller.rb", &state, &loss);
        assert_eq!(asked.recommended_action, "keep");
        let actions: Vec<&str> = asked.choices.iter().map(|c| c.action).collect();
        assert_eq!(actions, ["keep"]);
        assert!(asked
            .question
            .contains("3 examples, 2 of them without a counterpart"));
        let asked =
            controllers_legacy_cleanup("app/controllers/users_controller.rb", &state, &same);
        assert_eq!(asked.recommended_action, "delete");
        let actions: Vec<&str> = asked.choices.iter().map(|c| c.action).collect();
        assert_eq!(actions, ["keep", "delete"]);
    }

    #[test]
    fn manual_wrapper() {
        assert_eq!(
            wrapper("rails_helper", "Admin::User"),
            "# frozen_string_literal: true\n\nrequire 'rails_helper'\n\nRSpec.describe Admin::User do\nend\n"
        );
        assert_eq!(
            wrapper(" ", "A"),
            "# frozen_string_literal: true\n\nRSpec.describe A do\nend\n"
        );
    }
}
