import type { H3Event } from "h3";
import { invalidParams } from "../protocol/errors.ts";
import type { McpExtensionPlugin } from "./extension-plugin.ts";
import { compilePrompt, type CompiledPrompt, type PromptDefinition } from "./prompts.ts";
import {
  checkCacheHints,
  checkResourceDefinition,
  compileTemplate,
  resourceEntry,
  type CacheHints,
  type CompiledTemplate,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from "./resources.ts";
import { compileTools, type CompiledTool, type ToolDefinition } from "./tools.ts";
import type { Implementation, JsonObject } from "../protocol/types.ts";
import { SUPPORTED_VERSIONS } from "../protocol/types.ts";
import { prepareResultMeta, type ResultMeta } from "../protocol/wire.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";

/** What the server is and serves. Give it as an object, or as a function of the request. */
export interface McpServerOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: JsonObject[];
  /** Advertised on `server/discover` and `initialize`. */
  instructions?: string;
  tools?: ToolDefinition<any>[];
  prompts?: PromptDefinition<any>[];
  /** Resources at fixed URIs. */
  resources?: ResourceDefinition[];
  /** Resource families by URI template. */
  resourceTemplates?: ResourceTemplateDefinition[];
  /** Items per list page (tools, prompts, resources, templates). Default 100. */
  pageSize?: number;
  /** Cache hints on `server/discover` and the lists. Default `{ ttlMs: 60_000, cacheScope: "public" }`. */
  cache?: CacheHints;
  /**
   * Put `_meta["io.modelcontextprotocol/serverInfo"]` (name, version, title…) on every 2026-07-28
   * result, as the spec recommends. Default true; `false` leaves it out everywhere, server/discover included.
   */
  serverInfoMeta?: boolean;
}

const SERVER_KEYS: OptionNames<McpServerOptions> = {
  name: true, version: true, title: true, description: true, websiteUrl: true, icons: true, instructions: true, tools: true,
  prompts: true, resources: true, resourceTemplates: true, pageSize: true, cache: true, serverInfoMeta: true,
};
// What is given to defineMcpHandler's second argument, mistaken for the server's.
const HANDLER_CONFIG = "it is the handler config's (defineMcpHandler's second argument)";
const ELSEWHERE = Object.fromEntries(
  ["extensionPlugins", "plugins", "maxBodySize", "bodyTimeoutMs", "requestState", "legacy", "onError", "auth", "keepAliveMs", "allowedHosts", "allowedOrigins"].map((key) => [key, `${key}: ${HANDLER_CONFIG}`]),
);

/** Options compiled once: the tool table, list pages and capability objects. */
export interface CompiledServer {
  options: McpServerOptions;
  serverInfo: Implementation;
  tools: Map<string, CompiledTool>;
  prompts: Map<string, CompiledPrompt>;
  resources: Map<string, ResourceDefinition>;
  templates: CompiledTemplate[];
  /** Result JSON of each list's pages, by list method. */
  pages: Record<ListMethod, string[]>;
  cache: Required<CacheHints>;
  /** The `_meta` every 2026-07-28 result carries; undefined with `serverInfoMeta: false`. */
  resultMeta?: ResultMeta;
  capabilities: JsonObject;
  legacyCapabilities: JsonObject;
  /** `server/discover` result JSON for a given set of advertised extensions. */
  discoverJson(extensions: readonly McpExtensionPlugin[]): string;
}

export type ListMethod = "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list";

const compiledByTools = new WeakMap<readonly ToolDefinition<any>[], Map<string, CompiledTool>>();
const EMPTY_TOOLS: ToolDefinition<any>[] = [];

/**
 * Compiles options once. `perCaller`: they were made for one caller (options as a function of an
 * authenticated event), so nothing they produce may be served with a shared cache scope.
 */
