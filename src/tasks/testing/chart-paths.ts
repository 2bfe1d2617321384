/**
 * Event sequences over the task chart, generated from the chart itself with `xstate/graph`.
 *
 * The chart test replays them on an actor; the HTTP model test replays the same sequences against the real
 * server (status.update → `task.update`, input.request → `task.requestInput`, input.answer → `tasks/update`,
 * work.* → the tool's return or throw, task.cancel → `tasks/cancel`, task.expire → the clock passing `ttlMs`).
 */
import { createTestModel } from "xstate/graph";
import type { SnapshotFrom } from "xstate";
import { taskMachine, type InputRequest, type TaskEvent, type TaskInput } from "../../../machines/task.machine.ts";
import { cancelled, expired, inputAnswered, inputRequested, statusUpdated, workDone, workProtocolError, workToolError } from "../logic/task-events.ts";

type Snapshot = SnapshotFrom<typeof taskMachine>;

/** Creation time of every model task; step `i` of a path happens at `MODEL_T0 + (i + 1) * MODEL_STEP_MS`. */
const MODEL_T0 = 1_785_229_800_000;
const MODEL_STEP_MS = 1000;

export const MODEL_INPUT: TaskInput = {
  taskId: "model-task",
  now: MODEL_T0,
  ttlMs: 600_000,
  pollIntervalMs: 1000,
  statusMessage: "Queued",
};

/** Elicitation used for every model input request. */
export const modelRequest = (message: string): InputRequest => ({
  method: "elicitation/create",
  params: {
    mode: "form",
    message,
    requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
  },
});

/** The answer the model client gives to every request. */
export const MODEL_ANSWER = { action: "accept", content: { ok: true } } as const;

/** Key the model client sends that the server never issued. */
export const BOGUS_KEY = "never-issued";

/**
 * The event alphabet offered in `snapshot`. Answers depend on what is outstanding: one key, all keys, or only
 * a key that was never issued. `at` is a placeholder; {@link chartEventPaths} stamps real times.
 */
function modelEvents(snapshot: Snapshot): TaskEvent[] {
  const outstanding = Object.keys(snapshot.context.inputRequests);
  const answer = (keys: string[]) => Object.fromEntries(keys.map((key) => [key, MODEL_ANSWER]));
  const at = 0;
  const events: TaskEvent[] = [
    statusUpdated("Working on it", at),
    inputRequested({ confirm: modelRequest("Proceed?") }, at),
    inputRequested({ confirm: modelRequest("Proceed?"), name: modelRequest("Name?") }, at),
    inputAnswered({ [BOGUS_KEY]: MODEL_ANSWER }, at),
    workDone({ content: [{ type: "text", text: "Done." }] }, at),
    workToolError("upstream refused", at),
    workProtocolError({ code: -32603, message: "API rate limit exceeded" }, at),
    cancelled(at),
    expired(at),
  ];
  if (outstanding.length > 0) {
    events.push(inputAnswered(answer(outstanding.slice(0, 1)), at));
    if (outstanding.length > 1) events.push(inputAnswered(answer(outstanding), at));
  }
  return events;
}

// Bounds on input rounds per path (a round is one `input.request` that included `confirm`): enough to see
// `confirm.2` and `confirm.3` issued and answered, small enough to enumerate in milliseconds.
const SHORTEST_ROUNDS = 3;
const SIMPLE_ROUNDS = 2;

const rounds = (s: Snapshot) => s.context.issuedKeys.filter((key) => key.startsWith("confirm")).length;

// Times, the status message and the exact answers never change which events are possible, so they are left
// out of the abstract state; that keeps the graph finite and small.
const abstractState = (s: Snapshot) => [s.value, s.context.inputKeys, s.context.issuedKeys, Object.keys(s.context.answers)];

// For shortest paths the event that led here is part of the state too. Otherwise a self transition
// (status.update, an answer naming only a bogus key) would lead back to the same vertex and never appear in a
// path. Simple paths use the plain abstract state, because labelled vertices make them explode.
const byStateAndEvent = (s: Snapshot, event: TaskEvent | undefined) =>
  JSON.stringify([...abstractState(s), event ? describePath([event]) : ""]);
const byState = (s: Snapshot) => JSON.stringify(abstractState(s));

/** Give step `i` the time `MODEL_T0 + (i + 1) * MODEL_STEP_MS`. */
export function stampTimes(events: TaskEvent[]): TaskEvent[] {
  return events.map((event, i) => ({ ...event, at: MODEL_T0 + (i + 1) * MODEL_STEP_MS }));
}

/** A short readable name for a path, e.g. `input.request[confirm] → input.answer[confirm] → work.done`. */
export function describePath(events: TaskEvent[]): string {
  if (events.length === 0) return "(start)";
  return events
    .map((event) => {
      if (event.type === "input.request") return `${event.type}[${Object.keys(event.requests).join(",")}]`;
      if (event.type === "input.answer") return `${event.type}[${Object.keys(event.responses).join(",")}]`;
      return event.type;
    })
    .join(" → ");
}

let cached: TaskEvent[][] | undefined;

/**
 * Every event sequence the model tests replay, each starting from `MODEL_INPUT` and with times stamped:
 * the shortest path to every abstract state within three input rounds, plus every simple (loop-free) path
 * into a final state within two rounds. Paths that are a prefix of another path are dropped.
 */
export function chartEventPaths(): TaskEvent[][] {
  if (cached) return cached.map((events) => [...events]);
  // createTestModel also checks that the chart has no `invoke`/`after`, so the chart stays walkable.
  const model = createTestModel(taskMachine, { input: MODEL_INPUT, events: modelEvents });
  const shortest = model.getShortestPaths({
    serializeState: byStateAndEvent,
    stopWhen: (s) => rounds(s) >= SHORTEST_ROUNDS,
  });
  const simple = model.getSimplePaths({
    serializeState: byState,
    stopWhen: (s) => rounds(s) >= SIMPLE_ROUNDS,
    toState: (s) => s.status === "done",
  });
  const seen = new Set<string>();
  cached = [];
  for (const path of [...shortest, ...simple]) {
    // The first step of every path is the chart's own `xstate.init`, which is not ours to replay.
    const steps = path.steps.filter((step) => (step.event as { type: string }).type !== "xstate.init");
    // The walker also tries every event type the chart names without a payload; an instance's claim or
    // loss is no step a client or a tool makes, and the chart test covers it on its own.
    if (steps.some((step) => ATTEMPT_EVENT_TYPES.includes(step.event.type))) continue;
    const events = stampTimes(steps.map((step) => step.event));
    const key = JSON.stringify(events.map((event) => ({ ...event, at: 0 })));
    if (seen.has(key)) continue;
    seen.add(key);
    cached.push(events);
  }
  return cached.map((events) => [...events]);
}

/**
 * The events an instance sends when it claims or loses a task's run, or finds the instance running a
 * closure lost: not a client's doing, so no model path drives them.
 */
export const ATTEMPT_EVENT_TYPES: readonly TaskEvent["type"][] = ["attempt.claimed", "attempt.lost", "instance.lost"];

/**
 * Every other event type the chart defines (those of the tool, the client and the clock), written out so
 * that tests compare the chart against a fixed list: with `ATTEMPT_EVENT_TYPES`, every event type it has.
 */
export const TASK_EVENT_TYPES: readonly TaskEvent["type"][] = [
  "status.update",
  "input.request",
  "input.answer",
  "work.done",
  "work.toolError",
  "work.protocolError",
  "task.cancel",
  "task.expire",
];
