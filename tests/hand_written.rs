//! `skeleton` on specs people wrote. Each spec below is written for this test and
//! reproduces one shape found in the hand-written suites of two Rails apps (lobsters,
//! 104 specs; human-essentials, 262): a bare `describe Foo`, `RSpec.describe Foo, type:
//! :model`, lets with heredocs holding `end` and `describe`, hooks, modules with
//! `module_function` helpers and top-level `def`s, shared examples defined before the
//! group, a method described twice, two groups in one file, a group inside another
//! library's block, a Capybara feature, CRLF with a BOM and no final newline, a spec
//! commented out with `=begin`, a request spec named by a string.
//!
//! For every shape and every choice (ask, beside, skip, overwrite; beside also with
//! pending placeholders) the run must lose no line of the spec unless overwrite was asked,
//! write nothing when it asks, put the generated blocks in the class's group, give Ruby
//! that parses, and, after `strip-markers`, leave the spec byte for byte as it was around
//! the generated blocks.

use std::process::Command;

use crate::util::{ruby, Project};

const META: &str = r#"source_file: app/models/story.rb
spec_path: spec/models/story_spec.rb
class_name: Story
behaviors:
  - {id: saves_image, description: "saves the image", type: success}
  - {id: returns_nil, description: "returns nil", type: terminal}
  - {id: returns_title, description: "returns the title", type: success}
  - {id: lists_recent, description: "lists recent stories", type: success}
methods:
  - name: generate
    type: instance
    method_mode: modified
    characteristics:
      - {name: image_url, type: presence, level: 1, values: [
          {value: present, description: "image url", terminal: false, behavior_id: saves_image},
          {value: nil, description: "image url", terminal: true, behavior_id: returns_nil}]}
  - name: title
    type: instance
    method_mode: new
    characteristics:
      - {name: short, type: boolean, level: 1, values: [
          {value: true, description: "short", terminal: false, behavior_id: returns_title},
          {value: false, description: "short", terminal: true, behavior_id: returns_nil}]}
  - name: recent
    type: class
    method_mode: unchanged
    characteristics:
      - {name: days, type: range, level: 1, threshold_value: 7, threshold_operator: "<=", values: [
          {value: recent, description: "recent", terminal: false, behavior_id: lists_recent},
          {value: old, description: "old", terminal: true, behavior_id: returns_nil}]}
"#;

const SPEC: &str = "spec/models/story_spec.rb";
const METHODS: [&str; 3] = ["Story#generate", "Story#title", "Story.recent"];

/// A hand-written spec and what the run must find in it.
struct Shape {
    name: &'static str,
    text: &'static str,
    /// The methods with hand-written `describe` blocks (twice for a method described twice).
    hand_written: &'static [&'static str],
    /// A group names `Story`: the generated blocks land inside it.
    class_group: bool,
    /// No example group at all: a new `RSpec.describe Story` is added at the end.
    new_group: bool,
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "bare describe (lobsters' hat_spec.rb)",
        text: r#"# typed: false

require "rails_helper"

describe Story do
  it "has a title" do
    story = Story.new(title: nil)
    expect(story).to_not be_valid
  end

  it "limits the title" do
    story = build(:story, title: "a" * 256)
    expect(story).to_not be_valid
  end
end
"#,
        hand_written: &[],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "type: :model with a method block (story_image_spec.rb)",
        text: r##"require "rails_helper"

RSpec.describe Story, type: :model do
  describe "#generate" do
    let(:story) { create(:story, url: "https://example.com/") }
    let(:story_image) { StoryImage.new(story) }

    it "handles download failures" do
      allow(story_image).to receive(:fetch).and_raise(Timeout::Error)
      expect { story_image.generate }.not_to change { story_image.exists? }
    end

    it "skips large images" do
      expect(story_image.generate).to be_nil
    end
  end
