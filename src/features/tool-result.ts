// The one path from what a tool produced to the result `tools/call` answers with. The synchronous
// answer and a task's inlined result both come from here, so tasks/get returns exactly what the
// call would have returned.
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import { jsonSchemaCheck } from "../protocol/json-schema.ts";
import { isStandardSchema, toIssues, type SchemaIssue } from "../protocol/schema.ts";
import type { JsonObject } from "../protocol/types.ts";
import { toToolResult, type CompiledTool } from "./tools.ts";
import type { StandardSchemaV1 } from "../utils/standard-schema.ts";
import { isThenable } from "../utils/is-thenable.ts";

/**
 * What a result is checked against: the tool's name (for errors) and its outputSchema, if any. A task's run
 * found by name on an instance that never created one of its tasks has its run's name and no schema.
 */
export type ResultCheck = { readonly def: { readonly name: string }; readonly outputSchema?: CompiledTool["outputSchema"] };

/**
 * A tool's value as its result: normalised, checked against `outputSchema` (-32603 on a mismatch, as
 * for any result the server cannot stand behind) and given a text block when it only has
 * `structuredContent`, as the spec recommends for clients that do not read it. At once, unless the
 * outputSchema validates asynchronously.
 */
export function toolResultNow(tool: ResultCheck, value: unknown): JsonObject | Promise<JsonObject> {
  const name = tool.def.name;
  const result = toToolResult(value);
  if (!result || (result.resultType === "complete" && !hasContentBlocks(result))) {
    throw new McpJsonRpcError(ErrorCode.InternalError, `Tool ${name} returned something that is not a tool result`);
  }
  if (result.resultType !== "complete" || result.isError) return result;
  const checked = (issues: SchemaIssue[] | undefined): JsonObject => {
    if (issues) {
      throw new McpJsonRpcError(ErrorCode.InternalError, `Tool ${name} returned structuredContent that does not match its outputSchema`, {
        issues,
      });
    }
    if (result.structuredContent !== undefined && (result.content as unknown[]).length === 0) {
      return { ...result, content: [{ type: "text", text: JSON.stringify(result.structuredContent) }] };
    }
    return result;
  };
  const issues = outputIssues(tool, result.structuredContent);
  return isThenable(issues) ? Promise.resolve(issues).then(checked) : checked(issues);
}

/** A tool error: the tool ran and reported a problem the model may correct. */
export function toolError(message: string): JsonObject {
  return { resultType: "complete", content: [{ type: "text", text: message }], isError: true };
}

// --- Internal ---

function hasContentBlocks(result: JsonObject): boolean {
  const content = result.content;
  return Array.isArray(content) && content.every((c) => typeof c === "object" && c !== null && typeof (c as JsonObject).type === "string");
}

function outputIssues(tool: ResultCheck, structured: unknown): SchemaIssue[] | undefined | Promise<SchemaIssue[] | undefined> {
  const schema = tool.outputSchema;
  if (!schema) return undefined;
  if (!isStandardSchema(schema)) return jsonSchemaCheck(schema)(structured);
  const result = schema["~standard"].validate(structured);
  const issuesOf = (r: StandardSchemaV1.Result<unknown>) => (r.issues ? toIssues(r.issues) : undefined);
  return isThenable(result) ? Promise.resolve(result).then(issuesOf) : issuesOf(result);
}
