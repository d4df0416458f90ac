//! `rspec-scout mcp`: the real binary driven over stdio by a hand-written JSON-RPC client,
//! as an agent harness drives it. Each tool's answer is compared with the command line's
//! `--format json` answer on the same project.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{bin, without_git_env, Project};

/// A running server and the client end of its pipes.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Session {
    fn start(p: &Project) -> Session {
        let mut cmd = Command::new(bin());
        cmd.args(["mcp"])
            .current_dir(p.root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        without_git_env(&mut cmd);
        let mut child = cmd.spawn().expect("start rspec-scout mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Session {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    /// Starts a server and goes through the handshake.
    fn initialized(p: &Project) -> Session {
        let mut s = Session::start(p);
        let init = s.request("initialize", initialize_params());
        assert_eq!(init["result"]["serverInfo"]["name"], "rspec-scout");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to the server");
        stdin.flush().expect("flush");
    }

    fn recv(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("an answer within 60 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.recv();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// A tool call: its `isError` and its answer (the JSON text of its one content block).
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, Value) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &answer["result"];
        let content = result["content"].as_array().expect("content");
        assert_eq!(content.len(), 1, "{answer}");
        assert_eq!(content[0]["type"], "text");
        let text = content[0]["text"].as_str().expect("text");
        let value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (result["isError"] == true, value)
    }

    /// Closes stdin and waits for the server to end; its exit code.
    fn close(mut self) -> i32 {
        drop(self.stdin.take());
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code().unwrap_or(-1);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("the server did not exit within 30 s of stdin closing");
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize_params() -> Value {
    json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "rspec-scout-tests", "version": "1"}
    })
}

/// The fixture app in a repository whose `feature` branch adds a method to Payment.
fn app() -> Project {
    let p = Project::new();
    p.copy_fixture("rails_app");
    p.init_repo();
    p.commit_all("initial");
    p.git(&["checkout", "-q", "-b", "feature"]);
    p.edit(
        "app/models/payment.rb",
        "  def amount\n",
        "  def fee_waived?\n    amount < 100\n  end\n\n  def amount\n",
    );
    p
}

/// The command line's JSON answer.
fn cli(p: &Project, args: &[&str], code: i32) -> Value {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--format", "json"]);
    let run = p.run(&all).expect_code(code);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

#[test]
fn the_handshake_and_the_tool_list() {
    let p = app();
    let mut s = Session::start(&p);
    let init = s.request("initialize", initialize_params());
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(result["capabilities"], json!({"tools": {}}));
    assert_eq!(
        result["serverInfo"],
        json!({"name": "rspec-scout", "version": env!("CARGO_PKG_VERSION")})
    );
    assert!(result["instructions"]
        .as_str()
        .unwrap()
        .starts_with("rspec-scout plans RSpec tests"));
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let list = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "discover",
            "analyze",
            "symbols",
            "references",
            "test_config",
            "skeleton",
            "outline",
            "strip_markers",
            "validate",
            "status"
        ]
    );
    for tool in tools {
        let description = tool["description"].as_str().unwrap();
        assert!(!description.is_empty() && !description.contains('\n'));
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{tool}");
    }
    assert_eq!(
        tools[3]["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "A class or module (`Payment`, `Billing::Invoice`) or a method (`Payment#refund`, `Payment.for_period`)"},
                "paths": {"type": "array", "items": {"type": "string"}, "description": "Only uses in these files or folders (default: the whole project)"},
                "cursor": {"type": "string", "description": "Continue a paged answer (its page.next_cursor)"}
            },
            "required": ["name"],
            "additionalProperties": false
        })
    );
    let ping = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
    assert_eq!(s.close(), 0);
}

