//! The gateway against real upstreams: MCP servers on loopback (rmcp's Streamable HTTP server,
//! any tool names) and stdio children that never answer, with the `toolgate-gateway`
//! executable in between and rmcp's client as the agent.

mod common;

use std::time::Duration;

use common::{add_key, run_cli, runtime, text, text_tool, write_config, Gateway, HttpServer};
use rmcp::model::CallToolRequestParams;

fn upstream_table(name: &str, url: &str) -> String {
    format!("[upstream.{name}]\nurl = \"{url}\"\n")
}

/// Server `aaa` offers a tool named `git.echo`, server `git` a tool `echo`: one name would reach
/// both. Neither is listed or callable, the collision is an event naming both upstreams at
/// start, and `check --against` reports it.
#[test]
fn two_tools_one_name_would_reach_are_both_withheld_and_reported() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let aaa = rt.block_on(HttpServer::start(
        "aaa",
        vec![text_tool("git.echo"), text_tool("ok")],
    ));
    let git = rt.block_on(HttpServer::start(
        "git",
        vec![text_tool("echo"), text_tool("log")],
    ));
    let policy = "server aaa { tool \"git.echo\"(text)\n tool ok(text) }\n\
                  server git { tool echo(text)\n tool log(text) }\n\
                  agent x { allow aaa.*\n allow git.* }\n";
    let tail = format!(
        "[log]\ndecisions = \"off\"\n{}{}",
        upstream_table("aaa", &aaa.url),
        upstream_table("git", &git.url)
    );
    let (config, addr) = write_config(dir.path(), policy, &tail);
    let key = add_key(dir.path(), "x");
    let gw = Gateway::start(dir.path(), &config, addr);
    for s in ["aaa", "git"] {
        gw.wait_event("upstream_started", |e| e["server"] == s);
    }
    let ev = gw.wait_event("tool_name_collision", |_| true);
    assert_eq!(ev["name"], "git.echo");
    let mut servers: Vec<&str> = ev["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s.as_str())
        .collect();
    servers.sort();
    assert_eq!(servers, ["aaa", "git"]);
    assert!(ev["error"].as_str().unwrap().contains("`aaa`"), "{ev}");

    rt.block_on(async {
        let client = gw.client(&key).await;
        let mut names: Vec<String> = client
            .peer()
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        assert_eq!(names, ["log", "ok"]);
        for name in ["git.echo", "echo", "aaa.git.echo"] {
            let err = client
                .peer()
                .call_tool(CallToolRequestParams::new(name.to_string()))
                .await
                .unwrap_err()
                .to_string();
            assert!(err.contains("unknown tool"), "{name}: {err}");
        }
        let r = client
            .peer()
            .call_tool(
                CallToolRequestParams::new("log").with_arguments(
                    serde_json::json!({"text": "a"})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            )
            .await
            .unwrap();
        assert_eq!(text(&r), "git answered log");
        let _ = client.cancel().await;
    });

    let policy_path = dir.path().join("p.policy");
    let (code, _, err) = run_cli(
        &[
            "check",
            "--against",
            config.to_str().unwrap(),
            policy_path.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("toolgate::drift_tool_name_collision"), "{err}");
    drop(gw);
    rt.block_on(async {
        aaa.stop().await;
        git.stop().await;
    });
}

/// A stdio upstream that never answers `initialize`: the start times out with an
/// `upstream_failed` event, and calls to its cataloged tools get an `isError` result naming
/// it as unavailable (not "unknown tool").
#[test]
fn an_upstream_that_never_answers_initialize_times_out_and_its_tools_are_unavailable() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let policy = "server stuck { tool echo(text) }\nagent x { allow stuck.echo }\n";
    let tail = "[limits]\nupstream_start_timeout_ms = 300\n[log]\ndecisions = \"off\"\n\
                [upstream.stuck]\ncommand = [\"sleep\", \"1000\"]\n";
    let (config, addr) = write_config(dir.path(), policy, tail);
    let key = add_key(dir.path(), "x");
    let gw = Gateway::start(dir.path(), &config, addr);
    let failed = gw.wait_event("upstream_failed", |e| e["server"] == "stuck");
    let error = failed["error"].as_str().unwrap();
    assert!(
        error.contains("initialize") && error.contains("300 ms"),
        "{failed}"
    );
    rt.block_on(async {
        let client = gw.client(&key).await;
        for name in ["echo", "stuck.echo"] {
            let r = client
                .peer()
                .call_tool(
                    CallToolRequestParams::new(name).with_arguments(
                        serde_json::json!({"text": "a"})
                            .as_object()
                            .unwrap()
                            .clone(),
                    ),
                )
                .await
                .unwrap();
            assert_eq!(r.is_error, Some(true), "{name}");
            let t = text(&r);
            assert!(t.contains("`stuck`") && t.contains("unavailable"), "{t}");
        }
        let err = client
            .peer()
            .call_tool(CallToolRequestParams::new("nope"))
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown tool"), "{err}");
        let _ = client.cancel().await;
    });
}

/// An HTTP upstream that goes away: the agent reads a plain message naming the server (no
/// type names of the MCP library), and the gateway logs `upstream_stopped`.
#[test]
fn an_http_upstream_that_goes_down_is_reported_plainly_and_logged_stopped() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let tiny = rt.block_on(HttpServer::start("tiny", vec![text_tool("echo")]));
    let policy = "server tiny { tool echo(text) }\nagent x { allow tiny.echo }\n";
    let tail = format!(
        "[limits]\ncall_timeout_ms = 20000\n[log]\ndecisions = \"off\"\n{}",
        upstream_table("tiny", &tiny.url)
    );
    let (config, addr) = write_config(dir.path(), policy, &tail);
    let key = add_key(dir.path(), "x");
    let gw = Gateway::start(dir.path(), &config, addr);
    gw.wait_event("upstream_started", |e| e["server"] == "tiny");
    let args = serde_json::json!({"text": "a"})
        .as_object()
        .unwrap()
        .clone();
    rt.block_on(async {
        let client = gw.client(&key).await;
        let call = || {
            client
                .peer()
                .call_tool(CallToolRequestParams::new("echo").with_arguments(args.clone()))
        };
        assert_eq!(text(&call().await.unwrap()), "tiny answered echo");
        tiny.stop().await;
        let r = call().await.unwrap();
        assert_eq!(r.is_error, Some(true));
        let t = text(&r);
        assert!(t.contains("`tiny`"), "{t}");
        for leak in ["rmcp", "Transport", "StreamableHttp", "Error {", "Client("] {
            assert!(!t.contains(leak), "{t}");
        }
        let _ = client.cancel().await;
    });
    let stopped = gw.wait_event("upstream_stopped", |e| e["server"] == "tiny");
    assert!(
        !stopped["reason"].as_str().unwrap().contains("::"),
        "{stopped}"
    );
}

