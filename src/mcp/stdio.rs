//! MCP over stdin/stdout (newline-delimited JSON-RPC), through `rmcp`, the protocol's
//! official Rust SDK: it negotiates the protocol version, answers `ping` and routes
//! `tools/list` and `tools/call` to the [`Server`].
//!
//! A tool call runs on a thread of its own, off the protocol loop, so the loop keeps
//! answering `ping` and reading `notifications/cancelled` while a long call runs. Calls
//! take turns on the session (the warm index is shared state). A cancelled call stops at
//! its next step that only reads ([`super::Control`]) and gets no answer, as the protocol
//! says; progress notifications follow the phases the command line reports with
//! `--progress`, when the call carries a `progressToken`. A closed stdin cancels what is
//! running (a write under way finishes) and ends the process.
//!
//! Each line is checked before rmcp reads it: a line that is not JSON gets JSON-RPC's
//! parse error (-32700) and a `tools/call` whose `arguments` are not an object gets
//! invalid params (-32602), answers the SDK would not give (it drops the first and takes
//! the second for an unknown method).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::{Control, Server};
use crate::error::{Error, Result};

/// How the server introduces itself to the agent.
const INSTRUCTIONS: &str = "rspec-scout plans RSpec tests for this Ruby/Rails project. `init` writes the pipeline's config once. Then `discover` (what changed and in which order to test it), `analyze` the selected files, `test_config`, `skeleton`; `symbols` and `references` answer where classes and methods are defined and used, `factories` which factory and traits build a class. Paths are relative to the project root. Large answers come in pages: pass `page.next_cursor` back as `cursor`.";

/// Progress notifications of one call come at most this often (a phase's start always
/// comes): a parse of 10k files would otherwise send 10k messages.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// The longest line read from stdin (a request with a megabyte path is fine; a runaway
/// client's endless line is not kept in memory).
const MAX_LINE: usize = 16 * 1024 * 1024;

struct Handler {
    server: Arc<Mutex<Server>>,
    tools: Arc<Vec<McpTool>>,
    /// The cancellation flags of the calls under way: a closed stdin sets them all.
    running: Running,
}

/// The cancellation flags of the calls under way.
type Running = Arc<Mutex<Vec<Arc<AtomicBool>>>>;

