import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { coreApp, tools } from "../fixtures/core-app.ts";
import { expectCacheable, expectError, expectResult, S, ownFields } from "../helpers/schemas.ts";
import { appFor, call } from "../helpers/wire.ts";

const { app } = coreApp();

describe("server/discover", () => {
  it("advertises capabilities, versions, instructions, serverInfo and cache hints", async () => {
    const r = await call(app, "server/discover");
    const result = expectResult(r.body, S.discover);
    expectCacheable(result);
    expect(result.supportedVersions).toEqual(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]);
    expect(result.capabilities.tools).toEqual({ listChanged: true });
    expect(result.capabilities.extensions).toBeUndefined();
    expect(result.instructions).toBe("Be nice");
    expect(result._meta["io.modelcontextprotocol/serverInfo"]).toEqual({ name: "core-test", version: "1.2.3" });
  });

  it("takes cache hints from the options", async () => {
    const h = defineMcpHandler({ name: "x", version: "1", cache: { ttlMs: 5, cacheScope: "private" } });
    const result = (await call(appFor(h), "server/discover")).body.result;
    expect([result.ttlMs, result.cacheScope]).toEqual([5, "private"]);
    const list = (await call(appFor(h), "tools/list")).body.result;
    expect([list.ttlMs, list.cacheScope]).toEqual([5, "private"]);
  });
});

describe("tools/list", () => {
  it("lists tools in definition order across cursor pages, each page cacheable", async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await call(app, "tools/list", cursor ? { cursor } : {});
      const result = expectResult(r.body, S.listTools);
      expectCacheable(result);
      names.push(...result.tools.map((t: any) => t.name));
      cursor = result.nextCursor;
      pages++;
    } while (cursor);
    expect(names).toEqual(tools.map((t) => t.name));
    expect(pages).toBe(Math.ceil(tools.length / 4));
  });

  it("shows zod-generated JSON Schema 2020-12 and the execution hint as given", async () => {
    const h = defineMcpHandler({
      name: "x",
      version: "1",
      tools: [
        defineTool({
          name: "t",
          title: "T",
          annotations: { readOnlyHint: true },
          execution: { taskSupport: "optional" },
          inputSchema: z.object({ a: z.string().describe("an a"), b: z.number().optional() }),
          outputSchema: z.object({ ok: z.boolean() }),
          handler: () => "",
        }),
      ],
    });
    const [tool] = (await call(appFor(h), "tools/list")).body.result.tools;
    expect(tool.inputSchema).toEqual(z.toJSONSchema(z.object({ a: z.string().describe("an a"), b: z.number().optional() }), { io: "input" }));
    expect(tool.inputSchema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(tool.outputSchema.properties.ok).toEqual({ type: "boolean" });
    expect(tool.execution).toEqual({ taskSupport: "optional" });
    expect(tool.annotations).toEqual({ readOnlyHint: true });
  });

  it("lists a tool without inputSchema with the empty-object schema", async () => {
    const r = await call(app, "tools/list");
    const t = r.body.result.tools.find((x: any) => x.name === "throws");
    expect(t.inputSchema).toEqual({ type: "object", additionalProperties: false });
  });

  it.each([["garbage"], [42], [Buffer.from("page:99").toString("base64url")]])("answers -32602 for the cursor %s", async (cursor) => {
    expectError((await call(app, "tools/list", { cursor })).body, -32602);
  });

  it("refuses duplicate and invalid tool names at mount", () => {
    const t = defineTool({ name: "a", handler: () => "" });
    expect(() => defineMcpHandler({ name: "x", version: "1", tools: [t, t] })).toThrow(/Duplicate/);
    expect(() => defineMcpHandler({ name: "x", version: "1", tools: [defineTool({ name: "bad name", handler: () => "" })] })).toThrow(/Invalid tool name/);
  });
});

