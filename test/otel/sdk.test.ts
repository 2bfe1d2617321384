// mcpOpenTelemetry() with the real OpenTelemetry SDK (in-memory exporters), over app.fetch: span names,
// kinds, parents, links, attributes, events and metric points, as the semantic conventions for MCP say.
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { request as httpRequest } from "node:http";
import { serve } from "h3";
import { beforeEach, describe, expect, it } from "vitest";
import { createDemo } from "../../examples/demo/app.ts";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { mcpOpenTelemetry, type McpOpenTelemetryOptions } from "../../src/otel/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { testSdk } from "../helpers/otel-sdk.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";
import { until } from "../helpers/wait.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };

const sdk = testSdk();
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const traceparent = `00-${TRACE}-${CLIENT_SPAN}-01`;

function demo(options: Omit<McpOpenTelemetryOptions, "tracerProvider" | "meterProvider"> = {}, tasks: Parameters<typeof createDemo>[0] = {}, into = sdk) {
  return createDemo(tasks, undefined, (tasksPlugin) => [
    mcpOpenTelemetry({ tracerProvider: into.tracerProvider, meterProvider: into.meterProvider, tasks: tasksPlugin, ...options }),
  ]).app;
}
const named = (name: string) => sdk.spans().filter((s) => s.name === name);
const one = (name: string): ReadableSpan => {
  const spans = named(name);
  expect(spans.map((s) => s.name), `one span named ${name} among ${sdk.spans().map((s) => s.name).join(", ")}`).toEqual([name]);
  return spans[0]!;
};

beforeEach(() => sdk.reset());

