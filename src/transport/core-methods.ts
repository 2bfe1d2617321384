// The protocol's own methods, one entry each: the capability a server must advertise for the method to
// exist, how a 2026-07-28 request is answered, and the result a 2025 session gets. Adding a core method is
// adding an entry here; plugin methods are looked up only for names this table does not serve.
import type { H3Event } from "h3";
import { callTool } from "../features/call-tool.ts";
import { requireScopes, type MethodCall } from "../features/call-context.ts";
import { fromCursor, resourceScopes, type CompiledServer } from "../features/compiled-server.ts";
import { complete, getPrompt, readResource } from "../features/content-methods.ts";
import type { McpExtensionPlugin } from "../features/extension-plugin.ts";
import { holdsOperationScopes, type McpAuthInfo } from "../features/authorization.ts";
import { invalidParams } from "../protocol/errors.ts";
import type { JsonObject, LoggingLevel, RequestId } from "../protocol/types.ts";
import { LOG_LEVELS } from "../protocol/types.ts";
import { jsonResponse, toResultMessageRaw, type WireResponse } from "../protocol/wire.ts";
import { withInputBridge } from "./legacy-input.ts";
import { openListenStream, type ListenCore } from "./listen.ts";
import type { Mount } from "./mount.ts";
import { respond, type TransportContext } from "./request.ts";
import type { LegacySession } from "./sessions.ts";
import { answerPrepared, hooked, listenThroughHooks } from "./through-hooks.ts";

/** A 2026-07-28 request for a core method, once its headers and `_meta` were checked. */
export interface ModernCall extends MethodCall {
  ctx: TransportContext;
  mount: Mount;
  id: RequestId;
  extensions: ReadonlyMap<string, McpExtensionPlugin>;
  auth: McpAuthInfo | undefined;
}

/** A request of a 2025 session for a core method. */
export interface LegacyCall {
  event: H3Event;
  ctx: TransportContext;
  mount: Mount;
  server: CompiledServer;
  session: LegacySession;
  /** The request's params. */
  params: JsonObject;
  /** The call to serve: built afresh for each round, since a round's answers are added to `ctx.params`. */
  call(): MethodCall;
}

export interface CoreMethod {
  /** The capability the server must advertise for the method to exist; none when every server has it. */
  readonly needs?: "prompts" | "resources" | "completions";
  /** How a 2026-07-28 request is answered; absent when those clients do not have the method. */
  readonly modern?: (call: ModernCall) => WireResponse | Promise<WireResponse>;
  /** The result a 2025 session gets; absent when those clients do not have the method. */
  readonly legacy?: (call: LegacyCall) => JsonObject | Promise<JsonObject>;
}

/** Whether the server advertises the capability a core method needs. */
export function serves(server: CompiledServer, method: CoreMethod): boolean {
  return method.needs === undefined || server.capabilities[method.needs] !== undefined;
}

type ListName = "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list";

/** A list method: its pages were made at mount, a request picks one by cursor. */
function list(name: ListName, needs?: CoreMethod["needs"]): CoreMethod {
  return {
    needs,
    modern({ event, ctx, mount, server, params, id }) {
      const pages = server.pages[name];
      const json = pages[fromCursor(params.cursor, pages.length)]!;
      return mount.hooks.request ? answerPrepared(event, ctx, json) : jsonResponse(toResultMessageRaw(id, json));
    },
    legacy: ({ server, params }) => legacyPage(server.pages[name], params.cursor),
  };
}

/** A method served by a feature's function, in both eras; for 2025 sessions it asks for input over the stream. */
function served(fn: (call: MethodCall) => JsonObject | Promise<JsonObject>, needs?: CoreMethod["needs"]): CoreMethod {
  return {
    needs,
    modern: (call) => respond(call.ctx, hooked(call.event, call.ctx, () => fn(call)), "modern"),
    legacy: ({ ctx, session, call }) => withInputBridge(ctx, session, async () => fn(call())).then(toLegacyResult),
  };
}

export const CORE_METHODS: ReadonlyMap<string, CoreMethod> = new Map<string, CoreMethod>([
  [
    "server/discover",
    {
      modern({ event, ctx, mount, server, extensions, id }) {
        const advertised = mount.dynamic ? [...extensions.values()] : mount.advertised;
        const json = server.discoverJson(advertised);
        return mount.hooks.request ? answerPrepared(event, ctx, json) : jsonResponse(toResultMessageRaw(id, json));
      },
    },
  ],
  [
    "subscriptions/listen",
    {
      modern({ event, ctx, mount, server, params, extensions, auth }) {
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
      },
    },
  ],
  ["ping", { legacy: () => ({}) }],
  ["tools/list", list("tools/list")],
  ["prompts/list", list("prompts/list", "prompts")],
  ["resources/list", list("resources/list", "resources")],
  ["resources/templates/list", list("resources/templates/list", "resources")],
  ["tools/call", served(callTool)],
  ["prompts/get", served(getPrompt, "prompts")],
  ["resources/read", served(readResource, "resources")],
  [
    "completion/complete",
    {
      needs: "completions",
      modern: (call) => respond(call.ctx, hooked(call.event, call.ctx, () => complete(call)), "modern"),
      // Completion never asks the client for input: no bridge.
      legacy: ({ call }) => complete(call()).then(toLegacyResult),
    },
  ],
  [
    "resources/subscribe",
    {
      needs: "resources",
      legacy({ session, params, call }) {
        const uri = requireUri("resources/subscribe", params);
        // Following a resource tells when it changes: the caller needs the scopes a read needs.
        const served = call();
        requireScopes(served, resourceScopes(served.server, uri));
        session.subscriptions.add(uri);
        return {};
      },
    },
  ],
  [
    "resources/unsubscribe",
    {
      needs: "resources",
      legacy({ session, params }) {
        session.subscriptions.delete(requireUri("resources/unsubscribe", params));
        return {};
      },
    },
  ],
  [
    "logging/setLevel",
    {
      legacy({ session, params }) {
        if (!LOG_LEVELS.includes(params.level as LoggingLevel)) throw invalidParams("Invalid log level");
        session.logLevel = params.level as LoggingLevel;
        return {};
      },
    },
  ],
]);

// --- Internal ---

function requireUri(method: string, params: JsonObject): string {
  if (typeof params.uri !== "string") throw invalidParams(`${method} needs params.uri`);
  return params.uri;
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

function legacyPage(pages: string[], cursor: unknown): JsonObject {
  // A page's `_meta` is the serverInfo written into it at mount for 2026-07-28 clients: not a 2025 field.
  const { _meta: _m, ...page } = JSON.parse(pages[fromCursor(cursor, pages.length)]!) as JsonObject;
  return toLegacyResult(page);
}

/** 2025 results have no resultType and no cache hints; a result's own `_meta` (a tool's) is theirs too. */
function toLegacyResult(result: JsonObject): JsonObject {
  const { resultType: _r, ttlMs: _t, cacheScope: _c, ...rest } = result;
  return rest;
}
