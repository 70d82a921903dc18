//! The agent-SDK style: a per-call permission callback answered by a compiled policy.

use crate::engine::{Decision, Engine, Request};
use serde_json::Value;
use std::sync::Arc;

/// A tool call as an agent SDK hands it to its permission callback.
///
/// # Example
///
/// ```
/// let call = toolgate::host::ToolCall { tool_name: "git_log".into(), server: Some("git".into()),
///     input: serde_json::json!({"repo_path": "/x"}), tool_use_id: Some("toolu_1".into()) };
/// let req = call.to_request("bot");
/// assert_eq!((req.server.as_deref(), req.args["repo_path"].as_str()), (Some("git"), Some("/x")));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCall {
    /// The registered tool name the model wants to call.
    pub tool_name: String,
    /// The server owning the tool, when the host knows it.
    pub server: Option<String>,
    /// The raw tool input from the model (untrusted).
    pub input: Value,
    /// The id of this tool call.
    pub tool_use_id: Option<String>,
}

/// The callback's answer: run the tool, or refuse it with a message for the model.
///
/// # Example
///
/// ```
/// use toolgate::host::PermissionResult;
/// let engine = toolgate::load::engine_from_str("p.policy", "tool t\nagent a { allow t }").unwrap();
/// let d = engine.decide(&toolgate::Request::new("a", "t"));
/// assert_eq!(PermissionResult::from(&d), PermissionResult::Allow);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionResult {
    /// Run the tool.
    Allow,
    /// Do not run it; send the model this message as an error tool result.
    Deny {
        /// Why, in words the model can act on.
        message: String,
    },
}

impl From<&Decision<'_>> for PermissionResult {
    fn from(d: &Decision<'_>) -> PermissionResult {
        if d.is_allowed() {
            PermissionResult::Allow
        } else {
            PermissionResult::Deny {
                message: d.message.to_string(),
            }
        }
    }
}

impl Engine {
    /// A permission callback for one agent: each call is decided by this engine. The
    /// callback is `Send + Sync` and shares the engine; a denial is a value, never a panic.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolgate::host::{PermissionResult, ToolCall};
    ///
    /// let engine = Arc::new(toolgate::load::engine_from_str("p.policy", r#"
    ///     tool Bash(command)
    ///     agent session { default allow  deny Bash because "Shell access is disabled for this session." }
    /// "#).unwrap());
    /// let permission = engine.permission_callback("session");
    /// let call = ToolCall { tool_name: "Bash".into(), input: serde_json::json!({"command": "ls"}), ..Default::default() };
    /// assert_eq!(permission(&call), PermissionResult::Deny { message: "Shell access is disabled for this session.".into() });
    /// ```
    pub fn permission_callback(
        self: &Arc<Self>,
        agent: impl Into<String>,
    ) -> impl Fn(&ToolCall) -> PermissionResult + Send + Sync {
        let engine = Arc::clone(self);
        let agent = agent.into();
        move |call: &ToolCall| PermissionResult::from(&engine.decide(&call.to_request(&agent)))
    }
}

impl ToolCall {
    /// The request this call makes for `agent`.
    ///
    /// ```
    /// let call = toolgate::host::ToolCall { tool_name: "git_log".into(), ..Default::default() };
    /// assert_eq!(call.to_request("bot").tool, "git_log");
    /// ```
    pub fn to_request(&self, agent: &str) -> Request {
        let mut req = Request::new(agent, self.tool_name.clone()).args(self.input.clone());
        req.server = self.server.clone();
        req.tool_use_id = self.tool_use_id.clone();
        req
    }
}
