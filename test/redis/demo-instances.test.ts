// `REDIS_URL=… MCP_REQUEST_STATE_SECRET=… npm start` twice is one server: two real demo processes share tasks
// and finish each other's MRTR rounds, and each releases its Redis connections when stopped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemo, overHttp, type DemoProcess } from "../helpers/demo-process.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { call, TASKS } from "../helpers/wire.ts";
import { until } from "../helpers/wait.ts";
import { ownFields } from "../helpers/schemas.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
let redis: RedisServer;
let a: DemoProcess;
let b: DemoProcess;
beforeAll(async () => {
  redis = await startRedis();
  const env = { REDIS_URL: redis.url, MCP_REQUEST_STATE_SECRET: "demo-test-secret" };
  [a, b] = await Promise.all([startDemo(env), startDemo(env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop("SIGKILL"), b?.stop("SIGKILL")]);
  await redis?.stop();
});

const clients = (n: string) => Number(/connected_clients:(\d+)/.exec(n)![1]);

describe("two demo processes on one Redis", () => {
  it("say so when they start", () => {
    for (const d of [a, b]) expect(d.output()).toContain(`tasks in Redis at ${redis.url}, prefix "h3-mcp-demo"`);
  });

  it("serve one task from either process: created on one, progressing and answered through the other", async () => {
    const A = overHttp(a.url);
    const B = overHttp(b.url);
    const render = (await call(A as never, "tools/call", { name: "render", arguments: { frames: 2, msPerFrame: 20 } }, { caps })).body.result;
    expect(render).toMatchObject({ resultType: "task", status: "working" });
    const done = await until(async () => {
      const task = (await call(B as never, "tasks/get", { taskId: render.taskId }, { caps })).body.result;
      expect(task.status).toBe("completed");
      return task;
    });
    expect(done).toMatchObject({ statusMessage: "Frame 2/2", result: { content: [{ type: "text", text: "Rendered." }] } });

    const asked = (await call(B as never, "tools/call", { name: "delete_everything" }, { caps })).body.result;
    await until(async () => expect((await call(A as never, "tasks/get", { taskId: asked.taskId }, { caps })).body.result.status).toBe("input_required"));
    const ack = await call(A as never, "tasks/update", { taskId: asked.taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }, { caps });
    expect(ownFields(ack.body.result)).toEqual({ resultType: "complete" });
    await until(async () =>
      expect((await call(B as never, "tasks/get", { taskId: asked.taskId }, { caps })).body.result).toMatchObject({ status: "completed", result: { content: [{ text: "Deleted." }] } }),
    );
  });

  it("finish an MRTR round started on the other process: the requestState secret is shared", async () => {
    const name = "test_input_required_result_request_state";
    const first = (await call(overHttp(a.url) as never, "tools/call", { name }, { caps })).body.result;
    expect(first.resultType).toBe("input_required");
    const answer = { confirm: { action: "accept", content: { ok: true } } };
    const second = await call(overHttp(b.url) as never, "tools/call", { name, inputResponses: answer, requestState: first.requestState }, { caps });
    expect(second.body.result?.content?.[0].text, JSON.stringify(second.body)).toBe("state-ok: confirmed");
  });

  it("stop cleanly on SIGTERM and leave no Redis connection behind", async () => {
    const before = clients(await redis.cli("INFO", "clients"));
    expect(before).toBeGreaterThanOrEqual(5); // each demo: a command and a subscriber connection; plus this one
    expect(await Promise.all([a.stop(), b.stop()])).toEqual([{ code: 0, signal: null }, { code: 0, signal: null }]);
    await until(async () => expect(clients(await redis.cli("INFO", "clients"))).toBe(1));
    expect(await redis.cli("PUBSUB", "NUMSUB", "{h3-mcp-demo}:changes")).toBe("{h3-mcp-demo}:changes\n0");
  });
});