end
"##,
        hand_written: &["Story#generate"],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "lets with heredocs, subject and hooks (inbox_mailbox_spec.rb)",
        text: r##"require "rails_helper"

RSpec.describe Story do
  let(:user) { create(:user) }
  let(:mail) do
    Mail.new(
      from: user.email,
      body: <<~BODY
        a reply

        end
        describe "#title" do
      BODY
    )
  end
  subject { described_class.new(user: user) }

  before { travel_to Time.utc(2024, 1, 1) }
  after(:each) { travel_back }
  around do |example|
    Dir.mktmpdir("rspec-") { |dir| example.run }
  end

  describe ".recent" do
    it { is_expected.to be_a(Story) }
  end
end
"##,
        hand_written: &["Story.recent"],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "nested modules, module_function helpers, a top-level def",
        text: r#"# frozen_string_literal: true

require "rails_helper"

module StoryHelpers
  module_function

  def build_story(**attrs)
    Story.new({ title: "A story" }.merge(attrs))
  end
end

module Lobsters
  module Models
    RSpec.describe Story do
      include StoryHelpers

      it "builds" do
        expect(build_story).to be_valid
      end
    end
  end
end

def fetch_fixture(name)
  File.read(Rails.root.join("spec/fixtures", name))
end
"#,
        hand_written: &[],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "shared examples before the group (barcode_item_spec.rb)",
        text: r##"RSpec.shared_examples "a votable" do |factory|
  describe "voting >" do
    it "starts at zero" do
      expect(build(factory).score).to eq(0)
    end
  end
end

RSpec.describe Story, type: :model do
  it_behaves_like "a votable", :story
  include_examples "a votable", :story

  describe "#title" do
    it "is stripped" do
      expect(Story.new(title: " x ").title).to eq("x")
    end
  end
end
"##,
        hand_written: &["Story#title"],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "a method described twice (item_spec.rb)",
        text: r##"require "rails_helper"

RSpec.describe Story, type: :model do
  describe '#generate' do
    it "generates" do
      expect(Story.new.generate).to be_nil
    end
  end

  describe "kits" do
    context "with a kit" do
      let(:kit) { create(:kit) }

      describe "#generate" do
        it "returns false for kit items" do
          expect(kit.generate).to be false
        end
      end
    end
  end
end
"##,
        hand_written: &["Story#generate", "Story#generate"],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "two groups, the class's second",
        text: r#"require "rails_helper"

RSpec.describe StoryPolicy do
  it "permits" do
    expect(StoryPolicy.new(nil, nil)).to be_a(StoryPolicy)
  end
end

RSpec.describe Story do
  it "exists" do
    expect(Story).to be_a(Class)
  end
end
"#,
        hand_written: &[],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "a group inside another block, a def after it (partner_system_spec.rb)",
        text: r##"Capybara.using_wait_time 10 do # wait for content to load
  RSpec.describe Story, type: :system, js: true do
    let(:user) { create(:user) }

    it "shows the story" do
      visit "/"
      expect(page).to have_content("Story")
    end
  end
end

def visit_story(story)
  visit "/s/#{story.short_id}"
end
"##,
        hand_written: &[],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "a Capybara feature (submit_story_spec.rb)",
        text: r#"require "rails_helper"

RSpec.feature "Submitting stories", type: :feature do
  given(:user) { create(:user) }
  background { stub_login_as user }

  scenario "submitting a link" do
    visit "/stories/new"
    fill_in "Text", with: <<~TEXT
      end
    TEXT
    click_button "Submit"
    expect(page).to have_content("submitted")
  end
