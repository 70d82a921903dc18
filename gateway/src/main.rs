//! The `toolgate-gateway` executable (also reached as `toolgate gateway|serve|keys|check
//! --against|catalog`).

use clap::Parser;

fn main() {
    let cli = toolgate_gateway::cli::Cli::parse();
    std::process::exit(toolgate_gateway::cli::main_with(cli));
}
