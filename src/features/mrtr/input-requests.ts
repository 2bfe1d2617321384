// Building input requests: the typed requests a handler asks the client (elicitation, sampling, roots),
// the capability each needs, and the `input_required` result that carries them.
import type { H3Event } from "h3";
import { getRequestContext } from "../request-context.ts";
import { McpUsageError, missingCapability } from "../../protocol/errors.ts";
import { isStandardSchema, toJsonSchema } from "../../protocol/schema.ts";
import type { ClientCapabilities, InputRequiredResult, JsonObject } from "../../protocol/types.ts";
import type { StandardJsonSchema, StandardSchemaV1 } from "../../utils/standard-schema.ts";
import { signState } from "./request-state.ts";

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

/** The schema `mcpElicit` built this request from, when it did. */
export function sourceSchemaOf(request: InputRequest): StandardSchemaV1 | RequestedSchema | undefined {
  return sourceSchemas.get(request);
}

/**
 * A form elicitation. `requestedSchema` is a flat JSON Schema object, or an object schema that writes
 * one (zod 4.2+, ArkType, valibot through `toStandardJsonSchema`).
 *
 * @example
 * const askName = mcpElicit({
 *   message: "Your name?",
 *   requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
 * });
 */
export function mcpElicit<const S extends RequestedSchema | StandardJsonSchema>(options: {
  message: string;
  requestedSchema: S;
}): InputRequest<ElicitResult<ContentOf<S>>> {
  const schema = isStandardSchema(options.requestedSchema)
    ? stripDialect(toJsonSchema(options.requestedSchema as StandardJsonSchema, "input", "mcpElicit: requestedSchema"))
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

/** The capability a client must declare to be asked this request, or undefined when it has it. */
function missingCapabilityFor(request: InputRequest, caps: ClientCapabilities): JsonObject | undefined {
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

// --- The input_required result ---

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
  const ctx = getRequestContext(event);
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

// --- Internal ---

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