end
"#,
        hand_written: &[],
        class_group: false,
        new_group: true,
    },
    Shape {
        name: "CRLF, a BOM, no final newline",
        text: "\u{feff}require \"rails_helper\"\r\n\r\ndescribe Story do\r\n  it \"works\" do\r\n    expect(1).to eq(1)\r\n  end\r\nend",
        hand_written: &[],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "commented out with =begin (admins_controller_spec.rb)",
        text: r##"=begin

RSpec.describe Story do
  describe "#generate" do
    it "is commented out" do
    end
  end
end

=end
"##,
        hand_written: &[],
        class_group: false,
        new_group: true,
    },
    Shape {
        name: "every spelling of a method's block: context '#m', describe \".m\", describe :m",
        text: r##"require "rails_helper"

RSpec.describe Story do
  context '#generate' do
    it "saves the image" do
      expect(Story.new.generate).to be_truthy
    end

    context '#generate' do
      it "is the same method's block, nested" do
        expect(1).to eq(1)
      end
    end
  end

  describe ".recent" do
    it "lists this week's stories" do
      expect(Story.recent).to eq([])
    end
  end

  describe :title do
    it "is the title" do
      expect(Story.new(title: "x").title).to eq("x")
    end
  end
end
"##,
        hand_written: &["Story#generate", "Story#title", "Story.recent"],
        class_group: true,
        new_group: false,
    },
    Shape {
        name: "a request spec named by a string (stories_spec.rb)",
        text: r##"# typed: false

require "rails_helper"

describe "stories", type: :request do
  let(:user) { create(:user) }

  describe "#check_url_dupe" do
    before { sign_in user }

    it "returns a JSON response" do
      post "/stories/check_url_dupe.json", params: { story: { url: "https://example.com" } }
      expect(response).to be_successful
    end
  end
end
"##,
        hand_written: &[],
        class_group: false,
        new_group: false,
    },
];

/// The text with every pipeline placeholder replaced by valid Ruby.
fn fill(text: &str) -> String {
    text.replace("{SETUP_CODE}", "nil")
        .replace("{EXPECTATION}", "expect(true).to be(true)")
        .replace("{COMMON_SETUP}", "nil")
        .replace("{THRESHOLD_VALUE}", "1")
}

/// Every line of `before` is in `after`, in order.
fn keeps_every_line(before: &str, after: &str) -> bool {
    let mut rest = after.split('\n');
    before.split('\n').all(|line| rest.any(|l| l == line))
}

/// The generated blocks as `--stdout` prints them, one list of lines per method, without
/// marker lines (as `strip-markers` leaves them).
fn generated_blocks(p: &Project, placeholders: &str) -> Vec<Vec<String>> {
    let run = p
        .run(&[
            "skeleton",
            "tmp/rspec_metadata/story.yml",
            "--stdout",
            "--placeholders",
            placeholders,
        ])
        .expect_code(0);
    let mut blocks: Vec<Vec<String>> = Vec::new();
    for line in run.stdout.lines() {
        if line.starts_with("  describe ") {
            blocks.push(Vec::new());
        }
        if let Some(block) = blocks.last_mut() {
            if !line.trim_start().starts_with("# rspec-testing:") {
                block.push(line.to_string());
            }
        }
    }
    for block in &mut blocks {
        while block.last().is_some_and(|l| l.is_empty()) {
            block.pop();
        }
    }
    assert_eq!(blocks.len(), 3);
    blocks
}

/// Removes each generated block (and the blank line before it) from `text`, wherever
/// and at whatever indentation it was inserted.
fn without_blocks(text: &str, blocks: &[Vec<String>]) -> String {
    let mut lines: Vec<&str> = text.split('\n').collect();
    for block in blocks {
        let bare = |l: &str| l.trim_end_matches('\r').to_string();
        let found = (1..lines.len()).find(|&i| {
            let indent = bare(lines[i]).len() - bare(lines[i]).trim_start().len();
            if bare(lines[i]).trim_start() != block[0].trim_start() || indent < 2 {
                return false;
            }
            let pad = " ".repeat(indent - 2);
            bare(lines[i - 1]).is_empty()
                && block.iter().enumerate().all(|(k, want)| {
                    let want = if want.is_empty() {
                        String::new()
                    } else {
                        format!("{pad}{want}")
                    };
                    lines.get(i + k).map(|l| bare(l)) == Some(want)
                })
        });
        let Some(i) = found else {
            panic!("generated block {:?} not found in\n{text}", block[0]);
        };
        lines.drain(i - 1..i + block.len());
    }
    lines.join("\n")
}

