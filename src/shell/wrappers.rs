//! Programs that run other programs, in one table: how each one's inner command is found.
//!
//! A deny looks through every wrapper here (the wrapper's own command is matched too); an allow
//! matches a wrapper only when its pattern names it. The table is documented in docs/language.md, section 10a.

use std::sync::OnceLock;

use super::names::NameTable;
use super::stdin::names_a_stream;
use super::unreadable::Construct;
use super::variables::{classify, split_assignment, Variable};
use super::words::{Command, CommandView, Word, WordKind};

/// How a wrapper's inner command is found.
#[derive(Clone, Copy, Debug)]
pub enum How {
    /// `prog [options] [positional operands] COMMAND ARGS...`.
    Prefix(Prefix),
    /// A shell: `-c SCRIPT` is a nested script; no operand (or `-s`) reads commands from
    /// standard input, which the value does not show.
    Shell,
    /// An interpreter whose code options (`python -c`, `node -e`) run code that is not shell
    /// words; no operand also reads code from standard input.
    Interpreter(&'static [&'static str]),
    /// awk and friends: the program text is code that can run commands (`system()`), unless it
    /// comes from a file (`-f`).
    Awk,
    /// `find ... -exec COMMAND ... ;` (also `-execdir`, `-ok`, `-okdir`); `{}` is a run-time word.
    FindExec,
    /// The arguments joined by spaces are a nested script (`eval`).
    Eval,
    /// `git`: `-c name=value` and `--config-env` can define aliases and hooks that run commands.
    Git,
    /// `trap SCRIPT SIGNAL...`: the first operand is a script.
    Trap,
    /// `alias NAME=VALUE`: each value is a script.
    Alias,
    /// `source FILE` / `. FILE`: the file's content is not in the value, unless the file is
    /// standard input (unreadable).
    Source,
    /// `export`, `declare`, `typeset`, `readonly`, `local`: an assignment to a variable that
    /// names a program is read as [`Variable`] says.
    Declare,
}

/// The option grammar of a [`How::Prefix`] wrapper.
#[derive(Clone, Copy, Debug)]
pub struct Prefix {
    /// Options that take a value (`-u USER`, `--user USER`; `-uUSER` and `--user=USER` too).
    pub value_opts: &'static [&'static str],
    /// Options known to take no value. An option in none of the lists might take one: both
    /// readings (the next word a value, or the command) are looked through.
    pub flags: &'static [&'static str],
    /// Options that, with no command, start a shell reading standard input (`sudo -s`).
    pub shell_opts: &'static [&'static str],
    /// Every option is one word (`--name=value`): no option takes the next word as a value
    /// unless `value_opts` says so.
    pub attached_only: bool,
    /// Options whose value is a nested script (`su -c`, `env -S`).
    pub script_opts: &'static [&'static str],
    /// Operands before the command (`timeout DURATION`, `chroot NEWROOT`, `ssh HOST`).
    pub positional: usize,
    /// `NAME=VALUE` words (any word with a `=`) before the command set variables (`env`,
    /// `sudo`).
    pub assignments: bool,
    /// The command words are joined by spaces and run by a shell (`watch`, `ssh`).
    pub joined: bool,
    /// Run-time words are appended to the command (`xargs`).
    pub appends: bool,
    /// Options are recognised anywhere, and what follows the operands is not a command (`su`,
    /// `script`): only a script option runs something.
    pub script_only: bool,
    /// With no command, the program runs a shell on standard input.
    pub empty_is_opaque: bool,
}

const P: Prefix = Prefix {
    value_opts: &[],
    flags: &[],
    shell_opts: &[],
    attached_only: false,
    script_opts: &[],
    positional: 0,
    assignments: false,
    joined: false,
    appends: false,
    script_only: false,
    empty_is_opaque: false,
};

/// One wrapper program.
#[derive(Clone, Copy, Debug)]
pub struct Wrapper {
    /// The program name (the last path component of the command word).
    pub name: &'static str,
    /// How its inner command is found.
    pub how: How,
}

const fn w(name: &'static str, how: How) -> Wrapper {
    Wrapper { name, how }
}

const SHELL_VALUE_OPTS: &[&str] = &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"];

