//! Whether two texts are the same policy: both parsed, and their syntax trees compared, which
//! ignores positions (the syntax tree's equality is span-blind).

use super::*;

/// True when two texts parse to the same policy, positions aside (both must parse).
///
/// # Example
///
/// ```
/// assert!(toolgate::fmt::same_policy("agent a { allow t }", "agent a {\n  allow t\n}\n"));
/// assert!(!toolgate::fmt::same_policy("agent a { allow t }", "agent a { deny t }"));
/// ```
pub fn same_policy(a: &str, b: &str) -> bool {
    let (fa, da) = parse_file(FileId(0), a);
    let (fb, db) = parse_file(FileId(0), b);
    !da.has_errors() && !db.has_errors() && fa == fb
}
