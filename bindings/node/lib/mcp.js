'use strict'
// MCP TypeScript SDK: a client guarded by a policy. The SDK has no pre-call hook on the client,
// and every tool-call path of its `Client` ends in one of two instance methods: `request`
// (`callTool`, `listTools`, `request({method: 'tools/call'})`, and the non-task branch of
// streams) and `requestStream` (`experimental.tasks.callToolStream`, `experimental.tasks.
// requestStream`). Both are replaced on the instance given, so every path is decided.

const GUARDED = Symbol.for('toolgate.guardClient')

/** The `isError` result a denied call answers with; the server never sees the call. */
function denial(d) {
  return {
    content: [{ type: 'text', text: d.message }],
    isError: true,
    _meta: { 'toolgate/decision': d },
  }
}

/**
 * Guards `client` (a connected or not yet connected `Client`) for `agent`: `listTools` shows
 * only what the policy lets the agent see, and a call the policy denies is answered with an
 * `isError` result without reaching the server. `options.server` names the server in the
 * policy (default: the name the server gave at initialization). Returns the same client.
 */
function guardClient(client, engine, agent, options = {}) {
  if (client === null || typeof client !== 'object' || typeof client.request !== 'function') {
    throw new TypeError('guardClient: `client` must be an MCP SDK Client')
  }
  if (client[GUARDED]) {
    throw new Error('guardClient: this client is already guarded')
  }
  const request = client.request
  const requestStream = client.requestStream
  const server = () => options.server ?? client.getServerVersion?.()?.name ?? null

  const decideCall = (params) =>
    engine.decide({
      agent,
      server: server(),
      tool: params?.name,
      args: params?.arguments === undefined ? {} : params.arguments,
      toolUseId: typeof params?._meta?.toolUseId === 'string' ? params._meta.toolUseId : undefined,
    })

  const filterList = (result) => {
    if (!result || !Array.isArray(result.tools)) return result
    const s = server()
    const visible = new Set(
      (engine.tools(agent) ?? []).filter((t) => t.server === s || (s === null && t.server === null)).map((t) => t.tool),
    )
    return { ...result, tools: result.tools.filter((t) => visible.has(t.name)) }
  }

  Object.defineProperty(client, GUARDED, { value: true })
  client.request = function guardedRequest(req, resultSchema, opts) {
    if (req?.method === 'tools/call') {
      const d = decideCall(req.params)
      if (d.decision !== 'allow') return Promise.resolve(denial(d))
    } else if (req?.method === 'tools/list') {
      return request.call(this, req, resultSchema, opts).then(filterList)
    }
    return request.call(this, req, resultSchema, opts)
  }
  if (typeof requestStream === 'function') {
    client.requestStream = function guardedRequestStream(req, resultSchema, opts) {
      if (req?.method === 'tools/call') {
        const d = decideCall(req.params)
        if (d.decision !== 'allow') {
          return (async function* denied() {
            yield { type: 'result', result: denial(d) }
          })()
        }
      }
      return requestStream.call(this, req, resultSchema, opts)
    }
  }
  return client
}

module.exports = { guardClient }
