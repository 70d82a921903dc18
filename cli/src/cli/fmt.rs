//! `toolgate fmt PATH... [--check]`: canonical formatting.

use super::{print_diagnostics, Exit};
use std::io::Write;
use std::path::PathBuf;
use toolgate::fmt::{format_source, FmtError};

/// Arguments of `fmt`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy files or folders of `.policy` files
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Change nothing; list the files that are not formatted and exit 1 if there is any
    #[arg(long)]
    check: bool,
}

/// The first line where two texts differ (1-based), with both versions of it.
fn first_difference<'a>(old: &'a str, new: &'a str) -> (usize, &'a str, &'a str) {
    let mut a = old.lines();
    let mut b = new.lines();
    let mut n = 1;
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (x, y) => return (n, x.unwrap_or(""), y.unwrap_or("")),
        }
    }
}

/// Runs `fmt`.
pub fn run(args: Args) -> Exit {
    let mut files = Vec::new();
    for p in &args.paths {
        match toolgate::load::policy_files(p) {
            Ok(f) => files.extend(f),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Usage;
            }
        }
    }
    let (mut unformatted, mut failed) = (0usize, false);
    // Output goes to a pipe that may close early (`| head`): write errors are ignored.
    let mut stdout = std::io::stdout().lock();
    for file in &files {
        let name = file.display().to_string();
        let text = match std::fs::read(file).map(String::from_utf8) {
            Ok(Ok(t)) => t,
            Ok(Err(_)) => {
                eprintln!("error: {name}: not UTF-8");
                return Exit::Usage;
            }
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return Exit::Usage;
            }
        };
        let out = match format_source(&name, &text) {
            Ok(out) => out,
            Err(FmtError::Syntax {
                diagnostics,
                sources,
            }) => {
                print_diagnostics(&diagnostics, &sources);
                eprintln!("error: {name} was not formatted: it does not parse");
                failed = true;
                continue;
            }
            Err(e @ FmtError::Unstable(_)) => {
                eprintln!("error: {name}: {e}; the file is left as it is");
                failed = true;
                continue;
            }
        };
        if out == text {
            continue;
        }
        unformatted += 1;
        if args.check {
            let (line, old, new) = first_difference(&text, &out);
            let _ = writeln!(
                stdout,
                "{name}: not formatted (first difference on line {line})"
            );
            let _ = writeln!(stdout, "  - {old}");
            let _ = writeln!(stdout, "  + {new}");
        } else if let Err(e) = std::fs::write(file, &out) {
            eprintln!("error: {name}: {e}");
            return Exit::Usage;
        } else {
            let _ = writeln!(stdout, "formatted {name}");
        }
    }
    if failed || (args.check && unformatted > 0) {
        if args.check && unformatted > 0 {
            eprintln!(
                "{unformatted} of {} file{} not formatted; run `toolgate fmt` on {}",
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                if unformatted == 1 { "it" } else { "them" }
            );
        }
        Exit::Failure
    } else {
        Exit::Ok
    }
}
