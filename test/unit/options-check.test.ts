// Every options object a user writes, checked where it is written: a misspelt key is a TypeError naming it
// and the name meant (or where it belongs), an enum value out of range one naming what it may be. That every
// valid option is still accepted is the rest of the suite: test/wire, test/model, the examples' tests and
// docs-examples run every documented call.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineMcpPlugin, definePrompt, defineResource, defineResourceTemplate, defineTool } from "../../src/index.ts";
import { mcpTasks } from "../../src/tasks/index.ts";
import { redisTaskStore } from "../../src/tasks/redis/index.ts";
import { bullmqExecutor, startTaskWorker } from "../../src/tasks/bullmq/index.ts";
import { durableObjectExecutor } from "../../src/tasks/durable-object/executor.ts";
import { durableObjectTaskStore } from "../../src/tasks/durable-object/store.ts";
import { defineTaskRun, memoryTaskStore } from "../../src/tasks/index.ts";
import { createTestClient } from "../../src/tasks/testing/index.ts";
import { introspectionVerifier, jwtVerifier, mcpAuth } from "../../src/auth/index.ts";
import { mcpOpenTelemetry } from "../../src/otel/index.ts";
import { mcpTask } from "../../src/tasks/index.ts";
import { appFor, call, TASKS } from "../../src/tasks/testing/client.ts";

const server = { name: "s", version: "1" };
const read = () => "x";
const handler = () => "x";
// Plain JavaScript, or a cast, gets past the types: these are what the checks are for.
const loose = (value: unknown): any => value;

