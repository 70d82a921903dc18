//! Starting the daemon: the listener, the routes, the upstream supervisors and the reload loop.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::log::event;
use crate::mcp::Gateway;
use crate::origin::{HostRules, LOOPBACK_HOSTS};
use crate::sessions::Sessions;
use crate::state::{fingerprint, Shared};
use crate::upstream::Upstream;

/// Which routes the daemon serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `/mcp` and the decision API, with the upstreams running.
    Gateway,
    /// The decision API only (`toolgate serve`).
    Serve,
}

/// How often the policy and key files are checked for changes.
pub const WATCH_INTERVAL: Duration = Duration::from_millis(500);

/// A running daemon.
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Cancel to stop it.
    pub stop: CancellationToken,
    /// Its state.
    pub shared: Arc<Shared>,
    /// The supervised upstreams.
    pub upstreams: Arc<Vec<Arc<Upstream>>>,
    /// The 2025-11-25 sessions (`None` when serving the decision API only).
    pub sessions: Option<Arc<Sessions>>,
    server: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Waits until the server stops.
    pub async fn wait(self) {
        let _ = self.server.await;
    }
}

/// The upstream tools each catalog server declares, for reporting unknown upstream tools.
fn catalog_by_server(shared: &Shared) -> HashMap<String, HashSet<String>> {
    let mut out: HashMap<String, HashSet<String>> = HashMap::new();
    let engine = shared.engine();
    if let Ok(loaded) =
        toolgate::load::engine_from_paths(std::slice::from_ref(&shared.config.policy))
    {
        if let Some(policy) = loaded.policy {
            for t in &policy.tools {
                if let Some(s) = t.server.and_then(|i| policy.servers.get(i)) {
                    out.entry(s.name.clone())
                        .or_default()
                        .insert(t.name.clone());
                }
            }
            return out;
        }
    }
    // A bundle carries no catalog listing; fall back to every tool some agent may see.
    for agent in engine.agent_names() {
        for v in engine.visible_tools(agent).unwrap_or_default() {
            if let Some(s) = v.server {
                out.entry(s).or_default().insert(v.tool);
            }
        }
    }
    out
}

/// Binds the listener and starts everything.
///
/// # Errors
///
/// Why the listener could not be bound.
pub async fn start(shared: Arc<Shared>, mode: Mode) -> Result<Running, String> {
    let config = &shared.config;
    let stop = CancellationToken::new();
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|s| s.to_string()).collect();
    hosts.extend(config.allowed_hosts.iter().cloned());
    let rules = Arc::new(HostRules {
        hosts: hosts.clone(),
        origins: config.allowed_origins.clone(),
    });

    let mut upstreams = Vec::new();
    if mode == Mode::Gateway {
        let catalog = catalog_by_server(&shared);
        for server in catalog.keys() {
            if !config.upstreams.contains_key(server) {
                event(
                    "upstream_missing",
                    json!({"server": server, "effect": "its tools are never listed; add an [upstream] table"}),
                );
            }
        }
        for (name, spec) in &config.upstreams {
            let up = Arc::new(Upstream::new(name.clone(), spec.clone()));
            let tools = catalog.get(name).cloned().unwrap_or_default();
            tokio::spawn(up.clone().supervise(
                tools,
                config.limits.upstream_start_timeout,
                stop.clone(),
            ));
            upstreams.push(up);
        }
    }
    let upstreams = Arc::new(upstreams);
    if mode == Mode::Gateway {
        tokio::spawn(report_collisions(
            upstreams.clone(),
            catalog_by_server(&shared),
            stop.clone(),
        ));
    }

    let mut authed: Router<Arc<Shared>> = crate::serve::routes();
    let mut sessions = None;
    if mode == Mode::Gateway {
        let gateway = Gateway::new(shared.clone(), upstreams.clone());
        let mcp_config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(config.allowed_origins.clone())
            .enforce_origin_validation()
            .with_max_request_body_bytes(config.limits.max_body_bytes)
            // A call's answer is one JSON body rather than a one-event SSE stream: no stream
            // to keep open (and keep alive) until the handler's task ends, fewer writes.
            .with_json_response(true)
            .with_cancellation_token(stop.child_token());
        let tracked = Arc::new(Sessions::new(&config.limits));
        let service =
            StreamableHttpService::new(move || Ok(gateway.clone()), tracked.manager(), mcp_config);
        authed = authed.merge(
            Router::new()
                .nest_service("/mcp", service)
                .layer(from_fn_with_state(tracked.clone(), crate::sessions::track))
                .layer(from_fn_with_state(
                    config.limits.max_body_bytes,
                    crate::framing::check,
                )),
        );
        sessions = Some(tracked);
    }
    let authed = authed
        .layer(DefaultBodyLimit::max(config.limits.max_body_bytes))
        .layer(from_fn_with_state(shared.clone(), crate::auth::require_key));
    let app = Router::new()
        .route("/healthz", get(crate::serve::healthz))
        .merge(authed)
        .layer(from_fn_with_state(rules, crate::origin::check))
        .with_state(shared.clone());

    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen on `{}`: {e}", config.listen))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?;
    // Responses are written in several small pieces (headers, SSE events): without TCP_NODELAY,
    // Nagle's algorithm and the peer's delayed ACK stall each call by about 40 ms.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let s = stop.clone();
    let server = tokio::spawn(async move {
        // The peer address is kept for the per-peer limit on failed key checks.
        let app = app.into_make_service_with_connect_info::<SocketAddr>();
        let r = axum::serve(listener, app)
            .with_graceful_shutdown(async move { s.cancelled().await })
            .await;
        if let Err(e) = r {
            event("server_failed", json!({"error": e.to_string()}));
        }
    });
    tokio::spawn(watch(shared.clone(), stop.clone()));
    event(
        "listening",
        json!({"addr": addr.to_string(), "mode": if mode == Mode::Gateway { "gateway" } else { "serve" }, "policy_hash": shared.engine().policy_hash()}),
    );
    Ok(Running {
        addr,
        stop,
        shared,
        upstreams,
        sessions,
        server,
    })
}

