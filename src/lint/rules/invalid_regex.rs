//! `toolgate::invalid_regex` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a regex that does not parse, uses look-around or backreferences, or nests
    /// deeper than 100 levels. The span points inside the literal, at the offending part.
    ///
    /// ## Why is this bad?
    /// toolgate's regexes run in linear time (no backtracking), so constructs that need
    /// backtracking are refused rather than made slow.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches re"^/srv/(?!secret)"
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file where path matches "/srv/**"
    ///   deny  read_file where path matches "/srv/secret/**"
    /// }
    /// ```
    pub static INVALID_REGEX = {
        code: INVALID_REGEX,
        stage: Resolve,
    }
}
