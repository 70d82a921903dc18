//! `toolgate::invalid_glob` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a glob in a condition or a rule target that cannot be parsed, such as an
    /// unclosed class `"[abc"` or unclosed alternatives `"{a,b"`.
    ///
    /// ## Why is this bad?
    /// The pattern has no meaning; guessing one could allow more than intended.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "/srv/{a,b/**"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "/srv/{a,b}/**"
    /// }
    /// ```
    pub static INVALID_GLOB = {
        code: INVALID_GLOB,
        stage: Resolve,
    }
}
