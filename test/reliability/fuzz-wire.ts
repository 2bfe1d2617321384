// The wire fuzzer: generated and mutated JSON-RPC messages against an app in-process (app.fetch), each checked
// by an oracle that knows the transport's rules. Shared by test/reliability/fuzz.test.ts (5 000 cases) and
// scripts/fuzz.ts (100 000), so nothing here imports vitest.
//
// A case is a valid request (one of many templates: every core method, the tasks methods, listen filters, MRTR
// retries with a real requestState, legacy requests on a real session) with zero to four mutations of its body,
// its headers, its serialized text or its HTTP method; or raw garbage. Each case gets a fresh app, and the pool
// values a case refers to (a live task, a task waiting for input, a finished one, another caller's, a legacy
// session, signed tokens) are made on that app, over the wire, before the case is sent.
//
// Every answer must be: below 500; a JSON-RPC result or error envelope (checked with the official schema) or an
// SSE stream of them, or an empty 202 for a notification; with the id echoed; with the HTTP status the spec pairs
// with its code; never the generic "Internal error" an unexpected exception turns into; and, for a case no
// mutation touched, the success its template expects. Nothing may escape the handler to h3, no promise may be
// rejected unhandled, and once the case's streams are closed no listener, listen stream or pending legacy request
// may remain.
import fc from "fast-check";
import { z } from "zod";
import type { H3 } from "h3";
import {
  defineMcpHandler,
  defineTool,
  mcpElicit,
  mcpInput,
  mcpLog,
  mcpProgress,
  mcpRequestState,
  McpJsonRpcError,
  type CallToolResult,
  type McpHandler,
} from "../../src/index.ts";
import { canCreateTask, mcpTask, mcpTasks, type McpTasksPlugin } from "../../src/tasks/index.ts";
import { prompts, resources, templates as resourceTemplates } from "../fixtures/content-app.ts";
import {
  CALLER,
  createClock,
  META_CAPS,
  META_SUB,
  META_VERSION,
  mountWithEscapeLog,
  nameParamOf,
  parseMessages,
  SCHEMAS,
  sequentialIds,
  shapeIssues,
  sseMessages,
  TASKS,
  turns,
  V,
  within,
} from "./support.ts";
import { mountOf } from "../../src/transport/handler.ts";

// --- The app under test ---

export const FUZZ_MAX_BODY = 64 * 1024;
const HANG_MS = 5_000;
const LEGACY_VERSION = "2025-11-25";

const askName = mcpElicit({
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
});
const askConfirm = mcpElicit({
  message: "Go on?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
});

const STEPS = ["update", "ask", "return", "throw", "rpc", "hang"] as const;
type Step = (typeof STEPS)[number];

/** A task's `run` that follows a plan: every step is client input, so the fuzzer reaches every ending. */
async function runPlan(task: { update(u: { statusMessage: string }): void; requestInput(r: any): Promise<unknown> }, plan: Step[]) {
  for (const [i, step] of plan.entries()) {
    switch (step) {
      case "update":
        task.update({ statusMessage: `step ${i}` });
        break;
      case "ask":
        await task.requestInput({ confirm: askConfirm });
        break;
      case "return":
        return { content: [{ type: "text", text: `done at step ${i}` }] } as CallToolResult;
      case "throw":
        throw new Error(`failed at step ${i}`);
      case "rpc":
        throw new McpJsonRpcError(-32000, `refused at step ${i}`);
      case "hang":
        await new Promise(() => {});
    }
  }
  return { content: [] } as CallToolResult;
}

// Module-level, so every fresh app reuses the compiled tool table.
const FUZZ_TOOLS = [
  defineTool({ name: "echo", inputSchema: z.object({ text: z.string() }), handler: (_e, { text }) => text }),
  defineTool({
    name: "regional",
    inputSchema: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }) }),
    handler: (_e, { region }) => `region ${region}`,
  }),
  defineTool({
    name: "greet",
    handler: (event) => {
      const input = mcpInput(event, { user_name: askName });
      if (!input.complete) return input.ask({ state: { round: 1 } });
      const state = mcpRequestState<{ round: number }>(event);
      return `Hello ${String(input.answers.user_name?.content?.name)} (round ${state?.round})`;
    },
  }),
  defineTool({
    name: "job",
    execution: { taskSupport: "optional" },
    inputSchema: z.object({ plan: z.array(z.enum(STEPS)).max(8).default(["return"]) }),
    handler: (event, { plan }) => {
      if (!canCreateTask(event)) return "ran synchronously";
      return mcpTask(event, { statusMessage: "Queued", run: (task) => runPlan(task, plan) });
    },
  }),
  defineTool({ name: "must_task", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: () => ({ content: [] }) }) }),
  defineTool({
    name: "progress",
    handler: async (event) => {
      mcpProgress(event, 1, 2, "half");
      mcpLog(event, "info", { step: 1 });
      await Promise.resolve();
      mcpProgress(event, 2, 2);
      return "finished";
    },
  }),
  defineTool({ name: "throws", handler: () => { throw new Error("upstream refused"); } }),
  defineTool({ name: "rpc_error", handler: () => { throw new McpJsonRpcError(-32000, "refused", { why: "fuzz" }); } }),
];

/** Breaks the app on purpose, to show that the oracle notices: gets each answer and returns what the case sees. */
export type Mutant = (response: Response, request: Request, world: FuzzWorld) => Response | Promise<Response>;

export interface FuzzWorld {
  app: H3;
  /** Sends a case's request (through the mutant, if any). */
  send(request: Request): Promise<Response>;
  handler: McpHandler;
  plugin: McpTasksPlugin;
  escaped: unknown[];
  /** Pool values by name, made on first use. */
  ref(name: RefName): Promise<unknown>;
  /** Owner of every task this world created, by id. */
  owners: Map<string, string>;
  sessions: string[];
}

