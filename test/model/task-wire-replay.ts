// Every path the chart generates (test/model/paths.ts), replayed on the real runtime over the wire. The chart,
// fed the same events, predicts the whole tasks/get envelope after every step; the clock and the task id are
// injected, so the prediction includes the times and is compared for equality, not just for a few fields.
// It runs per store: in memory (task-wire.test.ts) and on instances sharing Redis (test/redis/), where an
// effect reaches the wire after a round trip, so each step may show the old envelope for a while but never
// anything else.
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { initialTransition, transition } from "xstate";
import { taskMachine, type InputRequest, type TaskEvent } from "../../machines/task.machine.ts";
import { mcpElicit, McpJsonRpcError, McpUsageError, type CallToolResult, type RequestedSchema } from "../../src/index.ts";
import type { McpTasksOptions, McpTasksPlugin } from "../../src/tasks/index.ts";
import type { InputRequest as ToolInputRequest } from "../../src/features/mrtr/input-requests.ts";
import { drivenTasksApp, type InputCall, type TaskDriver } from "../fixtures/task-driver.ts";
import { expectError, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest, TASKS } from "../helpers/wire.ts";
import { detailedTask, PREDICTED_ACK, predictedGet, RESULT_META, taskFields, type TaskSnapshot as Snapshot } from "./envelope.ts";
import { BOGUS_KEY, describePath, getModelPaths, MODEL_INPUT } from "./paths.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const SUB = "io.modelcontextprotocol/subscriptionId";
const FINAL = new Set(["completed", "failed", "cancelled"]);
/** Events the runtime reports only after `run`'s promise settles, so tasks/get may need a few turns to show them. */
const ASYNC = new Set<TaskEvent["type"]>(["work.done", "work.toolError", "work.protocolError"]);
const MAX_TURNS = 50;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** How long an effect may take to cross a shared store. */
const REMOTE_MS = 3000;

/** Where the replay's task lives. */
export interface ReplayBackend {
  readonly label: string;
  /** `mcpTasks` options for each instance of one fresh logical server (its own, empty keyspace). */
  instances(): McpTasksOptions[];
  /** Effects cross a shared store: they show after a round trip instead of within a few turns. */
  readonly remote: boolean;
  /** Checks, once a task has finished, that the instances let its running state go. */
  released(plugins: readonly McpTasksPlugin[], taskId: string): void | Promise<void>;
  /** Checks, once a task has expired, that nothing of it is held. */
  gone(plugins: readonly McpTasksPlugin[], taskId: string): void | Promise<void>;
}

/** Waits for `check` to pass: a few turns in memory, up to REMOTE_MS through a shared store. */
async function eventually(remote: boolean, check: () => void | Promise<void>): Promise<void> {
  const end = Date.now() + REMOTE_MS;
  for (let turns = 0; ; turns++) {
    try {
      return await check();
    } catch (error) {
      if (remote ? Date.now() > end : turns >= MAX_TURNS) throw error;
    }
    await (remote ? pause(5) : turn());
  }
}

// --- Driving the runtime ---

/** The requests `run` passes to `task.requestInput` for a chart `input.request`: built with `mcpElicit`. */
function toolRequests(requests: Record<string, InputRequest>): Record<string, ToolInputRequest> {
  return Object.fromEntries(
    Object.entries(requests).map(([key, request]) => {
      const params = request.params as { mode: string; message: string; requestedSchema: RequestedSchema };
      expect([request.method, params.mode]).toStrictEqual(["elicitation/create", "form"]);
      const built = mcpElicit({ message: params.message, requestedSchema: params.requestedSchema });
      // What goes on the wire is exactly what the chart was fed.
      expect({ method: built.method, params: built.params }).toStrictEqual(request);
      return [key, built];
    }),
  );
}

async function withinTurns<T>(promise: Promise<T>, what: string, remote = false): Promise<T> {
  let done = false;
  const value = promise.finally(() => (done = true));
  const end = Date.now() + REMOTE_MS;
  if (remote) while (!done && Date.now() <= end) await pause(2);
  else for (let i = 0; i < MAX_TURNS && !done; i++) await turn();
  if (!done) throw new Error(`${what} did not settle within ${remote ? `${REMOTE_MS} ms` : `${MAX_TURNS} turns`}`);
  return value;
}

