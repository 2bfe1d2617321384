// The 2025-11-25 (and 2025-06-18 / 2025-03-26) path: initialize, sessions, a GET stream.
// Legacy clients never see modern-only capabilities, and tasks are undefined for them.
import type { H3Event } from "h3";
import { ErrorCode, McpJsonRpcError, methodNotFound } from "../protocol/errors.ts";
import type { Mount } from "./mount.ts";
import type { McpExtensionPlugin } from "../features/extension-plugin.ts";
import { createRequestContext, respond } from "./request.ts";
import { hooked } from "./through-hooks.ts";
import type { MethodCall } from "../features/call-context.ts";
import { CORE_METHODS, serves } from "./core-methods.ts";
import { principalOf, type LegacySession } from "./sessions.ts";
import type { McpAuthInfo } from "../features/authorization.ts";
import { unrefTimerAt } from "../utils/timers.ts";
import { SseStream } from "./sse-stream.ts";
import type { ClientCapabilities, Implementation, JsonObject } from "../protocol/types.ts";
import { isLegacyVersion, LEGACY_VERSIONS } from "../protocol/types.ts";
import { emptyResponse, jsonResponse, type WireResponse, SSE_HEADERS, SSE_KEEPALIVE, sseFrame, toNotificationMessage, toResultMessage } from "../protocol/wire.ts";
import type { JsonRpcMessage } from "./modern.ts";

const NO_EXTENSIONS: ReadonlyMap<string, McpExtensionPlugin> = new Map();
const LATEST_LEGACY = LEGACY_VERSIONS[0];

export async function handleLegacy(event: H3Event, mount: Mount, msg: JsonRpcMessage, auth?: McpAuthInfo): Promise<WireResponse> {
  const params = msg.params ?? {};
  if (msg.method === "initialize") {
    if (msg.id === undefined) return emptyResponse(202);
    return mount.hooks.request ? initializeThroughHooks(event, mount, msg.id, params, auth) : initialize(event, mount, msg.id, params, auth);
  }
  const session = requireSession(event, mount, auth);
  const headerVersion = event.req.headers.get("mcp-protocol-version");
  if (headerVersion !== null && !isLegacyVersion(headerVersion)) {
    throw new McpJsonRpcError(ErrorCode.InvalidRequest, `Unsupported MCP-Protocol-Version: ${headerVersion}`, undefined, 400);
  }
  const sessionHeader = { "mcp-session-id": session.id };
  if (msg.id === undefined) return emptyResponse(202, sessionHeader);

  const server = mount.resolve(event);
  const ctx = createRequestContext(event, {
    era: "legacy",
    protocolVersion: session.protocolVersion,
    clientCapabilities: session.clientCapabilities,
    clientInfo: session.clientInfo,
    method: msg.method,
    requestId: msg.id,
    params,
    meta: (params._meta as JsonObject | undefined) ?? {},
    sessionId: session.id,
    extensions: NO_EXTENSIONS,
    auth,
    mount,
    sessionLogLevel: session.logLevel,
  });
  const core = CORE_METHODS.get(msg.method);
  const answer = core?.legacy;
  // A legacy retry carries the client's answers in ctx.params, so each round builds its call afresh.
  const call = (): MethodCall => ({ event, ctx, mount, server, params: ctx.params });
  const run = (): JsonObject | Promise<JsonObject> => {
    if (!answer || !serves(server, core!)) throw methodNotFound(msg.method);
    return answer({ event, ctx, mount, server, session, params, call });
  };
  return respond(ctx, hooked(event, ctx, run), "legacy", sessionHeader);
}

/** GET opens the session's stream for server notifications; DELETE ends the session. */
export function handleLegacyStream(event: H3Event, mount: Mount, auth?: McpAuthInfo): WireResponse {
  const session = requireSession(event, mount, auth);
  if (event.req.method === "DELETE") {
    mount.sessions.delete(session.id);
    return emptyResponse(200);
  }
  session.closeStream?.();
  const stream = new SseStream({ keepAliveMs: mount.keepAliveMs });
  const close = () => stream.close();
  stream.onClose(
    mount.hub.subscribe((e) => {
      if (e.kind === "list_changed") stream.send(sseFrame(toNotificationMessage(`notifications/${e.list}/list_changed`, {})));
      else if (session.subscriptions.has(e.uri)) stream.send(sseFrame(toNotificationMessage("notifications/resources/updated", { uri: e.uri })));
    }),
  );
  stream.onClose(() => {
    if (session.closeStream === close) session.closeStream = undefined;
  });
  session.closeStream = close;
  // The stream ends with the token that opened it; the client reopens it with a fresh one.
  if (auth?.expiresAt !== undefined) stream.onClose(unrefTimerAt(auth.expiresAt, Date.now, close));
  return stream.response({ ...SSE_HEADERS, "mcp-session-id": session.id }, SSE_KEEPALIVE);
}