/** A fresh app: tasks bound to the `x-caller` header, a fake clock, sequential task ids, a 64 KiB body limit. */
export function createFuzzWorld(mutant?: Mutant): FuzzWorld {
  const clock = createClock();
  const plugin = mcpTasks({
    clock: { now: clock.read },
    newTaskId: sequentialIds(),
    bind: (event) => event.req.headers.get(CALLER) ?? "anonymous",
    max: 20,
    ttlMs: 60_000,
  });
  const handler = defineMcpHandler(
    { name: "fuzz", version: "1", tools: FUZZ_TOOLS, prompts, resources, resourceTemplates },
    { extensionPlugins: [plugin], maxBodySize: FUZZ_MAX_BODY, legacy: { maxSessions: 8 }, requestState: { secret: "fuzz" } },
  );
  const { app, escaped } = mountWithEscapeLog(handler);
  const owners = new Map<string, string>();
  const sessions: string[] = [];
  const made = new Map<RefName, Promise<unknown>>();

  const rpc = async (req: Request) => {
    const res = await app.fetch(req);
    const [msg] = parseMessages(res.headers.get("content-type"), await res.text()) as any[];
    return { res, msg };
  };
  const createTask = async (caller: string, plan: Step[]) => {
    const { msg } = await rpc(request("tools/call", { name: "job", arguments: { plan } }, { caps: { extensions: { [TASKS]: {} }, elicitation: {} } }, caller));
    const taskId = msg?.result?.taskId;
    if (typeof taskId !== "string") throw new Error(`fuzz setup: no task created: ${JSON.stringify(msg)}`);
    owners.set(taskId, caller);
    await turns(2);
    return taskId;
  };
  const make = async (name: RefName): Promise<unknown> => {
    switch (name) {
      case "task.live":
        return createTask("alice", ["update", "hang"]);
      case "task.input":
        return createTask("alice", ["ask", "return"]);
      case "task.done":
        return createTask("alice", ["return"]);
      case "task.foreign":
        return createTask("bob", ["hang"]);
      case "task.unknown":
        return "00000000-ffff-4000-8000-000000000000";
      case "session": {
        const { res } = await rpc(legacyInit());
        const id = res.headers.get("mcp-session-id");
        if (!id) throw new Error("fuzz setup: no legacy session");
        sessions.push(id);
        return id;
      }
      case "token.greet": {
        const { msg } = await rpc(request("tools/call", { name: "greet", arguments: {} }, { caps: { elicitation: {} } }));
        return msg.result.requestState;
      }
      case "token.prompt": {
        const { msg } = await rpc(request("prompts/get", { name: "needs_context" }, { caps: { elicitation: {} } }));
        return msg.result.requestState;
      }
    }
  };
  const world: FuzzWorld = {
    app,
    async send(req) {
      const res = await app.fetch(req);
      return mutant ? mutant(res, req, world) : res;
    },
    handler,
    plugin,
    escaped,
    owners,
    sessions,
    ref(name) {
      let p = made.get(name);
      if (!p) made.set(name, (p = make(name)));
      return p;
    },
  };
  return world;
}

function request(method: string, params: Record<string, unknown>, meta: { caps: unknown }, caller = "alice"): Request {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": method,
    [CALLER]: caller,
  };
  const nameParam = nameParamOf(method);
  if (nameParam) headers["mcp-name"] = params[nameParam] as string;
  const body = { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: { [META_VERSION]: V, [META_CAPS]: meta.caps } } };
  return new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) });
}

function legacyInit(): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: LEGACY_VERSION, capabilities: { elicitation: {} }, clientInfo: { name: "fuzz", version: "1" } },
    }),
  });
}

// --- Cases ---

export type RefName =
  | "task.live"
  | "task.input"
  | "task.done"
  | "task.foreign"
  | "task.unknown"
  | "session"
  | "token.greet"
  | "token.prompt";

/** A pool value, resolved against the case's world when the case runs. */
export class Ref {
  constructor(readonly name: RefName) {}
  [fc.toStringMethod]() {
    return `Ref(${this.name})`;
  }
}
const ref = (name: RefName) => new Ref(name);

type Expect =
  /** An unmutated case: a result conforming to this schema (SSE allowed when `sse`). */
  | { kind: "result"; schema: keyof typeof SCHEMAS; sse?: boolean }
  /** An unmutated listen: an SSE stream whose first message is the acknowledgement. */
  | { kind: "listen" }
  /** An unmutated legacy request: a result without resultType. */
  | { kind: "legacy" }
  /** The error for an unknown task, byte for byte (another caller's task). */
  | { kind: "unknown-task" }
  | { kind: "error"; code: number; status: number }
  /** An empty 202. */
  | { kind: "accepted" };

export interface Template {
  label: string;
  era: "modern" | "legacy";
  method: string;
  params: Record<string, unknown>;
  caps: unknown;
  meta?: Record<string, unknown>;
  /** Request id; `undefined` for a notification. */
  id: unknown;
  caller: string;
  headers?: Record<string, unknown>;
  expect: Expect;
}

type BodyOp =
  | { op: "set"; at: number; value: unknown }
  | { op: "delete"; at: number }
  | { op: "addKey"; at: number; key: string; value: unknown }
  | { op: "deep"; at: number; depth: number; object: boolean }
  | { op: "root"; value: unknown }
  | { op: "batch" };
type HeaderOp =
  | { op: "drop"; header: string }
  | { op: "set"; header: string; value: unknown }
  | { op: "b64"; header: string }
  | { op: "badB64"; header: string };
type TextOp = { op: "truncate"; at: number } | { op: "insert"; at: number; text: string } | { op: "oversize" };

export type FuzzCase =
  | { kind: "request"; template: Template; body: BodyOp[]; headers: HeaderOp[]; text: TextOp[]; http?: string }
  | { kind: "raw"; body: string | Uint8Array; headers: HeaderOp[]; http?: string };

const CAPS_TASKS = { extensions: { [TASKS]: {} }, elicitation: {} };

