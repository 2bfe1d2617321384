// Two demo processes sharing a real redis-server, both exporting OTLP to one receiver: a task created on
// one and answered through the other is one run span, on the instance running it, linked to its creating
// span, with the answer given elsewhere among its events; the answering request's span names the task.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { overHttp, startDemo, type DemoProcess } from "../helpers/demo-process.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp-receiver.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { call, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const waitLong = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 15_000, interval: 50 });

let redis: RedisServer;
let receiver: OtlpReceiver;
let a: DemoProcess;
let b: DemoProcess;
beforeAll(async () => {
  [redis, receiver] = await Promise.all([startRedis(), startOtlpReceiver()]);
  const env = (name: string) => ({
    REDIS_URL: redis.url,
    MCP_REQUEST_STATE_SECRET: "otel-test-secret",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRIC_EXPORT_INTERVAL: "300",
    OTEL_SERVICE_NAME: name,
  });
  [a, b] = await Promise.all([startDemo(env("demo-a")), startDemo(env("demo-b"))]);
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await receiver?.close();
  await redis?.stop();
});

describe("two demos on one Redis, traced", () => {
  it("keep a task's run span on the instance running it, linked to its creating span, answered through the other", async () => {
    const A = overHttp(a.url) as never;
    const B = overHttp(b.url) as never;
    const asked = (await call(A, "tools/call", { name: "delete_everything" }, { caps, meta: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } })).body.result;
    const key = await waitLong(async () => {
      const task = (await call(B, "tasks/get", { taskId: asked.taskId }, { caps })).body.result;
      expect(task.status).toBe("input_required");
      return Object.keys(task.inputRequests)[0]!;
    });
    await call(B, "tasks/update", { taskId: asked.taskId, inputResponses: { [key]: { action: "accept", content: { confirm: true } } } }, { caps });
    const run = await waitLong(() => {
      const found = receiver.spans.filter((s) => s.name === "execute_tool delete_everything");
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    await waitLong(() => expect(receiver.spans.some((s) => s.name === "tasks/update")).toBe(true));
    const creating = receiver.spans.find((s) => s.name === "tools/call delete_everything")!;
    expect(creating.service).toBe("demo-a");
    expect(run.service).toBe("demo-a");
    expect(run.links).toEqual([{ traceId: TRACE, spanId: creating.spanId }]);
    expect(run.events.map((e) => e.attributes["mcp.task.status"]).filter(Boolean)).toEqual(["input_required", "working", "completed"]);
    const update = await waitLong(() => receiver.spans.find((s) => s.name === "tasks/update")!);
    expect(update).toMatchObject({ service: "demo-b", attributes: { "mcp.task.id": asked.taskId } });
    expect(receiver.spans.filter((s) => s.name === "tasks/get").every((s) => s.service === "demo-b" && s.attributes["mcp.task.id"] === asked.taskId)).toBe(true);
  });
});
