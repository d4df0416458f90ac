//! The safety rules: nothing is written outside the project root (whatever the
//! configuration, the arguments or the links say), a spec target is a spec file, and
//! `.git/` is never touched. Each way out has a test; each checks that the refused write
//! left every file as it was.

use std::path::Path;

use crate::util::Project;

/// The fixture app in a repository of its own, planned and analyzed.
fn analyzed_app() -> Project {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.write(
        "Gemfile",
        "source 'https://rubygems.org'\ngem 'rails'\ngem 'rspec-rails'\n",
    );
    p.init_repo();
    p.run(&["discover", "--all"]).expect_code(0);
    p.run(&["analyze", "--from-metadata"]).expect_code(0);
    p
}

/// Every file under `dir`, relative, sorted (to show a folder did not change).
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                out.push(
                    path.strip_prefix(dir)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    out.sort();
    out
}

fn error_code(run: &crate::util::Run) -> String {
    let answer = run.yaml();
    answer["error_code"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[cfg(unix)]
#[test]
fn a_metadata_folder_linked_out_of_the_root_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.init_repo();
    std::os::unix::fs::symlink(outside.path(), p.root().join("tmp")).unwrap();
    for args in [
        &["discover", "--all"][..],
        &["analyze", "app/models/payment.rb"][..],
    ] {
        let run = p.run(args).expect_code(1);
        assert_eq!(
            error_code(&run),
            "WRITE_OUTSIDE_ROOT",
            "{args:?}\n{}",
            run.stdout
        );
        assert!(run.yaml()["error"]
            .as_str()
            .unwrap()
            .contains("outside the project root"));
    }
    assert_eq!(files_under(outside.path()), Vec::<String>::new());
    // The plan itself is still printed when nothing is written.
    p.run(&["discover", "--all", "--no-metadata"])
        .expect_code(0);
    assert_eq!(files_under(outside.path()), Vec::<String>::new());
}

#[test]
fn a_metadata_path_that_leaves_the_root_is_a_config_error() {
    for (file, text) in [
        (".rspec-scout.yml", "metadata_path: ../elsewhere\n"),
        (
            ".rspec-scout.yml",
            "metadata_path: /tmp/rspec-scout-elsewhere\n",
        ),
        (".rspec-scout.yml", "metadata_path: .git/x\n"),
        (
            ".claude/rspec-testing-config.yml",
            "metadata_path: tmp/../../elsewhere\n",
        ),
    ] {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("app");
        std::fs::create_dir_all(root.join("app/models")).unwrap();
        std::fs::write(
            root.join("app/models/payment.rb"),
            "class Payment\n  def paid?\n    true\n  end\nend\n",
        )
        .unwrap();
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::write(root.join(file), text).unwrap();
        for args in [
            &["discover", "--all", "--root", "app"][..],
            &["analyze", "app/app/models/payment.rb", "--root", "app"][..],
        ] {
            let run = crate::util::Run::from(
                std::process::Command::new(crate::util::bin())
                    .args(args)
                    .current_dir(outer.path())
                    .output()
                    .unwrap(),
            )
            .expect_code(1);
            assert_eq!(error_code(&run), "CONFIG_INVALID", "{text} {args:?}");
            let error = run.yaml()["error"].as_str().unwrap().to_string();
            assert!(error.contains("metadata_path"), "{error}");
            assert!(error.contains(file), "{error}");
        }
        // Nothing beside the app, nothing in the app but what the test wrote.
        assert_eq!(files_under(outer.path()).len(), 2, "{text}");
        assert!(!Path::new("/tmp/rspec-scout-elsewhere").exists());
    }
}

#[cfg(unix)]
#[test]
fn a_spec_file_linked_out_of_the_root_is_neither_read_nor_written() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("payment_spec.rb");
    std::fs::write(&secret, "# not yours\n").unwrap();
    let p = analyzed_app();
    std::fs::create_dir_all(p.root().join("spec/models")).unwrap();
    std::os::unix::fs::symlink(&secret, p.root().join("spec/models/payment_spec.rb")).unwrap();
    for args in [
        &["skeleton", "app/models/payment.rb"][..],
        &[
            "skeleton",
            "app/models/payment.rb",
            "--stdout",
            "--mode",
            "full",
        ][..],
        &["strip-markers", "spec/models/payment_spec.rb"][..],
    ] {
        let run = p
            .run(&[args, &["--format", "yaml"]].concat())
            .expect_code(1);
        assert_eq!(
            error_code(&run),
            "WRITE_OUTSIDE_ROOT",
            "{args:?}\n{}",
            run.stdout
        );
        assert!(!run.stdout.contains("not yours"), "{}", run.stdout);
    }
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "# not yours\n");
    let link = std::fs::symlink_metadata(p.root().join("spec/models/payment_spec.rb")).unwrap();
    assert!(link.file_type().is_symlink());
}

