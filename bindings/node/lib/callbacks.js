'use strict'
// Per-call permission callbacks in the shapes agent SDKs take: agent-lattice's `permission`,
// the Claude Agent SDK's `canUseTool` and its `PreToolUse` hook. Each asks the engine.

const { splitToolName } = require('./names.js')

/** agent-lattice: `async ({toolName, input, toolUseId}) => {behavior: 'allow'} | {behavior: 'deny', message}`. */
function permission(engine, agent) {
  return async function permission(request) {
    const { toolName, input, toolUseId, server } = request ?? {}
    // Absent input is no arguments; anything else (even `null`) is decided as given.
    const d = engine.decide({ agent, tool: toolName, server, args: input === undefined ? {} : input, toolUseId })
    return d.decision === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: d.message }
  }
}

/** The request a Claude Agent SDK tool call makes for `agent`. */
function sdkRequest(agent, toolName, input, toolUseId, mcpServerName) {
  const { server, tool } = splitToolName(toolName, mcpServerName)
  return { agent, server, tool, args: input === undefined ? {} : input, toolUseId }
}

/**
 * Claude Agent SDK `canUseTool`: `mcp__server__tool` names are decided as `server.tool`;
 * an allowed call keeps its input, a denied one gets the policy's message.
 */
function canUseTool(engine, agent) {
  return async function canUseTool(toolName, input, options) {
    const toolUseID = options?.toolUseID
    const d = engine.decide(sdkRequest(agent, toolName, input, toolUseID, options?.mcpServer?.name))
    const id = typeof toolUseID === 'string' ? { toolUseID } : {}
    return d.decision === 'allow'
      ? { behavior: 'allow', updatedInput: input, ...id }
      : { behavior: 'deny', message: d.message, ...id }
  }
}

/**
 * Claude Agent SDK `PreToolUse` hook callback, for when every call must be gated (hooks run
 * even where `canUseTool` is skipped: allowed tools, `bypassPermissions`). A denied call gets
 * `permissionDecision: 'deny'` with the policy's message; an allowed one returns `{}`, leaving
 * the SDK's own permission flow in place (the hook only ever narrows what may run).
 */
function preToolUseHook(engine, agent) {
  return async function preToolUse(input, toolUseID) {
    if (input?.hook_event_name !== 'PreToolUse') return {}
    const id = input.tool_use_id ?? toolUseID
    const d = engine.decide(sdkRequest(agent, input.tool_name, input.tool_input, id, input.mcp_server?.name))
    if (d.decision === 'allow') return {}
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: d.message,
      },
    }
  }
}

module.exports = { permission, canUseTool, preToolUseHook, sdkRequest }
