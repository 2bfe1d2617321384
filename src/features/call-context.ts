import type { H3Event } from "h3";
import type { McpContext } from "./request-context.ts";
import type { McpExtensionPlugin } from "./extension-plugin.ts";
import type { RequestStateSigner } from "./mrtr/request-state.ts";
import type { CompiledServer } from "./compiled-server.ts";
import type { JsonObject } from "../protocol/types.ts";

/** What methods use of the handler's mount (the transport's mount is a superset). */
export interface ServedMount {
  /** Every installed plugin, enabled for this request or not: tool-call hooks run for all of them. */
  readonly plugins: readonly McpExtensionPlugin[];
  readonly signer: RequestStateSigner;
}

/** Everything a method implementation needs about the call it serves. */
export interface MethodCall {
  event: H3Event;
  ctx: McpContext;
  server: CompiledServer;
  mount: ServedMount;
  /** The params to serve: the request's, or a legacy retry's with the client's answers added. */
  params: JsonObject;
}

/** Verifies a `requestState` the client echoed and keeps its state for `mcpRequestState`. */
export function verifyRequestState({ ctx, mount, params }: MethodCall): void {
  if (params.requestState !== undefined) {
    (ctx as McpContext & { "~requestState"?: unknown })["~requestState"] = mount.signer.verify(ctx, params.requestState);
  }
}
