//! `toolgate::unknown_lint` (an error, reported while reading suppression comments)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a `# toolgate: allow(...)` comment that names a lint that does not exist (with
    /// a did-you-mean), names an error (errors cannot be silenced), or is not of the form
    /// `# toolgate: allow(NAME, ...)`.
    ///
    /// ## Why is this bad?
    /// A misspelt suppression silences nothing, and the reader believes a warning was
    /// reviewed and accepted.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command)
    /// agent builder {
    ///   # toolgate: allow(substring_alow)
    ///   allow Bash where command contains "npm test"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command)
    /// agent builder {
    ///   # toolgate: allow(substring_allow)
    ///   allow Bash where command contains "npm test"
    /// }
    /// ```
    pub static UNKNOWN_LINT = {
        code: UNKNOWN_LINT,
        stage: Suppression,
    }
}