/// Every wrapper, by name.
pub static WRAPPERS: &[Wrapper] = &[
    w(
        "env",
        How::Prefix(Prefix {
            value_opts: &["-u", "--unset", "-C", "--chdir", "-P", "-a", "--argv0"],
            flags: &[
                "-i",
                "--ignore-environment",
                "-0",
                "--null",
                "-v",
                "--debug",
                "--block-signal",
                "--default-signal",
                "--ignore-signal",
                "--list-signal-handling",
                "--help",
                "--version",
            ],
            script_opts: &["-S", "--split-string"],
            assignments: true,
            ..P
        }),
    ),
    w(
        "sudo",
        How::Prefix(Prefix {
            value_opts: &[
                "-u",
                "--user",
                "-g",
                "--group",
                "-h",
                "--host",
                "-p",
                "--prompt",
                "-C",
                "--close-from",
                "-D",
                "--chdir",
                "-r",
                "--role",
                "-t",
                "--type",
                "-T",
                "--command-timeout",
                "-U",
                "--other-user",
                "-R",
                "--chroot",
                "-a",
                "--auth-type",
                "-c",
                "--login-class",
            ],
            flags: &[
                "-A",
                "--askpass",
                "-B",
                "--bell",
                "-b",
                "--background",
                "-E",
                "--preserve-env",
                "-e",
                "--edit",
                "-H",
                "--set-home",
                "-K",
                "--remove-timestamp",
                "-k",
                "--reset-timestamp",
                "-l",
                "--list",
                "-N",
                "--no-update",
                "-n",
                "--non-interactive",
                "-P",
                "--preserve-groups",
                "-S",
                "--stdin",
                "-V",
                "--version",
                "-v",
                "--validate",
                "-h",
                "--help",
            ],
            shell_opts: &["-s", "--shell", "-i", "--login"],
            assignments: true,
            ..P
        }),
    ),
    w(
        "doas",
        How::Prefix(Prefix {
            value_opts: &["-u", "-C", "-a"],
            flags: &["-n", "-L"],
            shell_opts: &["-s"],
            ..P
        }),
    ),
    w(
        "pkexec",
        How::Prefix(Prefix {
            value_opts: &["--user"],
            flags: &[
                "--disable-internal-agent",
                "--keep-cwd",
                "--version",
                "--help",
            ],
            empty_is_opaque: true,
            ..P
        }),
    ),
    w(
        "run0",
        How::Prefix(Prefix {
            value_opts: &[
                "-u",
                "--user",
                "-g",
                "--group",
                "-D",
                "--chdir",
                "--setenv",
                "--property",
                "--unit",
                "--description",
                "--slice",
                "--nice",
            ],
            empty_is_opaque: true,
            ..P
        }),
    ),
    w(
        "su",
        How::Prefix(Prefix {
            value_opts: &[
                "-s",
                "--shell",
                "-g",
                "--group",
                "-G",
                "--supp-group",
                "-w",
                "--whitelist-environment",
            ],
            script_opts: &["-c", "--command", "--session-command"],
            script_only: true,
            empty_is_opaque: true,
            ..P
        }),
    ),
    w(
        "runuser",
        How::Prefix(Prefix {
            value_opts: &[
                "-s",
                "--shell",
                "-g",
                "--group",
                "-G",
                "--supp-group",
                "-u",
                "--user",
                "-w",
                "--whitelist-environment",
            ],
            script_opts: &["-c", "--command", "--session-command"],
            script_only: true,
            empty_is_opaque: true,
            ..P
        }),
    ),
    w(
        "timeout",
        How::Prefix(Prefix {
            value_opts: &["-k", "--kill-after", "-s", "--signal"],
            flags: &["--preserve-status", "--foreground", "-v", "--verbose"],
            positional: 1,
            ..P
        }),
    ),
    w(
        "nice",
        How::Prefix(Prefix {
            value_opts: &["-n", "--adjustment"],
            ..P
        }),
    ),
    w("nohup", How::Prefix(P)),
    w(
        "setsid",
        How::Prefix(Prefix {
            flags: &["-c", "--ctty", "-f", "--fork", "-w", "--wait"],
            ..P
        }),
    ),
    w("unbuffer", How::Prefix(P)),
    w("busybox", How::Prefix(P)),
    w("toybox", How::Prefix(P)),
    w("builtin", How::Prefix(P)),
    w(
        "command",
        How::Prefix(Prefix {
            flags: &["-p", "-v", "-V"],
            ..P
        }),
    ),
    w(
        "exec",
        How::Prefix(Prefix {
            value_opts: &["-a"],
            flags: &["-c", "-l"],
            ..P
        }),
    ),
    w(
        "time",
        How::Prefix(Prefix {
            value_opts: &["-f", "--format", "-o", "--output"],
            flags: &[
                "-a",
                "--append",
                "-p",
                "--portability",
                "-q",
                "--quiet",
                "-v",
                "--verbose",
            ],
            ..P
        }),
    ),
    w(
        "stdbuf",
        How::Prefix(Prefix {
            value_opts: &["-i", "--input", "-o", "--output", "-e", "--error"],
            ..P
        }),
    ),
    w(
        "ionice",
        How::Prefix(Prefix {
            value_opts: &[
                "-c",
                "--class",
                "-n",
                "--classdata",
                "-p",
                "--pid",
                "-P",
                "--pgid",
                "-u",
                "--uid",
            ],
            ..P
        }),
    ),
    w("chrt", How::Prefix(Prefix { positional: 1, ..P })),
    w("taskset", How::Prefix(Prefix { positional: 1, ..P })),
    w(
        "chroot",
        How::Prefix(Prefix {
            value_opts: &["--userspec", "--groups"],
            positional: 1,
            empty_is_opaque: true,
            ..P
        }),
    ),
    w(
        "nsenter",
        How::Prefix(Prefix {
            value_opts: &["-t", "--target", "-S", "--setuid", "-G", "--setgid"],
            ..P
        }),
    ),
    w(
        "unshare",
        How::Prefix(Prefix {
            value_opts: &[
                "-R",
                "--root",
                "-w",
                "--wd",
                "-S",
                "--setuid",
                "-G",
                "--setgid",
                "--map-user",
                "--map-group",
                "--map-users",
                "--map-groups",
                "--propagation",
            ],
            ..P
        }),
    ),
    w(
        "setpriv",
        How::Prefix(Prefix {
            value_opts: &[
                "--reuid",
                "--regid",
                "--ruid",
                "--euid",
                "--rgid",
                "--egid",
                "--groups",
                "--inh-caps",
                "--ambient-caps",
                "--bounding-set",
                "--securebits",
                "--pdeathsig",
                "--selinux-label",
                "--apparmor-profile",
                "--landlock-access",
                "--landlock-rule",
                "--seccomp-filter",
            ],
            ..P
        }),
    ),
    w(
        "strace",
        How::Prefix(Prefix {
            value_opts: &[
                "-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-X", "-P",
            ],
            ..P
        }),
    ),
    w(
        "ltrace",
        How::Prefix(Prefix {
            value_opts: &[
                "-o", "-e", "-p", "-s", "-u", "-n", "-a", "-A", "-D", "-F", "-l", "-x", "-w",
            ],
            ..P
        }),
    ),
    w(
        "flock",
        How::Prefix(Prefix {
            value_opts: &["-w", "--timeout", "-E", "--conflict-exit-code"],
            script_opts: &["-c", "--command"],
            positional: 1,
            ..P
        }),
    ),
    w(
        "script",
        How::Prefix(Prefix {
            value_opts: &[
                "-E",
                "--echo",
                "-I",
                "--log-in",
                "-O",
                "--log-out",
                "-B",
                "--log-io",
                "-T",
                "--log-timing",
                "-m",
                "--logging-format",
            ],
            script_opts: &["-c", "--command"],
            script_only: true,
            empty_is_opaque: true,
            ..P
        }),
    ),
    w(
        "xargs",
        How::Prefix(Prefix {
            value_opts: &[
                "-a",
                "--arg-file",
                "-d",
                "--delimiter",
                "-E",
                "-I",
                "-L",
                "--max-lines",
                "-n",
                "--max-args",
                "-P",
                "--max-procs",
                "-s",
                "--max-chars",
                "--process-slot-var",
            ],
            appends: true,
            ..P
        }),
    ),
    w(
        "watch",
        How::Prefix(Prefix {
            value_opts: &["-n", "--interval", "-q", "--equexit"],
            joined: true,
            ..P
        }),
    ),
    w(
        "ssh",
        How::Prefix(Prefix {
            value_opts: &[
                "-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O",
                "-o", "-p", "-Q", "-R", "-S", "-W", "-w",
            ],
            positional: 1,
            joined: true,
            empty_is_opaque: true,
            ..P
        }),
    ),
    w(
        "systemd-run",
        How::Prefix(Prefix {
            value_opts: &[
                "-p",
                "--property",
                "-u",
                "--unit",
                "-E",
                "--setenv",
                "--description",
                "--slice",
                "-M",
                "--machine",
                "-H",
                "--host",
                "--uid",
                "--gid",
                "--nice",
                "--working-directory",
                "--on-calendar",
                "--on-active",
            ],
            ..P
        }),
    ),
    w(
        "proxychains",
        How::Prefix(Prefix {
            value_opts: &["-f"],
            ..P
        }),
    ),
    w(
        "proxychains4",
        How::Prefix(Prefix {
            value_opts: &["-f"],
            ..P
        }),
    ),
    w(
        "torsocks",
        How::Prefix(Prefix {
            value_opts: &["-u", "-p", "-a", "-P"],
            ..P
        }),
    ),
    w(
        "firejail",
        How::Prefix(Prefix {
            attached_only: true,
            ..P
        }),
    ),
    w("sh", How::Shell),
    w("rbash", How::Shell),
    w("csh", How::Shell),
    w("tcsh", How::Shell),
    w("rksh", How::Shell),
    w("pdksh", How::Shell),
    w("oksh", How::Shell),
    w("lksh", How::Shell),
    w("bash", How::Shell),
    w("dash", How::Shell),
    w("zsh", How::Shell),
    w("ksh", How::Shell),
    w("mksh", How::Shell),
    w("ash", How::Shell),
    w("yash", How::Shell),
    w("posh", How::Shell),
    w("fish", How::Shell),
    w("eval", How::Eval),
    w("find", How::FindExec),
    w("git", How::Git),
    w("trap", How::Trap),
    w("alias", How::Alias),
    w("source", How::Source),
    w(".", How::Source),
    w("export", How::Declare),
    w("declare", How::Declare),
    w("typeset", How::Declare),
    w("readonly", How::Declare),
    w("local", How::Declare),
    w("python", How::Interpreter(&["-c"])),
    w("python2", How::Interpreter(&["-c"])),
    w("python3", How::Interpreter(&["-c"])),
    w("pypy", How::Interpreter(&["-c"])),
    w("pypy3", How::Interpreter(&["-c"])),
    w("node", How::Interpreter(&["-e", "--eval", "-p", "--print"])),
    w(
        "nodejs",
        How::Interpreter(&["-e", "--eval", "-p", "--print"]),
    ),
    w("bun", How::Interpreter(&["-e", "--eval", "-p", "--print"])),
    w("deno", How::Interpreter(&["eval"])),
    w("perl", How::Interpreter(&["-e", "-E"])),
    w("ruby", How::Interpreter(&["-e"])),
    w("php", How::Interpreter(&["-r"])),
    w("lua", How::Interpreter(&["-e"])),
    w("luajit", How::Interpreter(&["-e"])),
    w("jruby", How::Interpreter(&["-e"])),
    w(
        "julia",
        How::Interpreter(&["-e", "--eval", "-E", "--print"]),
    ),
    w("guile", How::Interpreter(&["-c"])),
    w("racket", How::Interpreter(&["-e", "--eval"])),
    w("elixir", How::Interpreter(&["-e", "--eval"])),
    w("groovy", How::Interpreter(&["-e"])),
    w("expect", How::Interpreter(&["-c"])),
    w("tclsh", How::Interpreter(&[])),
    w("wish", How::Interpreter(&[])),
    w("R", How::Interpreter(&["-e"])),
    w("gjs", How::Interpreter(&["-c", "--command"])),
    w("qjs", How::Interpreter(&["-e", "--eval"])),
    w(
        "ts-node",
        How::Interpreter(&["-e", "--eval", "-p", "--print"]),
    ),
    w("tsx", How::Interpreter(&["-e", "--eval", "-p", "--print"])),
    w("Rscript", How::Interpreter(&["-e"])),
    w("osascript", How::Interpreter(&["-e"])),
    w(
        "pwsh",
        How::Interpreter(&["-c", "-Command", "-EncodedCommand", "-e", "-ec"]),
    ),
    w(
        "powershell",
        How::Interpreter(&["-c", "-Command", "-EncodedCommand", "-e", "-ec"]),
    ),
    w("awk", How::Awk),
    w("gawk", How::Awk),
    w("mawk", How::Awk),
    w("nawk", How::Awk),
];

