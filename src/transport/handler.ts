import { defineHandler, type EventHandlerWithFetch, type H3Event } from "h3";
import { bodyDeadline, clientBodyFailure, DEFAULT_MAX_BODY, readBodyText } from "./body.ts";
import { createBodyDeadlines } from "./body-deadline.ts";
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import { createHub, type ListKind } from "../features/change-hub.ts";
import { handleLegacy, handleLegacyStream } from "./legacy.ts";
import { deliverResponse } from "./legacy-input.ts";
import { handleModern, type JsonRpcMessage } from "./modern.ts";
import { reportUnexpected, staticExtensions, type Mount } from "./mount.ts";
import { offerAvailabilityReports, offerHub } from "../features/extension-plugin.ts";
import { installedPlugins } from "./installed-plugins.ts";
import { composeHooks } from "../features/hooks.ts";
import { offerMountedHandler, type MountedHandler } from "../features/mounted-handler.ts";
import { createRequestStateSigner } from "../features/mrtr/request-state-signer.ts";
import { createOriginCheck } from "./security.ts";
import { createServerResolver, type McpServerOptions, type ServerResolver } from "../features/compiled-server.ts";
import { applyListChange, type ListOperation, type McpListItems, type McpListKeys } from "../features/list-changes.ts";
import { createSessionStore } from "./sessions.ts";
import { isLegacyVersion, META, MODERN_VERSION } from "../protocol/types.ts";
import type { JsonObject } from "../protocol/types.ts";
import { emptyResponse, errorResponse, jsonResponse, toJsonRpcError, type Era, type WireResponse } from "../protocol/wire.ts";
import { assertScopesGuarded, type McpAuthInfo } from "../features/authorization.ts";
import { isThenable } from "../utils/is-thenable.ts";
import { checkHandlerConfig, type McpHandlerConfig } from "./handler-config.ts";

/** The h3 handler for an MCP route, with the app's announcement API. */
export type McpHandler = EventHandlerWithFetch & {
  /** Tells listening clients that a list changed (`notifications/{tools,prompts,resources}/list_changed`). */
  notifyListChanged(list: ListKind): void;
  /** Tells subscribed clients that a resource changed (`notifications/resources/updated`). */
  notifyResourceUpdated(uri: string): void;
  /** Ends every open listen stream (the final result first) and legacy GET stream, e.g. before shutdown. */
  closeStreams(): void;
  /**
   * Serves more tools, prompts, resources or resource templates from now on: the tables are compiled at
   * once and `list_changed` is announced for each list that changed. Refuses (a TypeError, nothing
   * changes) a name or URI already served. Editing the arrays given at mount does nothing: use these.
   */
  add(items: McpListItems): void;
  /** Serves new definitions in place of those with the same name (URI, `uriTemplate`); each must be served. */
  replace(items: McpListItems): void;
  /** Stops serving the named tools and prompts, resources by URI and templates by `uriTemplate`. */
  remove(keys: McpListKeys): void;
};

const mounts = new WeakMap<McpHandler, Mount>();

/** What `handler` prepared at mount, for tests and tooling inside the package (no package entry exports it). */
export function mountOf(handler: McpHandler): Mount {
  const mount = mounts.get(handler);
  if (!mount) throw new TypeError("Not a handler made by defineMcpHandler");
  return mount;
}

const CORE_NAME_PARAMS: [string, string][] = [
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
];

/**
 * The h3 handler serving MCP on one route, for 2026-07-28 clients and, on the same route,
 * initialize-based legacy clients.
 *
 * @example
 * app.all("/mcp", defineMcpHandler({ name: "demo", version: "1.0.0", tools: [echo] }));
 */
