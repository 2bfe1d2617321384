// The handler's config (defineMcpHandler's second argument), and its check at mount: a misspelt key is
// refused there, with the nearest name, rather than silently leaving a setting at its default.
import type { H3Event } from "h3";
import type { McpAuthGuard } from "../features/authorization.ts";
import type { McpExtensionPlugin, McpPlugin } from "../features/extension-plugin.ts";
import type { RequestStateOptions } from "../features/mrtr/request-state-signer.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";
import type { OriginPolicy } from "./security.ts";
import type { SessionOptions } from "./sessions.ts";

/** Transport, security and extension settings, fixed at mount. */
export interface McpHandlerConfig extends OriginPolicy {
  /** MCP extensions to serve, each with its own options, e.g. `mcpTasks()` from "h3-mcp/tasks"; nothing else. */
  extensionPlugins?: McpExtensionPlugin[];
  /**
   * Plugins of hooks only, e.g. `mcpOpenTelemetry()` from "h3-mcp/otel", an audit log or a rate limit; no
   * extension. Their hooks wrap outside the extensions' own, the first outermost.
   */
  plugins?: McpPlugin[];
  /** Largest accepted request body in bytes; larger ones get 413. Default 4 MiB. */
  maxBodySize?: number;
  /**
   * Milliseconds a client has to send a request's whole body, from when the handler starts reading it; a
   * slower one gets 408 and its connection is closed. On Node, Bun and Deno one timer ticking every quarter of
   * this serves every body, so the 408 comes between 1× and 1.25× this after the read started. Default 10 000;
   * `Infinity` for no deadline.
   */
  bodyTimeoutMs?: number;
  /** Signing of MRTR `requestState`. */
  requestState?: RequestStateOptions;
  /** Serve initialize-based (2025-11-25 and older) clients on the same route. Default true. */
  legacy?: boolean | SessionOptions;
  /**
   * Called with what the server did wrong: unexpected errors (the client only sees a generic internal error).
   * What a client did (hung up, sent its body too slowly, brought a bad token) never comes here: plugins
   * hear of it (`clientError`, `authRefused`).
   */
  onError?: (error: unknown, event: H3Event) => void;
  /**
   * Protects the route as an OAuth 2.1 resource server: `mcpAuth(...)` from "h3-mcp/auth". Every request
   * (both eras, GET and DELETE of legacy sessions too) is authenticated before anything else runs, and the
   * identity is on the request (`getMcpAuth(event)`, `getMcpContext(event).auth`).
   */
  auth?: McpAuthGuard;
  /**
   * Milliseconds between the keep-alive comments on listen and legacy GET streams. Default 5000:
   * well under Bun's default 10 s idle timeout, the strictest among the servers h3 runs on.
   */
  keepAliveMs?: number;
}

const CONFIG_KEYS: OptionNames<McpHandlerConfig> = {
  extensionPlugins: true, plugins: true, maxBodySize: true, bodyTimeoutMs: true, requestState: true, legacy: true, onError: true,
  auth: true, keepAliveMs: true, allowedHosts: true, allowedOrigins: true,
};
const SESSION_KEYS: OptionNames<SessionOptions> = { maxSessions: true, idleTimeoutMs: true };
const REQUEST_STATE_KEYS: OptionNames<RequestStateOptions> = { secret: true, ttlMs: true };
const SERVER_OPTION = "it is the server options' (defineMcpHandler's first argument)";
const CONFIG_ELSEWHERE = Object.fromEntries(
  ["name", "version", "tools", "prompts", "resources", "resourceTemplates", "instructions", "pageSize", "cache"].map((key) => [key, `${key}: ${SERVER_OPTION}`]),
);

/** Refuses a key the handler config (or its `legacy` and `requestState` objects) does not have. */
export function checkHandlerConfig(config: McpHandlerConfig): void {
  const where = "defineMcpHandler() config";
  checkOptions(where, config, CONFIG_KEYS, { elsewhere: CONFIG_ELSEWHERE });
  if (typeof config.legacy === "object") checkOptions(where, config.legacy, SESSION_KEYS, { path: "legacy" });
  checkOptions(where, config.requestState, REQUEST_STATE_KEYS, { path: "requestState" });
}

