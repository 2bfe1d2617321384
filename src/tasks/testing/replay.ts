// Every path the chart generates (chart-paths.ts), replayed on the real runtime over the wire, for any
// store. The chart, fed the same events, predicts the whole tasks/get envelope after every step; the clock
// and the task id are injected, so the prediction includes the times and is compared for equality, not
// just for a few fields. Through a shared store an effect reaches the wire after a round trip, so each
// step may show the old envelope for a while, but never anything else.
import { initialTransition, transition } from "xstate";
import { taskMachine, type InputRequest, type TaskEvent } from "../../../machines/task.machine.ts";
import { mcpElicit, type InputRequest as ToolInputRequest, type RequestedSchema } from "../../features/mrtr/input-requests.ts";
import { McpJsonRpcError, McpUsageError } from "../../protocol/errors.ts";
import type { CallToolResult } from "../../protocol/types.ts";
import { UNBOUND } from "../owner.ts";
import type { McpTasksPlugin } from "../plugin.ts";
import { equal, isEqual, ok } from "./assert.ts";
import { call, modernRequest, sseReader } from "./client.ts";
import { detailedTask, PREDICTED_ACK, predictedGet, RESULT_META, taskFields, type TaskSnapshot as Snapshot } from "./envelope.ts";
import { BOGUS_KEY, describePath, chartEventPaths, MODEL_INPUT } from "./chart-paths.ts";
import { caps as clientCaps, errorOf, kitTest, type KitCase, type TaskStoreKitOptions } from "./kit.ts";
import { drivenTasksApp, type InputCall, type TaskDriver } from "./task-driver.ts";
import { expired } from "../logic/task-events.ts";

const caps = clientCaps;
const SUB = "io.modelcontextprotocol/subscriptionId";
const FINAL = new Set(["completed", "failed", "cancelled"]);
/** Events the runtime reports only after `run`'s promise settles, so tasks/get may need a few turns to show them. */
const ASYNC = new Set<TaskEvent["type"]>(["work.done", "work.toolError", "work.protocolError"]);
const MAX_TURNS = 50;

const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for `check` to pass: a few turns in memory, up to `settleMs` through a shared store. */
async function eventually(c: KitCase, check: () => void | Promise<void>): Promise<void> {
  const end = Date.now() + c.settleMs;
  for (let turns = 0; ; turns++) {
    try {
      return await check();
    } catch (error) {
      if (c.shared ? Date.now() > end : turns >= MAX_TURNS) throw error;
    }
    await (c.shared ? pause(5) : turn());
  }
}

// --- Driving the runtime ---

/** The requests `run` passes to `task.requestInput` for a chart `input.request`: built with `mcpElicit`. */
function toolRequests(requests: Record<string, InputRequest>): Record<string, ToolInputRequest> {
  return Object.fromEntries(
    Object.entries(requests).map(([key, request]) => {
      const params = request.params as { mode: string; message: string; requestedSchema: RequestedSchema };
      equal([request.method, params.mode], ["elicitation/create", "form"]);
      const built = mcpElicit({ message: params.message, requestedSchema: params.requestedSchema });
      // What goes on the wire is exactly what the chart was fed.
      equal({ method: built.method, params: built.params }, request, "what goes on the wire is what the chart was fed");
      return [key, built];
    }),
  );
}

async function withinTurns<T>(c: KitCase, promise: Promise<T>, what: string): Promise<T> {
  let done = false;
  const value = promise.finally(() => (done = true));
  const end = Date.now() + c.settleMs;
  if (c.shared) while (!done && Date.now() <= end) await pause(2);
  else for (let i = 0; i < MAX_TURNS && !done; i++) await turn();
  if (!done) throw new Error(`${what} did not settle within ${c.shared ? `${c.settleMs} ms` : `${MAX_TURNS} turns`}`);
  return value;
}

