//! `toolgate::path_pattern_not_normal` (reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a path pattern (a glob starting with `/`) that is not written in normal form: it
    /// holds `//`, a `.` or `..` segment, or ends with `/`. It is matched in normal form
    /// (`"/home/*/.ssh/"` as `"/home/*/.ssh"`), and the warning says so.
    ///
    /// ## Why is this bad?
    /// Values are normalized before they are matched, so a pattern written another way reads
    /// differently from what it does. Without normalization such a pattern would never match,
    /// and a `deny` written with it would never fire; toolgate normalizes it, and asks that it be
    /// written the way it is matched.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   deny read_file where path matches "/home/*/.ssh/"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   deny read_file where path matches "/home/*/.ssh/**"
    /// }
    /// ```
    pub static PATH_PATTERN_NOT_NORMAL = {
        code: PATH_PATTERN_NOT_NORMAL,
        stage: Resolve,
    }
}
