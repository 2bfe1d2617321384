// The schema bridge: what users give as a schema, checked and prepared once at mount, then validated
// and written as JSON Schema. One place knows the kinds: a Standard Schema that writes its own JSON
// Schema (an object or, like ArkType's, a function), a raw shape of those, or plain JSON Schema.
import { invalidParams } from "./errors.ts";
import { jsonSchemaCheck, type JsonSchemaIssue } from "./json-schema.ts";
import type { JsonObject } from "./types.ts";
import { describeThrown } from "../utils/describe.ts";
import { isThenable } from "../utils/is-thenable.ts";
import type { JsonSchemaConverter, StandardJsonSchema, StandardSchemaV1 } from "../utils/standard-schema.ts";

/** SDK-style fields, each a schema: `{ city: z.string() }`, taken as the object of those fields. */
export type RawShape = { readonly [key: string]: StandardJsonSchema };

/**
 * What a schema slot takes: a Standard Schema that implements Standard JSON Schema (zod 4.2+, ArkType,
 * valibot through `toStandardJsonSchema`), a raw shape of them, or a plain JSON Schema object.
 */
export type SchemaInput = StandardJsonSchema | RawShape | JsonObject;

/** A schema after mount: a Standard Schema that writes JSON Schema (raw shapes wrapped), or plain JSON Schema. */
export type PreparedSchema = StandardJsonSchema | JsonObject;

/** What a validated value is typed as, for each kind of schema. */
export type InferSchema<S, Otherwise> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends RawShape
    ? ShapeOutput<S>
    : Otherwise;

type ShapeOutput<S extends RawShape> = {
  [K in keyof S as undefined extends StandardSchemaV1.InferOutput<S[K]> ? never : K]: StandardSchemaV1.InferOutput<S[K]>;
} & {
  [K in keyof S as undefined extends StandardSchemaV1.InferOutput<S[K]> ? K : never]?: StandardSchemaV1.InferOutput<S[K]>;
};

export function isStandardSchema(input: unknown): input is StandardSchemaV1 {
  return (typeof input === "object" || typeof input === "function") && input !== null && "~standard" in input;
}

const PASS_INSTEAD =
  'pass a Standard Schema that writes JSON Schema (zod 4.2+, ArkType, valibot through toStandardJsonSchema from "@valibot/to-json-schema"), ' +
  "a raw shape of those such as { city: z.string() }, or a JSON Schema object";

/**
 * Checks a schema at mount and prepares it: a raw shape becomes one Standard Schema of its fields.
 * Anything else throws a TypeError naming what was given (`where` says which slot) and what to pass.
 */
export function prepareSchema(input: unknown, where: string): PreparedSchema {
  if (isStandardSchema(input)) {
    const problem = missingJsonSchema(input);
    if (problem) throw new TypeError(`${where} ${problem}`);
    return input as StandardJsonSchema;
  }
  if (!isPlainObject(input)) throw new TypeError(`${where} is ${describeValue(input)}: ${PASS_INSTEAD}`);
  const entries = Object.entries(input);
  const fields = entries.filter(([, value]) => isStandardSchema(value));
  if (fields.length === 0) return input;
  const stray = entries.find(([, value]) => !isStandardSchema(value));
  if (stray) {
    throw new TypeError(
      `${where} mixes schemas and other values (its "${stray[0]}" is ${describeValue(stray[1])}): a raw shape holds only schemas, such as { city: z.string() }; a JSON Schema object holds none`,
    );
  }
  for (const [key, value] of fields) {
    const problem = missingJsonSchema(value as StandardSchemaV1);
    if (problem) throw new TypeError(`${where}: the field "${key}" ${problem}`);
  }
  return shapeSchema(input as RawShape, where);
}

/** JSON Schema 2020-12 for a prepared schema, written by the schema library itself; plain JSON Schema as is. */
export function toJsonSchema(schema: PreparedSchema, io: "input" | "output", where = "The schema"): JsonObject {
  if (!isStandardSchema(schema)) return schema;
  const problem = missingJsonSchema(schema);
  if (problem) throw new TypeError(`${where} ${problem}`);
  let json: unknown;
  try {
    json = (schema as StandardJsonSchema)["~standard"].jsonSchema[io]({ target: "draft-2020-12" });
  } catch (error) {
    throw new TypeError(`${where} cannot be written as JSON Schema: ${describeThrown(error)}`);
  }
  if (!isPlainObject(json)) throw new TypeError(`${where} wrote ${describeValue(json)} as its JSON Schema, not an object`);
  return json;
}

export type SchemaIssue = JsonSchemaIssue;

/**
 * Validates a value; returns the parsed value or throws `-32602` with the issues in `data`. A plain
 * JSON Schema object is checked as JSON Schema (prepared at mount by `jsonSchemaCheck`) and the value
 * returned as sent. The answer (or the throw) comes at once when the schema validates synchronously, as
 * most do: a promise only when the schema's own validation is asynchronous.
 */
export function validateNow(schema: PreparedSchema | undefined, value: unknown, what: string): unknown {
  if (!schema) return value;
  if (!isStandardSchema(schema)) {
    const issues = jsonSchemaCheck(schema)(value);
    if (issues) throw invalidParams(`Invalid ${what}`, { issues });
    return value;
  }
  const valid = (result: StandardSchemaV1.Result<unknown>) => {
    if (result.issues) throw invalidParams(`Invalid ${what}`, { issues: toIssues(result.issues) });
    return result.value;
  };
  const result = schema["~standard"].validate(value);
  return isThenable(result) ? Promise.resolve(result).then(valid) : valid(result);
}

