// Types of the hand-written part of the package; the engine's own types are generated from
// the Rust signatures into index.d.ts.
import type { CanUseTool, HookCallback } from '@anthropic-ai/claude-agent-sdk'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Diagnostic, Engine as NativeEngine } from './index'

export * from './index'

/** agent-lattice's permission request. */
export interface PermissionRequest {
  /** The registered tool name the model wants to call. */
  toolName: string
  /** The raw tool input from the model (untrusted). */
  input: Record<string, unknown>
  /** The id for this tool call. */
  toolUseId?: string
  /** The server owning the tool, when the host knows it. */
  server?: string | null
}

/** agent-lattice's permission answer. */
export type PermissionDecision = { behavior: 'allow' } | { behavior: 'deny'; message: string }

/** agent-lattice's `permission` callback. */
export type PermissionCallback = (request: PermissionRequest) => Promise<PermissionDecision>

declare module './index' {
  interface Engine {
    /** agent-lattice: a permission callback deciding each call of `agent` with this engine. */
    permission(agent: string): PermissionCallback
  }
}

/** A policy that did not compile: `message` is the rendered report, `diagnostics` the data. */
export declare class PolicyError extends Error {
  readonly name: 'PolicyError'
  readonly code: 'TOOLGATE_POLICY_ERROR'
  readonly diagnostics: Diagnostic[]
}

/** A bundle that could not be loaded; `code` names what is wrong. */
export declare class BundleError extends Error {
  readonly name: 'BundleError'
  readonly code: string
}

/** A tool called without a permission it declares; `permission` is the first one missing. */
export declare class PermissionDeniedError extends Error {
  readonly name: 'PermissionDeniedError'
  readonly tool: string
  readonly permission: string
}

/** A Hermes tool: a name, the permissions it declares, and its effect. */
export interface PermissionedTool {
  name: string
  permissions?: readonly string[]
  execute(...args: any[]): unknown
}

/** Guards `tool`: `execute` throws `PermissionDeniedError` before running when a declared permission is not granted. */
export declare function withPermissions<T extends PermissionedTool>(tool: T, granted: import('./index').PermissionSet): T
/** Guards every tool with the same grant set. */
export declare function withPermissionsAll<T extends PermissionedTool>(tools: Iterable<T>, granted: import('./index').PermissionSet): T[]

/** Claude Agent SDK `canUseTool` deciding each call of `agent` (`mcp__server__tool` as `server.tool`). */
export declare function canUseTool(engine: NativeEngine, agent: string): CanUseTool
/** Claude Agent SDK `PreToolUse` hook callback: denies what the policy denies, returns `{}` otherwise. */
export declare function preToolUseHook(engine: NativeEngine, agent: string): HookCallback

/** Options of `guardClient`. */
export interface GuardOptions {
  /** The server's name in the policy (default: the name the server gave at initialization). */
  server?: string
}

/** Guards an MCP SDK client: `listTools` filtered, denied calls answered `isError` without reaching the server. */
export declare function guardClient<C extends Client>(client: C, engine: NativeEngine, agent: string, options?: GuardOptions): C

/** Splits `mcp__<server>__<tool>` into server and tool; other names are host tools. */
export declare function splitToolName(toolName: string, mcpServerName?: string): { server: string | null; tool: string }
