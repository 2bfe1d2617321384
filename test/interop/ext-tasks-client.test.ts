// The official tasks client (@modelcontextprotocol/ext-tasks) on top of the official SDK client
// (@modelcontextprotocol/client, 2026-07-28 era) against the demo app on a real ephemeral port.
//
// ext-tasks cannot push Tasks V2 traffic through the SDK Client (the SDK decodes `resultType: "task"` on
// tools/call as an error), so for a 2026-07-28 server it requires the host to supply `rawDispatch` (a
// request coordinator that owns ids and response matching) and `v2RequestFraming` (the per-request _meta
// envelope). Here rawDispatch is a plain fetch POST carrying the 2026 headers.
import { Client, StreamableHTTPClientTransport, type McpSubscription, type SubscriptionFilter } from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  DispatchError,
  resultFromTaskOutcome,
  type ApplicationInputRequest,
  type JsonRpcResponse,
  type RawClientDispatch,
  type TaskController,
  type TaskEnabledSession,
  type TaskState,
} from "@modelcontextprotocol/ext-tasks/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { app } from "../../examples/demo/app.ts";
import { useServedApp } from "../helpers/serve.ts";
import { ownFields } from "../helpers/schemas.ts";

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const clientInfo = { name: "ext-tasks-interop", version: "1.0.0" };
// Declaring the extension on the SDK client too lets client.listen() ask for taskIds (the server answers
// -32021 to a taskIds filter from a client that did not declare it).
const clientCapabilities = { elicitation: {}, extensions: { [TASKS]: {} } };

const served = useServedApp(app);

/** One raw exchange: the request ext-tasks framed, the headers we sent, and the JSON-RPC answer. */
interface Exchange {
  headers: Record<string, string>;
  request: any;
  response: any;
}

/** Finds the JSON-RPC response with `id` in a JSON or SSE body. */
async function readResponse(res: Response, id: string): Promise<any> {
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  const messages = type.includes("text/event-stream")
    ? text
        .split(/\r?\n\r?\n/)
        .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n"))
        .filter(Boolean)
        .map((data) => JSON.parse(data))
    : text
      ? [JSON.parse(text)]
      : [];
  const answer = messages.find((m) => m?.id === id && ("result" in m || "error" in m));
  if (!answer) throw new DispatchError(`No JSON-RPC response for ${id} (HTTP ${res.status}): ${text.slice(0, 200)}`);
  return answer;
}

/** The host request coordinator ext-tasks asks for: ids, 2026 headers, response matching. */
function fetchDispatcher(wire: Exchange[]): RawClientDispatch {
  let next = 0;
  return async (request, options) => {
    const req = request as { method: string; params?: { name?: string } };
    const id = `raw-${++next}`;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": req.method,
    };
    if (req.method === "tools/call" && typeof req.params?.name === "string") headers["mcp-name"] = req.params.name;
    // tasks/* follow-ups carry `Mcp-Name: <taskId>` in the dispatch context.
    for (const [k, v] of Object.entries(options?.context?.headers ?? {})) headers[k.toLowerCase()] = v;
    const body = { jsonrpc: "2.0", id, ...(request as object) };
    let res: Response;
    try {
      res = await fetch(served.url(), { method: "POST", headers, body: JSON.stringify(body), signal: options?.signal });
    } catch (error) {
      if (options?.signal?.aborted) throw error;
      throw new DispatchError("fetch failed", true, { cause: error });
    }
    const message = await readResponse(res, id);
    wire.push({ headers, request: body, response: message });
    return ("error" in message ? { kind: "error", error: message.error } : { kind: "result", result: message.result }) as JsonRpcResponse;
  };
}

const textOf = (result: object) => ((result as { content?: { text?: string }[] }).content ?? []).map((c) => c.text).join("");

let client: Client;
let session: TaskEnabledSession;
let wire: Exchange[];
let inputs: { request: ApplicationInputRequest; taskId?: string; inputId?: string }[];
let answerInput: (request: ApplicationInputRequest) => unknown;
let subscriptions: McpSubscription[];

beforeEach(async () => {
  wire = [];
  inputs = [];
  subscriptions = [];
  answerInput = () => ({ action: "cancel" });
  client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: V } } });
  await client.connect(new StreamableHTTPClientTransport(served.url()));
  session = createTaskSessionFromClient(client, {
    endpointId: "h3-mcp-demo",
    rawDispatch: fetchDispatcher(wire),
    v2RequestFraming: { protocolVersion: V, clientInfo, clientCapabilities },
    onInputRequest: async (request, context) => {
      inputs.push({ request, taskId: context.taskId, inputId: context.inputId });
      return answerInput(request) as never;
    },
  });
});

afterEach(async () => {
  await Promise.all(subscriptions.map((s) => s.close()));
  await session?.close();
  await client?.close();
});

/** Opens a subscriptions/listen stream for the task, so status changes arrive as notifications/tasks. */
async function listenFor(taskId: string) {
  // taskIds is the extension's filter field; the SDK's SubscriptionFilter type (and ack decoding) do not know it.
  const sub = await client.listen({ taskIds: [taskId] } as unknown as SubscriptionFilter);
  subscriptions.push(sub);
  return sub;
}

