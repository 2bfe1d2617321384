import type { H3Event } from "h3";
import { McpUsageError } from "../protocol/errors.ts";
import type { Era } from "../protocol/wire.ts";
import type { ClientCapabilities, Implementation, JsonObject, LoggingLevel, RequestId } from "../protocol/types.ts";
import type { McpExtensionPlugin } from "./extension-plugin.ts";
import type { Hub } from "./change-hub.ts";
import type { PluginHooks } from "./hooks.ts";
import type { CompiledTool } from "./tools.ts";
import type { RequestStateSigner } from "./mrtr/request-state-signer.ts";
import type { McpAuthGuard, McpAuthInfo } from "./authorization.ts";

/**
 * What the features layer reaches of the handler serving a request (the transport's mount is a
 * superset): made once at mount, shared by every request.
 */
export interface HandlerMount {
  /** Every installed plugin, enabled for this request or not: tool-call hooks run for all of them. */
  readonly plugins: readonly McpExtensionPlugin[];
  /** Signs and verifies MRTR `requestState`. */
  readonly signer: RequestStateSigner;
  /** Carries list-changed and resource-updated announcements to listen and legacy GET streams. */
  readonly hub: Hub;
  /** Every plugin's hooks (extensions' and hooks-only plugins'), composed at mount. */
  readonly hooks: PluginHooks;
  /** The handler's hook for unexpected errors (the client only sees a generic internal error). */
  readonly onError?: (error: unknown, event: H3Event) => void;
  /** The handler's authorization, when it has one: per-operation scopes are checked through it. */
  readonly auth?: McpAuthGuard;
}

/** What h3-mcp knows about the MCP request an h3 event carries. */
export interface McpContext {
  /** `modern` for 2026-07-28 stateless requests, `legacy` for initialize-based sessions. */
  era: Era;
  protocolVersion: string;
  /** Capabilities declared on this request (modern) or at initialize (legacy). */
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  method: string;
  requestId: RequestId;
  /** The request's `params._meta`, as sent. */
  meta: JsonObject;
  /** The request's params, as sent. */
  params: JsonObject;
  /** Aborted when the client goes away (closes the stream or the connection). */
  signal: AbortSignal;
  /** Legacy session id, when the request belongs to one. */
  sessionId?: string;
  /** Plugins installed and enabled for this request, by extension id. */
  extensions: ReadonlyMap<string, McpExtensionPlugin>;
  /** Who made the request, as the handler's `auth` verified it; undefined when the handler has no `auth`. */
  auth?: McpAuthInfo;
  /** Sends `notifications/progress` when the request carried a `progressToken`; otherwise a no-op. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` when the request asked for logs at this level or below; otherwise a no-op. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
}

/**
 * The context a request is served with, as the layers inside h3-mcp see it: the public `McpContext` plus what
 * the transport owns for the request. Its implementation lives in the transport; no package entry exports it.
 */
export interface RequestContext extends McpContext {
  /** The handler serving this request, as prepared at mount. */
  readonly mount: HandlerMount;
  /** The state a verified `requestState` carried back (see `mcpRequestState`). */
  requestState?: unknown;
  /** The tool a `tools/call` runs, once found. */
  tool?: CompiledTool;
  /**
   * The length of the request's body text, in UTF-16 units (2026-07-28 requests): what bounds its params'
   * size without measuring them again.
   */
  readonly bodyLength?: number;
  /**
   * The tool or prompt this request names, once found among those served: telemetry names a request by it
   * only then, since a name the client made up is not a low-cardinality name.
   */
  target?: string;
  /**
   * Marks this request's answer as a task: progress and logs are refused from now on (a task reports
   * through `task.update`). What the handler reported before still goes out, ahead of the handle.
   */
  becameTask(): void;
  /** Whether the client already went away, told without making the signal (most requests never need it). */
  gone(): boolean;
}

declare module "h3" {
  interface H3EventContext {
    mcp?: McpContext;
  }
}

/**
 * The MCP context of the request being served.
 *
 * @example
 * const { clientInfo, protocolVersion } = getMcpContext(event);
 */
export function getMcpContext(event: H3Event): McpContext {
  const ctx = event.context.mcp;
  if (!ctx) throw new McpUsageError("NO_MCP_CONTEXT", "This h3 event is not an MCP request served by defineMcpHandler");
  return ctx;
}

/**
 * Reports progress on this request's stream (`notifications/progress`), if the client asked for it.
 *
 * @example
 * mcpProgress(event, 50, 100, "Half way");
 */
export function mcpProgress(event: H3Event, progress: number, total?: number, message?: string): void {
  getMcpContext(event).progress(progress, total, message);
}

/**
 * Logs to the client on this request's stream (`notifications/message`), if it asked for logs at that level.
 *
 * @example
 * mcpLog(event, "info", { step: "fetched" });
 */
export function mcpLog(event: H3Event, level: LoggingLevel, data: unknown, logger?: string): void {
  getMcpContext(event).log(level, data, logger);
}

/**
 * Tells listening clients that a list changed, from inside a handler (the handler object's
 * `notifyListChanged` does the same from outside).
 *
 * @example
 * mcpListChanged(event, "tools");
 */
export function mcpListChanged(event: H3Event, list: "tools" | "prompts" | "resources"): void {
  serverHub(event).publish({ kind: "list_changed", list });
}

/** Tells subscribed clients that a resource changed (`notifications/resources/updated`). */
export function mcpResourceUpdated(event: H3Event, uri: string): void {
  serverHub(event).publish({ kind: "resource_updated", uri });
}

/**
 * The request context of the request being served, with what the transport owns. Every context on an event
 * is made by the transport as a `RequestContext`, so the narrowing holds.
 */
export function getRequestContext(event: H3Event): RequestContext {
  return getMcpContext(event) as RequestContext;
}

function serverHub(event: H3Event): Hub {
  return getRequestContext(event).mount.hub;
}
