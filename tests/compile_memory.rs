//! Compiling a policy of many one-rule agents from source holds little at once: the peak of
//! live heap bytes while `engine_from_str` parses, resolves, compiles and loads it, per agent,
//! counted by a counting allocator (this test binary's only test, so no other test allocates
//! while it counts). `scripts/compile_scale.sh` measures the peak RSS of `toolgate eval` on
//! 100,000 such agents.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "../benches/support/generate.rs"]
mod generate;

/// Counts live heap bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[allow(unsafe_code)] // a counting allocator forwards to the system one
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
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

#[test]
fn compiling_one_rule_agents_peaks_under_four_kilobytes_each() {
    let n = 20_000;
    let text = generate::agents(n);
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let (engine, policy, _) = {
        let mut sources = toolgate::source::SourceMap::new();
        sources.add("agents.policy", text.as_str());
        toolgate::load::engine_from_sources(sources).unwrap()
    };
    let per_agent = (PEAK.load(Ordering::Relaxed) - before) / n;
    eprintln!("{per_agent} bytes per agent at the peak");
    // 3,303 bytes per agent when written; 4,960 before the parsed and resolved lists were
    // sized to fit (each one-rule agent's statement, rule, condition and grant lists held
    // room for four), a parsed rule was boxed in its statement, the compiled program was
    // freed before its bundle was decoded and the bundle payload was written into a buffer
    // of its size.
    assert!(
        per_agent <= 3_600,
        "{per_agent} bytes per agent at the peak"
    );
    // Nothing is lost to the sizing: the agents decide as written.
    assert!(policy
        .agents
        .iter()
        .all(|a| a.rules.capacity() == a.rules.len()));
    let d = engine.decide(
        &toolgate::Request::new("a7", "read_file").args(serde_json::json!({"path": "/home/a7/x"})),
    );
    assert!(d.is_allowed(), "{}", d.message);
}
