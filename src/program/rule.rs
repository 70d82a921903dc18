//! One compiled rule: where it is written and the message a decision it makes carries.

use crate::syntax::ast::Effect;
use serde::{Deserialize, Serialize};

/// Where the deciding rule is.
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a {\n  allow t\n}").unwrap();
/// let rule = engine.decide(&toolgate::Request::new("a", "t")).rule.unwrap();
/// assert_eq!((rule.agent.as_str(), rule.line, rule.column), ("a", 3, 3));
/// assert_eq!(rule.to_string(), "allow t (p.policy:3:3)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleRef {
    /// The agent the rule belongs to.
    pub agent: String,
    /// `allow` or `deny`.
    pub effect: Effect,
    /// The target as written.
    pub target: String,
    /// The file it is in.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl std::fmt::Display for RuleRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} ({}:{}:{})",
            self.effect.as_str(),
            self.target,
            self.file,
            self.line,
            self.column
        )
    }
}

/// One compiled rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RuleRt {
    pub info: RuleRef,
    pub message: Box<str>,
}
