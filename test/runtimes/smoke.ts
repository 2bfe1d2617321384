// The one smoke every runtime gets, over real HTTP against a real process serving examples/runtimes/mcp.ts
// (or the Nitro build), protected by the authorization server the setup started: the challenge and the
// metadata, then with a token from it the official SDK client for discovery, a tool call, an MRTR round
// and a legacy session; raw requests for the task flows and the idle streams; every shape checked
// against the schemas published on npm.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { overHttp } from "../helpers/demo-process.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectResult, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest } from "../helpers/wire.ts";
import * as core from "@modelcontextprotocol/core";
import type { Launched } from "./launch.ts";

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
/** How long the idle streams stay open: twice Bun's default idle timeout. */
const IDLE_MS = 20_000;

export function describeRuntime(name: string, start: () => Promise<Launched>, tools = { echo: "echo" }) {
  describe.concurrent(name, () => {
    let server: Launched;
    let token: string;
    const authed = () => withToken(server.url.href, token);
    beforeAll(async () => {
      server = await start();
      token = await accessToken(server.url.href);
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
    const post = async (method: string, params: Record<string, unknown> = {}): Promise<any> =>
      (await call(authed(), method, params, { caps })).body;

    async function pollUntil(taskId: string, status: string): Promise<any> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const got = expectResult(await post("tasks/get", { taskId }), S.getTask);
        if (got.status === status) return got;
        expect(["working", "input_required"]).toContain(got.status);
        if (Date.now() > deadline) throw new Error(`task ${taskId} still ${got.status}, not ${status}\n${server.log()}`);
        await new Promise((r) => setTimeout(r, Math.min(got.pollIntervalMs, 250)));
      }
    }

    async function createTask(tool: string) {
      const answer = await post("tools/call", { name: tool, arguments: {} });
      expect(answer.error).toBeUndefined();
      const created = answer.result;
      expectShape(S.createTask, created);
      expect(created.status).toBe("working");
      return created.taskId as string;
    }

    function sdkClient(version: string) {
      const sent: any[] = [];
      const recording: typeof fetch = async (input, init) => {
        if (init?.body) sent.push(JSON.parse(String(init.body)));
        const headers = new Headers(init?.headers);
        headers.set("authorization", `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      };
      const client = new Client(
        { name: `${name}-smoke`, version: "1.0.0" },
        { capabilities: { elicitation: {} }, versionNegotiation: { mode: version === V ? { pin: V } : "legacy" } },
      );
      client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { colour: "blue" } }));
      return { client, sent, transport: new StreamableHTTPClientTransport(server.url, { fetch: recording }) };
    }

    it("refuses a request without a token with the 401 challenge, serves the metadata it names, and knows the caller of a token", async () => {
      const bare = await overHttp(server.url.href).fetch(modernRequest("tools/call", { name: "echo", arguments: { text: "x" } }));
      expect(bare.status).toBe(401);
      const metadataUrl = `${server.url.origin}/.well-known/oauth-protected-resource/mcp`;
      expect(bare.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}", scope="mcp"`);
      expect((await bare.json()).error.code).toBe(-32600);
      const metadata = await fetch(metadataUrl);
      expect(metadata.status).toBe(200);
      const document = await metadata.json();
      expectShape(core.OAuthProtectedResourceMetadataSchema as never, document);
      expect(document.resource).toBe(server.url.href);
      const refused = await overHttp(server.url.href).fetch(modernRequest("tools/list", {}, { headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } }));
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
      const who = await post("tools/call", { name: "whoami", arguments: {} });
      expect(who.result.content).toEqual([{ type: "text", text: inject("authServer").client.id }]);
    });

    it("discovers the server, calls a tool and finishes an MRTR round with requestState (SDK client, 2026-07-28)", async () => {
      const { client, sent, transport } = sdkClient(V);
      await client.connect(transport);
      try {
        expect(client.getProtocolEra()).toBe("modern");
        expectShape(S.discover, client.getDiscoverResult());
        expect(client.getServerCapabilities()?.extensions).toHaveProperty([TASKS]);

        const echoed = await client.callTool({ name: tools.echo, arguments: { text: "hi" } });
        expectShape(S.callTool, echoed);
        expect(echoed.content).toEqual([{ type: "text", text: "echo: hi" }]);

        const picked = await client.callTool({ name: "pick_colour", arguments: {} });
        expect(picked.content).toEqual([{ type: "text", text: 'colour blue, state {"step":"asked"}' }]);
        const rounds = sent.filter((m) => m.method === "tools/call" && m.params.name === "pick_colour");
        expect(rounds).toHaveLength(2);
        expect(typeof rounds[1].params.requestState).toBe("string");
        expect(rounds[1].params.inputResponses.colour).toEqual({ action: "accept", content: { colour: "blue" } });
      } finally {
        await client.close();
      }
    });

    it("runs a task whose run awaits timers after the response, polled to completion", async () => {
      const taskId = await createTask("slow_task");
      const done = await pollUntil(taskId, "completed");
      expect(done.result.content).toEqual([{ type: "text", text: "slow task done" }]);
    });

    it("parks a task in input_required and finishes it with tasks/update", async () => {
      const taskId = await createTask("ask_task");
      const parked = await pollUntil(taskId, "input_required");
      expect(Object.keys(parked.inputRequests)).toEqual(["go"]);
      const updated = await post("tasks/update", { taskId, inputResponses: { go: { action: "accept", content: { go: true } } } });
      expectResult(updated, S.updateTask);
      const done = await pollUntil(taskId, "completed");
      expect(done.result.content).toEqual([{ type: "text", text: "went on" }]);
    });

    it("cancels a working task", async () => {
      const taskId = await createTask("block_task");
      expectResult(await post("tasks/cancel", { taskId }), S.cancelTask);
      const cancelled = await pollUntil(taskId, "cancelled");
      expect(cancelled.result).toBeUndefined();
    });

    it(`keeps an idle listen stream and a legacy GET stream open for ${IDLE_MS / 1000} s with keep-alives, then delivers a frame`, async () => {
      const listen = await authed().fetch(
        modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "listen-1" }),
      );
      expect(listen.status).toBe(200);
      const modern = sseReader(listen);
      expectShape(S.listenAck, await modern.next());

      // A raw legacy session: the SDK client would open (and reopen) the session's one GET stream itself.
      const legacy = await legacyClient(authed());
      expect(legacy.initStatus).toBe(200);
      expectShape(S.initialize, legacy.initResult);
      const get = await legacy.get();
      expect(get.status).toBe(200);
      const old = sseReader(get);
      try {
        await new Promise((r) => setTimeout(r, IDLE_MS));
        for (const stream of [modern, old]) {
          expect(stream.ended).toBe(false);
          // The default keep-alive (every 5 s) beats the 10 s idle timeout: 3 comments at least in 20 s.
          expect(stream.comments).toBeGreaterThanOrEqual(3);
        }
        expectResult(await post("tools/call", { name: "announce", arguments: {} }), S.callTool);
        const changed = await modern.next(5000);
        expect(changed.method).toBe("notifications/tools/list_changed");
        expect(changed.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("listen-1");
        expect((await old.next(5000)).method).toBe("notifications/tools/list_changed");
      } finally {
        await modern.close();
        await old.close();
      }
    }, IDLE_MS + 30_000);

    it("serves a legacy client: initialize, then a tool call (SDK client, 2025-11-25)", async () => {
      const { client, sent, transport } = sdkClient("2025-11-25");
      await client.connect(transport);
      try {
        expect(sent[0].method).toBe("initialize");
        expect(transport.sessionId).toMatch(/^[\w-]{32}$/);
        expect(client.getServerVersion()?.name).toBeTruthy();
        const echoed = await client.callTool({ name: tools.echo, arguments: { text: "old" } });
        expectShape(S.callTool, echoed);
        expect(echoed.content).toEqual([{ type: "text", text: "echo: old" }]);
      } finally {
        await client.close();
      }
    });
  });
}

/** The server at `url` as a client holding `token` sees it: every request carries `Authorization: Bearer`. */
export function withToken(url: string, token: string): { fetch(request: Request): Promise<Response> } {
  return {
    fetch(request) {
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${token}`);
      return overHttp(url).fetch(new Request(request, { headers }));
    },
  };
}

/** A client_credentials token for `resource` (scope `mcp`) from the authorization server the setup started. */
export async function accessToken(resource: string): Promise<string> {
  const { issuer, client } = inject("authServer");
  const res = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}` },
    body: new URLSearchParams({ grant_type: "client_credentials", resource, scope: "mcp" }).toString(),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token for ${resource}: ${JSON.stringify(body)}`);
  return body.access_token;
}
