// Wiring between a task's actor and the user's `run`: the runtime reports what the work does
// as chart events, and reads the chart's snapshots to resolve input rounds and abort the signal.
import { createActor, type InspectionEvent, type Observer } from "xstate";
import { taskMachine, type TaskContext, type TaskEvent, type TaskStateValue } from "../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError, McpUsageError, taskStoreFull } from "../protocol/errors.ts";
import { describeThrown } from "../utils/describe.ts";
import { assertCanAsk, type InputRequest } from "../features/mrtr/input-requests.ts";
import type { McpContext } from "../features/request-context.ts";
import type { McpTaskContext, McpTaskOptions } from "../features/task-api.ts";
import { toolResultOf } from "../features/tool-result.ts";
import type { CompiledTool } from "../features/tools.ts";
import type { ClientCapabilities, CreateTaskResult, JsonObject } from "../protocol/types.ts";
import { isTerminalStatus, toCreateTaskResult, toGetTaskResultJson, type TaskSnapshotLike } from "../protocol/wire.ts";
import { snapshotOf, untilIdle, type KeepAlive } from "./keep-alive.ts";
import type { TaskEntry, TaskStore } from "./store.ts";

// Shared abort reasons: a per-task Error would keep its stopped actor reachable through the stack it captured.
const CANCELLED = new DOMException("The task was cancelled", "AbortError");
const ENDED = new DOMException("The task ended", "AbortError");

export interface TaskRuntimeOptions {
  store: TaskStore;
  /** The store's cap, for the error a full store answers with. */
  max: number;
  ttlMs: number | null;
  pollIntervalMs: number;
  now: () => number;
  newId: () => string;
  inspect?: Observer<InspectionEvent> | ((event: InspectionEvent) => void);
}

export function createTaskRuntime(options: TaskRuntimeOptions) {
  const { store, now } = options;

  return {
    /**
     * Creates the actor, stores the task, starts `run`, and returns the handle (already retrievable).
     * `keepAlive` is the request's waitUntil: it gets the work this request set going (see `untilIdle`),
     * so a platform that ends work with the response (Workers) lets the run go on.
     */
    create(owner: unknown, ctx: McpContext, task: McpTaskOptions, keepAlive?: KeepAlive): CreateTaskResult | Promise<CreateTaskResult> {
      const id = options.newId();
      const at = now();
      const actor = createActor(taskMachine, {
        id,
        input: { taskId: id, now: at, ttlMs: options.ttlMs, pollIntervalMs: options.pollIntervalMs, statusMessage: task.statusMessage },
        inspect: options.inspect,
      });
      const entry: TaskEntry = {
        id,
        owner,
        expiresAt: options.ttlMs === null ? Infinity : at + options.ttlMs,
        actor,
      };
      const begin = (created: boolean): CreateTaskResult => {
        if (!created) throw taskStoreFull(options.max);
        ctx["~becameTask"]();
        const live = observeTask(entry, store);
        entry.observer = live.observer;
        actor.subscribe(live.observer);
        actor.start();
        const handle = toCreateTaskResult(snapshotOf(entry)) as unknown as CreateTaskResult;
        const ran = startRun(entry, store, ctx.clientCapabilities, resultPath(ctx["~tool"]), task, live.waiters, live.signal, now);
        if (keepAlive) keepAlive.waitUntil(Promise.race([ran, untilIdle(entry, keepAlive.holdParkedMs)]));
        return handle;
      };
      // A shared store holds the task before the handle exists, so another instance finds it at once.
      const created = store.create(entry);
      return typeof created === "boolean" ? begin(created) : created.then(begin);
    },
  };
}

// --- Internal ---

/**
 * What a running task keeps besides its actor: the observer of its snapshots, its input waiters
 * and its signal. Made here, apart from `create`, so that nothing it holds on to reaches the
 * request the task was created in (its context, headers, arguments).
 */
function observeTask(entry: TaskEntry, store: TaskStore) {
  const waiters = new Set<(snapshot: TaskSnapshotLike) => void>();
  let lastStatus: TaskStateValue = "working";
  let ended: TaskStateValue | undefined;
  let signal: AbortSignal | undefined;
  const observer = (snap: { value: unknown; context: unknown }) => {
    const snapshot = { value: snap.value as TaskStateValue, context: snap.context as TaskContext };
    for (const waiter of waiters) waiter(snapshot);
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
      const final = entry.actor;
      ended = snapshot.value;
      store.finish(entry, snapshot.value, toGetTaskResultJson(snapshot));
      final?.stop();
      const reason = abortReason(snapshot.value);
      if (reason) abort?.abort(reason);
    }
  };
  return { observer, waiters, signal: () => (signal ??= newSignal(entry, ended)) };
}

/** Why a task's signal aborts; a completed task's signal never does. */
function abortReason(status: TaskStateValue): DOMException | undefined {
  return status === "cancelled" ? CANCELLED : status === "failed" ? ENDED : undefined;
}

