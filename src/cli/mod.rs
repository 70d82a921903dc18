//! The command line: one file per subcommand; exit codes and output formats live here.

mod check;
mod eval;
mod output;
mod test;
mod tools;

use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;
use toolgate::diagnostic::Diagnostics;
use toolgate::source::SourceMap;

/// Exit codes shared by every subcommand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Success (for `eval`: every request answered, whatever the decisions).
    Ok = 0,
    /// Policy errors, failed tests, findings.
    Failure = 1,
    /// Usage or I/O errors.
    Usage = 2,
}

#[derive(Parser)]
#[command(name = "toolgate", version, about = "Decide whether an AI agent may make a tool call", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, resolve and lint policies; report every problem
    Check(check::Args),
    /// Decide requests (one JSON request or JSON lines) against a policy
    Eval(eval::Args),
    /// List the tools an agent may see
    Tools(tools::Args),
    /// Run the `test` blocks of policies
    Test(test::Args),
}

/// Parses the command line and runs the subcommand; returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage as i32
            } else {
                Exit::Ok as i32
            };
        }
    };
    let exit = match cli.command {
        Command::Check(a) => check::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Tools(a) => tools::run(a),
        Command::Test(a) => test::run(a),
    };
    exit as i32
}

/// True when diagnostics on stderr may use colour.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Prints diagnostics to stderr in miette's graphical form.
pub fn print_diagnostics(diags: &Diagnostics, sources: &SourceMap) {
    if !diags.is_empty() {
        eprint!("{}", diags.render(sources, stderr_color(), 100));
    }
}

/// Loads and compiles the policy at `paths`; on failure prints why and returns the exit code.
pub fn load_engine(
    paths: &[PathBuf],
) -> Result<(toolgate::Engine, toolgate::resolve::Policy), Exit> {
    let sources = toolgate::load::read_sources(paths).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Usage
    })?;
    match toolgate::load::engine_from_sources(sources) {
        Ok((engine, policy, warnings)) => {
            print_diagnostics(&warnings, &policy.sources);
            Ok((engine, policy))
        }
        Err(err) => {
            print_diagnostics(&err.diagnostics, &err.sources);
            eprintln!(
                "error: the policy has {} error{}; nothing was loaded",
                err.diagnostics.error_count(),
                if err.diagnostics.error_count() == 1 {
                    ""
                } else {
                    "s"
                }
            );
            Err(Exit::Failure)
        }
    }
}
