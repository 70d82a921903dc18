//! The pattern languages of conditions, below every stage that reads them: globs (globset
//! semantics) translated to regexes, the lexical normalization of paths and path patterns, and
//! the limits on regexes. Resolve validates patterns with these, compile builds automata from
//! them, lint compares them, and the engine normalizes values with the same code.

pub mod glob;
pub mod hir;
pub mod path;
pub mod size;

/// The deepest nesting a regex may have.
///
/// # Example
///
/// ```
/// let n = toolgate::pattern::REGEX_NEST_LIMIT as usize + 1;
/// let deep = format!("{}a{}", "(".repeat(n), ")".repeat(n));
/// let text = format!("tool t(p)\nagent a {{ allow t where p matches re\"{deep}\" }}");
/// assert!(toolgate::load::engine_from_str("p.policy", &text).is_err());
/// ```
pub const REGEX_NEST_LIMIT: u32 = 100;
