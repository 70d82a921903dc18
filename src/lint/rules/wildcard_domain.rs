//! `toolgate::wildcard_domain` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports `*:action` in a `grant` or in `needs`.
    ///
    /// ## Why is this bad?
    /// A wildcard covers a domain (`fs:*`) or everything (`*`), never an action across
    /// domains: `*:read` would span every domain, including ones a plugin nobody reviewed
    /// adds later.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path) needs fs:read
    /// agent reader {
    ///   grant *:read
    ///   allow read_file
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path) needs fs:read
    /// agent reader {
    ///   grant fs:read
    ///   allow read_file
    /// }
    /// ```
    pub static WILDCARD_DOMAIN = {
        code: WILDCARD_DOMAIN,
        stage: Resolve,
    }
}
