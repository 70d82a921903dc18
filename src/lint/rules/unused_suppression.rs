//! `toolgate::unused_suppression` (reported while reading suppression comments)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a lint named in a `# toolgate: allow(...)` comment that `check` does not
    /// report on the statement after the comment.
    ///
    /// ## Why is this bad?
    /// The suppression is stale (the rule was fixed) or misplaced (it sits before another
    /// statement), and it would silently hide a real finding if the statement changed later.
    ///
    /// ## Example
    /// ```policy
    /// tool Bash(command)
    /// agent builder {
    ///   # toolgate: allow(substring_allow)
    ///   allow Bash where command == "npm test"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool Bash(command)
    /// agent builder {
    ///   allow Bash where command == "npm test"
    /// }
    /// ```
    pub static UNUSED_SUPPRESSION = {
        code: UNUSED_SUPPRESSION,
        stage: Suppression,
    }
}
