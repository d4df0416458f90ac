//! `rspec-scout strip-markers`: removes marker lines and nothing else.

use crate::util::Project;

const SPEC: &str = "\
# frozen_string_literal: true

RSpec.describe Checkout do
  describe '#call' do
    # rspec-testing:method_begin method=\"#call\" method_id=\"Checkout#call\"
    subject(:result) { instance.call }

    context 'when authenticated' do
      # rspec-testing:example behavior_id=\"ok\" kind=\"success\" path=\"1:a=true\"
      it_behaves_like 'ok'
      it 'works' do # rspec-testing:example stays (not a marker line)
        expect(result).to be(true)
        #rspec-testing:example behavior_id=\"x\"
      end
    end
    # rspec-testing:method_end method=\"#call\" method_id=\"Checkout#call\"
  end
end
";

const STRIPPED: &str = "\
# frozen_string_literal: true

RSpec.describe Checkout do
  describe '#call' do
    subject(:result) { instance.call }

    context 'when authenticated' do
      it_behaves_like 'ok'
      it 'works' do # rspec-testing:example stays (not a marker line)
        expect(result).to be(true)
      end
    end
  end
end
";

#[test]
fn removes_marker_lines_and_prints_ok() {
    let p = Project::new();
    p.write("spec/checkout_spec.rb", SPEC);
    let run = p
        .run(&["strip-markers", "spec/checkout_spec.rb"])
        .expect_code(0);
    assert_eq!(run.stdout, "OK\n");
    assert_eq!(p.read("spec/checkout_spec.rb"), STRIPPED);
    // A second run changes nothing (the original added a newline per run).
    let run = p
        .run(&["strip-markers", "spec/checkout_spec.rb", "--format", "yaml"])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "status: success\nspec_path: spec/checkout_spec.rb\nremoved_lines: 0\n"
    );
    assert_eq!(p.read("spec/checkout_spec.rb"), STRIPPED);
}

#[test]
fn structured_answer_counts_removed_lines() {
    let p = Project::new();
    p.write("spec/checkout_spec.rb", SPEC);
    let run = p
        .run(&["strip-markers", "spec/checkout_spec.rb", "--format", "json"])
        .expect_code(0);
    assert_eq!(
        run.stdout,
        "{\n  \"status\": \"success\",\n  \"spec_path\": \"spec/checkout_spec.rb\",\n  \"removed_lines\": 4\n}\n"
    );
}

#[test]
fn missing_spec_is_an_error() {
    let p = Project::new();
    let run = p
        .run(&["strip-markers", "spec/nope_spec.rb"])
        .expect_code(1);
    // Text (the default here): the whole error on stderr, nothing on stdout.
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "rspec-scout: error: Spec file not found: spec/nope_spec.rb (SPEC_ERROR)\n  details: spec/nope_spec.rb\n  suggestion: fix the spec file or the metadata and run again\n"
    );
}
