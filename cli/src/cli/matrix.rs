//! `toolgate matrix POLICY... [--agent A] [--format text|markdown|json]`: the effective
//! permissions of every agent on every tool (docs/review.md).

use super::Exit;
use std::path::PathBuf;
use toolgate::load::LoadFailure;
use toolgate::review::matrix::{to_json, to_markdown, to_text, Matrix, RuleLoc};

/// Output format of `matrix`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    /// A grid for a terminal, a legend, then the conditions
    Text,
    /// A table and the conditions, for a pull-request comment
    Markdown,
    /// One object per agent and tool (docs/review.md)
    Json,
}

/// Arguments of `matrix`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy files or folders, or one compiled bundle
    #[arg(required = true)]
    policy: Vec<PathBuf>,
    /// Only this agent
    #[arg(long)]
    agent: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Runs `matrix`.
pub fn run(args: Args) -> Exit {
    let loaded = match toolgate::load::engine_from_paths(&args.policy) {
        Ok(l) => l,
        Err(LoadFailure::Bundle { path, error }) => {
            eprintln!("error[{}]: {}: {error}", error.code(), path.display());
            return Exit::Failure;
        }
        Err(_) => {
            // Reported by `load_engine`, with the exit code the other commands use.
            return match super::load_engine(&args.policy) {
                Err(code) => code,
                Ok(_) => Exit::Failure,
            };
        }
    };
    let mut matrix = match &loaded.policy {
        Some(policy) => {
            super::print_load_warnings(&loaded.warnings, &policy.sources);
            Matrix::build(policy)
        }
        // A bundle: its policy rebuilt from its program, its rules shown where the bundle
        // records them; the bundle's own engine checks every cell below.
        None => match toolgate::review::decompile::decompile(&loaded.engine) {
            Ok(back) => Matrix::build_relocated(&back.policy, &|loc| match back
                .original(&loc.file, loc.line)
            {
                Some(r) => RuleLoc {
                    file: r.file.to_string(),
                    line: r.line,
                    column: r.column,
                    ..loc
                },
                None => loc,
            }),
            Err(refusal) => {
                eprintln!(
                    "error: {}: the bundle cannot be reviewed: {refusal}",
                    args.policy
                        .first()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                );
                return Exit::Usage;
            }
        },
    };
    let wrong = matrix.disagreements(&loaded.engine);
    if !wrong.is_empty() {
        for w in &wrong {
            eprintln!("error: internal: {w}");
        }
        return Exit::Failure;
    }
    if let Some(agent) = &args.agent {
        let names: Vec<String> = matrix.agents.clone();
        matrix = match matrix.only_agent(agent) {
            Some(m) => m,
            None => {
                let hint = toolgate::resolve::suggest::help_with(
                    agent,
                    names.iter().map(String::as_str),
                    &format!("agents are: {}", names.join(", ")),
                );
                eprintln!("error: unknown agent `{agent}`\n  help: {hint}");
                return Exit::Usage;
            }
        };
    }
    match args.format {
        Format::Text => print!("{}", to_text(&matrix)),
        Format::Markdown => print!("{}", to_markdown(&matrix)),
        Format::Json => match serde_json::to_string_pretty(&to_json(&matrix)) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::Failure;
            }
        },
    }
    Exit::Ok
}
