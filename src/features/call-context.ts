import type { H3Event } from "h3";
import type { McpContext } from "./request-context.ts";
import type { Mount } from "../transport/mount.ts";
import type { CompiledServer } from "./compiled-server.ts";
import type { JsonObject } from "../protocol/types.ts";

/** Everything a method implementation needs about the call it serves. */
export interface MethodCall {
  event: H3Event;
  ctx: McpContext;
  server: CompiledServer;
  mount: Mount;
  /** The params to serve: the request's, or a legacy retry's with the client's answers added. */
  params: JsonObject;
}

/** Verifies a `requestState` the client echoed and keeps its state for `mcpRequestState`. */
export function verifyRequestState({ ctx, mount, params }: MethodCall): void {
  if (params.requestState !== undefined) {
    (ctx as McpContext & { "~requestState"?: unknown })["~requestState"] = mount.signer.verify(ctx, params.requestState);
  }
}
