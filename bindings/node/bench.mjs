// Decisions per second from JS: toolgate (this package) side by side, in the same run, with
// @cedar-policy/cedar-wasm (preparsePolicySet + statefulIsAuthorized) and node casbin
// (globMatch model) on the same logical policies as examples/generate_policy.rs:
//   wide = N tools t{i}, one allow each: path matches "/data/team{i}/**/*.csv";
//   deep = one tool t0 with those N allow rules;
//   both: deny when command contains any of "rm -rf", "mkfs", "sudo ".
// Requests (hit = N/2): allow hit, deny by rule, no match. Every answer is checked before
// timing. Each cell: a bounded number of timed samples, the engines' samples interleaved so
// that all are timed over the same stretch of a shared machine; the median is reported.
//
//   node bench.mjs                 # N = 10 and 10,000, every engine
//   BENCH_SIZES=10 BENCH_ENGINES=toolgate,cedar node bench.mjs
import { createRequire } from 'node:module'
import os from 'node:os'

const require = createRequire(import.meta.url)
const { Engine } = require('./toolgate.js')
const cedar = require('@cedar-policy/cedar-wasm/nodejs')
const casbin = require('casbin')

const SIZES = (process.env.BENCH_SIZES ?? '10,10000').split(',').map(Number)
const ENGINES = (process.env.BENCH_ENGINES ?? 'toolgate,cedar,casbin').split(',')
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 9)
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 100)
const CELL_MS = Number(process.env.BENCH_CELL_MS ?? 6000) // a slow peer's cell stops here
const WARM_MS = Number(process.env.BENCH_WARM_MS ?? 1500) // warm-up per engine and request (JIT, wasm tier-up)
const DENY = ['rm -rf', 'mkfs', 'sudo ']

// --- the policies, as examples/generate_policy.rs writes them --------------------------------

function toolgatePolicy(layout, n) {
  let s = ''
  if (layout === 'wide') {
    for (let i = 0; i < n; i++) s += `tool t${i}(path, command?) needs fs:read\n`
    s += 'agent bench {\n  grant fs:*\n'
    for (let i = 0; i < n; i++) s += `  allow t${i} where path matches "/data/team${i}/**/*.csv"\n`
    s += '  deny * where command contains any ["rm -rf", "mkfs", "sudo "]\n}\n'
  } else {
    s += 'tool t0(path, command?) needs fs:read\nagent bench {\n  grant fs:*\n'
    for (let i = 0; i < n; i++) s += `  allow t0 where path matches "/data/team${i}/**/*.csv"\n`
    s += '  deny t0 where command contains any ["rm -rf", "mkfs", "sudo "]\n}\n'
  }
  return s
}

// Cedar has no `**` and its `*` crosses `/`: `like "/data/team{i}/*.csv"` is the same set on
// these requests (bench-peers/README.md says where the two differ).
function cedarPolicy(layout, n) {
  let s = ''
  for (let i = 0; i < n; i++) {
    const tool = layout === 'wide' ? `t${i}` : 't0'
    s += `permit(principal == Agent::"bench", action == Action::"call", resource == Tool::"${tool}")\n  when { context.path like "/data/team${i}/*.csv" };\n`
  }
  const resource = layout === 'wide' ? 'resource' : 'resource == Tool::"t0"'
  const alts = DENY.map((d) => `context.command like "*${d}*"`).join(' || ')
  s += `forbid(principal == Agent::"bench", action == Action::"call", ${resource})\n  when { context has command && (${alts}) };\n`
  return s
}

const CASBIN_MODEL = `
[request_definition]
r = sub, tool, path, cmd

[policy_definition]
p = sub, tool, pat, eft

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = r.sub == p.sub && ((p.eft == "allow" && r.tool == p.tool && globMatch(r.path, p.pat)) || (p.eft == "deny" && (p.tool == "*" || r.tool == p.tool) && hasSubstring(r.cmd, p.pat)))
`

function casbinRows(layout, n) {
  const rows = []
  for (let i = 0; i < n; i++) rows.push(['bench', layout === 'wide' ? `t${i}` : 't0', `/data/team${i}/**/*.csv`, 'allow'])
  for (const d of DENY) rows.push(['bench', layout === 'wide' ? '*' : 't0', d, 'deny'])
  return rows
}

