//! The decision log of the gateway executable: reopened on SIGHUP and after a rotation or a
//! deletion, a failed write reported, and with `[log] on_failure = "deny"` an allowed call
//! whose line cannot be written refused before it reaches the upstream.

mod common;

use std::path::Path;

use common::{add_key, runtime, text, text_tool, write_config, Gateway, HttpServer};
use rmcp::model::{CallToolRequestParams, CallToolResult};

const POLICY: &str = "server tiny { tool echo(text) }\nagent x { allow tiny.echo }\n";

/// A gateway in front of one upstream with `[log]` set to `log`.
fn start(rt: &tokio::runtime::Runtime, dir: &Path, log: &str) -> (Gateway, HttpServer, String) {
    let tiny = rt.block_on(HttpServer::start("tiny", vec![text_tool("echo")]));
    let tail = format!("[log]\n{log}\n[upstream.tiny]\nurl = \"{}\"\n", tiny.url);
    let (config, addr) = write_config(dir, POLICY, &tail);
    let key = add_key(dir, "x");
    let gw = Gateway::start(dir, &config, addr);
    gw.wait_event("upstream_started", |e| e["server"] == "tiny");
    (gw, tiny, key)
}

fn call(rt: &tokio::runtime::Runtime, gw: &Gateway, key: &str) -> CallToolResult {
    rt.block_on(async {
        let client = gw.client(key).await;
        let args = serde_json::json!({"text": "a"})
            .as_object()
            .unwrap()
            .clone();
        let r = client
            .peer()
            .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
            .await
            .unwrap();
        let _ = client.cancel().await;
        r
    })
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn the_log_is_reopened_on_sighup_and_after_rotation_or_deletion() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("decisions.log");
    let (gw, _tiny, key) = start(&rt, dir.path(), "decisions = \"decisions.log\"");
    call(&rt, &gw, &key);
    assert_eq!(lines(&path), 1);
    // Deleted: reopened (created again) without a signal.
    std::fs::remove_file(&path).unwrap();
    gw.wait_event("decision_log_reopened", |e| e["why"] == "rotated");
    call(&rt, &gw, &key);
    assert_eq!(lines(&path), 1);
    // Renamed away (logrotate's default mode): the same.
    std::fs::rename(&path, dir.path().join("decisions.log.1")).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !path.exists() {
        assert!(std::time::Instant::now() < deadline, "not reopened");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    call(&rt, &gw, &key);
    assert_eq!(lines(&path), 1);
    assert_eq!(lines(&dir.path().join("decisions.log.1")), 1);
    // SIGHUP reopens at once.
    let pid = libc::pid_t::try_from(gw.child.id()).unwrap();
    // SAFETY: kill takes plain integers and touches no memory of this process.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(pid, libc::SIGHUP) };
    assert_eq!(sent, 0);
    gw.wait_event("decision_log_reopened", |e| e["why"] == "sighup");
    call(&rt, &gw, &key);
    assert_eq!(lines(&path), 2);
}

#[test]
fn a_failed_write_is_an_event_and_the_call_is_served_by_default() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let (gw, tiny, key) = start(&rt, dir.path(), "decisions = \"/dev/full\"");
    let r = call(&rt, &gw, &key);
    assert_eq!(text(&r), "tiny answered echo");
    assert_eq!(tiny.calls(), 1);
    let ev = gw.wait_event("decision_log_failed", |_| true);
    assert_eq!(ev["effect"], "line lost");
    assert_eq!(ev["tool"], "echo");
}

#[test]
fn with_on_failure_deny_a_call_that_cannot_be_logged_is_refused() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let (gw, tiny, key) = start(
        &rt,
        dir.path(),
        "decisions = \"/dev/full\"\non_failure = \"deny\"",
    );
    let r = call(&rt, &gw, &key);
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("decision log"), "{}", text(&r));
    assert_eq!(tiny.calls(), 0, "the refused call reached the upstream");
    let ev = gw.wait_event("decision_log_failed", |_| true);
    assert_eq!(ev["effect"], "call refused");
}