export function defineMcpHandler(
  options: McpServerOptions | ((event: H3Event) => McpServerOptions),
  config: McpHandlerConfig = {},
): McpHandler {
  checkHandlerConfig(config);
  const { plugins, installed } = installedPlugins(config.extensionPlugins, config.plugins);
  const pluginMethods: Mount["pluginMethods"] = new Map();
  const nameParams = new Map(CORE_NAME_PARAMS);
  const ids = new Set<string>();
  for (const plugin of plugins) {
    if (ids.has(plugin.id)) throw new TypeError(`Extension ${plugin.id} is installed twice`);
    ids.add(plugin.id);
    for (const [name, method] of Object.entries(plugin.methods ?? {})) {
      if (pluginMethods.has(name)) throw new TypeError(`Method ${name} is served by two extensions`);
      pluginMethods.set(name, { plugin, method });
      if (method.nameParam) nameParams.set(name, method.nameParam);
    }
  }
  const legacy = config.legacy ?? true;
  const resolver = createServerResolver(options, config.auth !== undefined);
  const mount: Mount = {
    resolve: resolver.resolve,
    dynamic: typeof options === "function",
    plugins,
    hooks: composeHooks(installed),
    advertised: plugins.filter((p) => p.enabled !== false),
    staticExtensions: staticExtensions(plugins),
    pluginMethods,
    nameParams,
    hub: createHub(),
    streams: new Set(),
    signer: createRequestStateSigner(config.requestState),
    sessions: createSessionStore(typeof legacy === "object" ? legacy : {}),
    legacy: legacy !== false,
    keepAliveMs: keepAliveInterval(config.keepAliveMs),
    onError: config.onError,
    auth: config.auth,
  };
  if (!config.auth && typeof options !== "function") assertScopesGuarded(options);
  const storeAvailability = mount.hooks.taskStoreAvailability;
  const current = resolver.current;
  const mounted: MountedHandler = { tool: current ? (name) => current().tools.get(name) : () => undefined, hooks: mount.hooks };
  for (const plugin of plugins) {
    offerHub(plugin, mount.hub);
    if (storeAvailability) offerAvailabilityReports(plugin, storeAvailability);
    offerMountedHandler(plugin, mounted);
  }
  const checkOrigin = createOriginCheck(config);
  const maxBody = config.maxBodySize ?? DEFAULT_MAX_BODY;
  const bodyTimeoutMs = bodyDeadline(config.bodyTimeoutMs);
  const deadlines = bodyTimeoutMs === Infinity ? undefined : createBodyDeadlines(bodyTimeoutMs);
  const { clientError, authRefused } = mount.hooks;

  const handler = defineHandler(async (event) => {
    let id: JsonRpcMessage["id"];
    let era: Era = "modern";
    try {
      const denied = checkOrigin(event.req);
      if (denied) return errorResponse(undefined, new McpJsonRpcError(ErrorCode.InvalidRequest, `Forbidden: ${denied}`, undefined, 403), era);
      // Before anything else runs: no body is read, no session touched, for a request that is not let in.
      let auth: McpAuthInfo | undefined;
      if (mount.auth) {
        const verified = authRefused
          ? mount.auth.authenticate(event.req, (refusal) => authRefused(refusal, event))
          : mount.auth.authenticate(event.req);
        auth = isThenable(verified) ? await verified : verified;
        event.context.mcpAuth = auth;
      }
      const method = event.req.method;
      if (method !== "POST") {
        if ((method === "GET" || method === "DELETE") && mount.legacy && event.req.headers.has("mcp-session-id")) {
          era = "legacy";
          return handleLegacyStream(event, mount, auth);
        }
        return jsonResponse(
          JSON.stringify({ jsonrpc: "2.0", error: { code: ErrorCode.InvalidRequest, message: "Method not allowed: use POST" } }),
          405,
          { allow: "POST" },
        );
      }
      const body = await readBodyText(event.req, maxBody, deadlines);
      const msg = parseMessage(body);
      if ("response" in msg) return acceptResponse(event, mount, msg.response, auth);
      id = msg.id;
      if (!mount.legacy && msg.method === "initialize") {
        throw new McpJsonRpcError(ErrorCode.UnsupportedProtocolVersion, "This server speaks 2026-07-28 only: no initialize", {
          supported: [MODERN_VERSION],
          requested: (msg.params?.protocolVersion as string | undefined) ?? null,
        });
      }
      era = mount.legacy && isLegacy(event, mount, msg) ? "legacy" : "modern";
      return era === "legacy" ? await handleLegacy(event, mount, msg, auth) : await handleModern(event, mount, msg, auth, body.length);
    } catch (error) {
      const failure = clientBodyFailure(error);
      if (failure !== undefined) clientError?.({ reason: failure }, event);
      return errorResponse(id, toJsonRpcError(reportUnexpected(mount, error, event)), era);
    }
  }) as McpHandler;

  handler.notifyListChanged = (list) => mount.hub.publish({ kind: "list_changed", list });
  handler.notifyResourceUpdated = (uri) => mount.hub.publish({ kind: "resource_updated", uri });
  handler.add = listChange(resolver, mount, "add");
  handler.replace = listChange(resolver, mount, "replace");
  handler.remove = listChange(resolver, mount, "remove");
  handler.closeStreams = () => {
    for (const stream of [...mount.streams]) stream.end();
    mount.sessions.closeStreams();
  };
  mounts.set(handler, mount);
  return handler;
}

