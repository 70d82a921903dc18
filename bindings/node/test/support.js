'use strict'
// Paths and the CLI runner the tests share.

const path = require('node:path')
const { spawnSync } = require('node:child_process')

/** The repository root (bindings/node is two levels down). */
const ROOT = path.resolve(__dirname, '..', '..', '..')
/** The bundled policies. */
const POLICIES = path.join(ROOT, 'policies')
/** The `toolgate` CLI, built by `cargo build --release` (or named by `TOOLGATE_BIN`). */
const TOOLGATE = process.env.TOOLGATE_BIN ?? path.join(ROOT, 'target', 'release', 'toolgate')

/** Runs the CLI with `args`, `input` on stdin; returns `{status, stdout, stderr}` (bounded to 60 s). */
function cli(args, input = '') {
  const r = spawnSync(TOOLGATE, args, { input, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 })
  if (r.error) throw r.error
  return r
}

/** Decides JSON request lines with `toolgate eval POLICY --request -`; one decision per line. */
function evalLines(policy, lines, extra = []) {
  const r = cli(['eval', policy, '--request', '-', ...extra], lines.map((l) => l + '\n').join(''))
  if (r.status !== 0) throw new Error(`toolgate eval exited ${r.status}: ${r.stderr}`)
  return r.stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l))
}

module.exports = { ROOT, POLICIES, TOOLGATE, cli, evalLines }
