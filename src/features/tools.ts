import type { H3Event } from "h3";
import { prepareJsonSchemaCheck } from "../protocol/json-schema.ts";
import { isStandardSchema, prepareSchema, toJsonSchema, type InferSchema, type PreparedSchema, type SchemaInput } from "../protocol/schema.ts";
import type { CallToolResult, CreateTaskResult, InputRequiredResult, JsonObject, TaskSupport, ToolAnnotations } from "../protocol/types.ts";
import { checkOneOf, checkOptions, type OptionNames } from "../utils/options.ts";

/** What a tool handler may return. Plugins may produce more (the tasks extension returns a task handle). */
export type ToolReturn =
  | CallToolResult
  | string
  | InputRequiredResult
  | CreateTaskResult
  | { resultType: string; [key: string]: unknown };

type ArgsOf<S> = InferSchema<S, Record<string, unknown>>;

export interface ToolDefinition<S extends SchemaInput | undefined = SchemaInput | undefined> {
  /** 1–128 characters of `[A-Za-z0-9_.-]`. */
  name: string;
  title?: string;
  description?: string;
  icons?: JsonObject[];
  /**
   * The arguments: an object schema from any library implementing Standard JSON Schema (zod 4.2+,
   * ArkType, valibot through `toStandardJsonSchema`), a raw shape such as `{ city: z.string() }`, or
   * plain JSON Schema with `type: "object"`.
   */
  inputSchema?: S;
  /** Checked against `structuredContent` when given; the same kinds as `inputSchema`. */
  outputSchema?: SchemaInput;
  /** Untrusted hints for clients. */
  annotations?: ToolAnnotations;
  /** Listed as given; `taskSupport: "required"` is enforced by the tasks plugin. */
  execution?: { taskSupport?: TaskSupport };
  /**
   * OAuth scopes a call needs besides the route's (the handler's `auth`): a token without them gets 403
   * `insufficient_scope` naming them, so the client can step up. The tool is listed to everyone.
   */
  scopes?: readonly string[];
  _meta?: JsonObject;
  /** Runs the tool. `args` were validated against `inputSchema`. */
  handler(event: H3Event, args: ArgsOf<S>): ToolReturn | Promise<ToolReturn>;
}

/**
 * Declares a tool. An identity function that keeps the handler's `args` typed by `inputSchema`.
 *
 * @example
 * const echo = defineTool({
 *   name: "echo",
 *   inputSchema: z.object({ text: z.string() }),
 *   handler: (_event, { text }) => text,
 * });
 */
export function defineTool<S extends SchemaInput | undefined = undefined>(def: ToolDefinition<S>): ToolDefinition<S> {
  checkToolDefinition(def);
  return def;
}

const TOOL_KEYS: OptionNames<ToolDefinition> = {
  name: true, title: true, description: true, icons: true, inputSchema: true, outputSchema: true, annotations: true,
  execution: true, scopes: true, _meta: true, handler: true,
};
const EXECUTION_KEYS: OptionNames<NonNullable<ToolDefinition["execution"]>> = { taskSupport: true };
const TASK_SUPPORT: readonly TaskSupport[] = ["required", "optional", "forbidden"];

/** Refuses a key a tool definition does not have, and a `taskSupport` no client would understand. */
function checkToolDefinition(def: ToolDefinition<any>): void {
  const where = `Tool ${JSON.stringify(typeof def?.name === "string" ? def.name : String(def?.name))}`;
  checkOptions(where, def, TOOL_KEYS, { elsewhere: { taskSupport: 'taskSupport goes under execution: execution: { taskSupport: "optional" }' } });
  checkOptions(where, def.execution, EXECUTION_KEYS, { path: "execution" });
  checkOneOf(where, "execution.taskSupport", def.execution?.taskSupport, TASK_SUPPORT);
}

