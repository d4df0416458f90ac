//! `rspec-scout factories` and `factories_detected`: the index of a Rails app's FactoryBot
//! factories (nested, `parent:`, `class:`, aliases, traits, enum traits, global traits, a
//! gem's testing_support factories), what `analyze` records per characteristic value, and
//! FactoryBot itself agreeing with the index.

use std::process::Command;

use crate::util::{bin, ruby, Project};

fn app() -> Project {
    let p = Project::new();
    p.copy_fixture("factories_app");
    p
}

fn names(answer: &serde_yaml::Value) -> Vec<String> {
    answer["factories"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_index_lists_every_factory_with_its_class_parent_and_traits() {
    let p = app();
    let run = p.run(&["factories"]).expect_code(0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn a_class_keeps_only_the_factories_that_build_it() {
    let p = app();
    let answer = p
        .run(&["factories", "--class", "Payment"])
        .expect_code(0)
        .yaml();
    assert_eq!(
        names(&answer),
        ["payment", "refunded_payment", "card_payment"]
    );
    // A factory named so counts too (`--class user` is the factory, not a class).
    let answer = p
        .run(&["factories", "--class", "user"])
        .expect_code(0)
        .yaml();
    assert_eq!(names(&answer), ["user"]);
}

#[test]
fn a_factory_file_that_does_not_parse_makes_the_answer_partial() {
    let p = app();
    p.write(
        "spec/factories/broken.rb",
        "FactoryBot.define do\n  factory :refund do\n    amount_cents { 100 }\n",
    );
    let run = p.run(&["factories"]).expect_code(2);
    let answer = run.yaml();
    assert_eq!(answer["status"], "partial");
    let diagnostics: Vec<&str> = answer["diagnostics"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(
        diagnostics
            .iter()
            .any(|d| d.starts_with("spec/factories/broken.rb:") && d.contains("syntax error")),
        "{diagnostics:?}"
    );
    // What the other files define is still there.
    assert!(names(&answer).contains(&"payment".to_string()));
}

/// `factories_detected` of the metadata `analyze` wrote for `file`.
fn detected(p: &Project, file: &str) -> serde_yaml::Value {
    p.run(&["analyze", file]).expect_code(0);
    let slug = file.trim_end_matches(".rb").replace('/', "_");
    let text = p.read(&format!("tmp/rspec_metadata/{slug}.yml"));
    let map: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    map["factories_detected"].clone()
}

#[test]
fn analyze_records_the_factory_and_trait_of_each_characteristic_value() {
    let p = app();
    let found = detected(&p, "app/services/refund_processor.rb");
    insta::assert_yaml_snapshot!(found);
}

#[test]
fn a_trait_added_to_a_factory_reaches_the_next_analysis() {
    let p = app();
    let file = "app/services/refund_processor.rb";
    let trial = |d: &serde_yaml::Value| {
        d["traits"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|t| t["attribute"] == "trial" && t["value"] == true)
            .cloned()
            .unwrap()
    };
    let before = detected(&p, file);
    assert_eq!(trial(&before)["status"], "missing");
    assert_eq!(trial(&before)["suggested_trait"], "trial");
    // The analysis is cached by its inputs: the factory file is one of them.
    p.edit(
        "spec/factories/subscriptions.rb",
        "    traits_for_enum :plan\n",
        "    traits_for_enum :plan\n\n    trait :trial do\n      trial { true }\n    end\n",
    );
    let after = detected(&p, file);
    assert_eq!(trial(&after)["status"], "trait");
    assert_eq!(trial(&after)["trait"], "trial");
    assert!(after["warnings"].as_sequence().unwrap().is_empty());
}

#[test]
fn an_enum_value_added_to_the_model_reaches_the_next_analysis() {
    let p = app();
    let file = "app/services/refund_processor.rb";
    let traits = |d: &serde_yaml::Value| -> Vec<String> {
        d["factories"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|f| f["class"] == "Subscription")
            .unwrap()["traits"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect()
    };
    let before = traits(&detected(&p, file));
    assert!(!before.contains(&"enterprise".to_string()), "{before:?}");
    // `traits_for_enum :plan` takes its values from the model.
    p.edit(
        "app/models/subscription.rb",
        "premium: \"premium\" }",
        "premium: \"premium\", enterprise: \"enterprise\" }",
    );
    let after = traits(&detected(&p, file));
    assert!(after.contains(&"enterprise".to_string()), "{after:?}");
}

/// FactoryBot itself loads the same files and lists what it registered: every factory, its
/// aliases, parent and traits, the global traits and sequences must match the index.
#[test]
fn factory_bot_itself_registers_what_the_index_lists() {
    let Some(ruby) = ruby() else { return };
    let has_factory_bot = Command::new(&ruby)
        .args(["-e", "require 'factory_bot'"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_factory_bot {
        assert!(
            std::env::var_os("RSPEC_SCOUT_REQUIRE_FACTORY_BOT").is_none(),
            "factory_bot is required (scripts/test installs ruby-factory-bot)"
        );
        eprintln!("factory_bot is not installed: cross-check skipped");
        return;
    }
    let p = app();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/factory-crosscheck.rb");
    let out = Command::new(&ruby)
        .arg(&script)
        .arg(p.root())
        .arg(bin())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every factory of the fixture, the engine's testing_support one included.
    assert!(
        stdout.contains("7 factories") && stdout.ends_with(": 0 differences\n"),
        "{stdout}"
    );
}

/// A spec for a person (`--placeholders pending`) names, in each context's setup TODO, the
/// factory and trait `factories_detected` found; the pipeline's skeleton keeps the
/// contract's `{SETUP_CODE}`.
#[test]
fn a_persons_skeleton_names_the_factory_and_trait_of_each_context() {
    let p = app();
    let file = "app/services/refund_processor.rb";
    p.run(&["analyze", file]).expect_code(0);
    let metadata = "tmp/rspec_metadata/app_services_refund_processor.yml";
    let pending = p
        .run(&[
            "skeleton",
            metadata,
            "--stdout",
            "--placeholders",
            "pending",
        ])
        .expect_code(0)
        .stdout;
    let setups: Vec<&str> = pending
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("context ") || l.starts_with("# TODO: setup for this context"))
        .collect();
    insta::assert_snapshot!(setups.join("\n"));
    let contract = p
        .run(&["skeleton", metadata, "--stdout"])
        .expect_code(0)
        .stdout;
    assert!(contract.contains("{SETUP_CODE}"));
    assert!(!contract.contains("factory :"), "{contract}");
    // The spec a person gets still parses and runs green (pending examples).
    if let Some(ruby) = ruby() {
        let spec = p.write("spec/services/refund_processor_spec.rb", &pending);
        let out = Command::new(ruby).arg("-c").arg(&spec).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `FactoryBot.automatically_define_enum_traits = false` (in a factory file or a spec
/// helper) leaves only the enum traits asked for with `traits_for_enum`.
#[test]
fn automatic_enum_traits_turned_off_leave_only_traits_for_enum() {
    let enum_traits = |answer: &serde_yaml::Value, factory: &str| -> Vec<String> {
        let f = answer["factories"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|f| f["name"] == factory)
            .unwrap();
        match f["enum_traits"].as_mapping() {
            None => Vec::new(),
            Some(m) => m.keys().map(|k| k.as_str().unwrap().to_string()).collect(),
        }
    };
    for place in ["spec/factories/payments.rb", "spec/rails_helper.rb"] {
        let p = app();
        let before = p.run(&["factories"]).expect_code(0).yaml();
        assert_eq!(enum_traits(&before, "payment"), ["channel", "status"]);
        let text = p.read(place);
        p.write(
            place,
            format!("FactoryBot.automatically_define_enum_traits = false\n{text}"),
        );
        let after = p.run(&["factories"]).expect_code(0).yaml();
        assert!(enum_traits(&after, "payment").is_empty(), "{place}");
        // Asked for by name, they stay.
        assert_eq!(
            enum_traits(&after, "subscription"),
            ["interval", "plan"],
            "{place}"
        );
    }
}