type Row = [entry: string, call: () => unknown, message: string];
const rows: Row[] = [
  ["mcpTasks({ ttl })", () => mcpTasks(loose({ ttl: 1000 })), 'mcpTasks(): unknown option "ttl" (did you mean "ttlMs"?)'],
  ["mcpTasks({ pollInterval })", () => mcpTasks(loose({ pollInterval: 500 })), 'unknown option "pollInterval" (did you mean "pollIntervalMs"?)'],
  ["mcpTasks({ secret })", () => mcpTasks(loose({ secret: "s" })), 'unknown option "secret" (secret is the store\'s option: give it to the store'],
  ["mcpTasks({ maxTaskByte })", () => mcpTasks(loose({ maxTaskByte: 1 })), 'did you mean "maxTaskBytes"?'],
  ["redisTaskStore({ leaseMS })", () => redisTaskStore(loose({ url: "redis://127.0.0.1:1", leaseMS: 5000 })), 'redisTaskStore(): unknown option "leaseMS" (did you mean "leaseMs"?)'],
  [
    "a tool's top-level taskSupport",
    () => defineTool(loose({ name: "t", taskSupport: "optional", handler })),
    'Tool "t": unknown option "taskSupport" (taskSupport goes under execution: execution: { taskSupport: "optional" })',
  ],
  ["a tool's misspelt key", () => defineTool(loose({ name: "t", inputSchem: {}, handler })), 'Tool "t": unknown option "inputSchem" (did you mean "inputSchema"?)'],
  ["a tool's execution key", () => defineTool(loose({ name: "t", execution: { tasksupport: "optional" }, handler })), 'unknown option "execution.tasksupport" (did you mean "execution.taskSupport"?)'],
  [
    "a tool listed without defineTool",
    () => defineMcpHandler({ ...server, tools: [loose({ name: "t", handlr: handler })] }),
    'Tool "t": unknown option "handlr" (did you mean "handler"?)',
  ],
  ["a prompt's misspelt key", () => definePrompt(loose({ name: "p", argument: {}, handler })), 'Prompt "p": unknown option "argument" (did you mean "arguments"?)'],
  ["a resource's misspelt key", () => defineResource(loose({ uri: "a://b", name: "b", mimetype: "text/plain", read })), 'unknown option "mimetype" (did you mean "mimeType"?)'],
  [
    "a resource template's misspelt key",
    () => defineResourceTemplate(loose({ uriTemplate: "a://{b}", name: "b", complet: {}, read })),
    'Resource template "a://{b}": unknown option "complet" (did you mean "complete"?)',
  ],
  ["the server options' misspelt key", () => defineMcpHandler(loose({ ...server, tool: [] })), 'Server options: unknown option "tool" (did you mean "tools"?)'],
  ["the server options' cache key", () => defineMcpHandler(loose({ ...server, cache: { ttl: 1 } })), 'unknown option "cache.ttl" (did you mean "cache.ttlMs"?)'],
  [
    "a handler config key given with the server options",
    () => defineMcpHandler(loose({ ...server, plugins: [] })),
    "unknown option \"plugins\" (plugins: it is the handler config's (defineMcpHandler's second argument))",
  ],
  ["the handler config's { plugin }", () => defineMcpHandler(server, loose({ plugin: [] })), 'defineMcpHandler() config: unknown option "plugin" (did you mean "plugins"?)'],
  ["the handler config's misspelt key", () => defineMcpHandler(server, loose({ maxBodyBytes: 1 })), 'unknown option "maxBodyBytes" (did you mean "maxBodySize"?)'],
  ["the handler config's legacy sessions", () => defineMcpHandler(server, loose({ legacy: { maxSession: 1 } })), 'unknown option "legacy.maxSession" (did you mean "legacy.maxSessions"?)'],
  ["the handler config's requestState", () => defineMcpHandler(server, loose({ requestState: { ttl: 1 } })), 'unknown option "requestState.ttl" (did you mean "requestState.ttlMs"?)'],
  [
    "a server option given to the handler config",
    () => defineMcpHandler(server, loose({ tools: [] })),
    "unknown option \"tools\" (tools: it is the server options' (defineMcpHandler's first argument))",
  ],
  ["a plugin's misspelt hook", () => defineMcpPlugin(loose({ name: "p", wrapRequests: () => ({}) })), 'defineMcpPlugin(): unknown option "wrapRequests" (did you mean "wrapRequest"?)'],
  [
    "a misspelt hook of a plugin installed as a plain object",
    () => defineMcpHandler(server, { plugins: [loose({ name: "audit", beforeToolcall: () => {} })] }),
    'defineMcpHandler: the plugin audit in plugins: unknown option "beforeToolcall" (did you mean "beforeToolCall"?)',
  ],
  [
    "a method on a plugin of hooks only",
    () => defineMcpPlugin(loose({ name: "p", methods: {} })),
    'unknown option "methods" (methods: only an MCP extension (a plugin with an id, installed with extensionPlugins) has it)',
  ],
  [
    "an extension's misspelt key",
    () => defineMcpPlugin(loose({ id: "com.example/x", setting: {} })),
    'defineMcpPlugin() com.example/x: unknown option "setting" (did you mean "settings"?)',
  ],
  [
    "an extension method's misspelt key",
    () => defineMcpPlugin(loose({ id: "com.example/x", methods: { "x/y": { handler, nameParams: "id" } } })),
    'unknown option "methods[\\"x/y\\"].nameParams" (did you mean "methods[\\"x/y\\"].nameParam"?)',
  ],
  ["memoryTaskStore({ ttlMs })", () => (memoryTaskStore as (options: unknown) => unknown)({ ttlMs: 1 }), "memoryTaskStore() takes no options, not ttlMs: limits and lifetimes are mcpTasks()'s"],
  ["durableObjectTaskStore({ leaseMS })", () => durableObjectTaskStore(loose({}), loose({ leaseMS: 1 })), 'durableObjectTaskStore(): unknown option "leaseMS" (did you mean "leaseMs"?)'],
  ["durableObjectExecutor({ timeout })", () => durableObjectExecutor(loose({}), loose({ timeout: 1 })), 'durableObjectExecutor(): unknown option "timeout" (did you mean "timeoutMs"?)'],
  ["bullmqExecutor({ queue })", () => bullmqExecutor(loose({ url: "redis://127.0.0.1:1", queue: "q" })), 'bullmqExecutor(): unknown option "queue" (did you mean "queueName"?)'],
  ["startTaskWorker({ concurency })", () => startTaskWorker(loose({ url: "redis://127.0.0.1:1", concurency: 2 })), 'startTaskWorker(): unknown option "concurency" (did you mean "concurrency"?)'],
  ["defineTaskRun({ maxAttempt })", () => defineTaskRun(loose({ name: "r", maxAttempt: 2, run: handler })), 'defineTaskRun("r"): unknown option "maxAttempt" (did you mean "maxAttempts"?)'],
  ["createTestClient({ capability })", () => createTestClient(() => new Response(), loose({ capability: {} })), 'createTestClient(): unknown option "capability" (did you mean "capabilities"?)'],
  ["mcpAuth({ scope })", () => mcpAuth(loose({ resource: "https://mcp.example.com/mcp", verifier: () => ({}), scope: ["mcp"] })), 'mcpAuth(): unknown option "scope" (did you mean "scopes"?)'],
  ["mcpAuth({ cache: { maxSize } })", () => mcpAuth(loose({ resource: "https://mcp.example.com/mcp", verifier: () => ({}), cache: { maxSize: 1 } })), 'unknown option "cache.maxSize"'],
  ["jwtVerifier({ issuer })", () => jwtVerifier(loose({ issuer: "https://auth.example.com" })), 'jwtVerifier(): unknown option "issuer" (give issuers: [{ issuer }])'],
  [
    "a JWT issuer's misspelt key",
    () => jwtVerifier(loose({ issuers: [{ issuer: "https://auth.example.com", algorithm: ["ES256"] }] })),
    'unknown option "issuers[0].algorithm" (did you mean "issuers[0].algorithms"?)',
  ],
  [
    "an audience policy's misspelt key",
    () => jwtVerifier(loose({ issuers: [{ issuer: "https://auth.example.com", audience: { allowMising: true } }] })),
    'unknown option "issuers[0].audience.allowMising" (did you mean "issuers[0].audience.allowMissing"?)',
  ],
  [
    "introspectionVerifier({ clientSecrets })",
    () => introspectionVerifier(loose({ issuer: "https://auth.example.com", clientId: "c", clientSecrets: "s" })),
    'introspectionVerifier(): unknown option "clientSecrets" (did you mean "clientSecret"?)',
  ],
  ["mcpOpenTelemetry({ recordPayloads })", () => mcpOpenTelemetry(loose({ recordPayloads: true })), 'mcpOpenTelemetry(): unknown option "recordPayloads"'],
];

