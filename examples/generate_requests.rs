//! Prints K JSON request lines for a generated benchmark policy, for timing `toolgate eval`
//! batch mode: `cargo run --example generate_requests -- wide|deep N K [varied|same]`.
//!
//! With `varied` (the default), request `j` targets rule `j * 7919 mod N` (wide: its tool;
//! deep: tool `t0`); with `same`, every request targets rule `N / 2`, as `benches/decide.rs`
//! does. Requests cycle through the three outcomes of `benches/decide.rs`: an allow hit, a
//! deny by rule, a no-match. Every line carries a `tool_use_id`, as an agent SDK's would.
//!
//! `-- per_tool SHAPE N K` prints K allowed requests for the `per_tool` policy of that shape,
//! each to a tool drawn at random (the same draw as `benches/per_tool.rs`).

#[path = "../benches/support/generate.rs"]
mod generate;

use std::io::Write;

/// K allowed requests to random tools of a `per_tool` policy (see the module docs).
fn per_tool(args: &[String]) {
    let shape = generate::SHAPES
        .iter()
        .find(|(name, ..)| args.get(2).map(String::as_str) == Some(*name));
    let Some(&(_, _, value)) = shape else {
        eprintln!("usage: generate_requests per_tool SHAPE N K");
        std::process::exit(2);
    };
    let n: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(10);
    let k: usize = args.get(4).and_then(|k| k.parse().ok()).unwrap_or(20_000);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for (j, i) in generate::random_tools(n).take(k).enumerate() {
        let line = serde_json::json!({
            "agent": "bench",
            "tool": format!("t{i}"),
            "args": {"path": value(i)},
            "tool_use_id": format!("toolu_{j:08}"),
        });
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("per_tool") {
        per_tool(&args);
        return;
    }
    let layout = args.get(1).map(String::as_str).unwrap_or("wide");
    let n: usize = args
        .get(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(10)
        .max(1);
    let k: usize = args.get(3).and_then(|k| k.parse().ok()).unwrap_or(100_000);
    let same = args.get(4).map(String::as_str) == Some("same");
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for j in 0..k {
        let i = if same { n / 2 } else { (j * 7919) % n };
        let tool = if layout == "deep" {
            "t0".to_string()
        } else {
            format!("t{i}")
        };
        let args = match j % 3 {
            0 => serde_json::json!({"path": format!("/data/team{i}/q{}/report.csv", j % 4)}),
            1 => {
                serde_json::json!({"path": format!("/data/team{i}/x.csv"), "command": "sudo rm -rf /"})
            }
            _ => serde_json::json!({"path": format!("/data/other{i}/report.csv")}),
        };
        let line = serde_json::json!({
            "agent": "bench",
            "tool": tool,
            "args": args,
            "tool_use_id": format!("toolu_{j:08}"),
        });
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
}
