// Tasks in a Durable Object shared by two Worker processes under workerd, and kept through SIGKILLs.
// What local workerd offers for this: one `wrangler dev` process hosts the tasks object
// (examples/runtimes/worker-durable-object.ts, its state in a --persist-to folder) and a second one runs
// the same code with its binding pointed at the first by `script_name` (durable-object/wrangler.front.jsonc),
// reaching the object through wrangler's dev registry: two processes, two isolates, one object, as on
// Cloudflare. Two processes on one --persist-to folder is no option: the second workerd refuses to start
// (SQLITE_BUSY: the first holds the object's database), and two live copies of one object never exist on
// Cloudflare anyway.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { expectError, expectResult, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest, TASKS } from "../helpers/wire.ts";
import { launchWorker, type Launched } from "./launch.ts";
import { accessToken, withToken } from "./smoke.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
/** Both processes serve one deployment: one canonical URI for the tokens, as isolates behind one hostname. */
const RESOURCE = "https://tasks.example/mcp";
const LOST = { code: -32603, message: "The server instance running this task was lost" };

describe("a Durable Object task store shared by two Worker processes under workerd", () => {
  const { app, work } = inject("smokeDirs");
  const state = path.join(work, "do-shared-state");
  // The processes' own dev registry, so that no other wrangler on this machine answers for their Workers.
  const registry = path.join(work, "do-registry");
  let host: Launched;
  let front: Launched;
  let token: string;
  const launch = (role: "host" | "front", run: number) =>
    launchWorker(`workerd-do-${role}-${run}`, {
      script: "worker-durable-object.ts",
      config: role === "host" ? "wrangler-durable-object.jsonc" : "wrangler.front.jsonc",
      // The host's object state; the front's folder stays empty (its binding reaches the host's object).
      persistTo: role === "host" ? state : path.join(work, "do-front-state"),
      app,
      work,
      ...inject("runtimes"),
      env: { WRANGLER_REGISTRY_PATH: registry },
      vars: { MCP_TASKS_SECRET: "smoke-secret", MCP_AUTH_RESOURCE: RESOURCE },
    });
  const through = (server: Launched) => withToken(server.url.href, token);
  const post = async (server: Launched, method: string, params: Record<string, unknown>) => (await call(through(server), method, params, { caps })).body;
  const get = async (server: Launched, taskId: string) => expectResult(await post(server, "tasks/get", { taskId }), S.getTask);
  const create = async (server: Launched, tool: string) => {
    const created = await post(server, "tools/call", { name: tool, arguments: {} });
    expect(created.result?.resultType, JSON.stringify(created)).toBe("task");
    return created.result.taskId as string;
  };
  /** Reads the task through `server` until `done` says so, checking each status on the way is one of `along`. */
  const until = async (server: Launched, taskId: string, along: string[], done: (task: any) => boolean, ms = 15_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const task = await get(server, taskId);
      if (done(task)) return task;
      expect(along).toContain(task.status);
      if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status}\n${server.log().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  beforeAll(async () => {
    rmSync(state, { recursive: true, force: true });
    rmSync(registry, { recursive: true, force: true });
    mkdirSync(registry, { recursive: true });
    copyFileSync(path.join(here, "durable-object", "wrangler.front.jsonc"), path.join(app, "wrangler.front.jsonc"));
    host = await launch("host", 1);
    front = await launch("front", 1);
    token = await accessToken(RESOURCE);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([host?.stop(), front?.stop()]);
  });

  it("a task created through one process is listened to, read and answered through the other; its run goes on where it started", async () => {
    const taskId = await create(front, "ask_task");
    const listen = await through(host).fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "across" }));
    expect(listen.status).toBe(200);
    const stream = sseReader(listen);
    try {
      const statuses: string[] = [];
      const hear = async (status: string) => {
        while (statuses.at(-1) !== status) {
          const frame = await stream.next(15_000);
          if (frame.method === "notifications/tasks") statuses.push(frame.params.status);
        }
      };
      // The run in the front process asks; the host's stream hears it and the host reads the question.
      await hear("input_required");
      const asked = await get(host, taskId);
      expect(asked.status).toBe("input_required");
      const keys = Object.keys(asked.inputRequests);
      expect(keys).toHaveLength(1);
      // Answered through the host: the run in the front process resumes with the answer.
      const ack = await post(host, "tasks/update", { taskId, inputResponses: { [keys[0]!]: { action: "accept", content: { go: true } } } });
      expectResult(ack, S.updateTask);
      await hear("completed");
      expect(statuses.every((s) => ["working", "input_required", "completed"].includes(s))).toBe(true);
      const done = await get(front, taskId);
      expect(done.status).toBe("completed");
      expect(done.result.content).toEqual([{ type: "text", text: "went on" }]);
    } finally {
      await stream.close();
    }
  });

  it("a task created through one process is cancelled through the other", async () => {
    const taskId = await create(host, "block_task");
    expect((await get(front, taskId)).status).toBe("working");
    expectResult(await post(front, "tasks/cancel", { taskId }), S.cancelTask);
    expect((await get(host, taskId)).status).toBe("cancelled");
    expect((await get(front, taskId)).status).toBe("cancelled");
  });

  it("tasks outlive the SIGKILL of both processes: read again after the restart, finished ones as they were, the runs lost with them failed", async () => {
    const finished = await create(front, "slow_task");
    const before = await until(host, finished, ["working"], (t) => t.status === "completed");
    const asking = await create(host, "ask_task"); // its run lives in the host
    await until(front, asking, ["working"], (t) => t.status === "input_required");
    const blocked = await create(front, "block_task"); // its run lives in the front
    expect((await get(host, blocked)).status).toBe("working");

    await host.kill();
    // The object's process is gone: the other process answers at once that the store is unavailable.
    const refused = await call(through(front), "tasks/get", { taskId: finished }, { caps });
    expect(refused.status).toBe(503);
    expect(expectError(refused.body, -32603).message).toMatch(/^The task store is unavailable: the tasks Durable Object "h3-mcp" failed/);
    await front.kill();
    // wrangler removes a process's registry entry when it stops; a SIGKILLed one cannot, and the other side
    // would keep dialling the dead address. That is the local tool's discovery (Cloudflare has its own).
    rmSync(registry, { recursive: true, force: true });
    mkdirSync(registry, { recursive: true });
    [host, front] = await Promise.all([launch("host", 2), launch("front", 2)]);

    for (const server of [host, front]) {
      const { _meta, ...again } = await get(server, finished);
      const { _meta: _before, ...was } = before;
      expect(again).toEqual(was);
    }
    // Their runs died with the processes: once the dead instances' leases lapse, the next read fails them.
    for (const [taskId, status] of [[asking, "input_required"], [blocked, "working"]] as const) {
      for (const server of [front, host]) {
        const failed = await until(server, taskId, [status], (t) => t.status === "failed", 40_000);
        expect(failed.error).toEqual(LOST);
      }
    }
  }, 180_000);
});
