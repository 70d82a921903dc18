//! The decision API answers as the command line does: `POST /v1/decide` gives the decision
//! JSON `toolgate eval` gives for the same request, odd ones included, and `GET /v1/tools`
//! lists the agent's tools exactly as `toolgate tools --format json` does. The command line is
//! the `toolgate` executable beside the gateway's (`cargo build -p toolgate`, with `--release`
//! for release tests), or `$TOOLGATE_BIN`.

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{add_key, write_config, Gateway};
use serde_json::Value;

const POLICY: &str = r#"server git { tool log(n?: integer) }
server "my.srv" { tool "a.b"(p) }
tool t(x: path)
tool Bash(command)
agent a {
  allow git.log where n < 10
  allow "my.srv"."a.b"
  allow t where x matches "/srv/**"
  deny Bash
}
"#;

/// The `toolgate` executable.
fn toolgate_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("TOOLGATE_BIN") {
        return PathBuf::from(path);
    }
    let path =
        common::gateway_bin().with_file_name(format!("toolgate{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "no toolgate executable at {}: build it with `cargo build -p toolgate` (add --release \
         for release tests), or set TOOLGATE_BIN",
        path.display()
    );
    path
}

/// Runs `toolgate ARGS` in `dir`; its stdout.
fn toolgate(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(toolgate_bin())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "toolgate {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// `toolgate eval`'s answers to these request lines, in order.
fn eval(dir: &Path, lines: &[String]) -> Vec<Value> {
    let file = dir.join("requests.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    // The policy by the path the gateway loads it from (it is in the policy hash).
    let policy = dir.join("p.policy");
    let out = toolgate(
        dir,
        &[
            "eval",
            policy.to_str().unwrap(),
            "--request",
            file.to_str().unwrap(),
        ],
    );
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// One request to the gateway with the key: the status and the JSON answer.
fn http(addr: SocketAddr, method: &str, path: &str, key: &str, body: &[u8]) -> (u16, Value) {
    let a = common::exchange(
        addr,
        &format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\n"
        ),
        body,
    );
    let json = serde_json::from_str(&a.body).unwrap_or(Value::Null);
    (a.status, json)
}

/// Requests that parse as JSON but are odd as requests, as the body text the gateway gets.
fn odd_requests() -> Vec<String> {
    let big = "x".repeat(1 << 20);
    let escaped = "\\u0001".repeat((1 << 20) / 6 + 1);
    let nested = format!("{}1{}", "[".repeat(120), "]".repeat(120));
    vec![
        r#"{"agent":"a","tool":"t","args":{"x":"/srv/a"},"tool_use_id":"u1"}"#.into(),
        r#"{"tool":"t","args":{"x":"/srv/../etc/passwd"}}"#.into(),
        r#" { "agent" : "a", "tool" : "t", "args" : { "x" : "\u002fsrv\/b" } } "#.into(),
        r#"{"agent":"a","tool":5,"tool_use_id":"u3"}"#.into(),
        r#"{"agent":"a","tool":"t","args":[],"tool_use_id":"u4"}"#.into(),
        r#"{"agent":"a","tool":"t","tool_use_id":7}"#.into(),
        r#"{"agent":"a","server":"git","tool":"log","args":{"n":9e15}}"#.into(),
        r#"{"agent":"a","server":"git","tool":"log","args":{"n":"3"}}"#.into(),
        r#"{"agent":"a","server":"git","tool":"log","args":{"n":3.0},"meta":{"x":[[1]],"y":null}}"#
            .into(),
        r#"{"agent":"a","server":"my.srv","tool":"a.b","args":{"p":-0.0}}"#.into(),
        r#"{"agent":"a","tool":"Bash","args":{"command":"ls"}}"#.into(),
        r#"{"agent":"a","tool":"nope","server":null,"tool_use_id":null}"#.into(),
        r#"{"agent":"a","tool":"t","permissions":["fs:read",3]}"#.into(),
        r#"{"agent":"a","server":5,"tool":"t"}"#.into(),
        r#"{}"#.into(),
        "5".into(),
        r#""a request""#.into(),
        "null".into(),
        format!(r#"{{"agent":"a","tool":"t","args":{{"x":"{big}"}}}}"#),
        format!(r#"{{"agent":"a","tool":"t","args":{{"x":"{escaped}"}}}}"#),
        format!(r#"{{"agent":"a","tool":"t","args":{{"x":{nested}}}}}"#),
    ]
}

/// The request line `toolgate eval` gets: the gateway fills in the key's agent when a request
/// object omits it.
fn with_agent(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut m)) if !m.contains_key("agent") => {
            m.insert("agent".into(), "a".into());
            Value::Object(m).to_string()
        }
        _ => text.to_string(),
    }
}

#[test]
fn decide_answers_as_eval_and_tools_lists_as_tools() {
    let dir = tempfile::tempdir().unwrap();
    let tail = "[log]\ndecisions = \"off\"\n[limits]\nmax_body_bytes = 16777216\n";
    let (config, addr) = write_config(dir.path(), POLICY, tail);
    let key = add_key(dir.path(), "a");
    let gw = Gateway::start(dir.path(), &config, addr);

    let requests = odd_requests();
    let lines: Vec<String> = requests.iter().map(|r| with_agent(r)).collect();
    let want = eval(dir.path(), &lines);
    assert_eq!(want.len(), requests.len());
    let reasons: Vec<&str> = want.iter().filter_map(|d| d["reason"].as_str()).collect();
    for r in [
        "allowed_by_rule",
        "bad_request",
        "no_matching_rule",
        "denied_by_rule",
        "unknown_tool",
    ] {
        assert!(reasons.contains(&r), "the set covers {r}: {reasons:?}");
    }
    assert!(
        want.iter()
            .any(|d| d["message"].as_str().unwrap_or("").contains("the limit is")),
        "the set covers the size limit"
    );
    // One request per body, and all of them in one array body.
    for (request, want) in requests.iter().zip(&want) {
        let (status, got) = http(addr, "POST", "/v1/decide", &key, request.as_bytes());
        assert_eq!(status, 200);
        assert_eq!(&got, want, "{}", &request[..request.len().min(120)]);
    }
    let batch = format!("[{}]", requests.join(","));
    let (status, got) = http(addr, "POST", "/v1/decide", &key, batch.as_bytes());
    assert_eq!((status, got), (200, Value::Array(want)));

    let listed: Value = serde_json::from_str(&toolgate(
        dir.path(),
        &[
            "tools",
            dir.path().join("p.policy").to_str().unwrap(),
            "--agent",
            "a",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    let (status, got) = http(addr, "GET", "/v1/tools", &key, b"");
    assert_eq!(status, 200);
    assert_eq!(got["tools"], listed);
    assert_eq!(
        listed,
        serde_json::json!([
            {"server": "git", "tool": "log", "name": "git.log"},
            {"server": "my.srv", "tool": "a.b", "name": "my.srv.a.b"},
            {"server": null, "tool": "t", "name": "t"},
        ])
    );
    drop(gw);
}
