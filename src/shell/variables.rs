//! Environment variables that name a program or load code: `GIT_PAGER='rm -rf /' git log` runs
//! `rm -rf /` as surely as `sh -c` does. A deny reads such an assignment's value (before a
//! command, in `env`/`sudo` words, in `export`/`declare`) as a script, or, when the value is
//! code in another form, finds the line unreadable.

/// What the value of a listed variable is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variable {
    /// A command line a program runs through a shell (pagers, editors, askpass helpers,
    /// `GIT_SSH_COMMAND`, `PROMPT_COMMAND`): read as a nested script.
    Command,
    /// Code in another form (a library to preload, a startup file, interpreter options, git
    /// configuration, an exported shell function): unreadable.
    Code,
}

/// Variables whose value is a command line.
const COMMAND: &[&str] = &[
    "PAGER",
    "GIT_PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "BAT_PAGER",
    "DELTA_PAGER",
    "PSQL_PAGER",
    "EDITOR",
    "VISUAL",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "SUDO_EDITOR",
    "FCEDIT",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "PROMPT_COMMAND",
    "BROWSER",
];

/// Variables whose value is code in another form.
const CODE: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "PS0",
    "PS1",
    "PS2",
    "PS3",
    "PS4",
    "SHELLOPTS",
    "BASHOPTS",
    "PERL5OPT",
    "PERL5DB",
    "RUBYOPT",
    "NODE_OPTIONS",
    "PYTHONSTARTUP",
    "LESSOPEN",
    "LESSCLOSE",
];

/// Name prefixes whose variables are code (`LD_PRELOAD`, `DYLD_INSERT_LIBRARIES`,
/// `GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_KEY_0`, `BASH_FUNC_ls%%`).
const CODE_PREFIXES: &[&str] = &["LD_", "DYLD_", "GIT_CONFIG", "BASH_FUNC_"];

/// What the variable `name` names, if it is one of the listed ones.
///
/// ```
/// use toolgate::shell::variables::{classify, Variable};
///
/// assert_eq!(classify("GIT_PAGER"), Some(Variable::Command));
/// assert_eq!(classify("LD_PRELOAD"), Some(Variable::Code));
/// assert_eq!(classify("LANG"), None);
/// ```
pub fn classify(name: &str) -> Option<Variable> {
    if COMMAND.contains(&name) {
        return Some(Variable::Command);
    }
    if CODE.contains(&name) || CODE_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return Some(Variable::Code);
    }
    None
}

/// The name and value of `NAME=VALUE` (or `NAME+=VALUE`) as a program receives it, if the
/// word has a `=` after at least one byte.
pub fn split_assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    (!name.is_empty()).then_some((name, value))
}