function requests(layout, n) {
  const hit = Math.floor(n / 2)
  const tool = layout === 'wide' ? `t${hit}` : 't0'
  return [
    { outcome: 'allow', tool, path: `/data/team${hit}/q3/report.csv` },
    { outcome: 'deny', tool, path: `/data/team${hit}/x.csv`, command: 'sudo rm -rf /' },
    { outcome: 'nomatch', tool, path: '/data/other/report.csv' },
  ]
}

// --- engines: build, pre-build each request, check its answer, return the decide call ---------

async function buildToolgate(layout, n) {
  const t0 = performance.now()
  const engine = Engine.fromSource(toolgatePolicy(layout, n), `${layout}-${n}.policy`)
  const build = performance.now() - t0
  const want = { allow: 'allowed_by_rule', deny: 'denied_by_rule', nomatch: 'no_matching_rule' }
  const calls = requests(layout, n).map((r) => {
    const args = r.command === undefined ? { path: r.path } : { path: r.path, command: r.command }
    const req = { agent: 'bench', tool: r.tool, args }
    const got = engine.decide(req).reason
    if (got !== want[r.outcome]) throw new Error(`toolgate ${layout} ${n} ${r.outcome}: ${got}`)
    if (r.command !== undefined && engine.decide({ agent: 'bench', tool: r.tool, args: { path: r.path } }).decision !== 'allow') {
      throw new Error('toolgate: the deny request without its command must be allowed')
    }
    return { outcome: r.outcome, run: () => engine.decide(req) }
  })
  return { build, calls }
}

async function buildCedar(layout, n) {
  const t0 = performance.now()
  const id = `${layout}-${n}`
  const parsed = cedar.preparsePolicySet(id, { staticPolicies: cedarPolicy(layout, n) })
  if (parsed.type !== 'success') throw new Error(`cedar parse: ${JSON.stringify(parsed.errors)}`)
  const build = performance.now() - t0
  const calls = requests(layout, n).map((r) => {
    const context = r.command === undefined ? { path: r.path } : { path: r.path, command: r.command }
    const call = {
      principal: { type: 'Agent', id: 'bench' },
      action: { type: 'Action', id: 'call' },
      resource: { type: 'Tool', id: r.tool },
      context,
      preparsedPolicySetId: id,
      entities: [],
    }
    const a = cedar.statefulIsAuthorized(call)
    if (a.type !== 'success' || a.response.diagnostics.errors.length > 0) throw new Error(`cedar: ${JSON.stringify(a)}`)
    const decided = a.response.decision === 'allow' ? 'allow' : a.response.diagnostics.reason.length > 0 ? 'deny' : 'nomatch'
    if (decided !== r.outcome) throw new Error(`cedar ${layout} ${n} ${r.outcome}: ${decided}`)
    return { outcome: r.outcome, run: () => cedar.statefulIsAuthorized(call) }
  })
  return { build, calls }
}

async function buildCasbin(layout, n) {
  const t0 = performance.now()
  const e = await casbin.newEnforcer(casbin.newModelFromString(CASBIN_MODEL))
  await e.addFunction('hasSubstring', (hay, needle) => String(hay).includes(String(needle)))
  await e.addPolicies(casbinRows(layout, n))
  const build = performance.now() - t0
  const calls = requests(layout, n).map((r) => {
    const req = ['bench', r.tool, r.path, r.command ?? '']
    const ok = e.enforceSync(...req)
    if (ok !== (r.outcome === 'allow')) throw new Error(`casbin ${layout} ${n} ${r.outcome}: ${ok}`)
    if (r.command !== undefined && !e.enforceSync('bench', r.tool, r.path, '')) {
      throw new Error('casbin: the deny request without its command must be allowed')
    }
    return { outcome: r.outcome, run: () => e.enforceSync(...req) }
  })
  return { build, calls }
}

const BUILDERS = { toolgate: buildToolgate, cedar: buildCedar, casbin: buildCasbin }

// --- timing ----------------------------------------------------------------------------------

