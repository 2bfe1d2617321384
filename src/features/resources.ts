import type { H3Event } from "h3";
import type { Completer } from "./prompts.ts";
import type { InputRequiredResult, JsonObject } from "../protocol/types.ts";
import { parseUriTemplate, type UriTemplate } from "../protocol/uri-template.ts";
import { checkOneOf, checkOptions, type OptionNames } from "../utils/options.ts";

export interface CacheHints {
  /** How long a client may reuse a list or discover result. */
  ttlMs?: number;
  /** `public`: any caller may share it; `private`: one authorization context only. */
  cacheScope?: "public" | "private";
}

export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  /** Base64. */
  blob?: string;
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** What a read may return: contents, text, bytes (sent as a base64 blob), or an input request (MRTR). */
export type ResourceReturn =
  | { contents: ResourceContents[]; _meta?: JsonObject }
  | ResourceContents[]
  | string
  | Uint8Array
  | InputRequiredResult;

interface ResourceMeta {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: JsonObject[];
  annotations?: JsonObject;
  _meta?: JsonObject;
  /** Cache hints for reads of this resource; the server's by default, with `cacheScope: "private"` when it needs `scopes`. */
  cache?: CacheHints;
  /** OAuth scopes reading it needs besides the route's; see a tool's `scopes`. */
  scopes?: readonly string[];
}

export interface ResourceDefinition extends ResourceMeta {
  uri: string;
  size?: number;
  read: (event: H3Event, uri: string) => ResourceReturn | Promise<ResourceReturn>;
}

export interface ResourceTemplateDefinition extends ResourceMeta {
  /** An RFC 6570 template, e.g. `file:///{path}`. */
  uriTemplate: string;
  /** Completion callbacks, by variable name (`completion/complete` with `ref/resource`). */
  complete?: Record<string, Completer>;
  read: (event: H3Event, uri: string, variables: Record<string, string>) => ResourceReturn | Promise<ResourceReturn>;
}

/**
 * Declares a resource at a fixed URI.
 *
 * @example
 * const readme = defineResource({ uri: "docs://readme", name: "README", mimeType: "text/markdown", read: () => "# Hello" });
 */
export function defineResource(def: ResourceDefinition): ResourceDefinition {
  checkResourceDefinition(def);
  return def;
}

const META_KEYS: OptionNames<ResourceMeta> = {
  name: true, title: true, description: true, mimeType: true, icons: true, annotations: true, _meta: true, cache: true, scopes: true,
};
const RESOURCE_KEYS: OptionNames<ResourceDefinition> = { ...META_KEYS, uri: true, size: true, read: true };
const TEMPLATE_KEYS: OptionNames<ResourceTemplateDefinition> = { ...META_KEYS, uriTemplate: true, complete: true, read: true };
const CACHE_KEYS: OptionNames<CacheHints> = { ttlMs: true, cacheScope: true };
const CACHE_SCOPES: readonly NonNullable<CacheHints["cacheScope"]>[] = ["public", "private"];

/** Refuses a key cache hints do not have, and a `cacheScope` that is neither. */
export function checkCacheHints(where: string, cache: CacheHints | undefined): void {
  checkOptions(where, cache, CACHE_KEYS, { path: "cache" });
  checkOneOf(where, "cache.cacheScope", cache?.cacheScope, CACHE_SCOPES);
}

/** Refuses a key a fixed resource's definition does not have. */
export function checkResourceDefinition(def: ResourceDefinition): void {
  const where = `Resource ${JSON.stringify(String(def?.uri))}`;
  checkOptions(where, def, RESOURCE_KEYS, { elsewhere: { uriTemplate: "a resource with a uriTemplate is defined by defineResourceTemplate and listed in resourceTemplates" } });
  checkCacheHints(where, def.cache);
}

function checkTemplateDefinition(def: ResourceTemplateDefinition): void {
  const where = `Resource template ${JSON.stringify(String(def?.uriTemplate))}`;
  checkOptions(where, def, TEMPLATE_KEYS, { elsewhere: { uri: "a resource at a fixed uri is defined by defineResource and listed in resources" } });
  checkCacheHints(where, def.cache);
}

/**
 * Declares a family of resources by an RFC 6570 URI template.
 *
 * @example
 * const user = defineResourceTemplate({
 *   uriTemplate: "users://{id}/profile",
 *   name: "User profile",
 *   read: (_event, uri, { id }) => JSON.stringify({ id }),
 * });
 */
export function defineResourceTemplate(def: ResourceTemplateDefinition): ResourceTemplateDefinition {
  checkTemplateDefinition(def);
  return def;
}

export interface CompiledTemplate {
  def: ResourceTemplateDefinition;
  entry: JsonObject;
  matcher: UriTemplate;
}

export function resourceEntry(def: ResourceDefinition): JsonObject {
  const entry: JsonObject = { uri: def.uri };
  copyMeta(def, entry);
  if (def.size !== undefined) entry.size = def.size;
  return entry;
}

export function compileTemplate(def: ResourceTemplateDefinition): CompiledTemplate {
  checkTemplateDefinition(def);
  const entry: JsonObject = { uriTemplate: def.uriTemplate };
  copyMeta(def, entry);
  return { def, entry, matcher: parseUriTemplate(def.uriTemplate) };
}

/** Normalises a read into `{ contents }`, or undefined when the value is not one. */
export function toReadResult(value: unknown, uri: string, mimeType: string | undefined): JsonObject | undefined {
  const one = (c: ResourceContents): ResourceContents => (mimeType && c.mimeType === undefined ? { ...c, mimeType } : c);
  if (typeof value === "string") return { contents: [one({ uri, text: value })] };
  if (value instanceof Uint8Array) return { contents: [one({ uri, blob: Buffer.from(value).toString("base64") })] };
  if (Array.isArray(value)) return { contents: value.map(one) };
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as JsonObject;
  if (v.resultType === "input_required") return v;
  if (!Array.isArray(v.contents)) return undefined;
  return { ...v, contents: (v.contents as ResourceContents[]).map(one) };
}

function copyMeta(def: ResourceMeta, entry: JsonObject): void {
  entry.name = def.name;
  if (def.title !== undefined) entry.title = def.title;
  if (def.description !== undefined) entry.description = def.description;
  if (def.mimeType !== undefined) entry.mimeType = def.mimeType;
  if (def.icons !== undefined) entry.icons = def.icons;
  if (def.annotations !== undefined) entry.annotations = def.annotations;
  if (def._meta !== undefined) entry._meta = def._meta;
}
