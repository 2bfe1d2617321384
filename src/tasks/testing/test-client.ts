// An MCP client for your own tests, in process over `app.fetch`: every request goes out as a 2026-07-28
// client sends it (headers, `_meta`), every answer is read whether it came as JSON or as SSE, and a task
// can be followed to its end, answered when it asks for input, cancelled, or listened to.
import type { CallToolResult, JsonObject } from "../../protocol/types.ts";
import { modernRequest, TASKS, type Fetcher } from "./client.ts";
import { openTaskListener, type TaskListener } from "./task-listener.ts";
import { taskViewOf, type InputAnswerer, type TaskStatus, type TaskView, type TestClientOptions, type TestResponse, type ToolCallAnswer, type ToolRun, type WireError } from "./test-types.ts";
import { checkOptions, type OptionNames } from "../../utils/options.ts";

/** A JSON-RPC error answered to one of the test client's requests, or a wait that ran out. */
export class TestClientError extends Error {
  override name = "TestClientError";
  constructor(
    message: string,
    /** The JSON-RPC error code, when the server answered with one. */
    readonly code?: number,
    /** The HTTP status of the answer, when there was one. */
    readonly status?: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** What one request may add to what the client always sends. */
export interface RequestOptions {
  /** Headers for this request only. */
  headers?: Record<string, string>;
  /** More `_meta` for this request, such as `progressToken` or `io.modelcontextprotocol/logLevel`. */
  meta?: JsonObject;
}

export interface TestClient {
  /** Sends one request and reads its answer as it is, error or not. */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<TestResponse>;
  /** Sends one request; its result, or a `TestClientError` when the server answered an error. */
  send<T = any>(method: string, params?: JsonObject, options?: RequestOptions): Promise<T>;
  listTools(): Promise<{ tools: any[] }>;
  /** tools/call, answered once: a result, a task handle, or a request for input. */
  callTool(name: string, args?: JsonObject, options?: RequestOptions): Promise<ToolCallAnswer>;
  /**
   * Calls a tool and follows it to its end: answers each round of input with `onInput` (retrying the call
   * for a tool that asks at once, tasks/update for a task) and polls a task until it is final.
   */
  runTool(name: string, args?: JsonObject, options?: RequestOptions & { onInput?: InputAnswerer; timeoutMs?: number }): Promise<ToolRun>;
  /** tasks/get: the task, with its own `_meta` (the attempt of a run found by name) and not the result's. */
  getTask(taskId: string): Promise<TaskView>;
  updateTask(taskId: string, inputResponses: Record<string, unknown>): Promise<JsonObject>;
  cancelTask(taskId: string): Promise<JsonObject>;
  /**
   * Polls tasks/get until the task reaches one of `until` (default: a final status). With `onInput`, each
   * input round is answered on the way; without it, `input_required` ends the wait too.
   */
  waitForTask(taskId: string, options?: { until?: TaskStatus | readonly TaskStatus[]; onInput?: InputAnswerer; timeoutMs?: number }): Promise<TaskView>;
  /** Opens a listen stream for these tasks' notifications (subscriptions/listen). */
  listen(taskIds: readonly string[]): Promise<TaskListener>;
  /** The same client with more headers (another caller's `authorization`, say). */
  withHeaders(headers: Record<string, string>): TestClient;
}

const FINAL: readonly TaskStatus[] = ["completed", "failed", "cancelled"];

const OPTION_NAMES: OptionNames<TestClientOptions> = {
  url: true, headers: true, token: true, capabilities: true, clientInfo: true, timeoutMs: true, pollMs: true, onMessage: true,
};

/**
 * A client for testing your own server in process: give it anything with `fetch(request)` (an h3 app) and
 * it speaks MCP 2026-07-28 with the tasks extension to it.
 *
 * @example
 * const client = createTestClient(app, { token });
 * const run = await client.runTool("deploy", { env: "staging" }, { onInput: () => ({ confirm: { action: "accept", content: { ok: true } } }) });
 * // run.status === "completed", run.result.content …
 */
export function createTestClient(app: Fetcher | ((request: Request) => Response | Promise<Response>), options: TestClientOptions = {}): TestClient {
  checkOptions("createTestClient()", options, OPTION_NAMES);
  const fetcher: Fetcher = typeof app === "function" ? { fetch: app } : app;
  const url = new URL(options.url ?? "/mcp", "http://localhost").href;
  const caps = options.capabilities ?? { extensions: { [TASKS]: {} }, elicitation: { form: {} } };
  // Below the 5 s test timeout of vitest and jest, so that a wait that runs out says so itself.
  const timeoutMs = options.timeoutMs ?? 4000;
  const pollMs = options.pollMs ?? 5;
  // Headers given by name win over `token`, so `withHeaders({ authorization })` speaks for another caller.
  const baseHeaders = { ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }), ...options.headers };
  let nextId = 0;

  const build = (id: number, method: string, params: JsonObject, extra: RequestOptions = {}) =>
    modernRequest(method, params, { id, url, caps, clientInfo: options.clientInfo, meta: extra.meta, headers: { ...baseHeaders, ...extra.headers } });

  const request: TestClient["request"] = async (method, params = {}, extra = {}) => {
    const id = ++nextId;
    const res = await fetcher.fetch(build(id, method, params, extra));
    const messages = await readMessages(res);
    for (const message of messages) options.onMessage?.(message, { method });
    const message = messages.find((m) => m?.id === id && ("result" in m || "error" in m));
    return { status: res.status, headers: res.headers, messages, message, result: message?.result, error: message?.error };
  };

