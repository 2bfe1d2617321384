// Tools, prompts and resources changed after mount through the handler's add/replace/remove: listen
// streams (modern and legacy) hear list_changed, the next list shows the change, calls reach the new
// handlers; refusals change nothing and announce nothing; arrays edited in place change nothing.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineMcpHandler, definePrompt, defineResource, defineResourceTemplate, defineTool, type ToolDefinition } from "../../src/index.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectError, expectResult, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest } from "../helpers/wire.ts";
import * as core from "@modelcontextprotocol/core";

const SUB = "io.modelcontextprotocol/subscriptionId";
const echo = defineTool({ name: "echo", inputSchema: { text: z.string() }, handler: (_e, { text }) => text });
const weather = defineTool({ name: "weather", description: "v1", inputSchema: { city: z.string() }, handler: (_e, { city }) => `${city}: 21°C` });
const weather2 = defineTool({ name: "weather", description: "v2", inputSchema: { city: z.string() }, handler: (_e, { city }) => `${city}: 5°C` });

function served() {
  const tools: ToolDefinition<any>[] = [echo];
  const handler = defineMcpHandler({ name: "live", version: "1", tools });
  return { handler, app: appFor(handler), tools };
}

async function listen(app: ReturnType<typeof appFor>, notifications: Record<string, boolean>) {
  const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications }, { id: "L" })));
  await sse.next(); // the acknowledgement
  return sse;
}

const toolNames = async (app: ReturnType<typeof appFor>) =>
  expectResult((await call(app, "tools/list")).body, S.listTools).tools.map((t: any) => t.name);
const callText = async (app: ReturnType<typeof appFor>, name: string, args: Record<string, unknown>) =>
  (await call(app, "tools/call", { name, arguments: args })).body;

describe("tools changed after mount", () => {
  it("add: the listen stream hears tools/list_changed, tools/list shows the tool, tools/call reaches it", async () => {
    const { handler, app } = served();
    const sse = await listen(app, { toolsListChanged: true });
    expect((await callText(app, "weather", { city: "Oslo" })).error.code).toBe(-32602);
    handler.add({ tools: [weather] });
    expect(await sse.next()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUB]: "L" } } });
    expect(await toolNames(app)).toEqual(["echo", "weather"]);
    expect((await callText(app, "weather", { city: "Oslo" })).result.content[0].text).toBe("Oslo: 21°C");
    expectError(await callText(app, "weather", { city: 3 }), -32602);
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });

  it("replace: same place in the list, new entry, new handler", async () => {
    const { handler, app } = served();
    handler.add({ tools: [weather] });
    const sse = await listen(app, { toolsListChanged: true });
    handler.replace({ tools: [weather2] });
    expect((await sse.next()).method).toBe("notifications/tools/list_changed");
    const listed = (await call(app, "tools/list")).body.result.tools;
    expect(listed.map((t: any) => [t.name, t.description])).toEqual([["echo", undefined], ["weather", "v2"]]);
    expect((await callText(app, "weather", { city: "Oslo" })).result.content[0].text).toBe("Oslo: 5°C");
    await sse.close();
  });

  it("remove: gone from the list, tools/call answers -32602 for it", async () => {
    const { handler, app } = served();
    handler.add({ tools: [weather] });
    const sse = await listen(app, { toolsListChanged: true });
    handler.remove({ tools: ["weather"] });
    expect((await sse.next()).method).toBe("notifications/tools/list_changed");
    expect(await toolNames(app)).toEqual(["echo"]);
    expect(expectError(await callText(app, "weather", { city: "Oslo" }), -32602).message).toBe("Unknown tool: weather");
    await sse.close();
  });

  it("tells a legacy session's GET stream too", async () => {
    const { handler, app } = served();
    const client = await legacyClient(app);
    const sse = sseReader(await client.get());
    handler.add({ tools: [weather] });
    expect(await sse.next()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} });
    expect((await client.request("tools/list")).body.result.tools.map((t: any) => t.name)).toEqual(["echo", "weather"]);
    expect((await client.request("tools/call", { name: "weather", arguments: { city: "Oslo" } })).body.result.content[0].text).toBe("Oslo: 21°C");
    await sse.close();
    await client.del();
  });

  it.each([
    ["adding a name already served", (h: any) => h.add({ tools: [echo] }), /^add\(\): the tool "echo" is already served; use replace\(\)/],
    ["replacing a name not served", (h: any) => h.replace({ tools: [weather] }), /^replace\(\): no tool "weather" is served/],
    ["removing a name not served", (h: any) => h.remove({ tools: ["nope"] }), /^remove\(\): no tool "nope" is served/],
    ["naming a tool twice", (h: any) => h.add({ tools: [weather, weather2] }), /^add\(\): the same tool is named twice in tools/],
    ["a tool whose schema is refused", (h: any) => h.add({ tools: [defineTool({ name: "bad", inputSchema: "x" as never, handler: () => "" })] }), /^Tool "bad": inputSchema is the string "x"/],
    ["a list that is not an array", (h: any) => h.add({ tools: weather }), /^add\(\): tools must be an array/],
  ])("refuses %s with a TypeError, changing and announcing nothing", async (_case, act, message) => {
    const { handler, app } = served();
    const sse = await listen(app, { toolsListChanged: true });
    const before = (await call(app, "tools/list")).body.result;
    expect(() => act(handler)).toThrow(TypeError);
    expect(() => act(handler)).toThrow(message);
    expect((await call(app, "tools/list")).body.result).toEqual(before);
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });

  it("ignores arrays edited in place after mount: only add/replace/remove change what is served", async () => {
    const { handler, app, tools } = served();
    tools.push(weather);
    handler.notifyListChanged("tools");
    expect(await toolNames(app)).toEqual(["echo"]);
    expect((await callText(app, "weather", { city: "Oslo" })).error.code).toBe(-32602);
    handler.add({ tools: [weather] });
    expect(tools).toEqual([echo, weather]); // the app's own array is left as it was
    expect(await toolNames(app)).toEqual(["echo", "weather"]);
  });

  it("cannot change options given as a function of the event, and says what to do instead", () => {
    const handler = defineMcpHandler(() => ({ name: "f", version: "1", tools: [echo] }));
    expect(() => handler.add({ tools: [weather] })).toThrow(/^add\(\) needs options given as an object: .*return the new lists from it .*notifyListChanged\(\)/);
  });
});

