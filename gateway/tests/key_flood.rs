//! A flood of wrong keys (a known id with a wrong secret, and unknown ids) from eight threads
//! for a few seconds, against the decision API of an in-process daemon: a client whose key is
//! already verified keeps being answered, the flood is answered 429 with `Retry-After` once its
//! failed attempts are used up, and argon2 runs no more often than the limits allow.
//!
//! Latency under such a flood is measured by `toolgate-gateway-load --flood`, not here.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use toolgate_gateway::config::{Config, LogTarget};
use toolgate_gateway::daemon::{start, Mode};
use toolgate_gateway::keys::KeyFile;
use toolgate_gateway::log::DecisionLog;
use toolgate_gateway::state::Shared;

const BURST: u32 = 5;
const PER_MINUTE: u32 = 60;

/// One `GET /v1/tools` with a bearer key: the status and the `Retry-After` value.
fn get(addr: SocketAddr, key: &str) -> (u16, Option<u64>) {
    let a = common::exchange(
        addr,
        &format!("GET /v1/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"),
        b"",
    );
    let retry = a.header("retry-after").and_then(|v| v.parse().ok());
    (a.status, retry)
}

#[test]
fn a_verified_client_is_served_through_a_flood_of_wrong_keys_and_the_flood_gets_429() {
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
    let key = file.add("a", "t".into()).unwrap().key;
    file.write(&dir.path().join("keys.json")).unwrap();
    let config = Config::parse(
        &dir.path().join("gateway.toml"),
        &format!(
            "policy = \"p.policy\"\nkeys = \"keys.json\"\nlisten = \"127.0.0.1:0\"\n\
             [limits]\nfailed_key_checks_burst = {BURST}\nfailed_key_checks_per_minute = {PER_MINUTE}\n\
             [log]\ndecisions = \"off\"\n"
        ),
    )
    .unwrap();
    let log = DecisionLog::open(&LogTarget::Off, false, 0).unwrap();
    let shared = Arc::new(Shared::load(config, log).unwrap());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let running = rt.block_on(start(shared.clone(), Mode::Serve)).unwrap();
    let addr = running.addr;

    let began = Instant::now();
    assert_eq!(get(addr, &key).0, 200, "the key verifies");

    let stop = Arc::new(AtomicBool::new(false));
    let statuses: Arc<Mutex<HashMap<u16, usize>>> = Arc::default();
    let retry_missing = Arc::new(AtomicU64::new(0));
    let wrong = format!("{}{}", &key[..12], "0".repeat(64));
    let flood: Vec<_> = (0..8u32)
        .map(|t| {
            let (stop, statuses, retry_missing) =
                (stop.clone(), statuses.clone(), retry_missing.clone());
            let wrong = wrong.clone();
            std::thread::spawn(move || {
                let mut n = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let presented = if t % 2 == 0 {
                        wrong.clone()
                    } else {
                        format!("tg_{:04x}{n:04x}_{}", 0xa000 + t, "1".repeat(64))
                    };
                    let (status, retry) = get(addr, &presented);
                    if status == 429 && retry.is_none_or(|r| r < 1) {
                        retry_missing.fetch_add(1, Ordering::Relaxed);
                    }
                    *statuses.lock().unwrap().entry(status).or_default() += 1;
                }
            })
        })
        .collect();

    let flood_start = Instant::now();
    let mut served = 0;
    while flood_start.elapsed() < Duration::from_secs(3) {
        let (status, _) = get(addr, &key);
        assert_eq!(
            status, 200,
            "the verified client was refused during the flood"
        );
        served += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for t in flood {
        t.join().unwrap();
    }
    let elapsed = began.elapsed();
    let statuses = statuses.lock().unwrap().clone();
    assert!(served > 0);
    assert!(
        statuses.keys().all(|s| *s == 401 || *s == 429),
        "the flood got answers other than 401 and 429: {statuses:?}"
    );
    assert!(
        statuses.get(&429).copied().unwrap_or(0) > 0,
        "the flood was never answered 429: {statuses:?}"
    );
    assert_eq!(
        retry_missing.load(Ordering::Relaxed),
        0,
        "429 without Retry-After"
    );
    // Every flood request came from one peer address: its failed attempts are bounded by the
    // burst and the refill over the run; one more check verified the client's key.
    let bound =
        u64::from(BURST) + (elapsed.as_secs_f64() * f64::from(PER_MINUTE) / 60.0).ceil() as u64 + 1;
    let runs = shared.argon2_runs();
    assert!(
        runs <= bound,
        "{runs} argon2 runs, more than the limits allow ({bound}); answers {statuses:?}"
    );
    running.stop.cancel();
    rt.block_on(running.wait());
}