#[cfg(unix)]
#[test]
fn a_spec_linked_inside_the_root_is_written_through_the_link() {
    let p = analyzed_app();
    p.write("spec/shared/payment_spec.rb", "# frozen_string_literal: true\n\nrequire 'rails_helper'\n\nRSpec.describe Payment do\nend\n");
    std::fs::create_dir_all(p.root().join("spec/models")).unwrap();
    std::os::unix::fs::symlink(
        "../shared/payment_spec.rb",
        p.root().join("spec/models/payment_spec.rb"),
    )
    .unwrap();
    p.run(&["skeleton", "app/models/payment.rb"]).expect_code(0);
    let link = std::fs::symlink_metadata(p.root().join("spec/models/payment_spec.rb")).unwrap();
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    assert!(p
        .read("spec/shared/payment_spec.rb")
        .contains("describe '#refundable?'"));
}

#[test]
fn a_spec_target_must_be_a_spec_file() {
    let p = analyzed_app();
    std::fs::create_dir_all(p.root().join(".git/hooks")).unwrap();
    let gemfile = p.read("Gemfile");
    let model = p.read("app/models/payment.rb");
    for (spec, code) in [
        ("Gemfile", "NOT_A_SPEC_FILE"),
        ("app/models/payment.rb", "NOT_A_SPEC_FILE"),
        ("spec/models/payment.rb", "NOT_A_SPEC_FILE"),
        (".git/hooks/post-checkout", "WRITE_OUTSIDE_ROOT"),
        (".git/hooks/payment_spec.rb", "WRITE_OUTSIDE_ROOT"),
        ("../payment_spec.rb", "WRITE_OUTSIDE_ROOT"),
    ] {
        let run = p
            .run(&[
                "skeleton",
                "app/models/payment.rb",
                "--spec",
                spec,
                "--format",
                "yaml",
            ])
            .expect_code(1);
        assert_eq!(error_code(&run), code, "{spec}\n{}", run.stdout);
        let run = p
            .run(&["strip-markers", spec, "--format", "yaml"])
            .expect_code(1);
        assert_eq!(
            error_code(&run),
            code,
            "strip-markers {spec}\n{}",
            run.stdout
        );
    }
    assert_eq!(p.read("Gemfile"), gemfile);
    assert_eq!(p.read("app/models/payment.rb"), model);
    assert!(!p.exists(".git/hooks/post-checkout"));
    assert!(!p.exists(".git/hooks/payment_spec.rb"));
    assert!(!p.exists("spec/models/payment.rb"));
    assert!(!p.root().parent().unwrap().join("payment_spec.rb").exists());
    // A metadata file that names a Gemfile as its spec is refused the same way.
    p.edit(
        "tmp/rspec_metadata/app_models_payment.yml",
        "spec_path: spec/models/payment_spec.rb",
        "spec_path: Gemfile",
    );
    let run = p
        .run(&["skeleton", "app/models/payment.rb", "--format", "yaml"])
        .expect_code(1);
    assert_eq!(error_code(&run), "NOT_A_SPEC_FILE");
    assert_eq!(p.read("Gemfile"), gemfile);
}

