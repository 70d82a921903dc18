//! `toolgate::alternatives_hide_path` (reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a glob that starts with `{...}` alternatives one of which starts with `/`.
    ///
    /// ## Why is this bad?
    /// A glob is a path pattern only when its first character is `/`. `"{/srv,/tmp}/**"`
    /// starts with `{`, so it is a plain glob: values are not normalized, and
    /// `/srv/../etc/passwd` matches it.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "{/srv,/tmp}/**"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "/{srv,tmp}/**"
    /// }
    /// ```
    pub static ALTERNATIVES_HIDE_PATH = {
        code: ALTERNATIVES_HIDE_PATH,
        stage: Resolve,
    }
}
