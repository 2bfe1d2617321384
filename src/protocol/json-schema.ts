// Plain JSON Schema, enforced: a tool's `inputSchema` or `outputSchema` given as a JSON Schema object
// is checked with @cfworker/json-schema, which interprets the schema rather than generating code
// (`new Function` is forbidden on Cloudflare Workers) and is correct on 2020-12 (`prefixItems`,
// `unevaluatedProperties`, `$defs`/`$ref`, `dependentRequired`). A schema is prepared once, at
// mount, and reused for every request.
import { dereference, Validator, type OutputUnit, type SchemaDraft } from "@cfworker/json-schema";
import type { JsonObject } from "./types.ts";

export interface JsonSchemaIssue {
  message: string;
  path?: (string | number)[];
}

/** Checks a value against a prepared schema: the issues, or undefined when it conforms. */
export type JsonSchemaCheck = (value: unknown) => JsonSchemaIssue[] | undefined;

const prepared = new WeakMap<JsonObject, JsonSchemaCheck>();

/**
 * The check for a JSON Schema object, prepared on first use and kept for as long as the schema object
 * lives. Prepare it at mount (`prepareJsonSchemaCheck`), so requests only run the check.
 */
export function jsonSchemaCheck(schema: JsonObject): JsonSchemaCheck {
  return prepared.get(schema) ?? prepareJsonSchemaCheck(schema, "The JSON Schema");
}

/**
 * Prepares the check of a JSON Schema object, at mount. A `$ref` that the schema itself cannot resolve
 * (a pointer to nothing, an unknown `$id`, another document: none is ever fetched) would fail every
 * request that reaches it, so it is refused here: a TypeError naming `where` and the reference.
 */
export function prepareJsonSchemaCheck(schema: JsonObject, where: string): JsonSchemaCheck {
  let check = prepared.get(schema);
  if (check) return check;
  // The lookup of every schema the validator will know (it builds the same one for itself).
  let known: Record<string, unknown>;
  try {
    known = dereference(schema as never);
  } catch (error) {
    // Two subschemas with one `$id`, or an `$id` that is no URI.
    throw new TypeError(`${where} cannot be read as JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (usesDynamicRef(schema)) {
    throw new TypeError(`${where} uses $dynamicRef, which this server cannot enforce: use $ref (and $defs) instead`);
  }
  const unresolved = unresolvedRefs(schema, known);
  if (unresolved.length) {
    const refs = unresolved.map((ref) => JSON.stringify(ref)).join(", ");
    throw new TypeError(
      `${where} has a $ref that cannot be resolved within the schema: ${refs} (references to other documents are not fetched: put the definitions under $defs)`,
    );
  }
  const validator = new Validator(schema as never, draftOf(schema), false);
  check = (value) => {
    const result = validator.validate(value);
    return result.valid ? undefined : toIssues(result.errors);
  };
  prepared.set(schema, check);
  return check;
}

// --- Internal ---

/** Whether any object in the schema has a `$dynamicRef`, which @cfworker/json-schema would silently ignore. */
function usesDynamicRef(schema: JsonObject): boolean {
  const seen = new Set<object>();
  const visit = (node: unknown): boolean => {
    if (typeof node !== "object" || node === null || seen.has(node)) return false;
    seen.add(node);
    if (Object.hasOwn(node, "$dynamicRef")) return true;
    return Object.values(node).some(visit);
  };
  return visit(schema);
}

/**
 * The `$ref`s of the subschemas the validator will follow (those it marked with their absolute URI when
 * it read the schema) that are not among the schemas it knows.
 */
function unresolvedRefs(schema: JsonObject, known: Record<string, unknown>): string[] {
  const unresolved: string[] = [];
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    const marked = node as { $ref?: string; __absolute_ref__?: unknown; $recursiveRef?: string; __absolute_recursive_ref__?: unknown };
    if (typeof marked.__absolute_ref__ === "string" && !Object.hasOwn(known, marked.__absolute_ref__)) unresolved.push(marked.$ref!);
    if (typeof marked.__absolute_recursive_ref__ === "string" && !Object.hasOwn(known, marked.__absolute_recursive_ref__)) {
      unresolved.push(marked.$recursiveRef!);
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(schema);
  return unresolved;
}

/** 2020-12 unless the schema's `$schema` names another draft (the dialect rule of the tools spec). */
function draftOf(schema: JsonObject): SchemaDraft {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-07") || uri.includes("draft-06")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** Issues reported at most: a large bad argument must not make an even larger error. */
const MAX_ISSUES = 50;

/**
 * The validator reports every failing keyword, the ones that only say "a subschema had errors"
 * included; the issues are the innermost ones (no other failing keyword lies under them), each with
 * the path of the value it is about. A `false` subschema's failure is reported right after the keyword
 * that applied it (`items`, `unevaluatedProperties`…) and lends it the path of the value it refused.
 * Linear in the errors, however many a large argument produces.
 */
function toIssues(errors: OutputUnit[]): JsonSchemaIssue[] {
  const enclosing = new Set<string>();
  for (const e of errors) {
    if (e.keyword === "false") continue;
    const location = e.keywordLocation;
    for (let i = location.lastIndexOf("/"); i > 0; i = location.lastIndexOf("/", i - 1)) enclosing.add(location.slice(0, i));
  }
  const issues: JsonSchemaIssue[] = [];
  for (let i = 0; i < errors.length && issues.length < MAX_ISSUES; i++) {
    const e = errors[i]!;
    if (e.keyword === "false" || enclosing.has(e.keywordLocation)) continue;
    const refused = errors[i + 1]?.keyword === "false" ? errors[++i]! : e;
    issues.push(toIssue(e.error, refused.instanceLocation));
  }
  return issues;
}

function toIssue(message: string, instanceLocation: string): JsonSchemaIssue {
  const issue: JsonSchemaIssue = { message };
  const path = instanceLocation.replace(/^#\/?/, "");
  if (path) issue.path = path.split("/").map(decodePointer);
  return issue;
}

function decodePointer(segment: string): string | number {
  const key = segment.replace(/~1/g, "/").replace(/~0/g, "~");
  return /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
}
