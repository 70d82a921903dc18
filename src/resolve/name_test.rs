//! Matching tool and server names against the name patterns of rule targets.

use super::NamePattern;

/// True when a name pattern matches a name.
///
/// # Example
///
/// ```
/// use toolgate::resolve::{name_matches, NamePattern};
/// let glob = NamePattern::Glob { text: "git_*".into(), regex: "^git_.*$".into() };
/// assert!(name_matches(&glob, "git_log"));
/// assert!(!name_matches(&glob, "query"));
/// ```
pub fn name_matches(pattern: &NamePattern, name: &str) -> bool {
    NameTest::new(pattern).is_match(name)
}

/// A name pattern compiled once, to test many names (catalog tools and servers).
///
/// # Example
///
/// ```
/// use toolgate::resolve::{NamePattern, NameTest};
/// let test = NameTest::new(&NamePattern::Glob { text: "git_*".into(), regex: "^git_.*$".into() });
/// assert!(test.is_match("git_log") && !test.is_match("query"));
/// ```
#[derive(Debug, Clone)]
pub enum NameTest {
    /// `*`: any name.
    Any,
    /// An exact name.
    Literal(String),
    /// A glob over names (globset, `*` crosses everything: names have no separators).
    Glob(globset::GlobMatcher),
}

impl NameTest {
    /// Compiles a pattern. A glob that does not compile (the resolver reports it) matches
    /// nothing.
    pub fn new(pattern: &NamePattern) -> NameTest {
        match pattern {
            NamePattern::Any => NameTest::Any,
            NamePattern::Literal(l) => NameTest::Literal(l.clone()),
            NamePattern::Glob { text, .. } => globset::GlobBuilder::new(text)
                .literal_separator(false)
                .backslash_escape(true)
                .build()
                .map(|g| NameTest::Glob(g.compile_matcher()))
                .unwrap_or(NameTest::Literal(String::new())),
        }
    }

    /// True when the pattern matches the name.
    pub fn is_match(&self, name: &str) -> bool {
        match self {
            NameTest::Any => true,
            NameTest::Literal(l) => l == name,
            NameTest::Glob(g) => g.is_match(name),
        }
    }
}
