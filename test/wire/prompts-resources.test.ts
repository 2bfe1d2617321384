import { describe, expect, it } from "vitest";
import { defineMcpHandler } from "../../src/index.ts";
import { contentApp } from "../fixtures/content-app.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectCacheable, expectError, expectResult, expectShape } from "../helpers/schemas.ts";
import * as core from "@modelcontextprotocol/core";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest } from "../helpers/wire.ts";

const { app, handler } = contentApp();
const S = core as any;

async function listAll(method: string, key: string) {
  const items: any[] = [];
  let cursor: string | undefined;
  do {
    const r = await call(app, method, cursor ? { cursor } : {});
    const result = r.body.result;
    expect(result.resultType).toBe("complete");
    expectCacheable(result);
    items.push(...result[key]);
    cursor = result.nextCursor;
  } while (cursor);
  return items;
}

describe("capabilities", () => {
  it("advertises prompts, resources and completions only when there are some", async () => {
    const caps = (await call(app, "server/discover")).body.result.capabilities;
    expect(caps).toMatchObject({ prompts: { listChanged: true }, resources: { subscribe: true, listChanged: true }, completions: {} });
    const bare = appFor(defineMcpHandler({ name: "x", version: "1" }));
    const bareCaps = (await call(bare, "server/discover")).body.result.capabilities;
    expect(bareCaps.prompts ?? bareCaps.resources ?? bareCaps.completions).toBeUndefined();
    for (const m of ["prompts/list", "resources/list", "resources/read", "completion/complete"]) {
      expect((await call(bare, m, { uri: "x" })).status).toBe(404);
    }
  });
});

describe("prompts", () => {
  it("lists deterministically across pages with arguments from the zod schema", async () => {
    const prompts = await listAll("prompts/list", "prompts");
    expect(prompts.map((p) => p.name)).toEqual(["simple", "with_args", "needs_context"]);
    expect(prompts[1].arguments).toEqual([{ name: "language", description: "Language", required: true }, { name: "style" }]);
    for (const p of prompts) expectShape(S.PromptSchema, p);
  });

  it("gets a prompt from a string, from messages, and validates arguments", async () => {
    const simple = expectResult((await call(app, "prompts/get", { name: "simple" })).body, S.GetPromptResultSchema);
    expect(simple.messages).toEqual([{ role: "user", content: { type: "text", text: "Say hello." } }]);
    const args = expectResult((await call(app, "prompts/get", { name: "with_args", arguments: { language: "go" } })).body, S.GetPromptResultSchema);
    expect(args.messages[0].content.text).toBe("Write go in any style");
    expect(args.messages[1].content.type).toBe("image");
    expect(args.ttlMs).toBeUndefined();
    expectError((await call(app, "prompts/get", { name: "with_args", arguments: { language: 3 } })).body, -32602);
    expectError((await call(app, "prompts/get", { name: "nope" })).body, -32602);
  });

  it("allows MRTR on prompts/get", async () => {
    const caps = { elicitation: {} };
    const first = (await call(app, "prompts/get", { name: "needs_context" }, { caps })).body.result;
    expect(first.resultType).toBe("input_required");
    const second = await call(app, "prompts/get", {
      name: "needs_context",
      inputResponses: { ctx: { action: "accept", content: { context: "tests" } } },
      requestState: first.requestState,
    }, { caps });
    expect(second.body.result.messages[0].content.text).toBe("ctx=tests");
    const tampered = await call(app, "prompts/get", { name: "needs_context", requestState: first.requestState + "x" }, { caps });
    expectError(tampered.body, -32602);
  });
});

