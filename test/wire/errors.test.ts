import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, definePrompt, defineTool, McpJsonRpcError, mcpProgress } from "../../src/index.ts";
import { coreApp } from "../fixtures/core-app.ts";
import { call, messages, modernRequest, rawRequest, V } from "../helpers/wire.ts";
import { expectError } from "../helpers/schemas.ts";

const { app } = coreApp({ maxBodySize: 1024 });

async function send(req: Request) {
  const res = await app.fetch(req);
  return { status: res.status, body: (await messages(res))[0] };
}

describe("JSON-RPC envelope errors", () => {
  it("answers -32700 with 400 for a body that is not JSON", async () => {
    const r = await send(rawRequest("{nope", { "mcp-protocol-version": V }));
    expect(r.status).toBe(400);
    expectError(r.body, -32700);
  });

  it.each([
    ["an array (batch)", "[]"],
    ["a string", '"x"'],
    ["a missing jsonrpc", JSON.stringify({ id: 1, method: "tools/list" })],
    ["a null id", JSON.stringify({ jsonrpc: "2.0", id: null, method: "tools/list" })],
    ["an object id", JSON.stringify({ jsonrpc: "2.0", id: {}, method: "tools/list" })],
    ["a numeric method", JSON.stringify({ jsonrpc: "2.0", id: 1, method: 5 })],
    ["array params", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: [] })],
  ])("answers -32600 with 400 for %s", async (_what, body) => {
    const r = await send(rawRequest(body, { "mcp-protocol-version": V }));
    expect(r.status).toBe(400);
    expectError(r.body, -32600);
  });

  it("accepts a notification with 202 and no body", async () => {
    const res = await app.fetch(modernRequest("notifications/cancelled", { requestId: 3 }, { id: null }));
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
  });

  it("answers 405 with a JSON-RPC body to GET and DELETE without a legacy session", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const res = await app.fetch(rawRequest("", {}, method));
      expect(res.status).toBe(405);
      expect((await res.json()).error.code).toBe(-32600);
    }
  });
});

describe("headers (-32020, 400)", () => {
  const cases: [string, Request][] = [
    ["missing MCP-Protocol-Version", modernRequest("tools/list", {}, { headers: { "mcp-protocol-version": null } })],
    ["MCP-Protocol-Version disagreeing with _meta", modernRequest("tools/list", {}, { headers: { "mcp-protocol-version": "2099-01-01" } })],
    ["missing Mcp-Method", modernRequest("tools/list", {}, { headers: { "mcp-method": null } })],
    ["Mcp-Method disagreeing with the body", modernRequest("tools/list", {}, { headers: { "mcp-method": "tools/call" } })],
    ["missing Mcp-Name on tools/call", modernRequest("tools/call", { name: "echo", arguments: { text: "a" } }, { headers: { "mcp-name": null } })],
    ["Mcp-Name disagreeing with params.name", modernRequest("tools/call", { name: "echo", arguments: { text: "a" } }, { headers: { "mcp-name": "other" } })],
    ["bad base64 in a sentinel", modernRequest("tools/call", { name: "echo", arguments: { text: "a" } }, { headers: { "mcp-name": "=?base64?!!!?=" } })],
    ["a missing Mcp-Param header for an x-mcp-header argument", modernRequest("tools/call", { name: "regional", arguments: { region: "eu" } })],
    ["a Mcp-Param header disagreeing with the argument", modernRequest("tools/call", { name: "regional", arguments: { region: "eu" } }, { headers: { "mcp-param-region": "us" } })],
    ["a non-numeric Mcp-Param for an integer", modernRequest("tools/call", { name: "regional", arguments: { region: "eu", count: 2 } }, { headers: { "mcp-param-region": "eu", "mcp-param-count": "two" } })],
  ];
  it.each(cases)("%s", async (_what, req) => {
    const r = await send(req);
    expect(r.status).toBe(400);
    const error = expectError(r.body, -32020);
    expect(error.data).toBeUndefined();
  });

  it("decodes =?base64?…?= values before comparing", async () => {
    const name = "=?base64?" + Buffer.from("echo").toString("base64") + "?=";
    const r = await call(app, "tools/call", { name: "echo", arguments: { text: "hi" } }, { headers: { "mcp-name": name } });
    expect(r.status).toBe(200);
    expect(r.body.result.content[0].text).toBe("hi");
  });

  it("accepts matching Mcp-Param headers, compares integers numerically and decodes non-ASCII values", async () => {
    const region = "Zürich";
    const r = await call(app, "tools/call", { name: "regional", arguments: { region, count: 2 } }, {
      headers: { "mcp-param-region": "=?base64?" + Buffer.from(region).toString("base64") + "?=", "mcp-param-count": "2.0" },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.content[0].text).toBe(`region ${region}`);
  });
});

describe("version and _meta", () => {
  it("answers -32022 with supported and requested for a version it does not serve", async () => {
    const r = await send(modernRequest("tools/list", {}, { meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" }, headers: { "mcp-protocol-version": "2099-01-01" } }));
    expect(r.status).toBe(400);
    const error = expectError(r.body, -32022);
    expect(error.data.requested).toBe("2099-01-01");
    expect(error.data.supported).toContain(V);
  });

  it.each(["io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"])(
    "answers -32602 with 400 when _meta lacks %s",
    async (key) => {
      const req = modernRequest("tools/list");
      const body = JSON.parse(await req.text());
      delete body.params._meta[key];
      const r = await send(new Request(req.url, { method: "POST", headers: req.headers, body: JSON.stringify(body) }));
      expect(r.status).toBe(400);
      expectError(r.body, -32602);
    },
  );

  it("answers -32602 for an invalid log level", async () => {
    const r = await call(app, "tools/call", { name: "echo", arguments: { text: "a" } }, { meta: { "io.modelcontextprotocol/logLevel": "loud" } });
    expectError(r.body, -32602);
  });
});

describe("methods", () => {
  it.each(["ping", "initialize/unknown", "tasks/result", "tasks/list", "tasks/get", "resources/subscribe", "logging/setLevel"])(
    "answers -32601 with 404 for %s",
    async (method) => {
      const r = await call(app, method, {});
      expect(r.status).toBe(404);
      expectError(r.body, -32601);
    },
  );
});

describe("Origin and Host (DNS rebinding)", () => {
  it("refuses a foreign Origin with 403 and a JSON-RPC body", async () => {
    const r = await send(modernRequest("tools/list", {}, { headers: { origin: "https://evil.example" } }));
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe(-32600);
  });

  it("refuses a foreign Host with 403", async () => {
    const r = await send(modernRequest("tools/list", {}, { headers: { host: "evil.example:3000" } }));
    expect(r.status).toBe(403);
  });

  it("accepts local origins and hosts with any port", async () => {
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080"]) {
      const r = await send(modernRequest("tools/list", {}, { headers: { origin, host: "127.0.0.1:3000" } }));
      expect(r.status).toBe(200);
    }
  });

  it("follows configured allow lists", async () => {
    const { app: open } = coreApp({ allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com"] });
    const ok = await open.fetch(modernRequest("tools/list", {}, { headers: { host: "mcp.example.com", origin: "https://app.example.com" } }));
    expect(ok.status).toBe(200);
    const bad = await open.fetch(modernRequest("tools/list", {}, { headers: { host: "localhost" } }));
    expect(bad.status).toBe(403);
  });
});

describe("body size limit", () => {
  it("answers 413 with a JSON-RPC error and keeps serving", async () => {
    const big = modernRequest("tools/call", { name: "echo", arguments: { text: "x".repeat(4096) } });
    const r = await send(big);
    expect(r.status).toBe(413);
    expectError(r.body, -32600);
    const after = await call(app, "tools/call", { name: "echo", arguments: { text: "still here" } });
    expect(after.body.result.content[0].text).toBe("still here");
  });

  it("counts a streamed body without Content-Length", async () => {
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode("x".repeat(200)));
        c.close();
      },
    });
    const req = new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-protocol-version": V },
      body: chunks,
      // @ts-expect-error Node's fetch needs duplex for a stream body
      duplex: "half",
    });
    const r = await send(req);
    expect(r.status).toBe(413);
  });
});

