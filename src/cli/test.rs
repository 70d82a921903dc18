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
    let (passed, failed) = match &policy {
        Some(policy) => {
            let report = toolgate::testing::run_tests(policy, &engine);
            print_diagnostics(&report.failures, &policy.sources);
            (report.passed, report.failed)
        }
        None => {
            let (passed, failures) = toolgate::testing::run_compiled_tests(&engine);
            for f in &failures {
                eprintln!("error[toolgate::test_failed]: {f}");
            }
            (passed, failures.len())
        }
    };
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        Exit::Failure
    } else {
        Exit::Ok
    }
}
