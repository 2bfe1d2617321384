// A tool's inputSchema and outputSchema given as plain JSON Schema are enforced, not only listed:
// arguments before the handler runs (-32602 with the issues), structuredContent after (-32603).
// A tool without inputSchema lists the empty object schema and refuses any argument by it.
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { expectError, expectResult, S } from "../helpers/schemas.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { appFor, call } from "../helpers/wire.ts";

const inputSchema = {
  type: "object",
  $defs: { count: { type: "integer", minimum: 1 } },
  properties: {
    n: { $ref: "#/$defs/count" },
    pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false },
    "a/b": { type: "string" },
  },
  required: ["n"],
  unevaluatedProperties: false,
};
const outputSchema = { type: "object", properties: { total: { type: "number" } }, required: ["total"] };

function app() {
  const runs: unknown[] = [];
  const tool = defineTool({
    name: "sum",
    inputSchema,
    outputSchema,
    handler: (_e, args: any) => {
      runs.push(args);
      return { content: [], structuredContent: args.n === 13 ? { total: "unlucky" } : { total: args.n } };
    },
  });
  return { app: appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] })), runs };
}

describe("plain JSON Schema", () => {
  it("passes conforming arguments to the handler as sent", async () => {
    const { app: served, runs } = app();
    const r = await call(served, "tools/call", { name: "sum", arguments: { n: 2, pair: ["x", 1] } });
    expect(expectResult(r.body, S.callTool).structuredContent).toEqual({ total: 2 });
    expect(runs).toEqual([{ n: 2, pair: ["x", 1] }]);
  });

  it.each([
    ["a value below minimum through $ref", { n: 0 }, [{ path: ["n"] }]],
    ["a missing required property", {}, [{}]],
    ["an item past prefixItems", { n: 1, pair: ["x", 1, 2] }, [{ path: ["pair", 2] }]],
    ["a prefixItems item of the wrong type", { n: 1, pair: [1, 1] }, [{ path: ["pair", 0] }]],
    ["an unevaluated property", { n: 1, extra: true }, [{ path: ["extra"] }]],
    ["a key with a slash, of the wrong type", { n: 1, "a/b": 5 }, [{ path: ["a/b"] }]],
  ])("refuses %s with -32602 before the handler runs, the issues in data", async (_what, args, issues) => {
    const { app: served, runs } = app();
    const r = await call(served, "tools/call", { name: "sum", arguments: args });
    expect(r.status).toBe(400);
    const error = expectError(r.body, -32602);
    expect(error.message).toBe("Invalid arguments for tool sum");
    expect(error.data.issues).toEqual(expect.arrayContaining(issues.map((issue) => expect.objectContaining(issue))));
    for (const issue of error.data.issues) expect(typeof issue.message).toBe("string");
    expect(runs).toEqual([]);
  });

  it("answers -32603 for structuredContent that does not match the outputSchema", async () => {
    const { app: served } = app();
    const r = await call(served, "tools/call", { name: "sum", arguments: { n: 13 } });
    const error = expectError(r.body, -32603);
    expect(error.message).toMatch(/does not match its outputSchema/);
    expect(error.data.issues).toEqual([{ message: expect.any(String), path: ["total"] }]);
  });

  it("reports a bounded number of issues for a large bad argument", async () => {
    const tool = defineTool({
      name: "strings",
      inputSchema: { type: "object", properties: { list: { type: "array", items: { type: "string" } } } },
      handler: () => "ok",
    });
    const served = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }));
    const r = await call(served, "tools/call", { name: "strings", arguments: { list: Array.from({ length: 20_000 }, (_, i) => i) } });
    const issues = expectError(r.body, -32602).data.issues;
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.length).toBeLessThanOrEqual(50);
    expect(issues[0].path).toEqual(["list", 0]);
  });

  it("prepares the schema at mount and checks it without generating code (new Function and eval are forbidden on Workers)", async () => {
    const realFunction = globalThis.Function;
    const realEval = globalThis.eval;
    const forbidden = () => {
      throw new Error("code generation");
    };
    try {
      globalThis.Function = new Proxy(realFunction, { construct: forbidden, apply: forbidden });
      globalThis.eval = forbidden as never;
      const { app: served } = app();
      const ok = await call(served, "tools/call", { name: "sum", arguments: { n: 3 } });
      expect(ok.body.result.structuredContent).toEqual({ total: 3 });
      expectError((await call(served, "tools/call", { name: "sum", arguments: { n: 0 } })).body, -32602);
    } finally {
      globalThis.Function = realFunction;
      globalThis.eval = realEval;
    }
  });
});

describe("a tool without inputSchema", () => {
  function bareApp() {
    const runs: unknown[] = [];
    const tool = defineTool({
      name: "whoami",
      handler: (_e, args) => {
        runs.push(args);
        return "you";
      },
    });
    return { app: appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] })), runs };
  }

  it("lists the empty object schema it enforces", async () => {
    const { app: served } = bareApp();
    const r = await call(served, "tools/list", {});
    expect(expectResult(r.body, S.listTools).tools[0].inputSchema).toEqual({ type: "object", additionalProperties: false });
  });

  it.each([
    ["absent arguments", undefined],
    ["an empty object", {}],
  ])("runs with %s", async (_what, args) => {
    const { app: served, runs } = bareApp();
    const r = await call(served, "tools/call", args === undefined ? { name: "whoami" } : { name: "whoami", arguments: args });
    expect(expectResult(r.body, S.callTool).content).toEqual([{ type: "text", text: "you" }]);
    expect(runs).toEqual([{}]);
  });

  it("refuses any argument with -32602 before the handler runs (2026-07-28)", async () => {
    const { app: served, runs } = bareApp();
    const r = await call(served, "tools/call", { name: "whoami", arguments: { foo: 1 } });
    expect(r.status).toBe(400);
    const error = expectError(r.body, -32602);
    expect(error.message).toBe("Invalid arguments for tool whoami");
    expect(error.data.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: ["foo"] })]));
    expect(runs).toEqual([]);
  });

  it("refuses any argument with -32602 before the handler runs (2025-11-25 session)", async () => {
    const { app: served, runs } = bareApp();
    const client = await legacyClient(served);
    const refused = await client.request("tools/call", { name: "whoami", arguments: { foo: 1 } });
    const error = expectError(refused.body, -32602);
    expect(error.message).toBe("Invalid arguments for tool whoami");
    expect(error.data.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: ["foo"] })]));
    const ran = await client.request("tools/call", { name: "whoami", arguments: {} });
    expect(ran.body.result.content).toEqual([{ type: "text", text: "you" }]);
    expect(runs).toEqual([{}]);
  });
});
