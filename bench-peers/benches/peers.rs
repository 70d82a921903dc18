//! toolgate and its peers on the same generated policies and requests, in one criterion run.
//!
//! Per layout (wide, deep) and N (10, 100, 1,000, 10,000): each engine is built once, each
//! request pre-built in the engine's own representation, and each engine's answer checked
//! against the expected outcome (and the deny request, without its command, must be allowed)
//! before anything is timed. Then `decide` is timed for the three outcomes.
//!
//! Engines: `toolgate`, `cedar` (one policy set), `cedar_sliced` (a policy set per tool, looked
//! up by the host), `regorus` (interpreter), `regorus_vm` (bytecode VM), `casbin` (stock globMatch), `casbin_cached` (globMatch with
//! compiled globs kept by the host).
//!
//! Peers at N >= 1,000 are first built in a child process (this executable, re-run with
//! `BENCH_PEERS_PROBE`) under a time limit (`BENCH_PEERS_BUILD_TIMEOUT`, default 60 s) and an
//! address-space limit (`BENCH_PEERS_MEMORY_GIB`, default 8): if the child fails, the engine is
//! recorded as failing at that N and skipped rather than hanging the run. Outcomes and build times
//! go to `target/bench-peers-status.json`, read by `cargo run --release --bin ratio_table`.
//!
//! Filters (environment): `BENCH_PEERS_ENGINES=toolgate,cedar`, `BENCH_PEERS_SIZES=10,100`,
//! `BENCH_PEERS_LAYOUTS=deep`; criterion's own filter works too (`-- peers_deep_10000`).

use bench_peers::{casbin_peer, cedar, rego, requests, tg, Layout, Outcome, Req};
use criterion::{black_box, Criterion};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SIZES: &[usize] = &[10, 100, 1_000, 10_000];
const ENGINES: &[&str] = &[
    "toolgate",
    "cedar",
    "cedar_sliced",
    "regorus",
    "regorus_vm",
    "casbin",
    "casbin_cached",
];

fn env_list(name: &str) -> Option<Vec<String>> {
    std::env::var(name)
        .ok()
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect())
}

fn status_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("bench-peers-status.json")
}

fn record_status(layout: Layout, n: usize, engine: &str, status: String) {
    let path = status_path();
    let mut map: BTreeMap<String, String> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    map.insert(format!("{}/{n}/{engine}", layout.name()), status);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(&path, serde_json::to_string_pretty(&map).unwrap()).unwrap();
}

/// A built engine with its pre-built requests, ready to decide.
enum Built {
    Toolgate(toolgate::Engine, Vec<toolgate::Request>),
    Cedar(cedar::Plain, Vec<cedar::CReq>),
    CedarSliced(cedar::Sliced, Vec<cedar::CReq>),
    Regorus(regorus::Engine, Vec<regorus::Value>),
    RegorusVm(regorus::rvm::RegoVM, Vec<regorus::Value>),
    Casbin(casbin::Enforcer, Vec<casbin_peer::CasReq>),
}

/// Build `engine` and pre-build `reqs` for it.
fn build(engine: &str, layout: Layout, n: usize, reqs: &[Req]) -> Result<Built, String> {
    Ok(match engine {
        "toolgate" => Built::Toolgate(tg::build(layout, n), reqs.iter().map(tg::request).collect()),
        "cedar" => Built::Cedar(
            cedar::build_plain(layout, n),
            reqs.iter().map(cedar::request).collect(),
        ),
        "cedar_sliced" => Built::CedarSliced(
            cedar::build_sliced(layout, n),
            reqs.iter().map(cedar::request).collect(),
        ),
        "regorus" => Built::Regorus(
            rego::build_interpreter(layout, n),
            reqs.iter().map(rego::input).collect(),
        ),
        "regorus_vm" => Built::RegorusVm(
            rego::build_vm(layout, n)?,
            reqs.iter().map(rego::input).collect(),
        ),
        "casbin" | "casbin_cached" => Built::Casbin(
            casbin_peer::build(layout, n, engine == "casbin_cached"),
            reqs.iter().map(casbin_peer::request).collect(),
        ),
        other => return Err(format!("unknown engine {other}")),
    })
}

impl Built {
    /// The outcome for pre-built request `i` (untimed; used for the checks).
    fn outcome(&mut self, i: usize) -> Outcome {
        match self {
            Built::Toolgate(e, r) => tg::outcome(&e.decide(&r[i])),
            Built::Cedar(e, r) => e.outcome(&e.decide(&r[i])),
            Built::CedarSliced(e, r) => {
                let resp = e.decide(&r[i]);
                e.outcome(&r[i], &resp)
            }
            Built::Regorus(e, r) => rego::outcome(&rego::decide_interpreter(e, &r[i])),
            Built::RegorusVm(e, r) => rego::outcome(&rego::decide_vm(e, &r[i])),
            Built::Casbin(e, r) => casbin_peer::outcome(casbin_peer::decide(e, &r[i])),
        }
    }

    /// Time `decide` on pre-built request `i`.
    fn bench(&mut self, b: &mut criterion::Bencher<'_>, i: usize) {
        match self {
            Built::Toolgate(e, r) => {
                let req = &r[i];
                b.iter(|| e.decide(black_box(req)))
            }
            Built::Cedar(e, r) => {
                let req = &r[i];
                b.iter(|| e.decide(black_box(req)))
            }
            Built::CedarSliced(e, r) => {
                let req = &r[i];
                b.iter(|| e.decide(black_box(req)))
            }
            Built::Regorus(e, r) => {
                let req = &r[i];
                b.iter(|| rego::decide_interpreter(e, black_box(req)))
            }
            Built::RegorusVm(e, r) => {
                let req = &r[i];
                b.iter(|| rego::decide_vm(e, black_box(req)))
            }
            Built::Casbin(e, r) => {
                let req = &r[i];
                b.iter(|| casbin_peer::decide(e, black_box(req)))
            }
        }
    }
}

