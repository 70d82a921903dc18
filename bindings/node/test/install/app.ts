// A small application of the package, as the README shows it: compiled with `tsc --strict`
// in an app folder of its own (see ../../install-test.sh), with the app's own agent SDK.
import { query, type Options } from '@anthropic-ai/claude-agent-sdk'
import { Engine, canUseTool, preToolUseHook, type Decision } from 'toolgate'

const engine = Engine.fromSource(
  'tool Bash(command)\nagent code-assistant {\n  allow Bash where command == "ls"\n}\n',
  'app.policy',
)

const d: Decision = engine.decide({ agent: 'code-assistant', tool: 'Bash', args: { command: 'ls' }, toolUseId: 'toolu_1' })

const options: Options = {
  canUseTool: canUseTool(engine, 'code-assistant'),
  // canUseTool is skipped for allowedTools and under bypassPermissions; a PreToolUse hook runs for every call:
  hooks: { PreToolUse: [{ hooks: [preToolUseHook(engine, 'code-assistant')] }] },
}
// Typed, not started: starting a query needs the SDK's CLI and a model.
const start = (prompt: string) => query({ prompt, options })

async function main(): Promise<void> {
  const hook = preToolUseHook(engine, 'code-assistant')
  const denied = await hook(
    { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf /' }, tool_use_id: 'toolu_2' },
    'toolu_2',
    { signal: new AbortController().signal },
  )
  const can = await canUseTool(engine, 'code-assistant')('Bash', { command: 'ls' }, { toolUseID: 'toolu_3' })
  console.log(JSON.stringify({ decision: d.decision, tool_use_id: d.tool_use_id, hook: denied.hookSpecificOutput?.permissionDecision, can: can.behavior, start: typeof start }))
}

void main()
