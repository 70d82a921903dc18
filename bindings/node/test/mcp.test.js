'use strict'
// guardClient with a real McpServer and Client over the SDK's InMemoryTransport: listTools is
// filtered, and a denied call is an isError result that never reaches the server, on every
// call path the Client has.

const test = require('node:test')
const assert = require('node:assert/strict')
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js')
const { Client } = require('@modelcontextprotocol/sdk/client/index.js')
const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js')
const { CallToolResultSchema } = require('@modelcontextprotocol/sdk/types.js')
const z = require('zod')
const { Engine, guardClient } = require('..')

const POLICY = `
server files {
  tool read(path)
  tool write(path, content)
  tool stat(path)
}
agent bot {
  allow files.read where path matches "/srv/**"
  allow files.stat
}
`

/** A server with three tools that count their calls, and a guarded client connected to it. */
async function setup(t, options) {
  const calls = []
  const server = new McpServer({ name: 'files', version: '1.0.0' })
  for (const name of ['read', 'write', 'stat']) {
    const shape = name === 'write' ? { path: z.string(), content: z.string() } : { path: z.string() }
    server.registerTool(name, { description: name, inputSchema: shape }, async (args) => {
      calls.push([name, args])
      return { content: [{ type: 'text', text: `${name} ${args.path}` }] }
    })
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: 'test', version: '1.0.0' })
  const engine = Engine.fromSource(POLICY, 'mcp.policy')
  guardClient(client, engine, 'bot', options)
  await server.connect(serverSide)
  await client.connect(clientSide)
  t.after(async () => {
    await client.close()
    await server.close()
  })
  return { client, calls, engine }
}

test('listTools shows only what the agent may see', async (t) => {
  const { client } = await setup(t)
  const { tools } = await client.listTools()
  assert.deepEqual(tools.map((x) => x.name).sort(), ['read', 'stat'])
  const raw = await client.request({ method: 'tools/list', params: {} }, require('@modelcontextprotocol/sdk/types.js').ListToolsResultSchema)
  assert.deepEqual(raw.tools.map((x) => x.name).sort(), ['read', 'stat'])
})

test('callTool: allowed calls reach the server, denied ones are isError results that do not', async (t) => {
  const { client, calls } = await setup(t)
  const ok = await client.callTool({ name: 'read', arguments: { path: '/srv/a' } })
  assert.equal(ok.isError, undefined)
  assert.equal(ok.content[0].text, 'read /srv/a')
  const outside = await client.callTool({ name: 'read', arguments: { path: '/etc/passwd' } })
  assert.equal(outside.isError, true)
  assert.match(outside.content[0].text, /no rule/i)
  assert.equal(outside._meta['toolgate/decision'].reason, 'no_matching_rule')
  const write = await client.callTool({ name: 'write', arguments: { path: '/srv/a', content: 'x' } })
  assert.equal(write.isError, true)
  assert.deepEqual(calls, [['read', { path: '/srv/a' }]])
})

test('client.request with tools/call is guarded too', async (t) => {
  const { client, calls } = await setup(t)
  const denied = await client.request({ method: 'tools/call', params: { name: 'write', arguments: { path: '/srv/a', content: 'x' } } }, CallToolResultSchema)
  assert.equal(denied.isError, true)
  const allowed = await client.request({ method: 'tools/call', params: { name: 'stat', arguments: { path: '/x' } } }, CallToolResultSchema)
  assert.equal(allowed.content[0].text, 'stat /x')
  assert.deepEqual(calls, [['stat', { path: '/x' }]])
})

test('experimental.tasks.callToolStream and requestStream are guarded too', async (t) => {
  const { client, calls } = await setup(t)
  const collect = async (stream) => {
    const out = []
    for await (const m of stream) out.push(m)
    return out
  }
  const denied = await collect(client.experimental.tasks.callToolStream({ name: 'write', arguments: { path: '/srv/a', content: 'x' } }))
  assert.equal(denied.length, 1)
  assert.equal(denied[0].type, 'result')
  assert.equal(denied[0].result.isError, true)
  const deniedRaw = await collect(client.experimental.tasks.requestStream({ method: 'tools/call', params: { name: 'read', arguments: { path: '/etc' } } }, CallToolResultSchema))
  assert.equal(deniedRaw[0].result.isError, true)
  const allowed = await collect(client.experimental.tasks.callToolStream({ name: 'read', arguments: { path: '/srv/b' } }))
  assert.equal(allowed.at(-1).type, 'result')
  assert.equal(allowed.at(-1).result.content[0].text, 'read /srv/b')
  assert.deepEqual(calls, [['read', { path: '/srv/b' }]])
})

test('the policy server name can be given; an unknown one denies everything', async (t) => {
  const { client, calls } = await setup(t, { server: 'other' })
  assert.deepEqual((await client.listTools()).tools, [])
  const r = await client.callTool({ name: 'stat', arguments: { path: '/x' } })
  assert.equal(r.isError, true)
  assert.deepEqual(calls, [])
  assert.throws(() => guardClient(client, Engine.fromSource(POLICY), 'bot'), /already guarded/)
})
