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
