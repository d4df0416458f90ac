//! `rspec-scout init`: the pipeline config it writes, idempotence, values a person edited,
//! and the projects it refuses (no Gemfile, Minitest only).

use crate::util::{ruby, Project};

const LOCK: &str = "GEM
  remote: https://rubygems.org/
  specs:
    factory_bot (6.4.6)
      activesupport (>= 6.1.0)
    factory_bot_rails (6.4.3)
      factory_bot (~> 6.4)
    rails (7.1.3)
    rspec-core (3.13.0)
    rspec-rails (6.1.1)
      rspec-core (~> 3.13)
    shoulda-matchers (6.1.0)
    standard (1.33.0)
      rubocop (~> 1.59.0)
    rubocop (1.59.0)

PLATFORMS
  ruby

DEPENDENCIES
  factory_bot_rails
  rails (~> 7.1)
  rspec-rails
  shoulda-matchers
  standard

RUBY VERSION
   ruby 3.3.0p0

BUNDLED WITH
   2.5.3
";

/// A Rails app set up the way rspec-rails and factory_bot_rails leave it.
fn rails_app() -> Project {
    let p = Project::new();
    p.write(
        "Gemfile",
        "source \"https://rubygems.org\"\n\nruby \"3.3.0\"\n\ngem \"rails\", \"~> 7.1\"\n\ngroup :development, :test do\n  gem \"rspec-rails\"\n  gem \"factory_bot_rails\"\n  gem \"standard\"\nend\n\ngroup :test do\n  gem \"shoulda-matchers\"\nend\n",
    );
    p.write("Gemfile.lock", LOCK);
    p.write(".ruby-version", "3.3.0\n");
    p.write(".rspec", "--require spec_helper\n");
    p.write(
        "app/controllers/application_controller.rb",
        "class ApplicationController < ActionController::Base\nend\n",
    );
    p.write("spec/spec_helper.rb", "RSpec.configure do |config|\nend\n");
    p.write(
        "spec/rails_helper.rb",
        "require \"spec_helper\"\nrequire \"rspec/rails\"\n\nShoulda::Matchers.configure do |config|\n  config.integrate do |with|\n    with.test_framework :rspec\n    with.library :rails\n  end\nend\n",
    );
    p.write(
        "spec/factories/users.rb",
        "FactoryBot.define do\n  factory :user do\n    name { \"Ada\" }\n  end\nend\n",
    );
    p.write("spec/requests/users_spec.rb", "require \"rails_helper\"\n");
    p
}

