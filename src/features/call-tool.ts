import type { H3Event } from "h3";
import { ErrorCode, invalidParams, McpJsonRpcError } from "../protocol/errors.ts";
import { checkParamHeaders } from "../protocol/headers.ts";
import { verifyRequestState, type MethodCall } from "./call-context.ts";
import { validateOrThrow, validateSync, isStandardSchema } from "../protocol/schema.ts";
import { toToolResult, type CompiledTool } from "./tools.ts";
import type { JsonObject } from "../protocol/types.ts";
import { describeThrown } from "../utils/describe.ts";

/** `tools/call` in either era: gate, header and argument checks, the handler, then the result's shape. */
export async function callTool(call: MethodCall): Promise<JsonObject> {
  const { event, ctx, server, params } = call;
  const plugins = call.mount.plugins;
  const name = params.name;
  if (typeof name !== "string") throw invalidParams("tools/call needs params.name");
  const tool = server.tools.get(name);
  if (!tool) throw invalidParams(`Unknown tool: ${name}`);
  for (const plugin of plugins) plugin.beforeToolCall?.(event, tool.def);

  const rawArgs = params.arguments ?? {};
  if (typeof rawArgs !== "object" || rawArgs === null || Array.isArray(rawArgs)) {
    throw invalidParams("tools/call arguments must be an object");
  }
  if (ctx.era === "modern" && tool.headerParams.length) checkParamHeaders(event.req.headers, tool.headerParams, rawArgs);
  verifyRequestState(call);
  const args = await validateOrThrow(tool.inputSchema, rawArgs, `arguments for tool ${name}`);

  let run = () => invoke(event, tool, name, args);
  for (let i = plugins.length - 1; i >= 0; i--) {
    const wrap = plugins[i]!.wrapToolCall;
    if (wrap) {
      const next = run;
      run = () => Promise.resolve(wrap(event, tool.def, next));
    }
  }
  return run();
}

async function invoke(event: H3Event, tool: CompiledTool, name: string, args: unknown): Promise<JsonObject> {
  const def = tool.def;
  let value: unknown;
  try {
    value = await def.handler(event, args as never);
  } catch (error) {
    if (McpJsonRpcError.isError(error)) throw error;
    return toolError(describeThrown(error));
  }
  const result = toToolResult(value);
  if (!result) throw new McpJsonRpcError(ErrorCode.InternalError, `Tool ${name} returned something that is not a tool result`);
  if (result.resultType !== "complete" || result.isError) return result;
  const outputSchema = tool.outputSchema;
  if (outputSchema && isStandardSchema(outputSchema)) {
    const checked = validateSync(outputSchema, result.structuredContent);
    if (checked && !checked.ok) {
      throw new McpJsonRpcError(ErrorCode.InternalError, `Tool ${name} returned structuredContent that does not match its outputSchema`, {
        issues: checked.issues,
      });
    }
    if (!checked) await validateOrThrow(outputSchema, result.structuredContent, "structuredContent");
  }
  // Clients that do not read structuredContent still get the data, as the spec recommends.
  if (result.structuredContent !== undefined && Array.isArray(result.content) && result.content.length === 0) {
    return { ...result, content: [{ type: "text", text: JSON.stringify(result.structuredContent) }] };
  }
  return result;
}

export function toolError(message: string): JsonObject {
  return { resultType: "complete", content: [{ type: "text", text: message }], isError: true };
}
