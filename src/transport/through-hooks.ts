// Requests through the plugins' request hooks (`wrapRequest`): what a hook's `next()` gives for each kind
// of answer (a value, JSON prepared at mount, a listen stream's acknowledgement). Used only when some
// plugin has the hook: a handler without one never comes here.
import type { H3Event } from "h3";
import type { RequestHooks } from "../features/hooks.ts";
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/types.ts";
import { RawJson, type WireResponse } from "../protocol/wire.ts";
import { isThenable } from "../utils/is-thenable.ts";
import { respond, type TransportContext } from "./request.ts";

/**
 * `run` inside the plugins' request hooks, or `run` itself when no plugin has one. The hooks see a result
 * prepared as JSON (a finished task) as the object it is.
 */
export function hooked(event: H3Event, ctx: TransportContext, run: () => Answer | Promise<Answer>): () => Answer | Promise<Answer> {
  const hooks = ctx.mount.hooks.request;
  if (!hooks) return run;
  return () =>
    hooks(event, () => {
      const value = run();
      return isThenable(value) ? Promise.resolve(value).then(asResult) : asResult(value);
    });
}

/**
 * A result prepared as JSON at mount (`server/discover`, a list page), answered through the plugins'
 * request hooks: they see it parsed, and it leaves through `respond()` like every other result.
 */
export function answerPrepared(event: H3Event, ctx: TransportContext, json: string): Promise<WireResponse> {
  const hooks = ctx.mount.hooks.request!;
  return respond(ctx, () => hooks(event, () => JSON.parse(json) as JsonObject), ctx.era);
}

/**
 * `subscriptions/listen` through the plugins' request hooks: their `next()` opens the stream and gives
 * the acknowledgement's params; the stream is answered once every hook returned, or cancelled if one threw.
 */
export async function listenThroughHooks(
  event: H3Event,
  hooks: RequestHooks,
  open: (acknowledged: (params: JsonObject) => void) => WireResponse | Promise<WireResponse>,
): Promise<WireResponse> {
  let response: WireResponse | undefined;
  try {
    await hooks(event, async () => {
      let ack: JsonObject = {};
      response = await open((params) => (ack = params));
      return ack;
    });
  } catch (error) {
    await response?.body?.cancel();
    throw error;
  }
  if (!response) throw new McpJsonRpcError(ErrorCode.InternalError, "A request hook answered subscriptions/listen without opening its stream");
  return response;
}

// --- Internal ---

/** What a method answers: a result, or a result prepared as JSON. */
export type Answer = JsonObject | RawJson;

function asResult(value: Answer): JsonObject {
  return value instanceof RawJson ? (JSON.parse(value.json) as JsonObject) : value;
}