/// The written config with its timestamp made fixed.
fn config_text(p: &Project) -> String {
    let text = p.read(".claude/rspec-testing-config.yml");
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("initialized_at: ") {
            out.push_str("initialized_at: \"<time>\"\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn redact_time(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("initialized_at") {
            Some(i) if l.contains('"') => {
                let (head, _) = l.split_at(i);
                format!("{head}initialized_at: \"<time>\"")
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_rails_app_is_asked_its_controllers_policy_then_gets_the_contracts_config() {
    let p = rails_app();
    let asked = p.run(&["init"]).expect_code(2);
    insta::assert_snapshot!(asked.stdout, @r#"
    status: needs_decision
    decisions:
      - decision: rails_controllers_spec_policy
        title: Where the pipeline writes a Rails controller's tests
        question: "This is a Rails project. Which specs should the pipeline write for controllers: request specs (spec/requests, recommended by RSpec and Rails), legacy controller specs (spec/controllers), or ask for each controller that already has a legacy spec?"
        recommended_action: request
        context:
          request_specs: spec/requests has specs
          controller_specs: spec/controllers is empty or missing
        choices:
          - action: request
            label: Request specs (recommended)
            flag: "--controllers-policy=request"
            effects:
              writes: "rails.controllers.spec_policy: request (spec/requests/...)"
          - action: controller
            label: Legacy controller specs
            flag: "--controllers-policy=controller"
            effects:
              writes: "rails.controllers.spec_policy: controller (spec/controllers/...)"
          - action: ask
            label: Ask per controller that has a legacy spec
            flag: "--controllers-policy=ask"
            effects:
              writes: "rails.controllers.spec_policy: ask (a question per file)"
    "#);
    assert!(
        !p.root().join(".claude").exists(),
        "nothing is written before the answer"
    );

    let run = p
        .run(&["init", "--controllers-policy", "request"])
        .expect_code(0);
    insta::assert_snapshot!(redact_time(&run.stdout), @r#"
    status: success
    message: "wrote .claude/rspec-testing-config.yml (rails, rspec 3.13.0, factory_bot)"
    config_file: .claude/rspec-testing-config.yml
    written: true
    added:
      - ruby_version
      - project_type
      - rspec.version
      - rspec.helper
      - rails.controllers.spec_policy
      - integrations.factories.gem
      - integrations.shoulda_matchers.enabled
      - integrations.shoulda_matchers.configured
      - linter
      - directories.spec
      - directories.factories
      - directories.support
      - metadata_path
      - initialized_at
    differences: []
    config:
      ruby_version: 3.3.0
      project_type: rails
      rspec:
        version: 3.13.0
        helper: rails_helper
      rails:
        controllers:
          spec_policy: request
      integrations:
        factories:
          gem: factory_bot
        shoulda_matchers:
          enabled: true
          configured: true
      linter: standardrb
      directories:
        spec: spec
        factories: spec/factories
        support: spec/support
      metadata_path: tmp
      initialized_at: "<time>"
    detected_from:
      ruby_version: .ruby-version
      project_type: Gemfile has gem 'rails'
      rspec.version: Gemfile.lock has rspec-core
      rspec.helper: spec/rails_helper.rb exists
      rails.controllers.spec_policy: "--controllers-policy"
      integrations.factories.gem: Gemfile has gem 'factory_bot_rails'
      integrations.shoulda_matchers.enabled: Gemfile has gem 'shoulda-matchers'
      integrations.shoulda_matchers.configured: spec/rails_helper.rb calls Shoulda::Matchers.configure
      linter: Gemfile has gem 'standard'
      directories.spec: spec/ holds the specs
      directories.factories: spec/factories exists
      directories.support: "spec/support does not exist yet: RSpec's convention"
      metadata_path: the default
      initialized_at: the time of the run (UTC)
    "#);
    insta::assert_snapshot!(config_text(&p), @r#"
    ruby_version: 3.3.0
    project_type: rails
    rspec:
      version: 3.13.0
      helper: rails_helper
    rails:
      controllers:
        spec_policy: request
    integrations:
      factories:
        gem: factory_bot
      shoulda_matchers:
        enabled: true
        configured: true
    linter: standardrb
    directories:
      spec: spec
      factories: spec/factories
      support: spec/support
    metadata_path: tmp
    initialized_at: "<time>"
    "#);
    // `initialized_at` is a quoted timestamp: Psych's safe_load (and the pipeline's
    // YAML.load) read it as a String, not a Time (DisallowedClass).
    let raw = p.read(".claude/rspec-testing-config.yml");
    assert!(
        raw.lines()
            .any(|l| l.starts_with("initialized_at: \"") && l.ends_with("Z\"")),
        "{raw}"
    );
    if let Some(ruby) = ruby() {
        let out = std::process::Command::new(ruby)
            .current_dir(p.root())
            .args([
                "-ryaml",
                "-e",
                "c = YAML.safe_load(File.read('.claude/rspec-testing-config.yml')); \
                 raise 'not a String' unless c['initialized_at'].is_a?(String); \
                 YAML.load_file('.claude/rspec-testing-config.yml'); \
                 puts [c['project_type'], c['rspec']['helper'], c['rails']['controllers']['spec_policy'], c['integrations']['factories']['gem'], c['integrations']['shoulda_matchers']['enabled'], c['metadata_path']].inspect",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "[\"rails\", \"rails_helper\", \"request\", \"factory_bot\", true, \"tmp\"]\n"
        );
    }
}

#[test]
fn a_second_run_changes_nothing() {
    let p = rails_app();
    p.run(&["init", "--controllers-policy", "request"])
        .expect_code(0);
    let path = p.root().join(".claude/rspec-testing-config.yml");
    let before = std::fs::read(&path).unwrap();
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    // No flag: the policy is in the file, so nothing is asked.
    let run = p.run(&["init", "--format", "text"]).expect_code(0);
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        modified,
        "not even rewritten"
    );
    assert!(
        run.stdout.starts_with(
            ".claude/rspec-testing-config.yml is up to date (rails, rspec 3.13.0, factory_bot)\n"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_hand_edited_value_is_kept_and_the_answer_says_where_file_and_detection_differ() {
    let p = rails_app();
    p.write(
        ".claude/rspec-testing-config.yml",
        "# Our choices: controller specs stay, metadata under .claude.\nproject_type: rails\nrspec:\n  version: \"3.12.0\"\nrails:\n  controllers:\n    spec_policy: controller\nlinter: rubocop\nmetadata_path: .claude/metadata\ninitialized_at: \"2024-01-02T03:04:05Z\"\n",
    );
    let before = p.read(".claude/rspec-testing-config.yml");
    let run = p
        .run(&["init", "--controllers-policy", "request"])
        .expect_code(0);
    let y = run.yaml();
    // `rspec.helper` belongs under the file's own `rspec:`: adding it means rewriting the
    // file, which would lose the comment, so it is listed instead.
    insta::assert_yaml_snapshot!(y["not_added"], @"- rspec.helper");
    insta::assert_yaml_snapshot!(y["differences"], @r#"
    - key: rspec.version
      file: 3.12.0
      detected: 3.13.0
      from: Gemfile.lock has rspec-core
    - key: rails.controllers.spec_policy
      file: controller
      detected: request
      from: "--controllers-policy"
    - key: linter
      file: rubocop
      detected: standardrb
      from: "Gemfile has gem 'standard'"
    "#);
    // The missing top-level keys are appended: every byte a person wrote (the comment
    // too) stays.
    let after = p.read(".claude/rspec-testing-config.yml");
    assert!(after.starts_with(&before), "{after}");
    insta::assert_snapshot!(after.strip_prefix(&before).unwrap(), @r#"
    ruby_version: 3.3.0
    integrations:
      factories:
        gem: factory_bot
      shoulda_matchers:
        enabled: true
        configured: true
    directories:
      spec: spec
      factories: spec/factories
      support: spec/support
    "#);
    // Every later command reads it: metadata goes where the file says.
    p.write(
        "app/models/user.rb",
        "class User < ApplicationRecord\n  def admin?\n    role == \"admin\"\n  end\nend\n",
    );
    p.run(&["discover", "--all", "app/models/user.rb"])
        .expect_code(0);
    assert!(p
        .root()
        .join(".claude/metadata/rspec_metadata/app_models_user.yml")
        .is_file());
}

#[test]
fn a_key_missing_under_a_commented_section_is_listed_not_added_by_a_rewrite() {
    let p = rails_app();
    p.write(
        ".claude/rspec-testing-config.yml",
        "# keep me\nproject_type: rails\nrspec:\n  helper: rails_helper\nrails:\n  controllers:\n    spec_policy: request\nintegrations:\n  factories:\n    gem: factory_bot\n",
    );
    let before = p.read(".claude/rspec-testing-config.yml");
    let run = p.run(&["init", "--format", "text"]).expect_code(0);
    let after = p.read(".claude/rspec-testing-config.yml");
    assert!(after.starts_with(&before), "{after}");
    assert!(
        run.stdout.contains("not added: rspec.version (the file has comments that a rewrite would lose: add it by hand)"),
        "{}",
        run.stdout
    );
    // Without comments, the file is written again with every key.
    p.write(
        ".claude/rspec-testing-config.yml",
        before.replace("# keep me\n", ""),
    );
    let run = p.run(&["init"]).expect_code(0);
    assert_eq!(run.yaml()["not_added"], serde_yaml::Value::Null);
    assert!(p
        .read(".claude/rspec-testing-config.yml")
        .contains("rspec:\n  helper: rails_helper\n  version: 3.13.0\n"));
}

#[test]
fn a_minitest_app_gets_an_error_that_says_minitest_and_the_files_that_told() {
    let p = Project::new();
    p.write("Gemfile", "source \"https://rubygems.org\"\ngem \"rails\"\ngroup :test do\n  gem \"minitest-reporters\"\nend\n");
    p.write(
        "Gemfile.lock",
        "GEM\n  specs:\n    minitest (5.25.1)\n    rails (7.1.3)\n\nDEPENDENCIES\n  rails\n",
    );
    p.write("test/test_helper.rb", "require \"rails/test_help\"\n");
    p.write(
        "test/models/user_test.rb",
        "class UserTest < ActiveSupport::TestCase\nend\n",
    );
    let run = p.run(&["init"]).expect_code(1);
    insta::assert_snapshot!(run.stdout, @r#"
    status: error
    error: "this project tests with minitest, not RSpec"
    details: "minitest: 1 *_test.rb file under test/, test/test_helper.rb exists, Gemfile has gem 'minitest-reporters'; no rspec gem in Gemfile or Gemfile.lock, no .rspec, no spec/ helper"
    suggestion: "the pipeline writes RSpec specs: add RSpec first (`bundle add rspec-rails --group development,test`, then `bin/rails generate rspec:install`) and run init again"
    error_code: MINITEST_ONLY
    recoverable: true
    "#);
    assert!(!p.root().join(".claude").exists());
}

#[test]
fn a_folder_without_a_gemfile_gets_an_error() {
    let p = Project::new();
    p.write("lib/thing.rb", "class Thing\nend\n");
    let run = p.run(&["init", "--format", "text"]).expect_code(1);
    assert!(run.stdout.is_empty());
    let first = run.stderr.lines().next().unwrap_or_default();
    assert_eq!(first, "rspec-scout: error: no Gemfile: the pipeline needs a Bundler project with RSpec (NO_GEMFILE)");
    assert!(!p.root().join(".claude").exists());
}

#[test]
fn no_rspec_and_no_spec_folder_are_the_contracts_errors() {
    let p = Project::new();
    p.write("Gemfile", "gem 'rake'\n");
    let run = p.run(&["init"]).expect_code(1);
    assert_eq!(run.yaml()["error_code"].as_str(), Some("NO_RSPEC"));
    p.write("Gemfile", "gem 'rake'\ngem 'rspec'\n");
    let run = p.run(&["init"]).expect_code(1);
    assert_eq!(run.yaml()["error_code"].as_str(), Some("NO_SPEC_DIRECTORY"));
    // A library: no Rails question, spec_helper, no rails block.
    p.write("thing.gemspec", "Gem::Specification.new do |s|\nend\n");
    p.write("spec/spec_helper.rb", "");
    let run = p
        .run(&["init", "--dry-run", "--metadata-path", ".claude/metadata"])
        .expect_code(0);
    let y = run.yaml();
    assert_eq!(y["written"].as_bool(), Some(false));
    assert_eq!(y["config"]["project_type"].as_str(), Some("library"));
    assert_eq!(y["config"]["rspec"]["helper"].as_str(), Some("spec_helper"));
    assert_eq!(
        y["config"]["metadata_path"].as_str(),
        Some(".claude/metadata")
    );
    assert!(y["config"].get("rails").is_none());
    assert!(
        !p.root().join(".claude").exists(),
        "--dry-run writes nothing"
    );
}

#[test]
fn a_config_that_does_not_load_is_never_overwritten() {
    let p = rails_app();
    // Unquoted: Psych refuses the timestamp (DisallowedClass), as the pipeline would.
    let broken = "project_type: rails\ninitialized_at: 2024-01-02 03:04:05\n";
    p.write(".claude/rspec-testing-config.yml", broken);
    let run = p
        .run(&["init", "--controllers-policy", "request"])
        .expect_code(1);
    assert_eq!(run.yaml()["error_code"].as_str(), Some("CONFIG_INVALID"));
    assert_eq!(p.read(".claude/rspec-testing-config.yml"), broken);
}
