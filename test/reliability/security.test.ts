// Every claim of docs/security.md, checked. Section titles match the document's.
import { H3, HTTPError } from "h3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit, mcpInput, mcpRequestState, mcpValidateElicitation, type McpHandlerConfig } from "../../src/index.ts";
import { mcpTask, mcpTasks, type McpTasksOptions } from "../../src/tasks/index.ts";
import { mcpAuth } from "../../src/auth/index.ts";
import { legacyClient, legacyRequest } from "../helpers/legacy.ts";
import { memoryStore } from "../helpers/memory-store.ts";
import { CALLER, modern, mountWithEscapeLog, sseMessages, TASKS } from "./support.ts";
import { ownFields } from "../helpers/schemas.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function taskApp(options: McpTasksOptions = {}, config: McpHandlerConfig = {}) {
  const tool = defineTool({ name: "job", handler: (e) => mcpTask(e, { run: () => new Promise(() => {}) }) });
  const plugin = mcpTasks(options);
  const handler = defineMcpHandler({ name: "sec", version: "1", tools: [tool] }, { extensionPlugins: [plugin], ...config });
  const { app } = mountWithEscapeLog(handler);
  const send = async (method: string, params: Record<string, unknown>, init: { caller?: string; headers?: Record<string, string> } = {}) => {
    const res = await app.fetch(modern(method, params, { caps, ...init }));
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
  };
  const create = async (init: { caller?: string } = {}) => (await send("tools/call", { name: "job" }, init)).body.result.taskId as string;
  return { app, plugin, handler, send, create };
}

describe("Task IDs", () => {
  it("are random v4 UUIDs (122 random bits), never repeated and not derived from each other", async () => {
    const { create } = taskApp({ max: 5000 });
    const ids = await Promise.all(Array.from({ length: 2000 }, () => create()));
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
    // Consecutive ids share no common prefix beyond chance (a counter or a clock would).
    const shared = ids.slice(1).filter((id, i) => id.slice(0, 6) === ids[i]!.slice(0, 6)).length;
    expect(shared).toBeLessThan(5);
  });

  it("are bearer handles without bind: whoever holds one can read, answer, cancel and listen", async () => {
    const { create, send } = taskApp();
    const taskId = await create({ caller: "alice" });
    expect((await send("tasks/get", { taskId }, { caller: "mallory" })).status).toBe(200);
    expect(ownFields((await send("tasks/cancel", { taskId }, { caller: "mallory" })).body.result)).toEqual({ resultType: "complete" });
    expect((await send("tasks/get", { taskId }, { caller: "alice" })).body.result.status).toBe("cancelled");
  });
});

describe("Legacy session ids", () => {
  it("are 32 random characters and bearer handles: any request that carries one is that session", async () => {
    const { app } = taskApp();
    const client = await legacyClient(app);
    expect(client.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const stranger = await app.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "mcp-session-id": client.sessionId, "mcp-protocol-version": "2025-11-25", [CALLER]: "mallory" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      }),
    );
    expect(stranger.status).toBe(200);
  });
});