describe("request spans", () => {
  it("name a tool call after its tool, a SERVER span whose parent is the traceparent in _meta", async () => {
    const app = demo();
    await call(app, "tools/call", { name: "echo", arguments: { text: "hi" } }, { id: 7, meta: { traceparent, tracestate: "rojo=1" } });
    const span = one("tools/call echo");
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(span.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "jsonrpc.request.id": "7",
      "mcp.protocol.version": "2026-07-28",
      "network.transport": "tcp",
      "network.protocol.name": "http",
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes["error.type"]).toBeUndefined();
    expect(span.links).toEqual([]);
  });

  it("parents on the ambient context without a traceparent, and links it when _meta has one; baggage reaches the tool", async () => {
    let seen: string | undefined;
    const tool = defineTool({ name: "bag", handler: () => (seen = propagation.getBaggage(context.active())?.getEntry("user")?.value ?? "none") });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [tool] }, { plugins: [mcpOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider })] }));
    const http = sdk.tracerProvider.getTracer("http").startSpan("POST /mcp", { kind: SpanKind.SERVER });
    const inHttp = trace.setSpan(context.active(), http);
    await context.with(inHttp, () => call(app, "tools/call", { name: "bag" }));
    await context.with(inHttp, () => call(app, "tools/call", { name: "bag" }, { meta: { traceparent, baggage: "user=alice" } }));
    http.end();
    const [ambient, meta] = named("tools/call bag");
    expect(ambient!.parentSpanContext?.spanId).toBe(http.spanContext().spanId);
    expect(ambient!.links).toEqual([]);
    expect(meta!.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(meta!.links.map((l) => l.context.spanId)).toEqual([http.spanContext().spanId]);
    expect(seen).toBe("alice");
  });

  it("mark a tool error (isError) and a JSON-RPC error as the conventions say", async () => {
    const app = demo();
    await call(app, "tools/call", { name: "test_error_handling" });
    const toolError = one("tools/call test_error_handling");
    expect(toolError.attributes["error.type"]).toBe("tool_error");
    expect(toolError.status.code).toBe(SpanStatusCode.ERROR);
    await call(app, "tools/call", { name: "no_such_tool" });
    const rpcError = one("tools/call");
    expect(rpcError.attributes).toMatchObject({ "error.type": "-32602", "rpc.response.status_code": "-32602", "gen_ai.tool.name": "no_such_tool" });
    expect(rpcError.status).toEqual({ code: SpanStatusCode.ERROR, message: "Unknown tool: no_such_tool" });
  });

  it("name a request by its tool or prompt only when the server serves it: names a client makes up name no span and no metric series", async () => {
    const sdk = testSdk();
    const app = demo({}, {}, sdk);
    const made = Array.from({ length: 40 }, (_, i) => `made_up_${i}`);
    for (const name of made) {
      await call(app, "tools/call", { name });
      await call(app, "prompts/get", { name });
    }
    await call(app, "tools/call", { name: "echo", arguments: { text: "a" } });
    await call(app, "prompts/get", { name: "test_simple_prompt" });
    // A served tool refused for its arguments is still named by it.
    await call(app, "tools/call", { name: "echo", arguments: { text: 1 } });
    const names = sdk.spans().map((s) => s.name);
    expect(names.filter((n) => n === "tools/call")).toHaveLength(made.length);
    expect(names.filter((n) => n === "prompts/get")).toHaveLength(made.length);
    expect(names.filter((n) => n === "tools/call echo")).toHaveLength(2);
    expect(names).toContain("prompts/get test_simple_prompt");
    expect(names.some((n) => n.includes("made_up"))).toBe(false);
    const duration = (await sdk.metrics()).scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === "mcp.server.operation.duration")!;
    const points = duration.dataPoints as { attributes: Record<string, unknown>; value: { count: number } }[];
    const unknownTools = points.filter((p) => p.attributes["mcp.method.name"] === "tools/call" && p.attributes["gen_ai.tool.name"] === undefined);
    expect(unknownTools.map((p) => [p.attributes["error.type"], p.value.count])).toEqual([["-32602", made.length]]);
    expect(points.filter((p) => p.attributes["mcp.method.name"] === "prompts/get" && p.attributes["gen_ai.prompt.name"] === undefined).map((p) => p.value.count)).toEqual([made.length]);
    expect(points.some((p) => String(p.attributes["gen_ai.tool.name"] ?? p.attributes["gen_ai.prompt.name"]).includes("made_up"))).toBe(false);
    expect(points.filter((p) => p.attributes["gen_ai.tool.name"] === "echo").map((p) => p.attributes["error.type"]).sort()).toEqual(["-32602", undefined]);
  });

  it("cover every core method of both eras, with the attributes each one has", async () => {
    const app = demo();
    for (const m of ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"]) await call(app, m);
    await call(app, "prompts/get", { name: "test_simple_prompt" });
    await call(app, "resources/read", { uri: "test://static-text" });
    await call(app, "completion/complete", { ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "a" } });
    const listen = await app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }));
    await listen.body!.cancel();
    for (const m of ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "completion/complete", "subscriptions/listen"]) {
      expect(one(m).attributes["mcp.method.name"]).toBe(m);
    }
    expect(one("prompts/get test_simple_prompt").attributes["gen_ai.prompt.name"]).toBe("test_simple_prompt");
    // The URI is an attribute, never (by default) part of the name.
    expect(one("resources/read").attributes["mcp.resource.uri"]).toBe("test://static-text");

    const client = await legacyClient(app);
    await client.request("ping");
    await client.request("tools/call", { name: "echo", arguments: { text: "x" } });
    for (const name of ["initialize", "ping", "tools/call echo"]) {
      expect(one(name).attributes).toMatchObject({ "mcp.session.id": client.sessionId, "mcp.protocol.version": "2025-11-25" });
    }
  });

  it("take server.address and server.port from the Host the client used, over HTTP and over app.fetch", async () => {
    const served = serve(demo(), { port: 0, hostname: "127.0.0.1", silent: true });
    await served.ready();
    try {
      const port = Number(new URL(served.url!).port);
      const echo = modernRequest("tools/call", { name: "echo", arguments: { text: "h" } });
      const body = await echo.text();
      const headers = Object.fromEntries(echo.headers);
      for (const host of ["LocalHost:8443", "localhost", "localhost:80", "[::1]:9000"]) {
        await new Promise<void>((resolve, reject) => {
          const req = httpRequest({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { ...headers, host } }, (res) => {
            expect(res.statusCode, host).toBe(200);
            res.resume().on("end", resolve);
          });
          req.on("error", reject).end(body);
        });
      }
      const addresses = named("tools/call echo").map((s) => [s.attributes["server.address"], s.attributes["server.port"]]);
      // A URL leaves out the scheme's default port: so does the span.
      expect(addresses).toEqual([["localhost", 8443], ["localhost", undefined], ["localhost", undefined], ["[::1]", 9000]]);
    } finally {
      await served.close(true);
    }
    sdk.reset();
    const viaFetch = modernRequest("tools/call", { name: "echo", arguments: { text: "h" } });
    await demo().fetch(new Request("http://localhost:7000/mcp", { method: "POST", headers: viaFetch.headers, body: await viaFetch.text() }));
    expect(one("tools/call echo").attributes).toMatchObject({ "server.address": "localhost", "server.port": 7000 });
  });

  it("put the resource URI in the name only when asked", async () => {
    await call(demo({ resourceUriInSpanName: true }), "resources/read", { uri: "test://static-text" });
    expect(one("resources/read test://static-text").kind).toBe(SpanKind.SERVER);
  });

  it("record tool arguments and results only when asked, and never tokens or requestState", async () => {
    const secret = { authorization: "Bearer token-must-not-leak" };
    await call(demo(), "tools/call", { name: "echo", arguments: { text: "private words" } }, { headers: secret });
    const name = "test_input_required_result_request_state";
    const first = (await call(demo(), "tools/call", { name }, { caps: { elicitation: {} } })).body.result;
    await call(demo(), "tools/call", { name, requestState: first.requestState, inputResponses: { confirm: { action: "accept", content: { ok: true } } } }, { caps: { elicitation: {} } });
    const exported = JSON.stringify(sdk.spans().map((s) => ({ attributes: s.attributes, events: s.events, name: s.name, status: s.status })));
    expect(exported).not.toContain("private words");
    expect(exported).not.toContain("token-must-not-leak");
    expect(exported).not.toContain(first.requestState);
    expect(JSON.stringify(await sdk.metrics())).not.toContain("private words");

    sdk.reset();
    await call(demo({ recordToolPayloads: true }), "tools/call", { name: "echo", arguments: { text: "private words" } }, { headers: secret });
    const span = one("tools/call echo");
    expect(JSON.parse(span.attributes["gen_ai.tool.call.arguments"] as string)).toEqual({ text: "private words" });
    expect(JSON.parse(span.attributes["gen_ai.tool.call.result"] as string)).toMatchObject({ content: [{ type: "text" }] });
    expect(JSON.stringify(span.attributes)).not.toContain("token-must-not-leak");
  });
});