/// The marked method blocks of the spec (tree outline), each with the texts of the
/// groups around it.
fn marked_blocks(p: &Project) -> Vec<(String, Vec<String>)> {
    fn walk(
        node: &serde_json::Value,
        path: &mut Vec<String>,
        out: &mut Vec<(String, Vec<String>)>,
    ) {
        if node["markers"] == true {
            out.push((
                node["method_id"].as_str().unwrap().to_string(),
                path.clone(),
            ));
        }
        path.push(node["text"].as_str().unwrap().to_string());
        for child in node["children"].as_array().into_iter().flatten() {
            walk(child, path, out);
        }
        path.pop();
    }
    let run = p
        .run(&["outline", SPEC, "--view", "tree", "--format", "json"])
        .expect_code(0);
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let mut out = Vec::new();
    for root in answer["tree"].as_array().unwrap() {
        walk(root, &mut Vec::new(), &mut out);
    }
    out
}

fn ruby_parses(ruby: Option<&std::path::Path>, p: &Project, text: &str) -> Result<(), String> {
    match ruby {
        Some(ruby) => {
            let file = p.write("check_parse.rb", text);
            let output = Command::new(ruby).arg("-c").arg(&file).output().unwrap();
            if output.status.success() {
                Ok(())
            } else {
                Err(String::from_utf8_lossy(&output.stderr).into_owned())
            }
        }
        None => {
            let blocks = rspec_scout::index::spec_blocks::parse(text.as_bytes());
            match blocks.diagnostics.first() {
                None => Ok(()),
                Some(d) => Err(d.message.clone()),
            }
        }
    }
}

