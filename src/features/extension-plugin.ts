import type { H3Event } from "h3";
import type { TaskStatus } from "../../machines/task.machine.ts";
import type { McpAuthRefusal } from "./authorization.ts";
import type { Hub } from "./change-hub.ts";
import type { ToolDefinition } from "./tools.ts";
import type { TaskStoreOutageError } from "../protocol/errors.ts";
import type { Implementation, JsonObject, RequestId } from "../protocol/types.ts";

/** A method an extension serves (modern era only). Returns the result object; throw `McpJsonRpcError` for errors. */
export interface McpPluginMethod {
  handler: (event: H3Event, params: JsonObject) => unknown | Promise<unknown>;
  /** The params field the `Mcp-Name` header must equal (as `taskId` for `tasks/get`). */
  nameParam?: string;
}

/** One `subscriptions/listen` stream, as a plugin sees it. */
export interface ListenStream {
  /** The listen request's JSON-RPC id; every message on the stream carries it in `_meta`. */
  readonly subscriptionId: RequestId;
  readonly closed: boolean;
  /** Queues a notification; `_meta.subscriptionId` is added. Ignored once the stream closed. */
  notify(method: string, params: JsonObject): void;
  /** Runs when the client goes away or the server ends the stream. */
  onClose(callback: () => void): void;
}

/** A `subscriptions/listen` filter contributed by a plugin (the tasks extension adds `taskIds`). */
export interface ListenFilter {
  /** The key under `params.notifications`. */
  key: string;
  /**
   * Decides what of `value` this request may have and subscribes the stream to it. Returns what
   * to echo in the acknowledgement, or `undefined` to agree to nothing. Throw `McpJsonRpcError`
   * to refuse the whole request.
   */
  agree(event: H3Event, value: unknown, stream: ListenStream): unknown;
}

/**
 * What a request hook calls to go on: the method (and the hooks inside this one) runs, and its result
 * comes back; a JSON-RPC error comes back thrown (or rejected).
 */
export type McpNext<T> = () => T | Promise<T>;

/** A task's run, as a task run hook sees it. */
export interface McpTaskRunInfo {
  readonly taskId: string;
  /** The tool whose call created the task. */
  readonly tool: ToolDefinition<any>;
  /** What the task carries from the call that created it (`mcpTasks({ origin })` and plugins' `taskOrigin`). */
  readonly origin?: JsonObject;
  /**
   * For a run found by name (`defineTaskRun`): which attempt this run is, 1-based, as `task.attempt` in the
   * run. Every attempt goes through the hook, wherever it runs; a closure's task has none.
   */
  readonly attempt?: number;
  /**
   * Calls `listener` with the task, as `tasks/get` shows it, at each status change from now on (answers
   * given through any instance included), the final one last.
   */
  onStatus(listener: (task: McpTaskStatus) => void): void;
  /**
   * Calls `listener` once if this attempt stops running here without ending the task (see
   * `McpTaskLeaveReason`): the task goes on in another attempt, and `onStatus` tells nothing more here.
   * Only an attempt of a run found by name can leave; a task that ends here calls `onStatus` with its
   * final status instead, never this. Register it when the hook is called, as `onStatus`.
   */
  onLeave(listener: (reason: McpTaskLeaveReason) => void): void;
}

/**
 * Why an attempt of a run found by name stopped running on this instance without ending its task:
 * - `handed_off`: a drain handed the task to another instance (its run's signal aborts with a shutdown
 *   reason; the hand-off spends none of the run's attempts);
 * - `fenced`: the attempt lost its hold on the task (this instance's lease lapsed or could not be renewed,
 *   or the store refused its write because another attempt holds the task); its signal aborts, its writes
 *   are refused, and another instance runs the next attempt.
 */
export type McpTaskLeaveReason = "handed_off" | "fenced";

/** A task at a status change, as `tasks/get` shows it (`taskId`, `status`, `statusMessage`, `inputRequests`, `result`, `error`…). */
export type McpTaskStatus = JsonObject & {
  readonly taskId: string;
  readonly status: TaskStatus;
  /** True on a `failed` task that failed because its ttl ran out. */
  readonly expired?: boolean;
};