/// The wrapper named `program` (compared by its last path component), if any.
#[inline]
pub fn find(program: &str) -> Option<&'static Wrapper> {
    find_base(basename(program))
}

/// The wrapper named `base` (a last path component), if any.
#[inline]
pub fn find_base(base: &str) -> Option<&'static Wrapper> {
    if let Some(i) = index().get(base) {
        return WRAPPERS.get(i);
    }
    family(base)
}

/// A shell or interpreter named with its version (`python3.12`, `perl5.36.0`, `ksh93`): the
/// entry of its family.
#[cold]
pub(crate) fn family(base: &str) -> Option<&'static Wrapper> {
    if !base.as_bytes().last().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let family = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if family.is_empty() {
        return None;
    }
    let w = WRAPPERS.get(index().get(family)?)?;
    matches!(w.how, How::Shell | How::Interpreter(_) | How::Awk).then_some(w)
}

/// The wrappers' names, indexed as in [`WRAPPERS`].
fn index() -> &'static NameTable {
    static BY_NAME: OnceLock<NameTable> = OnceLock::new();
    BY_NAME.get_or_init(|| {
        let mut names = NameTable::default();
        for w in WRAPPERS {
            names.insert(w.name);
        }
        names
    })
}

/// The last path component of a command word (`/bin/rm` -> `rm`).
#[inline]
pub fn basename(program: &str) -> &str {
    let bytes = program.as_bytes();
    // Most programs are named without a path: said with a few word-sized loads.
    if !has_slash(bytes) {
        return program;
    }
    match bytes.iter().rposition(|&b| b == b'/') {
        Some(i) => program.get(i + 1..).unwrap_or(program),
        None => program,
    }
}

