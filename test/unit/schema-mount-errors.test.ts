// What the schema bridge refuses, at mount, with a message naming what was given and what to pass;
// and, where the types can tell, at compile time (the @ts-expect-error lines fail `npm run typecheck`
// as soon as such a schema type-checks).
import * as v from "valibot";
import { type } from "arktype";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { z as z3 } from "zod/v3";
import { defineMcpHandler, definePrompt, defineTool } from "../../src/index.ts";
import { appFor, call } from "../helpers/wire.ts";

const mount = (inputSchema: unknown) => () =>
  defineMcpHandler({ name: "m", version: "1", tools: [defineTool({ name: "t", inputSchema: inputSchema as never, handler: () => "" })] });

describe("schemas refused at mount", () => {
  it.each([
    ["a zod 3 schema", z3.object({ city: z3.string() }), /^Tool "t": inputSchema is a zod 3 schema, .*use zod 4\.2\+/],
    ["a zod/mini schema", zm.object({ city: zm.string() }), /^Tool "t": inputSchema is a zod\/mini schema, .*pass z\.toJSONSchema\(schema\)/],
    ["a valibot schema", v.object({ city: v.string() }), /^Tool "t": inputSchema is a valibot schema, .*toStandardJsonSchema\(schema\) from "@valibot\/to-json-schema"/],
    [
      "a Standard Schema of another vendor without JSON Schema",
      { "~standard": { version: 1, vendor: "acme", validate: (value: unknown) => ({ value }) } },
      /^Tool "t": inputSchema is a Standard Schema \(vendor "acme"\) that cannot write JSON Schema.*zod 4\.2\+, ArkType, valibot/,
    ],
    ["a string", "city: string", /^Tool "t": inputSchema is the string "city: string": pass a Standard Schema/],
    ["an array", [z.string()], /^Tool "t": inputSchema is an array: pass a Standard Schema .*a raw shape .*a JSON Schema object/],
    ["a number", 3, /^Tool "t": inputSchema is the number 3: pass/],
    ["a class instance", new Date(0), /^Tool "t": inputSchema is a Date instance: pass/],
    ["a plain function", () => ({}), /^Tool "t": inputSchema is a function without ~standard \(not a Standard Schema\): pass/],
    ["a shape mixing schemas and values", { city: z.string(), days: 3 }, /^Tool "t": inputSchema mixes schemas and other values \(its "days" is the number 3\)/],
    ["a shape with a zod 3 field", { city: z3.string() }, /^Tool "t": inputSchema: the field "city" is a zod 3 schema/],
    ["a schema of something other than an object", z.string(), /^Tool "t": inputSchema must describe an object .*leave it out for a tool without arguments/],
    ["JSON Schema of something other than an object", { type: "string" }, /^Tool "t": inputSchema must describe an object/],
    ["a schema JSON Schema cannot express", z.object({ when: z.date() }), /^Tool "t": inputSchema cannot be written as JSON Schema: .*Date/],
  ])("%s", (_kind, schema, message) => {
    expect(mount(schema)).toThrow(TypeError);
    expect(mount(schema)).toThrow(message);
  });

  it("names the slot: outputSchema and prompt arguments", () => {
    const out = () =>
      defineMcpHandler({ name: "m", version: "1", tools: [defineTool({ name: "t", outputSchema: zm.object({}) as never, handler: () => "" })] });
    expect(out).toThrow(/^Tool "t": outputSchema is a zod\/mini schema/);
    const prompt = () =>
      defineMcpHandler({ name: "m", version: "1", prompts: [definePrompt({ name: "p", arguments: "x" as never, handler: () => "" })] });
    expect(prompt).toThrow(/^Prompt "p": arguments is the string "x"/);
  });

  it("refuses them at compile time where the types can tell", () => {
    const tool = (inputSchema: unknown) => ({ name: "t", inputSchema, handler: () => "" });
    // @ts-expect-error zod 3 cannot write JSON Schema
    defineTool({ ...tool(0), inputSchema: z3.object({ city: z3.string() }) });
    // @ts-expect-error zod/mini leaves JSON Schema out
    defineTool({ ...tool(0), inputSchema: zm.object({ city: zm.string() }) });
    // @ts-expect-error valibot needs toStandardJsonSchema
    defineTool({ ...tool(0), inputSchema: v.object({ city: v.string() }) });
    // @ts-expect-error a string is no schema
    defineTool({ ...tool(0), inputSchema: "city: string" });
    // Not told apart by the types: a raw shape whose field cannot write JSON Schema also fits the JSON
    // Schema object type, so only the mount refuses it (the "shape with a zod 3 field" case above).
    // The kinds that work type-check (and mount):
    defineMcpHandler({
      name: "ok",
      version: "1",
      tools: [
        defineTool({ name: "a", inputSchema: z.object({ city: z.string() }), handler: () => "" }),
        defineTool({ name: "b", inputSchema: type({ city: "string" }), handler: () => "" }),
        defineTool({ name: "c", inputSchema: { city: z.string() }, handler: () => "" }),
        defineTool({ name: "d", inputSchema: zm.toJSONSchema(zm.object({ city: zm.string() })), handler: () => "" }),
        defineTool({ name: "e", inputSchema: { type: "object", properties: { city: { type: "string" } } }, handler: () => "" }),
      ],
    });
  });
});

