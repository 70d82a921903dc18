//! `shell` patterns: the cost one `ARG matches shell` condition adds to a decision.
//!
//! For a 200-byte command, against a set of 20 allow patterns and a set of 10 deny patterns on
//! the same argument (each set answered in one pass over the parsed words):
//! - `allow/hit`, `allow/unreadable`: the strict reading and the allow set;
//! - `deny/clean`, `deny/chained`: the generous reading (through `&&`, pipes, `$(...)`,
//!   wrappers) and the deny set.
//!
//! Run: `cargo bench --bench shell`. Target: each under 1 µs.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::Duration;
use toolgate::shell::{Pattern, PatternSet};

const ALLOW: &[&str] = &[
    "git log ...",
    "git status",
    "git diff ...",
    "git show ...",
    "git branch -={a} ...",
    "npm run test",
    "npm run lint",
    "npm run build",
    "npm ci",
    "cargo test ...",
    "cargo build ...",
    "cargo clippy ...",
    "ls ...",
    "cat *",
    "head -n * *",
    "grep -{r} ...",
    "echo ...",
    "pwd",
    "make test",
    "python3 -m pytest ...",
];

const DENY: &[&str] = &[
    "rm -{r} ...",
    "rm -{f} /",
    "mkfs* ...",
    "sudo ...",
    "dd ...",
    "curl ...",
    "wget ...",
    "git push -{force} ...",
    "chmod -{R} ...",
    "shred ...",
];

/// 200 bytes, one simple command.
const CLEAN: &str = "git log --oneline --decorate --author='Jane Doe' --since=2024-01-01 -- src/engine src/compile src/shell tests/shell.rs docs/language.md README.md Cargo.toml benches/decide.rs benches/check.rs x1234567";
/// 200 bytes, chained, with a substitution and a wrapper.
const CHAINED: &str = "cd /srv/app && npm ci --no-audit && npm run build -- --mode=production | tee build.log; echo \"built $(date +%s)\" && timeout 600 env NODE_ENV=production node dist/server.js --port 8080 >> run.log x1234";

fn set(patterns: &[&str]) -> PatternSet {
    let mut s = PatternSet::new();
    for p in patterns {
        s.add(Pattern::parse(p).expect("bench patterns parse"));
    }
    s
}

fn bench(c: &mut Criterion) {
    assert_eq!(CLEAN.len(), 200);
    assert_eq!(CHAINED.len(), 200);
    let allow = set(ALLOW);
    let deny = set(DENY);
    assert!(!allow.allow_matches(CLEAN).expect("readable").is_empty());
    assert!(deny.deny_matches(CHAINED).unreadable.is_none());
    let mut g = c.benchmark_group("shell");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    g.bench_function("allow/hit", |b| {
        b.iter(|| allow.allow_matches(black_box(CLEAN)))
    });
    g.bench_function("allow/unreadable", |b| {
        b.iter(|| allow.allow_matches(black_box(CHAINED)))
    });
    g.bench_function("deny/clean", |b| {
        b.iter(|| deny.deny_matches(black_box(CLEAN)))
    });
    g.bench_function("deny/chained", |b| {
        b.iter(|| deny.deny_matches(black_box(CHAINED)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
