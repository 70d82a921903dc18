//! Loading a compiled bundle versus compiling the same policy from source, on generated
//! 10,000-rule policies (the wide and deep layouts of `benches/decide.rs`).
//!
//! Run: `cargo bench --bench load_vs_compile`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use std::time::Duration;
use toolgate::Engine;

#[path = "support/generate.rs"]
mod generate;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("load_vs_compile");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (layout, text) in [
        ("wide", generate::wide(10_000)),
        ("deep", generate::deep(10_000)),
    ] {
        let engine = toolgate::load::engine_from_str("bench.policy", &text).expect("compiles");
        let bytes = engine.to_bundle();
        group.bench_with_input(BenchmarkId::new("compile", layout), &text, |b, text| {
            b.iter_batched(
                || (),
                |_| toolgate::load::engine_from_str("bench.policy", text),
                BatchSize::PerIteration,
            )
        });
        group.bench_with_input(BenchmarkId::new("load", layout), &bytes, |b, bytes| {
            b.iter_with_large_drop(|| Engine::from_bundle(bytes).expect("loads"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
