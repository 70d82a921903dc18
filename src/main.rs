//! The `toolgate` command line.

// Like the library: no unwrap, expect or panic on what a user controls.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

fn main() {
    std::process::exit(toolgate_cli::run());
}

#[path = "cli/mod.rs"]
mod toolgate_cli;
