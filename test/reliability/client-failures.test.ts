// What a client does wrong with its body, over a real HTTP server and real sockets: a client that hangs up
// mid-body is its own doing (never an onError, a plugin's clientError is told), and a body that does not
// arrive within bodyTimeoutMs is answered 408 and its connection closed, instead of holding it forever.
import net from "node:net";
import { H3 } from "h3";
import { afterEach, describe, expect, it } from "vitest";
import { defineMcpHandler, defineMcpPlugin, defineTool, type McpClientFailure } from "../../src/index.ts";
import { modernRequest } from "../helpers/wire.ts";
import { useServedApp } from "../helpers/serve.ts";
import { until } from "../redis/cluster.ts";

const errors: unknown[] = [];
const failures: McpClientFailure["reason"][] = [];
const listener = defineMcpPlugin({ name: "client-failures", clientError: (failure) => void failures.push(failure.reason) });
const echo = defineTool({ name: "echo", handler: () => "hello" });
const handlerConfig = { plugins: [listener], onError: (error: unknown) => void errors.push(error) };
const app = new H3()
  .all("/mcp", defineMcpHandler({ name: "t", version: "1", tools: [echo] }, handlerConfig))
  .all("/slow", defineMcpHandler({ name: "t", version: "1", tools: [echo] }, { ...handlerConfig, bodyTimeoutMs: 300 }));
const served = useServedApp(app);

afterEach(() => {
  errors.length = 0;
  failures.length = 0;
});

/** A request's head and the start of its body, as one raw HTTP/1.1 message. */
function head(path: string, headers: Record<string, string>): string {
  const lines = Object.entries({ host: "localhost", "content-type": "application/json", accept: "application/json, text/event-stream", ...headers });
  return `POST ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n`;
}

/** A raw socket to the server: what it received, and whether the server closed it. */
async function connect() {
  const socket = net.connect(Number(served.url().port), "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const state = { received: "", closed: false };
  socket.on("data", (chunk) => (state.received += chunk.toString("utf8")));
  socket.on("close", () => (state.closed = true));
  socket.on("error", () => {});
  return { socket, state };
}

/** The JSON body of a raw HTTP/1.1 response with a Content-Length. */
function bodyOf(raw: string): any {
  return JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));
}

async function echoWorks(): Promise<void> {
  const res = await fetch(served.url(), modernRequest("tools/call", { name: "echo" }));
  expect(res.status).toBe(200);
  expect((await res.json()).result.content).toEqual([{ type: "text", text: "hello" }]);
}

describe("a client that hangs up mid-body", () => {
  it("is its own doing: no onError, the plugins' clientError hears 'gone', and the server serves on", async () => {
    const { socket } = await connect();
    socket.write(head("/mcp", { "content-length": "1000" }) + '{"jsonrpc":');
    // The handler has started reading the body before the client leaves.
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await until(() => failures.length > 0, 3000, "clientError hearing of the hang-up");
    expect(failures).toEqual(["gone"]);
    expect(errors).toEqual([]);
    await echoWorks();
  });

  it("is the same for a streamed (chunked) body", async () => {
    const { socket } = await connect();
    socket.write(head("/mcp", { "transfer-encoding": "chunked" }) + "5\r\n{\"jso\r\n");
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await until(() => failures.length > 0, 3000, "clientError hearing of the hang-up");
    expect(failures).toEqual(["gone"]);
    expect(errors).toEqual([]);
  });
});

describe("a body slower than bodyTimeoutMs", () => {
  it("Content-Length 1000, 10 bytes, then nothing: answered 408 with a JSON-RPC error, the connection closed", async () => {
    const { socket, state } = await connect();
    socket.write(head("/slow", { "content-length": "1000" }) + "0123456789");
    await until(() => state.closed, 10_000, "the server answering and closing the connection");
    expect(state.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(state.received.toLowerCase()).toContain("connection: close");
    expect(bodyOf(state.received)).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: "Request body did not arrive within 300 ms" } });
    expect(failures).toEqual(["body_timeout"]);
    expect(errors).toEqual([]);
    socket.destroy();
  });

  it("a chunked body that stops coming: 408 as well", async () => {
    const { socket, state } = await connect();
    socket.write(head("/slow", { "transfer-encoding": "chunked" }) + "5\r\n{\"jso\r\n");
    await until(() => state.closed, 10_000, "the server answering and closing the connection");
    expect(state.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(state.received).error.code).toBe(-32600);
    expect(failures).toEqual(["body_timeout"]);
    expect(errors).toEqual([]);
    socket.destroy();
  });

  it("a body sent in pieces that arrives whole in time is served as usual", async () => {
    const request = modernRequest("tools/call", { name: "echo" });
    const body = await request.text();
    const headers = Object.fromEntries(request.headers);
    const { socket, state } = await connect();
    const bytes = Buffer.from(body);
    socket.write(head("/slow", { ...headers, "content-length": String(bytes.length), connection: "close" }));
    socket.write(bytes.subarray(0, 10));
    await new Promise((r) => setTimeout(r, 30));
    socket.write(bytes.subarray(10));
    await until(() => state.closed, 10_000, "the answer");
    expect(state.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(bodyOf(state.received).result.content).toEqual([{ type: "text", text: "hello" }]);
    expect(failures).toEqual([]);
  });

  it("bodyTimeoutMs must be at least 1 ms (or Infinity for none)", () => {
    for (const bad of [0, -1, Number.NaN]) {
      expect(() => defineMcpHandler({ name: "t", version: "1" }, { bodyTimeoutMs: bad })).toThrow(/bodyTimeoutMs must be a number of milliseconds >= 1/);
    }
    expect(() => defineMcpHandler({ name: "t", version: "1" }, { bodyTimeoutMs: Infinity })).not.toThrow();
  });
});

describe("a body read that fails by the server's own doing", () => {
  it("still reaches onError: a middleware that consumed the body first is a bug to see", async () => {
    const mcp = defineMcpHandler({ name: "t", version: "1", tools: [echo] }, handlerConfig);
    const consumed = new H3()
      .use(async (event) => {
        await event.req.text();
      })
      .all("/mcp", mcp);
    const res = await consumed.fetch(modernRequest("tools/call", { name: "echo" }));
    expect(res.status).toBe(200);
    expect((await res.json()).error.code).toBe(-32603);
    expect(errors).toHaveLength(1);
    expect(failures).toEqual([]);
  });
});
