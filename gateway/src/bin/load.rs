//! `toolgate-gateway-load`: the gateway's load benchmark (bounded, loopback only).
//!
//! It runs N `tools/call` to a trivial stdio upstream (this same executable started with
//! `--upstream`) directly, then the same N through a `toolgate-gateway` process (found beside
//! this executable) in front of the same upstream, one call at a time, once per protocol
//! revision (a 2025-11-25 session, then sessionless 2026-07-28), and reports p50/p99 latency
//! of each, the latency the gateway adds, calls/s, the gateway's resident memory before and
//! after the runs, the CPU time per call of this client and of the gateway (all their threads,
//! from `/proc/PID/task/*/schedstat`, a figure that other processes' load disturbs far less than
//! latency), and the policy decision's share of the added latency (from the decision log's
//! `decision_us`). `--check` makes it exit 1 on any error or on memory growth.
//!
//! `--flood` measures instead a client whose key is verified (cached) while eight threads send
//! wrong keys (a known id with a wrong secret, and unknown ids), first all from one peer
//! address, then from 512 loopback addresses (so that the per-peer limit hardly applies and
//! the concurrency cap bounds the argon2 work): the client's p50/p99 idle and under each flood, the flood's answers
//! by status, and the gateway's resident memory idle, at its peak during the floods, and 5 s
//! after. With `--check` it exits 1 on any error of the client or when the peak exceeds the
//! documented bound (`max_concurrent_key_checks` x 19 MiB over the idle figure, plus 16 MiB).
//!
//! The direct and the gateway path run on the same client setup (one current-thread runtime,
//! the same rmcp client code), so that what the gateway path adds is the gateway's hop and not
//! a difference between two clients; the upstream runs on a current-thread runtime as well.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{
    ClientLifecycleMode, ClientServiceExt, ErrorData, RoleServer, ServerHandler, ServiceExt,
};

/// The most a `--check` run lets the gateway's resident memory grow, in KiB.
const MAX_GROWTH_KIB: u64 = 8 * 1024;
/// The longest the whole benchmark may run.
const TIME_LIMIT: Duration = Duration::from_secs(600);

/// The trivial upstream: one tool, `echo(text)`, answering its argument.
#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _r: Option<PaginatedRequestParams>,
        _c: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        let schema = schema.as_object().cloned().unwrap_or_default();
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "echo",
            "Answers its argument",
            Arc::new(schema),
        )]))
    }

    async fn call_tool(
        &self,
        r: CallToolRequestParams,
        _c: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = r
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(|t| t.as_str())
            .unwrap_or("")
            .to_string();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

struct Args {
    calls: usize,
    check: bool,
    flood: bool,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut calls = 20_000;
    let mut check = false;
    let mut flood = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--upstream" => return Ok(None),
            "--check" => check = true,
            "--flood" => flood = true,
            "--calls" => {
                calls = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|n: &usize| (1..=1_000_000).contains(n))
                    .ok_or("`--calls` needs a number from 1 to 1000000")?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Some(Args {
        calls,
        check,
        flood,
    }))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// CPU time (ns) the process has spent on all its threads still running: the sum of the first
/// field of each `/proc/PID/task/TID/schedstat` (`self` for this process); 0 when unreadable.
fn cpu_ns(pid: Option<u32>) -> u64 {
    let dir = match pid {
        Some(pid) => format!("/proc/{pid}/task"),
        None => "/proc/self/task".to_string(),
    };
    let Ok(tasks) = std::fs::read_dir(dir) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| {
            s.split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
        })
        .sum()
}

/// A run's latencies (µs), errors, duration (s), and CPU per call (µs) of this client and, for
/// a run through the gateway, of the gateway.
struct Run {
    lat: Vec<f64>,
    errors: usize,
    secs: f64,
    client_cpu_us: f64,
    gateway_cpu_us: Option<f64>,
}