describe("bind", () => {
  const bound = () => taskApp({ bind: (e) => e.req.headers.get(CALLER) });

  it("may refuse the h3 way: an HTTPError keeps its status and headers, with a JSON-RPC body that says what it is, and nothing happens", async () => {
    const { create, send, plugin } = taskApp({
      bind: (e) => {
        const caller = e.req.headers.get(CALLER);
        if (caller === "blocked") throw HTTPError.status(403);
        if (!caller) throw new HTTPError({ status: 401, message: "Sign in first", headers: { "www-authenticate": "Bearer" } });
        return caller;
      },
    });
    const taskId = await create({ caller: "alice" });
    for (const [method, params] of [["tools/call", { name: "job" }], ["tasks/get", { taskId }], ["tasks/cancel", { taskId }]] as const) {
      const anonymous = await send(method, params);
      expect([method, anonymous.status, anonymous.body.error]).toEqual([method, 401, { code: -32600, message: "Unauthenticated: Sign in first" }]);
      const blocked = await send(method, params, { caller: "blocked" });
      expect([method, blocked.status, blocked.body.error]).toEqual([method, 403, { code: -32600, message: "Forbidden" }]);
    }
    expect(memoryStore(plugin).size).toBe(1);
    expect((await send("tasks/get", { taskId }, { caller: "alice" })).body.result.status).toBe("working");
  });

  it("makes another caller's task read exactly like an unknown id, for every method", async () => {
    const { app, create, send } = bound();
    const taskId = await create({ caller: "alice" });
    for (const [method, extra] of [["tasks/get", {}], ["tasks/update", { inputResponses: {} }], ["tasks/cancel", {}]] as const) {
      const theirs = await send(method, { taskId, ...extra }, { caller: "mallory" });
      const none = await send(method, { taskId: "00000000-0000-4000-8000-000000000000", ...extra }, { caller: "mallory" });
      expect([theirs.status, theirs.text]).toEqual([none.status, none.text]);
    }
    const sse = sseMessages(await app.fetch(modern("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, caller: "mallory" })));
    expect((await sse.next()).params.notifications).toEqual({ taskIds: [] });
    await sse.close();
  });

  it("is recomputed on every request and compared by value: a value built fresh per request is the same owner", async () => {
    const { create, send } = taskApp({ bind: (e) => ({ user: e.req.headers.get(CALLER), org: "acme" }) });
    const taskId = await create({ caller: "alice" });
    expect((await send("tasks/get", { taskId }, { caller: "alice" })).body.result.status).toBe("working");
    expect((await send("tasks/get", { taskId }, { caller: "mallory" })).body.error).toEqual({ code: -32602, message: "Unknown task" });
  });

  it("must return a string or a JSON value: anything else refuses creation, and matches no task later", async () => {
    const reported: unknown[] = [];
    const { send } = taskApp({ bind: () => new Date(0) }, { onError: (error) => void reported.push(error) });
    const refused = await send("tools/call", { name: "job" }, { caller: "alice" });
    expect(refused.body.error).toEqual({ code: -32603, message: "Internal error" });
    expect(String(reported[0])).toBe("TypeError: bind must return a string or a JSON value (tasks are bound to it by its canonical JSON)");
    const { create, send: sendKeyed, plugin } = taskApp({ bind: (e) => (e.req.headers.get(CALLER) === "odd" ? Symbol("odd") : e.req.headers.get(CALLER)) });
    const taskId = await create({ caller: "alice" });
    expect((await sendKeyed("tasks/get", { taskId }, { caller: "odd" })).body.error).toEqual({ code: -32602, message: "Unknown task" });
    expect(memoryStore(plugin).size).toBe(1);
  });

  it("is only as strong as what it reads: a bind on a raw header is spoofed by sending that header", async () => {
    const { create, send } = bound();
    const taskId = await create({ caller: "alice" });
    expect((await send("tasks/get", { taskId }, { caller: "alice" })).status).toBe(200); // anyone can send x-caller: alice
  });

  it("that throws fails task creation and tasks/* alike with a generic -32603; only onError sees its message", async () => {
    let fail = false;
    const reported: unknown[] = [];
    const { create, send } = taskApp(
      {
        bind: () => {
          if (fail) throw new Error("lookup failed for secret-tenant-42");
          return "a";
        },
      },
      { onError: (error) => void reported.push(error) },
    );
    const taskId = await create();
    fail = true;
    const made = await send("tools/call", { name: "job" });
    expect(made.body.error).toEqual({ code: -32603, message: "Internal error" });
    expect(made.text).not.toContain("secret-tenant-42");
    const got = await send("tasks/get", { taskId });
    expect(got.body.error).toEqual({ code: -32603, message: "Internal error" });
    expect(reported.map((e) => (e as Error).message)).toEqual(["lookup failed for secret-tenant-42", "lookup failed for secret-tenant-42"]);
  });
});

describe("Origin and Host validation", () => {
  const discover = async (app: H3, headers: Record<string, string>) => (await app.fetch(modern("server/discover", {}, { headers }))).status;

  it("allows only localhost by default: other Host names and Origins get 403 before the body is read", async () => {
    const { app } = taskApp();
    expect(await discover(app, {})).toBe(200);
    expect(await discover(app, { host: "127.0.0.1:8080" })).toBe(200);
    expect(await discover(app, { host: "mcp.example.com" })).toBe(403);
    expect(await discover(app, { origin: "http://evil.example" })).toBe(403);
    expect(await discover(app, { origin: "http://localhost.evil.example" })).toBe(403);
    expect(await discover(app, { origin: "null" })).toBe(403);
    expect(await discover(app, { origin: "file://" })).toBe(403);
    const res = await app.fetch(new Request("http://localhost/mcp", { method: "POST", headers: { origin: "http://evil.example" }, body: "x".repeat(5 * 1024 * 1024) }));
    expect(res.status).toBe(403);
  });

  it("matches a host name entry on any scheme and port, and a full origin exactly", async () => {
    const { app } = taskApp({}, { allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com", "localhost"] });
    expect(await discover(app, { host: "mcp.example.com" })).toBe(200);
    expect(await discover(app, { host: "localhost" })).toBe(403);
    expect(await discover(app, { host: "mcp.example.com", origin: "https://app.example.com" })).toBe(200);
    expect(await discover(app, { host: "mcp.example.com", origin: "http://app.example.com" })).toBe(403);
    expect(await discover(app, { host: "mcp.example.com", origin: "http://localhost:9999" })).toBe(200);
  });

  it("is off with false", async () => {
    const { app } = taskApp({}, { allowedHosts: false, allowedOrigins: false });
    expect(await discover(app, { host: "anything.example", origin: "http://evil.example" })).toBe(200);
  });
});

describe("requestState", () => {
  afterEach(() => void vi.useRealTimers());
  const ask = mcpElicit({ message: "Sure?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } });
  function mrtrApp(config: McpHandlerConfig = {}) {
    let retries = 0;
    const tool = (name: string) =>
      defineTool({
        name,
        inputSchema: { type: "object", properties: { amount: { type: "number" } } },
        handler: (event) => {
          const input = mcpInput(event, { ok: ask });
          if (!input.complete) return input.ask({ state: { grant: "user-42", tool: name } });
          retries++;
          return JSON.stringify(mcpRequestState(event));
        },
      });
    const { app } = mountWithEscapeLog(defineMcpHandler({ name: "sec", version: "1", tools: [tool("pay"), tool("other")] }, config));
    const call = async (params: Record<string, unknown>) => {
      const res = await app.fetch(modern("tools/call", params, { caps }));
      return { status: res.status, body: (await res.json()) as any };
    };
    const answers = { ok: { action: "accept", content: { ok: true } } };
    const token = async (name = "pay", args: Record<string, unknown> = {}) =>
      (await call({ name, arguments: args })).body.result.requestState as string;
    return { call, token, answers, retries: () => retries };
  }

  it("is integrity-protected: a changed payload or signature is refused with -32602 before the tool runs", async () => {
    const { call, token, answers, retries } = mrtrApp();
    const t = await token();
    const [payload, mac] = t.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), s: { grant: "admin" } })).toString("base64url");
    for (const bad of [`${forged}.${mac}`, `${payload}.${mac.slice(0, -2)}AA`, `${payload}.`, payload, "", "x".repeat(70_000)]) {
      const r = await call({ name: "pay", arguments: {}, inputResponses: answers, requestState: bad });
      expect([r.status, r.body.error?.code]).toEqual([400, -32602]);
    }
    expect(retries()).toBe(0);
  });

  it("is never issued past 64 KiB, the size the server accepts back: a state too large fails where it is made", async () => {
    const big = defineTool({
      name: "big",
      handler: (event) => {
        const input = mcpInput(event, { ok: ask });
        return input.complete ? "done" : input.ask({ state: "x".repeat(50_000) });
      },
    });
    const { app } = mountWithEscapeLog(defineMcpHandler({ name: "sec", version: "1", tools: [big] }));
    const first = await (await app.fetch(modern("tools/call", { name: "big" }, { caps }))).json();
    expect(first.result.isError).toBe(true);
    expect(first.result.content[0].text).toMatch(/requestState would be \d+ characters/);
    const forged = { name: "big", inputResponses: { ok: { action: "accept", content: { ok: true } } }, requestState: "x".repeat(65_537) };
    expect((await (await app.fetch(modern("tools/call", forged, { caps }))).json()).error).toEqual({ code: -32602, message: "Invalid requestState" });
  });

  it("is bound to the method, the tool and its arguments", async () => {
    const { call, token, answers } = mrtrApp();
    const t = await token("pay", { amount: 1 });
    expect((await call({ name: "other", arguments: { amount: 1 }, inputResponses: answers, requestState: t })).body.error.message).toBe("requestState does not belong to this request");
    expect((await call({ name: "pay", arguments: { amount: 1000 }, inputResponses: answers, requestState: t })).body.error.code).toBe(-32602);
    expect((await call({ name: "pay", arguments: { amount: 1 }, inputResponses: answers, requestState: t })).body.result.content[0].text).toContain("user-42");
  });

  it("is signed, not encrypted: anyone holding the token reads the state", async () => {
    const { token } = mrtrApp();
    const payload = JSON.parse(Buffer.from((await token()).split(".")[0]!, "base64url").toString());
    expect(payload.s).toEqual({ grant: "user-42", tool: "pay" });
  });

  it("expires after ttlMs (default five minutes)", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2026, 6, 28));
    const { call, token, answers } = mrtrApp();
    const t = await token();
    vi.setSystemTime(Date.UTC(2026, 6, 28) + 5 * 60_000);
    expect((await call({ name: "pay", arguments: {}, inputResponses: answers, requestState: t })).status).toBe(200);
    vi.setSystemTime(Date.UTC(2026, 6, 28) + 5 * 60_000 + 1);
    expect((await call({ name: "pay", arguments: {}, inputResponses: answers, requestState: t })).body.error).toEqual({ code: -32602, message: "Expired requestState" });
  });

  it("is not single-use: the server keeps no record, so a token replays until it expires", async () => {
    const { call, token, answers, retries } = mrtrApp();
    const t = await token();
    for (let i = 0; i < 3; i++) expect((await call({ name: "pay", arguments: {}, inputResponses: answers, requestState: t })).status).toBe(200);
    expect(retries()).toBe(3);
  });

  it("is verified by another instance only when it shares the secret", async () => {
    const a = mrtrApp({ requestState: { secret: "s3cret" } });
    const b = mrtrApp({ requestState: { secret: "s3cret" } });
    const c = mrtrApp();
    const t = await a.token();
    expect((await b.call({ name: "pay", arguments: {}, inputResponses: a.answers, requestState: t })).status).toBe(200);
    expect((await c.call({ name: "pay", arguments: {}, inputResponses: a.answers, requestState: t })).body.error.message).toBe("Invalid requestState");
  });
});