describe("prompts and resources changed after mount", () => {
  const greet = definePrompt({ name: "greet", arguments: { who: z.string() }, handler: (_e, { who }) => `Hello ${who}` });
  const hint = definePrompt({ name: "hint", handler: () => "A hint" });
  const readme = defineResource({ uri: "docs://readme", name: "README", read: () => "# Hi" });
  const license = defineResource({ uri: "docs://license", name: "LICENSE", read: () => "MIT" });
  const user = defineResourceTemplate({ uriTemplate: "users://{id}", name: "User", read: (_e, _uri, { id }) => `user ${id}` });
  const mounted = () => {
    const handler = defineMcpHandler({ name: "live", version: "1", prompts: [hint], resources: [license] });
    return { handler, app: appFor(handler) };
  };

  it("adds them: announced once per list, listed and served", async () => {
    const { handler, app } = mounted();
    const sse = await listen(app, { promptsListChanged: true, resourcesListChanged: true });
    handler.add({ prompts: [greet], resources: [readme], resourceTemplates: [user] });
    const heard = [(await sse.next()).method, (await sse.next()).method].sort();
    expect(heard).toEqual(["notifications/prompts/list_changed", "notifications/resources/list_changed"]);
    expect(await sse.quiet()).toBe(true);
    const prompts = (await call(app, "prompts/list")).body.result;
    expectShape(core.ListPromptsResultSchema as never, prompts);
    expect(prompts.prompts.map((p: any) => p.name)).toEqual(["hint", "greet"]);
    expect((await call(app, "prompts/get", { name: "greet", arguments: { who: "Ada" } })).body.result.messages[0].content.text).toBe("Hello Ada");
    expect((await call(app, "resources/list")).body.result.resources.map((r: any) => r.uri)).toEqual(["docs://license", "docs://readme"]);
    expect((await call(app, "resources/read", { uri: "docs://readme" })).body.result.contents[0].text).toBe("# Hi");
    expect((await call(app, "resources/templates/list")).body.result.resourceTemplates.map((t: any) => t.uriTemplate)).toEqual(["users://{id}"]);
    expect((await call(app, "resources/read", { uri: "users://7" })).body.result.contents[0].text).toBe("user 7");
    await sse.close();
  });

  it("advertises a kind the server had none of from the change on (on the next discover)", async () => {
    const { handler, app } = served();
    expect((await call(app, "server/discover")).body.result.capabilities.prompts).toBeUndefined();
    handler.add({ prompts: [greet] });
    expect((await call(app, "server/discover")).body.result.capabilities.prompts).toEqual({ listChanged: true });
  });

  it("removes them by name, URI and uriTemplate", async () => {
    const { handler, app } = mounted();
    handler.add({ prompts: [greet], resources: [readme], resourceTemplates: [user] });
    handler.remove({ prompts: ["greet"], resources: ["docs://readme"], resourceTemplates: ["users://{id}"] });
    expect((await call(app, "prompts/list")).body.result.prompts.map((p: any) => p.name)).toEqual(["hint"]);
    expectError((await call(app, "prompts/get", { name: "greet", arguments: { who: "Ada" } })).body, -32602);
    expect((await call(app, "resources/list")).body.result.resources.map((r: any) => r.uri)).toEqual(["docs://license"]);
    expect((await call(app, "resources/templates/list")).body.result.resourceTemplates).toEqual([]);
    expect((await call(app, "resources/read", { uri: "users://7" })).body.error).toBeDefined();
  });
});
