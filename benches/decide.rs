//! Decision and compile benchmarks on generated policies.
//!
//! Two layouts, at N = 10, 100, 1,000 and 10,000 rules:
//! - **wide**: N tools, one allow rule each with a `path` glob;
//! - **deep**: one tool, N allow rules on the same `path` argument with different globs.
//!
//! Both have a deny rule with a `contains any` list on `command`. For each, `decide` is
//! measured for an allow hit, a deny by rule and a no-match, plus `compile` from source.
//!
//! Run: `cargo bench --bench decide` (add `-- deep` or `-- wide` to filter).

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;
use std::time::Duration;
use toolgate::{Engine, Request};

#[path = "support/generate.rs"]
mod generate;
use generate::{deep, wide};

const SIZES: &[usize] = &[10, 100, 1_000, 10_000];

fn requests(n: usize, layout: &str) -> [(&'static str, Request); 3] {
    let hit = n / 2;
    let tool = if layout == "wide" {
        format!("t{hit}")
    } else {
        "t0".to_string()
    };
    [
        (
            "allow",
            Request::new("bench", tool.clone())
                .args(json!({"path": format!("/data/team{hit}/q3/report.csv")})),
        ),
        (
            "deny",
            Request::new("bench", tool.clone()).args(
                json!({"path": format!("/data/team{hit}/x.csv"), "command": "sudo rm -rf /"}),
            ),
        ),
        (
            "nomatch",
            Request::new("bench", tool).args(json!({"path": "/data/other/report.csv"})),
        ),
    ]
}

fn engine(text: &str) -> Engine {
    toolgate::load::engine_from_str("bench.policy", text).expect("bench policy compiles")
}

fn bench_decide(c: &mut Criterion) {
    for (layout, gen) in [("wide", wide as fn(usize) -> String), ("deep", deep)] {
        let mut group = c.benchmark_group(format!("decide/{layout}"));
        for &n in SIZES {
            let e = engine(&gen(n));
            for (outcome, req) in requests(n, layout) {
                let expected = match outcome {
                    "allow" => "allowed_by_rule",
                    "deny" => "denied_by_rule",
                    _ => "no_matching_rule",
                };
                assert_eq!(
                    e.decide(&req).reason.as_str(),
                    expected,
                    "{layout} n={n} {outcome}"
                );
                group.bench_with_input(BenchmarkId::new(outcome, n), &req, |b, req| {
                    b.iter(|| e.decide(black_box(req)))
                });
            }
        }
        group.finish();
    }
}

fn bench_compile(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (layout, gen) in [("wide", wide as fn(usize) -> String), ("deep", deep)] {
        for &n in SIZES {
            let text = gen(n);
            group.bench_with_input(BenchmarkId::new(layout, n), &text, |b, text| {
                b.iter(|| engine(text))
            });
        }
    }
    group.finish();
}

fn bench_permission_set(c: &mut Criterion) {
    use toolgate::host::PermissionSet;
    use toolgate::resolve::parse_permission;
    let set =
        PermissionSet::new(["fs:read", "net:http", "proc:*", "mail:send"]).expect("valid grants");
    let mut group = c.benchmark_group("permission_set");
    for (name, perm) in [
        ("exact", "net:http"),
        ("domain", "proc:exec"),
        ("missing", "fs:write"),
    ] {
        let p = parse_permission(perm).expect("valid permission");
        group.bench_function(BenchmarkId::new("contains", name), |b| {
            b.iter(|| set.contains(black_box(&p)))
        });
        group.bench_function(BenchmarkId::new("allows", name), |b| {
            b.iter(|| set.allows(black_box(perm)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_decide, bench_compile, bench_permission_set);
criterion_main!(benches);