  const send: TestClient["send"] = async (method, params, extra) => {
    const answer = await request(method, params, extra);
    if (answer.message === undefined) throw new TestClientError(`${method}: HTTP ${answer.status} with no JSON-RPC answer`, undefined, answer.status);
    if (answer.error) throw new TestClientError(`${method}: ${answer.error.message} (${answer.error.code})`, answer.error.code, answer.status, answer.error.data);
    return answer.result;
  };

  const getTask = (taskId: string) => send<TaskView & { resultType: "complete" }>("tasks/get", { taskId }).then(taskViewOf);

  const waitForTask: TestClient["waitForTask"] = async (taskId, wait = {}) => {
    const until = new Set<string>(wait.until === undefined ? FINAL : typeof wait.until === "string" ? [wait.until] : wait.until);
    const end = Date.now() + (wait.timeoutMs ?? timeoutMs);
    for (;;) {
      const task = await getTask(taskId);
      if (until.has(task.status)) return task;
      if (task.status === "input_required") {
        if (!wait.onInput) return task;
        await send("tasks/update", { taskId, inputResponses: await wait.onInput(task.inputRequests ?? {}, task) });
        continue;
      }
      if (FINAL.includes(task.status)) return task;
      if (Date.now() > end) throw new TestClientError(`task ${taskId} is still ${task.status} after ${wait.timeoutMs ?? timeoutMs} ms (waiting for ${[...until].join(" or ")})`);
      await sleep(pollMs);
    }
  };

  const runTool: TestClient["runTool"] = async (name, args, run = {}) => {
    let inputRounds = 0;
    let retry: JsonObject = {};
    for (;;) {
      const answer = await request("tools/call", { name, ...(args && { arguments: args }), ...retry }, run);
      if (answer.error) return { status: "failed", error: answer.error, inputRounds };
      const result = answer.result as ToolCallAnswer | undefined;
      if (result === undefined) throw new TestClientError(`tools/call ${name}: HTTP ${answer.status} with no JSON-RPC answer`, undefined, answer.status);
      if (result.resultType === "complete") return { status: "completed", result: toolResult(result), inputRounds };
      if (result.resultType === "input_required") {
        if (!run.onInput) throw new TestClientError(`tools/call ${name} asks for input (${Object.keys(result.inputRequests ?? {}).join(", ")}) and no onInput answers it`);
        inputRounds++;
        const inputResponses = await run.onInput(result.inputRequests ?? {});
        retry = { inputResponses, ...(result.requestState !== undefined && { requestState: result.requestState }) };
        continue;
      }
      let rounds = 0;
      const onInput: InputAnswerer | undefined = run.onInput && ((requests, task) => (rounds++, run.onInput!(requests, task)));
      const task = await waitForTask(result.taskId, { onInput, timeoutMs: run.timeoutMs });
      if (task.status === "input_required") throw new TestClientError(`task ${task.taskId} asks for input (${Object.keys(task.inputRequests ?? {}).join(", ")}) and no onInput answers it`);
      const status = task.status as ToolRun["status"];
      return { status, task, inputRounds: inputRounds + rounds, ...(task.result && { result: task.result }), ...(task.error && { error: task.error }) };
    }
  };

  const client: TestClient = {
    request,
    send,
    listTools: () => send("tools/list"),
    callTool: (name, args, extra) => send("tools/call", { name, ...(args && { arguments: args }) }, extra),
    runTool,
    getTask,
    updateTask: (taskId, inputResponses) => send("tasks/update", { taskId, inputResponses }),
    cancelTask: (taskId) => send("tasks/cancel", { taskId }),
    waitForTask,
    async listen(taskIds) {
      const res = await fetcher.fetch(build(++nextId, "subscriptions/listen", { notifications: { taskIds: [...taskIds] } }));
      if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
        const [message] = await readMessages(res);
        if (message) options.onMessage?.(message, { method: "subscriptions/listen" });
        const error = message?.error as WireError | undefined;
        throw new TestClientError(`subscriptions/listen: ${error ? `${error.message} (${error.code})` : `HTTP ${res.status}`}`, error?.code, res.status, error?.data);
      }
      return openTaskListener(res, timeoutMs, (message) => options.onMessage?.(message, { method: "subscriptions/listen" }));
    },
    withHeaders: (headers) => createTestClient(fetcher, { ...options, headers: { ...options.headers, ...headers } }),
  };
  return client;
}

// --- Internal ---

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A complete tools/call result without `resultType` and the server's `_meta`. */
function toolResult(result: { resultType: "complete" } & CallToolResult): CallToolResult {
  const { resultType: _type, ...rest } = result;
  return rest;
}

/** The JSON-RPC messages of an answer, JSON or SSE; none for an empty or non-JSON body. */
async function readMessages(res: Response): Promise<any[]> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text
      .replace(/\r\n?/g, "\n")
      .split("\n\n")
      .map((block) => block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(l.startsWith("data: ") ? 6 : 5)).join("\n"))
      .filter(Boolean)
      .map((data) => JSON.parse(data));
  }
  try {
    return text ? [JSON.parse(text)] : [];
  } catch {
    return [];
  }
}
