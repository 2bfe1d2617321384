// A later attempt of a run found by name, claimed on another instance after the first one's instance was
// lost, behaves as the first attempt does, on a real redis-server: its result is checked against the
// outputSchema of the tool that created the task (with the first attempt's error), it goes through the
// plugins' wrapTaskRun with its attempt number (the OpenTelemetry plugin's run span included), and listen
// streams hear that it started.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineMcpPlugin, defineTool, type McpPlugin } from "../../src/index.ts";
import { mcpOpenTelemetry } from "../../src/otel/index.ts";
import type { JsonObject } from "../../src/protocol/types.ts";
import { defineTaskRun, mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { testSdk } from "../helpers/otel-sdk.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";
import { until, untilAborted, useRedisClusters } from "./cluster.ts";

const caps = { extensions: { [TASKS]: {} } };
const ATTEMPT = "io.github.h3-mcp/attempt";
const LEASE_MS = 300;
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const counted: JsonObject = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };

const clusters = useRedisClusters();

/** One wrapTaskRun call: where, for which task and tool, which attempt, and what `next()` gave or threw. */
interface Wrapped {
  who: string;
  taskId: string;
  tool: string;
  attempt: number | undefined;
  outcome?: unknown;
}

/**
 * One instance on the shared Redis: run `report` (its first attempts held here when `holds`), offered by two
 * tools, `strict` (an outputSchema wanting an integer `n`) and `loose` (none), and a plugin recording
 * every wrapTaskRun.
 */
function instance(prefix: string, who: string, wrapped: Wrapped[], holds = false, tracing?: McpPlugin) {
  const redis = clusters.redis;
  const store = clusters.closeAfter(redisTaskStore({ url: redis.url, secret: "later-attempts-secret", prefix, leaseMs: LEASE_MS }));
  const report = defineTaskRun({
    name: "report",
    maxAttempts: 2,
    async run(task, input: { n: unknown }) {
      if (holds && task.attempt === 1) await untilAborted(task.signal);
      return { content: [{ type: "text", text: `attempt ${task.attempt} in ${who}` }], structuredContent: { n: input.n } };
    },
  });
  const plugin = mcpTasks({ store, runs: [report] });
  const recorder = defineMcpPlugin({
    name: "recorder",
    async wrapTaskRun(task, next) {
      const entry: Wrapped = { who, taskId: task.taskId, tool: task.tool.name, attempt: task.attempt };
      wrapped.push(entry);
      try {
        const result = await next();
        entry.outcome = result.structuredContent;
        return result;
      } catch (error) {
        entry.outcome = (error as Error).message;
        throw error;
      }
    },
  });
  const tool = (name: string, outputSchema?: JsonObject) =>
    defineTool({
      name,
      execution: { taskSupport: "required" },
      inputSchema: { type: "object", properties: { n: {} } },
      ...(outputSchema && { outputSchema }),
      handler: (event, args) => mcpTask(event, { run: report, input: { n: args?.n } }),
    });
  const app = appFor(defineMcpHandler({ name: "later-attempts", version: "1", tools: [tool("strict", counted), tool("loose")] }, { plugins: [...(tracing ? [tracing] : []), recorder], extensionPlugins: [plugin] }));
  return {
    app,
    store,
    create: async (name: string, n: unknown, meta?: Record<string, unknown>) => {
      const { body } = await call(app, "tools/call", { name, arguments: { n } }, { caps, ...(meta && { meta }) });
      if (!body.result) throw new Error(JSON.stringify(body));
      return body.result;
    },
    get: async (taskId: string) => (await call(app, "tasks/get", { taskId }, { caps })).body.result,
    /** The instance is lost: its store closed (it claims nothing more) and its lease gone from Redis. */
    async lose() {
      await store.close();
      await redis.cli("DEL", store.leaseKey);
    },
  };
}

const prefixOf = () => `later-${randomUUID().slice(0, 8)}`;

/**
 * A task created on instance `a`, which holds its first attempt; once `a` is lost, `b` claims attempt 2.
 * `tracing` is installed on both, outermost.
 */
async function claimedElsewhere(tool: string, n: unknown, tracing?: McpPlugin, meta?: Record<string, unknown>) {
  const prefix = prefixOf();
  const wrapped: Wrapped[] = [];
  const a = instance(prefix, "a", wrapped, true, tracing);
  const b = instance(prefix, "b", wrapped, false, tracing);
  const { taskId } = await a.create(tool, n, meta);
  await until(() => wrapped.length === 1);
  return { a, b, wrapped, taskId };
}

