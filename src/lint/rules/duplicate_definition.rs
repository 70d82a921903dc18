//! `toolgate::duplicate_definition` (an error, reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports a server, a tool on one server, a host tool, an agent, or an argument of one
    /// tool defined twice, across all merged files, pointing at both definitions.
    ///
    /// ## Why is this bad?
    /// Two definitions of one name leave it unclear which one is meant; merging them silently
    /// could widen an agent's access.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file
    /// }
    /// agent reader {
    ///   deny read_file
    /// }
    /// ```
    ///
    /// Use instead:
    /// ```policy
    /// tool read_file(path)
    /// agent reader {
    ///   allow read_file
    /// }
    /// agent auditor {
    ///   deny read_file
    /// }
    /// ```
    pub static DUPLICATE_DEFINITION = {
        code: DUPLICATE_DEFINITION,
        stage: Resolve,
    }
}