/** A tool prepared at mount: its `tools/list` entry, header bindings and schemas. */
export interface CompiledTool {
  def: ToolDefinition<any>;
  entry: JsonObject;
  /** `Mcp-Param-{name}` headers bound to argument paths by `x-mcp-header`. */
  headerParams: { header: string; path: string[] }[];
  /**
   * The schemas as prepared at mount (a raw shape wrapped); validate with these, not `def`'s. A tool
   * without `inputSchema` gets the empty object schema it lists, so it refuses any argument.
   */
  inputSchema: PreparedSchema;
  outputSchema?: PreparedSchema;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
// What a tool without `inputSchema` lists, and enforces: no arguments (an empty object or none).
const EMPTY_INPUT_SCHEMA: JsonObject = { type: "object", additionalProperties: false };
prepareJsonSchemaCheck(EMPTY_INPUT_SCHEMA, "The empty inputSchema");

function compileTool(def: ToolDefinition<any>): CompiledTool {
  checkToolDefinition(def);
  if (!TOOL_NAME.test(def.name)) throw new TypeError(`Invalid tool name "${def.name}": use 1-128 of [A-Za-z0-9_.-]`);
  const where = `Tool "${def.name}":`;
  const input = def.inputSchema === undefined ? undefined : prepareSchema(def.inputSchema, `${where} inputSchema`);
  const output = def.outputSchema === undefined ? undefined : prepareSchema(def.outputSchema, `${where} outputSchema`);
  const inputSchema = input ? toJsonSchema(input, "input", `${where} inputSchema`) : EMPTY_INPUT_SCHEMA;
  if (inputSchema.type !== "object") {
    throw new TypeError(`${where} inputSchema must describe an object (JSON Schema type "object"); leave it out for a tool without arguments`);
  }
  const entry: JsonObject = { name: def.name };
  if (def.title !== undefined) entry.title = def.title;
  if (def.description !== undefined) entry.description = def.description;
  if (def.icons !== undefined) entry.icons = def.icons;
  entry.inputSchema = inputSchema;
  if (output) entry.outputSchema = toJsonSchema(output, "output", `${where} outputSchema`);
  if (def.annotations !== undefined) entry.annotations = def.annotations;
  if (def.execution !== undefined) entry.execution = def.execution;
  if (def._meta !== undefined) entry._meta = def._meta;
  const compiled: CompiledTool = { def, entry, headerParams: findHeaderParams(inputSchema), inputSchema: input ?? EMPTY_INPUT_SCHEMA };
  if (output) compiled.outputSchema = output;
  // Plain JSON Schema is enforced, and prepared here, once, rather than on a request.
  if (input && !isStandardSchema(input)) prepareJsonSchemaCheck(input, `${where} inputSchema`);
  if (output && !isStandardSchema(output)) prepareJsonSchemaCheck(output, `${where} outputSchema`);
  return compiled;
}

// A definition is compiled once however many tool lists hold it (lists changed after mount, options per request).
const compiledByDef = new WeakMap<ToolDefinition<any>, CompiledTool>();

/** Compiles a tool list; names must be unique. Order is kept: it is the listing order. */
export function compileTools(defs: readonly ToolDefinition<any>[]): Map<string, CompiledTool> {
  const table = new Map<string, CompiledTool>();
  for (const def of defs) {
    if (table.has(def.name)) throw new TypeError(`Duplicate tool name "${def.name}"`);
    let compiled = compiledByDef.get(def);
    if (!compiled) {
      compiled = compileTool(def);
      compiledByDef.set(def, compiled);
    }
    table.set(def.name, compiled);
  }
  return table;
}

/** Normalises what a handler returned into a result object, or undefined when it is not one. */
export function toToolResult(value: unknown): JsonObject | undefined {
  if (typeof value === "string") return { resultType: "complete", content: [{ type: "text", text: value }] };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as JsonObject;
  if (typeof v.resultType === "string" && v.resultType !== "complete") return v;
  if (!Array.isArray(v.content)) return undefined;
  return v.resultType === "complete" ? v : { resultType: "complete", ...v };
}

// --- Internal ---

const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function findHeaderParams(schema: JsonObject): { header: string; path: string[] }[] {
  const out: { header: string; path: string[] }[] = [];
  const seen = new Set<string>();
  const walk = (node: JsonObject, path: string[]) => {
    const props = node.properties as Record<string, JsonObject> | undefined;
    if (!props || typeof props !== "object") return;
    for (const [key, child] of Object.entries(props)) {
      if (!child || typeof child !== "object") continue;
      const header = child["x-mcp-header"];
      if (typeof header === "string" && HEADER_TOKEN.test(header) && !seen.has(header.toLowerCase())) {
        seen.add(header.toLowerCase());
        out.push({ header, path: [...path, key] });
      }
      walk(child, [...path, key]);
    }
  };
  walk(schema, []);
  return out;
}
