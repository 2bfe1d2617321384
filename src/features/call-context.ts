import type { H3Event } from "h3";
import type { McpContext } from "./request-context.ts";
import type { CompiledServer } from "./compiled-server.ts";
import type { JsonObject } from "../protocol/types.ts";

/** Everything a method implementation needs about the call it serves. */
export interface MethodCall {
  event: H3Event;
  ctx: McpContext;
  /** The server options this request is served with, compiled. */
  server: CompiledServer;
  /** The params to serve: the request's, or a legacy retry's with the client's answers added. */
  params: JsonObject;
}

/** Verifies a `requestState` the client echoed and keeps its state for `mcpRequestState`. */
export function verifyRequestState({ ctx, params }: MethodCall): void {
  if (params.requestState !== undefined) ctx["~requestState"] = ctx["~mount"].signer.verify(ctx, params.requestState);
}
