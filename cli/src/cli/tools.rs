//! `toolgate tools POLICY --agent NAME`: the tools an agent may see.

use super::{load_engine, Exit};
use std::path::PathBuf;

/// Output format of `tools`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    /// One tool per line (`server.tool`, or the host tool's name)
    Text,
    /// `[{"name": ..., "server": ..., "tool": ...}]` (`server` null for host tools), the
    /// gateway's `/v1/tools` listing
    Json,
}

/// Arguments of `tools`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy file or folder
    #[arg(required = true)]
    policy: Vec<PathBuf>,
    /// The agent
    #[arg(long)]
    agent: String,
    /// Output format
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Runs `tools`.
pub fn run(args: Args) -> Exit {
    let (engine, _) = match load_engine(&args.policy) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(tools) = engine.visible_tools(&args.agent) else {
        let hint = toolgate::resolve::suggest::help_with(
            &args.agent,
            engine.agent_names(),
            &format!(
                "agents are: {}",
                engine.agent_names().collect::<Vec<_>>().join(", ")
            ),
        );
        eprintln!("error: unknown agent `{}`\n  help: {hint}", args.agent);
        return Exit::Failure;
    };
    if !engine.has_catalog() {
        eprintln!("warning: the policy declares no tools, so there is nothing to list");
    }
    match args.format {
        Format::Text => {
            for t in &tools {
                println!("{t}");
            }
        }
        Format::Json => println!("{}", toolgate::engine::tools_json(&tools)),
    }
    Exit::Ok
}
