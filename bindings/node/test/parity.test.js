'use strict'
// The same requests through the CLI (`toolgate eval`) and through `engine.decide` get the
// same decisions, field for field, with and without `--explain`.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { Engine } = require('..')
const { POLICIES, evalLines } = require('./support.js')

const EXAMPLE = path.join(POLICIES, 'example.policy')

/** Requests covering every reason, absent and present optional fields, and bad shapes. */
const REQUESTS = [
  { agent: 'code-assistant', server: 'git', tool: 'git_log', args: { repo_path: '/home/user/projects/toolgate' }, tool_use_id: 'toolu_01' },
  { agent: 'code-assistant', server: 'git', tool: 'git_log', args: { repo_path: '/home/user/projects/../../etc' } },
  { agent: 'code-assistant', server: 'git', tool: 'git_push', args: { repo_path: '/x' }, tool_use_id: 'toolu_02' },
  { agent: 'code-assistant', tool: 'Bash', args: { command: 'npm run build', timeout: 600 } },
  { agent: 'code-assistant', tool: 'Bash', args: { command: 'npm run build', timeout: 601 } },
  { agent: 'code-assistant', tool: 'Bash', args: { command: 'npm run x && sudo rm -rf /' } },
  { agent: 'code-assistant', tool: 'Bash', args: {} },
  { agent: 'code-assistant', tool: 'Bash' },
  { agent: 'code-assistant', tool: 'no_such_tool' },
  { agent: 'nobody', tool: 'Bash', args: { command: 'ls' } },
  { agent: 'code-assistant-typo', tool: 'Bash' },
  { agent: 'reviewer', tool: 'read_file', args: { path: '/srv/a.txt' } },
  { agent: 'reviewer', tool: 'read_file', args: { path: '/srv/../etc/passwd' } },
  { agent: 'reviewer', tool: 'read_file', args: { path: ['/srv/a', '/srv/b'] } },
  { agent: 'reviewer', tool: 'read_file', args: { path: null } },
  { agent: 'reviewer', tool: 'read_file', args: { path: 3.5, extra: { deep: [1, [2, { x: true }]] } } },
  { agent: 'shell-helper', tool: 'Bash', args: { command: 'ls -la' }, tool_use_id: null },
  { agent: 'sandboxed', tool: 'Bash', args: { command: 'ls' }, server: null, permissions: null },
  { agent: 'sandboxed', tool: 'Bash', args: { command: 'ls' }, permissions: ['proc:exec'] },
  { agent: 'code-assistant', server: 'database', tool: 'query', args: { sql: 'SELECT id, name FROM users' } },
  { agent: 'code-assistant', server: 'database', tool: 'query', args: { sql: 'DROP TABLE users' } },
  { agent: 'code-assistant', server: 'nope', tool: 'query' },
  // Well-formed JSON, wrong shapes: the CLI's own type errors.
  { agent: 1, tool: 'Bash', tool_use_id: 'toolu_03' },
  { tool: 'Bash' },
  { agent: 'code-assistant' },
  { agent: 'code-assistant', tool: 'Bash', args: [] },
  { agent: 'code-assistant', tool: 'Bash', args: null },
  { agent: 'code-assistant', tool: 'Bash', server: 5 },
  { agent: 'code-assistant', tool: 'Bash', tool_use_id: 7 },
  { agent: 'code-assistant', tool: 'Bash', permissions: ['a', 1] },
  { agent: 'code-assistant', tool: 'Bash', permissions: 'fs:read' },
  { agent: 'code-assistant', tool: 'Bash', other: { ignored: true } },
  [],
  'Bash',
  null,
  7,
]

test('decide gives the CLI its decisions, field for field', () => {
  const engine = Engine.load(EXAMPLE)
  const expected = evalLines(EXAMPLE, REQUESTS.map((r) => JSON.stringify(r)))
  assert.equal(expected.length, REQUESTS.length)
  const reasons = new Set()
  REQUESTS.forEach((r, i) => {
    const got = engine.decide(r)
    assert.deepEqual(got, expected[i], `request ${i}: ${JSON.stringify(r)}`)
    reasons.add(got.reason)
  })
  // The requests keep reaching the reasons they were written for.
  for (const reason of ['allowed_by_rule', 'denied_by_rule', 'no_matching_rule', 'permission_missing', 'missing_argument', 'unknown_agent', 'unknown_tool', 'bad_request']) {
    assert.ok(reasons.has(reason), `no request reached ${reason}`)
  }
})

test('decide with explain gives the CLI its --explain decisions', () => {
  const engine = Engine.load(EXAMPLE)
  const expected = evalLines(EXAMPLE, REQUESTS.map((r) => JSON.stringify(r)), ['--explain'])
  REQUESTS.forEach((r, i) => {
    assert.deepEqual(engine.decide(r, true), expected[i], `request ${i}: ${JSON.stringify(r)}`)
  })
})

test('toolUseId is the JS spelling of tool_use_id', () => {
  const engine = Engine.load(EXAMPLE)
  const r = { agent: 'code-assistant', tool: 'Bash', args: { command: 'npm run x' } }
  const [cli] = evalLines(EXAMPLE, [JSON.stringify({ ...r, tool_use_id: 'toolu_9' })])
  assert.deepEqual(engine.decide({ ...r, toolUseId: 'toolu_9' }), cli)
})

test('a bundle and its source decide alike, and a bundle through the CLI agrees', (t) => {
  const fs = require('node:fs')
  const os = require('node:os')
  const source = Engine.load(EXAMPLE)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-node-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'example.bundle')
  fs.writeFileSync(file, source.toBundle())
  const fromBytes = Engine.fromBundle(fs.readFileSync(file))
  const fromPath = Engine.load(file)
  assert.equal(fromBytes.policyHash, source.policyHash)
  assert.equal(fromPath.policyHash, source.policyHash)
  const expected = evalLines(file, REQUESTS.map((r) => JSON.stringify(r)))
  REQUESTS.forEach((r, i) => {
    assert.deepEqual(fromBytes.decide(r), expected[i])
    assert.deepEqual(fromPath.decide(r), expected[i])
  })
})

test('tools lists what `toolgate tools` lists', () => {
  const { cli } = require('./support.js')
  const engine = Engine.load(EXAMPLE)
  for (const agent of engine.agents) {
    const r = cli(['tools', EXAMPLE, '--agent', agent])
    assert.equal(r.status, 0, r.stderr)
    const names = r.stdout.split('\n').filter((l) => l !== '')
    assert.deepEqual(engine.tools(agent).map((t) => t.name), names, agent)
  }
  assert.equal(engine.tools('nobody'), null)
})
