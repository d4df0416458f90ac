//! Messages that say what to do: config errors name the key, the type and the file; input
//! that is not Ruby is refused when named and left out when a folder is walked; errors go
//! to stderr in every format; each command's help has an example and only its options.

use std::process::Command;

use crate::util::{bin, without_git_env, Project};

#[test]
fn a_config_error_names_the_key_the_type_and_the_file() {
    let p = Project::new();
    p.write(
        "app/models/payment.rb",
        "class Payment\n  def total; end\nend\n",
    );
    p.write(".rspec-scout.yml", "zones:\n  red_loc: lots\n");
    let run = p.run(&["discover", "--all"]).expect_code(1);
    insta::assert_snapshot!(run.stdout, @r#"
    status: error
    error: "invalid config .rspec-scout.yml: `zones.red_loc`: expected a whole number from 0 to 4294967295 (u32), found the string \"lots\""
    details: "`zones.red_loc`: expected a whole number from 0 to 4294967295 (u32), found the string \"lots\""
    suggestion: fix that key in the config file; `rspec-scout --help` lists the keys (under --config) and README's Configuration section shows each with its type
    error_code: CONFIG_INVALID
    recoverable: true
    "#);
    // With --format text the whole error goes to stderr, nothing to stdout.
    let run = p
        .run(&["discover", "--all", "--format", "text"])
        .expect_code(1);
    assert_eq!(run.stdout, "");
    insta::assert_snapshot!(run.stderr, @r#"
    rspec-scout: error: invalid config .rspec-scout.yml: `zones.red_loc`: expected a whole number from 0 to 4294967295 (u32), found the string "lots" (CONFIG_INVALID)
      details: `zones.red_loc`: expected a whole number from 0 to 4294967295 (u32), found the string "lots"
      suggestion: fix that key in the config file; `rspec-scout --help` lists the keys (under --config) and README's Configuration section shows each with its type
    "#);
    // Every command that reads the config says the same; the commands that read one
    // spec file do not read it.
    let run = p.run(&["status", "--format", "json"]).expect_code(1);
    assert!(
        run.stdout.contains("\"error_code\": \"CONFIG_INVALID\""),
        "{}",
        run.stdout
    );
    p.write(
        "spec/models/payment_spec.rb",
        "RSpec.describe Payment do\nend\n",
    );
    p.run(&["strip-markers", "spec/models/payment_spec.rb"])
        .expect_code(0);
}

#[test]
fn input_that_is_not_ruby_is_refused_when_named_and_left_out_of_a_walk() {
    let p = Project::new();
    p.write("README.rdoc", "= Payments\n\nA Rails app.\n");
    p.write(
        "public/logo.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".as_slice(),
    );
    p.write(
        "app/views/payments/show.html.erb",
        "<h1><%= @payment.amount %></h1>\n",
    );
    p.write(
        "app/models/payment.rb",
        "class Payment\n  def refundable?\n    completed? && !refunded?\n  end\nend\n",
    );
    p.write("app/models/blob.rb", b"class Blob\0\0binary".as_slice());
    p.write(
        "lib/tasks/payments.rake",
        "namespace :payments do\n  task :expire do\n    Payment.expire_old!\n  end\nend\n",
    );
    p.init_repo();
    for (args, file) in [
        (&["analyze", "README.rdoc"][..], "README.rdoc"),
        (&["analyze", "public/logo.png"][..], "public/logo.png"),
        (
            &["symbols", "app/views/payments/show.html.erb"][..],
            "app/views/payments/show.html.erb",
        ),
        (&["discover", "README.rdoc"][..], "README.rdoc"),
    ] {
        let run = p.run(args).expect_code(1);
        assert_eq!(
            run.stdout,
            format!(
                "status: error\nerror: \"not a Ruby source file: {file}\"\ndetails: \"{file} is not Ruby: rspec-scout reads .rb files (and .rake, .gemspec, .ru, Gemfile, Rakefile, Ruby scripts)\"\nsuggestion: \"name Ruby files, or a folder (its in-scope .rb files are read and the rest left out)\"\nerror_code: NOT_RUBY_SOURCE\nrecoverable: true\n"
            ),
            "{args:?}"
        );
        assert_eq!(
            run.stderr,
            format!("rspec-scout: not a Ruby source file: {file} (NOT_RUBY_SOURCE)\n")
        );
    }
    // A folder: its .rb files; one that is not Ruby inside is left out with the reason,
    // and the run succeeds.
    let run = p
        .run(&["analyze", "app", "--format", "text"])
        .expect_code(0);
    insta::assert_snapshot!(run.stdout, @r"
    app/models/blob.rb: skipped: binary file (contains NUL bytes); not parsed
    app/models/payment.rb
      #refundable?  (confidence 0.95)
        when completed
          but NOT refunded
            -> returns true
          with refunded
            => returns false
        when NOT completed
          => returns false
    ");
    // Named, the same binary file is an error.
    let run = p.run(&["analyze", "app/models/blob.rb"]).expect_code(1);
    assert_eq!(run.yaml()["error_code"].as_str(), Some("UNREADABLE"));
    // Ruby by another name is read.
    let run = p
        .run(&["symbols", "lib/tasks/payments.rake", "--format", "json"])
        .expect_code(0);
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(answer["files"][0]["parse"], "ok");
}

#[test]
fn test_config_on_a_missing_source_says_no_such_file() {
    let p = Project::new();
    p.write("app/models/user.rb", "class User\n  def admin?; end\nend\n");
    let run = p
        .run(&["test-config", "app/models/nosuch.rb", "--format", "json"])
        .expect_code(1);
    insta::assert_snapshot!(run.stdout, @r#"
    {
      "status": "error",
      "error": "path not found: app/models/nosuch.rb",
      "details": "app/models/nosuch.rb does not exist",
      "suggestion": "check the path; paths are relative to the current directory",
      "error_code": "SOURCE_NOT_FOUND",
      "recoverable": true
    }
    "#);
    // An existing source without metadata: that is what is missing.
    let run = p
        .run(&["test-config", "app/models/user.rb", "--format", "json"])
        .expect_code(1);
    let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(answer["error_code"], "METADATA_NOT_FOUND");
    assert_eq!(
        answer["error"],
        "metadata not found: tmp/rspec_metadata/app_models_user.yml"
    );
}

/// `rspec-scout COMMAND --help`, 100 columns wide.
fn help(command: &str) -> String {
    let mut cmd = Command::new(bin());
    without_git_env(&mut cmd);
    let out = cmd
        .args([command, "--help"])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn each_command_help_has_an_example_and_only_its_options() {
    insta::assert_snapshot!(help("strip-markers"), @r"
    Removes `# rspec-testing:` marker lines from a finished spec

    Usage: rspec-scout strip-markers [OPTIONS] <SPEC>

    Arguments:
      <SPEC>
              The spec file

    Options:
          --format <FORMAT>
              Output format [default: text, what the pipeline's script printed]

              Possible values:
              - yaml: YAML
              - json: JSON
              - text: Text for people

      -q, --quiet
              Nothing on stderr but errors

      -h, --help
              Print help (see a summary with '-h')

    Example:
      rspec-scout strip-markers spec/services/payment_processor_spec.rb
    ");
    for command in [
        "discover",
        "symbols",
        "analyze",
        "test-config",
        "skeleton",
        "outline",
        "validate",
        "status",
        "prune",
    ] {
        let text = help(command);
        assert!(text.contains("\nExample"), "{command}: {text}");
        let long = ["discover", "analyze", "status", "skeleton", "test-config"].contains(&command);
        assert_eq!(text.contains("--progress"), long, "{command}");
        assert_eq!(text.contains("--answer"), long, "{command}");
        let parallel = ["discover", "analyze", "symbols"].contains(&command);
        assert_eq!(text.contains("--threads"), parallel, "{command}");
    }
    // An option a command does not take is a usage error (exit 2), not ignored.
    let p = Project::new();
    let run = p.run(&["strip-markers", "x_spec.rb", "--threads", "2"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}