const str = fc.string({ maxLength: 12 });
const anyString = fc.oneof(str, fc.string({ unit: "binary", maxLength: 8 }), fc.constantFrom("", " ", "\u0000", "é", "💥", "a".repeat(300)));
const taskRef = fc.constantFrom(ref("task.live"), ref("task.input"), ref("task.done"), ref("task.foreign"), ref("task.unknown"));
const tokenRef = fc.constantFrom(ref("token.greet"), ref("token.prompt"));
const poolValue = fc.oneof(
  taskRef,
  tokenRef,
  fc.constant(ref("session")),
  fc.constantFrom(V, LEGACY_VERSION, "2025-06-18", "1999-01-01", "tools/call", "tasks/get", TASKS, "__proto__", "toString"),
);
/** Any JSON value, with pool values and awkward leaves mixed in. */
const json: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2, stringUnit: "binary" }) },
  { weight: 2, arbitrary: poolValue },
  { weight: 1, arbitrary: fc.constantFrom(-0, 1e308, -1, 0.5, 2 ** 53, { toString: 1 }, { valueOf: {}, toString: "x" }, []) },
);
const objectOf = (values: fc.Arbitrary<unknown>) => fc.dictionary(fc.oneof(str, fc.constantFrom("confirm", "user_name", "ctx", "__proto__", "constructor", "toString")), values, { maxKeys: 4 });

const requestId = fc.oneof({ weight: 6, arbitrary: fc.oneof(fc.integer(), str) }, { weight: 1, arbitrary: fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, "", "💥") });
const answer = fc.oneof(
  fc.constant({ action: "accept", content: { ok: true } }),
  fc.constant({ action: "accept", content: { name: "Ada" } }),
  fc.constantFrom({ action: "decline" }, { action: "cancel" }),
  json,
);

function modernT(label: string, method: string, params: Record<string, unknown>, expect: Expect, extra: Partial<Template> = {}): fc.Arbitrary<Template> {
  return fc.record({ id: requestId, caller: extra.caller === undefined ? fc.constant("alice") : fc.constant(extra.caller) }).map(({ id, caller }) => ({
    label,
    era: "modern" as const,
    method,
    params,
    caps: CAPS_TASKS,
    id,
    caller,
    expect,
    ...extra,
  }));
}

/** Every request a conforming client may send, with what a correct server answers. */
const templates: fc.Arbitrary<Template> = fc.oneof(
  modernT("discover", "server/discover", {}, { kind: "result", schema: "discover" }),
  modernT("tools/list", "tools/list", {}, { kind: "result", schema: "listTools" }),
  modernT("prompts/list", "prompts/list", {}, { kind: "result", schema: "listPrompts" }),
  modernT("resources/list", "resources/list", {}, { kind: "result", schema: "listResources" }),
  modernT("resources/templates/list", "resources/templates/list", {}, { kind: "result", schema: "listTemplates" }),
  modernT("resources/read", "resources/read", { uri: "test://text" }, { kind: "result", schema: "readResource" }),
  fc.nat(999).chain((n) => modernT("resources/read template", "resources/read", { uri: `test://items/${n}` }, { kind: "result", schema: "readResource" })),
  modernT("prompts/get", "prompts/get", { name: "simple" }, { kind: "result", schema: "getPrompt" }),
  str.chain((value) =>
    modernT("completion", "completion/complete", { ref: { type: "ref/prompt", name: "with_args" }, argument: { name: "language", value } }, { kind: "result", schema: "complete" }),
  ),
  anyString.chain((text) => modernT("echo", "tools/call", { name: "echo", arguments: { text } }, { kind: "result", schema: "callTool" })),
  fc.string({ minLength: 1, maxLength: 10, unit: fc.constantFrom(..."abcXYZ-_09") }).chain((region) =>
    modernT("regional", "tools/call", { name: "regional", arguments: { region } }, { kind: "result", schema: "callTool" }, { headers: { "mcp-param-region": region } }),
  ),
  modernT("throws", "tools/call", { name: "throws" }, { kind: "result", schema: "callTool" }),
  modernT("rpc_error", "tools/call", { name: "rpc_error" }, { kind: "error", code: -32000, status: 200 }),
  modernT("progress", "tools/call", { name: "progress" }, { kind: "result", schema: "callTool", sse: true }, { meta: { progressToken: "p1", "io.modelcontextprotocol/logLevel": "debug" } }),
  modernT("greet ask", "tools/call", { name: "greet", arguments: {} }, { kind: "result", schema: "inputRequired" }),
  answer.chain((a) =>
    modernT("greet retry", "tools/call", { name: "greet", arguments: {}, inputResponses: { user_name: a }, requestState: ref("token.greet") }, { kind: "result", schema: "callTool" }),
  ),
  fc.array(fc.constantFrom(...STEPS), { maxLength: 5 }).chain((plan) =>
    modernT("job", "tools/call", { name: "job", arguments: { plan } }, { kind: "result", schema: "createTask" }),
  ),
  modernT("job without tasks", "tools/call", { name: "job" }, { kind: "result", schema: "callTool" }, { caps: {} }),
  modernT("must_task without tasks", "tools/call", { name: "must_task" }, { kind: "error", code: -32021, status: 400 }, { caps: {} }),
  fc.constantFrom(ref("task.live"), ref("task.input"), ref("task.done")).chain((t) => modernT("tasks/get", "tasks/get", { taskId: t }, { kind: "result", schema: "getTask" })),
  fc.tuple(fc.constantFrom(ref("task.live"), ref("task.input"), ref("task.done")), objectOf(answer)).chain(([t, r]) =>
    modernT("tasks/update", "tasks/update", { taskId: t, inputResponses: r }, { kind: "result", schema: "updateTask" }),
  ),
  fc.constantFrom(ref("task.live"), ref("task.input"), ref("task.done")).chain((t) => modernT("tasks/cancel", "tasks/cancel", { taskId: t }, { kind: "result", schema: "cancelTask" })),
  fc.constantFrom("tasks/get", "tasks/cancel").chain((m) => modernT(`${m} foreign`, m, { taskId: ref("task.foreign") }, { kind: "unknown-task" })),
  objectOf(answer).chain((r) => modernT("tasks/update foreign", "tasks/update", { taskId: ref("task.foreign"), inputResponses: r }, { kind: "unknown-task" })),
  fc
    .record(
      {
        toolsListChanged: fc.boolean(),
        promptsListChanged: fc.boolean(),
        resourceSubscriptions: fc.array(fc.constantFrom("test://text", "test://none"), { maxLength: 2 }),
        taskIds: fc.array(fc.oneof(taskRef, str), { maxLength: 4 }),
      },
      { requiredKeys: [] },
    )
    .chain((notifications) => modernT("listen", "subscriptions/listen", { notifications }, { kind: "listen" })),
  fc.constantFrom("notifications/cancelled", "notifications/progress", "notifications/whatever").chain((m) =>
    fc.record({ caller: fc.constant("alice") }).map(
      ({ caller }): Template => ({ label: "notification", era: "modern", method: m, params: {}, caps: {}, id: undefined, caller, expect: { kind: "accepted" } }),
    ),
  ),
  fc.constantFrom("2099-01-01", LEGACY_VERSION).chain((v) =>
    modernT(`version ${v}`, "tools/list", {}, { kind: "error", code: -32022, status: 400 }, { meta: { [META_VERSION]: v }, headers: { "mcp-protocol-version": v } }),
  ),
  fc.constantFrom("tasks/list", "tasks/result", "initialize", "resources/subscribe", "nope").chain((m) =>
    modernT(`unknown ${m}`, m, {}, { kind: "error", code: -32601, status: 404 }),
  ),
  requestId.map((id): Template => ({
    label: "legacy initialize",
    era: "legacy",
    method: "initialize",
    params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
    caps: undefined,
    id,
    caller: "alice",
    expect: { kind: "legacy" },
  })),
  fc
    .tuple(
      requestId,
      fc.constantFrom<[string, Record<string, unknown>]>(
        ["tools/list", {}],
        ["ping", {}],
        ["tools/call", { name: "echo", arguments: { text: "hi" } }],
        ["prompts/list", {}],
        ["resources/read", { uri: "test://text" }],
        ["logging/setLevel", { level: "debug" }],
        ["tools/call", { name: "greet" }],
      ),
    )
    .map(([id, [method, params]]): Template => ({
      label: `legacy ${method}`,
      era: "legacy",
      method,
      params,
      caps: undefined,
      id,
      caller: "alice",
      headers: { "mcp-session-id": ref("session"), "mcp-protocol-version": LEGACY_VERSION },
      expect: { kind: "legacy" },
    })),
);

