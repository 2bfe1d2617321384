// The handler's two plugin options, checked at definition: MCP extensions (`extensionPlugins`) and plugins of
// hooks only (`plugins`), and the order their hooks run in.
import { checkPluginKeys } from "../features/define-plugin.ts";
import { isExtension, type McpExtensionPlugin, type McpPlugin } from "../features/extension-plugin.ts";

/**
 * The extensions, and every plugin in hook order (`plugins` outside `extensionPlugins`). Each list refuses
 * the other's kind: an extension among `plugins` would hook in but never be advertised or served.
 */
export function installedPlugins(
  extensionPlugins: McpExtensionPlugin[] | undefined,
  hookPlugins: McpPlugin[] | undefined,
): { plugins: McpExtensionPlugin[]; installed: (McpPlugin | McpExtensionPlugin)[] } {
  // Typed wider than the options say: a config from plain JavaScript may hold either kind in either list.
  const extensions: (McpPlugin | McpExtensionPlugin)[] = pluginList(extensionPlugins, "extensionPlugins");
  const hooksOnly: (McpPlugin | McpExtensionPlugin)[] = pluginList(hookPlugins, "plugins");
  const notExtension = extensions.find((plugin) => !isExtension(plugin));
  if (notExtension) {
    throw new TypeError(
      `defineMcpHandler: ${describePlugin(notExtension)} has no extension id, so it is not an MCP extension: install it with plugins, not extensionPlugins`,
    );
  }
  const extension = hooksOnly.find(isExtension);
  if (extension) throw new TypeError(`defineMcpHandler: ${extension.id} is an MCP extension: install it with extensionPlugins, not plugins`);
  for (const plugin of hooksOnly) checkPluginKeys(`defineMcpHandler: ${describePlugin(plugin as McpPlugin)} in plugins`, plugin);
  return { plugins: extensions.filter(isExtension), installed: [...hooksOnly, ...extensions] };
}

// --- Internal ---

function pluginList<T>(list: T[] | undefined, option: string): T[] {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.some((p) => typeof p !== "object" || p === null)) {
    throw new TypeError(`defineMcpHandler: ${option} must be an array of plugin objects`);
  }
  return list;
}

function describePlugin(plugin: { name?: unknown }): string {
  return typeof plugin.name === "string" ? `the plugin ${plugin.name}` : "a plugin";
}
