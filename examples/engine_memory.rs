//! Reports the heap memory held by a compiled engine for the generated 10,000-rule policies
//! (the layouts of `benches/decide.rs`), measured with a counting allocator: once compiled
//! from source, once loaded from its bundle.
//!
//! Run: `cargo run --release --example engine_memory`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../benches/support/generate.rs"]
mod generate;

/// Counts live heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
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
}
