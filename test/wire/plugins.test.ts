import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineMcpPlugin, defineTool, getMcpContext, McpJsonRpcError, type McpPlugin } from "../../src/index.ts";
import { expectError } from "../helpers/schemas.ts";
import { appFor, call } from "../helpers/wire.ts";

const echo = defineTool({ name: "echo", handler: () => "inner" });

describe("extension plugins", () => {
  it("serve their methods with Mcp-Name checks, only when enabled; -32601 otherwise", async () => {
    const hello = defineMcpPlugin({
      id: "com.example/hello",
      settings: { v: 1 },
      enabled: (e) => e.req.headers.get("x-on") === "1",
      methods: { "hello/say": { nameParam: "who", handler: (_e, p) => ({ resultType: "complete", text: `hi ${p.who}` }) } },
    });
    const app = appFor(defineMcpHandler({ name: "x", version: "1" }, { extensionPlugins: [hello] }));
    const on = { headers: { "x-on": "1", "mcp-name": "bo" } };
    expect((await call(app, "hello/say", { who: "bo" }, on)).body.result.text).toBe("hi bo");
    expectError((await call(app, "hello/say", { who: "bo" }, { headers: { "x-on": "1", "mcp-name": "al" } })).body, -32020);
    const off = await call(app, "hello/say", { who: "bo" }, { headers: { "mcp-name": "bo" } });
    expect(off.status).toBe(404);
    expectError(off.body, -32601);
    expect((await call(app, "server/discover")).body.result.capabilities.extensions).toEqual({ "com.example/hello": { v: 1 } });
  });

  it("can gate and wrap tool calls, first plugin outermost", async () => {
    const order: string[] = [];
    const wrap = (tag: string) =>
      defineMcpPlugin({
        id: `com.example/${tag}`,
        beforeToolCall: (event) => {
          order.push(`before ${tag}`);
          if (getMcpContext(event).meta.deny === tag) throw new McpJsonRpcError(-32603, `denied by ${tag}`);
        },
        wrapToolCall: async (_e, tool, next) => {
          order.push(`enter ${tag}`);
          const result = await next();
          order.push(`leave ${tag}`);
          return { ...result, content: [...(result.content as object[]), { type: "text", text: `${tag} saw ${tool.name}` }] };
        },
      });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [echo] }, { extensionPlugins: [wrap("a"), wrap("b")] }));
    const r = (await call(app, "tools/call", { name: "echo" })).body.result;
    expect(r.content.map((c: any) => c.text)).toEqual(["inner", "b saw echo", "a saw echo"]);
    expect(order).toEqual(["before a", "before b", "enter a", "enter b", "leave b", "leave a"]);
    expect((await call(app, "tools/call", { name: "echo" }, { meta: { deny: "b" } })).body.error.message).toBe("denied by b");
  });

  it("refuses two plugins with one id, or one method served twice, at mount", () => {
    const p = defineMcpPlugin({ id: "com.example/p", methods: { "p/x": { handler: () => ({}) } } });
    expect(() => defineMcpHandler({ name: "x", version: "1" }, { extensionPlugins: [p, p] })).toThrow(/installed twice/);
    const q = defineMcpPlugin({ id: "com.example/q", methods: { "p/x": { handler: () => ({}) } } });
    expect(() => defineMcpHandler({ name: "x", version: "1" }, { extensionPlugins: [p, q] })).toThrow(/served by two/);
  });

  it("answer -32603 for a method whose handler answers something other than a result object, and tell onError why", async () => {
    const answers: Record<string, () => unknown> = {
      "odd/number": () => 42,
      "odd/string": () => "done",
      "odd/null": () => null,
      "odd/array": () => [{ resultType: "complete" }],
      "odd/later": async () => 7,
    };
    const odd = defineMcpPlugin({ id: "com.example/odd", methods: Object.fromEntries(Object.entries(answers).map(([m, handler]) => [m, { handler }])) });
    const seen: string[] = [];
    const watch: McpPlugin = {
      name: "watch",
      async wrapRequest(_event, next) {
        try {
          const result = await next();
          seen.push(`result ${JSON.stringify(result)}`);
          return result;
        } catch (error) {
          seen.push(`error ${(error as McpJsonRpcError).code}`);
          throw error;
        }
      },
    };
    const errors: unknown[] = [];
    for (const plugins of [[], [watch]]) {
      errors.length = 0;
      seen.length = 0;
      const app = appFor(defineMcpHandler({ name: "x", version: "1" }, { plugins, extensionPlugins: [odd], onError: (e) => errors.push(e) }));
      for (const method of Object.keys(answers)) {
        const answer = await call(app, method);
        expect(answer.status).toBe(200);
        expectError(answer.body, -32603);
      }
      expect(errors.map((e) => (e as Error).message)).toEqual([
        "Plugin method odd/number answered number, not a result object",
        "Plugin method odd/string answered string, not a result object",
        "Plugin method odd/null answered null, not a result object",
        "Plugin method odd/array answered an array, not a result object",
        "Plugin method odd/later answered number, not a result object",
      ]);
      // A request hook sees the refusal, never the odd value as a result.
      expect(seen).toEqual(plugins.length ? Array(5).fill("error -32603") : []);
    }
  });

  it("treats a predicate that throws as disabled", async () => {
    const boom = defineMcpPlugin({ id: "com.example/boom", enabled: () => { throw new Error("x"); }, methods: { "boom/go": { handler: () => ({ resultType: "complete" }) } } });
    const app = appFor(defineMcpHandler({ name: "x", version: "1" }, { extensionPlugins: [boom] }));
    expect((await call(app, "boom/go")).status).toBe(404);
  });
});

describe("structured output", () => {
  it("adds a JSON text block when a tool returns only structuredContent", async () => {
    const t = defineTool({ name: "data", handler: () => ({ content: [], structuredContent: { a: 1 } }) });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [t] }));
    expect((await call(app, "tools/call", { name: "data" })).body.result.content).toEqual([{ type: "text", text: '{"a":1}' }]);
  });
});
