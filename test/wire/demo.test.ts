// The demo server's conformance fixtures, checked in process: a fixture regression shows up in `npm test`
// without running the official suite (conformance/fixtures.md lists what the suite expects).
import { describe, expect, it } from "vitest";
import { app } from "../../examples/demo/app.ts";
import { expectError, ownFields } from "../helpers/schemas.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, TASKS } from "../helpers/wire.ts";

const ALL = { sampling: {}, elicitation: {}, roots: { listChanged: true } };
const WITH_TASKS = { elicitation: {}, sampling: {}, extensions: { [TASKS]: {} } };
const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

const text = (result: any): string => result.content.find((c: any) => c.type === "text")?.text;

async function untilTerminal(taskId: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const r = await call(app, "tasks/get", { taskId }, { caps: WITH_TASKS });
    const task = r.body.result;
    if (["completed", "failed", "cancelled"].includes(task.status)) return task;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${taskId} did not finish`);
}

async function untilInputRequired(taskId: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const task = (await call(app, "tasks/get", { taskId }, { caps: WITH_TASKS })).body.result;
    if (task.status === "input_required") return task;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${taskId} never asked for input`);
}

describe("demo listings", () => {
  it("lists test_simple_text first, describes everything, and keeps x-mcp-header on test_x_mcp_header only", async () => {
    const { tools } = (await call(app, "tools/list")).body.result;
    expect(tools[0].name).toBe("test_simple_text");
    for (const tool of tools) expect(tool.description, tool.name).toBeTruthy();
    const withHeader = tools.filter((t: any) => Object.values(t.inputSchema.properties ?? {}).some((p: any) => p["x-mcp-header"]));
    expect(withHeader.map((t: any) => t.name)).toEqual(["test_x_mcp_header"]);
    expect(withHeader[0].inputSchema.properties.region["x-mcp-header"]).toBe("Region");
  });

  it("keeps the JSON Schema 2020-12 fixture verbatim", async () => {
    const { tools } = (await call(app, "tools/list")).body.result;
    const schema = tools.find((t: any) => t.name === "json_schema_2020_12_tool").inputSchema;
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$defs.address.$anchor).toBe("addressDef");
    expect(schema.allOf[0].anyOf).toHaveLength(2);
    expect(Object.keys(schema)).toEqual(expect.arrayContaining(["if", "then", "else"]));
    expect(schema.additionalProperties).toBe(false);
  });

  it("lists described prompts, test://static-text first, and the template", async () => {
    const { prompts } = (await call(app, "prompts/list")).body.result;
    for (const prompt of prompts) expect(prompt.description, prompt.name).toBeTruthy();
    expect((await call(app, "resources/list")).body.result.resources[0].uri).toBe("test://static-text");
    const { resourceTemplates } = (await call(app, "resources/templates/list")).body.result;
    expect(resourceTemplates.map((t: any) => t.uriTemplate)).toContain("test://template/{id}/data");
  });
});

describe("demo tool fixtures", () => {
  it("test_simple_text answers without an arguments key", async () => {
    expect(text((await call(app, "tools/call", { name: "test_simple_text" })).body.result)).toBeTruthy();
  });

  it("test_audio_content is a RIFF WAV with mimeType audio/wav", async () => {
    const [audio] = (await call(app, "tools/call", { name: "test_audio_content", arguments: {} })).body.result.content;
    expect(audio.mimeType).toBe("audio/wav");
    expect(Buffer.from(audio.data, "base64").subarray(0, 4).toString("ascii")).toBe("RIFF");
  });

  it("test_tool_with_progress sends 0, 50, 100 of 100 before the result", async () => {
    const r = await call(app, "tools/call", { name: "test_tool_with_progress", arguments: {} }, { meta: { progressToken: "p" } });
    const progress = r.messages.filter((m) => m.method === "notifications/progress").map((m) => [m.params.progress, m.params.total]);
    expect(progress).toEqual([[0, 100], [50, 100], [100, 100]]);
    expect(r.body.result.resultType).toBe("complete");
  });

  it("test_error_handling is a tool error", async () => {
    const result = (await call(app, "tools/call", { name: "test_error_handling", arguments: {} })).body.result;
    expect(result.isError).toBe(true);
    expect(text(result)).toBeTruthy();
  });

  it("test_missing_capability without sampling is HTTP 400, -32021 naming sampling", async () => {
    const r = await call(app, "tools/call", { name: "test_missing_capability", arguments: {} }, { id: 401, caps: {} });
    expect(r.status).toBe(400);
    expect(r.body.id).toBe(401);
    expect(expectError(r.body, -32021).data.requiredCapabilities).toEqual({ sampling: {} });
  });

  it("test_streaming_elicitation and test_logging_tool answer with plain results, no logs without a log level", async () => {
    const stream = await call(app, "tools/call", { name: "test_streaming_elicitation", arguments: {} }, { caps: { elicitation: {} } });
    expect(stream.body.result.resultType).toBe("input_required");
    const log = await call(app, "tools/call", { name: "test_logging_tool", arguments: {} });
    expect(log.messages).toHaveLength(1);
    expect(log.body.result.resultType).toBe("complete");
  });

  it("greet answers exactly", async () => {
    const r = await call(app, "tools/call", { name: "greet", arguments: { name: "sep-2243" } }, { caps: WITH_TASKS });
    expect(ownFields(r.body.result)).toEqual({ resultType: "complete", content: [{ type: "text", text: "Hello, sep-2243!" }] });
  });
});

