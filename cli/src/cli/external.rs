//! Subcommands served by the `toolgate-gateway` executable: `gateway`, `keys`, `serve`, `catalog`
//! and `check --against`. They need an async runtime, an HTTP server and an MCP client, which the
//! library and this executable do not compile; like cargo with `cargo-foo`, `toolgate` hands such
//! a command line unchanged to `toolgate-gateway`: the one the `TOOLGATE_GATEWAY` environment
//! variable names, else the one beside its own executable, else the first on `PATH`.

use super::Exit;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// The name of the executable that serves the forwarded subcommands.
pub const GATEWAY_EXE: &str = "toolgate-gateway";

/// The subcommands forwarded whatever their arguments.
const FORWARDED: &[&str] = &["gateway", "keys", "serve", "catalog"];

/// Help text listing the forwarded subcommands, shown under `toolgate --help`.
pub const HELP: &str = "Served by toolgate-gateway (installed beside toolgate):
  gateway   Run the MCP gateway in front of MCP servers
  keys      Add, list and revoke agent keys
  serve     Serve the decision API over HTTP
  catalog   Print catalog declarations read from live MCP servers
  check --against CONFIG   Report drift between the catalog and live MCP servers";

/// True when the command line (without the program name) is one `toolgate-gateway` serves.
pub fn is_forwarded(args: &[OsString]) -> bool {
    let Some(first) = args.first().and_then(|a| a.to_str()) else {
        return false;
    };
    if FORWARDED.contains(&first) {
        return true;
    }
    first == "check"
        && args[1..].iter().any(|a| {
            a == OsStr::new("--against") || a.to_str().is_some_and(|s| s.starts_with("--against="))
        })
}

/// Runs `toolgate-gateway` with the same arguments; returns its exit code, or `Usage` with a
/// message when it cannot be found or started.
pub fn run(args: &[OsString]) -> i32 {
    let Some(exe) = locate() else {
        eprintln!(
            "error: `toolgate {}` is served by `{GATEWAY_EXE}`, which was found neither beside this \
             executable nor on PATH (or set TOOLGATE_GATEWAY to its path)\n  help: build it with `cargo build --release -p toolgate-gateway` \
             (it is a separate crate so that hosts embedding the library do not compile its server)",
            args.first().map(|a| a.to_string_lossy()).unwrap_or_default()
        );
        return Exit::Usage as i32;
    };
    let mut cmd = std::process::Command::new(&exe);
    cmd.args(args);
    #[cfg(unix)]
    {
        // Replace this process, so signals (SIGHUP reloads the gateway) reach the daemon itself.
        use std::os::unix::process::CommandExt;
        let err = cmd.exec();
        eprintln!("error: cannot run {}: {err}", exe.display());
        Exit::Usage as i32
    }
    #[cfg(not(unix))]
    match cmd.status() {
        Ok(status) => status.code().unwrap_or(Exit::Failure as i32),
        Err(err) => {
            eprintln!("error: cannot run {}: {err}", exe.display());
            Exit::Usage as i32
        }
    }
}

/// The gateway executable `TOOLGATE_GATEWAY` names, else the one beside the running one, else
/// the first on `PATH`.
fn locate() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os("TOOLGATE_GATEWAY") {
        return Some(PathBuf::from(named));
    }
    let name = format!("{GATEWAY_EXE}{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(&name));
    beside.into_iter().chain(on_path).find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn forwards_gateway_subcommands_and_check_against_only() {
        assert!(is_forwarded(&args(&["gateway", "--config", "g.toml"])));
        assert!(is_forwarded(&args(&["keys", "add", "bot"])));
        assert!(is_forwarded(&args(&["serve"])));
        assert!(is_forwarded(&args(&["catalog", "--from", "g.toml"])));
        assert!(is_forwarded(&args(&["check", "--against", "g.toml", "p/"])));
        assert!(is_forwarded(&args(&["check", "p/", "--against=g.toml"])));
        assert!(!is_forwarded(&args(&["check", "p/"])));
        assert!(!is_forwarded(&args(&["eval", "p/", "--request", "-"])));
        assert!(!is_forwarded(&args(&[])));
    }
}