/**
 * A timing loop of its own: `(run, k) => ns` for `k` calls of `run`. Each engine gets a
 * separately compiled copy, so the JIT's feedback at the `run()` call site is one engine's
 * only: with one shared loop the site turns polymorphic once the engines take turns, and every
 * engine is then timed through a slower call than a host calling it alone would make.
 */
function ownLoop() {
  // eslint-disable-next-line no-new-func
  return new Function('run', 'k', `
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < k; i++) run()
    return Number(process.hrtime.bigint() - t0)
  `)
}

/**
 * How many calls of `run` through `loop` fill about SAMPLE_MS, after running it for about
 * WARM_MS (so JIT and wasm tiers have settled).
 */
function calibrate(run, loop) {
  const start = performance.now()
  for (let i = 0; i < 3 || performance.now() - start < WARM_MS; i++) loop(run, 1)
  let k = 1
  for (;;) {
    const ms = loop(run, k) / 1e6
    if (ms >= SAMPLE_MS / 4 || k >= 1 << 24) return Math.max(1, Math.round((k * SAMPLE_MS) / Math.max(ms, 1e-3)))
    k *= 4
  }
}

/**
 * Median ns per call of each engine's `run`, the engines' samples interleaved (one sample of
 * each in turn), so that every engine is timed over the same stretch of a shared machine, each
 * through its own loop (`ownLoop`). Up to SAMPLES samples each; an engine stops after 3
 * samples once its cell took CELL_MS.
 */
function measureTogether(runs) {
  const state = runs.map((run) => {
    const loop = ownLoop()
    return { run, loop, k: calibrate(run, loop), samples: [], spent: 0 }
  })
  for (let round = 0; round < SAMPLES; round++) {
    for (const st of state) {
      if (st.samples.length >= 3 && st.spent > CELL_MS) continue
      const ns = st.loop(st.run, st.k)
      st.spent += ns / 1e6
      st.samples.push(ns / st.k)
    }
  }
  return state.map((st) => {
    const sorted = [...st.samples].sort((a, b) => a - b)
    return { median: sorted[Math.floor(sorted.length / 2)], samples: sorted.length, perSample: st.k }
  })
}

function fmt(ns) {
  if (ns === undefined) return 'n/a'
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`
  return `${ns.toFixed(0)} ns`
}

const results = []
for (const layout of ['wide', 'deep']) {
  for (const n of SIZES) {
    const built = {}
    for (const name of ENGINES) {
      built[name] = await BUILDERS[name](layout, n)
      process.stderr.write(`${layout} N=${n} ${name}: built in ${built[name].build.toFixed(0)} ms\n`)
    }
    for (const outcome of ['allow', 'deny', 'nomatch']) {
      const runs = ENGINES.map((name) => built[name].calls.find((c) => c.outcome === outcome).run)
      const measured = measureTogether(runs)
      const row = { layout, n, outcome }
      ENGINES.forEach((name, i) => {
        row[name] = measured[i].median
        process.stderr.write(`${layout} N=${n} ${outcome} ${name}: ${fmt(measured[i].median)} (${measured[i].samples} samples of ${measured[i].perSample})\n`)
      })
      results.push(row)
    }
  }
}

const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
console.log(`\nnode ${process.version}, ${os.cpus().length} cores (${cpu}), load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}\n`)
const head = ['layout', 'outcome', 'N', ...ENGINES.map((e) => `${e} per decision`), 'toolgate decisions/s', ...ENGINES.filter((e) => e !== 'toolgate').map((e) => `${e} / toolgate`)]
console.log(`| ${head.join(' | ')} |`)
console.log(`| ${head.map((h, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`)
for (const r of results) {
  const row = [r.layout, r.outcome, r.n.toLocaleString('en-US'), ...ENGINES.map((e) => fmt(r[e]))]
  row.push(r.toolgate === undefined ? 'n/a' : Math.round(1e9 / r.toolgate).toLocaleString('en-US'))
  for (const e of ENGINES.filter((x) => x !== 'toolgate')) row.push(r.toolgate === undefined || r[e] === undefined ? 'n/a' : `${Math.round(r[e] / r.toolgate).toLocaleString('en-US')}x`)
  console.log(`| ${row.join(' | ')} |`)
}