describe("JSON Schema references resolved at mount", () => {
  const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra });
  const tool = (name: string, schemas: { inputSchema?: unknown; outputSchema?: unknown }) =>
    defineTool({ name, ...(schemas as { inputSchema?: never; outputSchema?: never }), handler: () => ({ content: [], structuredContent: { n: 1 } }) });
  const mountTools = (...tools: ReturnType<typeof tool>[]) => () => defineMcpHandler({ name: "m", version: "1", tools });

  it.each([
    ["a pointer to nothing", obj({ a: { $ref: "#/$defs/missing" } }), '"#/$defs/missing"'],
    ["a pointer into a schema that is not there", obj({ a: { $ref: "#/properties/b/items" } }), '"#/properties/b/items"'],
    ["another document", obj({ a: { $ref: "https://example.com/schemas/a.json" } }), '"https://example.com/schemas/a.json"'],
    ["a relative reference to no known $id", obj({ a: { $ref: "other.json" } }, { $id: "https://x.test/root.json" }), '"other.json"'],
    ["an unknown anchor", obj({ a: { $ref: "#nowhere" } }), '"#nowhere"'],
    ["one deep inside", obj({ a: { type: "array", items: { anyOf: [{ type: "string" }, { $ref: "#/$defs/gone" }] } } }), '"#/$defs/gone"'],
    ["a 2019-09 $recursiveRef to nothing", obj({ a: { $recursiveRef: "#/$defs/gone" } }, { $schema: "https://json-schema.org/draft/2019-09/schema" }), '"#/$defs/gone"'],
  ])("refuses %s in an inputSchema, naming the tool, the slot and the reference", (_kind, schema, ref) => {
    const mount = mountTools(tool("t", { inputSchema: schema }));
    expect(mount).toThrow(TypeError);
    expect(mount).toThrow(`Tool "t": inputSchema has a $ref that cannot be resolved within the schema: ${ref}`);
  });

  it("names every unresolved reference at once, and the outputSchema and prompt arguments slots", () => {
    expect(mountTools(tool("t", { inputSchema: obj({ a: { $ref: "#/$defs/x" }, b: { $ref: "#/$defs/y" } }) }))).toThrow(
      'inputSchema has a $ref that cannot be resolved within the schema: "#/$defs/x", "#/$defs/y"',
    );
    expect(mountTools(tool("t", { outputSchema: obj({ n: { $ref: "#/$defs/n" } }) }))).toThrow(/^Tool "t": outputSchema has a \$ref/);
    const prompt = () =>
      defineMcpHandler({ name: "m", version: "1", prompts: [definePrompt({ name: "p", arguments: obj({ a: { $ref: "#/$defs/a" } }), handler: () => "" })] });
    expect(prompt).toThrow(/^Prompt "p": arguments has a \$ref that cannot be resolved/);
  });

  it.each([
    ["two subschemas with one $id", obj({ a: { $id: "https://e.x/a", type: "string" }, b: { $id: "https://e.x/a", type: "number" } }), /cannot be read as JSON Schema: .*Duplicate schema URI/],
    ["an $id that is no URI", obj({ a: { type: "string" } }, { $id: "http://[bad" }), /cannot be read as JSON Schema: .*Invalid URL/],
    ["a $dynamicRef, which would go unenforced", obj({ a: { $dynamicRef: "#node" } }, { $dynamicAnchor: "node" }), /uses \$dynamicRef, which this server cannot enforce/],
  ])("refuses a schema with %s as a TypeError naming the tool and the slot", (_kind, schema, message) => {
    const mount = mountTools(tool("t", { inputSchema: schema }));
    expect(mount).toThrow(TypeError);
    expect(mount).toThrow(/^Tool "t": inputSchema /);
    expect(mount).toThrow(message);
  });

  it("accepts references the schema resolves: $defs, $id-relative, anchors, the root; and a $ref that is only data", () => {
    const schemas = [
      obj({ a: { $ref: "#/$defs/n" } }, { $defs: { n: { type: "number" } } }),
      obj({ a: { $ref: "num.json" } }, { $id: "https://x.test/root.json", $defs: { n: { $id: "num.json", type: "number" } } }),
      obj({ a: { $ref: "#num" } }, { $defs: { n: { $anchor: "num", type: "number" } } }),
      obj({ a: { $ref: "#/properties/b" }, b: { type: "number" } }),
      obj({ child: { $ref: "#" } }),
      obj({ child: { $recursiveRef: "#" } }, { $schema: "https://json-schema.org/draft/2019-09/schema", $recursiveAnchor: true }),
      obj({ a: { const: { $ref: "#/not/a/schema" } } }),
      obj({ a: { $ref: "#/definitions/n" } }, { $schema: "http://json-schema.org/draft-07/schema#", definitions: { n: { type: "number" } } }),
    ];
    expect(mountTools(...schemas.map((inputSchema, i) => tool(`t${i}`, { inputSchema, outputSchema: inputSchema })))).not.toThrow();
  });

  it("refuses one added after mount with add() or replace(), and serves what it served before", async () => {
    const good = tool("good", { inputSchema: obj({ a: { type: "number" } }) });
    const handler = defineMcpHandler({ name: "m", version: "1", tools: [good] });
    const bad = tool("bad", { inputSchema: obj({ a: { $ref: "#/$defs/missing" } }) });
    expect(() => handler.add({ tools: [bad] })).toThrow(/^Tool "bad": inputSchema has a \$ref/);
    expect(() => handler.replace({ tools: [tool("good", { outputSchema: obj({ n: { $ref: "urn:x" } }) })] })).toThrow(/^Tool "good": outputSchema has a \$ref/);
    const app = appFor(handler);
    expect((await call(app, "tools/list")).body.result.tools.map((t: { name: string }) => t.name)).toEqual(["good"]);
    expect((await call(app, "tools/call", { name: "good", arguments: { a: 1 } })).body.result.structuredContent).toEqual({ n: 1 });
  });

  it("validates through the references on the wire", async () => {
    const handler = defineMcpHandler({
      name: "m",
      version: "1",
      tools: [tool("t", { inputSchema: obj({ a: { $ref: "#/$defs/n" } }, { $defs: { n: { type: "number" } } }) })],
    });
    const app = appFor(handler);
    const bad = await call(app, "tools/call", { name: "t", arguments: { a: "one" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(-32602);
    expect(bad.body.error.data.issues[0].path).toEqual(["a"]);
    expect((await call(app, "tools/call", { name: "t", arguments: { a: 1 } })).body.result.isError).toBeUndefined();
  });
});
