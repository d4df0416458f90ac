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
    // The contract's outline text, then the method blocks and the tree under it.
    insta::assert_snapshot!("outline_structured_generated", run.stdout);
}

/// Lobsters-shaped hand-written specs (`describe Hat do` without `RSpec.`, no markers):
/// the outline used to be one blank line, and `--only` of a hand-written `describe
/// "#create"` was an error.
const HAT: &str = r##"# typed: false

require "rails_helper"

describe Hat do
  let(:user) { create(:user) }

  it "has a hat field" do
    hat = Hat.new(hat: nil)
    expect(hat).to_not be_valid
  end

  describe "#destroy_by_user_with_reason" do
    before { user.grant_moderatorship_by_user!(user) }

    it "logs the reason" do
      expect { hat.destroy_by_user_with_reason(user, "x") }.to change { Moderation.count }
    end
  end
end
"##;

#[test]
fn a_hand_written_spec_outlines_as_its_tree() {
    let p = Project::new();
    p.write("spec/models/hat_spec.rb", HAT);
    let run = p
        .run(&["outline", "spec/models/hat_spec.rb"])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "\
5-20   describe Hat
6        let(:user)
8-11     it \"has a hat field\"
13-19    describe \"#destroy_by_user_with_reason\"  [Hat#destroy_by_user_with_reason]
14         before
16-18      it \"logs the reason\"
"
    );
    let run = p
        .run(&[
            "outline",
            "spec/models/hat_spec.rb",
            "--only",
            "Hat#destroy_by_user_with_reason",
            "--format",
            "json",
        ])
        .expect_code(0);
    insta::assert_snapshot!("outline_structured_hand_written", run.stdout);
    // The pipeline's view, asked for: the header and the method block.
    let run = p
        .run(&["outline", "spec/models/hat_spec.rb", "--view", "methods"])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "describe Hat do\n  describe \"#destroy_by_user_with_reason\" do\n    it \"logs the reason\"\n  end\nend\n"
    );
    // strip-markers on a finished generated spec leaves a spec the tree view reads.
    let p = skeleton();
    p.run(&["strip-markers", SPEC]).expect_code(0);
    let run = p
        .run(&["outline", SPEC, "--only", "Checkout.build"])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "\
5-62   RSpec.describe Checkout
32-61    describe '.build'  [Checkout.build]
33         subject(:result)
37-41      shared_examples '__rspec_testing__Checkout.build__charges_card__success'
38-40        it 'charges the card'
43-48      context 'when kind is a'
44           let(:kind)
47           it_behaves_like '__rspec_testing__Checkout.build__charges_card__success'
49-54      context 'when kind is b'
50           let(:kind)
53           it_behaves_like '__rspec_testing__Checkout.build__charges_card__success'
55-60      context 'when kind is c'
56           let(:kind)
59           it_behaves_like '__rspec_testing__Checkout.build__charges_card__success'
"
    );
}

#[test]
fn a_file_without_rspec_blocks_says_so() {
    let p = Project::new();
    p.write(
        "spec/support/helpers.rb",
        "module Helpers\n  def sign_in(user) = user\nend\n",
    );
    let run = p
        .run(&["outline", "spec/support/helpers.rb"])
        .expect_code(0);
    assert_eq!(run.stdout, "spec/support/helpers.rb: no RSpec blocks\n");
    let run = p
        .run(&["outline", "spec/support/helpers.rb", "--format", "json"])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "{\n  \"status\": \"success\",\n  \"spec_path\": \"spec/support/helpers.rb\",\n  \"view\": \"tree\",\n  \"outline\": \"\",\n  \"methods\": [],\n  \"tree\": []\n}\n"
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
