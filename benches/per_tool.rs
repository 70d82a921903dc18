//! Deciding a call to tool T costs what T's own rules cost, whatever the other tools' rules.
//!
//! N tools with one `allow` rule each on `path`, in four shapes (sibling directories whose
//! names are prefixes of each other, `.rs` files under a directory, URLs with a host prefix,
//! `npm run` commands), at N = 10 and 10,000:
//! - `one`: one allowed request, decided again and again (everything stays in cache);
//! - `batch`: 4,096 allowed requests to tools drawn at random, decided in turn, as `toolgate
//!   eval` decides JSON lines (the time is per decision). The target is at most 1.5x between
//!   N = 10 and N = 10,000 for every shape.
//!
//! Run: `cargo bench --bench per_tool`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::json;
use toolgate::{Engine, Request};

#[path = "support/generate.rs"]
mod generate;

const BATCH: usize = 4_096;

fn bench(c: &mut Criterion) {
    for &(shape, glob, value) in generate::SHAPES {
        let mut group = c.benchmark_group(format!("per_tool/{shape}"));
        for n in [10, 10_000] {
            let engine: Engine =
                toolgate::load::engine_from_str("bench.policy", &generate::per_tool(n, glob))
                    .expect("bench policy compiles");
            let request =
                |i: usize| Request::new("bench", format!("t{i}")).args(json!({ "path": value(i) }));
            let batch: Vec<Request> = generate::random_tools(n).take(BATCH).map(request).collect();
            for r in &batch {
                assert!(engine.decide(r).is_allowed(), "{shape} n={n}");
            }
            let one = request(n / 2);
            group.throughput(Throughput::Elements(1));
            group.bench_with_input(BenchmarkId::new("one", n), &one, |b, r| {
                b.iter(|| engine.decide(black_box(r)))
            });
            group.throughput(Throughput::Elements(BATCH as u64));
            group.bench_with_input(BenchmarkId::new("batch", n), &batch, |b, batch| {
                b.iter(|| {
                    for r in batch {
                        black_box(engine.decide(black_box(r)));
                    }
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
