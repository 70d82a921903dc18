//! `toolgate::unknown_server` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// With a catalog, reports a literal server name in a rule target that is not declared,
    /// with a did-you-mean.
    ///
    /// ## Why is this bad?
    /// The rule can never apply; a misspelt server in a `deny` protects nothing.
    ///
    /// ## Example
    /// ```policy
    /// server git {
    ///   tool git_log(repo_path)
    /// }
    /// agent ci {
    ///   allow gti.git_log
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
    pub static UNKNOWN_SERVER = {
        code: UNKNOWN_SERVER,
        stage: Resolve,
    }
}
