//! The command line: `gateway`, `serve`, `keys`, `check --against` and `catalog --from`.
//!
//! The `toolgate` CLI forwards these subcommands unchanged to this executable, so its first
//! arguments are the same as `toolgate`'s. Exit codes: 0 ok, 1 failure or findings, 2 usage or
//! I/O.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Parser, Subcommand};

use crate::config::Config;
use crate::daemon::Mode;
use crate::keys::KeyFile;
use crate::log::DecisionLog;
use crate::state::Shared;

/// The default key file when `--keys` is not given.
pub const DEFAULT_KEYS: &str = "keys.json";

/// The default number of runtime threads serving `gateway` and `serve`: one. A call hands over
/// between about eight tasks (connection, rmcp's session or per-request service, the handler,
/// the upstream client); on one thread (a current-thread runtime) each hand-over is a queue
/// push, while with more threads most of them wake another thread (a futex call and a context
/// switch each, and on a virtual machine an inter-processor interrupt). `--worker-threads`
/// raises it for many concurrent agents (README, Load test).
pub const DEFAULT_WORKER_THREADS: usize = 1;

/// toolgate's MCP gateway and decision API.
#[derive(Debug, Parser)]
#[command(
    name = "toolgate",
    version,
    about = "toolgate's MCP gateway and decision API"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the MCP gateway in front of the configured upstreams.
    Gateway {
        /// The gateway.toml file.
        #[arg(long)]
        config: PathBuf,
        /// Allow a non-loopback listen address (TLS or a reverse proxy must be stated).
        #[arg(long)]
        allow_remote: bool,
        /// Log argument values in the decision log (cut at `log.args_cap_bytes`).
        #[arg(long)]
        log_args: bool,
        /// Runtime threads serving calls (one keeps a call's hand-overs on one thread; more
        /// serve many concurrent agents on more cores).
        #[arg(long, default_value_t = DEFAULT_WORKER_THREADS, value_parser = worker_threads)]
        worker_threads: usize,
    },
    /// Serve only the decision API (POST /v1/decide, GET /v1/tools, /healthz).
    Serve {
        /// The gateway.toml file.
        #[arg(long)]
        config: PathBuf,
        /// Allow a non-loopback listen address (TLS or a reverse proxy must be stated).
        #[arg(long)]
        allow_remote: bool,
        /// Runtime threads serving calls (one keeps a call's hand-overs on one thread; more
        /// serve many concurrent agents on more cores).
        #[arg(long, default_value_t = DEFAULT_WORKER_THREADS, value_parser = worker_threads)]
        worker_threads: usize,
    },
    /// Manage agents' keys.
    Keys {
        /// What to do with keys.
        #[command(subcommand)]
        action: KeysAction,
    },
    /// Report drift between the policy's catalog and what the upstreams offer.
    Check {
        /// The gateway.toml whose upstreams are started and listed.
        #[arg(long)]
        against: PathBuf,
        /// The policy files or folders.
        #[arg(required = true)]
        policy: Vec<PathBuf>,
    },
    /// Print a catalog (`server NAME { tool ... }`) from the upstreams' tool lists.
    Catalog {
        /// The gateway.toml whose upstreams are started and listed.
        #[arg(long)]
        from: PathBuf,
    },
}

/// The `keys` subcommands.
#[derive(Debug, Subcommand)]
pub enum KeysAction {
    /// Make a new key for an agent and print it once.
    Add {
        /// The agent the key authenticates as.
        agent: String,
        /// The key file.
        #[arg(long, default_value = DEFAULT_KEYS)]
        keys: PathBuf,
    },
    /// List keys: ids, agents, dates (never keys).
    List {
        /// The key file.
        #[arg(long, default_value = DEFAULT_KEYS)]
        keys: PathBuf,
    },
    /// Revoke a key by its id.
    Revoke {
        /// The key's id (`tg_…`).
        id: String,
        /// The key file.
        #[arg(long, default_value = DEFAULT_KEYS)]
        keys: PathBuf,
    },
}

/// Parses `--worker-threads`: a whole number from 1 to 1024.
fn worker_threads(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| (1..=1024).contains(n))
        .ok_or_else(|| format!("`{text}` is not a number of threads from 1 to 1024"))
}

fn fail(code: i32, message: impl std::fmt::Display) -> i32 {
    eprintln!("error: {message}");
    code
}

