//! Real parts for the upstream tests: MCP servers on rmcp's Streamable HTTP server on loopback
//! (any tool names), the `toolgate-gateway` executable in front of them with its stderr events
//! read back, and rmcp's client as the agent.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// A multi-threaded runtime for the in-process upstreams.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A raw HTTP/1.1 answer.
pub struct Answer {
    /// The status code (0 when the status line is unreadable).
    pub status: u16,
    /// The status line and the headers.
    pub head: String,
    /// The body, as text.
    pub body: String,
}

impl Answer {
    /// The value of header `name`, if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| {
            let (n, value) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

/// One raw HTTP/1.1 exchange on a new connection: `head` (the request line and headers, each
/// ended by CRLF, without the blank line; `Connection: close` and `Content-Length` are added)
/// and `body`.
pub fn exchange(addr: SocketAddr, head: &str, body: &[u8]) -> Answer {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let head = format!(
        "{head}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Answer {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// A tool with the given name and input schema.
pub fn tool(name: &str, schema: Value) -> Tool {
    let schema = match schema {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    Tool::new(
        name.to_string(),
        format!("the tool {name}"),
        Arc::new(schema),
    )
}

/// A tool taking one required string `text`.
pub fn text_tool(name: &str) -> Tool {
    tool(
        name,
        serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    )
}

#[derive(Clone)]
struct Handler {
    name: String,
    tools: Arc<Vec<Tool>>,
    calls: Arc<AtomicUsize>,
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let text = format!("{} answered {}", self.name, request.name);
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// An MCP server on loopback answering each call with `NAME answered TOOL`.
pub struct HttpServer {
    /// Its endpoint, `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    calls: Arc<AtomicUsize>,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl HttpServer {
    /// Starts one on the current runtime.
    pub async fn start(name: &str, tools: Vec<Tool>) -> HttpServer {
        let calls = Arc::new(AtomicUsize::new(0));
        let handler = Handler {
            name: name.to_string(),
            tools: Arc::new(tools),
            calls: calls.clone(),
        };
        let stop = CancellationToken::new();
        let config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_cancellation_token(stop.child_token());
        let service = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let app = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let s = stop.clone();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move { s.cancelled().await })
                .await;
        });
        HttpServer {
            url: format!("http://{addr}/mcp"),
            calls,
            stop,
            task,
        }
    }

    /// How many `tools/call` it has answered.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// Stops it and waits until its listener is closed.
    pub async fn stop(self) {
        self.stop.cancel();
        self.task.abort();
        let _ = self.task.await;
    }
}

/// The gateway executable.
pub fn gateway_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolgate-gateway"))
}

/// A port free right now on loopback.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Adds a key for `agent` to `dir/keys.json`; returns it.
pub fn add_key(dir: &Path, agent: &str) -> String {
    let out = Command::new(gateway_bin())
        .args(["keys", "add", agent, "--keys"])
        .arg(dir.join("keys.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Writes `gateway.toml` in `dir`: policy `p.policy`, keys `keys.json`, a free loopback port,
/// then `tail` (limits, log, upstream tables). Returns its path and the listen address.
pub fn write_config(dir: &Path, policy: &str, tail: &str) -> (PathBuf, SocketAddr) {
    std::fs::write(dir.join("p.policy"), policy).unwrap();
    let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let path = dir.join("gateway.toml");
    std::fs::write(
        &path,
        format!("policy = \"p.policy\"\nkeys = \"keys.json\"\nlisten = \"{addr}\"\n{tail}"),
    )
    .unwrap();
    (path, addr)
}

/// A running gateway process; killed when dropped.
pub struct Gateway {
    /// The process.
    pub child: Child,
    /// Its address.
    pub addr: SocketAddr,
    /// Where its stderr (the event log) goes.
    pub stderr: PathBuf,
}

impl Gateway {
    /// Starts `toolgate-gateway gateway --config CONFIG` and waits for `listening`.
    pub fn start(dir: &Path, config: &Path, addr: SocketAddr) -> Gateway {
        let stderr = dir.join("gateway.stderr");
        let child = Command::new(gateway_bin())
            .args(["gateway", "--config"])
            .arg(config)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let gw = Gateway {
            child,
            addr,
            stderr,
        };
        gw.wait_event("listening", |_| true);
        gw
    }

    /// The events of one kind logged so far.
    pub fn events(&self, kind: &str) -> Vec<Value> {
        std::fs::read_to_string(&self.stderr)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["event"] == kind)
            .collect()
    }

    /// Waits up to 30 s for an event of `kind` that `matches`.
    pub fn wait_event(&self, kind: &str, matches: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(e) = self.events(kind).into_iter().find(|e| matches(e)) {
                return e;
            }
            assert!(
                Instant::now() < deadline,
                "no `{kind}` event: {}",
                std::fs::read_to_string(&self.stderr).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// An MCP client of the gateway with `key`.
    pub async fn client(&self, key: &str) -> RunningService<RoleClient, ()> {
        let config =
            StreamableHttpClientTransportConfig::with_uri(format!("http://{}/mcp", self.addr))
                .auth_header(key.to_string());
        ().serve(StreamableHttpClientTransport::from_config(config))
            .await
            .unwrap()
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first text block of a result.
pub fn text(r: &CallToolResult) -> String {
    r.content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

/// Runs `toolgate-gateway ARGS` to completion, in at most `limit`: (exit code, stdout, stderr).
pub fn run_cli(args: &[&str], limit: Duration) -> (Option<i32>, String, String) {
    let mut child = Command::new(gateway_bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "`{}` still running after {limit:?}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