/// Whether `bytes` holds a `/`, looked for eight (or four) bytes at a time.
#[inline]
fn has_slash(bytes: &[u8]) -> bool {
    /// Whether some byte of `x` is `/` (a zero byte of `x ^ "////////"`).
    fn in_u64(x: u64) -> bool {
        let v = x ^ u64::from_ne_bytes([b'/'; 8]);
        v.wrapping_sub(0x0101_0101_0101_0101) & !v & 0x8080_8080_8080_8080 != 0
    }
    fn in_u32(x: u32) -> bool {
        let v = x ^ u32::from_ne_bytes([b'/'; 4]);
        v.wrapping_sub(0x0101_0101) & !v & 0x8080_8080 != 0
    }
    fn u64_at(bytes: &[u8], at: usize) -> u64 {
        bytes
            .get(at..at + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, u64::from_ne_bytes)
    }
    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        bytes
            .get(at..at + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map_or(0, u32::from_ne_bytes)
    }
    let n = bytes.len();
    if n >= 8 {
        // Whole eight-byte words, then the last eight bytes (overlapping).
        let mut at = 0;
        while at + 8 <= n {
            if in_u64(u64_at(bytes, at)) {
                return true;
            }
            at += 8;
        }
        return in_u64(u64_at(bytes, n - 8));
    }
    if n >= 4 {
        return in_u32(u32_at(bytes, 0)) || in_u32(u32_at(bytes, n - 4));
    }
    bytes.contains(&b'/')
}

/// What a wrapper runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inner {
    /// A command given as words.
    Command(Command),
    /// A script given as text (read again as a command line).
    Script(String),
}

