import type { H3Event } from "h3";
import { hiddenCause, McpJsonRpcError, outageOf } from "../protocol/errors.ts";
import type { EndableStream } from "./listen.ts";
import type { HandlerMount } from "../features/request-context.ts";
import type { McpExtensionPlugin, McpPluginMethod } from "../features/extension-plugin.ts";
import type { CompiledServer } from "../features/compiled-server.ts";
import type { SessionStore } from "./sessions.ts";

/** Everything a handler prepared at mount; shared by the modern and legacy paths. */
export interface Mount extends HandlerMount {
  resolve(event: H3Event): CompiledServer;
  /** True when options are a function of the event: discover then follows plugin predicates. */
  dynamic: boolean;
  /** What static options advertise: the plugins not switched off with `enabled: false`. */
  advertised: readonly McpExtensionPlugin[];
  /** Set when no plugin has an `enabled` predicate: the same map serves every request. */
  staticExtensions?: ReadonlyMap<string, McpExtensionPlugin>;
  pluginMethods: Map<string, { plugin: McpExtensionPlugin; method: McpPluginMethod }>;
  /** Params field `Mcp-Name` must equal, by method. */
  nameParams: Map<string, string>;
  /** Open listen streams, so the server can end them. */
  streams: Set<EndableStream>;
  sessions: SessionStore;
  legacy: boolean;
  /** Interval of the keep-alive comment on long-lived streams. */
  keepAliveMs: number;
}

const NO_EXTENSIONS: ReadonlyMap<string, McpExtensionPlugin> = new Map();

/** The plugins for every request when none has a predicate, computed at mount; undefined otherwise. */
export function staticExtensions(plugins: readonly McpExtensionPlugin[]): ReadonlyMap<string, McpExtensionPlugin> | undefined {
  if (plugins.length === 0) return NO_EXTENSIONS;
  if (plugins.some((p) => typeof p.enabled === "function")) return undefined;
  return new Map(plugins.filter((p) => p.enabled !== false).map((p) => [p.id, p]));
}

/** The plugins enabled for this request, by id. */
export function enabledPlugins(mount: Mount, event: H3Event): ReadonlyMap<string, McpExtensionPlugin> {
  if (mount.staticExtensions) return mount.staticExtensions;
  let map: Map<string, McpExtensionPlugin> | undefined;
  for (const plugin of mount.plugins) {
    if (plugin.enabled !== undefined && !safeEnabled(plugin, event)) continue;
    (map ??= new Map()).set(plugin.id, plugin);
  }
  return map ?? NO_EXTENSIONS;
}

function safeEnabled(plugin: McpExtensionPlugin, event: H3Event): boolean {
  try {
    return plugin.enabled !== false && plugin.enabled!(event) === true;
  } catch {
    // A predicate that throws serves nothing rather than failing the request.
    return false;
  }
}

/**
 * Hands an unexpected error to the handler's `onError` (a McpJsonRpcError's hidden cause, the outage a
 * task store's 503 belongs to the first time; nothing for a protocol error meant for the client), and returns
 * the error for the answer.
 */
export function reportUnexpected(mount: HandlerMount, error: unknown, event: H3Event): unknown {
  let unexpected = McpJsonRpcError.isError(error) ? hiddenCause(error) : error;
  // A task store outage is the server's trouble: told once, with the first request it failed.
  const outage = unexpected === undefined ? outageOf(error) : undefined;
  if (outage && !outage.told) {
    outage.told = true;
    unexpected = outage.error;
  }
  if (unexpected !== undefined && mount.onError) {
    try {
      mount.onError(unexpected, event);
    } catch {
      // A failing error hook must not change the answer.
    }
  }
  return error;
}
