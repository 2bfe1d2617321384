// The one smoke every runtime gets, over real HTTP against a real process serving examples/runtimes/mcp.ts
// (or the Nitro build): the official SDK client for discovery, a tool call, an MRTR round and a legacy
// session; raw requests for the task flows and the idle streams; every shape checked against the schemas
// published on npm.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { overHttp } from "../helpers/demo-process.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectResult, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest } from "../helpers/wire.ts";
import type { Launched } from "./launch.ts";

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
/** How long the idle streams stay open: twice Bun's default idle timeout. */
const IDLE_MS = 20_000;

export function describeRuntime(name: string, start: () => Promise<Launched>, tools = { echo: "echo" }) {
  describe.concurrent(name, () => {
    let server: Launched;
    beforeAll(async () => {
      server = await start();
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
    const post = async (method: string, params: Record<string, unknown> = {}): Promise<any> =>
      (await call(overHttp(server.url.href) as never, method, params, { caps })).body;

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
        return fetch(input, init);
      };
      const client = new Client(
        { name: `${name}-smoke`, version: "1.0.0" },
        { capabilities: { elicitation: {} }, versionNegotiation: { mode: version === V ? { pin: V } : "legacy" } },
      );
      client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { colour: "blue" } }));
      return { client, sent, transport: new StreamableHTTPClientTransport(server.url, { fetch: recording }) };
    }

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
      const listen = await overHttp(server.url.href).fetch(
        modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "listen-1" }),
      );
      expect(listen.status).toBe(200);
      const modern = sseReader(listen);
      expectShape(S.listenAck, await modern.next());

      // A raw legacy session: the SDK client would open (and reopen) the session's one GET stream itself.
      const legacy = await legacyClient(overHttp(server.url.href) as never);
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