/// `n` measured calls, with the CPU this client (and the gateway, given its pid) spent on them.
async fn measured(peer: &rmcp::Peer<rmcp::RoleClient>, n: usize, gateway: Option<u32>) -> Run {
    let (client0, gateway0) = (cpu_ns(None), gateway.map(|p| cpu_ns(Some(p))));
    let (lat, errors, secs) = run_calls(peer, n).await;
    let per_call = |ns: u64| ns as f64 / 1e3 / lat.len().max(1) as f64;
    let client_cpu_us = per_call(cpu_ns(None).saturating_sub(client0));
    let gateway_cpu_us = gateway
        .zip(gateway0)
        .map(|(p, before)| per_call(cpu_ns(Some(p)).saturating_sub(before)));
    Run {
        lat,
        errors,
        secs,
        client_cpu_us,
        gateway_cpu_us,
    }
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Latencies (µs) and errors of `n` sequential calls through one client.
async fn run_calls(peer: &rmcp::Peer<rmcp::RoleClient>, n: usize) -> (Vec<f64>, usize, f64) {
    let mut lat = Vec::with_capacity(n);
    let mut errors = 0;
    let start = Instant::now();
    for i in 0..n {
        let mut args = serde_json::Map::new();
        args.insert(
            "text".into(),
            serde_json::Value::String(format!("call {i}")),
        );
        let params = CallToolRequestParams::new("echo").with_arguments(args);
        let t = Instant::now();
        match peer.call_tool(params).await {
            Ok(r) if r.is_error != Some(true) => {}
            _ => errors += 1,
        }
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        if start.elapsed() > TIME_LIMIT {
            break;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    (lat, errors, secs)
}

fn summary(name: &str, run: &mut Run) -> (f64, f64) {
    let lat = &mut run.lat;
    lat.sort_by(f64::total_cmp);
    let (p50, p99) = (percentile(lat, 0.5), percentile(lat, 0.99));
    let gateway_cpu = run
        .gateway_cpu_us
        .map(|us| format!(" gateway_cpu={us:.1}us/call"))
        .unwrap_or_default();
    println!(
        "{name:<8} calls={} errors={} p50={p50:.1}us p99={p99:.1}us calls/s={:.0} client_cpu={:.1}us/call{gateway_cpu}",
        lat.len(),
        run.errors,
        lat.len() as f64 / run.secs,
        run.client_cpu_us,
    );
    (p50, p99)
}

async fn bench(args: Args) -> Result<bool, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let gateway_exe = me.with_file_name("toolgate-gateway");
    if !gateway_exe.exists() {
        return Err(format!(
            "no `{}`: build the toolgate-gateway binary first",
            gateway_exe.display()
        ));
    }
    let dir = std::env::temp_dir().join(format!("toolgate-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let result = if args.flood {
        flood_bench(&args, &me, &gateway_exe, &dir).await
    } else {
        bench_in(&args, &me, &gateway_exe, &dir).await
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn bench_in(args: &Args, me: &Path, gateway_exe: &Path, dir: &Path) -> Result<bool, String> {
    let warmup = (args.calls / 10).clamp(1, 1000);

    // Direct: the client talks to the upstream over stdio.
    let mut cmd = tokio::process::Command::new(me);
    cmd.arg("--upstream");
    let child = TokioChildProcess::new(cmd).map_err(|e| e.to_string())?;
    let direct = ().serve(child).await.map_err(|e| e.to_string())?;
    run_calls(direct.peer(), warmup).await;
    let mut direct_run = measured(direct.peer(), args.calls, None).await;
    let _ = direct.cancel().await;

    // Through the gateway.
    let (mut gw, port, key) = start_gateway(me, gateway_exe, dir)?;
    let gw_pid = gw.id();
    let revisions = [
        ("2025-11-25", ClientLifecycleMode::Initialize),
        (
            "2026-07-28",
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        ),
    ];
    let outcome = async {
        let url = format!("http://127.0.0.1:{port}/mcp");
        let mut runs = Vec::new();
        let mut rss_before = None;
        for (name, lifecycle) in revisions {
            let client = connect(&url, &key, lifecycle).await?;
            run_calls(client.peer(), warmup).await;
            // Memory is compared from the end of the first warm-up, when the gateway has
            // started its upstream and served calls.
            rss_before.get_or_insert_with(|| rss_kib(gw_pid));
            let run = measured(client.peer(), args.calls, Some(gw_pid)).await;
            let _ = client.cancel().await;
            runs.push((name, run));
        }
        let rss_after = rss_kib(gw_pid);
        Ok::<_, String>((runs, rss_before.unwrap_or(0), rss_after))
    }
    .await;
    let _ = gw.kill();
    let _ = gw.wait();
    let (runs, rss_before, rss_after) = outcome?;

    // The decision log holds each revision's warm-up calls, then its measured calls.
    let all_decision_us: Vec<f64> = std::fs::read_to_string(dir.join("decisions.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["decision_us"].as_f64())
        .collect();

    println!(
        "toolgate-gateway load: {} sequential tools/call on loopback after {warmup} warm-up calls, per protocol revision",
        args.calls
    );
    let (d50, d99) = summary("direct", &mut direct_run);
    let mut errors = direct_run.errors;
    for (i, (name, mut run)) in runs.into_iter().enumerate() {
        errors += run.errors;
        let (g50, g99) = summary(&format!("gateway {name}"), &mut run);
        let added50 = g50 - d50;
        println!("added {name} p50={added50:.1}us p99={:.1}us", g99 - d99);
        let first = i * (warmup + args.calls) + warmup;
        let mut decision_us: Vec<f64> = all_decision_us
            .iter()
            .skip(first)
            .take(args.calls)
            .copied()
            .collect();
        decision_us.sort_by(f64::total_cmp);
        let dec50 = percentile(&decision_us, 0.5);
        println!(
            "decision {name} p50={dec50:.2}us p99={:.2}us ({:.1}% of the added p50)",
            percentile(&decision_us, 0.99),
            100.0 * dec50 / added50.max(f64::MIN_POSITIVE)
        );
    }
    let growth = rss_after.saturating_sub(rss_before);
    println!("gateway rss before={rss_before}KiB after={rss_after}KiB growth={growth}KiB");
    let ok = errors == 0 && growth <= MAX_GROWTH_KIB;
    if args.check && !ok {
        eprintln!("error: load check failed ({errors} errors, growth {growth} KiB, limit {MAX_GROWTH_KIB} KiB)");
    }
    Ok(ok || !args.check)
}

/// One flood thread: wrong keys, alternately the known id with a wrong secret and an unknown
/// id, until `stop`; with `many_peers` the requests come from 64 loopback addresses in turn.
fn flood_thread(
    url: String,
    known_id: String,
    t: u8,
    many_peers: bool,
    stop: Arc<AtomicBool>,
    counts: Arc<Mutex<BTreeMap<u16, u64>>>,
) {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    rt.block_on(async move {
        // Many peers: 64 clients per thread, each bound to its own loopback address and
        // keeping its connection, built once so that building them costs the flood nothing.
        let clients: Vec<reqwest::Client> = if many_peers {
            (0..64u8)
                .filter_map(|i| {
                    let src = Ipv4Addr::new(127, t.wrapping_add(1), 0, i + 1);
                    reqwest::Client::builder()
                        .local_address(IpAddr::V4(src))
                        .build()
                        .ok()
                })
                .collect()
        } else {
            vec![reqwest::Client::new()]
        };
        if clients.is_empty() {
            return;
        }
        let mut n: u32 = 0;
        while !stop.load(Ordering::Relaxed) {
            n = n.wrapping_add(1);
            let presented = if n.is_multiple_of(2) {
                format!("{known_id}_{}", "0".repeat(64))
            } else {
                format!("tg_{t:02x}{:06x}_{}", n & 0xff_ffff, "1".repeat(64))
            };
            let client = &clients[n as usize % clients.len()];
            let status = match client
                .get(&url)
                .header("authorization", format!("Bearer {presented}"))
                .send()
                .await
            {
                Ok(r) => r.status().as_u16(),
                Err(_) => 0,
            };
            if let Ok(mut c) = counts.lock() {
                *c.entry(status).or_default() += 1;
            }
        }
    });
}

/// `--flood`: a verified client's latency and the gateway's memory under floods of wrong keys.
async fn flood_bench(
    args: &Args,
    me: &Path,
    gateway_exe: &Path,
    dir: &Path,
) -> Result<bool, String> {
    let (mut gw, port, key) = start_gateway(me, gateway_exe, dir)?;
    let gw_pid = gw.id();
    let outcome = async {
        let url = format!("http://127.0.0.1:{port}/mcp");
        let client = connect(
            &url,
            &key,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await?;
        let warmup = (args.calls / 10).clamp(1, 1000);
        run_calls(client.peer(), warmup).await;
        let mut idle = measured(client.peer(), args.calls, Some(gw_pid)).await;
        let rss_idle = rss_kib(gw_pid);
        println!(
            "toolgate-gateway load --flood: {} sequential tools/call of a verified client (2026-07-28), idle and under 8 flood threads",
            args.calls
        );
        let (_, idle99) = summary("idle", &mut idle);
        let mut errors = idle.errors;
        let peak = Arc::new(AtomicU64::new(rss_idle));
        for (name, many_peers) in [("one peer", false), ("many peers", true)] {
            let stop = Arc::new(AtomicBool::new(false));
            let counts: Arc<Mutex<BTreeMap<u16, u64>>> = Arc::default();
            let mut threads = Vec::new();
            for t in 0..8u8 {
                let (stop, counts) = (stop.clone(), counts.clone());
                let (u, id) = (format!("http://127.0.0.1:{port}/v1/tools"), key[..11].to_string());
                threads.push(std::thread::spawn(move || {
                    flood_thread(u, id, t, many_peers, stop, counts)
                }));
            }
            let sampler = {
                let (stop, peak) = (stop.clone(), peak.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        peak.fetch_max(rss_kib(gw_pid), Ordering::Relaxed);
                        std::thread::sleep(Duration::from_millis(20));
                    }
                })
            };
            // Let the flood reach its steady state first.
            tokio::time::sleep(Duration::from_millis(500)).await;
            let started = Instant::now();
            let mut run = measured(client.peer(), args.calls, Some(gw_pid)).await;
            let secs = started.elapsed().as_secs_f64();
            stop.store(true, Ordering::Relaxed);
            for t in threads {
                let _ = t.join();
            }
            let _ = sampler.join();
            errors += run.errors;
            let (_, p99) = summary(&format!("flood, {name}"), &mut run);
            let counts = counts.lock().map(|c| c.clone()).unwrap_or_default();
            let total: u64 = counts.values().sum();
            println!(
                "flood, {name}: {total} requests ({:.0}/s), by status {counts:?}; client p99 {:.2}x idle (goal: at most 2x)",
                total as f64 / (secs + 0.5),
                p99 / idle99
            );
        }
        let _ = client.cancel().await;
        tokio::time::sleep(Duration::from_secs(5)).await;
        let rss_after = rss_kib(gw_pid);
        Ok::<_, String>((errors, rss_idle, peak.load(Ordering::Relaxed), rss_after))
    }
    .await;
    let _ = gw.kill();
    let _ = gw.wait();
    let (errors, rss_idle, rss_peak, rss_after) = outcome?;
    let cap = toolgate_gateway::config::Limits::default().max_concurrent_key_checks as u64;
    let bound = rss_idle + cap * 19 * 1024 + 16 * 1024;
    println!(
        "gateway rss idle={rss_idle}KiB peak={rss_peak}KiB 5s-after={rss_after}KiB bound={bound}KiB ({cap} key checks x 19 MiB + 16 MiB over idle)"
    );
    let ok = errors == 0 && rss_peak <= bound;
    if args.check && !ok {
        eprintln!(
            "error: flood check failed ({errors} errors, peak {rss_peak} KiB, bound {bound} KiB)"
        );
    }
    Ok(ok || !args.check)
}

/// Starts a `toolgate-gateway` in front of the trivial upstream, with one key for agent
/// `bench`: the process, its port and the key.
fn start_gateway(
    me: &Path,
    gateway_exe: &Path,
    dir: &Path,
) -> Result<(std::process::Child, u16, String), String> {
    std::fs::write(
        dir.join("bench.policy"),
        "server trivial { tool echo(text) needs bench:call }\nagent bench {\n  grant bench:call\n  allow trivial.echo where text matches \"call *\"\n}\n",
    )
    .map_err(|e| e.to_string())?;
    let mut keys = toolgate_gateway::keys::KeyFile {
        version: 1,
        keys: Vec::new(),
    };
    let key = keys
        .add("bench", toolgate_gateway::time::now_rfc3339())
        .map_err(|e| e.to_string())?
        .key;
    keys.write(&dir.join("keys.json"))
        .map_err(|e| e.to_string())?;
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        l.local_addr().map_err(|e| e.to_string())?.port()
    };
    let cmdline = serde_json::to_string(&[me.display().to_string(), "--upstream".into()])
        .map_err(|e| e.to_string())?;
    std::fs::write(
        dir.join("gateway.toml"),
        format!(
            "policy = \"bench.policy\"\nkeys = \"keys.json\"\nlisten = \"127.0.0.1:{port}\"\n[log]\ndecisions = \"decisions.log\"\n[upstream.trivial]\ncommand = {cmdline}\n"
        ),
    )
    .map_err(|e| e.to_string())?;
    let gw = std::process::Command::new(gateway_exe)
        .args(["gateway", "--config"])
        .arg(dir.join("gateway.toml"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the gateway: {e}"))?;
    Ok((gw, port, key))
}

/// A client of the gateway in the given revision, once the gateway lists the upstream's tool.
async fn connect(
    url: &str,
    key: &str,
    lifecycle: ClientLifecycleMode,
) -> Result<rmcp::service::RunningService<rmcp::RoleClient, ()>, String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let http = reqwest::Client::builder()
            .build()
            .map_err(|e| e.to_string())?;
        let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(key);
        let transport = StreamableHttpClientTransport::with_client(http, config);
        match ().serve_with_lifecycle(transport, lifecycle.clone()).await {
            Ok(c) => {
                let listed = c
                    .peer()
                    .list_all_tools()
                    .await
                    .map(|t| t.len())
                    .unwrap_or(0);
                if listed == 1 {
                    return Ok(c);
                }
                let _ = c.cancel().await;
            }
            Err(e) if Instant::now() > deadline => {
                return Err(format!("cannot reach the gateway: {e}"))
            }
            Err(_) => {}
        }
        if Instant::now() > deadline {
            return Err("the gateway did not list the upstream's tool within 30 s".to_string());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The upstream's stdin and stdout (pipes set up by its parent) as async streams.
fn stdio_pipes() -> std::io::Result<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    let stdin = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let stdout = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned()?);
    Ok((
        tokio::net::unix::pipe::Receiver::from_file(stdin)?,
        tokio::net::unix::pipe::Sender::from_file(stdout)?,
    ))
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    // One thread, in the benchmark and in the upstream alike: a sequential client on a
    // multi-thread runtime would pay a wake-up of another thread at most of its hand-overs
    // (its own task, the HTTP connection's, the child's pipes), on the direct and the gateway
    // path alike, and that cost is the client's, not the gateway's.
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            std::process::exit(2);
        }
    };
    let code = rt.block_on(async move {
        match args {
            None => match stdio_pipes() {
                Err(e) => {
                    eprintln!("error: stdin and stdout must be pipes: {e}");
                    2
                }
                Ok(pipes) => match Echo.serve(pipes).await {
                    Ok(s) => {
                        let _ = s.waiting().await;
                        0
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        2
                    }
                },
            },
            Some(a) => match bench(a).await {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(e) => {
                    eprintln!("error: {e}");
                    2
                }
            },
        }
    });
    std::process::exit(code);
}