function compileServer(options: McpServerOptions, perCaller = false): CompiledServer {
  checkOptions("Server options", options, SERVER_KEYS, { elsewhere: ELSEWHERE });
  checkCacheHints("Server options", options.cache);
  const toolDefs = options.tools ?? EMPTY_TOOLS;
  let tools = compiledByTools.get(toolDefs);
  if (!tools) {
    tools = compileTools(toolDefs);
    compiledByTools.set(toolDefs, tools);
  }
  const cache: Required<CacheHints> = {
    ttlMs: options.cache?.ttlMs ?? 60_000,
    cacheScope: perCaller ? "private" : (options.cache?.cacheScope ?? "public"),
  };
  const serverInfo: Implementation = { name: options.name, version: options.version };
  if (options.title !== undefined) serverInfo.title = options.title;
  if (options.description !== undefined) serverInfo.description = options.description;
  if (options.websiteUrl !== undefined) serverInfo.websiteUrl = options.websiteUrl;
  if (options.icons !== undefined) serverInfo.icons = options.icons;
  const resultMeta = options.serverInfoMeta === false ? undefined : prepareResultMeta(serverInfo as JsonObject);

  const prompts = new Map<string, CompiledPrompt>();
  for (const def of options.prompts ?? []) {
    if (prompts.has(def.name)) throw new TypeError(`Duplicate prompt name "${def.name}"`);
    prompts.set(def.name, compilePrompt(def));
  }
  const resources = new Map<string, ResourceDefinition>();
  for (const def of options.resources ?? []) {
    checkResourceDefinition(def);
    if (resources.has(def.uri)) throw new TypeError(`Duplicate resource URI "${def.uri}"`);
    resources.set(def.uri, def);
  }
  const templates = (options.resourceTemplates ?? []).map(compileTemplate);

  const capabilities: JsonObject = { tools: { listChanged: true } };
  if (prompts.size) capabilities.prompts = { listChanged: true };
  if (resources.size || templates.length) capabilities.resources = { subscribe: true, listChanged: true };
  if (prompts.size || templates.length) capabilities.completions = {};

  const pageSize = Math.max(1, options.pageSize ?? 100);
  const pages = {
    "tools/list": paginate("tools", [...tools.values()].map((t) => t.entry), pageSize, cache, resultMeta),
    "prompts/list": paginate("prompts", [...prompts.values()].map((p) => p.entry), pageSize, cache, resultMeta),
    "resources/list": paginate("resources", [...resources.values()].map(resourceEntry), pageSize, cache, resultMeta),
    "resources/templates/list": paginate("resourceTemplates", templates.map((t) => t.entry), pageSize, cache, resultMeta),
  };

  const discoverCache = new Map<string, string>();
  return {
    options,
    serverInfo,
    tools,
    prompts,
    resources,
    templates,
    pages,
    cache,
    resultMeta,
    capabilities,
    legacyCapabilities: { ...capabilities, logging: {} },
    discoverJson(extensions) {
      const key = extensions.map((e) => e.id).join("\n");
      let json = discoverCache.get(key);
      if (json === undefined) {
        const caps: JsonObject = { ...capabilities };
        if (extensions.length) caps.extensions = Object.fromEntries(extensions.map((e) => [e.id, e.settings ?? {}]));
        const result: JsonObject = { resultType: "complete", supportedVersions: SUPPORTED_VERSIONS, capabilities: caps };
        if (options.instructions !== undefined) result.instructions = options.instructions;
        result.ttlMs = cache.ttlMs;
        result.cacheScope = cache.cacheScope;
        if (resultMeta) result._meta = resultMeta.meta;
        json = JSON.stringify(result);
        discoverCache.set(key, json);
      }
      return json;
    },
  };
}

export interface ServerResolver {
  resolve(event: H3Event): CompiledServer;
  /** Static options only: what they compile to now, for work done away from any request. */
  current?(): CompiledServer;
  /**
   * Static options only: compiles the options `next` makes of the current ones, at once; requests that
   * start afterwards see them. Throws (and nothing changes) when they do not compile.
   */
  recompile?(next: (current: McpServerOptions) => McpServerOptions): void;
}

/**
 * Resolves the options for a request: compiled once when static, per request (with caching) when a
 * function. `authenticated`: a function of the event may then answer per caller, so its lists and
 * discover result are never served with a shared cache scope.
 */
export function createServerResolver(
  options: McpServerOptions | ((event: H3Event) => McpServerOptions),
  authenticated = false,
): ServerResolver {
  if (typeof options !== "function") {
    // The arrays are copied so that editing the app's own arrays later changes nothing: changes go through recompile.
    let compiled = compileServer({
      ...options,
      tools: [...(options.tools ?? [])],
      prompts: [...(options.prompts ?? [])],
      resources: [...(options.resources ?? [])],
      resourceTemplates: [...(options.resourceTemplates ?? [])],
    });
    return {
      resolve: () => compiled,
      current: () => compiled,
      recompile(next) {
        compiled = compileServer(next(compiled.options));
      },
    };
  }
  const byOptions = new WeakMap<McpServerOptions, CompiledServer>();
  return {
    resolve(event) {
      const resolved = options(event);
      let compiled = byOptions.get(resolved);
      if (!compiled) {
        compiled = compileServer(resolved, authenticated);
        byOptions.set(resolved, compiled);
      }
      return compiled;
    },
  };
}

function paginate(key: string, entries: JsonObject[], pageSize: number, cache: Required<CacheHints>, meta?: ResultMeta): string[] {
  const pages: string[] = [];
  for (let i = 0; i === 0 || i * pageSize < entries.length; i++) {
    const page: JsonObject = { resultType: "complete", [key]: entries.slice(i * pageSize, (i + 1) * pageSize) };
    if ((i + 1) * pageSize < entries.length) page.nextCursor = toCursor(i + 1);
    page.ttlMs = cache.ttlMs;
    page.cacheScope = cache.cacheScope;
    if (meta) page._meta = meta.meta;
    pages.push(JSON.stringify(page));
  }
  return pages;
}

/** The scopes reading or subscribing to `uri` needs: its fixed resource's, else the first matching template's (as a read picks). */
export function resourceScopes(server: CompiledServer, uri: string): readonly string[] | undefined {
  const fixed = server.resources.get(uri);
  if (fixed) return fixed.scopes;
  for (const template of server.templates) if (template.matcher.match(uri)) return template.def.scopes;
  return undefined;
}

function toCursor(page: number): string {
  return Buffer.from(`page:${page}`).toString("base64url");
}

/** The page index a cursor names; `-32602` for anything this server did not issue. */
export function fromCursor(cursor: unknown, pages: number): number {
  if (cursor === undefined || cursor === null) return 0;
  if (typeof cursor !== "string") throw invalidParams("Invalid cursor");
  const match = /^page:(\d{1,6})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  const page = match ? Number(match[1]) : -1;
  if (page < 1 || page >= pages || toCursor(page) !== cursor) throw invalidParams("Invalid cursor");
  return page;
}