/**
 * The hooks around what the server does, which both kinds of plugin may have. Every hook is optional, and a
 * handler whose plugins leave a hook out pays nothing for it. Installation order is the handler's `plugins`
 * in their order, then its `extensionPlugins` in theirs: tracing or a guard installed as a hooks-only plugin
 * wraps every extension's work.
 */
export interface McpPluginHooks {
  /**
   * Wraps every JSON-RPC request the handler serves, in both eras: core methods (the lists, `server/discover`,
   * `initialize` and `ping` in 2025-11-25 sessions, `subscriptions/listen` up to its acknowledgement) and
   * extension methods (`tasks/*`). `getMcpContext(event)` tells the request (method, params, request id,
   * era, session, client); treat its params as read-only. Call `next()` for the result and return it, changed or not; it
   * throws a `McpJsonRpcError` when the method answered one (a tool error is a result with `isError: true`).
   * Throw a `McpJsonRpcError` before calling `next()` to refuse the request. Plugins wrap in installation
   * order, the first outermost. The result of `subscriptions/listen` is its acknowledgement's params, and
   * what a hook returns in its place is not sent.
   */
  wrapRequest?: (event: H3Event, next: McpNext<JsonObject>) => JsonObject | Promise<JsonObject>;
  /**
   * Wraps a task's `run`, which goes on after the call that created it has answered (and is resumed when
   * answers arrive, through any instance). `next()` runs the work and gives its result, normalised as the
   * synchronous call's would be, or throws what the run threw. The task may end by other ways than its run
   * (cancelled, expired): `task.onStatus` tells each status change, the final one included. An attempt of a
   * run found by name may also leave this instance while its task goes on elsewhere: `task.onLeave` tells that.
   */
  wrapTaskRun?: (task: McpTaskRunInfo, next: McpNext<JsonObject>) => JsonObject | Promise<JsonObject>;
  /**
   * What a new task carries from the call that created it, from this plugin (for example that call's trace
   * context): merged into the task's origin (`mcpTasks({ origin })` first), kept by every store.
   */
  taskOrigin?: (event: H3Event) => JsonObject | undefined;
  /**
   * Told when a 2025-11-25 session starts (at its `initialize`); may return what to call when it ends
   * (deleted by the client, idle too long, or evicted).
   */
  watchSession?: (session: McpSessionInfo) => void | ((end: McpSessionEnd) => void);
  /**
   * Runs on every `tools/call` before arguments are validated and the tool runs, in both eras,
   * whether or not the plugin is enabled for the request. Throw `McpJsonRpcError` to refuse.
   */
  beforeToolCall?: (event: H3Event, tool: ToolDefinition<any>) => void;
  /**
   * Wraps the tool's run (after validation): call `next()` for the normalised result, and return it,
   * changed or not. Plugins wrap in installation order, the first outermost. A call that became a task
   * gives its handle here; the task's result, once its run ends, passes through the wrapper again, with
   * `task` set (and `event` still the creating call's).
   */
  wrapToolCall?: (
    event: H3Event,
    tool: ToolDefinition<any>,
    next: () => Promise<JsonObject>,
    task?: { readonly taskId: string },
  ) => JsonObject | Promise<JsonObject>;
  /**
   * Told when a request's body never arrived whole because of its client: it hung up (`"gone"`, answered
   * nothing, since nobody is there to read it) or was slower than `bodyTimeoutMs` (`"body_timeout"`, answered
   * 408). The client's doing, so never an `onError`: count it, log it at a low level. Must not throw.
   */
  clientError?: (failure: McpClientFailure, event: H3Event) => void;
  /**
   * Told when the handler's `auth` refuses a bearer token (401), with why, for the operator: the client only
   * learns the fixed `error_description`. Never carries the token. Must not throw.
   */
  authRefused?: (refusal: McpAuthRefusal, event: H3Event) => void;
  /**
   * Told when the task store of a tasks plugin in the same handler stops answering (once per outage, with its
   * first error; the requests failing meanwhile are answered 503 with `Retry-After`), and when it answers
   * again. Must not throw.
   */
  taskStoreAvailability?: (change: McpStoreAvailability) => void;
}

/**
 * A plugin of hooks only, that observes or guards (tracing, an audit log, a rate limit): it has no `id`,
 * advertises nothing and serves no method. Install it with `defineMcpHandler(options, { plugins: [...] })`;
 * an MCP extension (`McpExtensionPlugin`) goes in `extensionPlugins` instead.
 */