describe("a later attempt behaves like the first", () => {
  it("fails a claimed attempt whose result breaks the tool's outputSchema with the first attempt's error", async () => {
    // The first attempt's verdict on the same result, where the task was created.
    const firstWrapped: Wrapped[] = [];
    const here = instance(prefixOf(), "here", firstWrapped);
    const first = await here.create("strict", "seven");
    await until(async () => (await here.get(first.taskId)).status === "failed");
    const firstError = (await here.get(first.taskId)).error;
    expect(firstError).toMatchObject({ code: -32603, message: "Tool strict returned structuredContent that does not match its outputSchema" });

    const { a, b, taskId } = await claimedElsewhere("strict", "seven");
    await a.lose();
    await until(async () => (await b.get(taskId)).status === "failed", 10_000, "attempt 2 failing");
    const failed = await b.get(taskId);
    expect(failed._meta[ATTEMPT]).toBe(2);
    expect(failed.error).toEqual(firstError);
  });

  it("checks each task against the tool that created it, when two tools offer one run", async () => {
    const { a, b, taskId } = await claimedElsewhere("loose", "seven");
    await a.lose();
    await until(async () => (await b.get(taskId)).status === "completed", 10_000, "attempt 2 completing");
    const done = await b.get(taskId);
    expect(done.result.structuredContent).toEqual({ n: "seven" });
    expect(done.result.content).toEqual([{ type: "text", text: "attempt 2 in b" }]);
  });

  it("runs a claimed attempt inside wrapTaskRun, with its attempt number and the creating tool", async () => {
    const { a, b, wrapped, taskId } = await claimedElsewhere("strict", 7);
    await a.lose();
    await until(async () => (await b.get(taskId)).status === "completed", 10_000, "attempt 2 completing");
    expect(wrapped[0]).toMatchObject({ who: "a", taskId, tool: "strict", attempt: 1 });
    expect(wrapped[1]).toEqual({ who: "b", taskId, tool: "strict", attempt: 2, outcome: { n: 7 } });
    expect(wrapped).toHaveLength(2);
  });

  it("gives a claimed attempt its own run span, with its number, linked to the call that created the task", async () => {
    const sdk = testSdk();
    const tracing = mcpOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
    const { a, b, taskId } = await claimedElsewhere("strict", 7, tracing, { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` });
    await a.lose();
    await until(async () => (await b.get(taskId)).status === "completed", 10_000, "attempt 2 completing");
    await until(() => sdk.spans().some((s) => s.name === "execute_tool strict"), 3000, "the run span ending");
    // Attempt 1's span went with its instance: the one ended is attempt 2's, on the instance that claimed it.
    const runs = sdk.spans().filter((s) => s.name === "execute_tool strict");
    expect(runs).toHaveLength(1);
    expect(runs[0]!.attributes).toMatchObject({ "mcp.task.id": taskId, "mcp.task.attempt": 2, "mcp.task.status": "completed" });
    const creating = sdk.spans().find((s) => s.name === "tools/call strict")!;
    expect(runs[0]!.links.map((l) => l.context.spanId)).toEqual([creating.spanContext().spanId]);
    expect(creating.spanContext().traceId).toBe(TRACE);
  });

  it("tells listen streams that the next attempt started, with its number, before the task ends", async () => {
    const { a, b, taskId } = await claimedElsewhere("strict", "seven");
    const sse = sseReader(await b.app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "watch" })));
    expect((await sse.next()).method).toBe("notifications/subscriptions/acknowledged");
    const frames: { status: string; attempt: unknown }[] = [];
    const read = async () => {
      const message = await sse.next(10_000);
      expect(message.method).toBe("notifications/tasks");
      frames.push({ status: message.params.status, attempt: message.params._meta[ATTEMPT] });
      expect(message.params._meta["io.modelcontextprotocol/subscriptionId"]).toBe("watch");
    };
    await read();
    await a.lose();
    await read();
    await read();
    expect(frames).toEqual([
      { status: "working", attempt: 1 },
      { status: "working", attempt: 2 },
      { status: "failed", attempt: 2 },
    ]);
    await sse.close();
  });
});
