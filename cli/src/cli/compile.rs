//! `toolgate compile POLICY... -o FILE`: write a compiled bundle and print its hash.

use super::{load_engine, Exit};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `compile`.
#[derive(clap::Args)]
pub struct Args {
    /// Policy files or folders of `.policy` files (merged into one policy)
    #[arg(required = true)]
    policy: Vec<PathBuf>,
    /// Where to write the bundle
    #[arg(short, long)]
    output: PathBuf,
}

/// Runs `compile`.
pub fn run(args: Args) -> Exit {
    let (engine, _) = match load_engine(&args.policy) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let bytes = engine.to_bundle();
    // Write to a temporary file beside the target and rename it, so a host watching the
    // path never reads a half-written bundle.
    let dir = args
        .output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let file_name = args
        .output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bundle".into());
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(&bytes).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&tmp, &args.output));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        eprintln!("error: {}: {e}", args.output.display());
        return Exit::Usage;
    }
    println!(
        "{}  {} ({} bytes)",
        engine.policy_hash(),
        args.output.display(),
        bytes.len()
    );
    Exit::Ok
}
