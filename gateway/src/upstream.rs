//! Upstream MCP servers: one supervised connection each, restarted with backoff when it ends.
//!
//! While an upstream is down its slot is empty and calls to it get an `isError` result saying
//! the server is unavailable; the gateway itself never exits because an upstream did.

use std::collections::HashSet;
use std::error::Error as _;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arc_swap::{ArcSwap, ArcSwapOption};
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{ClientInitializeError, QuitReason, ServiceError};
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::config::UpstreamSpec;
use crate::log::event;

/// The first restart delay; it doubles up to [`MAX_BACKOFF`] and resets after a stable run.
pub const MIN_BACKOFF: Duration = Duration::from_millis(200);
/// The longest restart delay.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);
const STABLE_RUN: Duration = Duration::from_secs(30);

/// A live connection to an upstream.
pub struct Connection {
    /// The client side of the MCP session.
    pub peer: Peer<RoleClient>,
    /// The tools the upstream listed when it started.
    pub tools: Vec<Tool>,
    /// The child's process id, for a stdio upstream.
    pub pid: Option<u32>,
    /// Cancelled when a call finds the connection broken (an HTTP upstream that went away
    /// ends no session by itself): the supervisor then reports it stopped and reconnects.
    pub broken: CancellationToken,
}

/// One upstream and its current connection, if it is up.
pub struct Upstream {
    /// The catalog server name.
    pub name: String,
    /// How it is reached.
    pub spec: UpstreamSpec,
    current: ArcSwapOption<Connection>,
    last_tools: ArcSwap<Vec<Tool>>,
}

/// Why a forwarded call produced no upstream result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallFailure {
    /// The upstream is not running.
    Unavailable,
    /// The upstream did not answer within the per-call timeout.
    Timeout(Duration),
    /// The upstream answered with an error or the connection broke.
    Failed(String),
}

impl CallFailure {
    /// A short machine-readable label for the decision log.
    pub fn label(&self) -> &'static str {
        match self {
            CallFailure::Unavailable => "server_unavailable",
            CallFailure::Timeout(_) => "upstream_timeout",
            CallFailure::Failed(_) => "upstream_error",
        }
    }

    /// The message the agent reads.
    pub fn message(&self, server: &str) -> String {
        match self {
            CallFailure::Unavailable => format!(
                "server `{server}` is unavailable right now (it is not running; the gateway keeps restarting it); try again shortly"
            ),
            CallFailure::Timeout(t) => format!(
                "server `{server}` did not answer within {} ms",
                t.as_millis()
            ),
            CallFailure::Failed(e) => format!("server `{server}` failed: {e}"),
        }
    }
}

/// How long connecting to an HTTP upstream (TCP and the TLS handshake) may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Most redirects one request to an HTTP upstream follows.
const MAX_REDIRECTS: usize = 10;

/// The HTTP client for a `url` upstream: rustls, with the system's trusted roots plus, for
/// `ca_file`, every certificate in that PEM file. Otherwise as rmcp's own default client: no
/// idle connection pool, and only same-origin 307/308 redirects followed (they keep the
/// method and body; any other redirect would lose the message or send the upstream token to
/// another origin).
///
/// # Errors
///
/// Why the CA file cannot be read or holds no certificate, or why the client cannot be built.
pub fn http_client(ca_file: Option<&Path>) -> Result<reqwest::Client, String> {
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    let mut builder = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .pool_max_idle_per_host(0)
        .redirect(redirects);
    if let Some(path) = ca_file {
        let shown = path.display();
        let pem = std::fs::read(path).map_err(|e| format!("cannot read ca_file `{shown}`: {e}"))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| format!("ca_file `{shown}` is not PEM: {}", error_chain(&e)))?;
        if certs.is_empty() {
            return Err(format!("ca_file `{shown}` holds no certificate"));
        }
        builder = builder.tls_certs_merge(certs);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {}", error_chain(&e)))
}