/// Stops every call under way (stdin closed: nobody waits for their answers).
fn cancel_all(running: &Running) {
    for flag in running
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
    {
        flag.store(true, Ordering::Relaxed);
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions(INSTRUCTIONS);
        info.server_info = Implementation::new("rspec-scout", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let arguments = request
            .arguments
            .map_or(serde_json::Value::Null, serde_json::Value::Object);
        let name = request.name.to_string();
        let control = Control {
            cancelled: Arc::new(AtomicBool::new(false)),
            progress: context
                .meta
                .get_progress_token()
                .map(|token| progress_sender(token, context.peer.clone())),
        };
        let cancelled = Arc::clone(&control.cancelled);
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(Arc::clone(&cancelled));
        let running = Arc::clone(&self.running);
        let flag = Arc::clone(&cancelled);
        let _done = Finally(move || {
            running
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .retain(|f| !Arc::ptr_eq(f, &flag));
        });
        let server = Arc::clone(&self.server);
        let with_schema = self
            .tools
            .iter()
            .any(|t| t.name == name && t.output_schema.is_some());
        let work = tokio::task::spawn_blocking(move || {
            let mut server = server
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            server.call_with(&name, arguments, control)
        });
        let outcome = tokio::select! {
            done = work => done.map_err(|e| ErrorData::internal_error(format!("the call failed: {e}"), None))?,
            () = context.ct.cancelled() => {
                // The client cancelled (or stdin closed): stop the work; the protocol
                // drops whatever is answered here.
                cancelled.store(true, Ordering::Relaxed);
                return Err(ErrorData::new(ErrorCode(-32800), "request cancelled", None));
            }
        };
        let structured = if with_schema {
            serde_json::from_str::<Value>(&outcome.text).ok()
        } else {
            None
        };
        let mut result = if outcome.is_error {
            CallToolResult::error(vec![ContentBlock::text(outcome.text)])
        } else {
            CallToolResult::success(vec![ContentBlock::text(outcome.text)])
        };
        result.structured_content = structured;
        Ok(result.into())
    }
}

/// Runs its closure when dropped.
struct Finally<F: FnMut()>(F);

impl<F: FnMut()> Drop for Finally<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// Sends a call's progress as `notifications/progress`, in order, at most every
/// [`PROGRESS_EVERY`] within a phase. `progress` counts every step of every phase so far,
/// so it only grows; `total` is the current phase's end on the same count.
fn progress_sender(
    token: rmcp::model::ProgressToken,
    peer: rmcp::Peer<RoleServer>,
) -> Arc<super::ProgressFn> {
    let (send, mut receive) = tokio::sync::mpsc::unbounded_channel::<ProgressNotificationParam>();
    tokio::spawn(async move {
        while let Some(param) = receive.recv().await {
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
    });
    struct State {
        phase: String,
        base: usize,
        last_total: usize,
        last_sent: Option<Instant>,
    }
    let state = Mutex::new(State {
        phase: String::new(),
        base: 0,
        last_total: 0,
        last_sent: None,
    });
    Arc::new(move |phase: &str, done: usize, total: usize| {
        let mut s = state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let new_phase = s.phase != phase;
        if new_phase {
            let finished = s.last_total;
            s.base += finished;
            s.phase = phase.to_string();
        }
        s.last_total = total.max(done);
        let due = s.last_sent.is_none_or(|t| t.elapsed() >= PROGRESS_EVERY);
        if !new_phase && !due && done < total {
            return;
        }
        s.last_sent = Some(Instant::now());
        let mut param = ProgressNotificationParam::new(token.clone(), (s.base + done) as f64);
        if total > 0 {
            param = param.with_total((s.base + total) as f64);
        }
        param.message = Some(if total > 0 {
            format!("{phase}: {done} of {total}")
        } else {
            format!("{phase}: {done}")
        });
        let _ = send.send(param);
    })
}

/// Serves until stdin closes.
pub fn serve(server: Server) -> Result<()> {
    let tools = server.tools().into_iter().map(mcp_tool).collect();
    let warm = server.warm_index();
    let running: Running = Arc::default();
    let handler = Handler {
        server: Arc::new(Mutex::new(server)),
        tools: Arc::new(tools),
        running: Arc::clone(&running),
    };
    let failed = |what: &str, e: &dyn std::fmt::Display| Error::Usage {
        message: format!("mcp: {what}: {e}"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| failed("cannot start", &e))?;
    let served = runtime.block_on(async {
        // rmcp reads and writes through in-memory pipes; the tasks below move lines
        // between them and the real stdin/stdout, answering malformed lines themselves.
        let (to_rmcp, rmcp_in) = tokio::io::duplex(1 << 20);
        let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 20);
        let (out_send, out_receive) = tokio::sync::mpsc::unbounded_channel::<String>();
        let writer = tokio::spawn(write_lines(out_receive));
        let reader = tokio::spawn(read_lines(to_rmcp, out_send.clone(), running));
        let forward = tokio::spawn(forward_lines(from_rmcp, out_send));
        let running = match handler.serve((rmcp_in, rmcp_out)).await {
            Ok(running) => running,
            // The client went away before the handshake: nothing to serve, not a failure.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
                reader.abort();
                return Ok(());
            }
            Err(e) => return Err(failed("initialization", &e)),
        };
        let quit = running.waiting().await;
        reader.abort();
        // What rmcp wrote last reaches stdout before the process ends.
        let _ = forward.await;
        let _ = writer.await;
        quit.map(drop).map_err(|e| failed("session", &e))
    });
    // A call still running (cancelled, it stops at its next step) is not waited for: the
    // process ends with the session.
    runtime.shutdown_background();
    // The facts cache's last write is finished before the process ends.
    warm.wait_for_save();
    served
}

/// The tool as `tools/list` shows it: title, hints, and the output schema.
fn mcp_tool(t: super::Tool) -> McpTool {
    let schema: JsonObject = match t.input_schema {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let mut tool = McpTool::new(t.name, t.description, Arc::new(schema))
        .with_title(t.title)
        .with_annotations(
            rmcp::model::ToolAnnotations::with_title(t.title)
                .read_only(t.read_only)
                .destructive(t.destructive)
                .idempotent(t.idempotent),
        );
    if let serde_json::Value::Object(map) = t.output_schema {
        tool = tool.with_raw_output_schema(Arc::new(map));
    }
    tool
}

/// Copies stdin to rmcp line by line; a line that is not JSON, or a `tools/call` whose
/// arguments are not an object, is answered here instead.
async fn read_lines(
    mut to_rmcp: tokio::io::DuplexStream,
    out: tokio::sync::mpsc::UnboundedSender<String>,
    running: Running,
) {
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = match read_line_capped(&mut stdin, &mut line).await {
            Ok(read) => read,
            Err(_) => break,
        };
        if read == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            continue;
        }
        match check_line(trimmed) {
            Ok(()) => {
                let mut bytes = trimmed.as_bytes().to_vec();
                bytes.push(b'\n');
                if to_rmcp.write_all(&bytes).await.is_err() {
                    break;
                }
            }
            Err(answer) => {
                if out.send(answer).is_err() {
                    break;
                }
            }
        }
    }
    // The client is gone or done: what runs stops at its next step, and dropping
    // `to_rmcp` closes rmcp's input, which ends the session.
    cancel_all(&running);
}