#[test]
fn every_tool_answers_what_the_command_line_answers() {
    let p = app();
    let mut s = Session::initialized(&p);

    // discover (branch mode), then the CLI on the same tree: the same plan.
    let (err, discovered) = s.call("discover", json!({}));
    assert!(!err, "{discovered}");
    assert_eq!(discovered, cli(&p, &["discover"], 0));
    assert_eq!(discovered["summary"]["selected_methods"], 1);

    let (err, symbols) = s.call("symbols", json!({"paths": ["app/models/payment.rb"]}));
    assert!(!err);
    assert_eq!(symbols, cli(&p, &["symbols", "app/models/payment.rb"], 0));

    let (err, one) = s.call("symbols", json!({"name": "Payment.for_period"}));
    assert!(!err);
    assert_eq!(
        one,
        json!({
            "status": "success",
            "files": [{
                "path": "app/models/payment.rb",
                "parse": "ok",
                "complexity": {"loc": 32, "methods": 7},
                "classes": [],
                "methods": [{
                    "id": "Payment.for_period",
                    "name": "for_period",
                    "class_name": "Payment",
                    "kind": "singleton",
                    "visibility": "public",
                    "line_range": [36, 38]
                }]
            }],
            "summary": {"files": 1, "files_with_errors": 0, "files_skipped": 0, "classes": 0, "methods": 1},
            "warnings": []
        })
    );

    let (err, refs) = s.call("references", json!({"name": "Payment#refundable?"}));
    assert!(!err);
    assert_eq!(
        refs,
        json!({
            "status": "success",
            "name": "Payment#refundable?",
            "target": {"kind": "instance_method", "class": "Payment", "method": "refundable?", "defined": true},
            "definitions": [{"path": "app/models/payment.rb", "line_range": [14, 16], "kind": "instance"}],
            "references": [
                {
                    "path": "app/models/user.rb",
                    "line": 24,
                    "method_id": "User#can_refund?",
                    "line_range": [24, 29],
                    "via": "variable",
                    "written": "payment",
                    "calls": ["refundable?"]
                },
                {
                    "path": "app/services/refunds/refund_policy.rb",
                    "line": 9,
                    "method_id": "Refunds::RefundPolicy#allowed?",
                    "line_range": [9, 14],
                    "via": "variable",
                    "written": "@payment",
                    "calls": ["refundable?"]
                }
            ],
            "summary": {"references": 2, "methods": 2, "files": 2},
            "warnings": []
        })
    );

    // Single mode with every method selected, so the file gets discovery metadata.
    let file = "app/services/payment_processor.rb";
    let (err, planned) = s.call("discover", json!({"paths": [file], "all": true}));
    assert!(!err, "{planned}");
    assert_eq!(planned, cli(&p, &["discover", "--all", file], 0));

    let (err, analyzed) = s.call("analyze", json!({"files": [file], "force": true}));
    assert!(!err, "{analyzed}");
    assert_eq!(analyzed, cli(&p, &["analyze", "--force", file], 0));

    let (err, configured) = s.call("test_config", json!({"metadata": file}));
    assert!(!err, "{configured}");
    assert_eq!(configured, cli(&p, &["test-config", file], 0));

    let (err, structure) = s.call(
        "skeleton",
        json!({"metadata": file, "stdout": true, "mode": "outline"}),
    );
    assert!(!err);
    assert_eq!(
        structure,
        cli(&p, &["skeleton", file, "--stdout", "--mode", "outline"], 0)
    );

    let (err, written) = s.call("skeleton", json!({"metadata": file}));
    assert!(!err, "{written}");
    let spec = "spec/services/payment_processor_spec.rb";
    assert!(p.exists(spec));
    assert_eq!(written["status"], "success", "{written}");

    let (err, outline) = s.call("outline", json!({"spec": spec}));
    assert!(!err);
    assert_eq!(outline, cli(&p, &["outline", spec], 0));

    let metadata = "tmp/rspec_metadata/app_services_payment_processor.yml";
    let (err, validated) = s.call(
        "validate",
        json!({"files": [metadata], "stage": "code-analyzer"}),
    );
    assert!(!err, "{validated}");
    assert_eq!(
        validated,
        cli(&p, &["validate", "--stage", "code-analyzer", metadata], 0)
    );

    let (err, status) = s.call("status", json!({}));
    assert!(!err);
    assert_eq!(status, cli(&p, &["status"], 0));

    let (err, stripped) = s.call("strip_markers", json!({"spec": spec}));
    assert!(!err, "{stripped}");
    assert!(!p.read(spec).contains("# rspec-testing:"));

    assert_eq!(s.close(), 0);
}

