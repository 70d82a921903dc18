//! `toolgate::relative_glob_in_allow` (reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a plain glob (one that does not start with `/`) containing `/` or `**` in an
    /// `allow` condition: it looks like a path, but it is compared as written.
    ///
    /// ## Why is this bad?
    /// Only globs that start with `/` are path patterns, whose values are normalized first.
    /// `path matches "src/**"` admits `src/../../etc/passwd`, because a plain glob never
    /// resolves `..`.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent builder {
    ///   allow read_file where path matches "workspace/**"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent builder {
    ///   allow read_file where path matches "/home/ci/workspace/**"
    /// }
    /// ```
    pub static RELATIVE_GLOB_IN_ALLOW = {
        code: RELATIVE_GLOB_IN_ALLOW,
        stage: Resolve,
    }
}
