// Every kind of schema users bring, with the real libraries: listed as JSON Schema, arguments
// validated (-32602 with the issues on bad ones), the handler given the parsed value.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import * as zm from "zod/mini";
import { defineMcpHandler, definePrompt, defineTool, mcpElicit, mcpValidateElicitation, type ToolDefinition } from "../../src/index.ts";
import { expectError, expectResult, expectShape, S } from "../helpers/schemas.ts";
import { appFor, call } from "../helpers/wire.ts";
import * as core from "@modelcontextprotocol/core";

const echoArgs = (_event: unknown, args: unknown) => ({ content: [], structuredContent: { got: args } });

/** Each kind: a `city` string and an optional integer `days` defaulting to 3 (where the library has defaults). */
const kinds: { kind: string; tool: ToolDefinition<any>; defaults: boolean }[] = [
  {
    kind: "zod 4",
    defaults: true,
    tool: defineTool({ name: "zod", inputSchema: z.object({ city: z.string(), days: z.number().int().default(3) }), handler: echoArgs }),
  },
  {
    kind: "zod/mini through z.toJSONSchema",
    defaults: true,
    tool: defineTool({
      name: "zod_mini",
      inputSchema: zm.toJSONSchema(zm.object({ city: zm.string(), days: zm._default(zm.int(), 3) })),
      handler: echoArgs,
    }),
  },
  {
    kind: "valibot through toStandardJsonSchema",
    defaults: true,
    tool: defineTool({
      name: "valibot",
      inputSchema: toStandardJsonSchema(v.object({ city: v.string(), days: v.optional(v.pipe(v.number(), v.integer()), 3) })),
      handler: echoArgs,
    }),
  },
  {
    kind: "ArkType (a function carrying ~standard)",
    defaults: true,
    tool: defineTool({ name: "arktype", inputSchema: type({ city: "string", days: "number.integer = 3" }), handler: echoArgs }),
  },
  {
    kind: "a zod raw shape",
    defaults: true,
    tool: defineTool({ name: "raw_shape", inputSchema: { city: z.string(), days: z.number().int().default(3) }, handler: echoArgs }),
  },
  {
    kind: "a raw shape mixing libraries",
    defaults: true,
    tool: defineTool({ name: "mixed_shape", inputSchema: { city: type("string"), days: z.number().int().default(3) }, handler: echoArgs }),
  },
];

const handler = defineMcpHandler({ name: "kinds", version: "1", tools: kinds.map((k) => k.tool) });
const app = appFor(handler);

describe.each(kinds)("inputSchema as $kind", ({ tool, defaults }) => {
  it("is listed as an object JSON Schema with city required and days optional", async () => {
    const listed = expectResult((await call(app, "tools/list")).body, S.listTools).tools.find((t: any) => t.name === tool.name);
    expect(listed.inputSchema.type).toBe("object");
    expect(Object.keys(listed.inputSchema.properties).sort()).toEqual(["city", "days"]);
    expect(listed.inputSchema.properties.city).toMatchObject({ type: "string" });
    expect(listed.inputSchema.required).toEqual(["city"]);
  });

  it("hands the handler the parsed arguments", async () => {
    const r = await call(app, "tools/call", { name: tool.name, arguments: { city: "Oslo" } });
    const result = expectResult(r.body, S.callTool);
    expect(result.structuredContent.got).toEqual(defaults ? { city: "Oslo", days: 3 } : { city: "Oslo" });
    const given = await call(app, "tools/call", { name: tool.name, arguments: { city: "Oslo", days: 5 } });
    expect(given.body.result.structuredContent.got).toEqual({ city: "Oslo", days: 5 });
  });

  it("answers -32602 with the issues, paths included, for bad arguments", async () => {
    for (const bad of [{ city: 7 }, {}, { city: "Oslo", days: "many" }]) {
      const r = await call(app, "tools/call", { name: tool.name, arguments: bad });
      expect(r.status).toBe(400);
      const error = expectError(r.body, -32602);
      expect(error.message).toBe(`Invalid arguments for tool ${tool.name}`);
      expect(error.data.issues.length).toBeGreaterThan(0);
      expect(error.data.issues.map((i: any) => i.path?.[0])).toContain("city" in bad && bad.city === "Oslo" ? "days" : "city");
    }
  });
});

describe("plain JSON Schema", () => {
  it("is listed exactly as given", async () => {
    const inputSchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
    const h = defineMcpHandler({ name: "json", version: "1", tools: [defineTool({ name: "j", inputSchema, handler: echoArgs })] });
    const listed = expectResult((await call(appFor(h), "tools/list")).body, S.listTools).tools[0];
    expect(listed.inputSchema).toEqual(inputSchema);
  });
});