describe("resources", () => {
  it("lists resources and templates, each page cacheable", async () => {
    expect((await listAll("resources/list", "resources")).map((r) => r.uri)).toEqual(["test://text", "test://bytes", "test://empty"]);
    const templates = await listAll("resources/templates/list", "resourceTemplates");
    expect(templates).toEqual([{ uriTemplate: "test://items/{id}", name: "Item", mimeType: "application/json" }]);
  });

  it("reads text and blobs with cache hints, per resource when given", async () => {
    const text = expectResult((await call(app, "resources/read", { uri: "test://text" })).body, S.ReadResourceResultSchema);
    expect(text.contents).toEqual([{ uri: "test://text", mimeType: "text/plain", text: "hello text" }]);
    expectCacheable(text);
    const bytes = (await call(app, "resources/read", { uri: "test://bytes" })).body.result;
    expect(bytes.contents[0].blob).toBe(Buffer.from([1, 2, 3]).toString("base64"));
    expect([bytes.ttlMs, bytes.cacheScope]).toEqual([5, "private"]);
  });

  it("reads through a URI template", async () => {
    const r = (await call(app, "resources/read", { uri: "test://items/42" })).body.result;
    expect(r.contents).toEqual([{ uri: "test://items/42", mimeType: "application/json", text: '{"id":"42"}' }]);
  });

  it("answers -32602 with data.uri for an unknown resource, and never an empty contents", async () => {
    for (const uri of ["test://missing", "test://empty"]) {
      const error = expectError((await call(app, "resources/read", { uri })).body, -32602);
      expect(error.data).toEqual({ uri });
    }
  });

  it("requires Mcp-Name to equal the uri", async () => {
    expectError((await call(app, "resources/read", { uri: "test://text" }, { headers: { "mcp-name": "test://other" } })).body, -32020);
  });
});

describe("completion/complete", () => {
  it("completes prompt arguments and template variables", async () => {
    const p = (await call(app, "completion/complete", { ref: { type: "ref/prompt", name: "with_args" }, argument: { name: "language", value: "p" } })).body.result;
    expect(p.completion).toEqual({ values: ["python", "pascal", "perl"], total: 3, hasMore: false });
    const t = (await call(app, "completion/complete", { ref: { type: "ref/resource", uri: "test://items/{id}" }, argument: { name: "id", value: "12" } })).body.result;
    expect(t.completion.values).toEqual(["12", "123"]);
    const none = (await call(app, "completion/complete", { ref: { type: "ref/prompt", name: "simple" }, argument: { name: "x", value: "" } })).body.result;
    expect(none.completion.values).toEqual([]);
    expectError((await call(app, "completion/complete", { ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } })).body, -32602);
  });
});

describe("listen: prompts, resources and subscriptions", () => {
  it("pushes list changes and resource updates only as agreed", async () => {
    const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", {
      notifications: { promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ["test://text"] },
    }, { id: 3 })));
    const ack = await sse.next();
    expect(ack.params.notifications).toEqual({ promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ["test://text"] });
    handler.notifyListChanged("tools");
    handler.notifyListChanged("prompts");
    expect((await sse.next()).method).toBe("notifications/prompts/list_changed");
    await call(app, "tools/call", { name: "touch" });
    expect((await sse.next()).params).toEqual({ uri: "test://text", _meta: { "io.modelcontextprotocol/subscriptionId": 3 } });
    handler.notifyResourceUpdated("test://bytes");
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });
});

describe("legacy era", () => {
  it("serves prompts, resources, completion and resource subscriptions", async () => {
    const c = await legacyClient(app);
    expect(c.initResult.capabilities).toMatchObject({ prompts: {}, resources: {}, completions: {}, logging: {} });
    const list = (await c.request("prompts/list")).body.result;
    expect(list.resultType).toBeUndefined();
    expect(list.ttlMs).toBeUndefined();
    const read = (await c.request("resources/read", { uri: "test://text" })).body.result;
    expect(read).toEqual({ contents: [{ uri: "test://text", mimeType: "text/plain", text: "hello text" }] });
    expect((await c.request("resources/subscribe", { uri: "test://text" })).body.result).toEqual({});
    const sse = sseReader(await c.get());
    handler.notifyResourceUpdated("test://text");
    expect(await sse.next()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://text" } });
    expect((await c.request("resources/unsubscribe", { uri: "test://text" })).body.result).toEqual({});
    handler.notifyResourceUpdated("test://text");
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });
});
