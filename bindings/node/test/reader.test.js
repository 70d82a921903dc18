'use strict'
// `decide` reads a request with the library's one request reader: the CLI's answer on every
// field, for odd keys, sizes near the limit and depths near the limit, each property read
// once, and the same answer however large the last request was.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Engine } = require('..')
const { evalLines } = require('./support.js')

const POLICY = `
tool t(p?, q?)
agent a {
  allow t where p == "x"
  deny t where p == "y"
}
`
const LIMIT = 1 << 20

/** The policy as a file (for the CLI) and its engine, loaded from that file. */
function setup(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-reader-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'reader.policy')
  fs.writeFileSync(file, POLICY)
  return { file, engine: Engine.load(file) }
}

/** `depth` arrays around 1. */
function nested(depth) {
  let v = 1
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

/** Requests as JSON lines, decided by the CLI and by `decide` on the parsed value. */
function both(file, engine, requests) {
  const lines = requests.map((r) => JSON.stringify(r))
  const cli = evalLines(file, lines)
  return lines.map((line, i) => ({ line, cli: cli[i], node: engine.decide(JSON.parse(line)) }))
}

test('after a request over 64 KiB, small requests are still decided right', (t) => {
  const { engine } = setup(t)
  const small = { agent: 'a', tool: 't', args: { p: 'x' }, tool_use_id: 'k' }
  const before = engine.decide(small)
  assert.equal(before.reason, 'allowed_by_rule')
  for (const size of [70 << 10, 300 << 10, 900 << 10]) {
    const big = engine.decide({ agent: 'a', tool: 't', args: { p: 'y', q: 'é'.repeat(size / 2) } })
    assert.equal(big.reason, 'denied_by_rule', String(size))
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(engine.decide(small), before)
      assert.equal(engine.decide({ agent: 'a', tool: 't', args: { p: 'y' } }).reason, 'denied_by_rule')
      assert.equal(engine.decide({ agent: 'a', tool: 't', args: { p: 'z' } }).reason, 'no_matching_rule')
    }
  }
})

test('the size limit counts the request as JSON text, as the CLI does', (t) => {
  const { file, engine } = setup(t)
  const base = { agent: 'a', tool: 't', args: { p: 'x' } }
  const overhead = JSON.stringify({ ...base, args: { p: 'x', q: '' } }).length
  /** A request whose JSON text is exactly `size` bytes, its bulk in `q`. */
  const exactly = (size) => ({ ...base, args: { p: 'x', q: 'a'.repeat(size - overhead) } })
  assert.equal(Buffer.byteLength(JSON.stringify(exactly(LIMIT))), LIMIT)
  const requests = [
    exactly(LIMIT),
    exactly(LIMIT + 1),
    // Numbers: about 1.2 MB of digits (each counted by its text, not as one byte).
    { ...base, args: { p: 'x', q: new Array(120_000).fill(123456789) } },
    { ...base, args: { p: 'x', q: new Array(110_000).fill(-1.5e-7) } },
    // Escapes: 6 bytes of text each, 1.2-6.9 MB in all.
    { ...base, args: { p: 'x', q: '\u0001'.repeat(200_000) } },
    { ...base, args: { p: 'x', q: '\u001f'.repeat(1_150_000) } },
    { ...base, args: { p: 'x', q: '"\\'.repeat(330_000) } },
    // Non-ASCII: 2-4 bytes each.
    { ...base, args: { p: 'x', q: 'é'.repeat(600_000) } },
    { ...base, args: { p: 'x', q: '😀'.repeat(300_000) } },
    // Just under the limit in each kind.
    { ...base, args: { p: 'x', q: '\u0001'.repeat(174_000) } },
    { ...base, args: { p: 'x', q: 'é'.repeat(524_000) } },
    { ...base, args: { p: 'x', q: new Array(100_000).fill(123456789) } },
    // Long keys count too.
    { ...base, args: { p: 'x', ['k'.repeat(LIMIT)]: 1 } },
    { ...base, meta: 'x'.repeat(LIMIT) },
  ]
  const got = both(file, engine, requests)
  const sizes = got.map((g) => Buffer.byteLength(g.line))
  assert.ok(Math.max(...sizes) > 6_800_000, String(sizes))
  got.forEach((g, i) => {
    assert.equal(g.node.reason, g.cli.reason, `request ${i} (${sizes[i]} bytes): ${g.cli.message}`)
    assert.equal(g.node.decision, g.cli.decision)
    assert.equal(g.node.reason === 'bad_request', sizes[i] > LIMIT, `request ${i}: ${sizes[i]} bytes`)
  })
})

