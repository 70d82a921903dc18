//! The host API: what an agent runtime embeds around its tools.
//!
//! - [`request`]: reading a request from a host's own values (Python objects, JS values), with
//!   the limits and answers every host shares; [`split_tool_name`] for `mcp__server__tool`.
//! - [`PermissionSet`]: an immutable grant set (Hermes): `none()`, `all()`, a list, and
//!   [`PermissionSet::grant`] returning a widened copy; `domain:*` covers actions declared
//!   later; `*:action` is refused; membership is constant time.
//! - [`Tool`], [`with_permissions`] and [`with_permissions_all`]: enforcement as a wrapper that
//!   refuses a call before `execute` with a [`PermissionDeniedError`] naming the first missing
//!   permission.
//! - [`ToolCall`], [`PermissionResult`] and [`Engine::permission_callback`](crate::Engine::permission_callback):
//!   the agent-SDK style, a per-call callback that answers from a compiled policy; a denial is
//!   a value (see [`Decision::to_tool_result`](crate::Decision::to_tool_result)), never a panic.

mod callback;
mod permission_set;
pub mod request;
mod tool;
mod tool_name;

pub use callback::{PermissionResult, ToolCall};
pub use permission_set::PermissionSet;
pub use tool::{
    with_permissions, with_permissions_all, Guarded, PermissionDeniedError, Tool, ToolError,
};
pub use tool_name::{split_tool_name, MCP_PREFIX};