export interface McpPlugin extends McpPluginHooks {
  /** A name for error messages. */
  name?: string;
  /** None: a plugin with an extension identifier is an `McpExtensionPlugin`. */
  id?: never;
}

/** A task store that stopped answering, or answers again. */
export type McpStoreAvailability =
  | {
      readonly available: false;
      /** When it began (epoch ms). */
      readonly at: number;
      /** The first failure, as the store said it (its `cause`); the same error `onError` is told. */
      readonly error: TaskStoreOutageError;
    }
  | {
      readonly available: true;
      /** When it answered again (epoch ms). */
      readonly at: number;
      /** How long it was down, in ms. */
      readonly downMs: number;
      /** How many store calls failed meanwhile (requests and background work). */
      readonly failures: number;
    };

/** What a client did to a request whose body never arrived whole. */
export interface McpClientFailure {
  /** `"gone"`: it closed the connection first; `"body_timeout"`: it was slower than `bodyTimeoutMs`. */
  readonly reason: "gone" | "body_timeout";
}

/** A 2025-11-25 session, as `watchSession` sees it. */
export interface McpSessionInfo {
  readonly id: string;
  readonly protocolVersion: string;
  readonly clientInfo?: Implementation;
}

/** Why a session ended, and when (epoch ms). */
export interface McpSessionEnd {
  readonly reason: "deleted" | "idle" | "evicted";
  readonly at: number;
}

/**
 * An MCP extension: a plugin with an identifier, advertised under `capabilities.extensions`, which may
 * serve methods and listen filters, and have hooks too. Install it with
 * `defineMcpHandler(options, { extensionPlugins: [...] })`. It brings its own options; the handler has none for it.
 */
export interface McpExtensionPlugin extends McpPluginHooks {
  /** The prefixed extension identifier advertised under `capabilities.extensions`. */
  id: string;
  /** The settings object advertised for the extension. Default `{}`. */
  settings?: JsonObject;
  /**
   * Per-request switch. A rejected request sees none of the plugin's methods or filters. `false`
   * switches it off for every request: it is then not advertised either. Hooks run regardless.
   */
  enabled?: false | ((event: H3Event) => boolean);
  /** Methods the plugin serves. */
  methods?: Record<string, McpPluginMethod>;
  /** Filters the plugin adds to `subscriptions/listen`. */
  listen?: ListenFilter[];
}

const hubWatchers = new WeakMap<McpExtensionPlugin, (hub: Hub) => void>();

/**
 * Asks that `plugin` be offered the change hub of each handler it is installed in, at mount (a shared task
 * store bridges announcements between instances through it). Kept beside the plugin, not on its public type.
 */
export function watchHub(plugin: McpExtensionPlugin, attach: (hub: Hub) => void): void {
  hubWatchers.set(plugin, attach);
}

/** Offers `hub` to the plugin, if it asked for it (`watchHub`). */
export function offerHub(plugin: McpExtensionPlugin, hub: Hub): void {
  hubWatchers.get(plugin)?.(hub);
}

type AvailabilityReport = (change: McpStoreAvailability) => void;

const availabilityWatchers = new WeakMap<McpExtensionPlugin, (report: AvailabilityReport) => void>();

/**
 * Asks that `plugin` be given, at mount, where to tell its store's outages in each handler it is installed in
 * (that handler's plugins' `taskStoreAvailability`). Kept beside the plugin, not on its public type.
 */
export function watchAvailabilityReports(plugin: McpExtensionPlugin, attach: (report: AvailabilityReport) => void): void {
  availabilityWatchers.set(plugin, attach);
}

/** Gives the plugin where to tell its store's outages, if it asked (`watchAvailabilityReports`). */
export function offerAvailabilityReports(plugin: McpExtensionPlugin, report: AvailabilityReport): void {
  availabilityWatchers.get(plugin)?.(report);
}

/** Whether a plugin is an MCP extension (it has an `id`), rather than hooks only. */
export function isExtension(plugin: McpPlugin | McpExtensionPlugin): plugin is McpExtensionPlugin {
  return typeof plugin.id === "string";
}
