'use strict'
// The error classes the package throws. The addon throws `PolicyError` and `BundleError` as
// `Error`s with that `name` and their data (`diagnostics`, `code`); `instanceof` recognises
// them by that name, so `catch (e) { if (e instanceof PolicyError) ... }` works for both the
// addon's errors and ones made with `new`.

/** Whether `e` is an `Error` named `name` (how the addon's errors are told apart). */
function named(e, name) {
  return e instanceof Error && e.name === name
}

/** A policy that did not compile: `message` is the rendered report, `diagnostics` the data. */
class PolicyError extends Error {
  constructor(message, diagnostics = []) {
    super(message)
    this.name = 'PolicyError'
    this.code = 'TOOLGATE_POLICY_ERROR'
    this.diagnostics = diagnostics
  }

  static [Symbol.hasInstance](e) {
    return named(e, 'PolicyError') && Array.isArray(e.diagnostics)
  }
}

/** A bundle that could not be loaded; `code` names what is wrong (`toolgate::bundle::...`). */
class BundleError extends Error {
  constructor(message, code) {
    super(message)
    this.name = 'BundleError'
    this.code = code
  }

  static [Symbol.hasInstance](e) {
    return named(e, 'BundleError') && typeof e.code === 'string'
  }
}

/** A tool called without a permission it declares (Hermes); `permission` is the first missing. */
class PermissionDeniedError extends Error {
  constructor(message, tool, permission) {
    super(message)
    this.name = 'PermissionDeniedError'
    this.tool = tool
    this.permission = permission
  }
}

module.exports = { PolicyError, BundleError, PermissionDeniedError }
