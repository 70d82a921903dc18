//! The reasons a decision can carry: the one list, read by the engine (which decides them) and
//! by resolve (which checks the reasons test expectations name).

use crate::syntax::ast::Effect;
use serde::Serialize;

/// Why a decision was made (LANGUAGE.md section 7).
///
/// # Example
///
/// ```
/// use toolgate::{Reason, Request};
/// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
/// assert_eq!(engine.decide(&Request::new("a", "t")).reason, Reason::AllowedByRule);
/// assert_eq!(engine.decide(&Request::new("b", "t")).reason, Reason::UnknownAgent);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The request is not a well-formed request.
    BadRequest,
    /// No such agent.
    UnknownAgent,
    /// No such tool (on the named server).
    UnknownTool,
    /// The tool name is declared in several places and the request names no server.
    AmbiguousTool,
    /// A permission the tool needs was not granted.
    PermissionMissing,
    /// A required argument is missing.
    MissingArgument,
    /// An argument does not have the type the catalog declares.
    InvalidArgument,
    /// A deny rule fired.
    DeniedByRule,
    /// No rule fired and the agent's default is deny.
    NoMatchingRule,
    /// An allow rule fired.
    AllowedByRule,
    /// No rule fired and the agent's default is allow.
    DefaultAllow,
    /// The engine failed; it denies.
    InternalError,
}

impl Reason {
    /// The reason as it appears in JSON and in test expectations.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::Reason;
    /// assert_eq!(Reason::PermissionMissing.as_str(), "permission_missing");
    /// assert_eq!(serde_json::to_value(Reason::DefaultAllow).unwrap(), "default_allow");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::BadRequest => "bad_request",
            Reason::UnknownAgent => "unknown_agent",
            Reason::UnknownTool => "unknown_tool",
            Reason::AmbiguousTool => "ambiguous_tool",
            Reason::PermissionMissing => "permission_missing",
            Reason::MissingArgument => "missing_argument",
            Reason::InvalidArgument => "invalid_argument",
            Reason::DeniedByRule => "denied_by_rule",
            Reason::NoMatchingRule => "no_matching_rule",
            Reason::AllowedByRule => "allowed_by_rule",
            Reason::DefaultAllow => "default_allow",
            Reason::InternalError => "internal_error",
        }
    }
}

impl Reason {
    /// Whether a decision for this reason allows the call: only `allowed_by_rule` and
    /// `default_allow` do.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Reason, syntax::ast::Effect};
    /// assert_eq!(Reason::DefaultAllow.effect(), Effect::Allow);
    /// assert_eq!(Reason::InternalError.effect(), Effect::Deny);
    /// ```
    pub fn effect(self) -> Effect {
        match self {
            Reason::AllowedByRule | Reason::DefaultAllow => Effect::Allow,
            _ => Effect::Deny,
        }
    }
}

impl Reason {
    /// Every reason, in the order of docs/language.md section 11.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::Reason;
    /// assert!(Reason::ALL.iter().all(|r| Reason::from_name(r.as_str()) == Some(*r)));
    /// ```
    pub const ALL: [Reason; 12] = [
        Reason::BadRequest,
        Reason::UnknownAgent,
        Reason::UnknownTool,
        Reason::AmbiguousTool,
        Reason::PermissionMissing,
        Reason::MissingArgument,
        Reason::InvalidArgument,
        Reason::DeniedByRule,
        Reason::NoMatchingRule,
        Reason::AllowedByRule,
        Reason::DefaultAllow,
        Reason::InternalError,
    ];

    /// The reason a test expectation names, if it is one.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::Reason;
    /// assert_eq!(Reason::from_name("no_matching_rule"), Some(Reason::NoMatchingRule));
    /// assert_eq!(Reason::from_name("nope"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == name)
    }
}