describe("tools/call", () => {
  it("turns a returned string into one text block", async () => {
    const result = expectResult((await call(app, "tools/call", { name: "echo", arguments: { text: "hi" } })).body, S.callTool);
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
  });

  it("validates arguments before the handler: -32602 with the issues in data", async () => {
    const error = expectError((await call(app, "tools/call", { name: "echo", arguments: { text: 5 } })).body, -32602);
    expect(error.data.issues[0].path).toEqual(["text"]);
  });

  it("answers -32602 for an unknown tool and for non-object arguments", async () => {
    expectError((await call(app, "tools/call", { name: "nope" }, { headers: { "mcp-name": "nope" } })).body, -32602);
    expectError((await call(app, "tools/call", { name: "echo", arguments: [1] })).body, -32602);
  });

  it("turns a thrown Error into isError with its message", async () => {
    const result = expectResult((await call(app, "tools/call", { name: "throws" })).body, S.callTool);
    expect(ownFields(result)).toEqual({ resultType: "complete", content: [{ type: "text", text: "upstream refused" }], isError: true });
  });

  it("turns a thrown McpJsonRpcError into that JSON-RPC error", async () => {
    const error = expectError((await call(app, "tools/call", { name: "rpc_error" })).body, -32602);
    expect(error).toEqual({ code: -32602, message: "bad city", data: { city: "x" } });
  });

  it("answers -32603 when a handler returns something that is not a result", async () => {
    expectError((await call(app, "tools/call", { name: "bad_return" })).body, -32603);
  });

  it("checks structuredContent against outputSchema", async () => {
    expectResult((await call(app, "tools/call", { name: "typed_output", arguments: { good: true } })).body, S.callTool);
    const error = expectError((await call(app, "tools/call", { name: "typed_output", arguments: { good: false } })).body, -32603);
    expect(error.data.issues.length).toBeGreaterThan(0);
  });

  it("never caches a tools/call result", async () => {
    const result = (await call(app, "tools/call", { name: "echo", arguments: { text: "a" } })).body.result;
    expect(result.ttlMs).toBeUndefined();
    expect(result.cacheScope).toBeUndefined();
  });

  it("evaluates function options per request and compiles each tool list once", async () => {
    const a = defineTool({ name: "a", handler: () => "a" });
    const b = defineTool({ name: "b", handler: () => "b" });
    const admin = [a, b];
    const user = [a];
    const h = defineMcpHandler((event) => ({
      name: "dyn",
      version: "1",
      tools: event.req.headers.get("x-role") === "admin" ? admin : user,
    }));
    const app2 = appFor(h);
    const names = async (role: string) =>
      (await call(app2, "tools/list", {}, { headers: { "x-role": role } })).body.result.tools.map((t: any) => t.name);
    expect(await names("admin")).toEqual(["a", "b"]);
    expect(await names("user")).toEqual(["a"]);
    expectError((await call(app2, "tools/call", { name: "b" }, { headers: { "x-role": "user" } })).body, -32602);
  });
});

describe("Standard Schema beyond zod", () => {
  it("accepts any Standard Schema that produces JSON Schema, for listing and validation", async () => {
    // A hand-written Standard Schema (as valibot or arktype provide), validating { n: number }.
    const numberBox = {
      "~standard": {
        version: 1 as const,
        vendor: "hand-made",
        validate: (value: unknown) =>
          typeof value === "object" && value !== null && typeof (value as { n?: unknown }).n === "number"
            ? { value: value as { n: number } }
            : { issues: [{ message: "n must be a number", path: ["n"] }] },
        jsonSchema: {
          input: () => ({ type: "object", properties: { n: { type: "number" } }, required: ["n"] }),
          output: () => ({ type: "object", properties: { n: { type: "number" } }, required: ["n"] }),
        },
        types: undefined as unknown as { input: { n: number }; output: { n: number } },
      },
    };
    const h = defineMcpHandler({
      name: "x",
      version: "1",
      tools: [defineTool({ name: "double", inputSchema: numberBox, handler: (_e, { n }) => String(n * 2) })],
    });
    const app2 = appFor(h);
    expect((await call(app2, "tools/list")).body.result.tools[0].inputSchema.required).toEqual(["n"]);
    expect((await call(app2, "tools/call", { name: "double", arguments: { n: 21 } })).body.result.content[0].text).toBe("42");
    const error = expectError((await call(app2, "tools/call", { name: "double", arguments: { n: "x" } })).body, -32602);
    expect(error.data.issues).toEqual([{ message: "n must be a number", path: ["n"] }]);
  });
});
