//! `toolgate::path_not_normalizable` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a path pattern that cannot be put in normal form: a `..` that climbs above `/`
    /// (`"/../etc/**"`), a `..` after a segment that is not a plain name
    /// (`"/srv/**/../x"`, `"/srv/*/../x"`), or a `{...}` alternative that is itself not a normal path
    /// (`"/{a/../b,c}"`, `"/a/{,b}/c"`).
    ///
    /// ## Why is this bad?
    /// Values are matched only after their `..`, `.` and empty segments are resolved, so such
    /// a pattern could only match paths that never reach it: an `allow` written with it would
    /// allow nothing and a `deny` would never fire.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   deny read_file where path matches "/srv/**/../secrets"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   deny read_file where path matches "/srv/**/secrets"
    /// }
    /// ```
    pub static PATH_NOT_NORMALIZABLE = {
        code: PATH_NOT_NORMALIZABLE,
        stage: Resolve,
    }
}