/// What a wrapper runs, as the generous reading records it: an inner command given as the
/// wrapper's own words is a view of them, not a copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Runs {
    /// The words of the wrapper's command from this index on.
    Words(usize),
    /// A command made from the wrapper's words (`find -exec`, `xargs`).
    Command(Command),
    /// A script given as text.
    Script(String),
}

/// The commands `cmd` runs, if its program is a wrapper; an error when the inner command
/// cannot be located or is not shell words.
pub fn look_through(cmd: &Command) -> Result<Vec<Inner>, Construct> {
    let mut runs = Vec::new();
    look_through_into(cmd.view(), &mut runs, &mut Vec::new())?;
    Ok(runs
        .into_iter()
        .map(|r| match r {
            Runs::Words(i) => Inner::Command(cmd.view().tail(i).to_command()),
            Runs::Command(c) => Inner::Command(c),
            Runs::Script(s) => Inner::Script(s),
        })
        .collect())
}

/// [`look_through`] for a view, appending to `inner`; a command made from the wrapper's words
/// takes its buffers from `spare` (cleared commands) when it has one.
pub(crate) fn look_through_into(
    cmd: CommandView<'_>,
    inner: &mut Vec<Runs>,
    spare: &mut Vec<Command>,
) -> Result<(), Construct> {
    let Some(Word::Literal(program)) = cmd.get(0) else {
        return Ok(());
    };
    let Some(wrapper) = find(program) else {
        return Ok(());
    };
    runs_of(wrapper, cmd, inner, spare)
}

/// [`look_through_into`] for a command whose program is known to be `wrapper`.
pub(crate) fn runs_of(
    wrapper: &Wrapper,
    cmd: CommandView<'_>,
    inner: &mut Vec<Runs>,
    spare: &mut Vec<Command>,
) -> Result<(), Construct> {
    let found = match &wrapper.how {
        How::Prefix(p) => return prefix(cmd, p, inner, spare),
        How::Shell => shell(cmd),
        How::Interpreter(code) => return interpreter(cmd, code, module_opts(wrapper.name)),
        How::Awk => awk(cmd),
        How::FindExec => return find_exec(cmd, inner, spare),
        How::Eval => {
            let args = literal_args(cmd)?;
            // `--` ends eval's (absent) options.
            let skip = args.iter().take_while(|a| **a == "--").count();
            Ok(vec![Runs::Script(
                args.get(skip..).unwrap_or(&[]).join(" "),
            )])
        }
        How::Source => source(cmd),
        How::Declare => {
            for w in cmd.words().skip(1) {
                // A run-time word cannot be told apart from any other: see the reference.
                if let Word::Literal(a) = w {
                    if !a.starts_with('-') && !a.starts_with('+') {
                        assignment(a, inner)?;
                    }
                }
            }
            Ok(Vec::new())
        }
        How::Git => {
            // Only the global options before the subcommand matter.
            let mut value_next = false;
            for w in cmd.words().skip(1) {
                let a = w.literal().ok_or(Construct::DynamicWrapper)?;
                if std::mem::take(&mut value_next) {
                    continue;
                }
                if matches!(
                    a,
                    "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix"
                ) {
                    value_next = true;
                    continue;
                }
                if a.starts_with("--config-env") || (a.starts_with("-c") && !a.starts_with("--")) {
                    return Err(Construct::OpaqueProgram);
                }
                if !a.starts_with('-') {
                    break; // the subcommand (or the value of `-C`: harmless either way)
                }
            }
            Ok(Vec::new())
        }
        How::Trap => {
            let args = literal_args(cmd)?;
            let first = args.iter().find(|a| !a.starts_with('-'));
            Ok(first
                .map(|s| vec![Runs::Script((*s).to_string())])
                .unwrap_or_default())
        }
        How::Alias => {
            let args = literal_args(cmd)?;
            Ok(args
                .iter()
                .filter_map(|a| a.split_once('='))
                .map(|(_, v)| Runs::Script(v.to_string()))
                .collect())
        }
    };
    inner.extend(found?);
    Ok(())
}

/// The words after the program, which must all be known.
fn literal_args(cmd: CommandView<'_>) -> Result<Vec<&str>, Construct> {
    cmd.words()
        .skip(1)
        .map(|w| w.literal().ok_or(Construct::DynamicWrapper))
        .collect()
}

/// Whether `word` is the option `opt` (`-u`, `--user`), returning an attached value if any
/// (`-uroot`, `--user=root`).
fn option_value<'a>(word: &'a str, opt: &str) -> Option<Option<&'a str>> {
    if word == opt {
        return Some(None);
    }
    if let Some(long) = opt.strip_prefix("--") {
        let rest = word.strip_prefix("--")?.strip_prefix(long)?;
        return rest.strip_prefix('=').map(Some);
    }
    None
}

/// Whether `opts` holds the one-letter option `-c`.
fn has_letter(opts: &[&str], c: char) -> bool {
    opts.iter()
        .any(|o| o.len() == 2 && o.strip_prefix('-').is_some_and(|r| r.starts_with(c)))
}

