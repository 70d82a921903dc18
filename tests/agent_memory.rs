//! A one-rule agent stays well under 1 KB once loaded: the bytes and allocations a loaded
//! engine holds per agent, counted by a counting allocator (this test binary's only test, so
//! no other test allocates while it counts). `cargo run --release --example engine_memory`
//! reports the same figures for 100,000 agents.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../benches/support/generate.rs"]
mod generate;

/// Counts live heap bytes and allocations.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static LIVE_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

#[allow(unsafe_code)] // a counting allocator forwards to the system one
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

#[test]
fn a_one_rule_agent_costs_well_under_a_kilobyte() {
    let n = 2_000;
    let engine = toolgate::load::engine_from_str("agents.policy", &generate::agents(n)).unwrap();
    let bundle = engine.to_bundle();
    drop(engine);
    let (bytes, allocations) = (
        LIVE.load(Ordering::Relaxed),
        LIVE_ALLOCATIONS.load(Ordering::Relaxed),
    );
    let loaded = toolgate::Engine::from_bundle(&bundle).unwrap();
    let per_agent = (LIVE.load(Ordering::Relaxed) - bytes) / n;
    let allocations = (LIVE_ALLOCATIONS.load(Ordering::Relaxed) - allocations) / n;
    // 638 bytes in 8 allocations when written; before the engine-hardening issue 18.5 KB,
    // and 935 bytes in 24 allocations before the agent and group tables were packed.
    assert!(per_agent <= 700, "{per_agent} bytes per agent");
    assert!(allocations <= 9, "{allocations} allocations per agent");
    let d = loaded.decide(
        &toolgate::Request::new("a7", "read_file").args(serde_json::json!({"path": "/home/a7/x"})),
    );
    assert!(d.is_allowed(), "{}", d.message);
}
