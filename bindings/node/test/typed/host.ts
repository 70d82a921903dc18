// A small typed host: each shape of the package assigned to the real SDK types (installed from
// npm, not copied), checked by `tsc --noEmit -p test/typed`.
import type { CanUseTool, HookCallback, Options, PermissionResult } from '@anthropic-ai/claude-agent-sdk'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  Engine,
  PermissionSet,
  PermissionDeniedError,
  PolicyError,
  canUseTool,
  guardClient,
  preToolUseHook,
  withPermissions,
  withPermissionsAll,
  type Decision,
  type Diagnostic,
  type PermissionCallback,
  type PermissionDecision,
} from '../../toolgate.js'

const engine: Engine = Engine.load('policies/')

// Engine: decisions are plain objects with the CLI's fields.
const d: Decision = engine.decide({ agent: 'code-assistant', tool: 'Bash', args: { command: 'ls' }, toolUseId: 'toolu_1' })
const allowed: boolean = d.decision === 'allow'
const reason: string = d.reason
const hash: string | null = d.tool_use_id
void [allowed, reason, hash, engine.policyHash.length, engine.tools('code-assistant')?.map((t) => t.name)]

try {
  Engine.fromSource('agent a { grant *:read }', 'bad.policy')
} catch (e) {
  if (e instanceof PolicyError) {
    const first: Diagnostic | undefined = e.diagnostics[0]
    console.log(first?.code, first?.line, e.message)
  }
}

// Hermes.
const granted = PermissionSet.none().grant('fs:read', 'net:http')
const writeFile = { name: 'fs.write', permissions: ['fs:write'], execute: async (input: { path: string }) => input.path }
const guarded = withPermissions(writeFile, granted)
const all = withPermissionsAll([writeFile], new PermissionSet(['fs:*']))
void guarded.execute({ path: '/x' }).catch((e: unknown) => e instanceof PermissionDeniedError && e.permission)
void all

// agent-lattice.
const permission: PermissionCallback = engine.permission('lattice-deny-list')
const answer: Promise<PermissionDecision> = permission({ toolName: 'Shell', input: { command: 'ls' }, toolUseId: 'toolu_2' })
void answer

// Claude Agent SDK: canUseTool and a PreToolUse hook, in the SDK's own Options.
const can: CanUseTool = canUseTool(engine, 'code-assistant')
const hook: HookCallback = preToolUseHook(engine, 'code-assistant')
const options: Options = {
  canUseTool: can,
  hooks: { PreToolUse: [{ hooks: [hook] }] },
}
const result: Promise<PermissionResult | null> = can('mcp__git__git_log', { repo_path: '/x' }, { signal: new AbortController().signal, toolUseID: 'toolu_3', requestId: 'req_1' })
void [options, result]

// MCP TypeScript SDK: the guarded client keeps its type.
const client: Client = guardClient(new Client({ name: 'host', version: '1.0.0' }), engine, 'code-assistant', { server: 'git' })
void client.callTool({ name: 'git_log', arguments: { repo_path: '/x' } })
