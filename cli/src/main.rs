//! The `toolgate` command line, on the `toolgate` library: a host that embeds the library
//! compiles none of clap, the allocator or this crate.

// Like the library: no unwrap, expect or panic on what a user controls.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The command line's allocator: compiling a policy from source makes and frees millions of
/// small allocations (100,000 agents: a few for every rule, condition and name), which
/// mimalloc serves in a fraction of the time and with less fragmentation than the system
/// allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc v2's `mi_option_arena_purge_mult` (its position in `mi_option_e`, v2's
/// `include/mimalloc.h`; the bindings name no constant for it).
const ARENA_PURGE_MULT: libmimalloc_sys::mi_option_t = 24;

/// Returns freed memory to the system after 10 ms, as mimalloc does for its pages, rather
/// than 100 ms for whole arenas: compiling 100,000 agents from source frees the parse trees
/// while the program is built, and without this the peak RSS varied from 241 to 277 MB from
/// run to run. Left alone when the option does not read its default (10), e.g. when
/// `MIMALLOC_ARENA_PURGE_MULT` sets it.
#[allow(unsafe_code)] // two mimalloc option calls, explained below
fn tune_allocator() {
    // SAFETY: mimalloc's option functions take any option index (an unknown one is
    // reported, never dereferenced) and may be called at any time from any thread.
    unsafe {
        if libmimalloc_sys::mi_option_get(ARENA_PURGE_MULT) == 10 {
            libmimalloc_sys::mi_option_set(ARENA_PURGE_MULT, 1);
        }
    }
}

fn main() {
    tune_allocator();
    std::process::exit(cli::run());
}

mod cli;