/** One path on a fresh app. Returns what the replay saw, for the coverage test. */
async function replayOnWire(backend: ReplayBackend, events: TaskEvent[]): Promise<{ statuses: string[]; expired: boolean }> {
  let now = MODEL_INPUT.now;
  const { remote } = backend;
  const { app, plugins, driver } = drivenTasksApp(
    {
      "~now": () => now,
      "~newId": () => MODEL_INPUT.taskId,
      ttlMs: MODEL_INPUT.ttlMs,
      pollIntervalMs: MODEL_INPUT.pollIntervalMs,
    },
    MODEL_INPUT.statusMessage,
    backend.instances(),
  );

  const created = await call(app, "tools/call", { name: "driven" }, { caps });
  expectShape(S.createTask, created.body.result);
  let chart = initialTransition(taskMachine, MODEL_INPUT)[0];
  expect(created.body.result).toStrictEqual({ resultType: "task", ...taskFields(chart), ...RESULT_META });
  const { taskId } = created.body.result as { taskId: string };
  const d = driver(taskId);

  const get = async () => {
    const r = await call(app, "tasks/get", { taskId }, { caps });
    if (r.body.error) return r;
    expect(r.status).toBe(200);
    expectShape(S.getTask, r.body.result);
    return r;
  };
  let seen = (await get()).body.result;
  expect(seen).toStrictEqual(predictedGet(chart));
  const statuses = [seen.status as string];

  /** The call that opened the input round now outstanding, if any. */
  let openCall: InputCall | undefined;

  for (const [i, event] of events.entries()) {
    const step = `step ${i + 1} (${describePath([event])})`;

    if (event.type === "task.expire") {
      await expire(app, d, chart, (t) => (now = t), openCall, step, remote);
      await backend.gone(plugins, taskId);
      expect(i, "expiry ends the path").toBe(events.length - 1);
      return { statuses, expired: true };
    }

    now = event.at;
    const next = transition(taskMachine, chart, event)[0];
    await perform(app, d, taskId, event, seen, (c) => (openCall = c), step, remote);

    // The wire must show the predicted envelope: in memory at once for what the runtime does synchronously,
    // and for the outcome of `run` after a few turns; through a shared store after a round trip. Until
    // then it shows nothing but the old envelope.
    seen = (await get()).body.result;
    if (remote || ASYNC.has(event.type)) {
      const end = Date.now() + REMOTE_MS;
      for (let turns = 0; (remote ? Date.now() <= end : turns < MAX_TURNS) && !isDeepStrictEqual(seen, predictedGet(next)); turns++) {
        expect(seen, `${step}: before the outcome lands`).toStrictEqual(predictedGet(chart));
        await (remote ? pause(2) : turn());
        seen = (await get()).body.result;
      }
    }
    expect(seen, step).toStrictEqual(predictedGet(next));
    statuses.push(seen.status);

    // What `run` got back from requestInput is what the chart says was answered.
    if (openCall) {
      if (chart.value === "input_required" && next.value === "working") {
        await withinTurns(openCall.settled, `${step}: requestInput`, remote);
        expect(openCall.state, step).toBe("resolved");
        expect(openCall.answers, step).toStrictEqual(next.context.answers);
        openCall = undefined;
      } else if (FINAL.has(next.value as string)) {
        await withinTurns(openCall.settled, `${step}: requestInput`, remote);
        expect(openCall.state, step).toBe("rejected");
        expect(openCall.error).toBeInstanceOf(McpUsageError);
        expect((openCall.error as McpUsageError).code).toBe("TASK_ENDED");
        openCall = undefined;
      } else {
        await turn();
        expect(openCall.state, `${step}: still waiting for answers`).toBe("pending");
      }
    }
    chart = next;
  }

  if (chart.status === "done") {
    await afterTheEnd(app, d, taskId, chart, (t) => (now = t), get, remote);
    await backend.released(plugins, taskId);
  }
  return { statuses, expired: false };
}

/** Makes the runtime do what `event` says: through `run` for the tool's side, over the wire for the client's. */
async function perform(
  app: ReturnType<typeof drivenTasksApp>["app"],
  d: TaskDriver,
  taskId: string,
  event: TaskEvent,
  seen: Record<string, any>,
  setOpenCall: (call: InputCall) => void,
  step: string,
  remote: boolean,
): Promise<void> {
  switch (event.type) {
    case "status.update":
      await d.send({ type: "update", statusMessage: event.statusMessage });
      return;
    case "input.request": {
      const made = await d.send({ type: "request", requests: toolRequests(event.requests) });
      if (seen.status === "working") setOpenCall(made!);
      return;
    }
    case "input.answer": {
      // The client answers with the keys tasks/get showed it, or with one it was never shown.
      const shown = Object.keys(seen.inputRequests ?? {});
      for (const key of Object.keys(event.responses)) {
        if (key === BOGUS_KEY) expect(shown, step).not.toContain(key);
        else expect(shown, step).toContain(key);
      }
      const r = await call(app, "tasks/update", { taskId, inputResponses: event.responses }, { caps });
      expectShape(S.updateTask, r.body.result);
      expect(r.body.result).toStrictEqual(PREDICTED_ACK);
      return;
    }
    case "work.done":
      await d.send({ type: "return", result: event.result as CallToolResult });
      return;
    case "work.toolError":
      await d.send({ type: "throw", error: new Error(event.message) });
      return;
    case "work.protocolError":
      await d.send({ type: "throw", error: new McpJsonRpcError(event.error.code, event.error.message, event.error.data) });
      return;
    case "task.cancel": {
      const r = await call(app, "tasks/cancel", { taskId }, { caps });
      expectShape(S.cancelTask, r.body.result);
      expect(r.body.result).toStrictEqual(PREDICTED_ACK);
      await eventually(remote, () => expect(d.task.signal.aborted, "cancel aborts the signal").toBe(true));
      return;
    }
    case "task.expire":
      throw new Error("expiry is replayed by expire()");
  }
}

