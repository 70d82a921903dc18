//! `gateway.toml`: the policy, the key file, the listen address, limits, the decision log and one
//! upstream per catalog server.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// The default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8787";

/// The most `[limits] max_concurrent_key_checks` may be.
pub const MAX_KEY_CHECKS: usize = 256;

/// The configuration file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    policy: PathBuf,
    keys: PathBuf,
    listen: Option<String>,
    public_transport: Option<String>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    other_methods: Option<String>,
    #[serde(default)]
    limits: RawLimits,
    #[serde(default)]
    log: RawLog,
    #[serde(default)]
    upstream: BTreeMap<String, RawUpstream>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLimits {
    max_body_bytes: Option<usize>,
    call_timeout_ms: Option<u64>,
    max_concurrent_calls_per_agent: Option<usize>,
    max_concurrent_key_checks: Option<usize>,
    failed_key_checks_burst: Option<u32>,
    failed_key_checks_per_minute: Option<u32>,
    max_sessions: Option<usize>,
    max_sessions_per_key: Option<usize>,
    session_idle_timeout_ms: Option<u64>,
    upstream_start_timeout_ms: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLog {
    decisions: Option<String>,
    args_cap_bytes: Option<usize>,
    on_failure: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUpstream {
    command: Option<Vec<String>>,
    url: Option<String>,
    token_env: Option<String>,
    ca_file: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

/// How one upstream MCP server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamSpec {
    /// A child process spoken to over stdio: the program and its arguments.
    Stdio {
        /// The program and its arguments.
        command: Vec<String>,
        /// Extra environment variables for the child.
        env: BTreeMap<String, String>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// The environment variable that holds the bearer token sent upstream, if any.
        token_env: Option<String>,
        /// A PEM file of extra certificate authorities trusted for an `https://` URL, beside
        /// the system's roots.
        ca_file: Option<PathBuf>,
    },
}

/// What to do with MCP methods other than `tools/list` and `tools/call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtherMethods {
    /// Answer them with "method not found" (the default).
    Refuse,
    /// Relay resources and prompts to the upstreams.
    Pass,
}

/// Where decision lines go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogTarget {
    /// Standard output.
    Stdout,
    /// Appended to a file.
    File(PathBuf),
    /// Nowhere.
    Off,
}

/// Limits on what one caller can make the gateway do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted request body, in bytes.
    pub max_body_bytes: usize,
    /// How long one forwarded call may take upstream.
    pub call_timeout: Duration,
    /// How many `tools/call` one agent may have in flight at once.
    pub max_concurrent_calls_per_agent: usize,
    /// How many argon2 key checks may run at once (each holds about 19 MiB while it runs).
    pub max_concurrent_key_checks: usize,
    /// Failed key checks one key id, or one peer address, may make in a burst.
    pub failed_key_checks_burst: u32,
    /// Failed key checks one key id, or one peer address, is given back per minute.
    pub failed_key_checks_per_minute: u32,
    /// Most 2025-11-25 sessions kept at once; over it the one idle longest is closed.
    pub max_sessions: usize,
    /// Most 2025-11-25 sessions one key may hold; over it its session idle longest is closed.
    pub max_sessions_per_key: usize,
    /// How long a 2025-11-25 session may stay idle before it is closed.
    pub session_idle_timeout: Duration,
    /// How long an upstream may take to answer `initialize` and then `tools/list` when it
    /// starts (and for `catalog --from` and `check --against`).
    pub upstream_start_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 1 << 20,
            call_timeout: Duration::from_secs(60),
            max_concurrent_calls_per_agent: 16,
            max_concurrent_key_checks: 2,
            failed_key_checks_burst: 10,
            failed_key_checks_per_minute: 30,
            max_sessions: 512,
            max_sessions_per_key: 32,
            session_idle_timeout: Duration::from_secs(300),
            upstream_start_timeout: Duration::from_secs(30),
        }
    }
}

