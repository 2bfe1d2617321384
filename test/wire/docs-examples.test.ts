// The docs' examples are real programs: each is exercised here as a user would call it.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { mcp as basics } from "../../docs/examples/basics.ts";
import { mcp as content } from "../../docs/examples/content.ts";
import { mcp as tasks } from "../../docs/examples/tasks.ts";
import { auditLog, type AuditEntry } from "../../docs/examples/audit-log.ts";
import { rateLimit } from "../../docs/examples/rate-limit.ts";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";
import { ROOT } from "../helpers/doc-blocks.ts";

const appOf = (h: typeof basics) => new H3().all("/mcp", h);

describe("docs/examples", () => {
  it("first-task, run as getting-started.md says: the task parks on its question, is answered, and completes", async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", "docs/examples/first-task.ts"], { cwd: ROOT });
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^input_required \{\n {2}mode: 'form',\n {2}message: 'Publish now\?',/);
    expect(stdout.trim().split("\n").at(-1)).toBe("completed [ { type: 'text', text: 'Published 3 pages.' } ]");
  }, 60_000);

  it("basics: tool errors, protocol errors, progress and structured output", async () => {
    const app = appOf(basics);
    const ok = await call(app, "tools/call", { name: "get_weather", arguments: { city: "Oslo" } }, { meta: { progressToken: 1 } });
    expect(ok.messages.filter((m) => m.method === "notifications/progress")).toHaveLength(2);
    expect(ok.body.result.structuredContent).toEqual({ tempC: 21 });
    expect((await call(app, "tools/call", { name: "get_weather", arguments: { city: "Nowhere" } })).body.result.isError).toBe(true);
    expect((await call(app, "tools/call", { name: "get_weather", arguments: { city: "Atlantis" } })).body.error.code).toBe(-32602);
  });

  it("content: prompts, resources, templates, completion", async () => {
    const app = appOf(content);
    const prompt = (await call(app, "prompts/get", { name: "summarize_note", arguments: { note: "todo" } })).body.result;
    expect(prompt.messages[1].content.resource.text).toBe("Write docs");
    expect((await call(app, "resources/read", { uri: "notes://welcome" })).body.result.contents[0].text).toBe("Hello!");
    expect((await call(app, "resources/read", { uri: "notes://nope" })).body.error.data).toEqual({ uri: "notes://nope" });
    const done = await call(app, "completion/complete", { ref: { type: "ref/resource", uri: "notes://{name}" }, argument: { name: "name", value: "w" } });
    expect(done.body.result.completion.values).toEqual(["welcome"]);
  });

  it("tasks: a task with input, and a protocol error", async () => {
    const app = appOf(tasks);
    const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
    const { taskId } = (await call(app, "tools/call", { name: "purge", arguments: {} }, { caps })).body.result;
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(app, "tasks/get", { taskId }, { caps })).body.result.status).toBe("input_required");
    await call(app, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }, { caps });
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(app, "tasks/get", { taskId }, { caps })).body.result.result.content[0].text).toBe("Purged.");
    const failed = (await call(app, "tools/call", { name: "purge", arguments: { mode: "protocol-error" } }, { caps })).body.result;
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(app, "tasks/get", { taskId: failed.taskId }, { caps })).body.result.error.message).toBe("quota exhausted");
    expect((await call(app, "tools/call", { name: "report", arguments: { pages: 1 } })).body.result.content[0].text).toMatch(/synchronously/);
  });
});

describe("docs/examples: plugins on the hooks", () => {
  const job = defineTool({
    name: "job",
    execution: { taskSupport: "optional" },
    inputSchema: { type: "object", properties: { fail: { type: "boolean" }, secret: { type: "string" } } },
    handler: (event, args: { fail?: boolean }) =>
      args.fail ? Promise.reject(new Error("no")) : mcpTask(event, { run: () => ({ content: [{ type: "text", text: "done" }] }) }),
  });

  it("audit-log: a line per request, with its outcome, and one per finished task; never the arguments", async () => {
    const lines: AuditEntry[] = [];
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [job] }, { plugins: [auditLog((e) => lines.push(e))], extensionPlugins: [mcpTasks()] }));
    const caps = { extensions: { [TASKS]: {} } };
    const { taskId } = (await call(app, "tools/call", { name: "job", arguments: { secret: "s3cret" } }, { caps, headers: { "x-forwarded-for": "10.0.0.7" } })).body.result;
    await call(app, "tools/call", { name: "job", arguments: { fail: true } });
    await call(app, "tools/call", { name: "nope" });
    await call(app, "tasks/get", { taskId }, { caps });
    expect(lines.map((l) => [l.caller, l.method, l.target, l.outcome, l.taskId])).toEqual([
      ["task", "task completed", "job", "ok", taskId],
      ["ip:10.0.0.7", "tools/call", "job", "ok", taskId],
      ["ip:unknown", "tools/call", "job", "tool_error", undefined],
      ["ip:unknown", "tools/call", "nope", -32602, undefined],
      ["ip:unknown", "tasks/get", undefined, "ok", taskId],
    ]);
    expect(JSON.stringify(lines)).not.toContain("s3cret");
  });

  it("rate-limit: refuses a caller past its burst with 429 and Retry-After, before the tool runs; others and polls go on", async () => {
    let now = 0;
    let ran = 0;
    const counted = defineTool({ name: "counted", handler: () => `${++ran}` });
    const app = appFor(defineMcpHandler({ name: "x", version: "1", tools: [counted] }, { plugins: [rateLimit({ burst: 2, perSecond: 1, now: () => now })] }));
    const from = (ip: string) => ({ headers: { "x-forwarded-for": ip } });
    expect((await call(app, "tools/call", { name: "counted" }, from("1.1.1.1"))).status).toBe(200);
    expect((await call(app, "tools/call", { name: "counted" }, from("1.1.1.1"))).status).toBe(200);
    const refused = await call(app, "tools/call", { name: "counted" }, from("1.1.1.1"));
    expect(refused.status).toBe(429);
    expect(refused.res.headers.get("retry-after")).toBe("1");
    expect(refused.body.error).toEqual({ code: -32000, message: "Rate limit exceeded", data: { retryAfterMs: 1000 } });
    expect(ran).toBe(2);
    expect((await call(app, "tools/call", { name: "counted" }, from("2.2.2.2"))).status).toBe(200);
    now += 1000;
    expect((await call(app, "tools/call", { name: "counted" }, from("1.1.1.1"))).status).toBe(200);
    expect(ran).toBe(4);
  });
});
