//! The command line: one file per subcommand; exit codes and output formats live here.

mod check;
mod compile;
mod diff;
mod eval;
mod external;
mod fmt;
mod matrix;
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
#[command(name = "toolgate", version, about = "Decide whether an AI agent may make a tool call", long_about = None, after_help = external::HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, resolve and lint policies; report every problem
    Check(check::Args),
    /// Compile policies into a bundle hosts load without parsing
    Compile(compile::Args),
    /// Show how two policies' decisions differ, with a witness request for each difference
    Diff(diff::Args),
    /// Decide requests (one JSON request or JSON lines) against a policy
    Eval(eval::Args),
    /// List the tools an agent may see
    Tools(tools::Args),
    /// Show what each agent may effectively do with each tool: never, always, or when
    Matrix(matrix::Args),
    /// Run the `test` blocks of policies
    Test(test::Args),
    /// Format policies canonically (`--check`: report, change nothing)
    Fmt(fmt::Args),
}

/// Parses the command line and runs the subcommand; returns the exit code.
pub fn run() -> i32 {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if external::is_forwarded(&args) {
        return external::run(&args);
    }
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
        Command::Compile(a) => compile::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Tools(a) => tools::run(a),
        Command::Matrix(a) => matrix::run(a),
        Command::Test(a) => test::run(a),
        Command::Fmt(a) => fmt::run(a),
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

/// How many reports of one code `eval`, `tools`, `test` and `compile` print before they
/// summarize the rest (`check` prints all).
const REPORTS_PER_CODE: usize = 3;

/// Prints the warnings found while loading a policy for another command than `check`: the
/// first few of each code in full, then one line per code saying how many more there are.
pub fn print_load_warnings(diags: &Diagnostics, sources: &SourceMap) {
    let mut shown: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut out = String::new();
    for d in diags.sorted() {
        let n = shown.entry(d.code).or_default();
        *n += 1;
        if *n <= REPORTS_PER_CODE {
            out.push_str(&d.render(sources, stderr_color(), 100));
        }
    }
    for (code, n) in shown {
        if n > REPORTS_PER_CODE {
            out.push_str(&format!(
                "... and {} more `{code}` reports; `toolgate check` prints them all\n",
                n - REPORTS_PER_CODE
            ));
        }
    }
    eprint!("{out}");
}

/// Loads the policy at `paths`: a compiled bundle (a single file starting with the bundle
/// magic bytes) or `.policy` files and folders, compiled. On failure prints why and returns
/// the exit code. The resolved policy is returned for source input only.
pub fn load_engine(
    paths: &[PathBuf],
) -> Result<(toolgate::Engine, Option<toolgate::resolve::Policy>), Exit> {
    use toolgate::load::LoadFailure;
    match toolgate::load::engine_from_paths(paths) {
        Ok(loaded) => {
            if let Some(policy) = &loaded.policy {
                print_load_warnings(&loaded.warnings, &policy.sources);
            }
            Ok((loaded.engine, loaded.policy))
        }
        Err(LoadFailure::Io(e)) => {
            eprintln!("error: {e}");
            Err(Exit::Usage)
        }
        Err(LoadFailure::Bundle { path, error }) => {
            eprintln!("error[{}]: {}: {error}", error.code(), path.display());
            Err(Exit::Failure)
        }
        Err(LoadFailure::Policy(err)) => {
            print_diagnostics(&err.diagnostics, &err.sources);
            let n = err.diagnostics.error_count();
            eprintln!(
                "error: the policy has {n} error{}; nothing was loaded",
                if n == 1 { "" } else { "s" }
            );
            Err(Exit::Failure)
        }
    }
}
