// Validating answers: an elicitation's content checked against the schema that asked for it.
import { McpUsageError } from "../../protocol/errors.ts";
import { isStandardSchema, validateSync, type SchemaIssue } from "../../protocol/schema.ts";
import type { JsonObject } from "../../protocol/types.ts";
import type { StandardSchemaV1 } from "../../utils/standard-schema.ts";
import { sourceSchemaOf, type ElicitResult, type InputRequest, type RequestedSchema } from "./input-requests.ts";

/**
 * Validates an elicitation answer's `content` against the schema that asked for it.
 * Returns the content when the user accepted and it conforms; `undefined` for decline/cancel.
 * Throws `McpUsageError` with the issues when an accepted answer does not conform.
 */
export function mcpValidateElicitation<C>(
  request: InputRequest<ElicitResult<C>>,
  answer: ElicitResult<C> | undefined,
): C | undefined {
  if (!answer || answer.action !== "accept") return undefined;
  const schema = sourceSchemaOf(request) ?? (request.params.requestedSchema as RequestedSchema | undefined);
  const issues = schema ? checkContent(schema, answer.content) : [];
  if (issues.length) {
    const error = new McpUsageError("INVALID_INPUT", `Invalid answer: ${issues.map((i) => i.message).join("; ")}`);
    (error as McpUsageError & { issues: SchemaIssue[] }).issues = issues;
    throw error;
  }
  return answer.content as C;
}

// --- Internal ---

function checkContent(schema: StandardSchemaV1 | RequestedSchema, content: unknown): SchemaIssue[] {
  if (isStandardSchema(schema)) {
    const r = validateSync(schema, content ?? {});
    if (!r) return [];
    return r.ok ? [] : r.issues;
  }
  if (typeof content !== "object" || content === null || Array.isArray(content)) return [{ message: "content must be an object" }];
  const issues: SchemaIssue[] = [];
  const c = content as JsonObject;
  for (const key of schema.required ?? []) if (c[key] === undefined) issues.push({ message: `${key} is required`, path: [key] });
  for (const [key, value] of Object.entries(c)) {
    const prop = schema.properties[key];
    if (!prop) continue;
    if (!matchesPrimitive(prop, value)) issues.push({ message: `${key} does not match its schema`, path: [key] });
  }
  return issues;
}

function matchesPrimitive(prop: JsonObject, value: unknown): boolean {
  if (Array.isArray(prop.enum) && !prop.enum.includes(value)) return false;
  switch (prop.type) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "array":
      return Array.isArray(value) && value.every((v) => typeof v === "string");
    default:
      return true;
  }
}
