//! `toolgate::shell_glob_path` (reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a `matches shell` pattern in an `allow` whose argument word is a glob holding a
    /// `/` (`"cat /srv/*"`).
    ///
    /// ## Why is this bad?
    /// A shell pattern compares each argument as written: `*` matches any characters, `/` and
    /// `..` included, so `cat /srv/*` admits `cat /srv/../etc/passwd`. Arguments are not
    /// paths to the matcher; only a path pattern on a path argument normalizes.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command) needs proc:exec
    /// agent dev {
    ///   grant proc:exec
    ///   allow Bash where command matches shell "cat /srv/*"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command) needs proc:exec
    /// agent dev {
    ///   grant proc:exec
    ///   allow Bash where command matches shell "cat /srv/motd"
    /// }
    /// ```
    pub static SHELL_GLOB_PATH = {
        code: SHELL_GLOB_PATH,
        stage: Resolve,
    }
}
