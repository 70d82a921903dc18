'use strict'
// `decide` answers most requests with the number of a decision shape, copied from a template
// kept per engine (see toolgate.js). Whatever path a request takes, the decision is the one
// built in full (as with `explain`, less the explanation), a fresh object every time.

const test = require('node:test')
const assert = require('node:assert/strict')
const { Engine } = require('..')

const POLICY = `
tool t(p?, q?)
agent a {
  allow t where p == "x"
  deny t where p == "y"
  allow t where q matches "/ok/**"
}
`
/** The decision built in full by the addon: `decide` with `explain`, less the explanation. */
function built(engine, request) {
  const d = engine.decide(request, true)
  delete d.explanation
  return d
}
const native = { call: built }

test('decisions are fresh objects: changing one changes no later decision', () => {
  const engine = Engine.fromSource(POLICY, 'shapes.policy')
  const req = { agent: 'a', tool: 't', args: { p: 'x' } }
  const first = engine.decide(req)
  first.message = 'changed'
  first.rule.line = 99
  first.rule.agent = 'other'
  const second = engine.decide(req)
  assert.notEqual(second, first)
  assert.notEqual(second.rule, first.rule)
  assert.deepEqual(second, native.call(engine, req))
  assert.equal(second.rule.line, 4)
})

test('one shape echoes each request\'s own tool_use_id, in either spelling, or null', () => {
  const engine = Engine.fromSource(POLICY, 'shapes.policy')
  const args = { p: 'y' }
  const requests = [
    { agent: 'a', tool: 't', args, tool_use_id: 'toolu_1' },
    { agent: 'a', tool: 't', args, toolUseId: 'toolu_2' },
    { agent: 'a', tool: 't', args },
    { agent: 'a', tool: 't', args, tool_use_id: null },
    { agent: 'a', tool: 't', args, toolUseId: undefined, tool_use_id: 'toolu_3' },
    { agent: 'a', tool: 't', args, tool_use_id: 5 },
    { agent: 5, tool: 't', args, toolUseId: 'toolu_4' },
  ]
  for (const r of requests) {
    assert.deepEqual(engine.decide(r), native.call(engine, r), JSON.stringify(r))
  }
  assert.deepEqual(requests.map((r) => engine.decide(r).tool_use_id), ['toolu_1', 'toolu_2', null, null, 'toolu_3', null, 'toolu_4'])
})

test('decisions whose message quotes the request equal the ones built in full, every time', () => {
  const engine = Engine.fromSource(POLICY, 'shapes.policy')
  // Each unknown tool's message names it: never numbered, so nothing fills up.
  for (let i = 0; i < 5000; i++) {
    const r = { agent: 'a', tool: `u${i}`, tool_use_id: `id${i}` }
    const d = engine.decide(r)
    if (i % 100 === 0) assert.deepEqual(d, native.call(engine, r), r.tool)
    else assert.equal(d.tool_use_id, `id${i}`)
  }
  for (const r of [{ agent: 'a', tool: 'u7' }, { agent: 'nobody', tool: 't' }, { agent: 'a', tool: 't', args: { p: 'x' } }, { agent: 'a', tool: 't', args: { p: 'z' } }]) {
    assert.deepEqual(engine.decide(r), native.call(engine, r), r.tool)
  }
})

test('a frozen engine decides as any other', () => {
  const engine = Object.freeze(Engine.fromSource(POLICY, 'shapes.policy'))
  for (const r of [{ agent: 'a', tool: 't', args: { p: 'x' }, toolUseId: 'k' }, { agent: 'a', tool: 't', args: { q: '/no' } }]) {
    assert.deepEqual(engine.decide(r), native.call(engine, r))
  }
})

test('unusual values are decided alike whichever way the decision object is built', () => {
  const engine = Engine.fromSource(POLICY, 'shapes.policy')
  let deep = { q: '/ok/deep' }
  for (let i = 0; i < 60; i++) deep = { q: '/ok/x', n: deep } // past the text path's depth, within the limit
  let calls = 0
  const counted = { agent: 'a', tool: 't', args: { get p() { calls++; return 'x' } } }
  const requests = [
    { agent: 'a', tool: 't', args: deep },
    { agent: 'a', tool: 't', args: { p: 'x', q: ['/a', NaN] } },
    { agent: 'a', tool: 't', args: { p: 'x', q: '\udfff' } },
    { agent: 'a', tool: 't', args: { p: 'x', ['k\ud800']: 1 } },
    { agent: 'a', tool: 't', args: { p: 'x', q: 'é😀' } },
    { agent: 'a', tool: 't', args: { p: 'x', q: 'x'.repeat(300_000) } },
    { agent: 'a', tool: 't', args: { p: 'x' }, tool_use_id: 'a', toolUseId: 'b' },
    { agent: 'a', tool: 't', args: { p: 'x', toJSON() { return {} } } },
    counted,
  ]
  for (const r of requests) {
    assert.deepEqual(engine.decide(r), native.call(engine, r))
  }
  const d = engine.decide(counted)
  assert.equal(d.reason, 'allowed_by_rule')
  Object.prototype.toJSON = () => ({ p: 'y' }) // eslint-disable-line no-extend-native
  try {
    assert.equal(engine.decide({ agent: 'a', tool: 't', args: { p: 'x' } }).reason, 'allowed_by_rule')
  } finally {
    delete Object.prototype.toJSON
  }
  assert.ok(calls >= 3)
})
