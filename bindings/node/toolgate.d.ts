// Types of the hand-written part of the package; the engine's own types are generated from
// the Rust signatures into index.d.ts. The agent SDKs' shapes are declared here structurally
// (only what the callbacks read and answer), never imported: an application's own SDK, of
// whatever version, is what its types are checked against.
import type { Decision, Diagnostic, Engine as NativeEngine, Request } from './index'

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
    /**
     * Decides one tool call. `request` is the CLI's request object (`agent`, `tool`,
     * `server?`, `args?`, `tool_use_id`/`toolUseId`?, `permissions?`); the answer has the CLI's
     * decision fields. Never throws: a value JSON cannot hold, or a malformed request, is a
     * `bad_request` denial. `explain: true` adds an `explanation`, as `eval --explain` does.
     */
    decide(request: Request, explain?: boolean): Decision
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

/** What `canUseTool` reads of the Claude Agent SDK's options for a call. */
export interface CanUseToolOptions {
  /** The id of the tool call, echoed in the answer. */
  toolUseID?: string
  /** The MCP server serving the tool, when the SDK says. */
  mcpServer?: { name?: string }
}

/** The answer of `canUseTool`: a Claude Agent SDK `PermissionResult`. */
export type ToolgatePermissionResult =
  | { behavior: 'allow'; updatedInput: Record<string, unknown>; toolUseID?: string }
  | { behavior: 'deny'; message: string; toolUseID?: string }

/** A Claude Agent SDK `CanUseTool` callback (assignable to the SDK's type). */
export type ToolgateCanUseTool = (toolName: string, input: Record<string, unknown>, options?: CanUseToolOptions) => Promise<ToolgatePermissionResult>

/** The answer of the `PreToolUse` hook: `{}` (allowed: the SDK's own flow decides) or a denial. */
export interface ToolgateHookOutput {
  hookSpecificOutput?: {
    hookEventName: 'PreToolUse'
    permissionDecision: 'deny'
    permissionDecisionReason: string
  }
}

/**
 * A Claude Agent SDK `HookCallback` for `PreToolUse` (assignable to the SDK's type). It reads
 * `hook_event_name`, `tool_name`, `tool_input`, `tool_use_id` and `mcp_server` of its input;
 * any other event is answered `{}`.
 */
export type ToolgateHookCallback = (input: unknown, toolUseID: string | undefined, options?: unknown) => Promise<ToolgateHookOutput>

/** Claude Agent SDK `canUseTool` deciding each call of `agent` (`mcp__server__tool` as `server.tool`). */
export declare function canUseTool(engine: NativeEngine, agent: string): ToolgateCanUseTool
/** Claude Agent SDK `PreToolUse` hook callback: denies what the policy denies, returns `{}` otherwise. */
export declare function preToolUseHook(engine: NativeEngine, agent: string): ToolgateHookCallback

/**
 * What `guardClient` needs of an MCP TypeScript SDK `Client` (any version): its `request`
 * method (the guard also replaces the `requestStream` it has, a protected method in the SDK's
 * types) and, for the default server name, `getServerVersion`.
 */
export interface GuardableClient {
  request(request: { method: string; params?: unknown }, resultSchema?: unknown, options?: unknown): Promise<unknown>
  getServerVersion?(): { name?: string } | undefined
}

/** Options of `guardClient`. */
export interface GuardOptions {
  /** The server's name in the policy (default: the name the server gave at initialization). */
  server?: string
}

/** Guards an MCP SDK client: `listTools` filtered, denied calls answered `isError` without reaching the server. */
export declare function guardClient<C extends GuardableClient>(client: C, engine: NativeEngine, agent: string, options?: GuardOptions): C

/** Splits `mcp__<server>__<tool>` into server and tool; other names are host tools. */
export declare function splitToolName(toolName: string, mcpServerName?: string): { server: string | null; tool: string }
