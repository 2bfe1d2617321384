import type { H3Event } from "h3";
import { getMcpContext, type McpContext } from "../request-context.ts";
import { McpUsageError, missingCapability } from "../../protocol/errors.ts";
import { isStandardSchema, toJsonSchema, validateSync, type SchemaIssue } from "../../protocol/schema.ts";
import type { ClientCapabilities, InputRequiredResult, JsonObject } from "../../protocol/types.ts";
import type { StandardSchemaV1 } from "../../utils/standard-schema.ts";

// --- Input requests and the answers they type ---

declare const answerType: unique symbol;

/** A request for client input (`elicitation/create`, `sampling/createMessage`, `roots/list`). `A` types its answer. */
export interface InputRequest<A = unknown> {
  method: string;
  params: JsonObject;
  /** Type-only: the answer this request gets. Never present at run time. */
  readonly [answerType]?: A;
}

export type AnswerOf<R> = R extends InputRequest<infer A> ? A : unknown;
export type InputAnswers<R extends Record<string, InputRequest>> = { [K in keyof R]?: AnswerOf<R[K]> };

export interface ElicitResult<C = Record<string, unknown>> {
  action: "accept" | "decline" | "cancel";
  /** Present on a form `accept`. Unvalidated client input: check it with `mcpValidateElicitation`. */
  content?: C;
  _meta?: JsonObject;
}

export interface CreateMessageResult {
  role: "user" | "assistant";
  content: JsonObject | JsonObject[];
  model: string;
  stopReason?: string;
  [key: string]: unknown;
}