/// Runs the `keys` subcommands; returns the exit code.
pub fn run_keys(action: KeysAction) -> i32 {
    let now = crate::time::now_rfc3339();
    match action {
        KeysAction::Add { agent, keys } => {
            let mut file = match KeyFile::read(&keys) {
                Ok(f) => f,
                Err(e) => return fail(2, e),
            };
            let new = match file.add(&agent, now) {
                Ok(n) => n,
                Err(e) => return fail(1, e),
            };
            if let Err(e) = file.write(&keys) {
                return fail(2, e);
            }
            println!("{}", new.key);
            eprintln!(
                "added key {} for agent `{}` to `{}`; it is shown only now",
                new.entry.id,
                new.entry.agent,
                keys.display()
            );
            0
        }
        KeysAction::List { keys } => {
            let file = match KeyFile::read(&keys) {
                Ok(f) => f,
                Err(e) => return fail(2, e),
            };
            for k in &file.keys {
                let state = match &k.revoked {
                    Some(when) => format!("revoked {when}"),
                    None => "active".to_string(),
                };
                println!("{}…\t{}\tcreated {}\t{}", k.id, k.agent, k.created, state);
            }
            0
        }
        KeysAction::Revoke { id, keys } => {
            let mut file = match KeyFile::read(&keys) {
                Ok(f) => f,
                Err(e) => return fail(2, e),
            };
            let agent = match file.revoke(&id, now) {
                Ok(e) => e.agent.clone(),
                Err(e) => return fail(1, e),
            };
            if let Err(e) = file.write(&keys) {
                return fail(2, e);
            }
            eprintln!("revoked key {id} of agent `{agent}`; a running gateway stops accepting it at its next reload");
            0
        }
    }
}

/// Runs the daemon in either mode until it is stopped; returns the exit code.
pub async fn run_daemon(config: PathBuf, allow_remote: bool, log_args: bool, mode: Mode) -> i32 {
    let config = match Config::load(&config) {
        Ok(c) => c,
        Err(e) => return fail(2, e),
    };
    if let Err(e) = config.check_listen(allow_remote) {
        return fail(2, e);
    }
    let log = match DecisionLog::open(&config.decisions, log_args, config.args_cap_bytes) {
        Ok(l) => l.deny_on_failure(config.deny_unlogged),
        Err(e) => return fail(2, e),
    };
    let shared = match Shared::load(config, log) {
        Ok(s) => Arc::new(s),
        Err(e) => return fail(1, e),
    };
    let running = match crate::daemon::start(shared, mode).await {
        Ok(r) => r,
        Err(e) => return fail(2, e),
    };
    let stop = running.stop.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    #[cfg(unix)]
    {
        let stop = running.stop.clone();
        if let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            tokio::spawn(async move {
                term.recv().await;
                stop.cancel();
            });
        }
    }
    running.wait().await;
    0
}

/// The runtime a command runs on. The daemon with one worker thread (the default, see
/// [`DEFAULT_WORKER_THREADS`]) runs on a current-thread runtime: every task of a call (the
/// connection, rmcp's session or per-request service, the handler, the upstream client) then
/// runs on the thread that polls the sockets and pipes, and a hand-over between them is a
/// queue push, with no wake-up of another thread. With more worker threads it is tokio's
/// multi-thread runtime; the one-shot commands keep tokio's default.
fn runtime(command: &Command) -> tokio::runtime::Builder {
    match command {
        Command::Gateway { worker_threads, .. } | Command::Serve { worker_threads, .. } => {
            if *worker_threads == 1 {
                tokio::runtime::Builder::new_current_thread()
            } else {
                let mut builder = tokio::runtime::Builder::new_multi_thread();
                builder.worker_threads(*worker_threads);
                builder
            }
        }
        _ => tokio::runtime::Builder::new_multi_thread(),
    }
}

/// Parses the arguments and runs the command; returns the exit code.
pub fn main_with(cli: Cli) -> i32 {
    match cli.command {
        Command::Keys { action } => run_keys(action),
        command => {
            let rt = match runtime(&command).enable_all().build() {
                Ok(rt) => rt,
                Err(e) => return fail(2, format!("cannot start the runtime: {e}")),
            };
            rt.block_on(async move {
                match command {
                    Command::Gateway {
                        config,
                        allow_remote,
                        log_args,
                        ..
                    } => run_daemon(config, allow_remote, log_args, Mode::Gateway).await,
                    Command::Serve {
                        config,
                        allow_remote,
                        ..
                    } => run_daemon(config, allow_remote, false, Mode::Serve).await,
                    Command::Check { against, policy } => {
                        crate::drift::run(&against, &policy).await
                    }
                    Command::Catalog { from } => crate::catalog::run(&from).await,
                    Command::Keys { .. } => 2,
                }
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_threads_are_a_whole_number_from_1_to_1024() {
        assert_eq!(worker_threads("1"), Ok(1));
        assert_eq!(worker_threads("1024"), Ok(1024));
        for bad in ["0", "1025", "-1", "two", ""] {
            assert!(worker_threads(bad).is_err(), "{bad}");
        }
        let parsed = Cli::try_parse_from(["toolgate-gateway", "serve", "--config", "g.toml"]);
        match parsed.map(|c| c.command) {
            Ok(Command::Serve { worker_threads, .. }) => {
                assert_eq!(worker_threads, DEFAULT_WORKER_THREADS)
            }
            other => panic!("{other:?}"),
        }
        let refused = Cli::try_parse_from([
            "toolgate-gateway",
            "gateway",
            "--config",
            "g.toml",
            "--worker-threads",
            "0",
        ]);
        assert!(refused.is_err());
    }
}
