//! Reports the heap memory held by a compiled engine for the generated 10,000-rule policies
//! (the layouts of `benches/decide.rs`), measured with a counting allocator: once compiled
//! from source, once loaded from its bundle; and the memory per agent of 100,000 one-rule
//! agents (the bytes requested, and the number of live allocations, each of which also
//! costs the allocator's own overhead), with the time to load their bundle.
//!
//! Run: `cargo run --release --example engine_memory`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../benches/support/generate.rs"]
mod generate;

/// Counts live heap bytes and allocations.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static LIVE_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        LIVE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE_ALLOCATIONS.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn main() {
    for (layout, text) in [
        ("wide", generate::wide(10_000)),
        ("deep", generate::deep(10_000)),
    ] {
        let before = LIVE.load(Ordering::Relaxed);
        let engine = toolgate::load::engine_from_str("bench.policy", &text).expect("compiles");
        let compiled = LIVE.load(Ordering::Relaxed) - before;
        let bundle = engine.to_bundle();
        drop(engine);
        let before = LIVE.load(Ordering::Relaxed);
        let loaded = toolgate::Engine::from_bundle(&bundle).expect("loads");
        let from_bundle = LIVE.load(Ordering::Relaxed) - before;
        println!(
            "{layout:>4} N=10,000: engine {:.1} MiB compiled, {:.1} MiB loaded from a {:.1} MiB bundle",
            mib(compiled),
            mib(from_bundle),
            mib(bundle.len())
        );
        drop(loaded);
    }
    let n = 100_000;
    // Several files: one file may hold at most 8 MiB.
    let text = generate::agents(n);
    let parts: Vec<(String, String)> = text
        .split_inclusive("}\n")
        .collect::<Vec<_>>()
        .chunks(n / 4)
        .enumerate()
        .map(|(i, c)| (format!("part{i}.policy"), c.concat()))
        .collect();
    let mut sources = toolgate::source::SourceMap::new();
    for (name, text) in parts {
        sources.add(name, text);
    }
    let started = std::time::Instant::now();
    let (engine, _, _) = toolgate::load::engine_from_sources(sources).expect("compiles");
    let compile = started.elapsed();
    let bundle = engine.to_bundle();
    drop(engine);
    let before = LIVE.load(Ordering::Relaxed);
    let allocations_before = LIVE_ALLOCATIONS.load(Ordering::Relaxed);
    let started = std::time::Instant::now();
    let loaded = toolgate::Engine::from_bundle(&bundle).expect("loads");
    let load = started.elapsed();
    let held = LIVE.load(Ordering::Relaxed) - before;
    let allocations = LIVE_ALLOCATIONS.load(Ordering::Relaxed) - allocations_before;
    println!(
        "{n} one-rule agents: {} bytes per agent loaded in {:.1} allocations ({:.1} MiB), bundle {:.1} MiB loaded in {:.2} s, compiled in {:.2} s",
        held / n,
        allocations as f64 / n as f64,
        mib(held),
        mib(bundle.len()),
        load.as_secs_f64(),
        compile.as_secs_f64()
    );
    drop(loaded);
}