/// The requests checked and timed: the three of toolgate's bench, then (unmeasured) the deny
/// request without its command, which must be allowed: it proves the deny rule, not a missing
/// allow, is what refuses the deny request.
fn all_requests(layout: Layout, n: usize) -> (Vec<(&'static str, Outcome)>, Vec<Req>) {
    let mut labels = Vec::new();
    let mut reqs = Vec::new();
    for (name, req, expected) in requests(n, layout) {
        labels.push((name, expected));
        reqs.push(req);
    }
    let control = reqs[1].without_command();
    labels.push(("deny-without-command", Outcome::Allow));
    reqs.push(control);
    (labels, reqs)
}

/// Build and check; `Err` describes why the engine cannot be benchmarked at this N.
fn build_checked(engine: &str, layout: Layout, n: usize) -> Result<(Built, Duration), String> {
    let (labels, reqs) = all_requests(layout, n);
    let t = Instant::now();
    let mut built = build(engine, layout, n, &reqs)?;
    let took = t.elapsed();
    for (i, (label, expected)) in labels.iter().enumerate() {
        let got = built.outcome(i);
        assert!(
            got.satisfies(*expected),
            "{engine} {} n={n} {label}: expected {expected:?}, got {got:?}",
            layout.name()
        );
    }
    Ok((built, took))
}

/// Child side of the build guard: build and check, report the build time, exit.
fn probe(spec: &str) -> ! {
    let parts: Vec<&str> = spec.split('/').collect();
    let (layout, n, engine) = (
        Layout::parse(parts[0]).expect("layout"),
        parts[1].parse::<usize>().expect("n"),
        parts[2],
    );
    match build_checked(engine, layout, n) {
        Ok((_, took)) => {
            println!("built_ms={}", took.as_millis());
            std::process::exit(0)
        }
        Err(e) => {
            println!("error={e}");
            std::process::exit(3)
        }
    }
}

/// Parent side: build in a child under time and memory limits.
fn guarded_probe(engine: &str, layout: Layout, n: usize) -> Result<String, String> {
    let timeout = Duration::from_secs(
        std::env::var("BENCH_PEERS_BUILD_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(60),
    );
    let gib: u64 = std::env::var("BENCH_PEERS_MEMORY_GIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\"", gib * 1024 * 1024))
        .arg(&exe)
        .env("BENCH_PEERS_PROBE", format!("{}/{n}/{engine}", layout.name()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let out = child.wait_with_output().map_err(|e| e.to_string())?;
            let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let stderr = String::from_utf8_lossy(&out.stderr);
            return if status.success() {
                Ok(stdout)
            } else {
                let last = stderr
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .to_string();
                Err(format!("fails to build ({status}): {stdout} {last}").trim().to_string())
            };
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("fails: build exceeded {} s", timeout.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn bench_peers(c: &mut Criterion) {
    let engines = env_list("BENCH_PEERS_ENGINES")
        .unwrap_or_else(|| ENGINES.iter().map(|s| s.to_string()).collect());
    let sizes: Vec<usize> = env_list("BENCH_PEERS_SIZES")
        .map(|v| v.iter().map(|s| s.parse().expect("size")).collect())
        .unwrap_or_else(|| SIZES.to_vec());
    let layouts: Vec<Layout> = env_list("BENCH_PEERS_LAYOUTS")
        .map(|v| v.iter().map(|s| Layout::parse(s).expect("layout")).collect())
        .unwrap_or_else(|| vec![Layout::Wide, Layout::Deep]);

    for &layout in &layouts {
        for &n in &sizes {
            let mut group = c.benchmark_group(format!("peers_{}_{n}", layout.name()));
            if n >= 1_000 {
                group.sample_size(20);
            }
            for engine in &engines {
                let engine = engine.as_str();
                if engine != "toolgate" && n >= 1_000 {
                    if let Err(why) = guarded_probe(engine, layout, n) {
                        eprintln!("note: {engine} {} n={n}: {why}; skipped", layout.name());
                        record_status(layout, n, engine, why);
                        continue;
                    }
                }
                let (mut built, took) = match build_checked(engine, layout, n) {
                    Ok(x) => x,
                    Err(why) => {
                        eprintln!("note: {engine} {} n={n}: {why}; skipped", layout.name());
                        record_status(layout, n, engine, format!("fails: {why}"));
                        continue;
                    }
                };
                eprintln!(
                    "built {engine} {} n={n} in {:.1} ms; checked allow/deny/nomatch",
                    layout.name(),
                    took.as_secs_f64() * 1e3
                );
                record_status(
                    layout,
                    n,
                    engine,
                    format!("ok (built in {:.1} ms)", took.as_secs_f64() * 1e3),
                );
                for (i, outcome) in bench_peers::OUTCOMES.iter().enumerate() {
                    group.bench_function(format!("{engine}.{outcome}"), |b| built.bench(b, i));
                }
            }
            group.finish();
        }
    }
}

fn main() {
    if let Ok(spec) = std::env::var("BENCH_PEERS_PROBE") {
        probe(&spec);
    }
    let mut c = Criterion::default().configure_from_args();
    bench_peers(&mut c);
    c.final_summary();
}
