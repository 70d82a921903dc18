//! Regexes that a dense DFA cannot hold: every one compiles fast (the fallback regex takes
//! them), and a regex-heavy policy still decides in well under a microsecond.
//!
//! - `regex/compile_one/*`: a policy with one hard regex (Unicode classes under bounded
//!   repetitions, case folding, word boundaries), compiled from source. Target: <= 50 ms.
//! - `regex/compile_heavy`: 100 regex rules on one argument (60 allows, 40 denies with `\b`).
//!   Target: <= 1 s.
//! - `regex/compile_gated_1000`: 1,000 allow regexes like `select` on one argument, each
//!   gated by its own table-name literal. Their regexes are built when a value first holds
//!   that literal, so the policy compiles in 1.1-1.4 s (building them all took 16 s).
//! - `regex/decide_heavy/*`: a decision against that policy (allowed, denied by a `\b` deny,
//!   no match), on a ~60-byte value. Target: <= 1 µs.
//!
//! Run: `cargo bench --bench regex`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;
use std::time::Duration;
use toolgate::Request;

/// Regexes the `regex` crate accepts with its default limits, hard for a dense DFA.
const HARD: &[(&str, &str)] = &[
    (
        "select",
        r"(?i)^select\s+[\w, ]{1,40}\s+from\s+t1_\w+(\s+where\s+.*)?$",
    ),
    ("word_run", r"\w{1,100}$"),
    ("word_boundary", r"\b(drop|delete|truncate)\b"),
    ("unicode_classes", r"^\p{L}{1,30}\s\p{N}{1,20}$"),
];

fn one_rule(regex: &str) -> String {
    format!("tool query(sql)\nagent a {{\n  allow query where sql matches re\"{regex}\"\n}}\n")
}

/// 60 allow regexes like the issue's `select` and 40 denies with word boundaries, on one
/// argument of one tool.
fn heavy() -> String {
    let mut text = String::from("tool query(sql)\nagent a {\n");
    for i in 0..60 {
        text.push_str(&format!(
            "  allow query where sql matches re\"(?i)^select\\s+[\\w, ]{{1,40}}\\s+from\\s+t{i}_\\w+(\\s+where\\s+.*)?$\"\n"
        ));
    }
    for i in 0..40 {
        text.push_str(&format!(
            "  deny query where sql matches re\"\\b(drop|grant{i})\\b\"\n"
        ));
    }
    text.push_str("}\n");
    text
}

/// 1,000 allow regexes like the issue's `select`, one table name each.
fn gated_1000() -> String {
    let mut text = String::from("tool query(sql)\nagent a {\n");
    for i in 0..1000 {
        text.push_str(&format!(
            "  allow query where sql matches re\"(?i)^select\\s+[\\w, ]{{1,40}}\\s+from\\s+t{i}_\\w+(\\s+where\\s+.*)?$\"\n"
        ));
    }
    text.push_str("}\n");
    text
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("regex");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    for (name, regex) in HARD {
        let text = one_rule(regex);
        group.bench_with_input(BenchmarkId::new("compile_one", name), &text, |b, text| {
            b.iter(|| toolgate::load::engine_from_str("bench.policy", text).expect("compiles"))
        });
    }
    let gated = gated_1000();
    group.bench_function("compile_gated_1000", |b| {
        b.iter(|| toolgate::load::engine_from_str("bench.policy", &gated).expect("compiles"))
    });
    let text = heavy();
    group.bench_function("compile_heavy", |b| {
        b.iter(|| toolgate::load::engine_from_str("bench.policy", &text).expect("compiles"))
    });
    group.finish();

    let engine = toolgate::load::engine_from_str("bench.policy", &text).expect("compiles");
    let mut group = c.benchmark_group("regex/decide_heavy");
    for (name, sql, reason) in [
        (
            "allow",
            "select id, name from t42_users where id = 7",
            "allowed_by_rule",
        ),
        (
            "deny",
            "select id from t42_users; drop table t42_users",
            "denied_by_rule",
        ),
        (
            "nomatch",
            "update t42_users set name = 'x' where id = 7",
            "no_matching_rule",
        ),
    ] {
        let req = Request::new("a", "query").args(json!({ "sql": sql }));
        assert_eq!(engine.decide(&req).reason.as_str(), reason, "{name}");
        group.bench_function(name, |b| b.iter(|| engine.decide(&req)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
