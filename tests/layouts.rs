//! Layouts beyond one app: gems and engines kept side by side count as roots of their own
//! `app/` and `lib/`; when nothing is found, the error says which globs were searched and
//! the `include:` line that would find the code.

use crate::util::Project;

/// A repository of gems side by side, as rails/rails is (`activerecord/lib`,
/// `activesupport/lib`, each with its gemspec and its own tests).
fn gems_side_by_side() -> Project {
    let p = Project::new();
    p.write("Gemfile", "source 'https://rubygems.org'\ngemspec\n");
    p.write(
        "rails.gemspec",
        "Gem::Specification.new { |s| s.name = 'rails' }\n",
    );
    p.write(
        "activerecord/activerecord.gemspec",
        "Gem::Specification.new { |s| s.name = 'activerecord' }\n",
    );
    p.write(
        "activerecord/lib/active_record/persistence.rb",
        "module ActiveRecord\n  module Persistence\n    def save(validate: true)\n      return false if validate && !valid?\n\n      create_or_update\n    end\n  end\nend\n",
    );
    p.write(
        "activerecord/test/cases/persistence_test.rb",
        "class PersistenceTest\n  def test_save; end\nend\n",
    );
    p.write(
        "activesupport/activesupport.gemspec",
        "Gem::Specification.new { |s| s.name = 'activesupport' }\n",
    );
    p.write(
        "activesupport/lib/active_support/inflector.rb",
        "module ActiveSupport\n  module Inflector\n    def self.pluralize(word)\n      word.end_with?('s') ? word : \"#{word}s\"\n    end\n  end\nend\n",
    );
    p.write("tools/release.rb", "class Release\n  def run; end\nend\n");
    p.init_repo();
    p
}

#[test]
fn gems_side_by_side_are_roots_of_their_own_lib() {
    let p = gems_side_by_side();
    let run = p
        .run(&["discover", "--all", "--format", "text"])
        .expect_code(0);
    let text = run.stdout.lines().skip(2).collect::<Vec<_>>().join("\n");
    insta::assert_snapshot!(text, @r"
    wave 0: Leaf methods (no dependencies)
      activerecord/lib/active_record/persistence.rb  [green 8 LOC, 1 method]
        [x] ActiveRecord::Persistence#save      unchanged
      activesupport/lib/active_support/inflector.rb  [green 7 LOC, 1 method]
        [x] ActiveSupport::Inflector.pluralize  unchanged

    2 methods (2 selected) in 2 files, 1 wave; zones: 2 green, 0 yellow, 0 red
    ");
    // Branch mode sees them too, and their tests stay out.
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.edit(
        "activerecord/lib/active_record/persistence.rb",
        "create_or_update",
        "create_or_update(validate: validate)",
    );
    p.edit(
        "activerecord/test/cases/persistence_test.rb",
        "def test_save; end",
        "def test_save; 1; end",
    );
    let answer = p.run(&["discover"]).expect_code(0).yaml();
    assert_eq!(
        answer["slugs"],
        serde_yaml::from_str::<serde_yaml::Value>("[activerecord_lib_active_record_persistence]")
            .unwrap()
    );
}

/// Engines kept side by side, as spree keeps them: `core` has a gemspec, `api` is found by
/// its `config/routes.rb` beside its own `app/`.
#[test]
fn engines_side_by_side_are_roots_of_their_own_app() {
    let p = Project::new();
    p.write(
        "core/spree_core.gemspec",
        "Gem::Specification.new { |s| s.name = 'spree_core' }\n",
    );
    p.write(
        "core/app/models/spree/product.rb",
        "module Spree\n  class Product < ApplicationRecord\n    def available?\n      available_on.present? && !discontinued?\n    end\n  end\nend\n",
    );
    p.write(
        "core/spec/models/spree/product_spec.rb",
        "RSpec.describe Spree::Product do\nend\n",
    );
    p.write(
        "api/config/routes.rb",
        "Spree::Core::Engine.routes.draw { }\n",
    );
    p.write(
        "api/app/controllers/spree/api/products_controller.rb",
        "module Spree\n  module Api\n    class ProductsController < BaseController\n      def show\n        @product = Spree::Product.find(params[:id])\n      end\n    end\n  end\nend\n",
    );
    p.init_repo();
    let answer = p
        .run(&["discover", "--all", "--format", "json", "--answer", "full"])
        .expect_code(0);
    let answer: serde_json::Value = serde_json::from_str(&answer.stdout).unwrap();
    let files: Vec<(&str, &str)> = answer["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap(),
                f["spec_path"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        files,
        vec![
            (
                "api/app/controllers/spree/api/products_controller.rb",
                "api/spec/requests/spree/api/products_spec.rb"
            ),
            (
                "core/app/models/spree/product.rb",
                "core/spec/models/spree/product_spec.rb"
            ),
        ]
    );
    assert_eq!(
        answer["method_waves"][1]["items"][0]["cross_class_deps"],
        serde_json::json!([{"class": "Spree::Product", "methods": ["find"]}])
    );
    // `include:` in the config is the whole scope: no folder is added to it.
    p.write(".rspec-scout.yml", "include: ['core/app/**/*.rb']\n");
    let answer = p
        .run(&["discover", "--all", "--answer", "full"])
        .expect_code(0)
        .yaml();
    assert_eq!(answer["summary"]["total_files"].as_u64(), Some(1));
}

#[test]
fn when_nothing_is_found_the_error_says_what_was_searched_and_what_to_include() {
    let p = Project::new();
    p.write(
        "src/billing/invoice.rb",
        "class Invoice\n  def total; end\nend\n",
    );
    p.write("src/billing/tax.rb", "class Tax\n  def rate; end\nend\n");
    p.write("scripts/seed.rb", "class Seed\n  def run; end\nend\n");
    p.write("spec/invoice_spec.rb", "RSpec.describe Invoice do\nend\n");
    p.init_repo();
    let run = p.run(&["discover", "--all"]).expect_code(1);
    insta::assert_snapshot!(run.stdout, @r#"
    status: error
    error: No testable Ruby files found
    details: "no Ruby file matches the globs searched: app/**/*.rb, lib/**/*.rb, {packs,components,engines,gems}/**/app/**/*.rb, {packs,components,engines,gems}/**/lib/**/*.rb"
    suggestion: "Ruby files are under src/ (2), scripts/ (1): add `include: [\"src/**/*.rb\", \"scripts/**/*.rb\"]` to .rspec-scout.yml"
    error_code: NO_TESTABLE_FILES
    recoverable: true
    "#);
}
