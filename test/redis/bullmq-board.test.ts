// Bull Board mounted on an h3 v2 app (examples/demo/bull-board.ts), over app.fetch against a real
// redis-server: behind the app's own guard, its page, its assets and its API answer, the queue's jobs show
// their task id and nothing of the input, and the board cannot change a job.
import { H3, HTTPError } from "h3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { mountBullBoard } from "../../examples/demo/bull-board.ts";
import { bullmqExecutor, type BullmqExecutor } from "../../src/tasks/bullmq/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";

let redis: RedisServer;
let executor: BullmqExecutor;
let app: H3;
beforeAll(async () => {
  redis = await startRedis();
  executor = bullmqExecutor({ url: redis.url, queueName: "board-runs" });
  app = new H3();
  mountBullBoard(app, {
    basePath: "/admin/queues",
    queues: [executor.queue],
    guard: (event) => {
      if (event.req.headers.get("authorization") !== "Bearer admin") throw new HTTPError({ status: 401, statusText: "Unauthorized" });
    },
  });
  await executor.start({ taskId: "task-a", name: "render", version: 1, input: { text: "kept-in-the-store" }, attempt: 1 });
});
afterAll(async () => {
  await executor?.close();
  await redis?.stop();
});

const get = (path: string, auth = true, init: RequestInit = {}) =>
  app.fetch(new Request(`http://localhost${path}`, { ...init, headers: auth ? { authorization: "Bearer admin" } : {} }));

it("refuses every board request the guard refuses", async () => {
  for (const path of ["/admin/queues", "/admin/queues/api/queues", "/admin/queues/static/favicon.ico"]) {
    expect((await get(path, false)).status, path).toBe(401);
  }
});

it("serves the page with its base path, and its assets", async () => {
  const page = await get("/admin/queues");
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  const html = await page.text();
  expect(html).toContain('<base href="/admin/queues/" />');
  expect(html).not.toMatch(/<%/);
  const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(html)![1]!;
  const asset = await get(`/admin/queues/${script}`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get("content-type")).toMatch(/javascript/);
  expect((await get("/admin/queues/static/%2e%2e/%2e%2e/package.json")).status).toBe(404);
});

it("lists the queue read-only, each job named after its run and carrying only its task id", async () => {
  const res = await get("/admin/queues/api/queues?activeQueue=board-runs&status=waiting&page=1");
  expect(res.status).toBe(200);
  const body = await res.json();
  const queue = body.queues.find((q: { name: string }) => q.name === "board-runs");
  expect(queue.readOnlyMode).toBe(true);
  expect(queue.counts.waiting).toBe(1);
  expect(queue.jobs.map((job: { id: string; name: string; data: unknown }) => [job.id, job.name, job.data])).toEqual([["task-a", "render", { taskId: "task-a" }]]);
  expect(JSON.stringify(body)).not.toContain("kept-in-the-store");
  const retry = await get("/admin/queues/api/queues/board-runs/task-a/retry", true, { method: "PUT" });
  expect(retry.status).toBeGreaterThanOrEqual(400);
  expect(await executor.queue.getJobState("task-a")).toBe("waiting");
});
