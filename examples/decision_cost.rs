//! Runs K decisions of one request against a compiled bundle, for instruction counting under
//! `valgrind --tool=callgrind` (deterministic, unlike wall time on a shared machine).
//!
//! `cargo run --release --example decision_cost -- BUNDLE LAYOUT OUTCOME N K`, where LAYOUT is
//! `wide` or `deep`, OUTCOME `allow`, `deny` or `nomatch`, N the policy's rule count (to pick
//! the tool and path the request hits), K the number of decisions. `scripts/decision_cost.sh`
//! runs it at K = 0 and K = 20,000 and prints the instructions per decision.

use serde_json::json;
use toolgate::{Engine, Request};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, bundle, layout, outcome, n, k] = args.as_slice() else {
        eprintln!("usage: decision_cost BUNDLE wide|deep allow|deny|nomatch N K");
        std::process::exit(2);
    };
    let (n, k): (usize, usize) = (n.parse().unwrap_or(10), k.parse().unwrap_or(0));
    let engine = Engine::from_bundle(&std::fs::read(bundle).expect("readable bundle"))
        .expect("valid bundle");
    let hit = n / 2;
    let tool = if layout == "wide" {
        format!("t{hit}")
    } else {
        "t0".to_string()
    };
    let args = match outcome.as_str() {
        "allow" => json!({"path": format!("/data/team{hit}/q3/report.csv")}),
        "deny" => json!({"path": format!("/data/team{hit}/x.csv"), "command": "sudo rm -rf /"}),
        _ => json!({"path": "/data/other/report.csv"}),
    };
    let req = Request::new("bench", tool).args(args);
    let mut allowed = 0;
    for _ in 0..k {
        allowed +=
            std::hint::black_box(engine.decide(std::hint::black_box(&req))).is_allowed() as usize;
    }
    println!("{allowed}");
}