describe("a raw shape", () => {
  it("validates asynchronous field schemas too", async () => {
    const slow = z.string().refine(async (s) => s.startsWith("O"), "must start with O");
    const h = defineMcpHandler({ name: "a", version: "1", tools: [defineTool({ name: "a", inputSchema: { city: slow }, handler: echoArgs })] });
    expect((await call(appFor(h), "tools/call", { name: "a", arguments: { city: "Oslo" } })).body.result.structuredContent.got).toEqual({ city: "Oslo" });
    const bad = expectError((await call(appFor(h), "tools/call", { name: "a", arguments: { city: "Bergen" } })).body, -32602);
    expect(bad.data.issues).toEqual([{ message: "must start with O", path: ["city"] }]);
  });

  it("keeps definitions its fields refer to at the root, where their $refs point", async () => {
    const Node: z.ZodType<{ name: string; children: unknown[] }> = z.object({ name: z.string(), children: z.array(z.lazy(() => Node)) });
    const h = defineMcpHandler({ name: "r", version: "1", tools: [defineTool({ name: "r", inputSchema: { tree: Node }, handler: echoArgs })] });
    const listed = (await call(appFor(h), "tools/list")).body.result.tools[0].inputSchema;
    const refs = JSON.stringify(listed).match(/"#\/\$defs\/[^"]+"/g) ?? [];
    for (const ref of refs) expect(listed.$defs?.[JSON.parse(ref).slice("#/$defs/".length)]).toBeDefined();
    expect(listed.properties.tree.$schema).toBeUndefined();
  });

  it("serves prompt arguments, listed by name and checked on prompts/get", async () => {
    const prompt = definePrompt({
      name: "trip",
      arguments: { city: z.string().describe("Where to"), style: z.string().optional() },
      handler: (_e, { city, style }) => `Plan ${style ?? "a"} trip to ${city}`,
    });
    const a = appFor(defineMcpHandler({ name: "p", version: "1", prompts: [prompt] }));
    const listed = (await call(a, "prompts/list")).body.result.prompts[0];
    expectShape(core.ListPromptsResultSchema as never, (await call(a, "prompts/list")).body.result);
    expect(listed.arguments).toEqual([{ name: "city", description: "Where to", required: true }, { name: "style" }]);
    expect((await call(a, "prompts/get", { name: "trip", arguments: { city: "Oslo" } })).body.result.messages[0].content.text).toBe("Plan a trip to Oslo");
    expectError((await call(a, "prompts/get", { name: "trip", arguments: {} })).body, -32602);
  });
});

describe("outputSchema of another kind", () => {
  it("checks structuredContent with an ArkType type", async () => {
    const tool = defineTool({
      name: "out",
      inputSchema: { good: z.boolean() },
      outputSchema: type({ n: "number" }),
      handler: (_e, { good }) => ({ content: [], structuredContent: good ? { n: 1 } : { n: "one" } }),
    });
    const a = appFor(defineMcpHandler({ name: "o", version: "1", tools: [tool] }));
    const listed = (await call(a, "tools/list")).body.result.tools[0];
    expect(listed.outputSchema).toMatchObject({ type: "object", properties: { n: { type: "number" } } });
    expect((await call(a, "tools/call", { name: "out", arguments: { good: true } })).body.result.structuredContent).toEqual({ n: 1 });
    expectError((await call(a, "tools/call", { name: "out", arguments: { good: false } })).body, -32603);
  });
});

describe("an elicitation's requestedSchema of another kind", () => {
  it.each([
    ["ArkType", type({ age: "number.integer >= 0" })],
    ["valibot", toStandardJsonSchema(v.object({ age: v.pipe(v.number(), v.integer(), v.minValue(0)) }))],
  ])("is sent as flat JSON Schema and checks the answer with %s", (_kind, schema) => {
    const ask = mcpElicit({ message: "Age?", requestedSchema: schema });
    expect(ask.params.requestedSchema).toMatchObject({ type: "object", properties: { age: { type: "integer", minimum: 0 } }, required: ["age"] });
    expect((ask.params.requestedSchema as Record<string, unknown>).$schema).toBeUndefined();
    expect(mcpValidateElicitation(ask, { action: "accept", content: { age: 3 } })).toEqual({ age: 3 });
    expect(() => mcpValidateElicitation(ask, { action: "accept", content: { age: -1 } })).toThrow();
  });

  it("refuses a schema that cannot write JSON Schema, saying what to pass", () => {
    // @ts-expect-error zod/mini leaves JSON Schema out
    expect(() => mcpElicit({ message: "Age?", requestedSchema: zm.object({ age: zm.number() }) })).toThrow(/^mcpElicit: requestedSchema is a zod\/mini schema/);
  });
});

describe("types", () => {
  it("infer the handler's arguments from every kind", () => {
    defineTool({ name: "t", inputSchema: { city: z.string(), days: z.number().optional() }, handler: (_e, args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string } & { days?: number | undefined }>();
      return "";
    } });
    defineTool({ name: "t", inputSchema: type({ city: "string" }), handler: (_e, args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string }>();
      return "";
    } });
    defineTool({ name: "t", inputSchema: toStandardJsonSchema(v.object({ city: v.string() })), handler: (_e, args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string }>();
      return "";
    } });
  });
});
