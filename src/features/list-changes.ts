// Tools, prompts and resources that change after mount: the app names what to add, replace or remove,
// and gets new options back (the caller compiles them at once and announces the lists that changed).
// Nothing is edited in place: the options and arrays the app gave are never touched.
import type { ListKind } from "./change-hub.ts";
import type { McpServerOptions } from "./compiled-server.ts";
import type { PromptDefinition } from "./prompts.ts";
import type { ResourceDefinition, ResourceTemplateDefinition } from "./resources.ts";
import type { ToolDefinition } from "./tools.ts";

/** Definitions to add or replace, by list. */
export interface McpListItems {
  tools?: ToolDefinition<any>[];
  prompts?: PromptDefinition<any>[];
  resources?: ResourceDefinition[];
  resourceTemplates?: ResourceTemplateDefinition[];
}

/** What to remove, by list: tool and prompt names, resource URIs, resource templates' `uriTemplate`s. */
export interface McpListKeys {
  tools?: string[];
  prompts?: string[];
  resources?: string[];
  resourceTemplates?: string[];
}

export type ListOperation = "add" | "replace" | "remove";

type ListName = keyof McpListItems;

const LISTS: { name: ListName; kind: ListKind; noun: string; keyOf: (def: any) => string }[] = [
  { name: "tools", kind: "tools", noun: "tool", keyOf: (def: ToolDefinition) => def.name },
  { name: "prompts", kind: "prompts", noun: "prompt", keyOf: (def: PromptDefinition) => def.name },
  { name: "resources", kind: "resources", noun: "resource", keyOf: (def: ResourceDefinition) => def.uri },
  { name: "resourceTemplates", kind: "resources", noun: "resource template", keyOf: (def: ResourceTemplateDefinition) => def.uriTemplate },
];

/**
 * The options with one operation applied, and the announced lists it changed. `add` refuses a key
 * already served, `replace` and `remove` one that is not (a TypeError, and nothing changes). A replaced
 * item keeps its place in the listing; an added one goes last.
 */
export function applyListChange(
  options: McpServerOptions,
  operation: ListOperation,
  change: McpListItems | McpListKeys,
): { options: McpServerOptions; changed: ListKind[] } {
  const next: McpServerOptions = { ...options };
  const changed = new Set<ListKind>();
  for (const { name, kind, noun, keyOf } of LISTS) {
    const given = (change as Record<string, unknown[] | undefined>)[name];
    if (given === undefined) continue;
    if (!Array.isArray(given)) throw new TypeError(`${operation}(): ${name} must be an array`);
    if (given.length === 0) continue;
    const current: unknown[] = [...((options[name] as unknown[] | undefined) ?? [])];
    const index = new Map(current.map((def, i) => [keyOf(def), i]));
    const keys = operation === "remove" ? (given as string[]) : given.map(keyOf);
    if (new Set(keys).size !== keys.length) throw new TypeError(`${operation}(): the same ${noun} is named twice in ${name}`);
    for (const key of keys) {
      if (operation === "add" && index.has(key)) throw new TypeError(`add(): the ${noun} "${key}" is already served; use replace()`);
      if (operation !== "add" && !index.has(key)) throw new TypeError(`${operation}(): no ${noun} "${key}" is served`);
    }
    let updated: unknown[];
    if (operation === "add") updated = [...current, ...given];
    else if (operation === "replace") {
      updated = current;
      given.forEach((def, i) => (updated[index.get(keys[i]!)!] = def));
    } else {
      const gone = new Set(keys);
      updated = current.filter((def) => !gone.has(keyOf(def)));
    }
    (next as unknown as Record<string, unknown[]>)[name] = updated;
    changed.add(kind);
  }
  return { options: next, changed: [...changed] };
}