#[test]
fn bad_arguments_are_tool_errors_and_the_session_goes_on() {
    let p = app();
    std::fs::create_dir_all(p.root().join("app/shared")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.rb"), "class Secret; end\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), p.root().join("app/shared/elsewhere")).unwrap();
    let mut s = Session::initialized(&p);

    let (err, answer) = s.call("discover", json!({"wave": "first"}));
    assert!(err);
    assert_eq!(
        answer,
        json!({
            "status": "error",
            "error": "invalid arguments for discover: invalid type: string \"first\", expected u64",
            "details": "discover takes: paths (array of string), all (boolean), staged (boolean), base (string), only (array of string), exclude (array of string), allow_red (boolean), no_metadata (boolean), timings (boolean), wave (integer), file (string), cursor (string); required: none",
            "suggestion": "call again with arguments that match the tool's inputSchema (tools/list)",
            "error_code": "USAGE",
            "recoverable": true
        })
    );
    let (err, answer) = s.call("outline", json!({}));
    assert!(err);
    assert_eq!(
        answer["error"],
        "invalid arguments for outline: missing field `spec`"
    );
    let (err, answer) = s.call("deploy", json!({}));
    assert!(err);
    assert_eq!(answer["error_code"], "USAGE");

    for path in [
        "../secret.rb",
        "/etc/passwd",
        "app/../../x.rb",
        "app/shared/elsewhere/secret.rb",
    ] {
        let (err, answer) = s.call("symbols", json!({"paths": [path]}));
        assert!(err, "{path}");
        assert_eq!(answer["error_code"], "PATH_OUTSIDE_ROOT", "{path}");
        assert_eq!(
            answer["error"],
            format!("path outside the project root: {path}")
        );
    }
    let (err, answer) = s.call(
        "skeleton",
        json!({"metadata": "app/models/payment.rb", "spec": "../evil_spec.rb"}),
    );
    assert!(err);
    assert_eq!(answer["error_code"], "PATH_OUTSIDE_ROOT");

    // A spec target inside the root must still be a spec file: never the Gemfile,
    // production code or a git hook (the guard every write goes through).
    p.write("Gemfile", "gem 'rails'\n");
    let (err, _) = s.call("discover", json!({"all": true}));
    assert!(!err);
    let (err, _) = s.call("analyze", json!({"files": ["app/models/payment.rb"]}));
    assert!(!err);
    std::fs::create_dir_all(p.root().join(".git/hooks")).unwrap();
    for (spec, code) in [
        ("Gemfile", "NOT_A_SPEC_FILE"),
        ("app/models/user.rb", "NOT_A_SPEC_FILE"),
        (".git/hooks/post-checkout", "WRITE_OUTSIDE_ROOT"),
    ] {
        let (err, answer) = s.call(
            "skeleton",
            json!({"metadata": "app/models/payment.rb", "spec": spec}),
        );
        assert!(err, "{spec}");
        assert_eq!(answer["error_code"], code, "{spec}: {answer}");
        let (err, answer) = s.call("strip_markers", json!({"spec": spec}));
        assert!(err, "{spec}");
        assert_eq!(answer["error_code"], code, "strip_markers {spec}: {answer}");
    }
    assert_eq!(p.read("Gemfile"), "gem 'rails'\n");
    assert!(!p.exists(".git/hooks/post-checkout"));

    // A command's own error is its answer, with the code an agent switches on.
    let (err, answer) = s.call("outline", json!({"spec": "spec/missing_spec.rb"}));
    assert!(err);
    assert_eq!(answer, cli(&p, &["outline", "spec/missing_spec.rb"], 1));

    // Still serving.
    let (err, symbols) = s.call("symbols", json!({"paths": ["app/models/user.rb"]}));
    assert!(!err);
    assert_eq!(symbols["summary"]["files"], 1);
    assert_eq!(s.close(), 0);
}

