// Run spans of a run found by name whose attempt leaves an instance with the task still going, on a real
// redis-server with several instances in this process, each traced into its own OpenTelemetry SDK
// (in-memory exporter and metric reader): a drain's hand-off ends the first attempt's span there, saying
// so, not as an error, and the next attempt's span on the other instance ends with the task; a fenced
// attempt (its instance's lease gone) ends its span as an error naming the fence. Either way the leaving
// instance counts no task active any more, and none finished.
import { randomUUID } from "node:crypto";
import { SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { mcpOpenTelemetry } from "../../src/otel/index.ts";
import { defineTaskRun, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { testSdk, type TestSdk } from "../helpers/otel-sdk.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";
import { until, untilAborted, useRedisClusters } from "./cluster.ts";

const caps = { extensions: { [TASKS]: {} } };
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const traceparent = `00-${TRACE}-00f067aa0ba902b7-01`;
const LEASE_MS = 300;
const RUN_SPAN = "execute_tool steps";

const servers = useRedisClusters();

/**
 * Two steps, a checkpoint after each; on instance `who`'s attempt 1 (when `stalls`), the second step waits
 * for the attempt's signal and rejects with its reason, as a run that honours it does.
 */
function stepsRun(who: string, attempts: string[], stalls: boolean) {
  return defineTaskRun({
    name: "steps",
    maxAttempts: 3,
    async run(task) {
      attempts.push(`${who}:${task.attempt}`);
      const from = (task.checkpoint as { done: number } | undefined)?.done ?? 0;
      for (let done = from; done < 2; done++) {
        if (stalls && done === 1 && task.attempt === 1) await untilAborted(task.signal);
        await task.saveCheckpoint({ done: done + 1 });
      }
      return { content: [], structuredContent: { attempt: task.attempt, resumedFrom: from } };
    },
  });
}

/** One instance on the shared Redis serving the steps run, traced into an SDK of its own. */
function instance(prefix: string, who: string, attempts: string[], stalls = false) {
  const store = servers.closeAfter(redisTaskStore({ url: servers.redis.url, secret: "otel-attempts-secret", prefix, leaseMs: LEASE_MS }));
  const sdk = testSdk();
  const run = stepsRun(who, attempts, stalls);
  const tasks = mcpTasks({ store, runs: [run] });
  const tool = defineTool({ name: "steps", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run, input: {} }) });
  const otel = mcpOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
  const app = appFor(defineMcpHandler({ name: "otel-attempts", version: "1", tools: [tool] }, { plugins: [otel], extensionPlugins: [tasks] }));
  return {
    sdk,
    tasks,
    store,
    create: async () => (await call(app, "tools/call", { name: "steps" }, { caps, meta: { traceparent } })).body.result as { taskId: string },
    get: async (taskId: string) => (await call(app, "tasks/get", { taskId }, { caps })).body.result,
    /** The instance is lost to the others: its lease is gone from Redis (as after a stall past it). */
    lose: () => servers.redis.cli("DEL", store.leaseKey),
    /** The run spans this instance ended, by attempt. */
    runSpans: () => new Map(sdk.spans().filter((s) => s.name === RUN_SPAN).map((s) => [s.attributes["mcp.task.attempt"], s])),
    creatingSpan: () => sdk.spans().find((s) => s.name === "tools/call steps"),
  };
}

/** The sum of a metric's points matching `match`; 0 for a metric nothing was recorded to. */
async function sum(sdk: TestSdk, name: string, match: Record<string, unknown> = {}): Promise<number> {
  const metric = (await sdk.metrics()).scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  const points = (metric?.dataPoints ?? []) as { attributes: Record<string, unknown>; value: number }[];
  return points.filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v)).reduce((n, p) => n + p.value, 0);
}

const eventsOf = (span: ReadableSpan) => span.events.map((e) => [e.name, e.attributes?.["mcp.task.leave.reason"] ?? e.attributes?.["mcp.task.status"]]);
const linkOf = (span: ReadableSpan) => span.links.map((l) => l.context.spanId);