const enumRows: Row[] = [
  [
    'taskSupport: "always"',
    () => defineTool(loose({ name: "t", execution: { taskSupport: "always" }, handler })),
    'Tool "t": execution.taskSupport must be "required", "optional" or "forbidden", not "always"',
  ],
  [
    "a resource's cacheScope",
    () => defineResource(loose({ uri: "a://b", name: "b", cache: { cacheScope: "shared" }, read })),
    'Resource "a://b": cache.cacheScope must be "public" or "private", not "shared"',
  ],
  [
    "the server's cacheScope",
    () => defineMcpHandler(loose({ ...server, cache: { cacheScope: "Public" } })),
    'Server options: cache.cacheScope must be "public" or "private", not "Public" (did you mean "public"?)',
  ],
  [
    "introspection's clientAuthMethod",
    () => introspectionVerifier(loose({ issuer: "https://auth.example.com", clientId: "c", clientSecret: "s", clientAuthMethod: "basic" })),
    'introspectionVerifier(): clientAuthMethod must be "client_secret_basic" or "client_secret_post", not "basic"',
  ],
];

describe("a misspelt option is refused where it is written", () => {
  it.each(rows)("%s", (_entry, call, message) => {
    expect(call).toThrow(TypeError);
    expect(call).toThrow(message);
  });
});

describe("an enum value out of range is refused with what it may be", () => {
  it.each(enumRows)("%s", (_entry, call, message) => {
    expect(call).toThrow(TypeError);
    expect(call).toThrow(message);
  });
});