#[test]
fn a_file_changed_on_disk_is_seen_by_the_next_call() {
    let p = app();
    let mut s = Session::initialized(&p);
    let file = "app/models/user.rb";
    let (_, before) = s.call("discover", json!({"paths": [file], "no_metadata": true}));
    let (_, refs_before) = s.call("references", json!({"name": "Payment"}));
    p.edit(
        file,
        "class User < ApplicationRecord\n",
        "class User < ApplicationRecord\n  def last_payment\n    Payment.for_period(1.day.ago..).last\n  end\n\n",
    );
    let (err, after) = s.call("discover", json!({"paths": [file], "no_metadata": true}));
    assert!(!err, "{after}");
    assert_eq!(after, cli(&p, &["discover", file, "--no-metadata"], 0));
    assert_ne!(after, before);
    let ids = |answer: &Value| -> Vec<String> {
        answer["method_waves"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|w| w["items"].as_array().unwrap().iter())
            .map(|i| {
                format!(
                    "{} {}",
                    i["method_id"].as_str().unwrap(),
                    i["method_mode"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert!(
        ids(&after).contains(&"User#last_payment new".to_string()),
        "{:?}",
        ids(&after)
    );
    let (_, refs_after) = s.call("references", json!({"name": "Payment"}));
    assert_eq!(
        refs_after["summary"]["references"].as_u64().unwrap(),
        refs_before["summary"]["references"].as_u64().unwrap() + 1
    );
    // A file added, then removed: the branch plan follows.
    p.write(
        "app/models/refund_note.rb",
        "class RefundNote\n  def text\n    'refunded'\n  end\nend\n",
    );
    let (_, added) = s.call("discover", json!({"no_metadata": true}));
    assert_eq!(added, cli(&p, &["discover", "--no-metadata"], 0));
    assert!(ids(&added).contains(&"RefundNote#text new".to_string()));
    p.remove("app/models/refund_note.rb");
    let (_, removed) = s.call("discover", json!({"no_metadata": true}));
    assert_eq!(removed, cli(&p, &["discover", "--no-metadata"], 0));
    assert!(!ids(&removed).contains(&"RefundNote#text new".to_string()));
    assert_eq!(s.close(), 0);
}

#[test]
fn a_large_plan_comes_in_pages_that_hold_every_method_once() {
    let p = Project::new();
    let generated = crate::synth::generate(&crate::synth::Spec::new(400));
    crate::synth::write(p.root(), &generated).unwrap();
    let full = cli(
        &p,
        // The command line prints a plan this large compact; the server pages it whole.
        &[
            "discover",
            "--all",
            "--no-metadata",
            "--allow-red",
            "--answer",
            "full",
        ],
        0,
    );
    let all_ids: Vec<String> = full["method_waves"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|w| w["items"].as_array().unwrap().iter())
        .map(|i| i["method_id"].as_str().unwrap().to_string())
        .collect();
    assert!(serde_json::to_string(&full).unwrap().len() > 48 * 1024);

    let mut s = Session::initialized(&p);
    let mut args = json!({"all": true, "no_metadata": true, "allow_red": true});
    let mut seen: Vec<String> = Vec::new();
    let mut pages = 0;
    loop {
        let (err, page) = s.call("discover", args.clone());
        assert!(!err, "{page}");
        pages += 1;
        assert!(serde_json::to_string(&page).unwrap().len() <= 64 * 1024);
        assert_eq!(page["summary"], full["summary"]);
        assert_eq!(
            page["page"]["total"].as_u64().unwrap() as usize,
            all_ids.len()
        );
        for wave in page["method_waves"].as_array().unwrap() {
            for item in wave["items"].as_array().unwrap() {
                seen.push(item["method_id"].as_str().unwrap().to_string());
            }
        }
        match page["page"]["next_cursor"].as_str() {
            Some(cursor) => args = json!({"cursor": cursor}),
            None => break,
        }
    }
    assert!(pages > 1);
    assert_eq!(seen, all_ids);

    // One wave, narrowed.
    let (_, wave) = s.call(
        "discover",
        json!({"all": true, "no_metadata": true, "allow_red": true, "wave": 0}),
    );
    let wave0 = full["method_waves"][0]["items"].as_array().unwrap().len();
    assert_eq!(wave["page"]["total"].as_u64().unwrap() as usize, wave0);
    assert_eq!(
        wave["waves"].as_array().unwrap().len(),
        full["method_waves"].as_array().unwrap().len()
    );
    // A stale cursor is refused.
    let (err, stale) = s.call("status", json!({"cursor": "999:0"}));
    assert!(err);
    assert_eq!(stale["error_code"], "USAGE");
    assert_eq!(s.close(), 0);
}

#[test]
fn closing_stdin_ends_the_server_cleanly() {
    let p = app();
    // Before the handshake.
    let s = Session::start(&p);
    assert_eq!(s.close(), 0);
    // After a call.
    let mut s = Session::initialized(&p);
    let (err, _) = s.call("status", json!({}));
    assert!(!err);
    assert_eq!(s.close(), 0);
}
