//! `toolgate::invalid_shell_pattern` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a `matches shell "..."` pattern that cannot be parsed: an unclosed quote or
    /// class, a `...` that is not the last word, a flag set that is not `-{a,b}`, more words than
    /// a pattern may have.
    ///
    /// ## Why is this bad?
    /// The pattern has no meaning; guessing one could allow more than intended.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command)
    /// agent dev {
    ///   allow Bash where command matches shell "git 'log"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command)
    /// agent dev {
    ///   allow Bash where command matches shell "git log ..."
    /// }
    /// ```
    pub static INVALID_SHELL_PATTERN = {
        code: INVALID_SHELL_PATTERN,
        stage: Resolve,
    }
}