/**
 * A task's signal, made when `run` first reads it: most runs never do, and an AbortController
 * costs as much as the rest of the task's own bookkeeping. Made after the end, it is already
 * aborted (unless the task completed).
 */
function newSignal(entry: TaskEntry, ended: TaskStateValue | undefined): AbortSignal {
  const controller = new AbortController();
  const reason = ended && abortReason(ended);
  if (reason) controller.abort(reason);
  else if (!ended) entry.abort = controller;
  return controller.signal;
}

/** A task's result goes through the same path as the synchronous call's, with the tool that created it. */
function resultPath(tool: CompiledTool | undefined): (value: unknown) => Promise<JsonObject> {
  if (!tool) return async () => { throw new McpJsonRpcError(ErrorCode.InternalError, "A task's result needs the tool that created it"); };
  return (value) => toolResultOf(tool, value);
}

function startRun(
  entry: TaskEntry,
  store: TaskStore,
  caps: ClientCapabilities,
  finish: (value: unknown) => Promise<JsonObject>,
  task: McpTaskOptions,
  waiters: Set<(snapshot: TaskSnapshotLike) => void>,
  signal: () => AbortSignal,
  now: () => number,
): Promise<void> {
  const send = (event: TaskEvent) => store.dispatch(entry, event);
  // A round being opened: with a shared store the chart shows it only after a round trip, and a second
  // call meanwhile must be refused, not mistake the first round for its own.
  let asking = false;
  const context: McpTaskContext = {
    taskId: entry.id,
    get signal() {
      return signal();
    },
    update({ statusMessage }) {
      if (typeof statusMessage !== "string") throw new TypeError("task.update needs a statusMessage string");
      void send({ type: "status.update", statusMessage, at: now() });
    },
    requestInput(requests) {
      return new Promise((resolve, reject) => {
        if (!entry.actor) return reject(new McpUsageError("TASK_ENDED", "The task has already ended"));
        // One round at a time: the chart only opens a round from `working`, and an answer must never
        // be handed to a call whose question the client was not shown.
        if (asking || entry.actor.getSnapshot().value !== "working") {
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
        // The round counts as open once the chart shows it; with a shared store that may come after
        // `send` returns, and the answers may even arrive before `send` settles.
        let opened = false;
        asking = true;
        const waiter = (snapshot: TaskSnapshotLike) => {
          if (snapshot.value === "input_required") opened = true;
          else if (snapshot.value === "working" && opened) {
            waiters.delete(waiter);
            asking = false;
            const answers = snapshot.context.answers;
            resolve(Object.fromEntries(keys.filter((key) => Object.hasOwn(answers, key)).map((key) => [key, answers[key]])) as never);
          } else if (isTerminalStatus(snapshot.value)) {
            waiters.delete(waiter);
            asking = false;
            reject(new McpUsageError("TASK_ENDED", `The task ended (${snapshot.value}) while waiting for input`));
          }
        };
        waiters.add(waiter);
        const notOpened = () => {
          if (opened || !waiters.has(waiter)) return;
          waiters.delete(waiter);
          asking = false;
          reject(new McpUsageError("INPUT_NOT_OPENED", "The task could not ask for this input"));
        };
        const sent = send({ type: "input.request", requests: wire, at: now() });
        if (sent instanceof Promise) sent.then(notOpened, notOpened);
        else notOpened();
      });
    },
  };

  let outcome: Promise<unknown>;
  try {
    outcome = Promise.resolve(task.run(context));
  } catch (error) {
    outcome = Promise.reject(error);
  }
  const failWith = (error: { code: number; message: string; data?: unknown }) => send({ type: "work.protocolError", error, at: now() });
  const notAResult = () =>
    failWith({ code: ErrorCode.InternalError, message: "The task's run returned something that is not a CallToolResult" });
  return outcome.then(
    // What run returned goes through the synchronous call's result path; whatever fails there is a
    // protocol error, as it is for the call.
    (value) =>
      finish(value).then(
        (result) => {
          // Only a complete CallToolResult ends a task, and the chart keeps only JSON data.
          const data = result.resultType === "complete" ? toJsonData(result) : undefined;
          if (data) send({ type: "work.done", result: data, at: now() });
          else notAResult();
        },
        (error) => {
          const rpc = McpJsonRpcError.isError(error) ? toJsonData(error.toJSON()) : undefined;
          if (rpc) failWith(rpc as { code: number; message: string });
          else notAResult();
        },
      ),
    (error) => {
      const rpc = McpJsonRpcError.isError(error) ? toJsonData(error.toJSON()) : undefined;
      if (rpc) failWith(rpc as { code: number; message: string });
      else if (McpJsonRpcError.isError(error)) failWith({ code: error.code, message: describeThrown(error) });
      else send({ type: "work.toolError", message: describeThrown(error), at: now() });
    },
  );
}

/** A JSON copy of a value, or undefined when it is not JSON data (BigInt, cycles, …). */
function toJsonData(value: unknown): JsonObject | undefined {
  try {
    return JSON.parse(JSON.stringify(value)) as JsonObject;
  } catch {
    return undefined;
  }
}
