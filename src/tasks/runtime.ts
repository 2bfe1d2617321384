// Wiring between a task's actor and the user's `run`: the runtime reports what the work does
// as chart events, and reads the chart's snapshots to resolve input rounds and abort the signal.
import { createActor, fromCallback, type InspectionEvent, type Observer } from "xstate";
import { taskMachine, type TaskContext, type TaskStateValue } from "../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError, McpUsageError } from "../protocol/errors.ts";
import { describeThrown } from "../utils/describe.ts";
import { assertCanAsk, type InputRequest } from "../features/mrtr/input-requests.ts";
import type { McpTaskContext, McpTaskOptions } from "../features/task-api.ts";
import type { ClientCapabilities, CreateTaskResult, JsonObject } from "../protocol/types.ts";
import { isTerminalStatus, toCreateTaskResult, toGetTaskResultJson, type TaskSnapshotLike } from "../protocol/wire.ts";
import type { TaskEntry, TaskStore } from "./store.ts";

// Shared abort reasons: a per-task Error would keep its stopped actor reachable through the stack it captured.
const CANCELLED = new DOMException("The task was cancelled", "AbortError");
const ENDED = new DOMException("The task ended", "AbortError");

export interface TaskRuntimeOptions {
  store: TaskStore;
  ttlMs: number | null;
  pollIntervalMs: number;
  now: () => number;
  newId: () => string;
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

export function createTaskRuntime(options: TaskRuntimeOptions) {
  const { store, now } = options;
  // One actor system for every task of this runtime, built here rather than per task: each task
  // actor is a child of this root, which was started and stopped at once, so the done event a
  // child sends its parent is dropped. The inspector is attached to that system once, after the
  // root's own start and stop, so it sees task actors only. A child actor stops itself when its
  // chart reaches a final state.
  const root = createActor(fromCallback(() => {}), { id: "tasks" });
  root.start();
  root.stop();
  if (options.inspect) root.system.inspect(options.inspect);

  return {
    /** Creates the actor, stores the task, starts `run`, and returns the handle (already retrievable). */
    create(owner: unknown, caps: ClientCapabilities, task: McpTaskOptions): CreateTaskResult {
      const id = options.newId();
      const at = now();
      const actor = createActor(taskMachine, {
        id,
        parent: root,
        input: { taskId: id, now: at, ttlMs: options.ttlMs, pollIntervalMs: options.pollIntervalMs, statusMessage: task.statusMessage },
      });
      const entry: TaskEntry = {
        id,
        owner,
        expiresAt: options.ttlMs === null ? Infinity : at + options.ttlMs,
        actor,
      };
      if (!store.create(entry)) {
        throw new McpUsageError("TASK_STORE_FULL", "Too many tasks are retained; try again later");
      }
      const run: TaskRun = { entry };
      let lastStatus: TaskStateValue = "working";
      actor.subscribe((snap) => {
        const snapshot = { value: snap.value as TaskStateValue, context: snap.context as TaskContext };
        if (run.waiters) for (const waiter of run.waiters) waiter(snapshot);
        const changed = snapshot.value !== lastStatus;
        lastStatus = snapshot.value;
        if (changed && entry.listeners) {
          for (const listener of entry.listeners) {
            try {
              listener(snapshot);
            } catch {
              // A listener's failure is its own stream's problem, never the task's.
            }
          }
        }
        if (isTerminalStatus(snapshot.value)) {
          const abort = entry.abort;
          run.ended = snapshot.value;
          store.finish(entry, snapshot.value, toGetTaskResultJson(snapshot));
          const reason = abortReason(snapshot.value);
          if (reason) abort?.abort(reason);
        }
      });
      actor.start();
      const handle = toCreateTaskResult(snapshotOf(entry)) as unknown as CreateTaskResult;
      startRun(run, caps, task, now);
      return handle;
    },
  };
}

/** A live task's current snapshot. */
export function snapshotOf(entry: TaskEntry): TaskSnapshotLike {
  const snap = entry.actor!.getSnapshot();
  return { value: snap.value as TaskStateValue, context: snap.context as TaskContext };
}

// --- Internal ---

/** What one task's run shares with its actor's observer; each part is made only when used. */
interface TaskRun {
  readonly entry: TaskEntry;
  /** Input rounds waiting for the chart to leave `input_required`. */
  waiters?: Set<(snapshot: TaskSnapshotLike) => void>;
  /** The final status, once reached. */
  ended?: TaskStateValue;
  /** The signal handed to `run`, once it asked for it. */
  signal?: AbortSignal;
}

/** Why a task's signal aborts; a completed task's signal never does. */
function abortReason(status: TaskStateValue): DOMException | undefined {
  return status === "cancelled" ? CANCELLED : status === "failed" ? ENDED : undefined;
}

/**
 * The task's signal, made the first time `run` reads it: most runs never do, and an
 * AbortController costs more than the rest of the task's bookkeeping. Read after the end, it is
 * already aborted (unless the task completed).
 */
function signalOf(run: TaskRun): AbortSignal {
  if (run.signal) return run.signal;
  const controller = new AbortController();
  const reason = run.ended && abortReason(run.ended);
  if (reason) controller.abort(reason);
  else if (!run.ended) run.entry.abort = controller;
  return (run.signal = controller.signal);
}

function startRun(run: TaskRun, caps: ClientCapabilities, task: McpTaskOptions, now: () => number): void {
  const entry = run.entry;
  const send = (event: Parameters<NonNullable<TaskEntry["actor"]>["send"]>[0]) => {
    // After the final state the actor is gone: a late outcome changes nothing.
    entry.actor?.send(event);
  };
  const context: McpTaskContext = {
    taskId: entry.id,
    get signal() {
      return signalOf(run);
    },
    update({ statusMessage }) {
      if (typeof statusMessage !== "string") throw new TypeError("task.update needs a statusMessage string");
      send({ type: "status.update", statusMessage, at: now() });
    },
    requestInput(requests) {
      return new Promise((resolve, reject) => {
        if (!entry.actor) return reject(new McpUsageError("TASK_ENDED", "The task has already ended"));
        // One round at a time: the chart only opens a round from `working`, and an answer must never
        // be handed to a call whose question the client was not shown.
        if (entry.actor.getSnapshot().value !== "working") {
          return reject(new McpUsageError("INPUT_PENDING", "An input round is already open; await it before asking again"));
        }
        try {
          assertCanAsk(requests, caps);
        } catch (error) {
          return reject(error);
        }
        const keys = Object.keys(requests);
        if (!keys.length) return resolve({} as never);
        const wire = Object.fromEntries(
          keys.map((key) => {
            const r = requests[key] as InputRequest;
            return [key, { method: r.method, params: r.params }];
          }),
        );
        const waiters = (run.waiters ??= new Set());
        const waiter = (snapshot: TaskSnapshotLike) => {
          if (snapshot.value === "working") {
            waiters.delete(waiter);
            const answers = snapshot.context.answers;
            resolve(Object.fromEntries(keys.filter((key) => Object.hasOwn(answers, key)).map((key) => [key, answers[key]])) as never);
          } else if (isTerminalStatus(snapshot.value)) {
            waiters.delete(waiter);
            reject(new McpUsageError("TASK_ENDED", `The task ended (${snapshot.value}) while waiting for input`));
          }
        };
        send({ type: "input.request", requests: wire, at: now() });
        if (entry.actor?.getSnapshot().value !== "input_required") {
          return reject(new McpUsageError("INPUT_NOT_OPENED", "The task could not ask for this input"));
        }
        waiters.add(waiter);
      });
    },
  };

  let outcome: Promise<unknown>;
  try {
    outcome = Promise.resolve(task.run(context));
  } catch (error) {
    outcome = Promise.reject(error);
  }
  outcome.then(
    (value) => {
      // The chart keeps only JSON data: a result that cannot be sent as JSON is the run's failure.
      const result = isCallToolResult(value) ? toJsonData(value) : undefined;
      if (result) {
        delete result.resultType;
        send({ type: "work.done", result, at: now() });
      } else {
        send({
          type: "work.protocolError",
          error: { code: ErrorCode.InternalError, message: "The task's run returned something that is not a CallToolResult" },
          at: now(),
        });
      }
    },
    (error) => {
      const rpc = McpJsonRpcError.isError(error) ? toJsonData(error.toJSON()) : undefined;
      if (rpc) send({ type: "work.protocolError", error: rpc as { code: number; message: string }, at: now() });
      else if (McpJsonRpcError.isError(error)) {
        send({ type: "work.protocolError", error: { code: error.code, message: describeThrown(error) }, at: now() });
      } else send({ type: "work.toolError", message: describeThrown(error), at: now() });
    },
  );
}

function isCallToolResult(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const content = (value as JsonObject).content;
  return Array.isArray(content) && content.every((c) => typeof c === "object" && c !== null && typeof c.type === "string");
}

/** A JSON copy of a value, or undefined when it is not JSON data (BigInt, cycles, …). */
function toJsonData(value: unknown): JsonObject | undefined {
  try {
    return JSON.parse(JSON.stringify(value)) as JsonObject;
  } catch {
    return undefined;
  }
}
