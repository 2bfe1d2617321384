// The 2026-07-28 stateless path: headers and `_meta` checked in the spec's order, then dispatch.
import type { H3Event } from "h3";
import { callTool } from "../features/call-tool.ts";
import { ErrorCode, headerMismatch, internalError, invalidParams, McpJsonRpcError, methodNotFound } from "../protocol/errors.ts";
import { decodeHeaderValue, expectHeader } from "../protocol/headers.ts";
import { complete, getPrompt, readResource } from "../features/content-methods.ts";
import { openListenStream, type ListenCore } from "./listen.ts";
import type { MethodCall } from "../features/call-context.ts";
import { enabledPlugins, type Mount } from "./mount.ts";
import { createRequestContext, respond } from "./request.ts";
import { answerPrepared, hooked, listenThroughHooks, type Answer } from "./through-hooks.ts";
import { fromCursor, resourceScopes, type CompiledServer } from "../features/compiled-server.ts";
import type { ClientCapabilities, Implementation, JsonObject, RequestId } from "../protocol/types.ts";
import { META, MODERN_VERSION, SUPPORTED_VERSIONS } from "../protocol/types.ts";
import { emptyResponse, jsonResponse, RawJson, toResultMessageRaw, type WireResponse } from "../protocol/wire.ts";
import { holdsOperationScopes, type McpAuthInfo } from "../features/authorization.ts";
import { isThenable } from "../utils/is-thenable.ts";

export interface JsonRpcMessage {
  method: string;
  id?: RequestId;
  params?: JsonObject;
}

const CORE_METHODS = new Set([
  "server/discover",
  "subscriptions/listen",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "completion/complete",
]);

export async function handleModern(event: H3Event, mount: Mount, msg: JsonRpcMessage, auth?: McpAuthInfo): Promise<WireResponse> {
  const headers = event.req.headers;
  const params = msg.params ?? {};
  const method = msg.method;

  const headerVersion = headers.get("mcp-protocol-version");
  if (headerVersion === null) throw headerMismatch("Missing MCP-Protocol-Version header");
  if (msg.id === undefined) return emptyResponse(202);

  const meta = params._meta;
  if (meta !== undefined && (typeof meta !== "object" || meta === null || Array.isArray(meta))) {
    throw invalidParams("params._meta must be an object");
  }
  const m = (meta ?? {}) as JsonObject;
  const version = m[META.protocolVersion];
  expectHeader(headers, "mcp-method", method);
  if (version !== undefined && decodeHeaderValue(headerVersion, "MCP-Protocol-Version") !== version) {
    throw headerMismatch("MCP-Protocol-Version header does not match _meta");
  }
  const nameParam = mount.nameParams.get(method);
  if (nameParam !== undefined && typeof params[nameParam] === "string") {
    expectHeader(headers, "mcp-name", params[nameParam] as string);
  }

  if (typeof version !== "string") throw missingMeta(META.protocolVersion);
  if (version !== MODERN_VERSION) {
    throw new McpJsonRpcError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
      supported: SUPPORTED_VERSIONS,
      requested: version,
    });
  }
  const caps = m[META.clientCapabilities];
  if (typeof caps !== "object" || caps === null || Array.isArray(caps)) throw missingMeta(META.clientCapabilities);
  const clientInfo = m[META.clientInfo];

  const extensions = enabledPlugins(mount, event);
  const pluginMethod = CORE_METHODS.has(method) ? undefined : mount.pluginMethods.get(method);
  if (!CORE_METHODS.has(method) && (!pluginMethod || !extensions.has(pluginMethod.plugin.id))) {
    throw methodNotFound(method);
  }

  const server = mount.resolve(event);
  const ctx = createRequestContext(event, {
    era: "modern",
    protocolVersion: version,
    clientCapabilities: caps as ClientCapabilities,
    clientInfo: typeof clientInfo === "object" && clientInfo !== null ? (clientInfo as Implementation) : undefined,
    method,
    requestId: msg.id,
    params,
    meta: m,
    extensions,
    auth,
    mount,
    resultMeta: server.resultMeta,
  });

  if (pluginMethod) return respond(ctx, hooked(event, ctx, () => pluginAnswer(method, pluginMethod.method.handler(event, params))), "modern");
  const call: MethodCall = { event, ctx, mount, server, params };
  if (!serves(server, method)) throw methodNotFound(method);
  switch (method) {
    case "server/discover": {
      const advertised = mount.dynamic ? [...extensions.values()] : mount.advertised;
      const json = server.discoverJson(advertised);
      return mount.hooks.request ? answerPrepared(event, ctx, json) : jsonResponse(toResultMessageRaw(msg.id, json));
    }
    case "tools/list":
    case "prompts/list":
    case "resources/list":
    case "resources/templates/list": {
      const pages = server.pages[method];
      const json = pages[fromCursor(params.cursor, pages.length)]!;
      return mount.hooks.request ? answerPrepared(event, ctx, json) : jsonResponse(toResultMessageRaw(msg.id, json));
    }
    case "subscriptions/listen": {
      const open = (acknowledged?: (params: JsonObject) => void) =>
        openListenStream({
          event,
          id: ctx.requestId,
          params,
          hub: mount.hub,
          core: listenCore(server, mount, auth),
          plugins: extensions.values(),
          open: mount.streams,
          keepAliveMs: mount.keepAliveMs,
          resultMeta: server.resultMeta,
          expiresAt: auth?.expiresAt,
          acknowledged,
        });
      return mount.hooks.request ? listenThroughHooks(event, mount.hooks.request, open) : open();
    }
    case "tools/call":
      return respond(ctx, hooked(event, ctx, () => callTool(call)), "modern");
    case "prompts/get":
      return respond(ctx, hooked(event, ctx, () => getPrompt(call)), "modern");
    case "resources/read":
      return respond(ctx, hooked(event, ctx, () => readResource(call)), "modern");
    default:
      return respond(ctx, hooked(event, ctx, () => complete(call)), "modern");
  }
}