describe("answers that cannot be written as JSON", () => {
  // A value that is not JSON data is the server's fault: -32603, told to onError, and the answer still ends,
  // whether it leaves as JSON or as the last frame of a stream that already carried progress.
  const seen: unknown[] = [];
  const handler = defineMcpHandler(
    {
      name: "x",
      version: "1",
      prompts: [
        definePrompt({
          name: "bigint",
          handler: async (e) => {
            mcpProgress(e, 1);
            await new Promise((r) => setTimeout(r, 1));
            return { messages: [{ role: "user", content: { type: "text", text: "x" } }], extra: 1n } as never;
          },
        }),
      ],
      tools: [
        defineTool({
          name: "bigint_data",
          handler: (e) => {
            mcpProgress(e, 1);
            throw new McpJsonRpcError(-32602, "refused", { amount: 1n });
          },
        }),
      ],
    },
    { onError: (error) => seen.push(error) },
  );
  const served = new H3().all("/mcp", handler);

  it.each([
    ["as JSON", {}],
    ["as the last frame of a stream", { progressToken: "p" }],
  ])("ends a prompts/get whose result holds a BigInt with -32603, %s", async (_how, meta) => {
    seen.length = 0;
    const res = await served.fetch(modernRequest("prompts/get", { name: "bigint" }, { meta }));
    const msgs = await messages(res);
    expect(res.headers.get("content-type")).toContain("progressToken" in meta ? "text/event-stream" : "application/json");
    expectError(msgs.at(-1), -32603);
    expect(msgs.at(-1).error.message).toBe("Internal error");
    expect(seen).toHaveLength(1);
    expect(String(seen[0])).toMatch(/BigInt/);
  });

  it.each([
    ["as JSON", {}],
    ["as the last frame of a stream", { progressToken: "p" }],
  ])("sends a protocol error whose data is not JSON without its data, %s", async (_how, meta) => {
    const res = await served.fetch(modernRequest("tools/call", { name: "bigint_data" }, { meta }));
    const last = (await messages(res)).at(-1);
    expectError(last, -32602);
    expect(last.error).toEqual({ code: -32602, message: "refused" });
  });
});
