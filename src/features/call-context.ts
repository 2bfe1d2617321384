import type { H3Event } from "h3";
import type { HandlerMount, RequestContext } from "./request-context.ts";
import type { CompiledServer } from "./compiled-server.ts";
import type { JsonObject } from "../protocol/types.ts";
import { requireOperationScopes } from "./authorization.ts";

/** Everything a method implementation needs about the call it serves. */
export interface MethodCall {
  event: H3Event;
  ctx: RequestContext;
  /** The handler serving the call, as prepared at mount: its hooks, its auth guard, its request-state signer. */
  mount: HandlerMount;
  /** The server options this request is served with, compiled. */
  server: CompiledServer;
  /** The params to serve: the request's, or a legacy retry's with the client's answers added. */
  params: JsonObject;
}

/** Verifies a `requestState` the client echoed and keeps its state for `mcpRequestState`. */
export function verifyRequestState({ ctx, mount, params }: MethodCall): void {
  if (params.requestState !== undefined) ctx.requestState = mount.signer.verify(ctx, params.requestState);
}

/** Refuses unless the caller holds `scopes` (or scopes implying them); nothing to check without auth or scopes. */
export function requireScopes({ mount, ctx }: Pick<MethodCall, "mount" | "ctx">, scopes: readonly string[] | undefined): void {
  requireOperationScopes(mount.auth, ctx.auth, scopes);
}
