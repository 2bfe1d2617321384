import type { H3Event } from "h3";
import { invalidParams } from "../protocol/errors.ts";
import { prepareJsonSchemaCheck } from "../protocol/json-schema.ts";
import { isStandardSchema, prepareSchema, toJsonSchema, type InferSchema, type PreparedSchema, type SchemaInput } from "../protocol/schema.ts";
import type { ContentBlock, InputRequiredResult, JsonObject } from "../protocol/types.ts";
import { checkOptions, type OptionNames } from "../utils/options.ts";

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** What a prompt handler may return: a result, its messages, one user text, or an input request (MRTR). */
export type PromptReturn = GetPromptResult | PromptMessage[] | string | InputRequiredResult;

/** Suggests completions for an argument's partial value. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string>; event: H3Event },
) => string[] | Promise<string[]>;

type PromptArgsOf<S> = InferSchema<S, Record<string, string>>;

export interface PromptDefinition<S extends SchemaInput | undefined = SchemaInput | undefined> {
  name: string;
  title?: string;
  description?: string;
  icons?: JsonObject[];
  /** An object schema of string arguments (the same kinds as a tool's `inputSchema`). Listed as the prompt's arguments. */
  arguments?: S;
  /** Completion callbacks, by argument name (`completion/complete`). */
  complete?: Record<string, Completer>;
  /** OAuth scopes `prompts/get` (and completing its arguments) needs besides the route's; see a tool's `scopes`. */
  scopes?: readonly string[];
  _meta?: JsonObject;
  handler(event: H3Event, args: PromptArgsOf<S>): PromptReturn | Promise<PromptReturn>;
}

/**
 * Declares a prompt, typed by its arguments schema.
 *
 * @example
 * const review = definePrompt({
 *   name: "review",
 *   arguments: z.object({ code: z.string() }),
 *   handler: (_event, { code }) => `Review this code:\n${code}`,
 * });
 */
export function definePrompt<S extends SchemaInput | undefined = undefined>(def: PromptDefinition<S>): PromptDefinition<S> {
  checkPromptDefinition(def);
  return def;
}

const PROMPT_KEYS: OptionNames<PromptDefinition> = {
  name: true, title: true, description: true, icons: true, arguments: true, complete: true, scopes: true, _meta: true, handler: true,
};

/** Refuses a key a prompt definition does not have. */
function checkPromptDefinition(def: PromptDefinition<any>): void {
  checkOptions(`Prompt ${JSON.stringify(String(def?.name))}`, def, PROMPT_KEYS, { elsewhere: { inputSchema: "a prompt's schema is arguments" } });
}

export interface CompiledPrompt {
  def: PromptDefinition<any>;
  entry: JsonObject;
  /** `arguments` as prepared at mount (a raw shape wrapped); validate with this, not `def`'s. */
  arguments?: PreparedSchema;
}

export function compilePrompt(def: PromptDefinition<any>): CompiledPrompt {
  checkPromptDefinition(def);
  const entry: JsonObject = { name: def.name };
  if (def.title !== undefined) entry.title = def.title;
  if (def.description !== undefined) entry.description = def.description;
  if (def.icons !== undefined) entry.icons = def.icons;
  let args: PreparedSchema | undefined;
  if (def.arguments !== undefined) {
    const where = `Prompt "${def.name}": arguments`;
    args = prepareSchema(def.arguments, where);
    const schema = toJsonSchema(args, "input", where);
    // Plain JSON Schema is enforced, and prepared here, once, rather than on a request.
    if (!isStandardSchema(args)) prepareJsonSchemaCheck(args, where);
    const props = (schema.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    entry.arguments = Object.entries(props).map(([name, prop]) => {
      const arg: JsonObject = { name };
      if (typeof prop.title === "string") arg.title = prop.title;
      if (typeof prop.description === "string") arg.description = prop.description;
      if (required.has(name)) arg.required = true;
      return arg;
    });
  }
  if (def._meta !== undefined) entry._meta = def._meta;
  return args ? { def, entry, arguments: args } : { def, entry };
}

/** Normalises a prompt handler's value into a result, or undefined when it is not one. */
export function toPromptResult(value: unknown): JsonObject | undefined {
  if (typeof value === "string") {
    return { resultType: "complete", messages: [{ role: "user", content: { type: "text", text: value } }] };
  }
  if (Array.isArray(value)) return { resultType: "complete", messages: value };
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as JsonObject;
  if (typeof v.resultType === "string" && v.resultType !== "complete") return v.resultType === "input_required" ? v : undefined;
  if (!Array.isArray(v.messages)) return undefined;
  return v.resultType === "complete" ? v : { resultType: "complete", ...v };
}

export function assertPromptArguments(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw invalidParams("prompts/get arguments must be an object");
  return value as Record<string, unknown>;
}

export { isStandardSchema };
