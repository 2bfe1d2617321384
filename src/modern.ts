// The 2026-07-28 stateless path: headers and `_meta` checked in the spec's order, then dispatch.
import type { H3Event } from "h3";
import { callTool } from "./call-tool.ts";
import { ErrorCode, headerMismatch, invalidParams, McpJsonRpcError, methodNotFound } from "./errors.ts";
import { decodeHeaderValue, expectHeader } from "./headers.ts";
import { openListenStream } from "./listen.ts";
import { enabledPlugins, type Mount } from "./mount.ts";
import { createRequestContext, respond } from "./request.ts";
import { fromCursor } from "./server.ts";
import type { ClientCapabilities, Implementation, JsonObject, RequestId } from "./types.ts";
import { META, MODERN_VERSION, SUPPORTED_VERSIONS } from "./types.ts";
import { errorResponse, jsonResponse, toResultMessageRaw } from "./wire.ts";

export interface JsonRpcMessage {
  method: string;
  id?: RequestId;
  params?: JsonObject;
}

const CORE_METHODS = new Set(["server/discover", "tools/list", "tools/call", "subscriptions/listen"]);

export async function handleModern(event: H3Event, mount: Mount, msg: JsonRpcMessage): Promise<Response> {
  const headers = event.req.headers;
  const params = msg.params ?? {};
  const method = msg.method;

  const headerVersion = headers.get("mcp-protocol-version");
  if (headerVersion === null) throw headerMismatch("Missing MCP-Protocol-Version header");
  if (msg.id === undefined) return new Response(null, { status: 202 });

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
    server: mount,
  });

  switch (method) {
    case "server/discover": {
      const advertised = mount.dynamic ? [...extensions.values()] : mount.plugins;
      return jsonResponse(toResultMessageRaw(msg.id, server.discoverJson(advertised)));
    }
    case "tools/list": {
      const page = fromCursor(params.cursor, server.toolPages.length);
      return jsonResponse(toResultMessageRaw(msg.id, server.toolPages[page]!));
    }
    case "tools/call":
      return respond(ctx, () => callTool(event, ctx, server, mount.plugins, mount.signer, params), "modern");
    case "subscriptions/listen":
      return openListenStream(
        event,
        msg.id,
        params,
        mount.hub,
        { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false, resourceSubscriptions: false },
        extensions.values(),
      );
  }
  return respond(ctx, () => pluginMethod!.method.handler(event, params), "modern");
}

export function modernError(id: RequestId | undefined, error: McpJsonRpcError): Response {
  return errorResponse(id, error, "modern");
}

function missingMeta(key: string): McpJsonRpcError {
  return invalidParams(`Missing required _meta field: ${key}`);
}