// --- Internal ---

function listChange(resolver: ServerResolver, mount: Mount, operation: ListOperation): (change: McpListItems | McpListKeys) => void {
  return (change) => {
    if (!resolver.recompile) {
      throw new TypeError(
        `${operation}() needs options given as an object: these are a function of the event, so return the new lists from it (each new options object or tools array is compiled once) and call notifyListChanged()`,
      );
    }
    let changed: ListKind[] = [];
    resolver.recompile((current) => {
      const result = applyListChange(current, operation, change);
      changed = result.changed;
      return result.options;
    });
    for (const list of changed) mount.hub.publish({ kind: "list_changed", list });
  };
}

/** A client's response to a server-to-client request (legacy sessions only). */
function acceptResponse(event: H3Event, mount: Mount, response: JsonObject, auth: McpAuthInfo | undefined): WireResponse {
  const id = event.req.headers.get("mcp-session-id");
  const session = id === null || !mount.legacy ? undefined : mount.sessions.get(id, auth);
  if (!session || !deliverResponse(session, response)) {
    throw new McpJsonRpcError(ErrorCode.InvalidRequest, "No request is waiting for this response");
  }
  return emptyResponse(202);
}

function parseMessage(text: string): JsonRpcMessage | { response: JsonObject } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new McpJsonRpcError(ErrorCode.ParseError, "Parse error: the body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidRequest(Array.isArray(value) ? "Batches are not supported: send one message per request" : "A JSON-RPC message must be an object");
  }
  const msg = value as JsonObject;
  if (msg.jsonrpc !== "2.0") throw invalidRequest('jsonrpc must be "2.0"');
  if (msg.method === undefined && ("result" in msg || "error" in msg)) return { response: msg };
  if (typeof msg.method !== "string" || msg.method === "") throw invalidRequest("method must be a non-empty string");
  if ("id" in msg && typeof msg.id !== "string" && !Number.isSafeInteger(msg.id)) {
    throw invalidRequest("id must be a string or an integer");
  }
  if (msg.params !== undefined && (typeof msg.params !== "object" || msg.params === null || Array.isArray(msg.params))) {
    throw invalidRequest("params must be an object");
  }
  return msg as unknown as JsonRpcMessage;
}

function invalidRequest(message: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InvalidRequest, `Invalid request: ${message}`);
}

/**
 * Legacy when it is an initialize without a modern header, belongs to a session, or names a legacy
 * version without modern `_meta`.
 */
function isLegacy(event: H3Event, mount: Mount, msg: JsonRpcMessage): boolean {
  const headers = event.req.headers;
  const version = headers.get("mcp-protocol-version");
  // An initialize under a modern header is a modern request for a method that does not exist.
  if (msg.method === "initialize") return version === null || isLegacyVersion(version.trim());
  const hasModernMeta = typeof (msg.params?._meta as JsonObject | undefined)?.[META.protocolVersion] === "string";
  if (headers.has("mcp-session-id")) return !hasModernMeta || version === null || isLegacyVersion(version.trim());
  return version !== null && isLegacyVersion(version.trim()) && !hasModernMeta;
}


const DEFAULT_KEEPALIVE_MS = 5_000;

function keepAliveInterval(ms: number | undefined): number {
  if (ms === undefined) return DEFAULT_KEEPALIVE_MS;
  // setInterval would turn 0, NaN or a negative number into a frame per millisecond.
  if (!Number.isFinite(ms) || ms < 100) throw new TypeError(`keepAliveMs must be a number of milliseconds >= 100, got ${ms}`);
  return ms;
}