describe("Size limits", () => {
  it("refuses a body over maxBodySize with 413, whether Content-Length declares it or it streams in", async () => {
    const { app } = taskApp({}, { maxBodySize: 1024 });
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { pad: "x".repeat(2000) } });
    const declared = await app.fetch(new Request("http://localhost/mcp", { method: "POST", headers: { "content-length": String(big.length) }, body: big }));
    expect(declared.status).toBe(413);
    const streamed = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    });
    const chunked = await app.fetch(new Request("http://localhost/mcp", { method: "POST", body: streamed, duplex: "half" } as RequestInit));
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).error.code).toBe(-32600);
  });

  it("caps tasks per store: without maxPerOwner one caller can take every slot", async () => {
    const { create, send } = taskApp({ max: 3, bind: (e) => e.req.headers.get(CALLER) });
    for (let i = 0; i < 3; i++) await create({ caller: "greedy" });
    const refused = await send("tools/call", { name: "job" }, { caller: "victim" });
    expect(refused.body.error).toMatchObject({ code: -32603, data: { max: 3 } });
    expect(refused.body.error.message).toMatch(/full/);
  });

  it("caps tasks per caller with maxPerOwner: the greedy caller is refused, naming the cap, and the others still get theirs", async () => {
    const { create, send } = taskApp({ max: 3, maxPerOwner: 2, bind: (e) => e.req.headers.get(CALLER) });
    for (let i = 0; i < 2; i++) await create({ caller: "greedy" });
    const refused = await send("tools/call", { name: "job" }, { caller: "greedy" });
    expect(refused.status).toBe(200);
    expect(refused.body.error).toEqual({
      code: -32603,
      message: "Too many tasks for this caller (2 tasks retained, the most one caller may hold); try again later",
      data: { maxPerOwner: 2 },
    });
    expect((await send("tools/call", { name: "job" }, { caller: "victim" })).body.result.resultType).toBe("task");
  });

  it("drops the least recently used legacy session past maxSessions", async () => {
    const app = mountWithEscapeLog(defineMcpHandler({ name: "sec", version: "1" }, { legacy: { maxSessions: 2 } })).app;
    const first = await legacyClient(app);
    await legacyClient(app);
    await legacyClient(app);
    expect((await first.request("ping")).status).toBe(404);
  });
});