describe("what is valid still passes", () => {
  it("takes every documented option of mcpTasks, maxTaskBytes included", () => {
    expect(() => mcpTasks({ ttlMs: 1000, pollIntervalMs: 500, maxTaskBytes: 2048, max: 10, maxPerOwner: 2 })).not.toThrow();
  });

  it("takes a plugin that keeps its own state beside its hooks (hooks see the plugin as this)", () => {
    const counter = { name: "counter", calls: 0, wrapRequest(this: { calls: number }, _e: unknown, next: () => unknown) { this.calls++; return next(); } };
    expect(() => defineMcpHandler(server, { plugins: [loose(counter)] })).not.toThrow();
  });

  it("takes a tool, prompt and resources with every key", () => {
    const tool = defineTool({ name: "t", title: "T", description: "d", icons: [], annotations: {}, execution: { taskSupport: "optional" }, scopes: [], _meta: {}, handler });
    const prompt = definePrompt({ name: "p", title: "P", description: "d", icons: [], complete: {}, scopes: [], _meta: {}, handler });
    const resource = defineResource({ uri: "a://b", name: "b", mimeType: "text/plain", size: 1, cache: { ttlMs: 1, cacheScope: "private" }, read });
    const template = defineResourceTemplate({ uriTemplate: "a://{b}", name: "b", complete: {}, read });
    expect(() =>
      defineMcpHandler(
        { ...server, tools: [tool], prompts: [prompt], resources: [resource], resourceTemplates: [template], cache: { ttlMs: 1 }, pageSize: 5, serverInfoMeta: false },
        { legacy: { maxSessions: 1, idleTimeoutMs: 1 }, requestState: { ttlMs: 1 }, maxBodySize: 1, bodyTimeoutMs: 1, keepAliveMs: 1000, allowedHosts: false, allowedOrigins: false },
      ),
    ).not.toThrow();
  });
});

describe("the request path pays nothing", () => {
  // The checks run where an options object is made or mounted. The files a request runs through never call one.
  const requestPath = [
    "src/transport/modern.ts",
    "src/transport/legacy.ts",
    "src/transport/request.ts",
    "src/transport/listen.ts",
    "src/transport/body.ts",
    "src/transport/core-methods.ts",
    "src/transport/through-hooks.ts",
    "src/features/call-tool.ts",
    "src/features/content-methods.ts",
    "src/features/tool-result.ts",
    "src/tasks/handlers.ts",
    "src/tasks/runtime.ts",
  ];
  it.each(requestPath)("%s calls no check", (file) => {
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
    expect(text).not.toMatch(/\b(checkOptions|checkOneOf|checkToolDefinition|checkPluginKeys|checkHandlerConfig|checkCacheHints|checkResourceDefinition)\b|utils\/options/);
  });
});

describe("the checks run once, at definition and mount", () => {
  // Object.keys of an options object is what a check reads: a proxy counts it. Requests after mount, tasks
  // included, never read an options object's keys again.
  const counted = <T extends object>(target: T, counts: { keys: number }): T =>
    new Proxy(target, { ownKeys: (t) => (counts.keys++, Reflect.ownKeys(t)) });

  it("serves tools/list, tools/call and a task's tasks/get without reading any options object's keys", async () => {
    const counts = { keys: 0 };
    const tool = counted(defineTool({ name: "echo", execution: { taskSupport: "optional" }, handler: (event) => mcpTask(event, { run: () => "done" }) }), counts);
    const tasks = mcpTasks(counted({ ttlMs: 60_000, pollIntervalMs: 10 }, counts));
    const handler = defineMcpHandler(counted({ ...server, tools: [tool] }, counts), counted({ extensionPlugins: [tasks], keepAliveMs: 1000 }, counts));
    const app = appFor(handler);
    const mounted = counts.keys;
    expect(mounted).toBeGreaterThan(0);
    const caps = { extensions: { [TASKS]: {} } };
    for (let i = 0; i < 3; i++) {
      expect((await call(app, "tools/list")).status).toBe(200);
      const created = await call(app, "tools/call", { name: "echo", arguments: {} }, { caps });
      expect(created.body.result.resultType).toBe("task");
      const got = await call(app, "tasks/get", { taskId: created.body.result.taskId }, { caps });
      expect(got.status).toBe(200);
    }
    expect(counts.keys).toBe(mounted);
  });
});
