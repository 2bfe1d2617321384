// The demo with OTEL_EXPORTER_OTLP_ENDPOINT set, as a real process exporting over OTLP/HTTP to a receiver
// in this test, in both protocols: span names, kinds, parents, links, attributes, events and metric points
// as they arrive on the wire.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { overHttp, startDemo, type DemoProcess } from "../helpers/demo-process.ts";
import { latestPoints, startOtlpReceiver, toolCallAttributes, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver.ts";
import { call, modernRequest, TASKS } from "../helpers/wire.ts";

// Reports each OpenTelemetry module the demo process resolves (test/helpers/report-otel-modules.mjs).
const REPORT_MODULES = { NODE_OPTIONS: `--import=${fileURLToPath(new URL("../helpers/report-otel-modules.mjs", import.meta.url))}` };

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const SERVER = 2;
const INTERNAL = 1;
const ERROR = 2;

// Exports are batched (50 ms for spans, 300 ms for metrics here), and a loaded machine is slower.
const waitLong = <T>(check: () => T | Promise<T>) => vi.waitFor(check, { timeout: 15_000, interval: 50 });

describe.each(["http/json", "http/protobuf"])("the demo exporting OTLP over %s", (protocol) => {
  let receiver: OtlpReceiver;
  let demo: DemoProcess;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    demo = await startDemo({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_METRIC_EXPORT_INTERVAL: "300",
      OTEL_BSP_SCHEDULE_DELAY: "50",
      OTEL_SERVICE_NAME: "",
      MCP_TASK_TTL_MS: "1500",
      ...REPORT_MODULES,
    });
  }, 30_000);
  afterAll(async () => {
    await demo?.stop();
    await receiver?.close();
  });

  const spansNamed = (name: string) => receiver.spans.filter((s) => s.name === name);
  const oneSpan = async (name: string, match: (s: ReceivedSpan) => boolean = () => true) =>
    waitLong(() => {
      const found = spansNamed(name).filter(match);
      expect(found.map((s) => s.name), `${name} among ${receiver.spans.map((s) => s.name).join(", ")}`).toHaveLength(1);
      return found[0]!;
    });

  it("says so at start, under the default service name, in the protocol asked for", async () => {
    expect(demo.output()).toContain(`OpenTelemetry on: service h3-mcp-demo, OTLP ${protocol} to ${receiver.url}`);
    // What the test without an endpoint relies on: the probe sees OpenTelemetry when it is loaded.
    expect(demo.output()).toMatch(/\[module\] \S*@opentelemetry\/api\//);
    const app = overHttp(demo.url) as never;
    await call(app, "tools/call", { name: "echo", arguments: { text: "private words" } }, { id: "r-1", meta: { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` }, headers: { authorization: "Bearer tok-never-exported" } });
    const span = await oneSpan("tools/call echo");
    expect(span).toMatchObject({ service: "h3-mcp-demo", kind: SERVER, traceId: TRACE, parentSpanId: CLIENT_SPAN });
    expect(span.attributes).toMatchObject({ ...toolCallAttributes("echo", "r-1", new URL(demo.url)), "network.protocol.version": "1.1", "client.address": "127.0.0.1" });
    expect(receiver.contentTypes).toContain(protocol === "http/json" ? "application/json" : "application/x-protobuf");
  });

  it("sends a span for every core method of both eras, errors marked as the conventions say", async () => {
    const app = overHttp(demo.url) as never;
    for (const m of ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"]) await call(app, m);
    await call(app, "prompts/get", { name: "test_simple_prompt" });
    await call(app, "resources/read", { uri: "test://static-text" });
    await call(app, "completion/complete", { ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "a" } });
    await call(app, "tools/call", { name: "test_error_handling" });
    await call(app, "tools/call", { name: "no_such_tool" });
    const listen = await overHttp(demo.url).fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }));
    await listen.body!.cancel();
    // A 2025-11-25 session over HTTP.
    const post = (body: object, headers: Record<string, string> = {}) =>
      fetch(demo.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify({ jsonrpc: "2.0", ...body }) });
    const init = await post({ id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } } });
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    const inSession = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    await (await post({ method: "notifications/initialized" }, inSession)).text();
    await (await post({ id: 2, method: "ping" }, inSession)).text();
    await (await post({ id: 3, method: "tools/list" }, inSession)).text();
    await (await post({ id: 4, method: "tools/call", params: { name: "echo", arguments: { text: "in a session" } } }, inSession)).text();
    await (await fetch(demo.url, { method: "DELETE", headers: { "mcp-session-id": session } })).text();

    const modern = (s: ReceivedSpan) => s.attributes["mcp.protocol.version"] === "2026-07-28";
    for (const m of ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "completion/complete", "resources/read", "subscriptions/listen"]) {
      expect((await oneSpan(m, modern)).kind).toBe(SERVER);
    }
    expect((await oneSpan("prompts/get test_simple_prompt")).attributes["gen_ai.prompt.name"]).toBe("test_simple_prompt");
    expect((await oneSpan("resources/read")).attributes["mcp.resource.uri"]).toBe("test://static-text");
    const toolError = await oneSpan("tools/call test_error_handling");
    expect([toolError.attributes["error.type"], toolError.status.code]).toEqual(["tool_error", ERROR]);
    const rpcError = await oneSpan("tools/call", modern);
    expect(rpcError.attributes).toMatchObject({ "error.type": "-32602", "rpc.response.status_code": "-32602" });
    expect(rpcError.status).toEqual({ code: ERROR, message: "Unknown tool: no_such_tool" });
    const legacy = (s: ReceivedSpan) => s.attributes["mcp.session.id"] === session;
    for (const name of ["initialize", "ping", "tools/list", "tools/call echo"]) {
      expect((await oneSpan(name, legacy)).attributes).toMatchObject({ "mcp.protocol.version": "2025-11-25", "mcp.method.name": name.split(" ")[0] });
    }
    await waitLong(() => expect(latestPoints(receiver.metrics, "mcp.server.session.duration").map((p) => p.count)).toEqual([1]));
  });

  it("sends a task's run, linked to its creating span, ending completed, failed, cancelled and expired", async () => {
    const app = overHttp(demo.url) as never;
    const parent = { meta: { traceparent: `00-${TRACE}-${CLIENT_SPAN}-01` } };
    const asked = (await call(app, "tools/call", { name: "delete_everything" }, { caps, ...parent })).body.result;
    const key = await waitLong(async () => {
      const task = (await call(app, "tasks/get", { taskId: asked.taskId }, { caps })).body.result;
      expect(task.status).toBe("input_required");
      return Object.keys(task.inputRequests)[0]!;
    });
    await call(app, "tasks/update", { taskId: asked.taskId, inputResponses: { [key]: { action: "accept", content: { confirm: true } } } }, { caps });
    const failed = (await call(app, "tools/call", { name: "protocol_error_job" }, { caps })).body.result;
    const cancelled = (await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 30 } }, { caps })).body.result;
    await call(app, "tasks/cancel", { taskId: cancelled.taskId }, { caps });
    const expired = (await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 30 } }, { caps })).body.result;

    const creating = await oneSpan("tools/call delete_everything");
    expect(creating.attributes["mcp.task.id"]).toBe(asked.taskId);
    const run = await oneSpan("execute_tool delete_everything");
    expect(run.kind).toBe(INTERNAL);
    expect(run.parentSpanId).toBe("");
    expect(run.links).toEqual([{ traceId: TRACE, spanId: creating.spanId }]);
    expect(run.attributes).toMatchObject({ "mcp.task.id": asked.taskId, "mcp.task.status": "completed" });
    expect(run.events.map((e) => e.name)).toEqual(["mcp.task.status", "mcp.task.input_requested", "mcp.task.status", "mcp.task.status"]);
    expect(run.events.map((e) => e.attributes["mcp.task.status"]).filter(Boolean)).toEqual(["input_required", "working", "completed"]);
    expect((await oneSpan("tasks/update")).attributes["mcp.task.id"]).toBe(asked.taskId);
    await waitLong(() => expect(spansNamed("tasks/get").filter((s) => s.attributes["mcp.task.id"] === asked.taskId).length).toBeGreaterThan(0));
    expect((await oneSpan("tasks/cancel")).attributes["mcp.task.id"]).toBe(cancelled.taskId);

    const runOf = (taskId: string) => oneSpan("execute_tool slow_compute", (s) => s.attributes["mcp.task.id"] === taskId);
    expect((await runOf(cancelled.taskId)).attributes["mcp.task.status"]).toBe("cancelled");
    const failedRun = await oneSpan("execute_tool protocol_error_job", (s) => s.attributes["mcp.task.id"] === failed.taskId);
    expect([failedRun.attributes["mcp.task.status"], failedRun.status.code]).toEqual(["failed", ERROR]);
    // The demo's tasks live 1.5 s here: the 30 s one expires.
    const expiredRun = await runOf(expired.taskId);
    expect(expiredRun.attributes).toMatchObject({ "mcp.task.status": "expired", "error.type": "-32603" });
    expect(expiredRun.status).toEqual({ code: ERROR, message: "Task expired before it finished" });

    await waitLong(() => {
      const finished = latestPoints(receiver.metrics, "mcp.server.task.finished");
      const by = (status: string) => finished.filter((p) => p.attributes["mcp.task.status"] === status).reduce((n, p) => n + p.value!, 0);
      expect([by("completed"), by("failed"), by("cancelled"), by("expired")]).toEqual([1, 1, 1, 1]);
    });
    const duration = latestPoints(receiver.metrics, "mcp.server.operation.duration");
    expect(duration[0]!.bounds).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
    expect(duration.find((p) => p.attributes["gen_ai.tool.name"] === "delete_everything")!.attributes).toMatchObject({ "mcp.method.name": "tools/call", "mcp.protocol.version": "2026-07-28" });
    expect(latestPoints(receiver.metrics, "mcp.server.task.created").length).toBeGreaterThan(0);
    // Tasks live 1.5 s here: some export saw them held (the latest may come after they expired).
    const sizes = receiver.metrics.filter((m) => m.name === "mcp.server.task.store.size").flatMap((m) => m.points.map((p) => p.value!));
    expect(Math.max(...sizes)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it("never exports arguments, results or tokens (they are not opted in)", async () => {
    // One echo in 2026-07-28, one in a 2025-11-25 session.
    await waitLong(() => expect(spansNamed("tools/call echo")).toHaveLength(2));
    const all = JSON.stringify(receiver.spans) + JSON.stringify(receiver.metrics);
    expect(all).not.toContain("private words");
    expect(all).not.toContain("in a session");
    expect(all).not.toContain("tok-never-exported");
    expect(all).not.toContain("gen_ai.tool.call.arguments");
    expect(all).not.toContain("gen_ai.tool.call.result");
  });
});

describe("the demo without OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("loads nothing of OpenTelemetry, and says nothing of it", async () => {
    const demo = await startDemo({ OTEL_EXPORTER_OTLP_ENDPOINT: "", ...REPORT_MODULES });
    try {
      const app = overHttp(demo.url) as never;
      await call(app, "tools/call", { name: "echo", arguments: { text: "x" } });
      await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } }, { caps });
      expect(demo.output()).not.toContain("[module]");
      expect(demo.output()).not.toContain("OpenTelemetry");
    } finally {
      await demo.stop();
    }
  });
});
