// A worker process that dies mid-task: a real demo process runs the task, is killed with SIGKILL, and another
// instance (in this process) sees the task fail with the lost-instance error within about two leases, and
// pushes that frame to a listen stream on it without anyone polling.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDemo } from "../../examples/demo/app.ts";
import { DEMO_LEASE_MS, DEMO_PREFIX } from "../../examples/demo/environment.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { startDemo, overHttp, type DemoProcess } from "../helpers/demo-process.ts";
import { expectShape, S } from "../helpers/schemas.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} } };
const SUB = "io.modelcontextprotocol/subscriptionId";
let redis: RedisServer;
let worker: DemoProcess;
let store: RedisTaskStore;
beforeAll(async () => {
  redis = await startRedis();
  worker = await startDemo({ REDIS_URL: redis.url, MCP_REQUEST_STATE_SECRET: "s" });
  store = redisTaskStore({ url: redis.url, prefix: DEMO_PREFIX, leaseMs: DEMO_LEASE_MS });
}, 60_000);
afterAll(async () => {
  await worker?.stop("SIGKILL");
  await store?.close();
  await redis?.stop();
});

it("fails the task of a killed worker on another instance, and tells its listeners", async () => {
  const { app: other, tasks } = createDemo({ store });
  const handle = (await call(overHttp(worker.url) as never, "tools/call", { name: "slow_compute", arguments: { seconds: 600, label: "doomed" } }, { caps })).body.result;
  expect(handle).toMatchObject({ resultType: "task", status: "working", statusMessage: "Computing doomed" });
  const { taskId } = handle;
  expect((await call(other, "tasks/get", { taskId }, { caps })).body.result.status).toBe("working");

  const sse = sseReader(await other.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "watch" })));
  try {
    expect((await sse.next()).params.notifications).toEqual({ taskIds: [taskId] });
    expect((await sse.next()).params).toMatchObject({ taskId, status: "working" });

    // While the worker lives, its task stays working: a lease and a half later nothing has changed.
    expect(await sse.quiet(DEMO_LEASE_MS * 1.5)).toBe(true);
    expect((await call(other, "tasks/get", { taskId }, { caps })).body.result.status).toBe("working");

    expect(await worker.stop("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
    // Nobody polls: the listening instance notices the lapsed lease by itself.
    const frame = await sse.next(DEMO_LEASE_MS * 2 + 2000);
    expectShape(S.taskNotification, frame);
    expect(frame.params).toMatchObject({
      taskId,
      status: "failed",
      error: { code: -32603, message: "The server instance running this task was lost" },
    });
    const { resultType, ...got } = (await call(other, "tasks/get", { taskId }, { caps })).body.result;
    expect(resultType).toBe("complete");
    expect(frame.params).toEqual({ ...got, _meta: { [SUB]: "watch" } });
    expect(await sse.quiet(200)).toBe(true);
  } finally {
    await sse.close();
  }
  expect(tasks.stats).toMatchObject({ localTasks: 0, listenedTasks: 0, listeners: 0, timer: false });
});
