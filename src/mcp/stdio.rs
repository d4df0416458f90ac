//! MCP over stdin/stdout (newline-delimited JSON-RPC), through `rmcp`, the protocol's
//! official Rust SDK: it negotiates the protocol version, answers `ping` and routes
//! `tools/list` and `tools/call` to the [`Server`]. Calls run one at a time on one thread:
//! each one is quick next to the agent's own turn, and the warm index is shared state.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use super::Server;
use crate::error::{Error, Result};

/// How the server introduces itself to the agent.
const INSTRUCTIONS: &str = "rspec-scout plans RSpec tests for this Ruby/Rails project. Start with `discover` (what changed and in which order to test it), then `analyze` the selected files, `test_config`, `skeleton`; `symbols` and `references` answer where classes and methods are defined and used. Paths are relative to the project root. Large answers come in pages: pass `page.next_cursor` back as `cursor`.";

struct Handler {
    server: Mutex<Server>,
    tools: Arc<Vec<McpTool>>,
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
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let arguments = request
            .arguments
            .map_or(serde_json::Value::Null, serde_json::Value::Object);
        let outcome = {
            let mut server = self
                .server
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            server.call(&request.name, arguments)
        };
        let content = vec![ContentBlock::text(outcome.text)];
        Ok(if outcome.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }
}

/// Serves until stdin closes.
pub fn serve(server: Server) -> Result<()> {
    let tools = server
        .tools()
        .into_iter()
        .map(|t| {
            let schema: JsonObject = match t.input_schema {
                serde_json::Value::Object(map) => map,
                _ => JsonObject::new(),
            };
            McpTool::new(t.name, t.description, Arc::new(schema))
        })
        .collect();
    let handler = Handler {
        server: Mutex::new(server),
        tools: Arc::new(tools),
    };
    let failed = |what: &str, e: &dyn std::fmt::Display| Error::Usage {
        message: format!("mcp: {what}: {e}"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| failed("cannot start", &e))?;
    runtime.block_on(async {
        let running = match handler.serve(rmcp::transport::stdio()).await {
            Ok(running) => running,
            // The client went away before the handshake: nothing to serve, not a failure.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(failed("initialization", &e)),
        };
        running.waiting().await.map_err(|e| failed("session", &e))?;
        Ok(())
    })
}