/// In a short-option group (`-iu`, `-uroot`, `-ec`), the first option of `opts` present and the
/// value attached after it (empty: the value is the next word).
fn short_group<'a>(word: &'a str, opts: &[&str]) -> Option<&'a str> {
    let group = word.strip_prefix('-').filter(|g| !g.starts_with('-'))?;
    for (i, ch) in group.char_indices() {
        if has_letter(opts, ch) {
            return Some(group.get(i + ch.len_utf8()..).unwrap_or(""));
        }
    }
    None
}

/// Most readings of one wrapper's words: each option the table does not know adds one (the
/// option may take the next word as its value); past this the inner command is not located.
const MAX_READINGS: usize = 8;

/// Readings of a wrapper's words still to look through: where each starts and how many
/// positional operands it has read.
struct Readings {
    pending: [(usize, usize); MAX_READINGS],
    len: usize,
    made: usize,
}

impl Readings {
    fn push(&mut self, from: usize, positional: usize) -> Result<(), Construct> {
        self.made += 1;
        match self.pending.get_mut(self.len) {
            Some(slot) if self.made <= MAX_READINGS => {
                *slot = (from, positional);
                self.len += 1;
                Ok(())
            }
            _ => Err(Construct::DynamicWrapper),
        }
    }

    fn pop(&mut self) -> Option<(usize, usize)> {
        self.len = self.len.checked_sub(1)?;
        self.pending.get(self.len).copied()
    }
}

fn prefix(
    cmd: CommandView<'_>,
    p: &Prefix,
    inner: &mut Vec<Runs>,
    spare: &mut Vec<Command>,
) -> Result<(), Construct> {
    let before = inner.len();
    let mut readings = Readings {
        pending: [(0, 0); MAX_READINGS],
        len: 0,
        made: 0,
    };
    readings.push(1, 0)?;
    let mut shell = false;
    while let Some((from, positional)) = readings.pop() {
        prefix_reading(
            cmd,
            p,
            from,
            positional,
            before,
            inner,
            spare,
            &mut readings,
            &mut shell,
        )?;
    }
    if inner.len() == before && (p.empty_is_opaque || shell) {
        return Err(Construct::OpaqueProgram);
    }
    Ok(())
}

/// One reading of a [`How::Prefix`] wrapper's words from word `i`, `positional` operands read.
#[allow(
    clippy::too_many_arguments,
    reason = "the state of one reading, passed down once"
)]
fn prefix_reading(
    cmd: CommandView<'_>,
    p: &Prefix,
    mut i: usize,
    mut positional: usize,
    before: usize,
    inner: &mut Vec<Runs>,
    spare: &mut Vec<Command>,
    readings: &mut Readings,
    shell: &mut bool,
) -> Result<(), Construct> {
    let n = cmd.len();
    let mut options_done = false;
    while i < n {
        let Some(word) = cmd.get(i) else { break };
        let Word::Literal(a) = word else {
            return Err(Construct::DynamicWrapper);
        };
        if !options_done
            && (a.starts_with('-') || (a.starts_with('+') && a.len() > 1))
            && a.len() > 1
        {
            if a == "--" {
                options_done = true;
                i += 1;
                continue;
            }
            *shell |= names_shell_opt(a, p);
            // A script option (value attached or next).
            if let Some(script) = find_opt(cmd, i, a, p.script_opts)? {
                inner.push(Runs::Script(script.0));
                i = script.1;
                continue;
            }
            if let Some((_, next)) = find_opt(cmd, i, a, p.value_opts)? {
                i = next;
                continue;
            }
            if !p.attached_only && !p.script_only && !known_flag(a, p) {
                // Perhaps an option with a value: the command may start after that value.
                readings.push(i + 2, positional)?;
            }
            i += 1;
            continue;
        }
        if a == "-" {
            i += 1;
            continue;
        }
        if p.assignments && !options_done && split_assignment(a).is_some() {
            assignment(a, inner)?;
            i += 1;
            continue;
        }
        if positional < p.positional {
            positional += 1;
            i += 1;
            // `flock FILE -c CMD`: a script option may follow the operands.
            if let (false, Some(Word::Literal(next))) = (p.script_opts.is_empty(), cmd.get(i)) {
                if let Some(script) = find_opt(cmd, i, next, p.script_opts)? {
                    inner.push(Runs::Script(script.0));
                    return Ok(());
                }
            }
            continue;
        }
        if p.script_only {
            // Operands (a user name, a log file) and shell arguments; options may follow.
            i += 1;
            continue;
        }
        // The command starts here.
        if p.joined {
            let mut script = String::new();
            for (k, w) in cmd.words().skip(i).enumerate() {
                let w = w.literal().ok_or(Construct::DynamicWrapper)?;
                if k > 0 {
                    script.push(' ');
                }
                script.push_str(w);
            }
            inner.push(Runs::Script(script));
        } else if p.appends {
            let mut c = spare.pop().unwrap_or_default();
            c.clear();
            cmd.command()
                .copy_tail(cmd.start().saturating_add(i), &mut c);
            c.push("", WordKind::UnknownFields);
            inner.push(Runs::Command(c));
        } else {
            let seen = inner
                .get(before..)
                .is_some_and(|r| r.iter().any(|r| matches!(r, Runs::Words(k) if *k == i)));
            if !seen {
                inner.push(Runs::Words(i));
            }
        }
        return Ok(());
    }
    Ok(())
}

