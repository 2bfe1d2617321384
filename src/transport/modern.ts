// The 2026-07-28 stateless path: headers and `_meta` checked in the spec's order, then dispatch.
import type { H3Event } from "h3";
import { ErrorCode, headerMismatch, internalError, invalidParams, McpJsonRpcError, methodNotFound } from "../protocol/errors.ts";
import { decodeHeaderValue, expectHeader } from "../protocol/headers.ts";
import { CORE_METHODS, serves } from "./core-methods.ts";
import { enabledPlugins, type Mount } from "./mount.ts";
import { createRequestContext, respond } from "./request.ts";
import { hooked, type Answer } from "./through-hooks.ts";
import type { ClientCapabilities, Implementation, JsonObject, RequestId } from "../protocol/types.ts";
import { META, MODERN_VERSION, SUPPORTED_VERSIONS } from "../protocol/types.ts";
import { emptyResponse, RawJson, type WireResponse } from "../protocol/wire.ts";
import type { McpAuthInfo } from "../features/authorization.ts";
import { isThenable } from "../utils/is-thenable.ts";

export interface JsonRpcMessage {
  method: string;
  id?: RequestId;
  params?: JsonObject;
}


export async function handleModern(event: H3Event, mount: Mount, msg: JsonRpcMessage, auth?: McpAuthInfo, bodyLength?: number): Promise<WireResponse> {
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
  const core = CORE_METHODS.get(method);
  const answer = core?.modern;
  const pluginMethod = answer ? undefined : mount.pluginMethods.get(method);
  if (!answer && (!pluginMethod || !extensions.has(pluginMethod.plugin.id))) {
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
    bodyLength,
  });

  if (pluginMethod) return respond(ctx, hooked(event, ctx, () => pluginAnswer(method, pluginMethod.method.handler(event, params))), "modern");
  if (!serves(server, core!)) throw methodNotFound(method);
  return answer!({ event, ctx, mount, server, params, id: msg.id, extensions, auth });
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
