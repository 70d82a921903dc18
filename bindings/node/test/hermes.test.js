'use strict'
// Hermes: PermissionSet (immutable, domain wildcards, never `*:action`), withPermissions and
// withPermissionsAll, PermissionDeniedError with the exact message.

const test = require('node:test')
const assert = require('node:assert/strict')
const { PermissionSet, withPermissions, withPermissionsAll, PermissionDeniedError } = require('..')

const MESSAGE = 'fs.write requires the "fs:write" permission, which was not granted.\nRetrying with different arguments will not help'

test('PermissionSet: none, all, a list, wildcards', () => {
  assert.equal(PermissionSet.none().has('fs:read'), false)
  assert.equal(PermissionSet.all().has('anything:at-all'), true)
  const set = new PermissionSet(['fs:read', 'net:*'])
  assert.equal(set.has('fs:read'), true)
  assert.equal(set.has('fs:write'), false)
  assert.equal(set.has('net:http'), true)
  assert.equal(set.has('net:brand-new-action'), true)
  assert.equal(set.has('fs'), false)
  assert.equal(set.has('fs:*'), false)
  assert.equal(new PermissionSet().has('fs:read'), false)
  assert.equal(String(new PermissionSet(['net:http', 'fs:read'])), 'fs:read, net:http')
})

test('PermissionSet: *:action and malformed grants are refused with the reason', () => {
  assert.throws(() => new PermissionSet(['*:read']), /`\*:read` puts a wildcard on the domain/)
  assert.throws(() => PermissionSet.none().grant('fs'), /`fs` is not a permission/)
  assert.equal(new PermissionSet(['*']).has('fs:write'), true)
})

test('grant returns a copy; the original is unchanged', () => {
  const base = PermissionSet.none()
  const granted = base.grant('fs:read', 'net:http')
  assert.equal(granted.has('fs:read') && granted.has('net:http'), true)
  assert.equal(base.has('fs:read'), false)
  const wider = granted.grant(['fs:write'])
  assert.equal(wider.has('fs:write'), true)
  assert.equal(granted.has('fs:write'), false)
  assert.notEqual(wider, granted)
})

test('withPermissions refuses before execute with the exact message and the permission', () => {
  let ran = 0
  const writeFile = { name: 'fs.write', permissions: ['fs:write'], description: 'writes', execute: (input) => { ran++; return input } }
  const guarded = withPermissions(writeFile, PermissionSet.none())
  assert.equal(guarded.description, 'writes')
  let error
  try { guarded.execute({ path: '/x' }) } catch (e) { error = e }
  assert.ok(error instanceof PermissionDeniedError)
  assert.ok(error instanceof Error)
  assert.equal(error.message, MESSAGE)
  assert.equal(error.permission, 'fs:write')
  assert.equal(error.tool, 'fs.write')
  assert.equal(ran, 0)
  const allowed = withPermissions(writeFile, new PermissionSet(['fs:*']))
  assert.deepEqual(allowed.execute({ path: '/x' }), { path: '/x' })
  assert.equal(ran, 1)
})

test('the first missing permission in declaration order is named, and only it', () => {
  const tool = { name: 'sync', permissions: ['fs:read', 'net:http', 'fs:write'], execute: () => 'ok' }
  const e = (() => { try { withPermissions(tool, new PermissionSet(['fs:read'])).execute() } catch (err) { return err } })()
  assert.equal(e.permission, 'net:http')
  assert.equal(e.message, 'sync requires the "net:http" permission, which was not granted.\nRetrying with different arguments will not help')
  const bad = { name: 'odd', permissions: ['fs'], execute: () => 'ran' }
  assert.throws(() => withPermissions(bad, PermissionSet.all()).execute(), PermissionDeniedError)
})

test('withPermissionsAll guards every tool with one set; async tools keep their promise', async () => {
  const readFile = { name: 'fs.read', permissions: ['fs:read'], execute: async () => 'read' }
  const fetchUrl = { name: 'net.fetch', permissions: ['net:http'], execute: async () => 'fetched' }
  const [r, f] = withPermissionsAll([readFile, fetchUrl], PermissionSet.none().grant('fs:read'))
  assert.equal(await r.execute(), 'read')
  assert.throws(() => f.execute(), (e) => e instanceof PermissionDeniedError && e.permission === 'net:http')
  assert.throws(() => withPermissions({ name: 'x' }, PermissionSet.none()), TypeError)
  assert.throws(() => withPermissions(readFile, ['fs:read']), TypeError)
})
