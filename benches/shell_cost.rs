//! The deterministic cost of the `shell` bench cases: heap allocations per call (counted by a
//! global allocator), and a loop of N calls to measure instructions under `perf stat` or
//! `valgrind --tool=callgrind` (run with N and with 0; the difference divided by N is the cost
//! of one call, whatever else the machine is doing).
//!
//! Run: `cargo bench --bench shell_cost` (allocations per call for every case), or
//! `target/release/deps/shell_cost-* CASE N` (CASE: allow/hit, allow/unreadable, deny/clean,
//! deny/chained).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

#[path = "support/shell_cases.rs"]
mod cases;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

#[allow(unsafe_code)] // a counting allocator forwards to the system one
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let sets = cases::Sets::new();
    if let [case, n] = args.as_slice() {
        let n: u64 = n.parse().expect("N is a number");
        let run = sets.case(case).expect("a known case");
        for _ in 0..n {
            black_box(run(black_box(&sets)));
        }
        return;
    }
    for name in cases::NAMES {
        let run = sets.case(name).expect("a known case");
        // The first calls fill the buffers that later calls reuse.
        for _ in 0..100 {
            black_box(run(black_box(&sets)));
        }
        let before = allocations();
        const CALLS: u64 = 1000;
        for _ in 0..CALLS {
            black_box(run(black_box(&sets)));
        }
        let per_call = (allocations() - before) as f64 / CALLS as f64;
        println!("shell/{name:<18} {per_call:>6.2} allocations per call");
    }
}
