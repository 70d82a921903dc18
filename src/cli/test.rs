//! `toolgate test PATH...`: run the policies' `test` blocks.

use super::{load_engine, print_diagnostics, Exit};
use std::path::PathBuf;

/// Arguments of `test`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy files or folders of `.policy` files (merged into one policy)
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// Runs `test`.
pub fn run(args: Args) -> Exit {
    let (engine, policy) = match load_engine(&args.paths) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let report = toolgate::testing::run_tests(&policy, &engine);
    print_diagnostics(&report.failures, &policy.sources);
    println!("{} passed, {} failed", report.passed, report.failed);
    if report.failed > 0 {
        Exit::Failure
    } else {
        Exit::Ok
    }
}
