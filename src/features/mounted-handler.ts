// What a plugin may need of the handlers it is installed in for work done away from any request: a task's
// later attempt (claimed after a crash or a hand-off, or run by an executor's worker) has no request, yet
// its result is checked against the tool that created the task and its run goes through the plugins'
// `wrapTaskRun`, as the first attempt's did. Offered at mount, kept beside the plugin (not on its type).
import type { McpExtensionPlugin } from "./extension-plugin.ts";
import type { PluginHooks } from "./hooks.ts";
import type { CompiledTool } from "./tools.ts";

/** A handler as work away from any request sees it. */
export interface MountedHandler {
  /**
   * The tool the handler serves now under `name` (after `add`, `replace` and `remove` too); undefined when
   * it serves none, or when its options are a function of the request (there is no request to ask).
   */
  tool(name: string): CompiledTool | undefined;
  /** Its plugins' hooks, composed. */
  readonly hooks: PluginHooks;
}

const handlerWatchers = new WeakMap<McpExtensionPlugin, (handler: MountedHandler) => void>();

/** Asks that `plugin` be given each handler it is installed in, at mount. */
export function watchMountedHandlers(plugin: McpExtensionPlugin, attach: (handler: MountedHandler) => void): void {
  handlerWatchers.set(plugin, attach);
}

/** Gives the plugin a handler it was installed in, if it asked (`watchMountedHandlers`). */
export function offerMountedHandler(plugin: McpExtensionPlugin, handler: MountedHandler): void {
  handlerWatchers.get(plugin)?.(handler);
}