test('keys outside the known fields are read: values JSON cannot hold are refused', (t) => {
  const { file, engine } = setup(t)
  const base = { agent: 'a', tool: 't', args: { p: 'x' }, tool_use_id: 'k' }
  for (const meta of [nested(130), NaN, 10n, () => 1, Symbol('s'), new Date(0), [1, undefined]]) {
    const d = engine.decide({ ...base, meta })
    assert.equal(d.reason, 'bad_request', String(typeof meta))
    assert.match(d.message, /^bad request: `meta/)
    assert.equal(d.tool_use_id, 'k')
  }
  // What JSON holds is decided as the CLI decides its text.
  const odd = [{ ...base, meta: nested(120) }, { ...base, meta: { z: [null, 1.5, 'é'] } }, { ...base, meta: undefined }]
  for (const g of both(file, engine, odd)) assert.deepEqual(g.node, g.cli, g.line)
  const [deep] = both(file, engine, [{ ...base, meta: nested(130) }])
  assert.equal(deep.cli.reason, 'bad_request')
})

test('a getter that throws only on its first read is refused', () => {
  const engine = Engine.fromSource(POLICY, 'getters.policy')
  const once = () => {
    let reads = 0
    return () => {
      reads += 1
      if (reads === 1) throw new Error('first read')
      return 'x'
    }
  }
  const top = { agent: 'a', tool: 't', tool_use_id: 'k' }
  Object.defineProperty(top, 'args', { enumerable: true, get: ((g) => () => ({ p: g() }))(once()) })
  const inArgs = { agent: 'a', tool: 't', tool_use_id: 'k', args: {} }
  Object.defineProperty(inArgs.args, 'p', { enumerable: true, get: once() })
  const inArray = { agent: 'a', tool: 't', tool_use_id: 'k', args: { q: [] } }
  Object.defineProperty(inArray.args.q, 0, { enumerable: true, get: once() })
  const inMeta = { agent: 'a', tool: 't', tool_use_id: 'k', args: { p: 'x' }, meta: {} }
  Object.defineProperty(inMeta.meta, 'm', { enumerable: true, get: once() })
  for (const [name, r] of Object.entries({ top, inArgs, inArray, inMeta })) {
    const d = engine.decide(r)
    assert.equal(d.reason, 'bad_request', name)
    assert.match(d.message, /threw/, name)
  }
  const d = engine.decide(inArgs)
  assert.equal(d.reason, 'allowed_by_rule', 'read once per decision: the second decision reads the second value')
  // Every other property is read once per decision too.
  let reads = 0
  const counted = { agent: 'a', tool: 't', args: { get p() { reads++; return 'x' } } }
  assert.equal(engine.decide(counted).reason, 'allowed_by_rule')
  assert.equal(reads, 1)
  assert.equal(engine.decide(counted).reason, 'allowed_by_rule')
  assert.equal(reads, 2)
})

test('odd keys, sizes and depths on every field get the CLI\'s answer', (t) => {
  const { file, engine } = setup(t)
  const oddKeys = JSON.parse('{"": 1, "__proto__": 2, "constructor": 3, "0": 4, "1e3": 5, "é\\u0000\\"": 6, "\\ud83d\\ude00": 7, "toString": 8}')
  const fields = ['tool_use_id', 'agent', 'tool', 'server', 'args', 'permissions', 'meta']
  const values = [
    oddKeys,
    { nested: oddKeys },
    [oddKeys],
    ['fs:read', 'x'],
    'x',
    '',
    'é😀\u0000"\\',
    null,
    true,
    0,
    -0,
    2 ** 64,
    -(2 ** 63),
    1e21,
    5e-324,
    nested(124),
    nested(125),
    nested(126),
    nested(127),
    { a: nested(124) },
    { a: nested(125) },
    { a: nested(126) },
    'x'.repeat(LIMIT - 80),
    'x'.repeat(LIMIT),
  ]
  const requests = []
  for (const field of fields) {
    for (const v of values) {
      const r = { agent: 'a', tool: 't', args: { p: 'x' }, tool_use_id: 'k' }
      r[field] = v
      requests.push(r)
    }
  }
  // Not objects, and keys in an odd order.
  requests.push([], 'x', 7, null, { tool: 't', args: { p: 'y' }, agent: 'a', server: null, tool_use_id: null })
  const got = both(file, engine, requests)
  got.forEach((g) => {
    const where = `${g.line.slice(0, 120)} (${g.line.length} bytes)`
    assert.equal(g.node.reason, g.cli.reason, `${where}: ${g.cli.message} / ${g.node.message}`)
    assert.equal(g.node.decision, g.cli.decision, where)
    // The CLI's messages for a well-formed request; its own wording for text it cannot parse.
    if (!g.cli.message.startsWith('bad request: invalid JSON') && !g.cli.message.startsWith('bad request: request is ')) {
      assert.deepEqual(g.node, g.cli, where)
    }
  })
})

test('decisions that quote the request cost the same however many there were', () => {
  // Each unknown tool's message names it; no table of shapes fills up with them.
  const engine = Engine.fromSource(POLICY, 'many.policy')
  for (let i = 0; i < 10_000; i++) {
    const d = engine.decide({ agent: 'a', tool: `u${i}`, tool_use_id: `id${i}` })
    assert.equal(d.reason, 'unknown_tool')
    assert.equal(d.tool_use_id, `id${i}`)
    assert.match(d.message, new RegExp(`\`u${i}\``))
  }
  assert.equal(engine.decide({ agent: 'a', tool: 't', args: { p: 'x' } }).reason, 'allowed_by_rule')
})

test('a getter that decides with the same engine while its request is read leaves both right', () => {
  const engine = Engine.fromSource(POLICY, 'reentrant.policy')
  let inner
  const outer = {
    agent: 'a',
    tool: 't',
    tool_use_id: 'outer',
    args: {
      get p() {
        inner = engine.decide({ agent: 'a', tool: 't', args: { p: 'y' }, tool_use_id: 'inner' })
        return 'x'
      },
      q: 'é'.repeat(3000),
    },
  }
  const d = engine.decide(outer)
  assert.equal(d.reason, 'allowed_by_rule')
  assert.equal(d.tool_use_id, 'outer')
  assert.equal(inner.reason, 'denied_by_rule')
  assert.equal(inner.tool_use_id, 'inner')
  assert.equal(engine.decide({ agent: 'a', tool: 't', args: { p: 'x' } }).reason, 'allowed_by_rule')
})
