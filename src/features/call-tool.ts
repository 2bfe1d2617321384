import type { H3Event } from "h3";
import { invalidParams, McpJsonRpcError } from "../protocol/errors.ts";
import { checkParamHeaders } from "../protocol/headers.ts";
import { validateNow } from "../protocol/schema.ts";
import { requireScopes, verifyRequestState, type MethodCall } from "./call-context.ts";
import { requiredTaskRefusal } from "./task-api.ts";
import { toolError, toolResultNow } from "./tool-result.ts";
import type { CompiledTool } from "./tools.ts";
import type { JsonObject } from "../protocol/types.ts";
import { describeThrown } from "../utils/describe.ts";
import { isThenable } from "../utils/is-thenable.ts";

/**
 * `tools/call` in either era: gate, header and argument checks, the handler, then the result's
 * shape. A tool that answers synchronously (and schemas that validate synchronously) get their
 * result without a promise; anything asynchronous on the way makes it one.
 */
export function callTool(call: MethodCall): JsonObject | Promise<JsonObject> {
  const { event, ctx, mount, server, params } = call;
  const hooks = mount.hooks;
  const name = params.name;
  if (typeof name !== "string") throw invalidParams("tools/call needs params.name");
  const tool = server.tools.get(name);
  if (!tool) throw invalidParams(`Unknown tool: ${name}`);
  ctx.target = name;
  // The name is the body's (a modern request's Mcp-Name header was already checked against it).
  requireScopes(call, tool.def.scopes);
  if (tool.def.execution?.taskSupport === "required") {
    const refused = requiredTaskRefusal(event, name);
    if (refused) throw refused;
  }
  hooks.beforeToolCall?.(event, tool.def);

  const rawArgs = params.arguments ?? {};
  if (typeof rawArgs !== "object" || rawArgs === null || Array.isArray(rawArgs)) {
    throw invalidParams("tools/call arguments must be an object");
  }
  if (ctx.era === "modern" && tool.headerParams.length) checkParamHeaders(event.req.headers, tool.headerParams, rawArgs);
  verifyRequestState(call);
  const args = validateNow(tool.inputSchema, rawArgs, `arguments for tool ${name}`);

  // A task this call creates finishes its result through the same path as the call itself.
  ctx.tool = tool;
  const run: () => JsonObject | Promise<JsonObject> = isThenable(args)
    ? () => Promise.resolve(args).then((a) => invoke(event, tool, a))
    : () => invoke(event, tool, args);
  const wrap = hooks.toolCall;
  return wrap ? wrap(event, tool.def, run) : run();
}

function invoke(event: H3Event, tool: CompiledTool, args: unknown): JsonObject | Promise<JsonObject> {
  let value: unknown;
  try {
    value = tool.def.handler(event, args as never);
  } catch (error) {
    return thrownByTool(error);
  }
  if (isThenable(value)) return Promise.resolve(value).then((v) => toolResultNow(tool, v), thrownByTool);
  return toolResultNow(tool, value);
}

/** A protocol error the tool threw stays one; anything else it threw is a tool error the model may read. */
function thrownByTool(error: unknown): JsonObject {
  if (McpJsonRpcError.isError(error)) throw error;
  return toolError(describeThrown(error));
}