/// Reads one line into `line`, keeping at most [`MAX_LINE`] bytes of it (the rest is read
/// and dropped, and the line is then not JSON).
async fn read_line_capped(
    reader: &mut BufReader<tokio::io::Stdin>,
    line: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (take, end) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if line.len() < MAX_LINE {
            let room = MAX_LINE - line.len();
            line.extend_from_slice(chunk.get(..take.min(room)).unwrap_or(&[]));
        }
        reader.consume(take);
        total += take;
        if end {
            return Ok(total);
        }
    }
}

/// `Ok` for a line rmcp should read; otherwise the JSON-RPC error line to answer.
fn check_line(line: &str) -> std::result::Result<(), String> {
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(e) => {
            return Err(error_line(
                &Value::Null,
                -32700,
                &format!("parse error: not JSON ({e})"),
            ))
        }
    };
    let Some(message) = value.as_object() else {
        // A batch or a bare value: rmcp answers what it can.
        return Ok(());
    };
    if message.get("method").and_then(Value::as_str) == Some("tools/call") {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let params = message.get("params");
        let bad = match params {
            Some(Value::Object(p)) => match p.get("arguments") {
                None | Some(Value::Null | Value::Object(_)) => None,
                Some(other) => Some(format!(
                    "invalid params: `arguments` must be an object, not {}",
                    kind(other)
                )),
            },
            Some(other) => Some(format!(
                "invalid params: `params` must be an object, not {}",
                kind(other)
            )),
            None => Some("invalid params: tools/call needs `params` with a `name`".to_string()),
        }
        .or_else(|| match params.and_then(|p| p.get("name")) {
            Some(Value::String(_)) => None,
            _ => Some("invalid params: tools/call needs `name`, a string".to_string()),
        });
        if let Some(message) = bad {
            return Err(error_line(&id, -32602, &message));
        }
    }
    Ok(())
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn error_line(id: &Value, code: i64, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    })
    .to_string()
}

/// Copies rmcp's output to the writer, line by line.
async fn forward_lines(
    from_rmcp: tokio::io::DuplexStream,
    out: tokio::sync::mpsc::UnboundedSender<String>,
) {
    let mut lines = BufReader::new(from_rmcp).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if out.send(line).is_err() {
            break;
        }
    }
}

/// The only writer of stdout: one whole line at a time.
async fn write_lines(mut lines: tokio::sync::mpsc::UnboundedReceiver<String>) {
    let mut stdout = tokio::io::stdout();
    while let Some(mut line) = lines.recv().await {
        line.push('\n');
        if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_lines_get_the_json_rpc_errors() {
        let parse = check_line("{not json").unwrap_err();
        let parse: Value = serde_json::from_str(&parse).unwrap();
        assert_eq!(parse["error"]["code"], -32700);
        assert_eq!(parse["id"], Value::Null);

        let args = check_line(
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"status","arguments":[1]}}"#,
        )
        .unwrap_err();
        let args: Value = serde_json::from_str(&args).unwrap();
        assert_eq!(args["error"]["code"], -32602);
        assert_eq!(args["id"], 4);
        assert!(args["error"]["message"]
            .as_str()
            .unwrap()
            .contains("an array"));

        let no_name = check_line(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}"#)
            .unwrap_err();
        assert!(no_name.contains("-32602"));

        for fine in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        ] {
            assert_eq!(check_line(fine), Ok(()), "{fine}");
        }
    }
}