describe("demo MRTR fixtures", () => {
  const elicitation = (inputResponses?: unknown, extra: Record<string, unknown> = {}) =>
    call(app, "tools/call", { name: "test_input_required_result_elicitation", arguments: {}, inputResponses, ...extra }, { caps: ALL });

  it("asks for user_name, then greets", async () => {
    const r1 = (await elicitation()).body.result;
    expect(r1.resultType).toBe("input_required");
    expect(r1.inputRequests.user_name.method).toBe("elicitation/create");
    const r2 = (await elicitation({ user_name: accept({ name: "Alice" }) })).body.result;
    expect(ownFields(r2)).toEqual({ resultType: "complete", content: [{ type: "text", text: "Hello, Alice!" }] });
  });

  it.each([["a wrong key", { wrong_key: accept({ data: "wrong" }) }], ["a non-object answer", { user_name: 12345 }], ["null", null]])(
    "asks again for %s",
    async (_what, inputResponses) => {
      expect((await elicitation(inputResponses)).body.result.resultType).toBe("input_required");
    },
  );

  it("rejects a tampered requestState with -32602", async () => {
    const call1 = (extra: Record<string, unknown> = {}) =>
      call(app, "tools/call", { name: "test_input_required_result_tampered_state", arguments: {}, ...extra }, { caps: ALL });
    const { requestState, inputRequests } = (await call1()).body.result;
    expect(typeof requestState).toBe("string");
    const key = Object.keys(inputRequests)[0]!;
    const ok = await call1({ inputResponses: { [key]: accept({ ok: true }) }, requestState });
    expect(ok.body.result.resultType).toBe("complete");
    const tampered = await call1({ inputResponses: { [key]: accept({ ok: true }) }, requestState: `${requestState}-TAMPERED` });
    expectError(tampered.body, -32602);
  });

  it("runs three rounds with a new requestState each time", async () => {
    const round = (extra: Record<string, unknown> = {}) =>
      call(app, "tools/call", { name: "test_input_required_result_multi_round", arguments: {}, ...extra }, { caps: ALL });
    const r1 = (await round()).body.result;
    expect(Object.keys(r1.inputRequests)).toEqual(["step1"]);
    const r2 = (await round({ inputResponses: { step1: accept({ name: "Alice" }) }, requestState: r1.requestState })).body.result;
    expect(Object.keys(r2.inputRequests)).toEqual(["step2"]);
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = (await round({ inputResponses: { step2: accept({ color: "blue" }) }, requestState: r2.requestState })).body.result;
    expect(text(r3)).toMatch(/Alice.*blue/);
  });

  it("asks only for what the client declared", async () => {
    const r = await call(app, "tools/call", { name: "test_input_required_result_capabilities", arguments: {} }, { caps: { sampling: {} } });
    const methods = Object.values(r.body.result.inputRequests).map((q: any) => q.method);
    expect(methods).toEqual(["sampling/createMessage"]);
  });

  it("answers input_required on prompts/get too", async () => {
    const get = (extra: Record<string, unknown> = {}) =>
      call(app, "prompts/get", { name: "test_input_required_result_prompt", ...extra }, { caps: ALL });
    const r1 = (await get()).body.result;
    expect(Object.keys(r1.inputRequests)).toEqual(["user_context"]);
    const r2 = (await get({ inputResponses: { user_context: accept({ context: "test context" }) } })).body.result;
    expect(JSON.stringify(r2.messages)).toContain("test context");
  });
});