/// Whether the option word `a` includes one of `p`'s shell options (`-s`, `-iu root`,
/// `--login`); in a short group, letters after one that takes a value are that value.
fn names_shell_opt(a: &str, p: &Prefix) -> bool {
    if p.shell_opts.is_empty() {
        return false;
    }
    if a.starts_with("--") {
        let name = a.split_once('=').map_or(a, |(n, _)| n);
        return p.shell_opts.contains(&name);
    }
    for c in a.chars().skip(1) {
        if has_letter(p.shell_opts, c) {
            return true;
        }
        if has_letter(p.value_opts, c) || has_letter(p.script_opts, c) {
            return false;
        }
    }
    false
}

/// Whether the option word `a` is known to take no separate value: a listed flag (or shell
/// option), a short group of such letters or digits (`-Ei`, `nice -10`), a long option with
/// its value attached (`--name=value`), or a `+` option.
fn known_flag(a: &str, p: &Prefix) -> bool {
    if a.starts_with('+') {
        return true;
    }
    if let Some(long) = a.strip_prefix("--") {
        if long.contains('=') {
            return true;
        }
        return p.flags.contains(&a) || p.shell_opts.contains(&a);
    }
    a.chars()
        .skip(1)
        .all(|c| c.is_ascii_digit() || has_letter(p.flags, c) || has_letter(p.shell_opts, c))
}

/// A `NAME=VALUE` word given to a program (`env`, `sudo`, `export`): a variable that names a
/// program runs its value as a script; one that loads code makes the value unreadable.
fn assignment(a: &str, inner: &mut Vec<Runs>) -> Result<(), Construct> {
    let Some((name, value)) = split_assignment(a) else {
        return Ok(());
    };
    match classify(name) {
        Some(Variable::Command) => inner.push(Runs::Script(value.to_string())),
        Some(Variable::Code) => return Err(Construct::ProgramVariable),
        None => {}
    }
    Ok(())
}

/// If word `i` (`a`) is one of `opts`, its value (attached or the next word) and the index
/// after it. A missing or run-time value is an error.
fn find_opt(
    cmd: CommandView<'_>,
    i: usize,
    a: &str,
    opts: &[&str],
) -> Result<Option<(String, usize)>, Construct> {
    let mut attached = None;
    let mut hit = false;
    for o in opts {
        if let Some(v) = option_value(a, o) {
            attached = v;
            hit = true;
            break;
        }
    }
    if !hit {
        if let Some(rest) = short_group(a, opts) {
            hit = true;
            attached = (!rest.is_empty()).then_some(rest);
        }
    }
    if !hit {
        return Ok(None);
    }
    if let Some(v) = attached {
        return Ok(Some((v.to_string(), i + 1)));
    }
    match cmd.get(i + 1) {
        Some(Word::Literal(v)) => Ok(Some((v.to_string(), i + 2))),
        Some(Word::Unknown { .. }) => Err(Construct::DynamicWrapper),
        None => Ok(Some((String::new(), i + 1))),
    }
}

fn shell(cmd: CommandView<'_>) -> Result<Vec<Runs>, Construct> {
    let args = literal_args(cmd)?;
    let mut script = false;
    let mut stdin = false;
    let mut i = 0;
    while i < args.len() {
        let Some(&a) = args.get(i) else { break };
        if a == "--" {
            i += 1;
            break;
        }
        if a == "--version" || a == "--help" {
            return Ok(Vec::new());
        }
        if SHELL_VALUE_OPTS.contains(&a) {
            i += 2;
            continue;
        }
        if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
            if !a.starts_with("--") {
                script |= a.contains('c');
                stdin |= a.contains('s');
            } else if a == "--command" {
                script = true;
            }
            i += 1;
            continue;
        }
        break;
    }
    match args.get(i) {
        Some(s) if script => Ok(vec![Runs::Script((*s).to_string())]),
        Some(_) if stdin => Err(Construct::OpaqueProgram),
        // A script file: its content is not in the value; standard input by a file name is
        // what the value does not show.
        Some(file) if names_a_stream(file) => Err(Construct::OpaqueProgram),
        Some(_) => Ok(Vec::new()),
        None if script => Ok(Vec::new()),
        None => Err(Construct::OpaqueProgram),
    }
}

/// Options of an interpreter that load a module by name: a value that is not a plain module
/// name is code (`perl '-MPOSIX;system(...)'`, `node --import=data:...`).
fn module_opts(interpreter: &str) -> &'static [&'static str] {
    match interpreter {
        "perl" => &["-M", "-m"],
        "node" | "nodejs" | "bun" | "ts-node" | "tsx" => &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--experimental-loader",
        ],
        "ruby" | "jruby" => &["-r"],
        _ => &[],
    }
}

/// If the option word `a` is the module option `opt`: its attached value, if any.
fn module_value<'a>(a: &'a str, opt: &str) -> Option<Option<&'a str>> {
    if let Some(v) = option_value(a, opt) {
        return Some(v);
    }
    if opt.len() == 2 && !a.starts_with("--") {
        return a.strip_prefix(opt).map(Some);
    }
    None
}