const HEADERS = ["mcp-protocol-version", "mcp-method", "mcp-name", "mcp-param-region", "mcp-session-id", "content-type", "accept", CALLER] as const;
const HOSTS = ["localhost", "127.0.0.1:3000", "[::1]:8080", "LOCALHOST", "evil.example", "localhost.evil.example", "127.0.0.2", "[::2]"];
const ORIGINS = ["http://localhost:5173", "https://127.0.0.1", "http://[::1]:3000", "http://evil.example", "null", "file://", "http://localhost.evil.example", "javascript:alert(1)"];
/** Host and Origin values whose verdict the oracle knows (the default policy allows localhost only). */
const HOST_ALLOWED = new Set(HOSTS.slice(0, 4));
const ORIGIN_ALLOWED = new Set(ORIGINS.slice(0, 3));

const headerValue = fc.oneof(str, poolValue, fc.constantFrom("=?base64?MjAyNi0wNy0yOA==?=", "=?base64?!!!!?=", "=?base64?/w==?=", " 2026-07-28 ", "2026-07-28, 2026-07-28"));
const headerOp: fc.Arbitrary<HeaderOp> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("drop" as const), header: fc.constantFrom(...HEADERS) }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("set" as const), header: fc.constantFrom(...HEADERS), value: headerValue }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("set" as const), header: fc.constant("host"), value: fc.oneof(fc.constantFrom(...HOSTS), str) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("set" as const), header: fc.constant("origin"), value: fc.oneof(fc.constantFrom(...ORIGINS), str) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("b64" as const), header: fc.constantFrom("mcp-protocol-version", "mcp-method", "mcp-name", "mcp-param-region") }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("badB64" as const), header: fc.constantFrom("mcp-protocol-version", "mcp-method", "mcp-name", "mcp-param-region") }) },
);
const at = fc.nat(1000);
const bodyOp: fc.Arbitrary<BodyOp> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("set" as const), at, value: json }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), at }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("addKey" as const), at, key: fc.oneof(str, fc.constantFrom("__proto__", "constructor", "toString", "_meta", "id", "inputResponses", "requestState", "taskId", "cursor", "arguments")), value: json }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("deep" as const), at, depth: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1000, max: 30_000 })), object: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("root" as const), value: json }) },
  { weight: 1, arbitrary: fc.constant({ op: "batch" as const }) },
);
const textOp: fc.Arbitrary<TextOp> = fc.oneof(
  fc.record({ op: fc.constant("truncate" as const), at }),
  fc.record({ op: fc.constant("insert" as const), at, text: fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 3 }) }),
  fc.constant({ op: "oversize" as const }),
);
const httpMethod = fc.constantFrom("GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD");
/** POST mostly: a case with another HTTP method stops at the transport. */
const maybeHttpMethod = fc.oneof({ weight: 15, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: httpMethod });

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  // Valid requests, untouched or with harmless changes.
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("request" as const),
      template: templates,
      body: fc.constant<BodyOp[]>([]),
      headers: fc.array(fc.record({ op: fc.constant("b64" as const), header: fc.constantFrom("mcp-method", "mcp-name") }), { maxLength: 1 }),
      text: fc.constant<TextOp[]>([]),
    }),
  },
  // Mutated requests.
  {
    weight: 10,
    arbitrary: fc.record(
      {
        kind: fc.constant("request" as const),
        template: templates,
        body: fc.array(bodyOp, { maxLength: 3 }),
        headers: fc.oneof(fc.constant<HeaderOp[]>([]), fc.array(headerOp, { maxLength: 2 })),
        text: fc.oneof({ weight: 6, arbitrary: fc.constant<TextOp[]>([]) }, { weight: 1, arbitrary: fc.array(textOp, { minLength: 1, maxLength: 1 }) }),
        http: maybeHttpMethod,
      },
    ),
  },
  // Garbage.
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant("raw" as const),
        body: fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.string({ unit: "binary", maxLength: 20 }),
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
          fc.uint8Array({ maxLength: 40 }),
          fc.constantFrom("", "{", "[]", "[{}]", "null", '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":1,"result":{}}', '{"jsonrpc":"2.0","id":1,"method":"server/discover","id":{}}', '{"jsonrpc":"2.0","id":1e999,"method":"x"}'),
        ),
        headers: fc.array(headerOp, { maxLength: 2 }),
        http: maybeHttpMethod,
      },
    ),
  },
);