describe("demo task fixtures", () => {
  it("slow_compute runs as a task with the extension and synchronously without it", async () => {
    const handle = (await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 0, label: "t" } }, { caps: WITH_TASKS })).body.result;
    expect(handle.resultType).toBe("task");
    expect(handle.pollIntervalMs).toBe(200);
    expect((await untilTerminal(handle.taskId)).status).toBe("completed");
    const sync = (await call(app, "tools/call", { name: "slow_compute", arguments: { seconds: 0, label: "s" } }, { caps: {} })).body.result;
    expect(sync.resultType).toBe("complete");
  });

  it("failing_job completes with isError; protocol_error_job fails with an error", async () => {
    const [failing, protocol] = await Promise.all(
      ["failing_job", "protocol_error_job"].map(async (name) => (await call(app, "tools/call", { name, arguments: {} }, { caps: WITH_TASKS })).body.result.taskId),
    );
    const [a, b] = await Promise.all([untilTerminal(failing), untilTerminal(protocol)]);
    expect(a).toMatchObject({ status: "completed", result: { isError: true } });
    expect(b.status).toBe("failed");
    expect(typeof b.error.code).toBe("number");
    expect(b.result).toBeUndefined();
  });

  it("failing_job without the extension is -32021 naming it", async () => {
    const r = await call(app, "tools/call", { name: "failing_job", arguments: {} }, { caps: {} });
    expect(expectError(r.body, -32021).data.requiredCapabilities.extensions[TASKS]).toEqual({});
  });

  it("confirm_delete waits for the answer, then completes", async () => {
    const { taskId } = (await call(app, "tools/call", { name: "confirm_delete", arguments: { filename: "a.txt" } }, { caps: WITH_TASKS })).body.result;
    const parked = await untilInputRequired(taskId);
    const keys = Object.keys(parked.inputRequests);
    expect(keys).toHaveLength(1);
    const ack = await call(app, "tasks/update", { taskId, inputResponses: { [keys[0]!]: accept({ confirm: true }) } }, { caps: WITH_TASKS });
    expect(ownFields(ack.body.result)).toEqual({ resultType: "complete" });
    expect(text((await untilTerminal(taskId)).result)).toBe("Deleted a.txt.");
  });

  it("multi_input asks two questions at once", async () => {
    const { taskId } = (await call(app, "tools/call", { name: "multi_input", arguments: {} }, { caps: WITH_TASKS })).body.result;
    expect(Object.keys((await untilInputRequired(taskId)).inputRequests)).toHaveLength(2);
    await call(app, "tasks/cancel", { taskId }, { caps: WITH_TASKS });
  });

  it("test_tool_with_task asks first (MRTR), then creates a task whose result names the answer", async () => {
    const tool = (extra: Record<string, unknown> = {}) =>
      call(app, "tools/call", { name: "test_tool_with_task", arguments: {}, ...extra }, { caps: WITH_TASKS });
    const r1 = (await tool()).body.result;
    expect(r1.resultType).toBe("input_required");
    expect(r1.taskId).toBeUndefined();
    const key = Object.keys(r1.inputRequests)[0]!;
    const r2 = (await tool({ inputResponses: { [key]: accept({ name: "Alice" }) } })).body.result;
    expect(r2.resultType).toBe("task");
    expect(r2.requestState).toBeUndefined();
    expect(text((await untilTerminal(r2.taskId)).result)).toMatch(/Alice/);
  });
});

describe("demo prompts and resources", () => {
  it("fills prompt arguments and completes arg1", async () => {
    const r = await call(app, "prompts/get", { name: "test_prompt_with_arguments", arguments: { arg1: "testValue1", arg2: "testValue2" } });
    expect(JSON.stringify(r.body.result.messages)).toMatch(/testValue1.*testValue2/);
    const c = await call(app, "completion/complete", {
      ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
      argument: { name: "arg1", value: "test" },
    });
    expect(c.body.result.completion.values).toContain("testValue1");
  });

  it("reads text, binary and templated resources, and -32602 with data.uri for an unknown one", async () => {
    const read = (uri: string) => call(app, "resources/read", { uri });
    expect((await read("test://static-text")).body.result.contents[0]).toMatchObject({ mimeType: "text/plain" });
    expect((await read("test://static-binary")).body.result.contents[0].blob).toBeTruthy();
    expect((await read("test://template/123/data")).body.result.contents[0].text).toContain("123");
    const missing = "test://nonexistent-resource-for-conformance-testing";
    expect(expectError((await read(missing)).body, -32602).data).toEqual({ uri: missing });
  });
});

describe("demo legacy fixtures", () => {
  it("test_sampling asks the legacy client on the POST's stream and reports the answer", async () => {
    const c = await legacyClient(app, "2025-11-25", { sampling: {}, elicitation: {} });
    const sse = sseReader(await c.post({ id: 5, method: "tools/call", params: { name: "test_sampling", arguments: { prompt: "Hi?" } } }));
    const ask = await sse.next();
    expect(ask).toMatchObject({ method: "sampling/createMessage", params: { maxTokens: 100 } });
    await c.post({ id: ask.id, result: { role: "assistant", content: { type: "text", text: "Hello!" }, model: "m", stopReason: "endTurn" } });
    expect((await sse.next()).result.content[0].text).toBe("LLM response: Hello!");
  });

  it("test_tool_with_logging sends three info logs after logging/setLevel", async () => {
    const c = await legacyClient(app, "2025-11-25");
    await c.request("logging/setLevel", { level: "debug" });
    const r = await c.request("tools/call", { name: "test_tool_with_logging", arguments: {} });
    expect(r.messages.filter((m) => m.method === "notifications/message")).toHaveLength(3);
  });
});
