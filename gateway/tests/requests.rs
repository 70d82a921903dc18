//! What bad requests get from the gateway executable, and what they leave in its event log:
//! JSON-RPC errors for bad framing and parameters (not HTTP 415 or "method not found"), long
//! names cut in answers, refused keys and probes of hidden tools logged with the key id, and a
//! JSON answer for a `/v1/decide` body that is not UTF-8.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{add_key, write_config, Gateway};
use serde_json::Value;

/// One POST: the status, the headers and the body as text.
fn post(
    addr: SocketAddr,
    path: &str,
    key: &str,
    extra: &str,
    body: &[u8],
) -> (u16, String, String) {
    let a = common::exchange(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}"
        ),
        body,
    );
    (a.status, a.head, a.body)
}

/// The JSON-RPC error code of an answer (a JSON body, or the first SSE `data:` line).
fn error_code(body: &str) -> Option<i64> {
    std::iter::once(body)
        .chain(body.lines().filter_map(|l| l.strip_prefix("data:")))
        .filter_map(|j| serde_json::from_str::<Value>(j.trim()).ok())
        .find_map(|v| v["error"]["code"].as_i64())
}

fn start() -> (Gateway, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let policy = "tool t(x)\ntool secret(x)\nagent a { allow t }\n";
    let (config, addr) = write_config(dir.path(), policy, "[log]\ndecisions = \"off\"\n");
    let key = add_key(dir.path(), "a");
    let gw = Gateway::start(dir.path(), &config, addr);
    (gw, key, dir)
}

#[test]
fn bad_framing_and_bad_call_params_get_json_rpc_errors() {
    let (gw, key, _dir) = start();
    let addr = gw.addr;
    let (status, _, body) = post(addr, "/mcp", &key, "", b"{\"jsonrpc\":");
    assert_eq!((status, error_code(&body)), (400, Some(-32700)), "{body}");
    let (status, _, body) = post(addr, "/mcp", &key, "", b"\xff\xfe{}");
    assert_eq!((status, error_code(&body)), (400, Some(-32700)), "{body}");
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    let (status, _, body) = post(addr, "/mcp", &key, "", batch);
    assert_eq!((status, error_code(&body)), (400, Some(-32600)), "{body}");
    for params in [
        r#"{"name":"t","arguments":[1]}"#,
        r#"{"name":"t","arguments":"x"}"#,
        r#"{"name":5,"arguments":{}}"#,
    ] {
        let call = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#);
        let extra = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n";
        let (status, _, body) = post(addr, "/mcp", &key, extra, call.as_bytes());
        assert_eq!(
            (status, error_code(&body)),
            (200, Some(-32602)),
            "{params}: {body}"
        );
        let answer: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(answer["id"], 7);
    }
}

#[test]
fn long_names_are_cut_and_probes_and_refused_keys_are_logged_with_the_key_id() {
    let (gw, key, _dir) = start();
    let addr = gw.addr;
    let key_id = &key[..11];
    // A 2025-11-25 session, then calls by name.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let (status, head, _) = post(addr, "/mcp", &key, "", init.as_bytes());
    assert_eq!(status, 200);
    let session = head
        .lines()
        .find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_string())
        })
        .unwrap();
    let extra = format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    let done = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(post(addr, "/mcp", &key, &extra, done.as_bytes()).0, 202);
    let call = |id: u32, name: &str| {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {"x": 1}}});
        post(addr, "/mcp", &key, &extra, body.to_string().as_bytes())
    };
    let long = "n".repeat(900_000);
    let (status, _, body) = call(2, &long);
    assert_eq!(status, 200);
    assert_eq!(
        error_code(&body),
        Some(-32602),
        "{}",
        &body[..body.len().min(300)]
    );
    assert!(body.len() < 2_000, "the answer echoes {} bytes", body.len());
    assert!(body.contains("900000 bytes"), "{body}");
    // A hidden tool and an unknown one: the same answer, and both logged with the key id.
    let (_, _, hidden) = call(3, "secret");
    assert_eq!(error_code(&hidden), Some(-32602));
    let probe = gw.wait_event("unknown_tool", |e| e["tool"] == "secret");
    assert_eq!(probe["key_id"], key_id.to_string());
    assert_eq!(probe["agent"], "a");
    let logged = gw.wait_event("unknown_tool", |e| {
        e["tool"].as_str().is_some_and(|t| t.starts_with("nnn"))
    });
    assert!(logged["tool"].as_str().unwrap().len() < 200);

    // Refused keys: a well-formed key with a wrong secret is logged with its id, a missing
    // key without one; the key itself never appears.
    let wrong = format!("{}_{}", key_id, "0".repeat(64));
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(post(addr, "/mcp", &wrong, "", ping).0, 401);
    let ev = gw.wait_event("unauthorized", |e| e["key_id"] == key_id);
    assert_eq!(ev["path"], "/mcp");
    assert_eq!(post(addr, "/v1/tools", "", "", b"").0, 401);
    gw.wait_event("unauthorized", |e| e["key_id"].is_null());
    let log = std::fs::read_to_string(&gw.stderr).unwrap();
    assert!(!log.contains(&wrong[12..]) && !log.contains(&key[12..]));
    // A flood of refused keys is rate-limited in the log.
    for _ in 0..40 {
        assert_eq!(post(addr, "/v1/tools", "not-a-key", "", b"").0, 401);
    }
    std::thread::sleep(Duration::from_millis(200));
    let n = gw.events("unauthorized").len();
    assert!(n <= 20, "{n} unauthorized lines");
}

#[test]
fn a_decide_body_that_is_not_utf8_is_a_bad_request_decision() {
    let (gw, key, _dir) = start();
    let (status, _, body) = post(gw.addr, "/v1/decide", &key, "", b"{\"tool\":\"t\xff\"}");
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["reason"], "bad_request", "{body}");
    assert!(
        answer["message"].as_str().unwrap().contains("UTF-8"),
        "{body}"
    );
}
