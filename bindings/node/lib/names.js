'use strict'
// Tool names as agent SDKs give them, mapped to the policy's server and tool.

/**
 * Splits an MCP tool name as the Claude Agent SDK writes it, `mcp__<server>__<tool>`, into
 * `{server, tool}`. When the SDK says which server serves the tool, that name is used, so a
 * server name holding `__` is read right. Any other name is a host tool: `{server: null, tool}`.
 */
function splitToolName(toolName, mcpServerName) {
  const name = String(toolName)
  if (typeof mcpServerName === 'string') {
    const prefix = `mcp__${mcpServerName}__`
    if (name.startsWith(prefix) && name.length > prefix.length) {
      return { server: mcpServerName, tool: name.slice(prefix.length) }
    }
  }
  if (name.startsWith('mcp__')) {
    const rest = name.slice(5)
    const sep = rest.indexOf('__')
    if (sep > 0 && sep + 2 < rest.length) {
      return { server: rest.slice(0, sep), tool: rest.slice(sep + 2) }
    }
  }
  return { server: null, tool: name }
}

module.exports = { splitToolName }