/// Reports each tool name collision among the upstreams' cataloged tools once, as a
/// `tool_name_collision` event naming both upstreams, whenever an upstream's tool list changes.
async fn report_collisions(
    upstreams: Arc<Vec<Arc<Upstream>>>,
    catalog: HashMap<String, HashSet<String>>,
    stop: CancellationToken,
) {
    let mut last: Vec<Arc<Vec<rmcp::model::Tool>>> = Vec::new();
    let mut reported = HashSet::new();
    loop {
        let lists: Vec<_> = upstreams.iter().map(|u| u.last_tools()).collect();
        let changed =
            lists.len() != last.len() || lists.iter().zip(&last).any(|(a, b)| !Arc::ptr_eq(a, b));
        if changed {
            let routes = upstreams.iter().zip(&lists).flat_map(|(u, tools)| {
                let declared = catalog.get(&u.name);
                tools
                    .iter()
                    .filter(move |t| declared.is_some_and(|d| d.contains(t.name.as_ref())))
                    .map(move |t| (u.name.as_str(), t.name.as_ref()))
            });
            for c in crate::naming::collisions(routes) {
                if reported.insert(c.clone()) {
                    event(
                        "tool_name_collision",
                        json!({
                            "name": c.name,
                            "servers": [c.first.server, c.second.server],
                            "tools": [c.first.tool, c.second.tool],
                            "error": c.message(),
                        }),
                    );
                }
            }
            last = lists;
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(WATCH_INTERVAL) => {}
        }
    }
}

/// Reloads on SIGHUP and when the policy or key files change; each reload runs on a blocking
/// thread, off the request path. SIGHUP also reopens a decision log file, and every tick
/// reopens one that was rotated away or deleted.
async fn watch(shared: Arc<Shared>, stop: CancellationToken) {
    let paths = vec![shared.config.policy.clone(), shared.config.keys.clone()];
    let mut last = fingerprint(&paths);
    #[cfg(unix)]
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
    loop {
        #[cfg(unix)]
        let signalled = async {
            match hup.as_mut() {
                Some(h) => {
                    h.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let signalled = std::future::pending::<()>();
        let why = tokio::select! {
            _ = stop.cancelled() => return,
            _ = signalled => "sighup",
            _ = tokio::time::sleep(WATCH_INTERVAL) => "file_change",
        };
        if why == "sighup" {
            shared.decisions.reopen("sighup");
        } else {
            shared.decisions.check_rotation();
        }
        let now = fingerprint(&paths);
        if why == "file_change" && now == last {
            continue;
        }
        last = now;
        let s = shared.clone();
        let _ = tokio::task::spawn_blocking(move || s.reload(why)).await;
    }
}
