//! `toolgate check PATH...`: parse, resolve, compile and lint; report every diagnostic.

use super::{output, print_diagnostics, Exit};
use std::path::PathBuf;

/// Output format of `check`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    /// miette's graphical report on stderr
    Human,
    /// `{"diagnostics": [...]}` on stdout
    Json,
    /// SARIF 2.1.0 on stdout
    Sarif,
}

/// Arguments of `check`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy files or folders of `.policy` files (merged into one policy)
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Treat warnings as errors (exit 1 when there is any)
    #[arg(long)]
    deny_warnings: bool,
}

/// Runs `check`.
pub fn run(args: Args) -> Exit {
    let sources = match toolgate::load::read_sources(&args.paths) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let n_files = sources.files().count();
    let (policy, diags) = toolgate::load::check_sources(sources);
    let sources = policy.sources;
    match args.format {
        Format::Human => {
            print_diagnostics(&diags, &sources);
            eprintln!(
                "checked {n_files} file{}: {} error{}, {} warning{}",
                if n_files == 1 { "" } else { "s" },
                diags.error_count(),
                if diags.error_count() == 1 { "" } else { "s" },
                diags.warning_count(),
                if diags.warning_count() == 1 { "" } else { "s" },
            );
        }
        Format::Json => println!("{}", output::json(&diags, &sources)),
        Format::Sarif => println!("{}", output::sarif(&diags, &sources)),
    }
    if diags.has_errors() || (args.deny_warnings && diags.warning_count() > 0) {
        Exit::Failure
    } else {
        Exit::Ok
    }
}