export interface ListRootsResult {
  roots: { uri: string; name?: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

type PrimitiveOf<P> = P extends { type: "boolean" }
  ? boolean
  : P extends { enum: readonly (infer E)[] }
    ? E
    : P extends { type: "string" }
      ? string
      : P extends { type: "number" | "integer" }
        ? number
        : P extends { type: "array" }
          ? string[]
          : unknown;

/** Content typed from a flat `requestedSchema`: every property optional, since it is client input. */
export type ContentOf<S> = S extends StandardSchemaV1
  ? Partial<StandardSchemaV1.InferOutput<S>>
  : S extends { properties: infer P }
    ? { [K in keyof P]?: PrimitiveOf<P[K]> }
    : Record<string, unknown>;

export interface RequestedSchema {
  type: "object";
  properties: Record<string, JsonObject>;
  required?: readonly string[];
  [key: string]: unknown;
}

/** @internal The schema an elicitation was built from, kept off the wire for `mcpValidateElicitation`. */
const sourceSchemas = new WeakMap<InputRequest, StandardSchemaV1 | RequestedSchema>();

/**
 * A form elicitation. `requestedSchema` is a flat JSON Schema object (or a zod object, turned into one).
 *
 * @example
 * const askName = mcpElicit({
 *   message: "Your name?",
 *   requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
 * });
 */
export function mcpElicit<const S extends RequestedSchema | StandardSchemaV1>(options: {
  message: string;
  requestedSchema: S;
}): InputRequest<ElicitResult<ContentOf<S>>> {
  const schema = isStandardSchema(options.requestedSchema)
    ? stripDialect(toJsonSchema(options.requestedSchema))
    : (options.requestedSchema as JsonObject);
  const request: InputRequest<ElicitResult<ContentOf<S>>> = {
    method: "elicitation/create",
    params: { mode: "form", message: options.message, requestedSchema: schema },
  };
  sourceSchemas.set(request, options.requestedSchema);
  return request;
}

/**
 * A URL elicitation: the user completes a step out of band. `accept` means consent only; check on the
 * retry whether the step really finished.
 */
export function mcpElicitUrl(options: { message: string; url: string }): InputRequest<ElicitResult<never>> {
  return { method: "elicitation/create", params: { mode: "url", message: options.message, url: options.url } };
}

/** A `sampling/createMessage` request (params as in the schema: `messages`, `maxTokens`, …). */
export function mcpSample(params: {
  messages: JsonObject[];
  maxTokens: number;
  [key: string]: unknown;
}): InputRequest<CreateMessageResult> {
  return { method: "sampling/createMessage", params };
}

/** A `roots/list` request. */
export function mcpListRoots(): InputRequest<ListRootsResult> {
  return { method: "roots/list", params: {} };
}

/**
 * Validates an elicitation answer's `content` against the schema that asked for it.
 * Returns the content when the user accepted and it conforms; `undefined` for decline/cancel.
 * Throws `McpUsageError` with the issues when an accepted answer does not conform.
 */
export function mcpValidateElicitation<C>(
  request: InputRequest<ElicitResult<C>>,
  answer: ElicitResult<C> | undefined,
): C | undefined {
  if (!answer || answer.action !== "accept") return undefined;
  const schema = sourceSchemas.get(request) ?? (request.params.requestedSchema as RequestedSchema | undefined);
  const issues = schema ? checkContent(schema, answer.content) : [];
  if (issues.length) {
    const error = new McpUsageError("INVALID_INPUT", `Invalid answer: ${issues.map((i) => i.message).join("; ")}`);
    (error as McpUsageError & { issues: SchemaIssue[] }).issues = issues;
    throw error;
  }
  return answer.content as C;
}

/** The capability a client must declare to be asked this request, or undefined when it has it. */
export function missingCapabilityFor(request: InputRequest, caps: ClientCapabilities): JsonObject | undefined {
  switch (request.method) {
    case "elicitation/create": {
      const url = request.params.mode === "url";
      const e = caps.elicitation;
      if (!e || typeof e !== "object") return { elicitation: url ? { url: {} } : { form: {} } };
      if (url) return e.url ? undefined : { elicitation: { url: {} } };
      // `{}` means form only, for compatibility.
      return e.form || !e.url ? undefined : { elicitation: { form: {} } };
    }
    case "sampling/createMessage":
      return caps.sampling ? undefined : { sampling: {} };
    case "roots/list":
      return caps.roots ? undefined : { roots: {} };
    default:
      return undefined;
  }
}

/** Throws `-32021` when the client did not declare what these requests need. */
export function assertCanAsk(requests: Record<string, InputRequest>, caps: ClientCapabilities): void {
  let required: JsonObject | undefined;
  for (const request of Object.values(requests)) {
    const missing = missingCapabilityFor(request, caps);
    if (missing) required = mergeCapabilities(required ?? {}, missing);
  }
  if (required) throw missingCapability(required);
}

// --- The synchronous (MRTR) flow ---

/**
 * Answers this request with `input_required`: the client asks its user (or model) and retries with
 * `inputResponses`. `state` round-trips as an integrity-protected, expiring `requestState`.
 *
 * @example
 * const answers = mcpInputResponses(event, { name: askName });
 * if (!answers.name) return mcpInputRequired(event, { name: askName });
 */
export function mcpInputRequired(
  event: H3Event,
  requests?: Record<string, InputRequest>,
  options: { state?: unknown } = {},
): InputRequiredResult {
  const ctx = getMcpContext(event);
  const result: InputRequiredResult = { resultType: "input_required" };
  if (requests && Object.keys(requests).length) {
    assertCanAsk(requests, ctx.clientCapabilities);
    const wire: Record<string, { method: string; params: JsonObject }> = {};
    for (const [key, request] of Object.entries(requests)) wire[key] = { method: request.method, params: request.params };
    result.inputRequests = wire;
  }
  if (options.state !== undefined) result.requestState = signState(ctx, options.state);
  if (!result.inputRequests && result.requestState === undefined) {
    throw new McpUsageError("EMPTY_INPUT_REQUIRED", "mcpInputRequired needs at least one input request or a state");
  }
  return result;
}

/**
 * The client's answers to these requests on this retry, typed by the requests that asked.
 * Keys this server did not ask for are dropped, and so are answers without the outer shape of
 * their result (an elicitation answer without a valid `action`, say). What remains is still
 * unvalidated client input: check the content with `mcpValidateElicitation`.
 */
export function mcpInputResponses<R extends Record<string, InputRequest>>(event: H3Event, requests: R): InputAnswers<R> {
  const sent = getMcpContext(event).params.inputResponses;
  const out: Record<string, unknown> = {};
  if (sent && typeof sent === "object" && !Array.isArray(sent)) {
    for (const key of Object.keys(requests)) {
      const value = (sent as JsonObject)[key];
      if (hasAnswerShape(requests[key]!.method, value)) out[key] = value;
    }
  }
  return out as InputAnswers<R>;
}

/**
 * Whether a client's answer has the outer shape of a result for that request kind. An answer that
 * does not is treated as missing, so the request is asked again; the content inside stays unvalidated.
 */
function hasAnswerShape(method: string, value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as JsonObject;
  switch (method) {
    case "elicitation/create":
      return (
        (v.action === "accept" || v.action === "decline" || v.action === "cancel") &&
        (v.content === undefined || (typeof v.content === "object" && v.content !== null && !Array.isArray(v.content)))
      );
    case "sampling/createMessage":
      return typeof v.role === "string" && typeof v.content === "object" && v.content !== null;
    case "roots/list":
      return Array.isArray(v.roots);
    default:
      return true;
  }
}

/**
 * One-call MRTR: the typed answers, and whether every request has one. When not, return `ask()`.
 *
 * @example
 * const input = mcpInput(event, { name: askName });
 * if (!input.complete) return input.ask();
 * return `Hello, ${input.answers.name?.content?.name}`;
 */
export function mcpInput<R extends Record<string, InputRequest>>(
  event: H3Event,
  requests: R,
): { complete: boolean; answers: InputAnswers<R>; ask(options?: { state?: unknown }): InputRequiredResult } {
  const answers = mcpInputResponses(event, requests);
  const missing: Record<string, InputRequest> = {};
  for (const key of Object.keys(requests)) if (!(key in answers)) missing[key] = requests[key]!;
  return {
    complete: Object.keys(missing).length === 0,
    answers,
    ask: (options) => mcpInputRequired(event, missing, options),
  };
}

/**
 * The `state` this server put in the `requestState` the client echoed, once verified (signature,
 * expiry, method and params). A bad or expired state never reaches a handler: it is answered with `-32602`.
 */
export function mcpRequestState<T = unknown>(event: H3Event): T | undefined {
  return (getMcpContext(event) as McpContext & { "~requestState"?: T })["~requestState"];
}

// --- Internal ---

interface StateSigner {
  sign(ctx: McpContext, state: unknown): string;
}

function signState(ctx: McpContext, state: unknown): string {
  const signer = (ctx["~server"] as { signer?: StateSigner } | undefined)?.signer;
  if (!signer) throw new McpUsageError("NO_STATE_SIGNER", "requestState needs a request served by defineMcpHandler");
  return signer.sign(ctx, state);
}

function stripDialect(schema: JsonObject): JsonObject {
  const { $schema: _drop, additionalProperties: _ap, ...rest } = schema;
  return rest;
}

function mergeCapabilities(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    out[k] = out[k] && typeof out[k] === "object" && typeof v === "object" ? { ...(out[k] as JsonObject), ...(v as JsonObject) } : v;
  }
  return out;
}

function checkContent(schema: StandardSchemaV1 | RequestedSchema, content: unknown): SchemaIssue[] {
  if (isStandardSchema(schema)) {
    const r = validateSync(schema, content ?? {});
    if (!r) return [];
    return r.ok ? [] : r.issues;
  }
  if (typeof content !== "object" || content === null || Array.isArray(content)) return [{ message: "content must be an object" }];
  const issues: SchemaIssue[] = [];
  const c = content as JsonObject;
  for (const key of schema.required ?? []) if (c[key] === undefined) issues.push({ message: `${key} is required`, path: [key] });
  for (const [key, value] of Object.entries(c)) {
    const prop = schema.properties[key];
    if (!prop) continue;
    if (!matchesPrimitive(prop, value)) issues.push({ message: `${key} does not match its schema`, path: [key] });
  }
  return issues;
}

function matchesPrimitive(prop: JsonObject, value: unknown): boolean {
  if (Array.isArray(prop.enum) && !prop.enum.includes(value)) return false;
  switch (prop.type) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "array":
      return Array.isArray(value) && value.every((v) => typeof v === "string");
    default:
      return true;
  }
}
