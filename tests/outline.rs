//! `rspec-scout outline`: the describe/context/it outline of an existing spec, per method
//! block, read with Ruby's parser.

use crate::util::Project;

const META: &str = r#"source_file: app/services/checkout.rb
spec_path: spec/services/checkout_spec.rb
class_name: Checkout
behaviors:
  - {id: raises_unauthorized, description: "raises UnauthorizedError"}
  - {id: charges_card, description: "charges the card"}
methods:
  - name: call
    type: instance
    method_mode: new
    characteristics:
      - {name: authenticated, type: boolean, level: 1, values: [
          {value: true, description: "authenticated", terminal: false, behavior_id: charges_card},
          {value: false, description: "not authenticated", terminal: true, behavior_id: raises_unauthorized}]}
  - name: build
    type: class
    method_mode: new
    characteristics:
      - {name: kind, type: enum, level: 1, values: [
          {value: a, description: "a", terminal: false, behavior_id: charges_card},
          {value: b, description: "b", terminal: false, behavior_id: charges_card},
          {value: c, description: "c", terminal: false, behavior_id: charges_card}]}
"#;

const SPEC: &str = "spec/services/checkout_spec.rb";

fn skeleton() -> Project {
    let p = Project::new();
    p.write(
        ".claude/rspec-testing-config.yml",
        "project_type: service\n",
    );
    p.write("tmp/rspec_metadata/meta.yml", META);
    p.run(&["skeleton", "tmp/rspec_metadata/meta.yml"])
        .expect_code(0);
    p
}

#[test]
fn lists_groups_and_examples_including_shared_ones() {
    let p = skeleton();
    let run = p.run(&["outline", SPEC]).expect_code(0);
    assert_eq!(
        run.stdout,
        "\
RSpec.describe Checkout do
  describe '#call' do
    context 'when authenticated' do
      it 'charges the card'
    end
    context 'when NOT authenticated' do
      it 'raises UnauthorizedError'
    end
  end

  describe '.build' do
    context 'when kind is a' do
      it 'charges the card'
    end
    context 'when kind is b' do
      it 'charges the card'
    end
    context 'when kind is c' do
      it 'charges the card'
    end
  end
end
"
    );
}

#[test]
fn reads_a_filled_and_hand_edited_spec() {
    let p = skeleton();
    let spec = p.read(SPEC);
    let spec = spec
        .replace("{SETUP_CODE}", "before { allow(gateway).to receive(:charge) if live? }")
        .replace("{EXPECTATION}", "expect(result).to eq(<<~TEXT)\n          end\n        TEXT")
        .replace("{COMMON_SETUP}", "let(:gateway) { -> { raise 'x' } }")
        .replace(
            "      it 'charges the card' do\n",
            "      it('is fast') { expect { result }.not_to raise_error }\n      it 'charges the card' do\n",
        );
    p.write(SPEC, &spec);
    let run = p
        .run(&["outline", SPEC, "--only", "Checkout#call"])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "\
RSpec.describe Checkout do
  describe '#call' do
    context 'when authenticated' do
      it 'is fast'
      it 'charges the card'
    end
    context 'when NOT authenticated' do
      it 'raises UnauthorizedError'
    end
  end
end
"
    );
}

#[test]
fn structured_answer() {
    let p = skeleton();
    let run = p
        .run(&[
            "outline",
            SPEC,
            "--only",
            "Checkout.build",
            "--format",
            "yaml",
        ])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "status: success\nspec_path: spec/services/checkout_spec.rb\noutline: \"RSpec.describe Checkout do\\n  describe '.build' do\\n    context 'when kind is a' do\\n      it 'charges the card'\\n    end\\n    context 'when kind is b' do\\n      it 'charges the card'\\n    end\\n    context 'when kind is c' do\\n      it 'charges the card'\\n    end\\n  end\\nend\"\n"
    );
}

#[test]
fn errors_keep_the_pipeline_wording() {
    let p = skeleton();
    let run = p
        .run(&["outline", SPEC, "--only", "Checkout#nope"])
        .expect_code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "rspec-scout: error: Cannot outline spec: No method blocks found for requested method_id(s): Checkout#nope (SPEC_ERROR)\n  details: spec/services/checkout_spec.rb\n  suggestion: fix the spec file or the metadata and run again\n"
    );
    let run = p.run(&["outline", "spec/missing_spec.rb"]).expect_code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "rspec-scout: error: Spec file not found: spec/missing_spec.rb (SPEC_ERROR)\n  details: spec/missing_spec.rb\n  suggestion: fix the spec file or the metadata and run again\n"
    );
    p.write(
        SPEC,
        "RSpec.describe Checkout do\n  describe '#call' do\nend\n",
    );
    let run = p.run(&["outline", SPEC, "--format", "json"]).expect_code(1);
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        answer["error"],
        "Cannot outline spec: spec does not parse as Ruby: line 3: unexpected end-of-input, assuming it is closing the parent top level context"
    );
}
