'use strict'
// Every `test` block of policies/ replayed through the JS API: the same outcomes as
// `toolgate test`, from source and from the bundle.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { Engine } = require('..')
const { POLICIES, cli } = require('./support.js')

/** Replays an engine's test cases; returns the number replayed. */
function replay(engine, label) {
  const cases = engine.testCases()
  for (const c of cases) {
    const d = engine.decide(c.request)
    const where = `${label}: ${c.block} at ${c.location}: ${JSON.stringify(c.request)}`
    assert.equal(d.decision, c.expect, `${where} -> ${d.reason}: ${d.message}`)
    if (c.reason !== null) assert.equal(d.reason, c.reason, where)
  }
  return cases.length
}

test('every test block of policies/ passes through the JS API, as through `toolgate test`', () => {
  const r = cli(['test', POLICIES])
  assert.equal(r.status, 0, r.stdout + r.stderr)
  const summary = /(\d+) passed, (\d+) failed/.exec(r.stdout + r.stderr)
  assert.ok(summary, `no summary in: ${r.stdout}`)
  const engine = Engine.load(POLICIES)
  const replayed = replay(engine, 'policies/')
  assert.equal(replayed, Number(summary[1]))
  assert.ok(replayed > 20, `only ${replayed} cases`)
  assert.equal(replay(Engine.fromBundle(engine.toBundle()), 'bundle'), replayed)
})

test('each policy file alone replays its own test blocks', () => {
  const files = fs.readdirSync(POLICIES).filter((f) => f.endsWith('.policy'))
  assert.ok(files.length >= 4)
  for (const f of files) {
    const text = fs.readFileSync(path.join(POLICIES, f), 'utf8')
    const engine = Engine.fromSource(text, f)
    assert.ok(replay(engine, f) > 0, `${f} has no test cases`)
  }
})

test('a failing expectation is seen as failing (the replay can fail)', () => {
  const engine = Engine.fromSource('tool t\nagent a { allow t }\ntest "x" { deny a t {} }', 'x.policy')
  assert.throws(() => replay(engine, 'x'), /x\.policy:3/)
})
