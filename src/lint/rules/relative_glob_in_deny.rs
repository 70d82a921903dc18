//! `toolgate::relative_glob_in_deny` (reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a plain glob (one that does not start with `/`) containing `/` or `**` in a
    /// `deny` condition: it looks like a path, but it is compared as written.
    ///
    /// ## Why is this bad?
    /// A plain glob matches the whole value, and `*` stops at `/`: `path matches "*/.ssh/*"`
    /// never matches `/home/bob/.ssh/id_rsa`, and nothing resolves `.` or `..` in the value, so
    /// the deny is far narrower than it reads.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   default allow
    ///   deny read_file where path matches "*/.ssh/*"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   default allow
    ///   deny read_file where path matches "/**/.ssh/**"
    /// }
    /// ```
    pub static RELATIVE_GLOB_IN_DENY = {
        code: RELATIVE_GLOB_IN_DENY,
        stage: Resolve,
    }
}