/** One path on a fresh server. Returns what the replay saw, for the coverage test. */
async function replayOnWire(c: KitCase, events: TaskEvent[]): Promise<{ statuses: string[]; expired: boolean }> {
  let now = MODEL_INPUT.now;
  const remote = c.shared;
  const { app, plugins, driver } = drivenTasksApp(
    {
      clock: { now: () => now },
      newTaskId: () => MODEL_INPUT.taskId,
      ttlMs: MODEL_INPUT.ttlMs,
      pollIntervalMs: MODEL_INPUT.pollIntervalMs,
    },
    MODEL_INPUT.statusMessage,
    await c.instances(),
  );

  const created = await call(app, "tools/call", { name: "driven" }, { caps });
  c.shape("createTask", created.body.result);
  let chart = initialTransition(taskMachine, MODEL_INPUT)[0];
  equal(created.body.result, { resultType: "task", ...taskFields(chart), ...RESULT_META }, "the handle");
  const { taskId } = created.body.result as { taskId: string };
  const d = driver(taskId);

  const get = async () => {
    const r = await call(app, "tasks/get", { taskId }, { caps });
    if (r.body.error) return r;
    equal(r.status, 200);
    c.shape("getTask", r.body.result);
    return r;
  };
  let seen = (await get()).body.result;
  equal(seen, predictedGet(chart), "the task right after its handle");
  const statuses = [seen.status as string];

  /** The call that opened the input round now outstanding, if any. */
  let openCall: InputCall | undefined;

  for (const [i, event] of events.entries()) {
    const step = `step ${i + 1} (${describePath([event])})`;

    if (event.type === "task.expire") {
      await expire(c, app, d, chart, (t) => (now = t), openCall, step);
      await gone(c, plugins, taskId);
      equal(i, events.length - 1, "expiry ends the path");
      return { statuses, expired: true };
    }

    now = event.at;
    const next = transition(taskMachine, chart, event)[0];
    await perform(c, app, d, taskId, event, seen, (call) => (openCall = call), step);

    // The wire must show the predicted envelope: in memory at once for what the runtime does synchronously,
    // and for the outcome of `run` after a few turns; through a shared store after a round trip. Until
    // then it shows nothing but the old envelope.
    seen = (await get()).body.result;
    if (remote || ASYNC.has(event.type)) {
      const end = Date.now() + c.settleMs;
      for (let turns = 0; (remote ? Date.now() <= end : turns < MAX_TURNS) && !isEqual(seen, predictedGet(next)); turns++) {
        equal(seen, predictedGet(chart), `${step}: before the outcome lands`);
        await (remote ? pause(2) : turn());
        seen = (await get()).body.result;
      }
    }
    equal(seen, predictedGet(next), step);
    statuses.push(seen.status);

    // What `run` got back from requestInput is what the chart says was answered.
    if (openCall) {
      if (chart.value === "input_required" && next.value === "working") {
        await withinTurns(c, openCall.settled, `${step}: requestInput`);
        equal(openCall.state, "resolved", step);
        equal(openCall.answers, next.context.answers, step);
        openCall = undefined;
      } else if (FINAL.has(next.value as string)) {
        await withinTurns(c, openCall.settled, `${step}: requestInput`);
        equal(openCall.state, "rejected", step);
        ok(openCall.error instanceof McpUsageError, `${step}: requestInput rejects with McpUsageError`);
        equal((openCall.error as McpUsageError).code, "TASK_ENDED", step);
        openCall = undefined;
      } else {
        await turn();
        equal(openCall.state, "pending", `${step}: still waiting for answers`);
      }
    }
    chart = next;
  }

  if (chart.status === "done") {
    await afterTheEnd(c, app, d, taskId, chart, (t) => (now = t), get);
    await released(c, plugins, taskId);
  }
  return { statuses, expired: false };
}

/** Once a task has finished, every instance lets its run go, and the store keeps only its final answer. */
async function released(c: KitCase, plugins: readonly McpTasksPlugin[], taskId: string): Promise<void> {
  await c.until(() => {
    for (const plugin of plugins) equal([plugin.stats.localTasks, plugin.stats.listeners], [0, 0], "a finished task's run and listeners let go");
  });
  for (const plugin of plugins) equal(typeof (await plugin.store.read(taskId, UNBOUND))?.json, "string", "a finished task's record is its tasks/get JSON");
}

/** Once a task has expired, nothing of it is held anywhere. */
async function gone(c: KitCase, plugins: readonly McpTasksPlugin[], taskId: string): Promise<void> {
  await c.until(() => {
    for (const plugin of plugins) equal([plugin.stats.localTasks, plugin.stats.listeners], [0, 0], "an expired task's run and listeners let go");
  });
  // Past its expiry a store may still hold the record, but the runtime answers unknown for it everywhere.
  for (const plugin of plugins) {
    const left = await plugin.store.read(taskId, UNBOUND);
    ok(!left || left.expiresAt <= MODEL_INPUT.now + MODEL_INPUT.ttlMs!, "an expired task is not held past its expiry");
  }
}

type App = ReturnType<typeof drivenTasksApp>["app"];

