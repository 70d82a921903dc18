//! `shell` patterns: the cost one `ARG matches shell` condition adds to a decision.
//!
//! For a 200-byte command, against a set of 20 allow patterns and a set of 10 deny patterns on
//! the same argument (each set answered in one pass over the parsed words):
//! - `allow/hit`, `allow/unreadable`: the strict reading and the allow set;
//! - `deny/clean`, `deny/chained`: the generous reading (through `&&`, pipes, `$(...)`,
//!   wrappers) and the deny set.
//!
//! Run: `cargo bench --bench shell`. Target: each under 1 µs. The cases are in
//! `support/shell_cases.rs`; `benches/shell_cost.rs` counts their allocations and instructions.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::time::Duration;

#[path = "support/shell_cases.rs"]
mod cases;

fn bench(c: &mut Criterion) {
    let sets = cases::Sets::new();
    let mut g = c.benchmark_group("shell");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    for name in cases::NAMES {
        let Some(run) = sets.case(name) else { continue };
        g.bench_function(*name, |b| b.iter(|| run(black_box(&sets))));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