/// `catalog --from` on a server whose tool, argument and server names need quotes prints a
/// catalog that `check --against` accepts against that same server; a tool listed twice is
/// reported and printed once.
#[test]
fn a_printed_catalog_with_quoted_names_passes_check_against_its_own_server() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "zeta": {"type": "string"},
            "has space": {"type": "string"},
            "a.b": {"type": "integer"},
            "repo_path": {"type": "string"}
        },
        "required": ["has space", "repo_path"]
    });
    let odd = rt.block_on(HttpServer::start(
        "odd",
        vec![
            common::tool("git.status", schema),
            text_tool("héllo_wörld"),
            text_tool("has space"),
            text_tool("1st-tool"),
            text_tool("plain"),
        ],
    ));
    let tail = format!("[upstream.\"my.server\"]\nurl = \"{}\"\n", odd.url);
    let (config, _) = write_config(dir.path(), "", &tail);
    let config = config.to_str().unwrap().to_string();
    let (code, catalog, err) = run_cli(&["catalog", "--from", &config], Duration::from_secs(60));
    assert_eq!(code, Some(0), "{err}");
    assert!(catalog.contains("server \"my.server\" {"), "{catalog}");
    assert!(
        catalog.contains(
            "tool \"git.status\"(\"has space\": string, repo_path: string, \"a.b\"?: integer, zeta?: string)"
        ),
        "{catalog}"
    );
    let policy = dir.path().join("catalog.policy");
    std::fs::write(
        &policy,
        format!("{catalog}agent a {{ allow \"my.server\".* }}\n"),
    )
    .unwrap();
    let (code, _, err) = run_cli(
        &["check", "--against", &config, policy.to_str().unwrap()],
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("0 errors, 0 warnings"), "{err}");

    // A tool listed twice by one upstream: reported, declared once.
    let dup = rt.block_on(HttpServer::start(
        "dup",
        vec![text_tool("echo"), text_tool("echo"), text_tool("other")],
    ));
    let tail = format!("[upstream.dup]\nurl = \"{}\"\n", dup.url);
    let (config, _) = write_config(dir.path(), "server dup { tool other(text) }\n", &tail);
    let config = config.to_str().unwrap().to_string();
    let (code, catalog, err) = run_cli(&["catalog", "--from", &config], Duration::from_secs(60));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(catalog.matches("tool echo(").count(), 1, "{catalog}");
    assert!(err.contains("`echo` more than once"), "{err}");
    let policy = dir.path().join("p.policy");
    let (code, _, err) = run_cli(
        &["check", "--against", &config, policy.to_str().unwrap()],
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        err.matches("toolgate::drift_tool_listed_twice").count(),
        1,
        "{err}"
    );
    assert_eq!(
        err.matches("toolgate::drift_tool_not_in_catalog").count(),
        1,
        "{err}"
    );
    rt.block_on(async {
        odd.stop().await;
        dup.stop().await;
    });
}

/// An upstream that never answers makes `catalog --from` and `check --against` fail in
/// bounded time, naming it, with exit code 1.
#[test]
fn catalog_and_check_time_out_on_an_upstream_that_never_answers() {
    let dir = tempfile::tempdir().unwrap();
    let tail = "[limits]\nupstream_start_timeout_ms = 500\n[upstream.stuck]\ncommand = [\"sleep\", \"1000\"]\n";
    let (config, _) = write_config(dir.path(), "server stuck { tool echo(text) }\n", tail);
    let config = config.to_str().unwrap().to_string();
    let policy = dir.path().join("p.policy");
    for args in [
        vec!["catalog", "--from", config.as_str()],
        vec![
            "check",
            "--against",
            config.as_str(),
            policy.to_str().unwrap(),
        ],
    ] {
        let (code, _, err) = run_cli(&args, Duration::from_secs(30));
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(
            err.contains("upstream `stuck`") && err.contains("initialize"),
            "{args:?}: {err}"
        );
    }
}