/**
 * Expiry: alive a millisecond before `createdAt + ttlMs`, unknown just past it. A subscriber sees the chart's
 * last word (failed, "Expired"), which tasks/get can no longer show.
 */
async function expire(
  app: ReturnType<typeof drivenTasksApp>["app"],
  d: TaskDriver,
  chart: Snapshot,
  setNow: (t: number) => void,
  openCall: InputCall | undefined,
  step: string,
  remote: boolean,
): Promise<void> {
  const { taskId, createdAt, ttlMs } = chart.context;
  const expiresAt = createdAt + ttlMs!;

  setNow(expiresAt - 1);
  const alive = await call(app, "tasks/get", { taskId }, { caps });
  expect(alive.body.result, `${step}: just before ttl`).toStrictEqual(predictedGet(chart));

  const res = await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "sub" }));
  const sse = sseReader(res);
  try {
    expect((await sse.next()).params.notifications).toStrictEqual({ taskIds: [taskId] });
    // Right after the ack, the state the task is in.
    expect((await sse.next(remote ? REMOTE_MS : undefined)).params, `${step}: the state at the listen`).toStrictEqual({ ...detailedTask(chart), _meta: { [SUB]: "sub" } });

    setNow(expiresAt + 1);
    const expired = transition(taskMachine, chart, { type: "task.expire", at: expiresAt + 1 })[0];
    expect(expired.value).toBe("failed");
    expectError((await call(app, "tasks/get", { taskId }, { caps })).body, -32602);

    const note = await sse.next(remote ? REMOTE_MS : undefined);
    expectShape(S.taskNotification, note);
    expect(note.params, `${step}: the last notification`).toStrictEqual({ ...detailedTask(expired), _meta: { [SUB]: "sub" } });
  } finally {
    await sse.close();
  }

  await eventually(remote, () => expect(d.task.signal.aborted, "expiry aborts the signal").toBe(true));
  if (openCall) {
    await withinTurns(openCall.settled, `${step}: requestInput`, remote);
    expect(openCall.state).toBe("rejected");
  }
  // Gone for every method, like an id that never existed.
  expectError((await call(app, "tasks/update", { taskId, inputResponses: {} }, { caps })).body, -32602);
  expectError((await call(app, "tasks/cancel", { taskId }, { caps })).body, -32602);
}

/** A final task accepts nothing: late answers, cancels, status updates and outcomes leave the envelope as it was. */
async function afterTheEnd(
  app: ReturnType<typeof drivenTasksApp>["app"],
  d: TaskDriver,
  taskId: string,
  chart: Snapshot,
  setNow: (t: number) => void,
  get: () => Promise<{ body: any }>,
  remote: boolean,
): Promise<void> {
  setNow(chart.context.lastUpdatedAt + 60_000);
  const before = predictedGet(chart);
  const late = [...chart.context.issuedKeys, BOGUS_KEY];
  const ack = await call(app, "tasks/update", { taskId, inputResponses: Object.fromEntries(late.map((k) => [k, { action: "decline" }])) }, { caps });
  expect(ack.body.result).toStrictEqual(PREDICTED_ACK);
  expect((await call(app, "tasks/cancel", { taskId }, { caps })).body.result).toStrictEqual(PREDICTED_ACK);
  await d.send({ type: "update", statusMessage: "late" });
  const asked = await d.send({ type: "request", requests: toolRequests({ late: { method: "elicitation/create", params: { mode: "form", message: "late?", requestedSchema: { type: "object", properties: {} } } } }) });
  await withinTurns(asked!.settled, "a late requestInput", remote);
  expect(asked!.state).toBe("rejected");
  if (d.running) await d.send({ type: "return", result: { content: [{ type: "text", text: "late" }] } });
  if (remote) await pause(50);
  else for (let i = 0; i < 3; i++) await turn();
  for (let i = 0; i < (remote ? 2 : 1); i++) expect((await get()).body.result, "a final task never changes").toStrictEqual(before);
  expect(d.task.signal.aborted).toBe(chart.value !== "completed");
}

// --- Tests ---

export function replaySuite(backend: ReplayBackend): void {
  describe(`chart paths replayed over the wire (${backend.label})`, () => {
    const paths = getModelPaths();
    const seen: { statuses: string[]; expired: boolean }[] = [];

    it.each(paths.map((events) => [describePath(events), events] as const))("%s", async (_, events) => {
      seen.push(await replayOnWire(backend, events));
    });

    it("saw every status and an expiry on the wire", () => {
      expect(seen).toHaveLength(paths.length);
      expect(new Set(seen.flatMap((s) => s.statuses))).toStrictEqual(
        new Set(["working", "input_required", "completed", "failed", "cancelled"]),
      );
      expect(seen.some((s) => s.expired)).toBe(true);
    });
  });
}