/// Why an HTTP upstream's handshake failed, down to the HTTP client's innermost cause, so a
/// TLS failure names its reason (`invalid peer certificate: UnknownIssuer`) and not only
/// "error sending request". rmcp's transport error does not expose the client error as its
/// source, so it is looked for inside.
fn initialize_error(e: &ClientInitializeError) -> String {
    if let ClientInitializeError::TransportError { error, .. } = e {
        if let Some(StreamableHttpError::Client(client)) = error
            .error
            .downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            return causes(e.to_string(), client.source());
        }
    }
    error_chain(e)
}

/// A failed upstream request in plain words, without the MCP library's type names: the
/// upstream's own error message, or what happened to the connection.
pub fn plain_error(e: &ServiceError) -> String {
    match e {
        ServiceError::McpError(data) => data.message.to_string(),
        ServiceError::TransportSend(_) | ServiceError::TransportClosed => {
            "the connection to it was lost".to_string()
        }
        ServiceError::Timeout { .. } => "it did not answer in time".to_string(),
        ServiceError::Cancelled { .. } => "the request was cancelled".to_string(),
        _ => "its answer was not a valid result".to_string(),
    }
}

/// Why a session ended, in plain words.
fn quit_reason(reason: &Result<QuitReason, tokio::task::JoinError>) -> &'static str {
    match reason {
        Ok(QuitReason::Cancelled) => "cancelled",
        Ok(QuitReason::Closed) => "the connection closed",
        _ => "the session task failed",
    }
}

/// An error with its causes, `outer: inner: innermost`.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    causes(e.to_string(), e.source())
}