#[test]
fn a_metadata_target_must_be_a_metadata_file() {
    let p = analyzed_app();
    p.write(
        "config/settings.yml",
        "source_file: app/models/payment.rb\n",
    );
    let before = p.read("config/settings.yml");
    let run = p
        .run(&["test-config", "config/settings.yml", "--format", "yaml"])
        .expect_code(1);
    assert_eq!(error_code(&run), "NOT_A_METADATA_FILE", "{}", run.stdout);
    assert_eq!(p.read("config/settings.yml"), before);
}

/// A Rails app tested with Minitest: writing RSpec specs that require a `rails_helper` that
/// does not exist (318 of them on a real app) is the owner's call, asked once.
#[test]
fn a_minitest_app_is_asked_before_any_spec_is_written() {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.write(
        "Gemfile",
        "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\n",
    );
    p.write(
        "Gemfile.lock",
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    minitest (5.25.1)\n    rails (7.1.3)\n\nDEPENDENCIES\n  rails (~> 7.1)\n",
    );
    p.write("test/test_helper.rb", "require 'rails/test_help'\n");
    p.write(
        "test/models/payment_test.rb",
        "require 'test_helper'\n\nclass PaymentTest < ActiveSupport::TestCase\n  test 'refundable' do\n    assert Payment.new.refundable?\n  end\nend\n",
    );
    p.init_repo();
    p.run(&["discover", "--all"]).expect_code(0);
    p.run(&["analyze", "--from-metadata"]).expect_code(0);
    for args in [
        &["skeleton"][..],
        &["skeleton", "app/models/payment.rb"][..],
    ] {
        let answer = p
            .run(&[args, &["--format", "yaml"]].concat())
            .expect_code(2)
            .yaml();
        assert_eq!(
            answer["status"].as_str(),
            Some("needs_decision"),
            "{args:?}"
        );
        let decision = &answer["decisions"][0];
        assert_eq!(decision["decision"].as_str(), Some("test_framework"));
        assert_eq!(decision["recommended_action"].as_str(), Some("stop"));
        let question = decision["question"].as_str().unwrap();
        assert!(question.starts_with("This project tests with Minitest (1 *_test.rb file under test/, test/test_helper.rb exists)"), "{question}");
        assert_eq!(
            decision["choices"][0]["flag"].as_str(),
            Some("--test-framework=rspec")
        );
    }
    assert!(!p.exists("spec"));
    // `--stdout` writes nothing and asks nothing.
    p.run(&["skeleton", "app/models/payment.rb", "--stdout"])
        .expect_code(0);

    // Answered once, remembered: the next run asks nothing.
    p.run(&[
        "skeleton",
        "app/models/payment.rb",
        "--test-framework",
        "rspec",
    ])
    .expect_code(0);
    assert!(p.exists("spec/models/payment_spec.rb"));
    p.run(&["skeleton", "app/models/user.rb"]).expect_code(0);
    assert!(p.exists("spec/models/user_spec.rb"));
}

/// The pipeline's placeholders are not Ruby: a hand-written spec patched with them stops
/// loading until the spec-writer fills them. The answer says so and names the way out.
#[test]
fn patching_a_hand_written_spec_with_placeholders_says_it_stops_loading() {
    let p = analyzed_app();
    let hand = "require 'rails_helper'\n\nRSpec.describe Payment do\n  it 'has an amount' do\n    expect(Payment.new(amount_cents: 1).amount_cents).to eq(1)\n  end\nend\n";
    p.write("spec/models/payment_spec.rb", hand);
    let answer = p
        .run(&["skeleton", "app/models/payment.rb", "--format", "yaml"])
        .expect_code(0)
        .yaml();
    let warnings: Vec<&str> = answer["warnings"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        ["spec/models/payment_spec.rb holds 1 hand-written example and now the pipeline's placeholders ({EXPECTATION}, ...): it does not load until they are filled; `--placeholders pending` writes Ruby that runs instead"]
    );
    p.write("spec/models/payment_spec.rb", hand);
    let answer = p
        .run(&[
            "skeleton",
            "app/models/payment.rb",
            "--placeholders",
            "pending",
            "--format",
            "yaml",
        ])
        .expect_code(0)
        .yaml();
    assert!(answer["warnings"].is_null(), "{answer:?}");
}
