//! Two source files whose contract slugs collide (`app/controllers/mod/mails_controller.rb`
//! and `app/controllers/mod_mails_controller.rb`, as in lobsters) each keep their own
//! metadata file, and every command finds the right one.

use crate::util::Project;

const NESTED: &str = "app/controllers/mod/mails_controller.rb";
const FLAT: &str = "app/controllers/mod_mails_controller.rb";

fn project() -> Project {
    let p = Project::new();
    p.write(
        NESTED,
        "module Mod\n  class MailsController < ApplicationController\n    def index\n      @mails = ModMail.recent\n    end\n  end\nend\n",
    );
    p.write(
        FLAT,
        "class ModMailsController < ApplicationController\n  def show\n    @mail = ModMail.find(params[:id])\n    return head(:not_found) if @mail.hidden?\n\n    render :show\n  end\nend\n",
    );
    p.write(
        "app/models/mod_mail.rb",
        "class ModMail < ApplicationRecord\n  def self.recent\n    order(created_at: :desc)\n  end\nend\n",
    );
    p.init_repo();
    p
}

fn metadata_files(p: &Project) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(p.root().join("tmp/rspec_metadata"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yml"))
        .collect();
    names.sort();
    names
}

#[test]
fn colliding_slugs_give_each_file_its_own_metadata() {
    let p = project();
    let run = p
        .run(&["discover", "--all", "--format", "json"])
        .expect_code(0);
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        answer["slugs"],
        serde_json::json!([
            "app__controllers__mod__mails_controller",
            "app_controllers_mod_mails_controller",
            "app_models_mod_mail"
        ])
    );
    assert_eq!(
        answer["warnings"],
        serde_json::json!([
            "app/controllers/mod/mails_controller.rb and app/controllers/mod_mails_controller.rb share the slug app_controllers_mod_mails_controller: the metadata of app/controllers/mod/mails_controller.rb is tmp/rspec_metadata/app__controllers__mod__mails_controller.yml (slug app__controllers__mod__mails_controller)"
        ])
    );
    assert_eq!(
        metadata_files(&p),
        vec![
            "app__controllers__mod__mails_controller.yml",
            "app_controllers_mod_mails_controller.yml",
            "app_models_mod_mail.yml"
        ]
    );
    insta::assert_snapshot!(
        p.read("tmp/rspec_metadata/app__controllers__mod__mails_controller.yml"),
        @r"
    slug: app__controllers__mod__mails_controller
    source_file: app/controllers/mod/mails_controller.rb
    class_name: Mod::MailsController
    complexity:
      zone: green
      loc: 7
      methods: 1
    spec_path: spec/requests/mod/mails_spec.rb
    methods_to_analyze:
      - name: index
        type: instance
        method_mode: unchanged
        line_range: [3, 5]
        selected: true
    dependencies: [ModMail]
    automation:
      discovery_agent_completed: true
      discovery_agent_version: rspec-scout 0.1.0
    "
    );
    assert_eq!(
        p.read("tmp/rspec_metadata/app_controllers_mod_mails_controller.yml")
            .lines()
            .next(),
        Some("source_file: app/controllers/mod_mails_controller.rb")
    );

    // Every later stage finds each file's own metadata.
    let analyzed = p.run(&["analyze", "--from-metadata"]).expect_code(0).yaml();
    let results: Vec<(String, String, String)> = analyzed["results"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["source_file"].as_str().unwrap().to_string(),
                r["metadata"].as_str().unwrap().to_string(),
                r["data"]["slug"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        results,
        vec![
            (
                NESTED.to_string(),
                "tmp/rspec_metadata/app__controllers__mod__mails_controller.yml".to_string(),
                "app__controllers__mod__mails_controller".to_string()
            ),
            (
                FLAT.to_string(),
                "tmp/rspec_metadata/app_controllers_mod_mails_controller.yml".to_string(),
                "app_controllers_mod_mails_controller".to_string()
            ),
            (
                "app/models/mod_mail.rb".to_string(),
                "tmp/rspec_metadata/app_models_mod_mail.yml".to_string(),
                "app_models_mod_mail".to_string()
            ),
        ]
    );
    for (source, class) in [
        (NESTED, "Mod::MailsController"),
        (FLAT, "ModMailsController"),
    ] {
        let one = p.run(&["analyze", source]).expect_code(0).yaml();
        assert_eq!(one["cached"].as_bool(), Some(true), "{source}");
        assert_eq!(one["data"]["class_name"].as_str(), Some(class));
        let status = p.run(&["status", source]).expect_code(0).yaml();
        assert_eq!(status["files"][0]["class_name"].as_str(), Some(class));
        assert_eq!(
            status["files"][0]["next_stage"].as_str(),
            Some("isolation_decider")
        );
        let config = p
            .run(&[
                "test-config",
                source,
                "--project-type",
                "rails",
                "--low-confidence",
                "request",
                "--format",
                "json",
            ])
            .expect_code(0);
        let config: serde_json::Value = serde_json::from_str(&config.stdout).unwrap();
        assert_eq!(config["status"], "success", "{source}");
        let skeleton = p
            .run(&[
                "skeleton",
                source,
                "--project-type",
                "rails",
                "--format",
                "json",
            ])
            .expect_code(0);
        let skeleton: serde_json::Value = serde_json::from_str(&skeleton.stdout).unwrap();
        assert_eq!(skeleton["status"], "success", "{source}");
    }
    assert!(p
        .read("spec/requests/mod/mails_spec.rb")
        .contains("RSpec.describe Mod::MailsController"));
    assert!(p
        .read("spec/requests/mod_mails_spec.rb")
        .contains("RSpec.describe ModMailsController"));

    // The same tree gives the same slugs again, and no new file.
    let again = p
        .run(&["discover", "--all", "--format", "json"])
        .expect_code(0);
    let again: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(again["slugs"], answer["slugs"]);
    assert_eq!(metadata_files(&p).len(), 3);
}

#[test]
fn a_slug_stays_with_the_file_that_took_it_first() {
    // The nested file is analyzed first and takes the contract slug; the flat one, found
    // later, takes its own.
    let p = project();
    p.run(&["analyze", NESTED]).expect_code(0);
    let answer = p.run(&["discover", "--all"]).expect_code(0).yaml();
    assert_eq!(
        answer["slugs"],
        serde_yaml::from_str::<serde_yaml::Value>(
            "[app_controllers_mod_mails_controller, app__controllers__mod_mails_controller, app_models_mod_mail]"
        )
        .unwrap()
    );
    assert_eq!(
        p.read("tmp/rspec_metadata/app_controllers_mod_mails_controller.yml")
            .lines()
            .find(|l| l.starts_with("source_file:")),
        Some("source_file: app/controllers/mod/mails_controller.rb")
    );
    // A branch of one file finds it where it is.
    let flat = p.run(&["discover", "--all", FLAT]).expect_code(0).yaml();
    assert_eq!(
        flat["slugs"],
        serde_yaml::from_str::<serde_yaml::Value>("[app__controllers__mod_mails_controller]")
            .unwrap()
    );
    assert_eq!(metadata_files(&p).len(), 3);
}