describe("run spans of an attempt leaving its instance", () => {
  it("end on a drain's hand-off, not as an error, and the next attempt's span on the other instance ends with the task", async () => {
    const prefix = `otel-attempts-${randomUUID().slice(0, 8)}`;
    const attempts: string[] = [];
    const a = instance(prefix, "a", attempts, true);
    const { taskId } = await a.create();
    await until(() => attempts.length === 1, 5000, "attempt 1 on a");
    expect(await sum(a.sdk, "mcp.server.task.active")).toBe(1);
    const b = instance(prefix, "b", attempts);

    expect(await a.tasks.drain({ deadlineMs: 0 })).toEqual({ finished: 0, handedOff: 1, failed: 0, fenced: 0 });
    await until(async () => (await b.get(taskId)).status === "completed", 10_000, "attempt 2 finishing on b");
    expect(attempts).toEqual(["a:1", "b:2"]);

    const creating = a.creatingSpan()!.spanContext().spanId;
    const first = a.runSpans().get(1);
    expect(first, "attempt 1's span ended on a").toBeDefined();
    expect(first!.attributes).toMatchObject({ "mcp.task.id": taskId, "mcp.task.attempt": 1, "mcp.task.leave.reason": "handed_off" });
    expect(first!.attributes["mcp.task.status"]).toBeUndefined();
    expect(first!.status.code).toBe(SpanStatusCode.UNSET);
    expect(first!.attributes["error.type"]).toBeUndefined();
    expect(eventsOf(first!)).toEqual([["mcp.task.left", "handed_off"]]);
    expect(first!.events[0]!.attributes).toMatchObject({ "mcp.task.status": "working" });
    expect(linkOf(first!)).toEqual([creating]);

    await until(() => b.runSpans().has(2), 5000, "attempt 2's span ending on b");
    const second = b.runSpans().get(2)!;
    expect(second.attributes).toMatchObject({ "mcp.task.id": taskId, "mcp.task.attempt": 2, "mcp.task.status": "completed" });
    expect(second.attributes["mcp.task.leave.reason"]).toBeUndefined();
    expect(second.status.code).toBe(SpanStatusCode.UNSET);
    expect(eventsOf(second)).toEqual([["mcp.task.status", "completed"]]);
    // Both attempts link to the call that created the task, through the trace context it carries.
    expect(linkOf(second)).toEqual([creating]);
    expect([...a.runSpans().keys(), ...b.runSpans().keys()]).toEqual([1, 2]);

    // a counts the task created and no longer active, but not finished: it finished on b.
    expect(await sum(a.sdk, "mcp.server.task.active")).toBe(0);
    expect(await sum(a.sdk, "mcp.server.task.created")).toBe(1);
    expect(await sum(a.sdk, "mcp.server.task.finished")).toBe(0);
    expect(await sum(b.sdk, "mcp.server.task.active")).toBe(0);
    expect(await sum(b.sdk, "mcp.server.task.created")).toBe(0);
    expect(await sum(b.sdk, "mcp.server.task.finished", { "mcp.task.status": "completed" })).toBe(1);
  });

  it("end a fenced attempt's span as an error naming the fence, counting the task no longer active there", async () => {
    const prefix = `otel-attempts-${randomUUID().slice(0, 8)}`;
    const attempts: string[] = [];
    const a = instance(prefix, "a", attempts, true);
    const { taskId } = await a.create();
    await until(() => attempts.length === 1, 5000, "attempt 1 on a");
    const b = instance(prefix, "b", attempts);

    // a lives on and finds its lease gone: its attempt is fenced, and an instance serving the run (b, or a
    // itself with a new lease) claims attempt 2, which does not stall.
    await a.lose();
    await until(() => a.runSpans().has(1), 5000, "attempt 1's span ending on a");
    const fenced = a.runSpans().get(1)!;
    expect(fenced.attributes).toMatchObject({ "mcp.task.id": taskId, "mcp.task.attempt": 1, "mcp.task.leave.reason": "fenced", "error.type": "fenced" });
    expect(fenced.attributes["mcp.task.status"]).toBeUndefined();
    expect(fenced.status.code).toBe(SpanStatusCode.ERROR);
    expect(eventsOf(fenced)).toEqual([["mcp.task.left", "fenced"]]);

    await until(async () => (await b.get(taskId)).status === "completed", 10_000, "attempt 2 finishing");
    expect(attempts.slice(1)).toEqual([expect.stringMatching(/^[ab]:2$/)]);
    const holder = attempts[1]!.startsWith("a") ? a : b;
    await until(() => holder.runSpans().has(2), 5000, "attempt 2's span ending");
    expect(holder.runSpans().get(2)!.attributes).toMatchObject({ "mcp.task.attempt": 2, "mcp.task.status": "completed" });
    // The fenced attempt's span ended once, whatever its run did after its signal aborted.
    expect(a.sdk.spans().filter((s) => s.name === RUN_SPAN && s.attributes["mcp.task.attempt"] === 1)).toHaveLength(1);

    for (const sdk of [a.sdk, b.sdk]) expect(await sum(sdk, "mcp.server.task.active")).toBe(0);
    expect((await sum(a.sdk, "mcp.server.task.finished")) + (await sum(b.sdk, "mcp.server.task.finished"))).toBe(1);
  });
});
