'use strict'
// Hermes: enforcement as a wrapper. A guarded tool refuses a call before `execute` with a
// `PermissionDeniedError` naming the first permission it declares that the set lacks.

const native = require('../index.js')
const { PermissionDeniedError } = require('./errors.js')

/** Wraps `tool` (`{name, permissions, execute}`) so that `execute` first checks `granted`. */
function withPermissions(tool, granted) {
  if (tool === null || typeof tool !== 'object' || typeof tool.execute !== 'function') {
    throw new TypeError('withPermissions: `tool` must be an object with an `execute` function')
  }
  if (!(granted instanceof native.PermissionSet)) {
    throw new TypeError('withPermissions: `granted` must be a PermissionSet')
  }
  const declared = tool.permissions ?? []
  if (!Array.isArray(declared) || declared.some((p) => typeof p !== 'string')) {
    throw new TypeError(`withPermissions: \`${tool.name}\` must declare \`permissions\` as an array of strings`)
  }
  const needs = [...declared]
  const execute = tool.execute
  const name = String(tool.name)
  return {
    ...tool,
    execute(...args) {
      const missing = granted.firstMissing(needs)
      if (missing !== null) {
        throw new PermissionDeniedError(native.permissionDeniedMessage(name, missing), name, missing)
      }
      return execute.apply(tool, args)
    },
  }
}

/** Guards every tool of `tools` with the same grant set (decided once, at the composition root). */
function withPermissionsAll(tools, granted) {
  return Array.from(tools, (t) => withPermissions(t, granted))
}

module.exports = { withPermissions, withPermissionsAll }
