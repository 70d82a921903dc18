//! Reads criterion's estimates from `target/criterion/peers_*/**/new/` (written by
//! `cargo bench` in bench-peers) and prints Markdown tables: per layout and N, the median time per
//! decision of toolgate and of each peer for the three outcomes, and the ratio peer / toolgate.
//!
//! Run: `cargo run --release --bin ratio_table` (optionally with the criterion directory as the
//! first argument). Engines skipped by the bench's build guard are shown with the reason recorded
//! in `target/bench-peers-status.json`.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const ENGINES: &[(&str, &str)] = &[
    ("toolgate", "toolgate"),
    ("cedar", "Cedar `is_authorized`"),
    ("cedar_sliced", "Cedar, sliced by tool"),
    ("regorus", "regorus interpreter"),
    ("regorus_vm", "regorus bytecode VM"),
    ("casbin", "casbin (globMatch)"),
    ("casbin_cached", "casbin, globs cached by host"),
];
const LAYOUTS: &[&str] = &["wide", "deep"];
const OUTCOMES: &[(&str, &str)] = &[
    ("allow", "allow hit"),
    ("deny", "deny by rule"),
    ("nomatch", "no match"),
];
const SIZES: &[usize] = &[10, 100, 1_000, 10_000];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in rd.flatten() {
        let p = entry.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "new") {
                out.push(p);
            } else {
                walk(&p, out);
            }
        }
    }
}

fn fmt_time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        let us = ns / 1e3;
        if us < 10.0 {
            format!("{us:.2} µs")
        } else if us < 100.0 {
            format!("{us:.1} µs")
        } else {
            format!("{us:.0} µs")
        }
    } else if ns < 1e9 {
        let ms = ns / 1e6;
        if ms < 10.0 {
            format!("{ms:.2} ms")
        } else if ms < 100.0 {
            format!("{ms:.1} ms")
        } else {
            format!("{ms:.0} ms")
        }
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn fmt_ratio(r: f64) -> String {
    if r < 10.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.0}×")
    }
}

fn fmt_n(n: usize) -> String {
    match n {
        1_000 => "1,000".into(),
        10_000 => "10,000".into(),
        n => n.to_string(),
    }
}

fn main() {
    let criterion_dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"))
                .join("criterion")
        });
    let status_file = criterion_dir
        .parent()
        .unwrap_or(Path::new("."))
        .join("bench-peers-status.json");
    let status: BTreeMap<String, String> = std::fs::read_to_string(&status_file)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();

    // (layout, n, engine, outcome) -> median ns
    let mut medians: BTreeMap<(String, usize, String, String), f64> = BTreeMap::new();
    let mut dirs = Vec::new();
    walk(&criterion_dir, &mut dirs);
    for d in dirs {
        let (Ok(b), Ok(e)) = (
            std::fs::read_to_string(d.join("benchmark.json")),
            std::fs::read_to_string(d.join("estimates.json")),
        ) else {
            continue;
        };
        let (Ok(b), Ok(e)) = (
            serde_json::from_str::<Value>(&b),
            serde_json::from_str::<Value>(&e),
        ) else {
            continue;
        };
        let group = b["group_id"].as_str().unwrap_or("");
        let func = b["function_id"].as_str().unwrap_or("");
        let Some(rest) = group.strip_prefix("peers_") else {
            continue;
        };
        let Some((layout, n)) = rest.split_once('_') else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else { continue };
        let Some((engine, outcome)) = func.split_once('.') else {
            continue;
        };
        if let Some(median) = e["median"]["point_estimate"].as_f64() {
            medians.insert(
                (layout.into(), n, engine.into(), outcome.into()),
                median,
            );
        }
    }
    if medians.is_empty() {
        eprintln!(
            "no criterion estimates under {}: run `cargo bench` in bench-peers first",
            criterion_dir.display()
        );
        std::process::exit(1);
    }

    let cell_status = |layout: &str, n: usize, engine: &str| -> String {
        match status.get(&format!("{layout}/{n}/{engine}")) {
            Some(s) if s.starts_with("fails") => "fails".into(),
            _ => "n/a".into(),
        }
    };

    println!("Median time per decision (criterion), engine built once, request pre-built.");
    println!("Ratio = peer median / toolgate median for the same layout, N and outcome.\n");
    for &layout in LAYOUTS {
        for &(outcome, outcome_title) in OUTCOMES {
            println!("### {layout}, {outcome_title}\n");
            let mut header = "| engine |".to_string();
            let mut sep = "| --- |".to_string();
            for &n in SIZES {
                header.push_str(&format!(" N={} | ratio |", fmt_n(n)));
                sep.push_str(" ---: | ---: |");
            }
            println!("{header}\n{sep}");
            for &(engine, title) in ENGINES {
                let mut row = format!("| {title} |");
                for &n in SIZES {
                    let key = |e: &str| (layout.to_string(), n, e.to_string(), outcome.to_string());
                    let tg = medians.get(&key("toolgate"));
                    match medians.get(&key(engine)) {
                        Some(&m) => {
                            let ratio = match tg {
                                Some(&t) if engine != "toolgate" => fmt_ratio(m / t),
                                Some(_) => "1×".into(),
                                None => "–".into(),
                            };
                            row.push_str(&format!(" {} | {} |", fmt_time(m), ratio));
                        }
                        None => {
                            row.push_str(&format!(" {} | – |", cell_status(layout, n, engine)));
                        }
                    }
                }
                println!("{row}");
            }
            println!();
        }
    }

    // Compact summary: the flatness of each engine (N=10,000 / N=10) per layout and outcome.
    println!("### Growth: median at N=10,000 / median at N=10\n");
    println!("| engine | wide allow | wide deny | wide no match | deep allow | deep deny | deep no match |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for &(engine, title) in ENGINES {
        let mut row = format!("| {title} |");
        for &layout in LAYOUTS {
            for &(outcome, _) in OUTCOMES {
                let get = |n: usize| {
                    medians
                        .get(&(layout.to_string(), n, engine.to_string(), outcome.to_string()))
                        .copied()
                };
                match (get(10), get(10_000)) {
                    (Some(a), Some(b)) => row.push_str(&format!(" {} |", fmt_ratio(b / a))),
                    _ => row.push_str(" – |"),
                }
            }
        }
        println!("{row}");
    }

    let notes: Vec<_> = status.iter().filter(|(_, v)| !v.starts_with("ok")).collect();
    if !notes.is_empty() {
        println!("\nSkipped by the build guard:\n");
        for (k, v) in notes {
            println!("- `{k}`: {v}");
        }
    }
}