/// `text` followed by each cause in the chain from `source` that it does not already say.
fn causes(mut text: String, mut source: Option<&(dyn std::error::Error + 'static)>) -> String {
    while let Some(cause) = source {
        let next = cause.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = cause.source();
    }
    text
}

/// A started session, whichever transport it runs on.
type Session = RunningService<RoleClient, ()>;

impl Upstream {
    /// An upstream that is not connected yet.
    pub fn new(name: String, spec: UpstreamSpec) -> Upstream {
        Upstream {
            name,
            spec,
            current: ArcSwapOption::empty(),
            last_tools: ArcSwap::from_pointee(Vec::new()),
        }
    }

    /// The current connection, if the upstream is up.
    pub fn connection(&self) -> Option<Arc<Connection>> {
        self.current.load_full()
    }

    /// The tools the upstream listed when it last started (kept while it is down, so calls
    /// to its tools are answered "unavailable" rather than "unknown").
    pub fn last_tools(&self) -> Arc<Vec<Tool>> {
        self.last_tools.load_full()
    }

    /// Starts the upstream once and lists its tools (used by `check --against` and `catalog`).
    /// `initialize` and `tools/list` may each take up to `timeout`; a child process that
    /// takes longer is killed.
    ///
    /// # Errors
    ///
    /// Why the upstream could not be started or listed, or which answer did not come in time.
    pub async fn connect(
        spec: &UpstreamSpec,
        timeout: Duration,
    ) -> Result<(Session, Vec<Tool>, Option<u32>), String> {
        let late = |what: &str| {
            format!(
                "did not answer `{what}` within {} ms ([limits] upstream_start_timeout_ms)",
                timeout.as_millis()
            )
        };
        let (session, pid) = match spec {
            UpstreamSpec::Stdio { command, env } => {
                let mut cmd = tokio::process::Command::new(&command[0]);
                cmd.args(&command[1..]).envs(env).kill_on_drop(true);
                let (proc, _) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::inherit())
                    .spawn()
                    .map_err(|e| format!("cannot start `{}`: {e}", command[0]))?;
                let pid = proc.id();
                let session = tokio::time::timeout(timeout, ().serve(proc))
                    .await
                    .map_err(|_| late("initialize"))?
                    .map_err(|e| format!("initialize failed: {e}"))?;
                (session, pid)
            }
            UpstreamSpec::Http {
                url,
                token_env,
                ca_file,
            } => {
                let client = http_client(ca_file.as_deref())?;
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                if let Some(var) = token_env {
                    let token = std::env::var(var).map_err(|_| {
                        format!("environment variable `{var}` (the upstream token) is not set")
                    })?;
                    config = config.auth_header(token);
                }
                let transport = StreamableHttpClientTransport::with_client(client, config);
                let session = tokio::time::timeout(timeout, ().serve(transport))
                    .await
                    .map_err(|_| late("initialize"))?
                    .map_err(|e| format!("initialize failed: {}", initialize_error(&e)))?;
                (session, None)
            }
        };
        let tools = match tokio::time::timeout(timeout, session.peer().list_all_tools()).await {
            Ok(r) => r.map_err(|e| format!("tools/list failed: {}", plain_error(&e)))?,
            Err(_) => {
                let _ = session.cancel().await;
                return Err(late("tools/list"));
            }
        };
        Ok((session, tools, pid))
    }

    /// Keeps the upstream running until `stop` is cancelled: connect, publish, wait for the
    /// session to end, clear, back off, again. `catalog` is the set of tool names the policy
    /// declares for this server; other upstream tools are reported once per start.
    pub async fn supervise(
        self: Arc<Self>,
        catalog: HashSet<String>,
        start_timeout: Duration,
        stop: CancellationToken,
    ) {
        let mut backoff = MIN_BACKOFF;
        loop {
            let started = Instant::now();
            let outcome = tokio::select! {
                _ = stop.cancelled() => return,
                r = Upstream::connect(&self.spec, start_timeout) => r,
            };
            match outcome {
                Ok((session, tools, pid)) => {
                    let unknown: Vec<&str> = tools
                        .iter()
                        .map(|t| t.name.as_ref())
                        .filter(|n| !catalog.contains(*n))
                        .collect();
                    let protocol = session
                        .peer()
                        .peer_info()
                        .map(|i| i.protocol_version.to_string());
                    event(
                        "upstream_started",
                        json!({"server": self.name, "pid": pid, "tools": tools.len(), "protocol": protocol}),
                    );
                    if !unknown.is_empty() {
                        event(
                            "upstream_tools_not_in_catalog",
                            json!({"server": self.name, "tools": unknown, "effect": "never listed, never callable"}),
                        );
                    }
                    self.last_tools.store(Arc::new(tools.clone()));
                    let broken = CancellationToken::new();
                    self.current.store(Some(Arc::new(Connection {
                        peer: session.peer().clone(),
                        tools,
                        pid,
                        broken: broken.clone(),
                    })));
                    let ct = session.cancellation_token();
                    let reason = tokio::select! {
                        _ = stop.cancelled() => { ct.cancel(); self.current.store(None); return; }
                        _ = broken.cancelled() => {
                            ct.cancel();
                            "a call found the connection to it broken"
                        }
                        r = session.waiting() => quit_reason(&r),
                    };
                    self.current.store(None);
                    event(
                        "upstream_stopped",
                        json!({"server": self.name, "pid": pid, "reason": reason}),
                    );
                }
                Err(e) => {
                    event("upstream_failed", json!({"server": self.name, "error": e}));
                }
            }
            if started.elapsed() > STABLE_RUN {
                backoff = MIN_BACKOFF;
            }
            event(
                "upstream_restart_scheduled",
                json!({"server": self.name, "in_ms": backoff.as_millis() as u64}),
            );
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(backoff) => {}
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// Forwards one call with a timeout.
    ///
    /// # Errors
    ///
    /// A [`CallFailure`] when the upstream is down, slow or failing.
    pub async fn call(
        &self,
        params: CallToolRequestParams,
        timeout: Duration,
    ) -> Result<CallToolResult, CallFailure> {
        let conn = self.connection().ok_or(CallFailure::Unavailable)?;
        match tokio::time::timeout(timeout, conn.peer.call_tool(params)).await {
            Err(_) => Err(CallFailure::Timeout(timeout)),
            Ok(Err(e)) => {
                let lost = matches!(
                    e,
                    ServiceError::TransportSend(_) | ServiceError::TransportClosed
                );
                if lost || conn.peer.is_transport_closed() {
                    conn.broken.cancel();
                    Err(CallFailure::Unavailable)
                } else {
                    Err(CallFailure::Failed(plain_error(&e)))
                }
            }
            Ok(Ok(r)) => Ok(r),
        }
    }
}
