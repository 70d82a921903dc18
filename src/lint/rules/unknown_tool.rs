//! `toolgate::unknown_tool` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// With a catalog, reports a literal tool name in a rule target that is not declared (on
    /// the named server, if the target names one), with a did-you-mean.
    ///
    /// ## Why is this bad?
    /// The catalog is authoritative: a rule for a tool that does not exist can never apply.
    /// A misspelt `deny` silently protects nothing, so this is an error.
    ///
    /// ## Example
    /// ```policy
    /// server git {
    ///   tool git_log(repo_path)
    /// }
    /// agent ci {
    ///   allow git.git_lgo
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// server git {
    ///   tool git_log(repo_path)
    /// }
    /// agent ci {
    ///   allow git.git_log
    /// }
    /// ```
    pub static UNKNOWN_TOOL = {
        code: UNKNOWN_TOOL,
        stage: Resolve,
    }
}
