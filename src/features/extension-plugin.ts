import type { H3Event } from "h3";
import type { Hub } from "./change-hub.ts";
import type { ToolDefinition } from "./tools.ts";
import type { JsonObject, RequestId } from "../protocol/types.ts";

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
 * An MCP extension, installed with `defineMcpHandler(options, { extensionPlugins: [plugin] })`.
 * It brings its own options; the handler has none for it.
 */
export interface McpExtensionPlugin {
  /** The prefixed extension identifier advertised under `capabilities.extensions`. */
  id: string;
  /** The settings object advertised for the extension. Default `{}`. */
  settings?: JsonObject;
  /**
   * Per-request switch. A rejected request sees none of the plugin's methods or filters. `false`
   * switches it off for every request: it is then not advertised either.
   */
  enabled?: false | ((event: H3Event) => boolean);
  /** Methods the plugin serves. */
  methods?: Record<string, McpPluginMethod>;
  /** Filters the plugin adds to `subscriptions/listen`. */
  listen?: ListenFilter[];
  /**
   * Runs on every `tools/call` before arguments are validated and the tool runs, in both eras,
   * whether or not the plugin is enabled for the request. Throw `McpJsonRpcError` to refuse.
   */
  beforeToolCall?: (event: H3Event, tool: ToolDefinition<any>) => void;
  /**
   * Wraps the tool's run (after validation): call `next()` for the normalised result, and return it,
   * changed or not. Plugins wrap in installation order, the first outermost.
   */
  wrapToolCall?: (event: H3Event, tool: ToolDefinition<any>, next: () => Promise<JsonObject>) => JsonObject | Promise<JsonObject>;
  /** @internal Offered the handler's change hub at mount (a shared task store bridges it between instances). */
  "~attachHub"?: (hub: Hub) => void;
}

/**
 * Declares an extension plugin (typed identity).
 *
 * @example
 * const hello = defineMcpPlugin({ id: "com.example/hello", methods: { "hello/say": { handler: () => ({ resultType: "complete" }) } } });
 */
export function defineMcpPlugin(plugin: McpExtensionPlugin): McpExtensionPlugin {
  return plugin;
}