describe("Untrusted client input", () => {
  it("answers are whatever the client sent: mcpValidateElicitation refuses content that does not match the schema", () => {
    const ask = mcpElicit({ message: "Amount?", requestedSchema: { type: "object", properties: { amount: { type: "number" } }, required: ["amount"] } });
    expect(mcpValidateElicitation(ask, { action: "accept", content: { amount: 5 } })).toEqual({ amount: 5 });
    expect(() => mcpValidateElicitation(ask, { action: "accept", content: { amount: "5; DROP TABLE" } as never })).toThrow(/Invalid answer/);
    expect(mcpValidateElicitation(ask, { action: "decline" })).toBeUndefined();
  });

  it("capabilities and client info are read from each request and claim nothing: any request may declare any of them", async () => {
    const seen: unknown[] = [];
    const tool = defineTool({ name: "who", handler: (e) => (seen.push(e.context.mcp!.clientInfo), "ok") });
    const { app } = mountWithEscapeLog(defineMcpHandler({ name: "sec", version: "1", tools: [tool] }));
    await app.fetch(modern("tools/call", { name: "who" }, { meta: { "io.modelcontextprotocol/clientInfo": { name: "Official Admin Console", version: "1" } } }));
    expect(seen).toEqual([{ name: "Official Admin Console", version: "1" }]);
  });
});

