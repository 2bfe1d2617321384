// mcpOpenTelemetry() on Bun, Deno and workerd, each set up as docs/observability.md says ("Workers, Deno,
// Bun"): a real process serving examples/runtimes/otel.ts and exporting over OTLP/HTTP to a receiver in this
// test. Deno with its own OpenTelemetry (OTEL_DENO=true, no SDK from npm), Bun with the Node SDK, a Worker
// with a BasicTracerProvider whose exporter uses fetch, flushed in the request's waitUntil. On the wire: a
// tools/call's SERVER span and its parent from params._meta, the context following an await into the
// tool's own span, an error's status, and a task's run span linked to its creating call, ending with it.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { overHttp } from "../helpers/demo-process.ts";
import { latestPoints, startOtlpReceiver, toolCallAttributes, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver.ts";
import { call, TASKS } from "../helpers/wire.ts";
import { appProject, installedVersion } from "./app-project.ts";
import { launch, launchWorker, type Launched } from "./launch.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const INTERNAL = 1;
const SERVER = 2;
const ERROR = 2;
const caps = { extensions: { [TASKS]: {} } };
const parent = { meta: { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` } };

// Exports are batched (50 ms where the runtime reads OTEL_BSP_SCHEDULE_DELAY), and a loaded machine is slower.
const waitLong = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 15_000, interval: 50 });

/** The standard variables (the Worker gets them as vars, and reads the endpoint and the service name). */
const otelEnv = (receiver: OtlpReceiver, service: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_SERVICE_NAME: service,
  OTEL_BSP_SCHEDULE_DELAY: "50",
  OTEL_METRIC_EXPORT_INTERVAL: "300",
});

interface Runtime {
  name: string;
  start(receiver: OtlpReceiver, app: string): Promise<Launched>;
  /** Whether the runtime makes an HTTP server span of its own, which the request's span then links to. */
  httpSpan: boolean;
  /** Whether the setup exports metrics (the Worker's recipe registers no meter provider). */
  metrics: boolean;
}

const runtimes: Runtime[] = [
  {
    name: "deno",
    httpSpan: true,
    metrics: true,
    start: (receiver, app) => {
      const dirs = inject("smokeDirs");
      return launch("otel-deno", {
        command: inject("runtimes").deno,
        args: () => ["run", "--allow-net", "--allow-env", "--allow-read", "otel-deno.ts"],
        cwd: app,
        env: { DENO_NO_UPDATE_CHECK: "1", DENO_DIR: `${dirs.work}/deno-cache`, OTEL_DENO: "true", ...otelEnv(receiver, "otel-deno") },
        logDir: dirs.work,
      });
    },
  },
  {
    name: "bun",
    httpSpan: false,
    metrics: true,
    start: (receiver, app) =>
      launch("otel-bun", { command: inject("runtimes").bun, args: () => ["otel-bun.ts"], cwd: app, env: otelEnv(receiver, "otel-bun"), logDir: inject("smokeDirs").work }),
  },
  {
    name: "workerd",
    httpSpan: false,
    metrics: false,
    start: (receiver, app) =>
      launchWorker("otel-workerd", { script: "otel-worker.ts", app, work: inject("smokeDirs").work, ...inject("runtimes"), vars: otelEnv(receiver, "otel-workerd") }),
  },
];

describe("OpenTelemetry on Bun, Deno and workerd, exporting OTLP/HTTP", () => {
  const receivers = new Map<string, OtlpReceiver>();
  const servers = new Map<string, Promise<Launched>>();

  beforeAll(async () => {
    // A project of its own, installed while the other smokes run, so the setup they wait for stays as it was.
    const { root, work, tarball } = inject("smokeDirs");
    const app = path.join(work, "otel-app");
    const otel = ["api", "sdk-node", "sdk-trace-base", "exporter-trace-otlp-http", "core", "context-async-hooks", "resources"].map((p) => `@opentelemetry/${p}`);
    await appProject({ root, dir: app, tarball, dependencies: Object.fromEntries(otel.map((name) => [name, installedVersion(root, name)])) });
    for (const runtime of runtimes) {
      const receiver = await startOtlpReceiver();
      receivers.set(runtime.name, receiver);
      const started = runtime.start(receiver, app);
      started.catch(() => {}); // reported by that runtime's tests
      servers.set(runtime.name, started);
    }
    await Promise.allSettled(servers.values());
  }, 180_000);
  afterAll(async () => {
    await Promise.all([...servers.values()].map(async (s) => (await s.catch(() => undefined))?.stop()));
    await Promise.all([...receivers.values()].map((r) => r.close()));
  });

  describe.each(runtimes)("$name", (runtime) => {
    let server: Launched;
    let receiver: OtlpReceiver;
    beforeAll(async () => {
      server = await servers.get(runtime.name)!;
      receiver = receivers.get(runtime.name)!;
    });
    const app = () => overHttp(server.url.href) as never;
    const oneSpan = (name: string) =>
      waitLong(() => {
        const found = receiver.spans.filter((s) => s.name === name);
        expect(found.map((s) => s.name), `${name} among ${receiver.spans.map((s) => s.name).join(", ")}\n${server.log()}`).toHaveLength(1);
        return found[0]!;
      });

    it("sends a tools/call's SERVER span, its parent from params._meta, the tool's own span as its child past an await", async () => {
      const answer = await call(app(), "tools/call", { name: "echo", arguments: { text: "hi" } }, { id: "r-1", ...parent });
      expect(answer.body.result.content).toEqual([{ type: "text", text: "echo: hi" }]);
      const span = await oneSpan("tools/call echo");
      expect(span).toMatchObject({ service: `otel-${runtime.name}`, kind: SERVER, traceId: TRACE, parentSpanId: CLIENT_SPAN, status: { code: 0 } });
      // As on Node (test/otel/otlp-export.test.ts), but the two attributes only Node's request gives.
      expect(span.attributes).toMatchObject(toolCallAttributes("echo", "r-1", server.url));
      // The context followed the tool past `await sleep()`: its span is the request span's child.
      expect(await oneSpan("echo work")).toMatchObject({ traceId: TRACE, parentSpanId: span.spanId });
      if (runtime.httpSpan) {
        // MCP's context is the parent; the runtime's own HTTP server span, the ambient one, is a link.
        expect(span.links).toHaveLength(1);
        const http = receiver.spans.find((s) => s.spanId === span.links[0]!.spanId);
        expect(http).toMatchObject({ kind: SERVER, traceId: span.links[0]!.traceId, parentSpanId: "" });
      } else {
        expect(span.links).toEqual([]);
      }
    });

    it("marks a JSON-RPC error on its span", async () => {
      await call(app(), "tools/call", { name: "no_such_tool" });
      const span = await oneSpan("tools/call");
      expect(span.attributes).toMatchObject({ "error.type": "-32602", "rpc.response.status_code": "-32602" });
      expect(span.status).toEqual({ code: ERROR, message: "Unknown tool: no_such_tool" });
    });

    it("sends a task's run span, linked to the creating call's span, ending with the task, the run's own span its child", async () => {
      const created = (await call(app(), "tools/call", { name: "count_task", arguments: {} }, { caps, ...parent })).body.result;
      expect(created.status).toBe("working");
      // Polled to the end: on the Worker, the flush after a poll is what exports the ended run.
      await waitLong(async () => expect((await call(app(), "tasks/get", { taskId: created.taskId }, { caps })).body.result.status).toBe("completed"));
      const creating = await oneSpan("tools/call count_task");
      expect(creating).toMatchObject({ traceId: TRACE, parentSpanId: CLIENT_SPAN });
      expect(creating.attributes["mcp.task.id"]).toBe(created.taskId);
      const run = await oneSpan("execute_tool count_task");
      expect(run).toMatchObject({ kind: INTERNAL, parentSpanId: "", status: { code: 0 } });
      expect(run.traceId).not.toBe(TRACE);
      expect(run.links).toEqual([{ traceId: TRACE, spanId: creating.spanId }]);
      expect(run.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "count_task",
        "mcp.task.id": created.taskId,
        "mcp.task.status": "completed",
      });
      expect(run.events).toEqual([{ name: "mcp.task.status", attributes: { "mcp.task.status": "completed", "mcp.task.status_message": "Half way" } }]);
      expect(await oneSpan("count work")).toMatchObject({ traceId: run.traceId, parentSpanId: run.spanId });
      const polls: ReceivedSpan[] = receiver.spans.filter((s) => s.name === "tasks/get");
      expect(polls.length).toBeGreaterThan(0);
      for (const poll of polls) expect(poll.attributes["mcp.task.id"]).toBe(created.taskId);
      // Without a trace context in params._meta, the ambient context is the parent: the runtime's HTTP span, if it makes one.
      if (runtime.httpSpan) {
        await waitLong(() => {
          for (const poll of polls) expect(receiver.spans.find((s) => s.spanId === poll.parentSpanId)).toMatchObject({ kind: SERVER, traceId: poll.traceId });
        });
      } else {
        for (const poll of polls) expect(poll.parentSpanId).toBe("");
      }
    });

    if (runtime.metrics) it("exports the operation and task metrics", async () => {
      await waitLong(() => {
        const echo = latestPoints(receiver.metrics, "mcp.server.operation.duration").find((p) => p.attributes["gen_ai.tool.name"] === "echo");
        expect(echo?.count).toBe(1);
        const finished = latestPoints(receiver.metrics, "mcp.server.task.finished");
        expect(finished.map((p) => [p.attributes["mcp.task.status"], p.value])).toEqual([["completed", 1]]);
      });
    });
  });
});