/** Synchronous variant used where a schema is known to validate synchronously (zod without async refinements). */
export function validateSync(
  schema: StandardSchemaV1,
  value: unknown,
): { ok: true; value: unknown } | { ok: false; issues: SchemaIssue[] } | undefined {
  const result = schema["~standard"].validate(value);
  if (isThenable(result)) return undefined;
  if (result.issues) return { ok: false, issues: toIssues(result.issues) };
  return { ok: true, value: result.value };
}

export function toIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): SchemaIssue[] {
  return issues.map((issue) => {
    const out: SchemaIssue = { message: issue.message };
    if (issue.path?.length) {
      out.path = issue.path.map((p) => {
        const key = typeof p === "object" ? p.key : p;
        return typeof key === "number" ? key : String(key);
      });
    }
    return out;
  });
}

// --- Internal ---

/** Why a Standard Schema cannot write JSON Schema, in words that say what to pass instead; undefined when it can. */
function missingJsonSchema(schema: StandardSchemaV1): string | undefined {
  const props = schema["~standard"];
  if (typeof props?.jsonSchema?.input === "function" && typeof props.jsonSchema.output === "function") return undefined;
  const s = schema as unknown as Record<string, unknown>;
  if (props?.vendor === "zod") {
    if (s._zod === undefined) {
      return 'is a zod 3 schema, which cannot write JSON Schema: use zod 4.2+ (import { z } from "zod"), or pass a JSON Schema object';
    }
    if (typeof s.optional !== "function") {
      return 'is a zod/mini schema, which leaves JSON Schema out: pass z.toJSONSchema(schema) (from "zod/mini"; zod still validates it), or use a schema from "zod"';
    }
    return "comes from a zod older than 4.2, which cannot write JSON Schema: upgrade zod to 4.2+, or pass z.toJSONSchema(schema)";
  }
  if (props?.vendor === "valibot") {
    return 'is a valibot schema, which cannot write JSON Schema by itself: pass toStandardJsonSchema(schema) from "@valibot/to-json-schema"';
  }
  return `is a Standard Schema (vendor ${JSON.stringify(String(props?.vendor))}) that cannot write JSON Schema (no Standard JSON Schema): ${PASS_INSTEAD}`;
}

/** A raw shape as one Standard Schema: an object of its fields, a field optional when its schema accepts undefined. */
function shapeSchema(shape: RawShape, where: string): StandardJsonSchema {
  const keys = Object.keys(shape);
  const optional = new Set(keys.filter((key) => acceptsUndefined(shape[key]!)));
  const json = (io: "input" | "output"): JsonObject => {
    const properties: JsonObject = {};
    const defs: JsonObject = {};
    for (const key of keys) {
      const { $schema: _dialect, $defs, ...field } = toJsonSchema(shape[key]!, io, `${where}: the field "${key}"`);
      properties[key] = field;
      for (const [name, def] of Object.entries(($defs as JsonObject | undefined) ?? {})) {
        if (name in defs && JSON.stringify(defs[name]) !== JSON.stringify(def)) {
          throw new TypeError(`${where}: two fields define "${name}" differently in $defs; wrap the shape in an object schema instead`);
        }
        defs[name] = def;
      }
    }
    const out: JsonObject = { type: "object", properties };
    const required = keys.filter((key) => !optional.has(key));
    if (required.length) out.required = required;
    if (Object.keys(defs).length) out.$defs = defs;
    return out;
  };
  const jsonSchema: JsonSchemaConverter = { input: () => json("input"), output: () => json("output") };
  return {
    "~standard": {
      version: 1,
      vendor: "h3-mcp",
      jsonSchema,
      validate: (value) => validateShape(shape, keys, value),
    },
  };
}

type ShapeResult = StandardSchemaV1.Result<Record<string, unknown>>;

function validateShape(shape: RawShape, keys: string[], value: unknown): ShapeResult | Promise<ShapeResult> {
  if (!isPlainObject(value)) return { issues: [{ message: "Expected an object" }] };
  const out: Record<string, unknown> = {};
  const issues: StandardSchemaV1.Issue[] = [];
  const take = (key: string, result: StandardSchemaV1.Result<unknown>) => {
    if (result.issues) {
      for (const issue of result.issues) issues.push({ message: issue.message, path: [key, ...(issue.path ?? [])] });
    } else if (result.value !== undefined || key in value) {
      out[key] = result.value;
    }
  };
  const pending: Promise<void>[] = [];
  for (const key of keys) {
    const result = shape[key]!["~standard"].validate(value[key]);
    if (isThenable(result)) pending.push(Promise.resolve(result).then((r) => take(key, r)));
    else take(key, result);
  }
  const finish = (): ShapeResult => (issues.length ? { issues } : { value: out });
  return pending.length ? Promise.all(pending).then(finish) : finish();
}

function acceptsUndefined(schema: StandardSchemaV1): boolean {
  try {
    const result = schema["~standard"].validate(undefined);
    return !isThenable(result) && !result.issues;
  } catch {
    return false;
  }
}

function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A short description of a value for an error message. */
function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "function") return "a function without ~standard (not a Standard Schema)";
  if (typeof value !== "object") return `the ${typeof value} ${String(value)}`;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name ? `a ${name} instance` : "an object";
}
