//! `toolgate::target_matches_nothing` (reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// With a catalog, reports a rule target whose glob matches no declared server or no
    /// declared tool. (A *literal* name that is not declared is the error
    /// `toolgate::unknown_tool` or `toolgate::unknown_server`.)
    ///
    /// ## Why is this bad?
    /// The rule can never apply. It is usually a typo in the pattern (`gti.*`), or a rule left
    /// behind after a tool was renamed; a `deny` that matches nothing protects nothing.
    ///
    /// ## Example
    /// ```policy
    /// server git {
    ///   tool git_log(repo_path)
    /// }
    /// agent ci {
    ///   allow git.gti_*
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// server git {
    ///   tool git_log(repo_path)
    /// }
    /// agent ci {
    ///   allow git.git_*
    /// }
    /// ```
    pub static TARGET_MATCHES_NOTHING = {
        code: TARGET_MATCHES_NOTHING,
        stage: Resolve,
    }
}
