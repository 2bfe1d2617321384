// A plugin's keys, checked where it is written (defineMcpPlugin) and where it is installed: a misspelt hook
// would otherwise never run, and nothing would say so.
import { checkOptions, nearestName, type OptionNames } from "../utils/options.ts";
import { isExtension, type McpExtensionPlugin, type McpPlugin, type McpPluginHooks, type McpPluginMethod } from "./extension-plugin.ts";

const HOOK_KEYS: OptionNames<McpPluginHooks> = {
  wrapRequest: true, wrapTaskRun: true, taskOrigin: true, watchSession: true, beforeToolCall: true, wrapToolCall: true,
  clientError: true, authRefused: true, taskStoreAvailability: true,
};
const PLUGIN_KEYS: OptionNames<McpPlugin> = { ...HOOK_KEYS, name: true, id: true };
const EXTENSION_KEYS: OptionNames<McpExtensionPlugin> = { ...HOOK_KEYS, id: true, settings: true, enabled: true, methods: true, listen: true };
const METHOD_KEYS: OptionNames<McpPluginMethod> = { handler: true, nameParam: true };
const EXTENSION_ONLY = "only an MCP extension (a plugin with an id, installed with extensionPlugins) has it";
const HOOKS_ONLY_ELSEWHERE = { methods: `methods: ${EXTENSION_ONLY}`, listen: `listen: ${EXTENSION_ONLY}`, settings: `settings: ${EXTENSION_ONLY}` };

/**
 * Refuses a key of a plugin that is near a name it may have (`wrapRequests`, `beforeToolcall`) but is not
 * one. A key near none passes: hooks are called with the plugin as `this`, so a plugin may keep its own
 * state (a counter, a log) beside them.
 */
function checkNearKeys(where: string, plugin: object, known: OptionNames<object>, elsewhere: Record<string, string> = {}): void {
  const names = Object.keys(known);
  const suspect = Object.keys(plugin).filter((key) => !(key in known) && (key in elsewhere || nearestName(key, names) !== undefined));
  if (suspect.length) checkOptions(where, Object.fromEntries(suspect.map((key) => [key, true])), known, { elsewhere });
}

/** Refuses a plugin of hooks only that is not an object, or that holds a misspelt hook or an extension's key. */
export function checkPluginKeys(where: string, plugin: unknown): void {
  if (plugin === null || typeof plugin !== "object" || Array.isArray(plugin)) checkOptions(where, plugin ?? null, []);
  else checkNearKeys(where, plugin, PLUGIN_KEYS, HOOKS_ONLY_ELSEWHERE);
}

function checkExtensionKeys(where: string, plugin: McpExtensionPlugin): void {
  const named = `${where} ${plugin.id}`;
  checkNearKeys(named, plugin, EXTENSION_KEYS);
  for (const [name, method] of Object.entries(plugin.methods ?? {})) checkOptions(named, method, METHOD_KEYS, { path: `methods[${JSON.stringify(name)}]` });
}

/**
 * Declares a plugin: an extension (with an `id`, for `extensionPlugins`), or hooks only (for `plugins`).
 *
 * @example
 * const hello = defineMcpPlugin({ id: "com.example/hello", methods: { "hello/say": { handler: () => ({ resultType: "complete" }) } } });
 * const timing = defineMcpPlugin({ name: "timing", wrapRequest: (event, next) => next() });
 */
export function defineMcpPlugin(plugin: McpExtensionPlugin): McpExtensionPlugin;
export function defineMcpPlugin(plugin: McpPlugin): McpPlugin;
export function defineMcpPlugin(plugin: McpPlugin | McpExtensionPlugin): McpPlugin | McpExtensionPlugin {
  if (plugin !== null && typeof plugin === "object" && isExtension(plugin)) checkExtensionKeys("defineMcpPlugin()", plugin);
  else checkPluginKeys("defineMcpPlugin()", plugin);
  return plugin;
}
