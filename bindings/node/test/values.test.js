'use strict'
// JS values map to JSON exactly: what JSON can hold is decided as its JSON text would be;
// what it cannot is a `bad_request` decision, never a throw from `decide`.

const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { Engine } = require('..')
const { evalLines } = require('./support.js')

const POLICY = `
tool t(p?, q?)
agent a {
  allow t where p == 1 and q matches "/ok/**"
  allow t where p == "x"
  allow t where p == 2.5
}
`
const engine = Engine.fromSource(POLICY, 'values.policy')
const base = { agent: 'a', tool: 't', tool_use_id: 'toolu_v' }

test('values JSON cannot hold are bad_request decisions that keep the tool_use_id', () => {
  const sym = Symbol('s')
  const cyclic = { p: 1 }
  cyclic.self = cyclic
  const cyclicArray = []
  cyclicArray.push(cyclicArray)
  const holes = [1, , 3] // eslint-disable-line no-sparse-arrays
  class Point { constructor() { this.x = 1 } }
  const cases = {
    'undefined in an array': { p: [1, undefined] },
    'a hole in an array': { p: holes },
    NaN: { p: NaN },
    Infinity: { p: Infinity },
    '-Infinity': { p: [-Infinity] },
    BigInt: { p: 10n },
    function: { p() {} },
    symbol: { p: sym },
    cycle: cyclic,
    'cyclic array': { p: cyclicArray },
    Date: { p: new Date(0) },
    Map: { p: new Map([['a', 1]]) },
    Set: { p: new Set([1]) },
    RegExp: { p: /x/ },
    Buffer: { p: Buffer.from('x') },
    'typed array': { p: new Uint8Array(2) },
    'class instance': { p: new Point() },
    'object with a prototype of its own': { p: Object.create({ inherited: 1 }) },
    'boxed string': { p: new String('x') }, // eslint-disable-line no-new-wrappers
    Promise: { p: Promise.resolve(1) },
    'lone surrogate': { p: 'a\ud800b' },
    'lone surrogate key': { ['\udc00']: 1 },
    'throwing getter': { get p() { throw new Error('boom') } },
    'throwing proxy': new Proxy({}, { ownKeys() { throw new Error('trap') } }),
  }
  for (const [name, args] of Object.entries(cases)) {
    let d
    assert.doesNotThrow(() => { d = engine.decide({ ...base, args }) }, name)
    assert.equal(d.decision, 'deny', name)
    assert.equal(d.reason, 'bad_request', name)
    assert.equal(d.tool_use_id, 'toolu_v', name)
    assert.match(d.message, /^bad request: /, name)
    assert.equal(d.policy_hash, engine.policyHash, name)
  }
  // The engine still answers normally after a getter threw (no exception left pending).
  assert.equal(engine.decide({ ...base, args: { p: 'x' } }).reason, 'allowed_by_rule')
})

test('the request itself: bad fields and shapes are refused with the reason named', () => {
  assert.match(engine.decide({ agent: 'a', tool: Symbol('t') }).message, /`tool` is a symbol/)
  assert.match(engine.decide({ agent: 'a', tool: 't', args: { p: NaN } }).message, /`args\.p` is NaN/)
  assert.match(engine.decide({ agent: 'a', tool: 't', args: { 'odd key': [0, [NaN]] } }).message, /`args\["odd key"\]\[1\]\[0\]` is NaN/)
  assert.match(engine.decide(new (class R { constructor() { this.agent = 'a'; this.tool = 't' } })()).message, /instance of a class/)
  const both = engine.decide({ agent: 'a', tool: 't', tool_use_id: 'x', toolUseId: 'y' })
  assert.equal(both.reason, 'bad_request')
  assert.match(both.message, /both given/)
  assert.equal(engine.decide(undefined).reason, 'bad_request')
  assert.equal(engine.decide(() => 1).reason, 'bad_request')
})

test('what JSON holds is decided as its JSON text is by the CLI', () => {
  const nullProto = Object.assign(Object.create(null), { p: 1, q: '/ok/a' })
  const values = [
    { p: 1, q: '/ok/a' },
    { p: 1.0, q: '/ok/a' },
    { p: -0, q: '/ok/a' },
    { p: 2.5 },
    { p: 'x' },
    { p: 'x', q: undefined }, // undefined property: absent, as JSON.stringify leaves it out
    { p: 1e21 },
    { p: 2 ** 64 },
    { p: -(2 ** 63) },
    { p: Number.MAX_SAFE_INTEGER + 2 },
    { p: 'é\u0000\uffff😀' },
    { p: '\ufffd' }, // a real U+FFFD is text
    { p: [1, 'x', null, true, { a: [] }] },
    { p: true },
    { p: null },
    nullProto,
    { p: 1, [Symbol('k')]: 2, q: '/ok/s' }, // symbol keys are not JSON keys
    { 0: 'a', 1: 'b', p: 'x' }, // integer-like keys
    { p: 'x'.repeat(5000) },
  ]
  const fs = require('node:fs')
  const os = require('node:os')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-values-'))
  try {
    const file = path.join(dir, 'values.policy')
    fs.writeFileSync(file, POLICY)
    const local = Engine.load(file)
    const lines = values.map((args) => JSON.stringify({ ...base, args }))
    const cli = evalLines(file, lines)
    values.forEach((args, i) => {
      assert.deepEqual(local.decide({ ...base, args }), cli[i], lines[i])
    })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('nesting: the CLI parser\'s limit, the same on both sides', () => {
  const fs = require('node:fs')
  const os = require('node:os')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-depth-'))
  try {
    const file = path.join(dir, 'values.policy')
    fs.writeFileSync(file, POLICY)
    const local = Engine.load(file)
    for (const depth of [1, 100, 125, 126, 127, 128, 129, 200]) {
      // `depth` arrays inside args, inside the request: depth + 2 containers in all.
      let v = 1
      for (let i = 0; i < depth; i++) v = [v]
      const req = { ...base, args: { p: v } }
      const [cli] = evalLines(file, [JSON.stringify(req)])
      const got = local.decide(req)
      assert.equal(got.reason, cli.reason, `depth ${depth}: ${cli.message}`)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('an oversized request is refused, not copied', () => {
  const d = engine.decide({ ...base, args: { p: 'x'.repeat(2 << 20) } })
  assert.equal(d.reason, 'bad_request')
  assert.match(d.message, /1048576/)
  const many = engine.decide({ ...base, args: { p: new Array(2 << 20).fill(0) } })
  assert.equal(many.reason, 'bad_request')
})

test('only own enumerable fields of the request count, as in JSON', () => {
  const req = Object.create(null)
  Object.assign(req, { agent: 'a', tool: 't', args: { p: 'x' } })
  Object.defineProperty(req, 'tool_use_id', { value: 'hidden', enumerable: false })
  const d = engine.decide(req)
  assert.equal(d.reason, 'allowed_by_rule')
  assert.equal(d.tool_use_id, null)
  Object.prototype.toolUseId = 'polluted' // eslint-disable-line no-extend-native
  try {
    assert.equal(engine.decide({ agent: 'a', tool: 't', args: { p: 'x' } }).tool_use_id, null)
  } finally {
    delete Object.prototype.toolUseId
  }
  const getter = { agent: 'a', get tool() { throw new Error('no') } }
  assert.equal(engine.decide(getter).reason, 'bad_request')
  const proxy = new Proxy({ agent: 'a', tool: 't' }, { getPrototypeOf() { throw new Error('trap') } })
  assert.equal(engine.decide(proxy).reason, 'bad_request')
})
