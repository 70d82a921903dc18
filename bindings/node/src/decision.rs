//! The plain objects `Engine` hands to JS: decisions, rules, visible tools and test cases.
//!
//! Field names are the CLI's JSON names (snake_case), so a decision logged from JS and one
//! printed by `toolgate eval` are the same object.

use napi_derive::napi;

/// A decision, with every field of the CLI's decision JSON (`null` where it does not apply).
/// Declared for its type: `engine.decide` writes the object directly (see `output.rs`).
#[napi(object)]
pub struct Decision {
    /// `allow` or `deny`.
    #[napi(ts_type = "'allow' | 'deny'")]
    pub decision: String,
    /// Why: `allowed_by_rule`, `default_allow`, `denied_by_rule`, `no_matching_rule`,
    /// `permission_missing`, `missing_argument`, `invalid_argument`, `unknown_agent`,
    /// `unknown_tool`, `ambiguous_tool`, `bad_request` or `internal_error`.
    pub reason: String,
    /// The first missing permission, for `permission_missing`.
    #[napi(ts_type = "string | null")]
    pub permission: serde_json::Value,
    /// The first missing argument, for `missing_argument`; the first wrongly typed one, for
    /// `invalid_argument`.
    #[napi(ts_type = "string | null")]
    pub argument: serde_json::Value,
    /// A message for the agent or operator.
    pub message: String,
    /// The rule that decided, when one did.
    #[napi(ts_type = "Rule | null")]
    pub rule: serde_json::Value,
    /// The request's tool-use id.
    #[napi(js_name = "tool_use_id", ts_type = "string | null")]
    pub tool_use_id: serde_json::Value,
    /// SHA-256 of the compiled policy that decided.
    #[napi(js_name = "policy_hash")]
    pub policy_hash: String,
    /// How the decision was reached: only when asked for, as `eval --explain` prints it.
    pub explanation: Option<serde_json::Value>,
}

/// Where the deciding rule is.
#[napi(object)]
pub struct Rule {
    /// The agent the rule belongs to.
    pub agent: String,
    /// `allow` or `deny`.
    #[napi(ts_type = "'allow' | 'deny'")]
    pub effect: String,
    /// The target as written.
    pub target: String,
    /// The file it is in.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// A tool an agent may see.
#[napi(object, use_nullable = true)]
pub struct VisibleTool {
    /// The server, or `null` for a host tool.
    pub server: Option<String>,
    /// The tool's name.
    pub tool: String,
    /// `server.tool`, or the tool's name: how `toolgate tools` prints it.
    pub name: String,
}

/// One expectation of a policy's `test` blocks.
#[napi(object, use_nullable = true)]
pub struct TestCase {
    /// The test block's name.
    pub block: String,
    /// The expected decision, `allow` or `deny`.
    pub expect: String,
    /// The expected reason, when the test names one.
    pub reason: Option<String>,
    /// The request the expectation makes, in the form `engine.decide` takes.
    #[napi(ts_type = "Request")]
    pub request: serde_json::Value,
    /// Where the expectation is written: `file:line:column`.
    pub location: String,
}

/// The request object `engine.decide` takes (the CLI's request JSON; `toolUseId` may stand
/// for `tool_use_id`). Declared for its type; `decide` reads any JS value (see `request.rs`).
#[napi(object)]
pub struct Request {
    /// The agent making the call.
    pub agent: String,
    /// The tool's bare name.
    pub tool: String,
    /// The server the tool is on, when the host knows it.
    #[napi(ts_type = "string | null")]
    pub server: Option<String>,
    /// The call's arguments.
    #[napi(ts_type = "Record<string, unknown>")]
    pub args: Option<serde_json::Value>,
    /// The host's id for the call, echoed in the decision.
    #[napi(js_name = "tool_use_id")]
    pub tool_use_id: Option<String>,
    /// The same as `tool_use_id`, in JS spelling.
    #[napi(js_name = "toolUseId")]
    pub tool_use_id_camel: Option<String>,
    /// Permissions the tool declares (only for policies without a catalog).
    pub permissions: Option<Vec<String>>,
}