describe("task spans", () => {
  it("run in a span linked to the creating call, with status changes and input requests as events, ending with the task", async () => {
    const app = demo();
    const handle = (await call(app, "tools/call", { name: "delete_everything" }, { caps, meta: { traceparent } })).body.result;
    await until(async () => expect((await call(app, "tasks/get", { taskId: handle.taskId }, { caps })).body.result.status).toBe("input_required"));
    const key = Object.keys((await call(app, "tasks/get", { taskId: handle.taskId }, { caps })).body.result.inputRequests)[0]!;
    await call(app, "tasks/update", { taskId: handle.taskId, inputResponses: { [key]: { action: "accept", content: { confirm: true } } } }, { caps });
    await until(() => expect(named("execute_tool delete_everything")).toHaveLength(1));
    const creating = one("tools/call delete_everything");
    expect(creating.attributes["mcp.task.id"]).toBe(handle.taskId);
    const run = one("execute_tool delete_everything");
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.spanContext().traceId).not.toBe(TRACE);
    expect(run.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([[TRACE, creating.spanContext().spanId]]);
    expect(run.attributes).toMatchObject({ "mcp.task.id": handle.taskId, "mcp.task.status": "completed", "gen_ai.tool.name": "delete_everything" });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.events.map((e) => [e.name, e.attributes?.["mcp.task.status"] ?? e.attributes?.["mcp.task.input_request.methods"]])).toEqual([
      ["mcp.task.status", "input_required"],
      ["mcp.task.input_requested", ["elicitation/create"]],
      ["mcp.task.status", "working"],
      ["mcp.task.status", "completed"],
    ]);
    for (const m of ["tasks/get", "tasks/update"]) expect(named(m).every((s) => s.attributes["mcp.task.id"] === handle.taskId)).toBe(true);
  });

  it("carry the creating span's trace context in the task's origin, which every store keeps, and link to it from there", async () => {
    const job = defineTool({
      name: "job",
      execution: { taskSupport: "required" },
      handler: (e) => mcpTask(e, { run: (task) => ({ content: [{ type: "text", text: JSON.stringify(task.origin ?? null) }] }) }),
    });
    const tasks = mcpTasks();
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [job] }, { plugins: [mcpOpenTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider })], extensionPlugins: [tasks] }));
    const handle = (await call(app, "tools/call", { name: "job" }, { caps, meta: { traceparent, tracestate: "rojo=1" } })).body.result;
    const done = await until(async () => {
      const task = (await call(app, "tasks/get", { taskId: handle.taskId }, { caps })).body.result;
      expect(task.status).toBe("completed");
      return task;
    });
    const creating = one("tools/call job").spanContext();
    expect(JSON.parse(done.result.content[0].text)).toEqual({ traceparent: `00-${TRACE}-${creating.spanId}-01`, tracestate: "rojo=1" });
    expect(one("execute_tool job").links.map((l) => l.context.spanId)).toEqual([creating.spanId]);
  });

  it("end failed (an error), cancelled (not one), expired (an error) and as a tool error", async () => {
    let now = Date.now();
    const app = demo({}, { ttlMs: 60_000, clock: { now: () => now } });
    const failed = (await call(app, "tools/call", { name: "protocol_error_job" }, { caps })).body.result;
    await until(() => expect(named("execute_tool protocol_error_job")).toHaveLength(1));
    const cancelled = (await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 30 } }, { caps })).body.result;
    await call(app, "tasks/cancel", { taskId: cancelled.taskId }, { caps });
    const expired = (await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 30 } }, { caps })).body.result;
    now += 61_000;
    await call(app, "tasks/get", { taskId: expired.taskId }, { caps });
    const toolError = (await call(app, "tools/call", { name: "failing_job" }, { caps })).body.result;
    await until(() => expect(named("execute_tool failing_job")).toHaveLength(1));
    const runOf = (taskId: string) => sdk.spans().find((s) => s.name.startsWith("execute_tool") && s.attributes["mcp.task.id"] === taskId)!;
    expect(runOf(failed.taskId).attributes).toMatchObject({ "mcp.task.status": "failed", "error.type": expect.stringMatching(/^-32\d{3}$/) });
    expect(runOf(failed.taskId).status.code).toBe(SpanStatusCode.ERROR);
    expect(runOf(cancelled.taskId).attributes["mcp.task.status"]).toBe("cancelled");
    expect(runOf(cancelled.taskId).status.code).toBe(SpanStatusCode.UNSET);
    expect(runOf(expired.taskId).attributes).toMatchObject({ "mcp.task.status": "expired", "error.type": "-32603" });
    expect(runOf(expired.taskId).status).toEqual({ code: SpanStatusCode.ERROR, message: "Task expired before it finished" });
    expect(runOf(toolError.taskId).attributes).toMatchObject({ "mcp.task.status": "completed", "error.type": "tool_error" });
    expect(runOf(toolError.taskId).status.code).toBe(SpanStatusCode.ERROR);
  }, 15_000);
});