/** Makes the runtime do what `event` says: through `run` for the tool's side, over the wire for the client's. */
async function perform(c: KitCase, app: App, d: TaskDriver, taskId: string, event: TaskEvent, seen: Record<string, any>, setOpenCall: (call: InputCall) => void, step: string): Promise<void> {
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
      for (const key of Object.keys(event.responses)) ok(key === BOGUS_KEY ? !shown.includes(key) : shown.includes(key), `${step}: answers ${key}`);
      const r = await call(app, "tasks/update", { taskId, inputResponses: event.responses }, { caps });
      c.shape("updateTask", r.body.result);
      equal(r.body.result, PREDICTED_ACK, step);
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
      c.shape("cancelTask", r.body.result);
      equal(r.body.result, PREDICTED_ACK, step);
      await eventually(c, () => equal(d.task.signal.aborted, true, "cancel aborts the signal"));
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
async function expire(c: KitCase, app: App, d: TaskDriver, chart: Snapshot, setNow: (t: number) => void, openCall: InputCall | undefined, step: string): Promise<void> {
  const remote = c.shared;
  const { taskId, createdAt, ttlMs } = chart.context;
  const expiresAt = createdAt + ttlMs!;

  setNow(expiresAt - 1);
  const alive = await call(app, "tasks/get", { taskId }, { caps });
  equal(alive.body.result, predictedGet(chart), `${step}: just before ttl`);

  const res = await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "sub" }));
  const sse = sseReader(res);
  try {
    equal((await sse.next()).params.notifications, { taskIds: [taskId] }, `${step}: the acknowledgement`);
    // Right after the ack, the state the task is in.
    equal((await sse.next(remote ? c.settleMs : undefined)).params, { ...detailedTask(chart), _meta: { [SUB]: "sub" } }, `${step}: the state at the listen`);

    setNow(expiresAt + 1);
    const lapsed = transition(taskMachine, chart, expired(expiresAt + 1))[0];
    equal(lapsed.value, "failed");
    errorOf(c, (await call(app, "tasks/get", { taskId }, { caps })).body, -32602);

    const note = await sse.next(remote ? c.settleMs : undefined);
    c.shape("taskNotification", note);
    equal(note.params, { ...detailedTask(lapsed), _meta: { [SUB]: "sub" } }, `${step}: the last notification`);
  } finally {
    await sse.close();
  }

  await eventually(c, () => equal(d.task.signal.aborted, true, "expiry aborts the signal"));
  if (openCall) {
    await withinTurns(c, openCall.settled, `${step}: requestInput`);
    equal(openCall.state, "rejected", step);
  }
  // Gone for every method, like an id that never existed.
  errorOf(c, (await call(app, "tasks/update", { taskId, inputResponses: {} }, { caps })).body, -32602);
  errorOf(c, (await call(app, "tasks/cancel", { taskId }, { caps })).body, -32602);
}

/** A final task accepts nothing: late answers, cancels, status updates and outcomes leave the envelope as it was. */
async function afterTheEnd(c: KitCase, app: App, d: TaskDriver, taskId: string, chart: Snapshot, setNow: (t: number) => void, get: () => Promise<{ body: any }>): Promise<void> {
  const remote = c.shared;
  setNow(chart.context.lastUpdatedAt + 60_000);
  const before = predictedGet(chart);
  const late = [...chart.context.issuedKeys, BOGUS_KEY];
  const ack = await call(app, "tasks/update", { taskId, inputResponses: Object.fromEntries(late.map((k) => [k, { action: "decline" }])) }, { caps });
  equal(ack.body.result, PREDICTED_ACK, "a late answer's acknowledgement");
  equal((await call(app, "tasks/cancel", { taskId }, { caps })).body.result, PREDICTED_ACK, "a late cancel's acknowledgement");
  await d.send({ type: "update", statusMessage: "late" });
  const asked = await d.send({ type: "request", requests: toolRequests({ late: { method: "elicitation/create", params: { mode: "form", message: "late?", requestedSchema: { type: "object", properties: {} } } } }) });
  await withinTurns(c, asked!.settled, "a late requestInput");
  equal(asked!.state, "rejected", "a late requestInput");
  if (d.running) await d.send({ type: "return", result: { content: [{ type: "text", text: "late" }] } });
  if (remote) await pause(50);
  else for (let i = 0; i < 3; i++) await turn();
  for (let i = 0; i < (remote ? 2 : 1); i++) equal((await get()).body.result, before, "a final task never changes");
  equal(d.task.signal.aborted, chart.value !== "completed", "the signal aborts unless the task completed");
}

// --- Cases ---

export function replayCases(kit: TaskStoreKitOptions, shared: boolean): void {
  const paths = chartEventPaths();
  const seen: { statuses: string[]; expired: boolean }[] = [];
  for (const events of paths) kitTest(kit, shared, describePath(events), async (c) => void seen.push(await replayOnWire(c, events)));
  kit.runner.it("saw every status and an expiry on the wire", async () => {
    equal(seen.length, paths.length, "every path replayed");
    equal([...new Set(seen.flatMap((s) => s.statuses))].sort(), ["cancelled", "completed", "failed", "input_required", "working"]);
    ok(seen.some((s) => s.expired), "a path that expired");
  });
}