// --- Internal ---

function initialize(event: H3Event, mount: Mount, id: NonNullable<JsonRpcMessage["id"]>, params: JsonObject, auth: McpAuthInfo | undefined): WireResponse {
  const { session, result } = openSession(event, mount, negotiate(params), params, auth);
  return jsonResponse(toResultMessage(id, result), 200, { "mcp-session-id": session.id });
}

/** `initialize` inside the plugins' request hooks: the session exists once `next()` ran, and is dropped if a hook then throws. */
async function initializeThroughHooks(
  event: H3Event,
  mount: Mount,
  id: NonNullable<JsonRpcMessage["id"]>,
  params: JsonObject,
  auth: McpAuthInfo | undefined,
): Promise<WireResponse> {
  const version = negotiate(params);
  const ctx = createRequestContext(event, {
    era: "legacy",
    protocolVersion: version,
    clientCapabilities: capabilitiesOf(params),
    clientInfo: clientInfoOf(params),
    method: "initialize",
    requestId: id,
    params,
    meta: (params._meta as JsonObject | undefined) ?? {},
    extensions: NO_EXTENSIONS,
    auth,
    mount,
  });
  // The session's id is known once `next()` ran; the answer is made (and reads its headers) after.
  const headers: Record<string, string> = {};
  let session: LegacySession | undefined;
  const hooks = mount.hooks.request!;
  const run = async () => {
    try {
      const result = await hooks(event, () => {
        const opened = openSession(event, mount, version, params, auth);
        session = opened.session;
        ctx.sessionId = headers["mcp-session-id"] = session.id;
        return opened.result;
      });
      if (!session) throw new McpJsonRpcError(ErrorCode.InternalError, "A request hook answered initialize without opening a session");
      return result;
    } catch (error) {
      // A hook that refused after the session was made: the client never learns its id.
      if (session) mount.sessions.delete(session.id);
      delete headers["mcp-session-id"];
      throw error;
    }
  };
  return respond(ctx, run, "legacy", headers);
}

/** The protocol version an initialize gets: the one asked for when served, else the latest. */
function negotiate(params: JsonObject): string {
  const requested = params.protocolVersion;
  return isLegacyVersion(requested) ? requested : LATEST_LEGACY;
}

function capabilitiesOf(params: JsonObject): ClientCapabilities {
  const caps = params.capabilities;
  return typeof caps === "object" && caps !== null ? (caps as ClientCapabilities) : {};
}

function clientInfoOf(params: JsonObject): Implementation | undefined {
  const clientInfo = params.clientInfo;
  return typeof clientInfo === "object" && clientInfo !== null ? (clientInfo as Implementation) : undefined;
}

/** Creates the session (told to the plugins watching sessions) and the initialize result. */
function openSession(
  event: H3Event,
  mount: Mount,
  version: string,
  params: JsonObject,
  auth: McpAuthInfo | undefined,
): { session: LegacySession; result: JsonObject } {
  const clientInfo = clientInfoOf(params);
  const session = mount.sessions.create({ protocolVersion: version, clientCapabilities: capabilitiesOf(params), clientInfo, principal: principalOf(auth) });
  session.ended = mount.hooks.watchSession?.({ id: session.id, protocolVersion: version, clientInfo });
  const server = mount.resolve(event);
  const result: JsonObject = {
    protocolVersion: version,
    capabilities: server.legacyCapabilities,
    serverInfo: server.serverInfo,
  };
  if (server.options.instructions !== undefined) result.instructions = server.options.instructions;
  return { session, result };
}

function requireSession(event: H3Event, mount: Mount, auth: McpAuthInfo | undefined): LegacySession {
  const id = event.req.headers.get("mcp-session-id");
  if (id === null) throw new McpJsonRpcError(ErrorCode.InvalidRequest, "Bad Request: missing Mcp-Session-Id header", undefined, 400);
  // Someone else's session reads exactly like one that does not exist.
  const session = mount.sessions.get(id, auth);
  if (!session) throw new McpJsonRpcError(ErrorCode.InvalidRequest, "Session not found", undefined, 404);
  return session;
}
