//! The `toolgate` command line.

// Like the library: no unwrap, expect or panic on what a user controls.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The command line's allocator: compiling a policy from source makes and frees millions of
/// small allocations (100,000 agents: a few for every rule, condition and name), which
/// mimalloc serves in a fraction of the time and with less fragmentation than the system
/// allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(toolgate_cli::run());
}

#[path = "cli/mod.rs"]
mod toolgate_cli;