/// A loaded, validated configuration with every path resolved against the file's folder.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it was read from.
    pub path: PathBuf,
    /// The policy: a `.policy` file, a folder of them, or a compiled bundle.
    pub policy: PathBuf,
    /// The key file.
    pub keys: PathBuf,
    /// The address to listen on.
    pub listen: SocketAddr,
    /// What terminates TLS in front of a non-loopback listener (`reverse-proxy` or `tls-terminator`).
    pub public_transport: Option<String>,
    /// `Host` values accepted in addition to the loopback names.
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted; any other `Origin` is refused with 403.
    pub allowed_origins: Vec<String>,
    /// Methods other than tools.
    pub other_methods: OtherMethods,
    /// Limits.
    pub limits: Limits,
    /// Where decision lines go.
    pub decisions: LogTarget,
    /// Cap on the logged size of a call's arguments (with `--log-args`).
    pub args_cap_bytes: usize,
    /// Whether an allowed call whose decision line cannot be written is refused
    /// (`[log] on_failure = "deny"`) rather than served (`"serve"`, the default).
    pub deny_unlogged: bool,
    /// The upstreams, by catalog server name.
    pub upstreams: BTreeMap<String, UpstreamSpec>,
}

/// A configuration problem, worded for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Reads and validates a configuration file.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the file and the problem.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("cannot read `{}`: {e}", path.display())))?;
        Config::parse(path, &text)
    }

    /// Parses configuration text; relative paths are resolved against `path`'s folder.
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] naming the file and the problem.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        let shown = path.display();
        let raw: RawConfig =
            toml::from_str(text).map_err(|e| ConfigError(format!("`{shown}`: {}", e.message())))?;
        let base = path.parent().unwrap_or(Path::new("."));
        let resolve = |p: &Path| {
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            }
        };
        let listen_text = raw.listen.as_deref().unwrap_or(DEFAULT_LISTEN);
        let listen: SocketAddr = listen_text.parse().map_err(|_| {
            ConfigError(format!(
                "`{shown}`: `listen` must be an address and port such as `{DEFAULT_LISTEN}`, not `{listen_text}`"
            ))
        })?;
        if let Some(t) = &raw.public_transport {
            if t != "reverse-proxy" && t != "tls-terminator" {
                return Err(ConfigError(format!(
                    "`{shown}`: `public_transport` must be `reverse-proxy` or `tls-terminator`, not `{t}`"
                )));
            }
        }
        let other_methods = match raw.other_methods.as_deref() {
            None | Some("refuse") => OtherMethods::Refuse,
            Some("pass") => OtherMethods::Pass,
            Some(other) => {
                return Err(ConfigError(format!(
                    "`{shown}`: `other_methods` must be `refuse` or `pass`, not `{other}`"
                )))
            }
        };
        let defaults = Limits::default();
        let limits = Limits {
            max_body_bytes: raw.limits.max_body_bytes.unwrap_or(defaults.max_body_bytes),
            call_timeout: raw
                .limits
                .call_timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(defaults.call_timeout),
            max_concurrent_calls_per_agent: raw
                .limits
                .max_concurrent_calls_per_agent
                .unwrap_or(defaults.max_concurrent_calls_per_agent),
            max_concurrent_key_checks: raw
                .limits
                .max_concurrent_key_checks
                .unwrap_or(defaults.max_concurrent_key_checks),
            failed_key_checks_burst: raw
                .limits
                .failed_key_checks_burst
                .unwrap_or(defaults.failed_key_checks_burst),
            failed_key_checks_per_minute: raw
                .limits
                .failed_key_checks_per_minute
                .unwrap_or(defaults.failed_key_checks_per_minute),
            max_sessions: raw.limits.max_sessions.unwrap_or(defaults.max_sessions),
            max_sessions_per_key: raw
                .limits
                .max_sessions_per_key
                .unwrap_or(defaults.max_sessions_per_key),
            session_idle_timeout: raw
                .limits
                .session_idle_timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(defaults.session_idle_timeout),
            upstream_start_timeout: raw
                .limits
                .upstream_start_timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(defaults.upstream_start_timeout),
        };
        if limits.max_body_bytes == 0
            || limits.call_timeout.is_zero()
            || limits.max_concurrent_calls_per_agent == 0
            || limits.max_concurrent_key_checks == 0
            || limits.failed_key_checks_burst == 0
            || limits.failed_key_checks_per_minute == 0
            || limits.max_sessions == 0
            || limits.max_sessions_per_key == 0
            || limits.session_idle_timeout.is_zero()
            || limits.upstream_start_timeout.is_zero()
        {
            return Err(ConfigError(format!(
                "`{shown}`: every value in `[limits]` must be greater than zero"
            )));
        }
        if limits.max_concurrent_key_checks > MAX_KEY_CHECKS {
            return Err(ConfigError(format!(
                "`{shown}`: `[limits] max_concurrent_key_checks` must be at most {MAX_KEY_CHECKS} (each is a thread holding about 19 MiB)"
            )));
        }
        let decisions = match raw.log.decisions.as_deref() {
            None | Some("stdout") | Some("-") => LogTarget::Stdout,
            Some("off") => LogTarget::Off,
            Some(file) => LogTarget::File(resolve(Path::new(file))),
        };
        let deny_unlogged = match raw.log.on_failure.as_deref() {
            None | Some("serve") => false,
            Some("deny") => true,
            Some(other) => {
                return Err(ConfigError(format!(
                    "`{shown}`: `[log] on_failure` must be `serve` or `deny`, not `{other}`"
                )))
            }
        };
        let mut upstreams = BTreeMap::new();
        for (name, up) in raw.upstream {
            let spec = match (up.command, up.url) {
                (Some(command), None) => {
                    if command.is_empty() || command[0].is_empty() {
                        return Err(ConfigError(format!(
                            "`{shown}`: `upstream.{name}.command` must name a program"
                        )));
                    }
                    for (key, set) in [
                        ("token_env", up.token_env.is_some()),
                        ("ca_file", up.ca_file.is_some()),
                    ] {
                        if set {
                            return Err(ConfigError(format!(
                                "`{shown}`: `upstream.{name}.{key}` applies only to a `url` upstream"
                            )));
                        }
                    }
                    UpstreamSpec::Stdio {
                        command,
                        env: up.env,
                    }
                }
                (None, Some(url)) => {
                    if !(url.starts_with("http://") || url.starts_with("https://")) {
                        return Err(ConfigError(format!(
                            "`{shown}`: `upstream.{name}.url` must start with `http://` or `https://`, not `{url}`"
                        )));
                    }
                    if up.ca_file.is_some() && !url.starts_with("https://") {
                        return Err(ConfigError(format!(
                            "`{shown}`: `upstream.{name}.ca_file` applies only to an `https://` url"
                        )));
                    }
                    UpstreamSpec::Http {
                        url,
                        token_env: up.token_env,
                        ca_file: up.ca_file.as_deref().map(resolve),
                    }
                }
                _ => {
                    return Err(ConfigError(format!(
                        "`{shown}`: `upstream.{name}` needs exactly one of `command` and `url`"
                    )))
                }
            };
            upstreams.insert(name, spec);
        }
        Ok(Config {
            path: path.to_path_buf(),
            policy: resolve(&raw.policy),
            keys: resolve(&raw.keys),
            listen,
            public_transport: raw.public_transport,
            allowed_hosts: raw.allowed_hosts.unwrap_or_default(),
            allowed_origins: raw.allowed_origins.unwrap_or_default(),
            other_methods,
            limits,
            decisions,
            args_cap_bytes: raw.log.args_cap_bytes.unwrap_or(4096),
            deny_unlogged,
            upstreams,
        })
    }

    /// Applies the non-loopback rule: a listener on any other address needs `--allow-remote`
    /// and a stated `public_transport` (plain HTTP must not leave the machine unprotected).
    ///
    /// # Errors
    ///
    /// A [`ConfigError`] saying what is missing.
    pub fn check_listen(&self, allow_remote: bool) -> Result<(), ConfigError> {
        if self.listen.ip().is_loopback() {
            return Ok(());
        }
        if !allow_remote {
            return Err(ConfigError(format!(
                "refusing to listen on non-loopback address `{}` without `--allow-remote`",
                self.listen
            )));
        }
        if self.public_transport.is_none() {
            return Err(ConfigError(format!(
                "refusing to listen on `{}`: state what terminates TLS in front of the gateway with `public_transport = \"reverse-proxy\"` or `\"tls-terminator\"`",
                self.listen
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("/etc/tg/gateway.toml"), text)
    }

    #[test]
    fn reads_a_full_config_and_resolves_paths() {
        let c = parse(
            r#"
policy = "git.policy"
keys = "/var/lib/tg/keys.json"
other_methods = "pass"
[limits]
call_timeout_ms = 500
[upstream.git]
command = ["mcp-server-git", "--repository", "/srv/repo"]
[upstream.search]
url = "http://127.0.0.1:9000/mcp"
token_env = "SEARCH_TOKEN"
"#,
        )
        .unwrap();
        assert_eq!(c.policy, Path::new("/etc/tg/git.policy"));
        assert_eq!(c.keys, Path::new("/var/lib/tg/keys.json"));
        assert_eq!(c.listen.to_string(), DEFAULT_LISTEN);
        assert_eq!(c.other_methods, OtherMethods::Pass);
        assert_eq!(c.limits.call_timeout, Duration::from_millis(500));
        assert_eq!(c.limits.max_body_bytes, 1 << 20);
        assert_eq!(c.limits.max_concurrent_key_checks, 2);
        assert_eq!(c.limits.session_idle_timeout, Duration::from_secs(300));
        let s = parse("policy = \"p\"\nkeys = \"k\"\n[limits]\nsession_idle_timeout_ms = 2500\nmax_sessions_per_key = 3\n").unwrap();
        assert_eq!(s.limits.session_idle_timeout, Duration::from_millis(2500));
        assert_eq!(s.limits.max_sessions_per_key, 3);
        assert_eq!(c.limits.upstream_start_timeout, Duration::from_secs(30));
        assert!(!c.deny_unlogged);
        let d = parse("policy = \"p\"\nkeys = \"k\"\n[log]\non_failure = \"deny\"\n").unwrap();
        assert!(d.deny_unlogged);
        assert!(parse("policy = \"p\"\nkeys = \"k\"\n[log]\non_failure = \"drop\"\n").is_err());
        let t = parse("policy = \"p\"\nkeys = \"k\"\n[limits]\nupstream_start_timeout_ms = 250\n")
            .unwrap();
        assert_eq!(t.limits.upstream_start_timeout, Duration::from_millis(250));
        let zero = parse("policy = \"p\"\nkeys = \"k\"\n[limits]\nfailed_key_checks_burst = 0\n");
        assert!(zero.unwrap_err().0.contains("greater than zero"));
        assert!(
            matches!(&c.upstreams["git"], UpstreamSpec::Stdio { command, .. } if command[0] == "mcp-server-git")
        );
        assert_eq!(
            c.upstreams["search"],
            UpstreamSpec::Http {
                url: "http://127.0.0.1:9000/mcp".into(),
                token_env: Some("SEARCH_TOKEN".into()),
                ca_file: None,
            }
        );
    }

    #[test]
    fn a_ca_file_is_resolved_and_only_for_https_urls() {
        let c = parse(
            "policy = \"p\"\nkeys = \"k\"\n[upstream.a]\nurl = \"https://h/mcp\"\nca_file = \"ca.pem\"\n",
        )
        .unwrap();
        assert!(matches!(
            &c.upstreams["a"],
            UpstreamSpec::Http { ca_file: Some(f), .. } if f == Path::new("/etc/tg/ca.pem")
        ));
        let plain = parse(
            "policy = \"p\"\nkeys = \"k\"\n[upstream.a]\nurl = \"http://h/mcp\"\nca_file = \"ca.pem\"\n",
        );
        assert!(plain.unwrap_err().0.contains("only to an `https://` url"));
        let stdio = parse(
            "policy = \"p\"\nkeys = \"k\"\n[upstream.a]\ncommand = [\"x\"]\nca_file = \"ca.pem\"\n",
        );
        assert!(stdio
            .unwrap_err()
            .0
            .contains("`upstream.a.ca_file` applies only"));
    }

    #[test]
    fn refuses_bad_upstreams_and_unknown_keys() {
        let both = parse(
            "policy = \"p\"\nkeys = \"k\"\n[upstream.a]\ncommand = [\"x\"]\nurl = \"http://h\"\n",
        );
        assert!(both
            .unwrap_err()
            .0
            .contains("exactly one of `command` and `url`"));
        let typo = parse("policy = \"p\"\nkeys = \"k\"\nlisten_addr = \"x\"\n");
        assert!(typo.unwrap_err().0.contains("listen_addr"));
        let token = parse(
            "policy = \"p\"\nkeys = \"k\"\n[upstream.a]\ncommand = [\"x\"]\ntoken_env = \"T\"\n",
        );
        assert!(token.unwrap_err().0.contains("token_env"));
    }

    #[test]
    fn non_loopback_needs_flag_and_stated_transport() {
        let c = parse("policy = \"p\"\nkeys = \"k\"\nlisten = \"0.0.0.0:8787\"\n").unwrap();
        assert!(c
            .check_listen(false)
            .unwrap_err()
            .0
            .contains("--allow-remote"));
        assert!(c
            .check_listen(true)
            .unwrap_err()
            .0
            .contains("public_transport"));
        let ok = parse("policy = \"p\"\nkeys = \"k\"\nlisten = \"0.0.0.0:8787\"\npublic_transport = \"reverse-proxy\"\n").unwrap();
        assert!(ok.check_listen(true).is_ok());
        let local = parse("policy = \"p\"\nkeys = \"k\"\nlisten = \"[::1]:9000\"\n").unwrap();
        assert!(local.check_listen(false).is_ok());
    }
}
