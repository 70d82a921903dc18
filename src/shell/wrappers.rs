//! Programs that run other programs, in one table: how each one's inner command is found.
//!
//! A deny looks through every wrapper here (the wrapper's own command is matched too); an allow
//! matches a wrapper only when its pattern names it. The table is documented in docs/language.md, section 10a.

use std::sync::OnceLock;

use super::names::NameTable;
use super::parser::is_assignment;
use super::unreadable::Construct;
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
}

/// The option grammar of a [`How::Prefix`] wrapper.
#[derive(Clone, Copy, Debug)]
pub struct Prefix {
    /// Options that take a value (`-u USER`, `--user USER`; `-uUSER` and `--user=USER` too).
    pub value_opts: &'static [&'static str],
    /// Options whose value is a nested script (`su -c`, `env -S`).
    pub script_opts: &'static [&'static str],
    /// Operands before the command (`timeout DURATION`, `chroot NEWROOT`, `ssh HOST`).
    pub positional: usize,
    /// `NAME=VALUE` operands are skipped (`env`).
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
            value_opts: &["-u", "--unset", "-C", "--chdir", "-P"],
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
            ],
            ..P
        }),
    ),
    w(
        "doas",
        How::Prefix(Prefix {
            value_opts: &["-u", "-C"],
            ..P
        }),
    ),
    w(
        "pkexec",
        How::Prefix(Prefix {
            value_opts: &["--user"],
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
    w("setsid", How::Prefix(P)),
    w("unbuffer", How::Prefix(P)),
    w("busybox", How::Prefix(P)),
    w("toybox", How::Prefix(P)),
    w("builtin", How::Prefix(P)),
    w("command", How::Prefix(P)),
    w(
        "exec",
        How::Prefix(Prefix {
            value_opts: &["-a"],
            ..P
        }),
    ),
    w(
        "time",
        How::Prefix(Prefix {
            value_opts: &["-f", "--format", "-o", "--output"],
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
    w("unshare", How::Prefix(P)),
    w("setpriv", How::Prefix(P)),
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
    w("firejail", How::Prefix(P)),
    w("sh", How::Shell),
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
    WRAPPERS.get(index().get(base)?)
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
        How::Interpreter(code) => return interpreter(cmd, code),
        How::Awk => {
            let args = literal_args(cmd)?;
            if args.iter().any(|a| *a == "-f" || a.starts_with("--file")) {
                Ok(Vec::new())
            } else {
                Err(Construct::OpaqueProgram)
            }
        }
        How::FindExec => return find_exec(cmd, inner, spare),
        How::Eval => {
            let args = literal_args(cmd)?;
            Ok(vec![Runs::Script(args.join(" "))])
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

/// In a short-option group (`-iu`, `-uroot`, `-ec`), the first option of `opts` present and the
/// value attached after it (empty: the value is the next word).
fn short_group<'a>(word: &'a str, opts: &[&str]) -> Option<&'a str> {
    let group = word.strip_prefix('-').filter(|g| !g.starts_with('-'))?;
    for (i, ch) in group.char_indices() {
        let hit = opts
            .iter()
            .any(|o| o.len() == 2 && o.strip_prefix('-').is_some_and(|r| r.starts_with(ch)));
        if hit {
            return Some(group.get(i + ch.len_utf8()..).unwrap_or(""));
        }
    }
    None
}

fn prefix(
    cmd: CommandView<'_>,
    p: &Prefix,
    inner: &mut Vec<Runs>,
    spare: &mut Vec<Command>,
) -> Result<(), Construct> {
    let n = cmd.len();
    let before = inner.len();
    let mut positional = 0;
    let mut i = 1;
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
            i += 1;
            continue;
        }
        if a == "-" {
            i += 1;
            continue;
        }
        if p.assignments && is_assignment(a.as_bytes()) {
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
            inner.push(Runs::Words(i));
        }
        return Ok(());
    }
    if inner.len() == before && p.empty_is_opaque {
        return Err(Construct::OpaqueProgram);
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
        Some(_) => Ok(Vec::new()), // a script file: its content is not in the value
        None if script => Ok(Vec::new()),
        None => Err(Construct::OpaqueProgram),
    }
}

fn interpreter(cmd: CommandView<'_>, code: &[&str]) -> Result<(), Construct> {
    // One pass: a run-time word anywhere is reported before code that runs.
    let mut operand = false;
    let mut runs_code = false;
    for w in cmd.words().skip(1) {
        let Word::Literal(a) = w else {
            return Err(Construct::DynamicWrapper);
        };
        if runs_code {
            continue;
        }
        if !a.starts_with('-') {
            // Not an option: only a code word spelled without a dash (`deno eval`) runs code.
            runs_code = code.contains(&a);
            operand = true;
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
