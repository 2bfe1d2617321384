// The docs' examples are real programs: each is exercised here as a user would call it.
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { mcp as basics } from "../../docs/examples/basics.ts";
import { mcp as content } from "../../docs/examples/content.ts";
import { mcp as tasks } from "../../docs/examples/tasks.ts";
import { call, TASKS } from "../helpers/wire.ts";

const appOf = (h: typeof basics) => new H3().all("/mcp", h);

describe("docs/examples", () => {
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
