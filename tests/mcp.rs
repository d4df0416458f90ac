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
    /// Each tool's `outputSchema`, from `tools/list` (asked at the first call).
    schemas: Option<std::collections::HashMap<String, Value>>,
}

impl Session {
    fn start(p: &Project) -> Session {
        let mut cmd = Command::new(bin());
        cmd.args(["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        Session::start_with(cmd, p)
    }

    /// Starts `cmd` (with piped stdin and stdout) in `p`.
    fn start_with(mut cmd: Command, p: &Project) -> Session {
        cmd.current_dir(p.root());
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
            schemas: None,
        }
    }

    /// Starts a server and goes through the handshake.
    fn initialized(p: &Project) -> Session {
        Session::initialized_from(Session::start(p))
    }

    /// `s` after the handshake.
    fn initialized_from(mut s: Session) -> Session {
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
    /// The answer is also the call's `structuredContent`, and meets the tool's
    /// `outputSchema`.
    fn call(&mut self, tool: &str, arguments: Value) -> (bool, Value) {
        if self.schemas.is_none() {
            let list = self.request("tools/list", json!({}));
            self.schemas = Some(
                list["result"]["tools"]
                    .as_array()
                    .expect("tools")
                    .iter()
                    .map(|t| {
                        (
                            t["name"].as_str().unwrap().to_string(),
                            t["outputSchema"].clone(),
                        )
                    })
                    .collect(),
            );
        }
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = &answer["result"];
        let content = result["content"].as_array().expect("content");
        assert_eq!(content.len(), 1, "{answer}");
        assert_eq!(content[0]["type"], "text");
        let text = content[0]["text"].as_str().expect("text");
        let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
        if let Some(schema) = self.schemas.as_ref().and_then(|s| s.get(tool)) {
            assert_eq!(result["structuredContent"], value, "{tool}");
            meets(&value, schema).unwrap_or_else(|e| panic!("{tool}: {e}: {value}"));
        }
        (result["isError"] == true, value)
    }

    /// The next message that is not a notification; it must answer `id`.
    fn answer_to(&self, id: u64) -> Value {
        loop {
            let message = self.recv();
            if message.get("id").is_none() {
                continue;
            }
            assert_eq!(message["id"], id, "{message}");
            return message;
        }
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

/// Whether `value` meets `schema` as far as this server's schemas go: an object with the
/// required keys, each listed property of its type.
fn meets(value: &Value, schema: &Value) -> Result<(), String> {
    if schema["type"] != "object" || !value.is_object() {
        return Err("not an object".to_string());
    }
    for key in schema["required"].as_array().into_iter().flatten() {
        let key = key.as_str().unwrap();
        if value.get(key).is_none() {
            return Err(format!("no `{key}`"));
        }
    }
    for (key, property) in schema["properties"].as_object().into_iter().flatten() {
        let Some(got) = value.get(key) else { continue };
        let fits = match property["type"].as_str() {
            Some("string") => got.is_string(),
            Some("array") => got.is_array(),
            Some("object") => got.is_object(),
            Some("boolean") => got.is_boolean(),
            Some("integer") => got.is_u64() || got.is_i64(),
            _ => true,
        };
        if !fits {
            return Err(format!("`{key}` is not {}", property["type"]));
        }
    }
    Ok(())
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
            "init",
            "discover",
            "analyze",
            "symbols",
            "references",
            "factories",
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
        tools[4]["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "A class or module (`Payment`, `Billing::Invoice`) or a method (`Payment#refund`, `Payment.for_period`)"},
                "paths": {"type": "array", "items": {"type": "string"}, "description": "Only uses in these files or folders (default: the whole project)"},
                "cursor": {"type": "string", "description": "Continue a paged answer (its page.next_cursor); other arguments are then ignored"},
                "max_bytes": {"type": "integer", "minimum": 1024, "description": "Largest page, in bytes of JSON (default 49152); a larger answer comes in pages"}
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
            "not_followed": "dynamic calls are not followed: `send`/`public_send`, `method_missing`, calls on a local assigned from elsewhere (`p = Payment.find(id); p.refund`), on a block parameter (`orders.each { |order| order.cancel! }`), through `delegate` or a reader that returns the object, and uses outside method bodies",
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
fn init_and_factories_answer_what_the_command_line_answers() {
    let p = Project::new();
    p.copy_fixture("factories_app");
    let mut s = Session::initialized(&p);

    let (err, factories) = s.call("factories", json!({}));
    assert!(!err, "{factories}");
    assert_eq!(factories, cli(&p, &["factories"], 0));
    assert_eq!(factories["summary"]["factories"], 7);
    let (err, payments) = s.call("factories", json!({"classes": ["Payment"]}));
    assert!(!err);
    assert_eq!(payments, cli(&p, &["factories", "--class", "Payment"], 0));

    // A Rails app is asked its controllers policy first; nothing is written until then.
    let (err, asked) = s.call("init", json!({}));
    assert!(!err, "{asked}");
    assert_eq!(asked["status"], "needs_decision", "{asked}");
    assert!(!p.exists(".claude/rspec-testing-config.yml"));
    let (err, written) = s.call("init", json!({"controllers_policy": "request"}));
    assert!(!err, "{written}");
    assert_eq!(written["status"], "success", "{written}");
    let config = p.read(".claude/rspec-testing-config.yml");
    assert!(config.contains("gem: factory_bot"), "{config}");
    assert!(config.contains("spec_policy: request"), "{config}");
    // The CLI finds the file as the tool left it: nothing more to add.
    let again = cli(&p, &["init"], 0);
    assert_eq!(again["added"], json!([]), "{again}");
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
            "details": "discover takes: paths (array of string), all (boolean), staged (boolean), base (string), only (array of string), exclude (array of string), allow_red (boolean), no_metadata (boolean), timings (boolean), wave (integer), file (string), cursor (string), max_bytes (integer); required: none",
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

    // What a client sent comes back in part: a megabyte path is not echoed whole.
    let long = format!("../{}.rb", "a".repeat(1 << 20));
    let (err, answer) = s.call("symbols", json!({"paths": [long]}));
    assert!(err);
    assert_eq!(answer["error_code"], "PATH_OUTSIDE_ROOT");
    let text = answer.to_string();
    assert!(text.len() < 4096, "{} bytes", text.len());
    assert!(text.contains("bytes more)"), "{text}");

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
    let (mut files, mut slugs, mut warnings, mut edges) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut pages = 0;
    loop {
        let (err, page) = s.call("discover", args.clone());
        assert!(!err, "{page}");
        pages += 1;
        assert!(serde_json::to_string(&page).unwrap().len() <= 48 * 1024);
        assert_eq!(page["summary"], full["summary"]);
        assert_eq!(
            page["page"]["items"].as_u64().unwrap() as usize,
            all_ids.len()
        );
        for wave in page["method_waves"].as_array().unwrap() {
            for item in wave["items"].as_array().unwrap() {
                seen.push(item["method_id"].as_str().unwrap().to_string());
            }
        }
        // Files, slugs, edges and warnings: each page brings what its items need, files
        // without methods come after the items, warnings once.
        for (key, list) in [
            ("files", &mut files),
            ("slugs", &mut slugs),
            ("warnings", &mut warnings),
        ] {
            for value in page[key].as_array().unwrap() {
                if key == "warnings" || !list.contains(value) {
                    list.push(value.clone());
                }
            }
        }
        edges.extend(
            page["dependency_graph"]["edges"]
                .as_array()
                .unwrap()
                .iter()
                .cloned(),
        );
        match page["page"]["next_cursor"].as_str() {
            Some(cursor) => args = json!({"cursor": cursor}),
            None => break,
        }
    }
    assert!(pages > 1);
    assert_eq!(seen, all_ids);
    let sorted = |list: &[Value]| {
        let mut texts: Vec<String> = list.iter().map(Value::to_string).collect();
        texts.sort();
        texts
    };
    assert_eq!(sorted(&files), sorted(full["files"].as_array().unwrap()));
    assert_eq!(sorted(&slugs), sorted(full["slugs"].as_array().unwrap()));
    assert_eq!(&warnings, full["warnings"].as_array().unwrap());
    assert_eq!(
        sorted(&edges),
        sorted(full["dependency_graph"]["edges"].as_array().unwrap())
    );

    // One wave, narrowed.
    let (_, wave) = s.call(
        "discover",
        json!({"all": true, "no_metadata": true, "allow_red": true, "wave": 0}),
    );
    let wave0 = full["method_waves"][0]["items"].as_array().unwrap().len();
    assert_eq!(wave["page"]["items"].as_u64().unwrap() as usize, wave0);
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

/// Follows the cursors of `tool` from a first call with `arguments` and a small page: every
/// page within it, and the pages joined.
fn all_pages(s: &mut Session, tool: &str, arguments: Value, max_bytes: usize) -> (usize, Value) {
    let mut args = arguments;
    args["max_bytes"] = json!(max_bytes);
    let mut pages = Vec::new();
    loop {
        let (_, page) = s.call(tool, args.clone());
        let len = serde_json::to_string(&page).unwrap().len();
        assert!(len <= max_bytes, "{tool}: a page of {len} bytes: {page}");
        let next = page["page"]["next_cursor"].as_str().map(str::to_string);
        pages.push(page);
        match next {
            Some(cursor) => args = json!({"cursor": cursor}),
            None => break,
        }
    }
    (pages.len(), rspec_scout::mcp::page::join(&pages))
}

#[test]
fn every_tools_pages_join_into_the_command_lines_answer() {
    let p = app();
    let mut s = Session::initialized(&p);
    let files = [
        "app/models/payment.rb",
        "app/models/user.rb",
        "app/services/payment_processor.rb",
    ];
    let (err, _) = s.call("discover", json!({"paths": files, "all": true}));
    assert!(!err);
    let budget = 1024;

    let (pages, joined) = all_pages(
        &mut s,
        "analyze",
        json!({"files": files, "force": true}),
        budget,
    );
    assert!(pages > 3, "{pages}");
    let mut args = vec!["analyze", "--force", "--answer", "full"];
    args.extend(files);
    assert_eq!(joined, cli(&p, &args, 0));

    let (pages, joined) = all_pages(&mut s, "symbols", json!({}), budget);
    assert!(pages > 3, "{pages}");
    assert_eq!(joined, cli(&p, &["symbols", "."], 0));

    let (_, whole) = s.call("references", json!({"name": "Payment"}));
    let (pages, joined) = all_pages(&mut s, "references", json!({"name": "Payment"}), budget);
    assert!(pages > 1, "{pages}");
    assert_eq!(joined, whole);

    let file = files[2];
    let (_, joined) = all_pages(&mut s, "test_config", json!({"metadata": file}), budget);
    assert_eq!(
        joined,
        cli(&p, &["test-config", file, "--answer", "full"], 0)
    );

    let (pages, joined) = all_pages(
        &mut s,
        "skeleton",
        json!({"metadata": file, "stdout": true, "mode": "full"}),
        budget,
    );
    assert!(pages > 1, "{pages}");
    assert_eq!(
        joined,
        cli(
            &p,
            &["skeleton", file, "--stdout", "--mode", "full", "--answer", "full"],
            0
        )
    );

    let (err, _) = s.call("skeleton", json!({"metadata": file}));
    assert!(!err);
    let spec = "spec/services/payment_processor_spec.rb";
    let (pages, joined) = all_pages(
        &mut s,
        "outline",
        json!({"spec": spec, "view": "tree"}),
        budget,
    );
    assert!(pages > 1, "{pages}");
    assert_eq!(joined, cli(&p, &["outline", spec, "--view", "tree"], 0));

    let metadata = "tmp/rspec_metadata/app_services_payment_processor.yml";
    let (_, joined) = all_pages(
        &mut s,
        "validate",
        json!({"files": [metadata], "stage": "code-analyzer"}),
        budget,
    );
    assert_eq!(
        joined,
        cli(&p, &["validate", "--stage", "code-analyzer", metadata], 0)
    );

    let (_, joined) = all_pages(&mut s, "status", json!({}), budget);
    assert_eq!(joined, cli(&p, &["status", "--answer", "full"], 0));
    assert_eq!(s.close(), 0);
}

#[test]
fn a_session_keeps_the_facts_cache_the_command_line_keeps() {
    const CACHE: &str = "tmp/rspec_scout/facts.bin";
    let p = app();
    let full = json!({"all": true, "no_metadata": true});
    let cold = cli(
        &p,
        &[
            "discover",
            "--all",
            "--no-metadata",
            "--answer",
            "full",
            "--no-cache",
        ],
        0,
    );
    assert!(!p.exists(CACHE));
    // The first session makes the cache; the next starts from it and answers the same.
    for round in ["first", "second"] {
        let mut s = Session::initialized(&p);
        let (err, answer) = s.call("discover", full.clone());
        assert!(!err, "{answer}");
        assert_eq!(answer, cold, "{round} session");
        assert_eq!(s.close(), 0);
        assert!(p.exists(CACHE), "{round} session");
    }
    // An edit between sessions is seen, as the command line sees it.
    p.edit("app/models/user.rb", "def full_name", "def display_name");
    let mut s = Session::initialized(&p);
    let (_, answer) = s.call("discover", full.clone());
    assert_eq!(
        answer,
        cli(
            &p,
            &[
                "discover",
                "--all",
                "--no-metadata",
                "--answer",
                "full",
                "--no-cache"
            ],
            0
        )
    );
    assert!(answer.to_string().contains("User#display_name"));
    assert_eq!(s.close(), 0);
    // `--no-cache` neither reads nor writes it.
    p.remove(CACHE);
    let mut cmd = Command::new(bin());
    cmd.args(["mcp", "--no-cache"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut s = Session::initialized_from(Session::start_with(cmd, &p));
    let (err, _) = s.call("discover", full);
    assert!(!err);
    assert_eq!(s.close(), 0);
    assert!(!p.exists(CACHE));
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

/// A project of `files` models, each with a branch and a call into the next one: enough
/// work that a call is still running when the next messages arrive.
fn many_models(files: usize) -> Project {
    let p = Project::new();
    p.write(
        "Gemfile",
        "source \"https://rubygems.org\"\ngem \"rails\"\n",
    );
    for i in 0..files {
        let next = (i + 1) % files;
        p.write(
            &format!("app/models/ledger_{i}.rb"),
            format!(
                "class Ledger{i} < ApplicationRecord\n  belongs_to :account\n\n  def settle(amount)\n    if amount > limit\n      errors.add(:amount, :too_large)\n      false\n    else\n      update!(balance: balance - amount)\n      Ledger{next}.new.settle(amount / 2)\n    end\n  end\n\n  def limit = account.credit_limit || 0\nend\n"
            ),
        );
    }
    p
}

#[test]
fn a_long_call_leaves_the_session_live_reports_progress_and_stops_when_cancelled() {
    let p = many_models(1500);
    let mut s = Session::initialized(&p);
    s.send(&json!({
        "jsonrpc": "2.0", "id": 100, "method": "tools/call",
        "params": {"name": "analyze", "arguments": {"files": ["app"]}, "_meta": {"progressToken": "plan-1"}}
    }));
    s.send(&json!({"jsonrpc": "2.0", "id": 101, "method": "ping"}));
    // The ping is answered while the call runs: the call is off the protocol loop.
    let mut progress: Vec<Value> = Vec::new();
    loop {
        let message = s.recv();
        if message["method"] == "notifications/progress" {
            progress.push(message);
            continue;
        }
        assert_eq!(message["id"], 101, "{message}");
        assert_eq!(message["result"], json!({}));
        break;
    }
    // Progress comes from the command's phases; once analysis is under way, cancel.
    while !progress.iter().any(|m| {
        m["params"]["message"]
            .as_str()
            .is_some_and(|t| t.starts_with("analyze: "))
    }) {
        let message = s.recv();
        assert_eq!(message["method"], "notifications/progress", "{message}");
        progress.push(message);
    }
    s.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 100, "reason": "the user pressed Esc"}
    }));
    let mut last = -1.0;
    for message in &progress {
        assert_eq!(message["params"]["progressToken"], "plan-1");
        let at = message["params"]["progress"].as_f64().unwrap();
        assert!(at >= last, "progress went back: {progress:?}");
        last = at;
    }
    // The next call waits for the cancelled one to stop; the cancelled one never answers
    // (`answer_to` fails on any other id) and wrote no metadata (analysis stopped before
    // its writing phase).
    s.send(&json!({"jsonrpc": "2.0", "id": 102, "method": "tools/call", "params": {"name": "symbols", "arguments": {"paths": ["app/models/ledger_1.rb"]}}}));
    let after = s.answer_to(102);
    assert_eq!(after["result"]["isError"], false, "{after}");
    let written = std::fs::read_dir(p.root().join("tmp/rspec_metadata"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(written, 0);
    assert_eq!(s.close(), 0);
}

#[test]
fn closing_stdin_during_a_long_call_ends_the_server() {
    let p = many_models(1500);
    let mut s = Session::initialized(&p);
    s.send(&json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "analyze", "arguments": {"files": ["app"]}}
    }));
    // `close` fails the test if the server outlives stdin by 30 s.
    assert_eq!(s.close(), 0);
}

#[test]
fn malformed_messages_get_json_rpc_errors_and_the_session_goes_on() {
    let p = app();
    let mut s = Session::initialized(&p);
    let stdin = s.stdin.as_mut().unwrap();
    writeln!(stdin, "{{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": ").unwrap();
    stdin.flush().unwrap();
    let parse = s.recv();
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert_eq!(parse["id"], Value::Null);
    for (arguments, what) in [(json!([1, 2]), "an array"), (json!("all"), "a string")] {
        s.send(&json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "discover", "arguments": arguments}}));
        let invalid = s.answer_to(10);
        assert_eq!(invalid["error"]["code"], -32602, "{invalid}");
        assert!(
            invalid["error"]["message"].as_str().unwrap().contains(what),
            "{invalid}"
        );
    }
    let ping = s.request("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
    assert_eq!(s.close(), 0);
}

#[test]
fn the_command_lines_argument_rules_hold_for_tools() {
    let p = app();
    let mut s = Session::initialized(&p);
    for (tool, arguments, message) in [
        (
            "discover",
            json!({"all": true, "staged": true}),
            "discover: `all` and `staged` cannot be used together",
        ),
        (
            "discover",
            json!({"staged": true, "paths": ["app"]}),
            "discover: `staged` and `paths` cannot be used together",
        ),
        (
            "analyze",
            json!({}),
            "analyze: `files` is required unless `from_metadata` is given",
        ),
        (
            "analyze",
            json!({"files": ["app"], "from_metadata": true}),
            "analyze: `from_metadata` and `files` cannot be used together",
        ),
        (
            "validate",
            json!({"files": ["x.yml"]}),
            "validate: `stage` is required unless `yaml` is given",
        ),
        (
            "validate",
            json!({"files": ["x.yml"], "yaml": true, "stage": "code-analyzer"}),
            "validate: `yaml` and `stage` cannot be used together",
        ),
        (
            "skeleton",
            json!({"metadata": "app/models/payment.rb", "on_new_conflict": "beside"}),
            "skeleton: `on_new_conflict` takes ask, overwrite, skip, not \"beside\"",
        ),
    ] {
        let (err, answer) = s.call(tool, arguments.clone());
        assert!(err, "{tool} {arguments}");
        assert_eq!(answer["error_code"], "USAGE", "{answer}");
        assert_eq!(answer["error"], message, "{tool} {arguments}");
        // The same call on the command line is refused too.
    }
    for args in [
        vec!["discover", "--all", "--staged"],
        vec!["discover", "--staged", "app"],
        vec!["analyze"],
        vec!["analyze", "app", "--from-metadata"],
        vec!["validate", "x.yml"],
        vec!["validate", "x.yml", "--yaml", "--stage", "code-analyzer"],
        vec![
            "skeleton",
            "app/models/payment.rb",
            "--on-new-conflict",
            "beside",
        ],
    ] {
        p.run(&args).expect_code(2);
    }
    // The tools' answers name arguments, not flags.
    let (err, answer) = s.call("status", json!({"paths": ["app/models/nothing.rb"]}));
    let text = answer.to_string();
    assert!(
        !text.contains(" --") && !text.contains("`--"),
        "{err} {text}"
    );
    assert_eq!(s.close(), 0);
}

#[test]
fn tools_say_what_they_touch_and_what_they_answer() {
    let p = app();
    let mut s = Session::initialized(&p);
    let list = s.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let hint = |name: &str, key: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["annotations"][key].clone()
    };
    for name in [
        "symbols",
        "references",
        "factories",
        "outline",
        "status",
        "validate",
    ] {
        assert_eq!(hint(name, "readOnlyHint"), true, "{name}");
        assert_eq!(hint(name, "destructiveHint"), false, "{name}");
    }
    for name in [
        "init",
        "discover",
        "analyze",
        "test_config",
        "skeleton",
        "strip_markers",
    ] {
        assert_eq!(hint(name, "readOnlyHint"), false, "{name}");
    }
    for name in ["skeleton", "strip_markers"] {
        assert_eq!(hint(name, "destructiveHint"), true, "{name}");
    }
    for tool in tools {
        assert!(
            tool["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{tool}"
        );
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
        assert_eq!(
            tool["outputSchema"]["required"],
            json!(["status"]),
            "{tool}"
        );
    }
    // `null` is an argument left out, as the schema's optional arguments say.
    let (err, answer) = s.call(
        "discover",
        json!({"paths": null, "wave": null, "all": null, "no_metadata": true}),
    );
    assert!(!err, "{answer}");
    assert_eq!(s.close(), 0);
}

#[test]
fn a_server_started_outside_a_ruby_project_says_so() {
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin());
    cmd.args(["mcp", "--root"])
        .arg(empty.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let p = Project::new();
    let mut s = Session::start_with(cmd, &p);
    let init = s.request("initialize", initialize_params());
    assert_eq!(init["result"]["serverInfo"]["name"], "rspec-scout");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let (err, answer) = s.call("discover", json!({"all": true}));
    assert!(err);
    let message = answer["error"].as_str().unwrap();
    assert!(message.contains("which is not a Ruby project"), "{message}");
    assert!(
        message.contains("no Gemfile, gemspec, Rakefile, app/ or lib/"),
        "{message}"
    );
    assert_eq!(s.close(), 0);
}

#[test]
fn the_readmes_registration_starts_a_working_server() {
    // The `.mcp.json` block of the README, committed at the root of an app as it says.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = &readme[readme.find("## MCP server").expect("an MCP section")..];
    let start = section.find("```json\n").expect("a JSON block") + "```json\n".len();
    let end = start + section[start..].find("```").unwrap();
    let registration: Value = serde_json::from_str(&section[start..end]).unwrap();
    let server = &registration["mcpServers"]["rspec-scout"];
    assert_eq!(server["command"], "rspec-scout");
    let args: Vec<&str> = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    // The README's `claude mcp add` line writes project scope with the same command.
    assert!(section.contains(&format!(
        "claude mcp add -s project rspec-scout -- rspec-scout {}",
        args.join(" ")
    )));

    let p = app();
    p.write(".mcp.json", &section[start..end]);
    // Started where a harness starts project servers: the project's root.
    let mut cmd = Command::new(bin());
    cmd.args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut s = Session::start_with(cmd, &p);
    let init = s.request("initialize", initialize_params());
    assert_eq!(init["result"]["serverInfo"]["name"], "rspec-scout");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let (err, symbols) = s.call("symbols", json!({"name": "Payment"}));
    assert!(!err, "{symbols}");
    assert_eq!(symbols["files"][0]["path"], "app/models/payment.rb");
    assert_eq!(s.close(), 0);
}

#[test]
fn an_edit_that_keeps_size_and_mtime_is_seen() {
    let p = app();
    let file = "app/models/refund_note.rb";
    p.write(file, "class RefundNote\n  def text_a\n    1\n  end\nend\n");
    let mut s = Session::initialized(&p);
    let (_, before) = s.call("symbols", json!({"paths": [file]}));
    assert_eq!(before["files"][0]["methods"][0]["name"], "text_a");
    // Same size, and the mtime put back: only the content tells (git's racy-clean rule:
    // a file changed within the clock's granularity of its last read is digested again).
    let path = p.root().join(file);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, "class RefundNote\n  def text_b\n    1\n  end\nend\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    let (_, after) = s.call("symbols", json!({"paths": [file]}));
    assert_eq!(after["files"][0]["methods"][0]["name"], "text_b", "{after}");
    assert_eq!(s.close(), 0);
}