/** Whether the server advertises the capability a core method belongs to. */
export function serves(server: CompiledServer, method: string): boolean {
  const caps = server.capabilities;
  if (method.startsWith("prompts/")) return caps.prompts !== undefined;
  if (method.startsWith("resources/")) return caps.resources !== undefined;
  if (method === "completion/complete") return caps.completions !== undefined;
  return true;
}

function listenCore(server: CompiledServer, mount: Mount, auth: McpAuthInfo | undefined): ListenCore {
  const caps = server.capabilities;
  const core: ListenCore = {
    toolsListChanged: true,
    promptsListChanged: caps.prompts !== undefined,
    resourcesListChanged: caps.resources !== undefined,
    resourceSubscriptions: caps.resources !== undefined,
  };
  if (mount.auth) core.mayFollow = (uri) => holdsOperationScopes(mount.auth, auth, resourceScopes(server, uri));
  return core;
}

function missingMeta(key: string): McpJsonRpcError {
  return invalidParams(`Missing required _meta field: ${key}`);
}

/**
 * A plugin method's answer, which its type leaves open: a result object, or one prepared as JSON (a task's kept
 * `tasks/get`). Anything else is the plugin's bug: answered -32603, the reason told to `onError`.
 */
function pluginAnswer(method: string, value: unknown): Answer | Promise<Answer> {
  const checked = (answer: unknown): Answer => {
    if (answer instanceof RawJson || (typeof answer === "object" && answer !== null && !Array.isArray(answer))) return answer as Answer;
    throw internalError(new TypeError(`Plugin method ${method} answered ${answer === null ? "null" : Array.isArray(answer) ? "an array" : typeof answer}, not a result object`));
  };
  return isThenable(value) ? Promise.resolve(value).then(checked) : checked(value);
}
