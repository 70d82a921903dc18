//! Reports the heap memory held by a compiled engine for the generated 10,000-rule policies
//! (the layouts of `benches/decide.rs`), measured with a counting allocator: once compiled
//! from source, once loaded from its bundle; and the memory per agent of 100,000 one-rule
//! agents (the bytes requested, and the number of live allocations, each of which also
//! costs the allocator's own overhead), with the time to load their bundle.
//!
//! Run: `cargo run --release --example engine_memory`; `engine_memory agents N` measures only
//! N one-rule agents (default 100,000), for a heap profiler.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../benches/support/generate.rs"]
mod generate;

/// Counts live heap bytes and allocations.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static LIVE_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
/// Live bytes as a glibc-style allocator holds them: each allocation takes its size plus an
/// 8-byte header, rounded up to 16 bytes, and at least 32 (64-bit glibc `malloc`).
static LIVE_CHUNKS: AtomicUsize = AtomicUsize::new(0);

/// The bytes a 64-bit glibc `malloc` chunk of `size` requested bytes occupies.
fn chunk(size: usize) -> usize {
    (size + 8).div_ceil(16).max(2) * 16
}

#[allow(unsafe_code)] // a counting allocator forwards to the system one
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        LIVE_CHUNKS.fetch_add(chunk(layout.size()), Ordering::Relaxed);
        LIVE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE_CHUNKS.fetch_sub(chunk(layout.size()), Ordering::Relaxed);
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("agents") {
        let n = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(100_000);
        one_rule_agents(n);
        return;
    }
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
    one_rule_agents(100_000);
}

/// Loads `n` one-rule agents from their bundle and reports the memory held per agent.
fn one_rule_agents(n: usize) {
    // Several files: one file may hold at most 8 MiB.
    let text = generate::agents(n);
    let parts: Vec<(String, String)> = text
        .split_inclusive("}\n")
        .collect::<Vec<_>>()
        .chunks(n.div_ceil(4))
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
    let chunks_before = LIVE_CHUNKS.load(Ordering::Relaxed);
    let allocations_before = LIVE_ALLOCATIONS.load(Ordering::Relaxed);
    let started = std::time::Instant::now();
    let loaded = toolgate::Engine::from_bundle(&bundle).expect("loads");
    let load = started.elapsed();
    let held = LIVE.load(Ordering::Relaxed) - before;
    let in_chunks = LIVE_CHUNKS.load(Ordering::Relaxed) - chunks_before;
    let allocations = LIVE_ALLOCATIONS.load(Ordering::Relaxed) - allocations_before;
    println!(
        "{n} one-rule agents: {} bytes per agent loaded in {:.1} allocations ({} with glibc's per-allocation overhead; {:.1} MiB), bundle {:.1} MiB loaded in {:.2} s, compiled in {:.2} s",
        held / n,
        allocations as f64 / n as f64,
        in_chunks / n,
        mib(held),
        mib(bundle.len()),
        load.as_secs_f64(),
        compile.as_secs_f64()
    );
    // Kept to the end, so that a heap profiler sees the engine live at exit.
    std::mem::forget(loaded);
}
