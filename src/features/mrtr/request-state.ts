// The `requestState` of the request being served: what a handler reads back, and how it signs a new one
// with the signer of the handler serving it (request-state-signer.ts).
import type { H3Event } from "h3";
import { getRequestContext, type RequestContext } from "../request-context.ts";

/**
 * The `state` this server put in the `requestState` the client echoed, once verified (signature,
 * expiry, method and params). A bad or expired state never reaches a handler: it is answered with `-32602`.
 */
export function mcpRequestState<T = unknown>(event: H3Event): T | undefined {
  return getRequestContext(event).requestState as T | undefined;
}

/** Signs `state` for this request with the signer of the handler serving it. */
export function signState(ctx: RequestContext, state: unknown): string {
  return ctx.mount.signer.sign(ctx, state);
}
