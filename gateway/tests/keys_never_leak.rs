//! Property: whatever token a caller presents (the right key, a near miss, another key's id with
//! a wrong secret, a truncated key, junk), no key, no part of a key beyond its public id, and no
//! stored hash ever appears in a response body, the decision log, the event log, or the output
//! of `keys list`.
//!
//! It runs the real `toolgate-gateway` binary with the trivial upstream of the load benchmark.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;

const GATEWAY: &str = env!("CARGO_BIN_EXE_toolgate-gateway");
const UPSTREAM: &str = env!("CARGO_BIN_EXE_toolgate-gateway-load");

struct Running {
    child: Child,
    base: String,
    stderr: PathBuf,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn add_key(keys: &Path, agent: &str) -> (String, String) {
    let out = Command::new(GATEWAY)
        .args(["keys", "add", agent, "--keys"])
        .arg(keys)
        .output()
        .unwrap();
    assert!(out.status.success());
    let key = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        !stderr.contains(&key[12..]),
        "keys add printed the secret on stderr"
    );
    (key, stderr)
}

fn start(dir: &Path) -> Running {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        dir.join("p.policy"),
        "server trivial { tool echo(text) needs t:call }\n\
         agent alpha { grant t:call\n allow trivial.echo where text matches \"ok*\" }\n\
         agent beta { grant t:call\n allow trivial.echo where text matches \"beta*\" }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("gateway.toml"),
        format!(
            "policy = \"p.policy\"\nkeys = \"keys.json\"\nlisten = \"127.0.0.1:{port}\"\n\
             [limits]\nfailed_key_checks_burst = 100000\n[log]\ndecisions = \"decisions.log\"\n[upstream.trivial]\ncommand = [{:?}, \"--upstream\"]\n",
            UPSTREAM
        ),
    )
    .unwrap();
    let stderr = dir.join("events.log");
    let child = Command::new(GATEWAY)
        .args(["gateway", "--log-args", "--config"])
        .arg(dir.join("gateway.toml"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let running = Running {
        child,
        base: format!("http://127.0.0.1:{port}"),
        stderr,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&running.stderr)
        .unwrap_or_default()
        .contains("\"upstream_started\"")
    {
        assert!(Instant::now() < deadline, "the gateway did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    running
}

/// Every piece of secret material of one key.
fn secrets(key: &str, phc: &str) -> Vec<String> {
    let secret = &key[12..];
    let mut out = vec![key.to_string(), secret.to_string(), phc.to_string()];
    out.extend(phc.split('$').filter(|p| p.len() >= 16).map(str::to_string));
    out.extend(
        (0..=secret.len() - 12)
            .step_by(4)
            .map(|i| secret[i..i + 12].to_string()),
    );
    out
}

fn presented(keys: &[String], which: usize, mutation: u8, pos: usize, junk: &str) -> String {
    let key = &keys[which % keys.len()];
    match mutation % 6 {
        0 => key.clone(),
        1 => {
            let i = 12 + pos % (key.len() - 12);
            let c = if &key[i..i + 1] == "a" { "b" } else { "a" };
            format!("{}{c}{}", &key[..i], &key[i + 1..])
        }
        2 => format!("{}_{junk}", &key[..11]),
        3 => junk.to_string(),
        4 => key[..pos % key.len()].to_string(),
        _ => format!("{key}{junk}"),
    }
}

async fn exercise(base: &str, token: &str) -> Vec<String> {
    let mut bodies = Vec::new();
    let http = reqwest::Client::new();
    for (method, path, body) in [
        (
            "POST",
            "/v1/decide",
            r#"{"server": "trivial", "tool": "echo", "args": {"text": "ok"}}"#,
        ),
        ("GET", "/v1/tools", ""),
        (
            "POST",
            "/mcp",
            r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "p", "version": "1"}}}"#,
        ),
    ] {
        let req = if method == "POST" {
            http.post(format!("{base}{path}")).body(body)
        } else {
            http.get(format!("{base}{path}"))
        };
        if let Ok(r) = req
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .send()
            .await
        {
            let headers = format!("{:?}", r.headers());
            bodies.push(headers);
            bodies.push(r.text().await.unwrap_or_default());
        }
    }
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp"))
        .auth_header(token.to_string());
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    match ().serve(transport).await {
        Ok(client) => {
            for text in ["ok then", "beta too", "neither"] {
                let mut args = serde_json::Map::new();
                args.insert("text".into(), text.into());
                match client
                    .peer()
                    .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
                    .await
                {
                    Ok(r) => bodies.push(serde_json::to_string(&r).unwrap_or_default()),
                    Err(e) => bodies.push(e.to_string()),
                }
            }
            let _ = client.cancel().await;
        }
        Err(e) => bodies.push(e.to_string()),
    }
    bodies
}

#[test]
fn no_key_prefix_or_hash_ever_appears_in_logs_or_error_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let keys_path = dir.path().join("keys.json");
    let (alpha, _) = add_key(&keys_path, "alpha");
    let (beta, _) = add_key(&keys_path, "beta");
    let (revoked, _) = add_key(&keys_path, "alpha");
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&keys_path).unwrap()).unwrap();
    let phcs: Vec<String> = file["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["hash"].as_str().unwrap().to_string())
        .collect();
    let revoke = Command::new(GATEWAY)
        .args(["keys", "revoke", &revoked[..11], "--keys"])
        .arg(&keys_path)
        .output()
        .unwrap();
    assert!(revoke.status.success());
    let keys = vec![alpha, beta, revoked];
    let material: Vec<String> = keys
        .iter()
        .zip(&phcs)
        .flat_map(|(k, h)| secrets(k, h))
        .collect();

    let list = Command::new(GATEWAY)
        .args(["keys", "list", "--keys"])
        .arg(&keys_path)
        .output()
        .unwrap();
    let listed =
        String::from_utf8_lossy(&list.stdout).to_string() + &String::from_utf8_lossy(&list.stderr);
    for m in &material {
        assert!(
            !listed.contains(m.as_str()),
            "`keys list` shows secret material"
        );
    }
    assert!(
        listed.contains(&keys[0][..11]),
        "`keys list` shows the public ids"
    );

    let gw = start(dir.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut runner = TestRunner::new(Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0usize..3, any::<u8>(), any::<usize>(), "[ -~]{0,40}");
    runner
        .run(&strategy, |(which, mutation, pos, junk)| {
            let token = presented(&keys, which, mutation, pos, &junk);
            let bodies = rt.block_on(exercise(&gw.base, &token));
            for b in &bodies {
                for m in &material {
                    prop_assert!(
                        !b.contains(m.as_str()),
                        "secret material in a response: {b}"
                    );
                }
            }
            Ok(())
        })
        .unwrap();
    // The valid key was presented at least sometimes, so decision lines were written.
    let exact = presented(&keys, 0, 0, 0, "");
    rt.block_on(exercise(&gw.base, &exact));
    let decisions = std::fs::read_to_string(dir.path().join("decisions.log")).unwrap_or_default();
    assert!(
        decisions.contains("\"agent\":\"alpha\""),
        "no decision line for the valid key"
    );
    assert!(
        decisions.contains(&keys[0][..11]),
        "decision lines name the public key id"
    );
    let events = std::fs::read_to_string(&gw.stderr).unwrap_or_default();
    for m in &material {
        assert!(
            !decisions.contains(m.as_str()),
            "secret material in the decision log"
        );
        assert!(
            !events.contains(m.as_str()),
            "secret material in the event log"
        );
    }
}