/** Polls tasks/get through the controller (faster than the server's pollIntervalMs hint) until `status`. */
async function until(controller: TaskController, status: TaskState, timeoutMs = 3000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await controller.snapshot();
    if (view.status === status) return view;
    if (Date.now() > deadline) throw new Error(`task ${controller.taskId} stayed ${view.status}, wanted ${status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("ext-tasks session against the demo", () => {
  it("sees a Tasks V2 server", () => {
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
    expect(session.capabilities).toMatchObject({ execution: true, cancellation: true, inputResponses: true, inventory: "known-handles" });
  });

  it("creates a render task, follows it to completed and reads the inlined result", async () => {
    const execution = await session.callTool("render", { frames: 3, msPerFrame: 40 });
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    const { taskId } = execution.handle;
    await listenFor(taskId);

    const seen: TaskState[] = [];
    const { outcome, lastTask } = await execution.settle({
      onEvent: (e) => void (e.type === "task" && seen.push(e.task.status)),
    });
    expect(outcome.status).toBe("completed");
    expect(textOf(resultFromTaskOutcome(outcome))).toBe("Rendered.");
    expect(lastTask).toMatchObject({ taskId, status: "completed", statusMessage: "Frame 3/3" });
    expect(seen[0]).toBe("working");
    expect(seen.at(-1)).toBe("completed");

    // The creating call went out as a raw tools/call with the extension declared per request.
    const create = wire[0]!;
    expect(create.headers).toMatchObject({ "mcp-method": "tools/call", "mcp-name": "render", "mcp-protocol-version": V });
    expect(create.request.params._meta["io.modelcontextprotocol/clientCapabilities"].extensions).toEqual({ [TASKS]: {} });
    expect(create.response.result).toMatchObject({ resultType: "task", taskId, status: "working", statusMessage: "Queued" });

    // A controller reads the same terminal state over tasks/get, result inlined.
    const view = await session.task(taskId).snapshot();
    expect(view.status).toBe("completed");
    // The inlined result is a 2026-07-28 CallToolResult, resultType included: ext-tasks' default codec
    // rejects it without one (the task then settles as `failed`, "Protocol value failed schema validation").
    expect(view.raw.result).toEqual({ resultType: "complete", content: [{ type: "text", text: "Rendered." }] });
    const get = wire.at(-1)!;
    expect(get.headers).toMatchObject({ "mcp-method": "tasks/get", "mcp-name": taskId });
    expect(get.response.result.resultType).toBe("complete");
  });

  it("answers delete_everything's input_required through onInputRequest (tasks/update) and completes with Deleted.", async () => {
    answerInput = () => ({ action: "accept", content: { confirm: true } });
    const execution = await session.callTool("delete_everything", {});
    expect(execution.kind).toBe("task");
    if (execution.kind !== "task") return;
    const { taskId } = execution.handle;
    await listenFor(taskId);

    const seen: TaskState[] = [];
    const { outcome } = await execution.settle({ onEvent: (e) => void (e.type === "task" && seen.push(e.task.status)) });
    expect(textOf(resultFromTaskOutcome(outcome))).toBe("Deleted.");
    expect(seen).toContain("input_required");
    expect(seen.at(-1)).toBe("completed");

    // The application saw the form elicitation once, keyed "confirm", scoped to the task.
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({ taskId, inputId: "confirm", request: { kind: "elicitation" } });
    expect(inputs[0]!.request.params).toMatchObject({ mode: "form", message: "Really delete everything?" });

    const update = wire.find((x) => x.request.method === "tasks/update")!;
    expect(update.headers).toMatchObject({ "mcp-method": "tasks/update", "mcp-name": taskId });
    expect(update.request.params).toMatchObject({ taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } });
    expect(ownFields(update.response.result)).toEqual({ resultType: "complete" });
  });

  it("answers the confirm input by hand with TaskController.update and sees Cancelled.", async () => {
    const execution = await session.callTool("delete_everything", {});
    if (execution.kind !== "task") throw new Error("expected a task");
    const { taskId } = execution.handle;
    // Stop the execution from driving the task; a controller takes over explicitly.
    await execution.detach();
    const controller = session.task(taskId);

    const parked = await until(controller, "input_required");
    expect(parked.raw.inputRequests).toEqual({
      confirm: {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: "Really delete everything?",
          requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
        },
      },
    });
    await controller.update({ confirm: { action: "accept", content: { confirm: false } } });
    const done = await until(controller, "completed");
    expect(done.raw.result).toEqual({ resultType: "complete", content: [{ type: "text", text: "Cancelled." }] });
    expect(inputs).toHaveLength(0);
  });

  it("cancels a long render and the server reports status cancelled", async () => {
    const execution = await session.callTool("render", { frames: 100, msPerFrame: 1000 });
    if (execution.kind !== "task") throw new Error("expected a task");
    const { taskId } = execution.handle;

    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("cancelled");
    expect(() => resultFromTaskOutcome(outcome)).toThrow();

    const cancel = wire.find((x) => x.request.method === "tasks/cancel")!;
    expect(cancel.headers).toMatchObject({ "mcp-method": "tasks/cancel", "mcp-name": taskId });
    expect(ownFields(cancel.response.result)).toEqual({ resultType: "complete" });

    const view = await session.task(taskId).snapshot();
    expect(view.status).toBe("cancelled");
  });

  it("cancels by task id through the session as well", async () => {
    const execution = await session.callTool("render", { frames: 100, msPerFrame: 1000 });
    if (execution.kind !== "task") throw new Error("expected a task");
    await session.cancelTask(execution.handle.taskId);
    expect((await execution.settle()).outcome.status).toBe("cancelled");
    expect((await session.task(execution.handle.taskId).snapshot()).status).toBe("cancelled");
  });
});
