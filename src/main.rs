//! The `toolgate` command line.

fn main() {
    std::process::exit(toolgate_cli::run());
}

#[path = "cli/mod.rs"]
mod toolgate_cli;