// --- Building the request ---

interface Built {
  request: Request;
  http: string;
  headers: Record<string, string>;
  /** What the server decodes from the body. */
  text: string;
  bytes: number;
  /** The parsed body when it is JSON. */
  message: unknown;
  parsed: boolean;
  /** No mutation touched the case. */
  untouched: boolean;
  template?: Template;
}

async function resolveRefs(value: unknown, world: FuzzWorld): Promise<unknown> {
  if (value instanceof Ref) return world.ref(value.name);
  if (Array.isArray(value)) return Promise.all(value.map((v) => resolveRefs(v, world)));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const resolved = await resolveRefs(v, world);
      // defineProperty, so a generated "__proto__" key stays an own key as JSON.parse would make it.
      Object.defineProperty(out, k, { value: resolved, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

/** Every node of a JSON value, as (parent, key) pairs, in document order. */
function nodes(root: unknown): { parent: any; key: string | number }[] {
  const out: { parent: any; key: string | number }[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach((c, i) => (out.push({ parent: v, key: i }), walk(c)));
    else if (v && typeof v === "object") for (const k of Object.keys(v)) out.push({ parent: v, key: k }), walk((v as any)[k]);
  };
  walk(root);
  return out;
}

function setOwn(target: any, key: string | number, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function applyBodyOp(root: unknown, op: BodyOp, resolved: unknown): unknown {
  if (op.op === "root") return resolved;
  if (op.op === "batch") return [root];
  const all = nodes(root);
  if (op.op === "addKey") {
    const objects = [root, ...all.map((n) => n.parent[n.key])].filter((v) => v && typeof v === "object" && !Array.isArray(v));
    if (objects.length) setOwn(objects[op.at % objects.length], op.key, resolved);
    return root;
  }
  if (!all.length) return root;
  const { parent, key } = all[op.at % all.length]!;
  if (op.op === "set") setOwn(parent, key, resolved);
  else if (op.op === "delete") {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else {
    // Nested in the text, not as objects: the harness's own recursion (and JSON.stringify) must not overflow.
    const marker = `\u0000deep${deepValues.length}\u0000`;
    deepValues.push({ marker: JSON.stringify(marker), value: parent[key], op });
    setOwn(parent, key, marker);
  }
  return root;
}

const deepValues: { marker: string; value: unknown; op: Extract<BodyOp, { op: "deep" }> }[] = [];

function serialize(root: unknown): string {
  let text = JSON.stringify(root) ?? "";
  for (const { marker, value, op } of deepValues.splice(0).reverse()) {
    const inner = JSON.stringify(value) ?? "null";
    const [open, close] = op.object ? ['{"a":', "}"] : ["[", "]"];
    text = text.replace(marker, () => open.repeat(op.depth) + inner + close.repeat(op.depth));
  }
  return text;
}

function applyTextOp(text: string, op: TextOp): string {
  const pos = (n: number) => Math.floor((n / 1000) * text.length);
  if (op.op === "truncate") return text.slice(0, pos(op.at));
  if (op.op === "insert") return text.slice(0, pos(op.at)) + op.text + text.slice(pos(op.at));
  return text + " ".repeat(Math.max(0, FUZZ_MAX_BODY + 1 - Buffer.byteLength(text)));
}

const encodeB64 = (v: string) => `=?base64?${Buffer.from(v, "utf8").toString("base64")}?=`;
/** Header values a client can actually send (ByteString, no CR/LF/NUL). */
const headerSafe = (v: string) => v.replace(/[^\x20-\x7e\x80-\xff\t]/g, "?");

async function build(c: FuzzCase, world: FuzzWorld): Promise<Built> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  let text: string;
  let bytes: Uint8Array | undefined;
  let template: Template | undefined;
  let untouched = false;
  if (c.kind === "raw") {
    if (typeof c.body === "string") text = c.body;
    else {
      bytes = c.body;
      text = "";
    }
  } else {
    template = c.template;
    const params = (await resolveRefs(template.params, world)) as Record<string, unknown>;
    const message: Record<string, unknown> = { jsonrpc: "2.0", method: template.method };
    if (template.id !== undefined) message.id = template.id;
    if (template.era === "modern") {
      message.params = { ...params, _meta: { [META_VERSION]: V, [META_CAPS]: template.caps, ...template.meta } };
      headers["mcp-protocol-version"] = V;
      headers["mcp-method"] = template.method;
      const nameParam = nameParamOf(template.method);
      if (nameParam && typeof params[nameParam] === "string") headers["mcp-name"] = params[nameParam] as string;
      headers[CALLER] = template.caller;
    } else {
      message.params = params;
    }
    for (const [k, v] of Object.entries((await resolveRefs(template.headers ?? {}, world)) as Record<string, unknown>)) headers[k] = String(v);
    // resolveRefs copies every object, so mutations never touch a generated value shared with other cases.
    let root: unknown = await resolveRefs(message, world);
    for (const op of c.body) {
      const value = "value" in op ? await resolveRefs(op.value, world) : undefined;
      root = applyBodyOp(root, op, value);
    }
    text = serialize(root);
    for (const op of c.text) text = applyTextOp(text, op);
    // Encoding a modern mirrored header once in the base64 form changes nothing; anything else is a mutation.
    const encoded = c.headers.map((h) => h.header);
    untouched =
      c.body.length === 0 &&
      c.text.length === 0 &&
      c.http === undefined &&
      c.headers.every((h) => h.op === "b64") &&
      (template.era === "modern" || c.headers.length === 0) &&
      new Set(encoded).size === encoded.length;
  }
  for (const op of c.headers) {
    if (op.op === "drop") delete headers[op.header];
    else if (op.op === "set") headers[op.header] = headerSafe(String(await resolveRefs(op.value, world)));
    else if (op.op === "b64") {
      if (headers[op.header] !== undefined) headers[op.header] = encodeB64(headers[op.header]!);
    } else headers[op.header] = "=?base64?*not base64*?=";
  }
  const http = c.http ?? "POST";
  const withBody = http !== "GET" && http !== "HEAD";
  // The bytes on the wire: lone surrogates in the text become U+FFFD, as any client's UTF-8 encoder makes them.
  const payload: Uint8Array<ArrayBuffer> = new Uint8Array(bytes ?? Buffer.from(text, "utf8"));
  const request = new Request("http://localhost/mcp", { method: http, headers, body: withBody ? payload : undefined });
  const decoded = withBody ? Buffer.from(payload).toString("utf8") : "";
  let message: unknown;
  let parsed = false;
  try {
    message = JSON.parse(decoded);
    parsed = true;
  } catch {
    // not JSON
  }
  return {
    request,
    http,
    headers: Object.fromEntries(request.headers),
    text: decoded,
    bytes: withBody ? payload.byteLength : 0,
    message,
    parsed,
    untouched,
    template,
  };
}

// --- The oracle ---

const SPEC_STATUS: Record<"modern" | "legacy", Record<number, number[]>> = {
  modern: { [-32700]: [400], [-32600]: [400, 403, 404, 405, 413], [-32601]: [404], [-32602]: [400], [-32020]: [400], [-32021]: [400], [-32022]: [400] },
  legacy: { [-32700]: [400], [-32600]: [400, 403, 404, 405, 413], [-32601]: [200], [-32602]: [200] },
};
const LEGACY_VERSIONS = new Set(["2025-11-25", "2025-06-18", "2025-03-26"]);

/** The error the transport must answer before any method runs, when the oracle can tell. */
function predictTransport(b: Built): { code: number; status: number } | "envelope-ok" | "stream" | undefined {
  const host = b.headers.host;
  const origin = b.headers.origin;
  const hostKnown = host === undefined || HOSTS.includes(host);
  const originKnown = origin === undefined || ORIGINS.includes(origin);
  if ((host !== undefined && hostKnown && !HOST_ALLOWED.has(host)) || (origin !== undefined && originKnown && !ORIGIN_ALLOWED.has(origin))) {
    return { code: -32600, status: 403 };
  }
  if (!hostKnown || !originKnown) return undefined;
  if (b.http !== "POST") {
    if ((b.http === "GET" || b.http === "DELETE") && b.headers["mcp-session-id"] !== undefined) return "stream";
    return { code: -32600, status: 405 };
  }
  if (b.bytes > FUZZ_MAX_BODY) return { code: -32600, status: 413 };
  if (!b.parsed) return { code: -32700, status: 400 };
  const m = b.message as any;
  if (typeof m !== "object" || m === null || Array.isArray(m)) return { code: -32600, status: 400 };
  if (m.jsonrpc !== "2.0") return { code: -32600, status: 400 };
  // A response with no legacy request waiting for it.
  if (m.method === undefined && ("result" in m || "error" in m)) return { code: -32600, status: 400 };
  if (typeof m.method !== "string" || m.method === "") return { code: -32600, status: 400 };
  if ("id" in m && typeof m.id !== "string" && !Number.isSafeInteger(m.id)) return { code: -32600, status: 400 };
  if (m.params !== undefined && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) return { code: -32600, status: 400 };
  return "envelope-ok";
}

/** The era the documented routing rule gives a well-formed message. */
function eraOf(b: Built): "modern" | "legacy" {
  const m = b.message as any;
  const version = b.headers["mcp-protocol-version"];
  const legacyVersion = version !== undefined && LEGACY_VERSIONS.has(version.trim());
  if (m.method === "initialize") return version === undefined || legacyVersion ? "legacy" : "modern";
  const modernMeta = typeof m.params?._meta?.[META_VERSION] === "string";
  if (b.headers["mcp-session-id"] !== undefined) return !modernMeta || version === undefined || legacyVersion ? "legacy" : "modern";
  return legacyVersion && !modernMeta ? "legacy" : "modern";
}

/**
 * Deviations this fuzzer found in the server, each reported with a minimal repro. They are counted rather than
 * failed, so the suite stays green until they are fixed; anything else the oracle flags fails the run.
 */
/**
 * Deviations the server is known to have, counted and printed instead of failed. Empty: every one
 * found so far was fixed, so the fuzz fails if any comes back.
 */
export const KNOWN_DEVIATIONS: Record<string, string> = {};

export type KnownDeviation = string;

export interface CaseOutcome {
  problems: string[];
  /** Known deviations this case ran into. */
  known: KnownDeviation[];
  /** `status code` for coverage statistics, e.g. `400 -32602`, `200 result`, `202`. */
  signature: string;
}

/** Sends one case to a fresh world and checks the answer. */
export interface CaseOptions {
  mutant?: Mutant;
  /** How long an answer may take before the case counts as a hang. Default 5 s. */
  hangMs?: number;
}

export async function runCase(c: FuzzCase, options: CaseOptions = {}): Promise<CaseOutcome> {
  const hangMs = options.hangMs ?? HANG_MS;
  const world = createFuzzWorld(options.mutant);
  const problems: string[] = [];
  const known: KnownDeviation[] = [];
  const b = await build(c, world);
  const res = await within(world.send(b.request), hangMs, "app.fetch");
  const ct = res.headers.get("content-type") ?? "";
  const predicted = predictTransport(b);
  const era = predicted === "envelope-ok" ? eraOf(b) : predicted === "stream" ? "legacy" : "modern";
  const requestId = predicted === "envelope-ok" ? (b.message as any).id : undefined;
  let signature = `${res.status}`;

  if (res.status >= 500) problems.push(`HTTP ${res.status}`);
  let messages: any[] = [];
  if (ct.includes("text/event-stream")) {
    signature += " sse";
    messages = await readStream(res, b, requestId, problems, known, hangMs);
  } else if (b.http === "HEAD") {
    await res.body?.cancel();
  } else {
    const text = await within(res.text(), hangMs, "body");
    if (res.status === 202 || (b.http === "DELETE" && res.status === 200)) {
      if (text !== "") problems.push(`${res.status} with a body: ${text.slice(0, 200)}`);
    } else {
      try {
        messages = [JSON.parse(text)];
      } catch {
        problems.push(`not JSON (${ct}): ${text.slice(0, 200)}`);
      }
    }
  }
  const final = messages.at(-1);

  if (res.status === 202) {
    const m = b.message as any;
    if (predicted !== "envelope-ok" || "id" in m) problems.push("202 for something that is not a notification");
  }
  if (final !== undefined && !ct.includes("text/event-stream")) {
    const isError = final && typeof final === "object" && "error" in final;
    // The id is checked below against the request's; the SDK schema only admits safe integers, the server
    // echoes any finite number a client sent.
    const issues = shapeIssues(isError ? SCHEMAS.errorEnvelope : SCHEMAS.resultEnvelope, withPlainId(final));
    if (issues) problems.push(`not a JSON-RPC ${isError ? "error" : "result"}: ${issues}`);
    if (isError) {
      const { code, message } = final.error;
      signature += ` ${code}`;
      const allowed = SPEC_STATUS[era][code] ?? [200];
      if (!allowed.includes(res.status)) problems.push(`code ${code} with HTTP ${res.status} (${era}; the spec pairs it with ${allowed.join("/")})`);
      if (code === -32603 && message === "Internal error") problems.push("an unexpected exception became a generic -32603");
      if (requestId !== undefined ? JSON.stringify(final.id) !== JSON.stringify(requestId) : "id" in final && predicted !== "envelope-ok") {
        problems.push(`error id ${JSON.stringify(final.id)} for request id ${JSON.stringify(requestId)}`);
      }
    } else {
      signature += " result";
      if (requestId === undefined || JSON.stringify(final.id) !== JSON.stringify(requestId)) problems.push(`result id ${JSON.stringify(final.id)} for request id ${JSON.stringify(requestId)}`);
      const rt = final.result?.resultType;
      if (era === "modern" && !["complete", "input_required", "task"].includes(rt)) problems.push(`modern result with resultType ${JSON.stringify(rt)}`);
      // Whatever the request looked like, a modern success must conform to its method's result schema.
      const schema = era === "modern" ? resultSchemaFor((b.message as any).method, rt) : undefined;
      const resultIssues = schema && shapeIssues(SCHEMAS[schema], final.result);
      if (resultIssues) problems.push(`${(b.message as any).method} result out of shape (${schema}): ${resultIssues}`);
      if (era === "legacy" && rt !== undefined) problems.push(`legacy result with resultType ${JSON.stringify(rt)}`);
    }
  }
  if (predicted !== undefined && typeof predicted === "object") {
    const code = final?.error?.code;
    // A HEAD answer has the status and no body.
    if (res.status !== predicted.status || (b.http !== "HEAD" && code !== predicted.code)) {
      problems.push(`expected ${predicted.code} with HTTP ${predicted.status}, got ${code ?? "no error"} with HTTP ${res.status}`);
    }
  }
  if (b.untouched && b.template) await checkExpectation(b, world, res, ct, final, problems);

  // Whatever the case opened must be gone once its streams are closed.
  await turns(2);
  if (world.escaped.length) problems.push(`escaped the handler: ${String(world.escaped[0])}`);
  const open = mountOf(world.handler).streams.size;
  if (open !== 0) problems.push(`${open} listen stream(s) left open`);
  if (world.plugin.stats.listeners !== 0) problems.push(`${world.plugin.stats.listeners} task listener(s) left`);
  if (mountOf(world.handler).hub.size !== 0) problems.push(`${mountOf(world.handler).hub.size} hub subscriber(s) left`);
  for (const id of world.sessions) {
    const pending = mountOf(world.handler).sessions.get(id)?.pending.size ?? 0;
    if (pending) problems.push(`${pending} legacy request(s) still waiting for the client`);
  }
  return { problems, known, signature };
}

const RESULT_SCHEMAS: Record<string, keyof typeof SCHEMAS> = {
  "server/discover": "discover",
  "tools/list": "listTools",
  "prompts/list": "listPrompts",
  "resources/list": "listResources",
  "resources/templates/list": "listTemplates",
  "resources/read": "readResource",
  "prompts/get": "getPrompt",
  "completion/complete": "complete",
  "tasks/get": "getTask",
  "tasks/update": "updateTask",
  "tasks/cancel": "cancelTask",
};

function resultSchemaFor(method: string, resultType: unknown): keyof typeof SCHEMAS | undefined {
  if (resultType === "input_required") return method === "tools/call" ? "inputRequired" : undefined;
  if (method === "tools/call") return resultType === "task" ? "createTask" : "callTool";
  return RESULT_SCHEMAS[method];
}

function withPlainId(message: any): unknown {
  return message && typeof message === "object" && typeof message.id === "number" ? { ...message, id: 1 } : message;
}

/** Reads an SSE answer as far as it must go, checks each message, and closes it like a client going away. */
async function readStream(res: Response, b: Built, requestId: unknown, problems: string[], known: KnownDeviation[], hangMs: number): Promise<any[]> {
  const sse = sseMessages(res);
  const got: any[] = [];
  try {
    const m = b.message as any;
    const isListen = m?.method === "subscriptions/listen" && res.status === 200 && b.http === "POST";
    if (b.http === "GET") return got; // a legacy GET stream carries nothing until the app announces something
    if (isListen) {
      const ack = await within(sse.next(), hangMs, "listen acknowledgement");
      got.push(ack);
      const issues = shapeIssues(SCHEMAS.listenAck, ack);
      if (issues) problems.push(`first listen message is not an acknowledgement: ${issues}`);
      else if (JSON.stringify(ack.params._meta?.[META_SUB]) !== JSON.stringify(requestId)) problems.push("acknowledgement without the listen request's id");
      return got;
    }
    for (;;) {
      const msg = await within(sse.next(), hangMs, "SSE message");
      if (msg === undefined) break;
      got.push(msg);
      if (msg.method !== undefined && msg.id !== undefined) break; // a legacy server-to-client request: we never answer
      if (msg.method === undefined) {
        const isError = "error" in msg;
        const issues = shapeIssues(isError ? SCHEMAS.errorEnvelope : SCHEMAS.resultEnvelope, withPlainId(msg));
        if (issues) problems.push(`SSE response is not JSON-RPC: ${issues}`);
        if (JSON.stringify(msg.id) !== JSON.stringify(requestId)) problems.push("SSE response with another id");
        if (isError && msg.error.code === -32603 && msg.error.message === "Internal error") problems.push("an unexpected exception became a generic -32603");
        break;
      }
      const issues = shapeIssues(msg.method === "notifications/progress" ? SCHEMAS.progress : SCHEMAS.logMessage, msg);
      if (issues) problems.push(`SSE notification out of shape: ${issues}`);
    }
  } finally {
    await sse.close();
  }
  return got;
}

async function checkExpectation(b: Built, world: FuzzWorld, res: Response, ct: string, final: any, problems: string[]): Promise<void> {
  const t = b.template!;
  const e = t.expect;
  const fail = (what: string): void => void problems.push(`${t.label}: ${what}; got HTTP ${res.status} ${JSON.stringify(final)?.slice(0, 300)}`);
  switch (e.kind) {
    case "result": {
      if (res.status !== 200 || !final?.result) return fail(`expected a ${e.schema} result`);
      if (ct.includes("text/event-stream") && !e.sse) return fail("unexpected SSE");
      const issues = shapeIssues(SCHEMAS[e.schema], final.result);
      if (issues) fail(`${e.schema} out of shape: ${issues}`);
      return;
    }
    case "listen":
      if (res.status !== 200 || !ct.includes("text/event-stream")) return fail("expected a listen stream");
      if (final?.params?.notifications?.taskIds) {
        for (const id of final.params.notifications.taskIds) {
          if (world.owners.get(id) !== t.caller) fail(`agreed to task ${id} owned by ${world.owners.get(id) ?? "nobody"}`);
        }
      }
      return;
    case "legacy":
      if (res.status !== 200 || !(final?.result || final?.method)) return fail("expected a legacy result");
      return;
    case "accepted":
      if (res.status !== 202) fail("expected 202");
      return;
    case "error":
      if (res.status !== e.status || final?.error?.code !== e.code) fail(`expected ${e.code} with HTTP ${e.status}`);
      return;
    case "unknown-task": {
      const params = { ...((b.message as any).params as Record<string, unknown>), taskId: await world.ref("task.unknown") };
      const twin = new Request(b.request.url, {
        method: "POST",
        headers: { ...b.headers, "mcp-name": params.taskId as string },
        body: JSON.stringify({ ...(b.message as object), params }),
      });
      const other = await world.app.fetch(twin);
      const [mine, theirs] = [JSON.stringify(final), await other.text()];
      if (res.status !== other.status || mine !== theirs) fail(`differs from the unknown-id answer (${other.status} ${theirs})`);
    }
  }
}

// --- Running ---

export interface FuzzReport {
  runs: number;
  seed: number;
  ms: number;
  failed: boolean;
  /** fast-check's report of the first failure, shrunk, with the seed and path to replay it. */
  report?: string;
  /** How many answers had each `status code` signature. */
  signatures: Record<string, number>;
  /** Known deviations met, with how often and the first case that met each. */
  known: Partial<Record<KnownDeviation, { count: number; example: string }>>;
  unhandledRejections: unknown[];
}

/** Runs the property `runs` times. */
export async function runFuzz(options: { runs: number; seed?: number; onProgress?: (done: number) => void } & CaseOptions): Promise<FuzzReport> {
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x100000000)) >>> 0;
  const signatures: Record<string, number> = {};
  const known: FuzzReport["known"] = {};
  const unhandledRejections: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandledRejections.push(reason);
  process.on("unhandledRejection", onUnhandled);
  let done = 0;
  const started = performance.now();
  try {
    const details = await fc.check(
      fc.asyncProperty(fuzzCase, async (c) => {
        const before = unhandledRejections.length;
        const { problems, signature, known: met } = await runCase(c, options);
        for (const k of new Set(met)) (known[k] ??= { count: 0, example: fc.stringify(c) }).count++;
        await turns(1);
        if (unhandledRejections.length > before) problems.push(`unhandled rejection: ${String(unhandledRejections.at(-1))}`);
        signatures[signature] = (signatures[signature] ?? 0) + 1;
        if (++done % 1000 === 0) options.onProgress?.(done);
        if (problems.length) throw new Error(problems.join("\n"));
      }),
      { numRuns: options.runs, seed, endOnFailure: false },
    );
    return {
      runs: details.numRuns,
      seed,
      ms: performance.now() - started,
      failed: details.failed,
      report: details.failed ? `${await fc.asyncDefaultReportMessage(details)}\n${String((details.errorInstance as Error | undefined)?.message ?? details.errorInstance)}` : undefined,
      signatures,
      known,
      unhandledRejections,
    };
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
}
