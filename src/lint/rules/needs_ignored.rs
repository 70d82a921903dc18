//! `toolgate::needs_ignored` (reported while resolving names)

use crate::lint::declare_lint;

declare_lint! {
    /// ## What it does
    /// Reports `needs` on a test expectation in a policy that has a tool catalog.
    ///
    /// ## Why is this bad?
    /// `needs` plays the role of a request's `permissions`, which only policies without a
    /// catalog use; with a catalog the tool's declared permissions decide. The expectation
    /// looks as if it tested those permissions, but they are ignored.
    ///
    /// ## Example
    /// ```policy
    /// tool read_file(path) needs fs:read
    /// agent reader {
    ///   grant fs:read
    ///   allow read_file
    /// }
    /// test "reads" {
    ///   allow reader read_file { path: "/x" } needs fs:read
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
    /// test "reads" {
    ///   allow reader read_file { path: "/x" }
    /// }
    /// ```
    pub static NEEDS_IGNORED = {
        code: NEEDS_IGNORED,
        stage: Resolve,
    }
}
