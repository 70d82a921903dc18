//! The answer to a request: allow or deny, why, and where in the policy it came from.

pub use crate::program::RuleRef;
pub use crate::reason::Reason;
use crate::syntax::ast::Effect;
use serde::Serialize;
use std::borrow::Cow;

/// What a decision says before the request's id and the policy hash are added: small, so
/// that the guarded evaluation hands it back cheaply.
pub(crate) struct Verdict<'e> {
    pub reason: Reason,
    pub message: Cow<'e, str>,
    pub rule: Option<&'e RuleRef>,
    pub permission: Option<Cow<'e, str>>,
    pub argument: Option<Cow<'e, str>>,
}

impl<'e> Verdict<'e> {
    /// A verdict with a reason (which sets the effect, see [`Reason::effect`]) and a message.
    pub fn new(reason: Reason, message: impl Into<Cow<'e, str>>) -> Verdict<'e> {
        Verdict {
            reason,
            message: message.into(),
            rule: None,
            permission: None,
            argument: None,
        }
    }
}

/// A decision. Every field is always present in JSON (`null` where it does not apply).
///
/// A decision borrows its message, rule and permission texts from the [`crate::Engine`] that
/// made it (`'e`), so deciding copies no strings and touches no shared reference counts. To
/// keep a decision longer than the engine, take [`Decision::into_owned`].
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", "tool t needs fs:read\nagent a { allow t }").unwrap();
/// let d = engine.decide(&toolgate::Request::new("a", "t").tool_use_id("toolu_1"));
/// assert_eq!((d.reason.as_str(), d.permission.as_deref()), ("permission_missing", Some("fs:read")));
/// assert_eq!((d.tool_use_id.as_deref(), d.policy_hash.len()), (Some("toolu_1"), 64));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision<'e> {
    /// Allow or deny.
    pub decision: Effect,
    /// Why.
    pub reason: Reason,
    /// The first missing permission, for `permission_missing`.
    pub permission: Option<Cow<'e, str>>,
    /// The first missing argument, for `missing_argument`; the first wrongly typed one, for
    /// `invalid_argument`.
    pub argument: Option<Cow<'e, str>>,
    /// A message for the agent or operator.
    pub message: Cow<'e, str>,
    /// The rule that decided, when one did.
    pub rule: Option<Cow<'e, RuleRef>>,
    /// The request's `tool_use_id`.
    pub tool_use_id: Option<String>,
    /// SHA-256 of the compiled policy that decided (see [`crate::Engine::policy_hash`]);
    /// empty for a decision no engine made.
    pub policy_hash: Cow<'e, str>,
    /// How the decision was reached (only when asked for).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Box<Explanation>>,
}

impl<'e> Decision<'e> {
    /// True when the call may run.
    ///
    /// # Example
    ///
    /// ```
    /// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
    /// assert!(engine.decide(&toolgate::Request::new("a", "t")).is_allowed());
    /// assert!(!engine.decide(&toolgate::Request::new("a", "u")).is_allowed());
    /// ```
    pub fn is_allowed(&self) -> bool {
        self.decision == Effect::Allow
    }

    /// A denial with no rule.
    ///
    /// # Example
    ///
    /// ```
    /// use toolgate::{Decision, Reason};
    /// let d = Decision::deny(Reason::InternalError, "engine failed", Some("toolu_1".into()));
    /// assert!(!d.is_allowed() && d.rule.is_none());
    /// assert_eq!((&*d.message, d.tool_use_id.as_deref()), ("engine failed", Some("toolu_1")));
    /// ```
    pub fn deny(
        reason: Reason,
        message: impl Into<Cow<'e, str>>,
        tool_use_id: Option<String>,
    ) -> Decision<'e> {
        Decision {
            decision: Effect::Deny,
            reason,
            permission: None,
            argument: None,
            message: message.into(),
            rule: None,
            tool_use_id,
            policy_hash: Cow::Borrowed(""),
            explanation: None,
        }
    }

    /// The same decision owning all its texts, free of the engine's lifetime (for keeping it
    /// in a log, a queue or across a policy reload).
    ///
    /// # Example
    ///
    /// ```
    /// let owned = {
    ///     let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
    ///     engine.decide(&toolgate::Request::new("a", "t")).into_owned()
    /// };
    /// assert_eq!(&*owned.rule.unwrap().target, "t");
    /// assert!(owned.message.starts_with("allowed by rule `allow t`"));
    /// ```
    pub fn into_owned(self) -> Decision<'static> {
        Decision {
            decision: self.decision,
            reason: self.reason,
            permission: self.permission.map(|p| Cow::Owned(p.into_owned())),
            argument: self.argument.map(|a| Cow::Owned(a.into_owned())),
            message: Cow::Owned(self.message.into_owned()),
            rule: self.rule.map(|r| Cow::Owned(r.into_owned())),
            tool_use_id: self.tool_use_id,
            policy_hash: Cow::Owned(self.policy_hash.into_owned()),
            explanation: self.explanation,
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
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy", "tool t needs fs:read\nagent a { grant fs:read\n allow t }").unwrap();
/// let trace = engine.decide_explained(&toolgate::Request::new("a", "t")).explanation.unwrap();
/// assert_eq!((trace.agent.as_deref(), trace.tool.as_deref()), (Some("a"), Some("t")));
/// assert_eq!((trace.needs, trace.rules.len()), (vec!["fs:read".to_string()], 1));
/// ```
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
///
/// # Example
///
/// ```
/// let engine = toolgate::load::engine_from_str("p.policy",
///     "tool t(p)\nagent a {\n allow t where p == \"x\"\n allow t\n}").unwrap();
/// let d = engine.decide_explained(&toolgate::Request::new("a", "t").args(serde_json::json!({"p": "y"})));
/// let rules = d.explanation.unwrap().rules;
/// assert_eq!((rules[0].outcome, rules[1].outcome), ("not_fired", "fired"));
/// assert!(rules[0].failed_condition.is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleTrace {
    /// Where the rule is.
    pub rule: RuleRef,
    /// `fired` or `not_fired`.
    pub outcome: &'static str,
    /// The first condition that did not hold, when it did not fire.
    pub failed_condition: Option<String>,
}