/// Whether `v` is a module name, with at most a plain import list (`Data::Dumper=Dumper`,
/// `ts-node/register`, `./hooks.mjs`, `@scope/pkg`).
fn plain_module(v: &str) -> bool {
    !v.is_empty()
        && !v.contains("data:")
        && v.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(b, b'_' | b':' | b'.' | b'/' | b'@' | b'-' | b'=' | b',')
        })
}

fn interpreter(cmd: CommandView<'_>, code: &[&str], modules: &[&str]) -> Result<(), Construct> {
    // One pass: a run-time word anywhere is reported before code that runs.
    let mut operand = false;
    let mut runs_code = false;
    let mut module_next = false;
    for w in cmd.words().skip(1) {
        let Word::Literal(a) = w else {
            return Err(Construct::DynamicWrapper);
        };
        if runs_code {
            continue;
        }
        if std::mem::take(&mut module_next) {
            runs_code = !plain_module(a);
            continue;
        }
        if !a.starts_with('-') {
            // Not an option: only a code word spelled without a dash (`deno eval`) runs code,
            // and a script read from standard input by a file name (`python3 /dev/stdin`).
            runs_code = code.contains(&a) || (!operand && names_a_stream(a));
            operand = true;
            continue;
        }
        if let Some(m) = modules.iter().find_map(|o| module_value(a, o)) {
            match m {
                Some(v) => runs_code = !plain_module(v),
                None => module_next = true,
            }
            continue;
        }
        // (`option_value` also says whether the word is the option itself.)
        runs_code = a == "-"
            || code.iter().any(|c| option_value(a, c).is_some())
            || short_group(a, code).is_some();
    }
    if runs_code || !operand {
        return Err(Construct::OpaqueProgram);
    }
    Ok(())
}

/// awk and friends: the program is code (it can call `system()`) unless it comes from a file
/// (`-f FILE`, `--file`, gawk's `-E`/`--exec`); gawk's `-e`/`--source` add code to it; a
/// program or library file that is standard input (`-f -`, `-f /dev/stdin`) is not shown.
fn awk(cmd: CommandView<'_>) -> Result<Vec<Runs>, Construct> {
    let args = literal_args(cmd)?;
    let mut from_file = false;
    let mut i = 0;
    while let Some(&a) = args.get(i) {
        if a == "-" || !a.starts_with('-') {
            break;
        }
        i += 1;
        if a == "--" {
            break;
        }
        let (opt, attached) = match a.strip_prefix("--") {
            Some(long) => match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            },
            None => match (a.get(1..2), a.get(2..)) {
                (Some(o), rest) => (o, rest.filter(|r| !r.is_empty())),
                (None, _) => continue, // a non-ASCII option letter: a flag
            },
        };
        let takes_file = matches!(opt, "f" | "file" | "E" | "exec");
        let takes_library = matches!(opt, "i" | "include");
        let takes_value = matches!(
            opt,
            "v" | "assign" | "F" | "field-separator" | "l" | "load" | "W"
        );
        if matches!(opt, "e" | "source") {
            return Err(Construct::OpaqueProgram);
        }
        if takes_file || takes_library || takes_value {
            let value = match attached {
                Some(v) => Some(v),
                None => {
                    i += 1;
                    args.get(i - 1).copied()
                }
            };
            if (takes_file || takes_library) && value.is_some_and(names_a_stream) {
                return Err(Construct::OpaqueProgram);
            }
            from_file |= takes_file;
        }
    }
    if from_file {
        Ok(Vec::new())
    } else {
        Err(Construct::OpaqueProgram)
    }
}

/// `source FILE` / `. FILE`: not looked into, unless it is standard input or known only at
/// run time (`source <(curl ...)`).
fn source(cmd: CommandView<'_>) -> Result<Vec<Runs>, Construct> {
    let mut words = cmd.words().skip(1);
    let mut file = words.next();
    if file == Some(Word::Literal("--")) {
        file = words.next();
    }
    match file {
        Some(Word::Literal(f)) if names_a_stream(f) => Err(Construct::OpaqueProgram),
        Some(Word::Unknown { .. }) => Err(Construct::DynamicWrapper),
        _ => Ok(Vec::new()),
    }
}

fn find_exec(
    cmd: CommandView<'_>,
    out: &mut Vec<Runs>,
    spare: &mut Vec<Command>,
) -> Result<(), Construct> {
    let n = cmd.len();
    let mut i = 1;
    while i < n {
        match cmd.get(i) {
            Some(Word::Literal("-exec" | "-execdir" | "-ok" | "-okdir")) => {
                let mut c = spare.pop().unwrap_or_default();
                c.clear();
                i += 1;
                while i < n {
                    match cmd.get(i) {
                        Some(Word::Literal(";" | "+")) => break,
                        Some(Word::Literal(s)) if s.contains("{}") => c.push("", WordKind::Unknown),
                        Some(_) => cmd.copy_word(i, &mut c),
                        None => break,
                    }
                    i += 1;
                }
                if c.is_empty() {
                    spare.push(c);
                } else {
                    out.push(Runs::Command(c));
                }
            }
            Some(Word::Unknown { .. }) => return Err(Construct::DynamicWrapper),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}
