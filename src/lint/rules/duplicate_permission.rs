//! `toolgate::duplicate_permission` (reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a permission listed twice in one tool's `needs`.
    ///
    /// ## Why is this bad?
    /// It changes nothing, and often hides a typo: the author meant another permission (say
    /// `fs:write` next to `fs:read`), which the tool now does not need.
    ///
    /// ## Example
    /// ```policy
    /// tool write_file(path, body) needs fs:read, fs:read
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool write_file(path, body) needs fs:read, fs:write
    /// ```
    pub static DUPLICATE_PERMISSION = {
        code: DUPLICATE_PERMISSION,
        stage: Resolve,
    }
}
