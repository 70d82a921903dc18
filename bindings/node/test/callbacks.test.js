'use strict'
// agent-lattice `engine.permission(agent)`, Claude Agent SDK `canUseTool` and `PreToolUse`
// hook: each answers in the SDK's shape with the engine's decision.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { Engine, canUseTool, preToolUseHook, splitToolName } = require('..')
const { POLICIES } = require('./support.js')

const engine = Engine.load(POLICIES)

test('agent-lattice: the seed\'s deny-list and allow-list callbacks', async () => {
  const denyList = engine.permission('lattice-deny-list')
  assert.deepEqual(await denyList({ toolName: 'Shell', input: { command: 'ls' }, toolUseId: 'toolu_1' }), {
    behavior: 'deny',
    message: 'Shell access is disabled for this session.',
  })
  assert.deepEqual(await denyList({ toolName: 'Read', input: { file_path: '/a' }, toolUseId: 'toolu_2' }), { behavior: 'allow' })
  const allowList = engine.permission('lattice-allow-list')
  assert.deepEqual(await allowList({ toolName: 'LS', input: { path: '/' } }), { behavior: 'allow' })
  const w = await allowList({ toolName: 'Write', input: { file_path: '/a', content: '' } })
  assert.equal(w.behavior, 'deny')
  assert.equal(w.message, engine.decide({ agent: 'lattice-allow-list', tool: 'Write', args: { file_path: '/a', content: '' } }).message)
  // Untrusted input that JSON cannot hold is a denial, not a crash.
  assert.equal((await denyList({ toolName: 'Read', input: { file_path: NaN } })).behavior, 'deny')
  assert.ok(denyList({ toolName: 'Read', input: {} }) instanceof Promise)
})

test('splitToolName reads mcp__server__tool', () => {
  assert.deepEqual(splitToolName('mcp__git__git_log'), { server: 'git', tool: 'git_log' })
  assert.deepEqual(splitToolName('mcp__my__srv__do_it', 'my__srv'), { server: 'my__srv', tool: 'do_it' })
  assert.deepEqual(splitToolName('Bash'), { server: null, tool: 'Bash' })
  assert.deepEqual(splitToolName('mcp__broken'), { server: null, tool: 'mcp__broken' })
})

test('canUseTool: host tools, mcp__server__tool names, deny with the message', async () => {
  const can = canUseTool(engine, 'code-assistant')
  const signal = new AbortController().signal
  const input = { repo_path: '/home/user/projects/toolgate' }
  assert.deepEqual(await can('mcp__git__git_log', input, { signal, toolUseID: 'toolu_1' }), {
    behavior: 'allow',
    updatedInput: input,
    toolUseID: 'toolu_1',
  })
  const push = await can('mcp__git__git_push', input, { signal })
  assert.equal(push.behavior, 'deny')
  assert.equal(push.message, 'git.git_push requires the "net:http" permission, which was not granted.\nRetrying with different arguments will not help')
  const sudo = await can('Bash', { command: 'sudo rm -rf /' }, { signal, toolUseID: 'toolu_2' })
  assert.deepEqual(sudo, { behavior: 'deny', message: 'Destructive shell commands are disabled for this session.', toolUseID: 'toolu_2' })
  // The SDK's mcpServer names the server when it says so.
  const viaServer = await can('mcp__git__git_log', input, { signal, mcpServer: { name: 'git', source: 'sdk' } })
  assert.equal(viaServer.behavior, 'allow')
  // Without the mcp__ prefix, git_log is not a host tool: unknown, denied.
  assert.equal((await can('git_log', input, { signal })).behavior, 'deny')
})

test('PreToolUse hook: denies what the policy denies, says nothing otherwise', async () => {
  const hook = preToolUseHook(engine, 'code-assistant')
  const signal = new AbortController().signal
  const base = { session_id: 's', transcript_path: '/t', cwd: '/', hook_event_name: 'PreToolUse' }
  const denied = await hook({ ...base, tool_name: 'Bash', tool_input: { command: 'mkfs /dev/sda' }, tool_use_id: 'toolu_3' }, 'toolu_3', { signal })
  assert.deepEqual(denied, {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: 'Destructive shell commands are disabled for this session.',
    },
  })
  const allowed = await hook({ ...base, tool_name: 'Bash', tool_input: { command: 'npm run test', timeout: 10 }, tool_use_id: 'toolu_4' }, 'toolu_4', { signal })
  assert.deepEqual(allowed, {})
  const mcp = await hook({ ...base, tool_name: 'mcp__git__git_push', tool_input: { repo_path: '/x' }, tool_use_id: 'toolu_5' }, 'toolu_5', { signal })
  assert.equal(mcp.hookSpecificOutput.permissionDecision, 'deny')
  const other = await hook({ ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: {}, tool_response: {}, tool_use_id: 'x' }, 'x', { signal })
  assert.deepEqual(other, {})
  // A tool input that is not an object is denied (bad_request), never allowed.
  const odd = await hook({ ...base, tool_name: 'Bash', tool_input: 'npm run test', tool_use_id: 'toolu_6' }, 'toolu_6', { signal })
  assert.equal(odd.hookSpecificOutput.permissionDecision, 'deny')
})

test('splitToolName splits as the library\'s split_tool_name does, on one table', () => {
  // The addon's Rust tests check toolgate::host::split_tool_name against the same table.
  const rows = require('./tool-names.json')
  for (const [name, hint, server, tool] of rows) {
    assert.deepEqual(splitToolName(name, hint ?? undefined), { server, tool }, `${name} ${hint}`)
  }
})