describe("What a deployment must add", () => {
  // A verifier of the app's own (a map of tokens): what the guard does with an identity, not how one is checked.
  const RESOURCE = "http://localhost/mcp";
  const people: Record<string, string> = { "t-alice": "alice", "t-bob": "bob" };
  const guarded = () =>
    mcpAuth({
      resource: RESOURCE,
      authorizationServers: ["https://auth.example"],
      verifier: (token) => (people[token] ? { issuer: "https://auth.example", subject: people[token], scopes: [], audience: [RESOURCE], claims: {} } : undefined),
    });
  const as = (token: string) => ({ authorization: `Bearer ${token}` });

  it("with auth, authenticates every request before anything runs and binds tasks to the caller without a bind", async () => {
    const { app, send } = taskApp({}, { auth: guarded() });
    const bare = await app.fetch(modern("tools/call", { name: "job" }, { caps }));
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toBe('Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"');
    const taskId = (await send("tools/call", { name: "job" }, { headers: as("t-alice") })).body.result.taskId;
    expect((await send("tasks/get", { taskId }, { headers: as("t-alice") })).status).toBe(200);
    expect((await send("tasks/get", { taskId }, { headers: as("t-bob") })).body.error).toMatchObject({ code: -32602, message: "Unknown task" });
  });

  it("with auth, keeps a legacy session to the caller that opened it", async () => {
    const handler = defineMcpHandler({ name: "sec", version: "1" }, { auth: guarded() });
    const { app } = mountWithEscapeLog(handler);
    const withToken = (token: string) => ({ fetch: (r: Request) => app.fetch(new Request(r, { headers: { ...Object.fromEntries(r.headers), ...as(token) } })) });
    const alice = await legacyClient(withToken("t-alice") as never);
    expect((await alice.request("ping")).status).toBe(200);
    const bob = await withToken("t-bob").fetch(legacyRequest({ id: 1, method: "ping" }, { "mcp-session-id": alice.sessionId }));
    expect(bob.status).toBe(404);
  });

  it("without auth, authenticates nobody: an h3 middleware in front refuses, and bind uses what it established", async () => {
    const tool = defineTool({ name: "job", handler: (e) => mcpTask(e, { run: () => new Promise(() => {}) }) });
    const handler = defineMcpHandler({ name: "sec", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks({ bind: (e) => e.context.user })] });
    const tokens: Record<string, string> = { "Bearer t-alice": "alice", "Bearer t-bob": "bob" };
    const app = new H3()
      .use((event) => {
        const user = tokens[event.req.headers.get("authorization") ?? ""];
        if (!user) return new Response(null, { status: 401, headers: { "www-authenticate": "Bearer" } });
        event.context.user = user;
      })
      .all("/mcp", handler);
    expect((await app.fetch(modern("server/discover"))).status).toBe(401);
    const made = await app.fetch(modern("tools/call", { name: "job" }, { caps, headers: { authorization: "Bearer t-alice" } }));
    const { taskId } = (await made.json()).result;
    expect((await app.fetch(modern("tasks/get", { taskId }, { caps, headers: { authorization: "Bearer t-alice" } }))).status).toBe(200);
    expect((await app.fetch(modern("tasks/get", { taskId }, { caps, headers: { authorization: "Bearer t-bob" } }))).status).toBe(400);
    // The same request without the middleware is served to anyone.
    const open = mountWithEscapeLog(defineMcpHandler({ name: "sec", version: "1", tools: [tool] })).app;
    expect((await open.fetch(modern("tools/list"))).status).toBe(200);
  });
});

declare module "h3" {
  interface H3EventContext {
    user?: string;
  }
}
