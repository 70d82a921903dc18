//! 2025-11-25 sessions are capped per key and overall, the one idle longest is closed first, and
//! the idle timeout comes from the configuration: checked over HTTP against an in-process
//! gateway (no upstreams), a closed session being answered 404.

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use toolgate_gateway::config::{Config, LogTarget};
use toolgate_gateway::daemon::{start, Mode, Running};
use toolgate_gateway::keys::KeyFile;
use toolgate_gateway::log::DecisionLog;
use toolgate_gateway::state::Shared;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// One POST to `/mcp`: the status and the `Mcp-Session-Id` answered, if any.
fn post(addr: SocketAddr, key: &str, session: Option<&str>, body: &str) -> (u16, Option<String>) {
    let session = session
        .map(|id| format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-11-25\r\n"))
        .unwrap_or_default();
    let a = common::exchange(
        addr,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{session}"
        ),
        body.as_bytes(),
    );
    let id = a.header("mcp-session-id").map(str::to_string);
    (a.status, id)
}

/// A new session for `key`, initialized.
fn session(addr: SocketAddr, key: &str) -> String {
    let (status, id) = post(addr, key, None, INITIALIZE);
    assert_eq!(status, 200, "initialize");
    let id = id.expect("no Mcp-Session-Id");
    assert!(is_open(addr, key, &id), "a new session is open");
    id
}

/// Whether the gateway still accepts messages in this session (202) rather than 404.
fn is_open(addr: SocketAddr, key: &str, id: &str) -> bool {
    match post(addr, key, Some(id), INITIALIZED).0 {
        202 => true,
        404 => false,
        other => panic!("unexpected status {other}"),
    }
}

fn gateway(
    rt: &tokio::runtime::Runtime,
    limits: &str,
) -> (Running, Vec<String>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.policy"),
        "tool t(x)\nagent a { allow t }\n",
    )
    .unwrap();
    let mut file = KeyFile {
        version: 1,
        ..KeyFile::default()
    };
    let keys = (0..2)
        .map(|_| file.add("a", "t".into()).unwrap().key)
        .collect();
    file.write(&dir.path().join("keys.json")).unwrap();
    let config = Config::parse(
        &dir.path().join("gateway.toml"),
        &format!(
            "policy = \"p.policy\"\nkeys = \"keys.json\"\nlisten = \"127.0.0.1:0\"\n\
             [limits]\n{limits}\n[log]\ndecisions = \"off\"\n"
        ),
    )
    .unwrap();
    let log = DecisionLog::open(&LogTarget::Off, false, 0).unwrap();
    let shared = Arc::new(Shared::load(config, log).unwrap());
    let running = rt.block_on(start(shared, Mode::Gateway)).unwrap();
    (running, keys, dir)
}

#[test]
fn sessions_are_capped_per_key_and_overall_and_the_idlest_is_closed() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (gw, keys, _dir) = gateway(&rt, "max_sessions = 3\nmax_sessions_per_key = 2");
    let (addr, a, b) = (gw.addr, &keys[0], &keys[1]);
    let a1 = session(addr, a);
    let a2 = session(addr, a);
    // a1 is used after a2 was made: a2 is now key a's session idle the longest.
    assert!(is_open(addr, a, &a1));
    let a3 = session(addr, a);
    assert!(
        !is_open(addr, a, &a2),
        "a third session of one key closes its idlest"
    );
    assert!(is_open(addr, a, &a1) && is_open(addr, a, &a3));
    let b1 = session(addr, b);
    // Three sessions, the overall cap: all open; used in the order a1, a3, b1.
    assert!(is_open(addr, a, &a1) && is_open(addr, a, &a3) && is_open(addr, b, &b1));
    let b2 = session(addr, b);
    // Four over an overall cap of three: the idlest of all, a1, is closed.
    assert!(
        !is_open(addr, a, &a1),
        "over the overall cap the idlest session closes"
    );
    assert!(is_open(addr, a, &a3) && is_open(addr, b, &b1) && is_open(addr, b, &b2));
    gw.stop.cancel();
    rt.block_on(gw.wait());
}

#[test]
fn the_idle_timeout_comes_from_the_configuration() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (gw, keys, _dir) = gateway(&rt, "session_idle_timeout_ms = 300");
    let id = session(gw.addr, &keys[0]);
    // Ten times the timeout: with rmcp's default (300 s) the session would still be open.
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        !is_open(gw.addr, &keys[0], &id),
        "the idle session was not closed"
    );
    gw.stop.cancel();
    rt.block_on(gw.wait());
}