#[test]
fn every_hand_written_shape_keeps_its_bytes_under_every_choice() {
    let ruby = ruby();
    let p = Project::new();
    p.write(".claude/rspec-testing-config.yml", "project_type: rails\n");
    p.write("tmp/rspec_metadata/story.yml", META);
    let choices: [(&str, &[&str]); 5] = [
        ("ask", &[]),
        ("beside", &["--on-hand-written", "beside"]),
        ("skip", &["--on-hand-written", "skip"]),
        ("overwrite", &["--on-hand-written", "overwrite"]),
        (
            "beside, pending",
            &["--on-hand-written", "beside", "--placeholders", "pending"],
        ),
    ];
    let mut runs = 0;
    for shape in SHAPES {
        for (choice, args) in choices {
            let case = format!("{} / {choice}", shape.name);
            p.write(SPEC, shape.text);
            let mut all = vec![
                "skeleton",
                "tmp/rspec_metadata/story.yml",
                "--format",
                "json",
            ];
            all.extend_from_slice(args);
            let run = p.run(&all);
            let after = std::fs::read_to_string(p.root().join(SPEC)).unwrap();
            runs += 1;

            let asked = choice == "ask" && !shape.hand_written.is_empty();
            let twice = shape
                .hand_written
                .iter()
                .enumerate()
                .any(|(i, id)| shape.hand_written[..i].contains(id));
            if asked {
                assert_eq!(run.code, 2, "{case}: {}", run.stdout);
                assert_eq!(after, shape.text, "{case}: written while asking");
                let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
                let decisions: Vec<(&str, &str)> = answer["decisions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| {
                        (
                            d["decision"].as_str().unwrap(),
                            d["context"]["method_id"].as_str().unwrap(),
                        )
                    })
                    .collect();
                let expected: Vec<(&str, &str)> = METHODS
                    .iter()
                    .filter(|id| shape.hand_written.contains(id))
                    .map(|&id| {
                        let kind = if id == "Story#title" {
                            "new_method_conflict"
                        } else {
                            "hand_written_block"
                        };
                        (kind, id)
                    })
                    .collect();
                assert_eq!(decisions, expected, "{case}");
                continue;
            }
            if choice == "overwrite" && twice {
                assert_eq!(run.code, 1, "{case}: {}", run.stdout);
                let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
                assert_eq!(
                    answer["error"],
                    "patch_failed: Multiple describe blocks found for method_id=Story#generate (descriptor=#generate)"
                );
                assert_eq!(after, shape.text, "{case}: written on error");
                continue;
            }
            assert_eq!(run.code, 0, "{case}: {}", run.stdout);

            // What happened to each method.
            let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            let ops: Vec<String> = answer["operations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| format!("{} {} {}", o["method_id"], o["action"], o["reason"]))
                .collect();
            let expected: Vec<String> = METHODS
                .iter()
                .map(|id| {
                    let (action, reason) = if !shape.hand_written.contains(id) {
                        ("insert", "null".to_string())
                    } else {
                        let action = match choice {
                            "skip" => "skip",
                            "overwrite" => "replace",
                            _ => "insert",
                        };
                        let word = choice.split(',').next().unwrap();
                        (action, format!("\"hand_written_{word}\""))
                    };
                    format!("\"{id}\" \"{action}\" {reason}")
                })
                .collect();
            assert_eq!(ops, expected, "{case}");

            // No line lost (unless overwrite was asked), and Ruby that parses.
            if choice != "overwrite" {
                assert!(keeps_every_line(shape.text, &after), "{case}\n{after}");
            }
            let ruby_text = if choice.ends_with("pending") {
                assert!(!after.contains("{EXPECTATION}"), "{case}");
                after.clone()
            } else {
                fill(&after)
            };
            if let Err(e) = ruby_parses(ruby.as_deref(), &p, &ruby_text) {
                panic!("{case}: does not parse: {e}\n{ruby_text}");
            }

            // The generated blocks are in the class's group.
            let marked = marked_blocks(&p);
            let expected_marked = METHODS
                .iter()
                .filter(|id| choice != "skip" || !shape.hand_written.contains(id))
                .count();
            assert_eq!(marked.len(), expected_marked, "{case}: {marked:?}");
            for (id, groups) in &marked {
                if shape.class_group || shape.new_group {
                    assert!(
                        groups.iter().any(|g| g.starts_with("RSpec.describe Story")
                            || g.starts_with("describe Story")),
                        "{case}: {id} is outside the class's group: {groups:?}"
                    );
                } else {
                    assert_eq!(groups.len(), 1, "{case}: {id} in {groups:?}");
                }
            }

            // Round trip: strip-markers, then take the generated blocks out: the spec is
            // byte for byte what the person wrote.
            if choice == "overwrite" && !shape.hand_written.is_empty() {
                continue;
            }
            p.run(&["strip-markers", SPEC]).expect_code(0);
            let stripped = std::fs::read_to_string(p.root().join(SPEC)).unwrap();
            assert!(!stripped.contains("rspec-testing:"), "{case}");
            let placeholders = if choice.ends_with("pending") {
                "pending"
            } else {
                "pipeline"
            };
            let inserted: Vec<Vec<String>> = generated_blocks(&p, placeholders)
                .into_iter()
                .zip(METHODS)
                .filter(|(_, id)| choice != "skip" || !shape.hand_written.contains(id))
                .map(|(block, _)| block)
                .collect();
            let mut rest = without_blocks(&stripped, &inserted);
            if shape.new_group {
                rest = rest
                    .strip_suffix("\nRSpec.describe Story do\nend\n")
                    .unwrap_or_else(|| panic!("{case}: no new group at the end\n{rest}"))
                    .to_string();
            }
            assert_eq!(rest, shape.text, "{case}");
        }
    }
    assert_eq!(runs, SHAPES.len() * choices.len());
}
