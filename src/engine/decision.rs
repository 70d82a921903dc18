//! The answer to a request: allow or deny, why, and where in the policy it came from.

use crate::syntax::ast::Effect;
use serde::Serialize;
use std::sync::Arc;

/// Why a decision was made (LANGUAGE.md section 7).
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
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::BadRequest => "bad_request",
            Reason::UnknownAgent => "unknown_agent",
            Reason::UnknownTool => "unknown_tool",
            Reason::AmbiguousTool => "ambiguous_tool",
            Reason::PermissionMissing => "permission_missing",
            Reason::MissingArgument => "missing_argument",
            Reason::DeniedByRule => "denied_by_rule",
            Reason::NoMatchingRule => "no_matching_rule",
            Reason::AllowedByRule => "allowed_by_rule",
            Reason::DefaultAllow => "default_allow",
            Reason::InternalError => "internal_error",
        }
    }
}

/// Where the deciding rule is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
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

/// A decision. Every field is always present in JSON (`null` where it does not apply).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// Allow or deny.
    pub decision: Effect,
    /// Why.
    pub reason: Reason,
    /// The first missing permission, for `permission_missing`.
    pub permission: Option<String>,
    /// The first missing argument, for `missing_argument`.
    pub argument: Option<String>,
    /// A message for the agent or operator.
    pub message: Arc<str>,
    /// The rule that decided, when one did.
    pub rule: Option<Arc<RuleRef>>,
    /// The request's `tool_use_id`.
    pub tool_use_id: Option<String>,
    /// SHA-256 of the compiled policy that decided (see [`crate::Engine::policy_hash`]).
    pub policy_hash: Arc<str>,
    /// How the decision was reached (only when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Explanation>,
}

impl Decision {
    /// True when the call may run.
    pub fn is_allowed(&self) -> bool {
        self.decision == Effect::Allow
    }

    /// A denial with no rule.
    pub fn deny(
        reason: Reason,
        message: impl Into<Arc<str>>,
        tool_use_id: Option<String>,
    ) -> Decision {
        Decision {
            decision: Effect::Deny,
            reason,
            permission: None,
            argument: None,
            message: message.into(),
            rule: None,
            tool_use_id,
            policy_hash: Arc::from(""),
            explanation: None,
        }
    }

    /// The decision as an agent-SDK tool result, the form in which a denial reaches the
    /// model: `{"type": "tool_result", "tool_use_id": .., "is_error": .., "content": ..}`.
    /// `tool_use_id` overrides the request's own id when given. A denial is a value the model
    /// reads, never a crash.
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool Bash(command)\nagent a {}").unwrap();
    /// let d = engine.decide(&toolgate::Request::new("a", "Bash").args(serde_json::json!({"command": "ls"})));
    /// let r = d.to_tool_result(Some("toolu_01"));
    /// assert_eq!(r["type"], "tool_result");
    /// assert_eq!(r["tool_use_id"], "toolu_01");
    /// assert_eq!(r["is_error"], true);
    /// ```
    pub fn to_tool_result(&self, tool_use_id: Option<&str>) -> serde_json::Value {
        serde_json::json!({
            "type": "tool_result",
            "tool_use_id": tool_use_id.or(self.tool_use_id.as_deref()),
            "is_error": !self.is_allowed(),
            "content": &*self.message,
        })
    }
}

/// The trace of a decision, for `eval --explain`.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Explanation {
    /// The agent, if it exists.
    pub agent: Option<String>,
    /// The tool as resolved (`server.tool` or the host tool's name).
    pub tool: Option<String>,
    /// The permissions the tool needs.
    pub needs: Vec<String>,
    /// Every rule of the agent that targets the tool, in source order, with its outcome.
    pub rules: Vec<RuleTrace>,
    /// The agent's default and where it was written.
    pub default: Option<String>,
}

/// What happened to one rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleTrace {
    /// Where the rule is.
    pub rule: Arc<RuleRef>,
    /// `fired` or `not_fired`.
    pub outcome: &'static str,
    /// The first condition that did not hold, when it did not fire.
    pub failed_condition: Option<String>,
}
