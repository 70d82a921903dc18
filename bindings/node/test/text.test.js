'use strict'
// The request text `decide` hands the addon (lib/text.js): UTF-8 JSON whose value is exactly
// the request's, or -1 for what JSON cannot hold; written into one reused buffer.

const test = require('node:test')
const assert = require('node:assert/strict')
const { writeRequest, writeNotObject, requestBytes } = require('../lib/text.js')
const { Engine } = require('..')

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The value the last written text holds (the text must be UTF-8 and JSON). */
function written(length) {
  return JSON.parse(utf8.decode(requestBytes().subarray(0, length)))
}

/** A small deterministic generator (xorshift), so a failure can be replayed. */
function random(seed) {
  let x = seed >>> 0 || 1
  return (n) => {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x % n
  }
}

/** A string of code units from every class the writer treats apart (no lone surrogates). */
function string(r) {
  const units = [0x41, 0x7a, 0x2f, 0x20, 0x22, 0x5c, 0x00, 0x0a, 0x1f, 0x7f, 0xe9, 0x7ff, 0x800, 0x20ac, 0xd7ff, 0xe000, 0xfffd, 0xffff]
  let s = ''
  for (let i = r(12); i > 0; i--) {
    if (r(6) === 0) s += String.fromCodePoint(0x10000 + r(0x100000)) // a surrogate pair
    else s += String.fromCharCode(units[r(units.length)])
  }
  return s
}

function value(r, depth) {
  switch (depth > 3 ? r(5) : r(7)) {
    case 0: return string(r)
    case 1: return [0, -0, 1, -1, 2.5, 1e21, 1e-7, 5e-324, 2 ** 53 + 2, -(2 ** 63)][r(10)]
    case 2: return r(2) === 0
    case 3: return null
    case 4: return r(1000) - 500
    case 5: {
      const a = []
      for (let i = r(4); i > 0; i--) a.push(value(r, depth + 1))
      return a
    }
    default: {
      const o = r(4) === 0 ? Object.create(null) : {}
      for (let i = r(4); i > 0; i--) o[string(r)] = value(r, depth + 1)
      if (r(4) === 0) o.gone = undefined
      return o
    }
  }
}

test('the text of a JSON value is that value, in UTF-8', () => {
  const r = random(15)
  for (let i = 0; i < 2000; i++) {
    const args = value(r, 0)
    const id = r(2) === 0 ? string(r) : undefined
    const n = writeRequest(id, string(r), string(r), r(2) === 0 ? null : undefined, args, undefined)
    assert.ok(n > 0, JSON.stringify(args))
    const want = JSON.parse(JSON.stringify({ tool_use_id: id, args }))
    const got = written(n)
    assert.deepEqual(got.args, want.args, JSON.stringify(args))
    assert.equal(got.tool_use_id, want.tool_use_id)
    assert.equal(Object.keys(got).length, 3 + (id === undefined ? 0 : 1) + ('server' in got ? 1 : 0))
  }
  assert.equal(written(writeNotObject()), null)
})

test('what JSON cannot hold, too deep or too long text, is -1', () => {
  class Point { constructor() { this.x = 1 } }
  let deep = 1
  for (let i = 0; i < 40; i++) deep = [deep]
  const refused = [
    'a\ud800', '\udc00a', 'a\ud800b', '\ud800\ud800', NaN, Infinity, 1n, Symbol('s'), () => 1,
    [1, undefined], [1, , 2], new Point(), new Date(0), new Map(), deep, // eslint-disable-line no-sparse-arrays
    'x'.repeat(400_000), '\u0001'.repeat(200_000),
  ]
  for (const v of refused) {
    assert.equal(writeRequest(undefined, 'a', 't', undefined, { p: v }, undefined), -1, String(typeof v))
  }
  assert.equal(writeRequest(undefined, 'a', 't', undefined, { ['k\udbff']: 1 }, undefined), -1)
  // Within the limit, long text is written whole (the buffer grows).
  const long = 'é"'.repeat(100_000)
  assert.deepEqual(written(writeRequest(undefined, 'a', 't', undefined, { p: long }, undefined)).args.p, long)
})

test('a getter that decides while the request is written leaves both decisions right', () => {
  const engine = Engine.fromSource('tool t(p?)\nagent a {\n  allow t where p == "x"\n}\n', 'text.policy')
  const native = Engine.prototype[Symbol.for('toolgate.nativeDecide')]
  let inner
  const outer = { agent: 'a', tool: 't', tool_use_id: 'outer', args: { get p() { inner = engine.decide({ agent: 'a', tool: 't', args: { p: 'y' }, tool_use_id: 'inner' }); return 'x' }, q: 'é'.repeat(3000) } }
  const d = engine.decide(outer)
  assert.equal(d.reason, 'allowed_by_rule')
  assert.equal(d.tool_use_id, 'outer')
  assert.equal(inner.reason, 'no_matching_rule')
  assert.equal(inner.tool_use_id, 'inner')
  assert.deepEqual(engine.decide({ agent: 'a', tool: 't', args: { p: 'x' } }), native.call(engine, { agent: 'a', tool: 't', args: { p: 'x' } }))
})

test('an enumerable property inherited from Object.prototype is not an argument', () => {
  Object.prototype.polluted = 'x' // eslint-disable-line no-extend-native
  try {
    const length = writeRequest(undefined, 'a', 't', undefined, { p: 'y', q: { r: 1 } }, undefined)
    assert.deepEqual(written(length), { agent: 'a', tool: 't', args: { p: 'y', q: { r: 1 } } })
  } finally {
    delete Object.prototype.polluted
  }
})
