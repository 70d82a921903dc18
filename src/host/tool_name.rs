//! Tool names as agent SDKs write them, mapped to the policy's server and tool.

/// The prefix of an MCP tool's name in the agent SDKs: `mcp__<server>__<tool>`.
pub const MCP_PREFIX: &str = "mcp__";

/// Splits a tool name as the Claude Agent SDK (and others) write it, `mcp__<server>__<tool>`,
/// into `(Some(server), tool)`; any other name is a host tool, `(None, name)`.
///
/// When the host knows which server serves the tool (`server`, e.g. the SDK's
/// `mcpServerName`), that name is used, so a server name holding `__` is read right. A name
/// that starts with `mcp__` but has no server or no tool part stays whole.
///
/// # Example
///
/// ```
/// use toolgate::host::split_tool_name;
/// assert_eq!(split_tool_name("mcp__git__git_log", None), (Some("git"), "git_log"));
/// assert_eq!(split_tool_name("mcp__my__srv__run", Some("my__srv")), (Some("my__srv"), "run"));
/// assert_eq!(split_tool_name("mcp__my__srv__run", None), (Some("my"), "srv__run"));
/// assert_eq!(split_tool_name("Bash", None), (None, "Bash"));
/// assert_eq!(split_tool_name("mcp__git__", None), (None, "mcp__git__"));
/// ```
pub fn split_tool_name<'a>(name: &'a str, server: Option<&'a str>) -> (Option<&'a str>, &'a str) {
    if let Some(server) = server {
        let tool = name
            .strip_prefix(MCP_PREFIX)
            .and_then(|rest| rest.strip_prefix(server))
            .and_then(|rest| rest.strip_prefix("__"));
        if let Some(tool) = tool.filter(|t| !t.is_empty()) {
            return (Some(server), tool);
        }
    }
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        if let Some(sep) = rest.find("__") {
            let (server, tool) = (&rest[..sep], &rest[sep + 2..]);
            if !server.is_empty() && !tool.is_empty() {
                return (Some(server), tool);
            }
        }
    }
    (None, name)
}