describe("metrics", () => {
  it("record operation durations with the conventions' buckets, session durations and task metrics", async () => {
    // A meter of its own: the store-size gauge of every other test's demo would report too.
    const sdk = testSdk();
    const app = demo({}, {}, sdk);
    await call(app, "tools/call", { name: "echo", arguments: { text: "a" } });
    await call(app, "tools/call", { name: "no_such_tool" });
    const handle = (await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } }, { caps })).body.result;
    await until(async () => expect((await call(app, "tasks/get", { taskId: handle.taskId }, { caps })).body.result.status).toBe("completed"));
    const client = await legacyClient(app);
    await client.del();
    const all = (await sdk.metrics()).scopeMetrics.flatMap((s) => s.metrics);
    const metric = (name: string) => all.find((m) => m.descriptor.name === name)!;
    const duration = metric("mcp.server.operation.duration");
    expect(duration.descriptor.unit).toBe("s");
    const points = duration.dataPoints as { attributes: Record<string, unknown>; value: { buckets: { boundaries: number[] }; count: number } }[];
    expect(points[0]!.value.buckets.boundaries).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
    expect(points.find((p) => p.attributes["gen_ai.tool.name"] === "echo")!.attributes).toMatchObject({ "mcp.method.name": "tools/call", "mcp.protocol.version": "2026-07-28" });
    expect(points.find((p) => p.attributes["mcp.method.name"] === "tools/call" && p.attributes["gen_ai.tool.name"] === undefined)!.attributes).toMatchObject({ "error.type": "-32602" });
    expect(metric("mcp.server.session.duration").dataPoints).toHaveLength(1);
    const sum = (name: string, match: Record<string, unknown>) =>
      (metric(name).dataPoints as { attributes: Record<string, unknown>; value: number }[])
        .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
        .reduce((n, p) => n + p.value, 0);
    expect(sum("mcp.server.task.created", { "gen_ai.tool.name": "slow_compute" })).toBe(1);
    expect(sum("mcp.server.task.finished", { "mcp.task.status": "completed" })).toBe(1);
    expect(sum("mcp.server.task.active", {})).toBe(0);
    expect(metric("mcp.server.task.duration").dataPoints).toHaveLength(1);
    expect((metric("mcp.server.task.store.size").dataPoints[0] as { value: number }).value).toBe(1);
  });

  it("count tasks working and waiting for input now", async () => {
    const sdk = testSdk();
    const app = demo({}, {}, sdk);
    await call(app, "tools/call", { name: "delete_everything" }, { caps });
    await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 30 } }, { caps });
    await until(async () => {
      const all = (await sdk.metrics()).scopeMetrics.flatMap((s) => s.metrics);
      const active = all.find((m) => m.descriptor.name === "mcp.server.task.active")!.dataPoints as { attributes: Record<string, unknown>; value: number }[];
      const now = (status: string) => active.filter((p) => p.attributes["mcp.task.status"] === status).reduce((n, p) => n + p.value, 0);
      expect([now("working"), now("input_required")]).toEqual([1, 1]);
    });
  });
});

describe("a server without the plugin", () => {
  it("records nothing (that the demo loads nothing of OpenTelemetry is test/otel/otlp-export.test.ts's)", async () => {
    const slow = defineTool({ name: "t", execution: { taskSupport: "required" }, handler: (e) => mcpTask(e, { run: () => ({ content: [] }) }) });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [slow] }, { extensionPlugins: [mcpTasks()] }));
    await call(app, "tools/call", { name: "t" }, { caps });
    expect(sdk.spans()).toEqual([]);
  });
});
