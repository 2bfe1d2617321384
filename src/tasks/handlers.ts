// tasks/get, tasks/update, tasks/cancel, the `taskIds` listen filter and the taskSupport gate.
// They only send events to actors and turn snapshots into envelopes (in wire.ts).
import type { H3Event } from "h3";
import type { InputRequest, TaskEvent } from "../../machines/task.machine.ts";
import { getMcpContext } from "../features/request-context.ts";
import { invalidParams, missingCapability } from "../protocol/errors.ts";
import { hasAnswerShape } from "../features/mrtr/answers.ts";
import type { ListenFilter, ListenStream, McpPluginMethod } from "../features/extension-plugin.ts";
import { TASKS_EXTENSION } from "../features/task-api.ts";
import type { JsonObject } from "../protocol/types.ts";
import { EMPTY_ACK, isTerminalStatus, RawJson, toDetailedTask, toDetailedTaskFromGetJson, toGetTaskResult, type TaskSnapshotLike } from "../protocol/wire.ts";
import { keepAliveFor, snapshotOf, untilIdle } from "./keep-alive.ts";
import { FinishedTask, type TaskStore } from "./store.ts";

export interface TaskHandlerDeps {
  store: TaskStore;
  owner(event: H3Event): unknown;
  now(): number;
}

const REQUIRED = { extensions: { [TASKS_EXTENSION]: {} } };

/** True when this request's own capabilities declare the extension. */
export function declaresTasks(event: H3Event): boolean {
  const ctx = getMcpContext(event);
  return ctx.era === "modern" && !!ctx.clientCapabilities.extensions?.[TASKS_EXTENSION];
}

export function createTaskMethods(deps: TaskHandlerDeps): Record<string, McpPluginMethod> {
  const { store } = deps;
  // One error for unknown, expired and foreign ids, so a leaked id tells a third party nothing.
  const unknown = () => invalidParams("Unknown task");
  const resolve = (event: H3Event, params: JsonObject) => {
    if (!declaresTasks(event)) throw missingCapability(REQUIRED);
    const taskId = params.taskId;
    if (typeof taskId !== "string" || taskId === "") throw invalidParams("params.taskId must be a string");
    return { taskId, owner: deps.owner(event) };
  };

  return {
    "tasks/get": {
      nameParam: "taskId",
      handler(event, params) {
        const { taskId, owner } = resolve(event, params);
        return after(store.get(taskId, owner), (entry) => {
          if (!entry) throw unknown();
          return entry instanceof FinishedTask ? new RawJson(entry.json) : toGetTaskResult(snapshotOf(entry));
        });
      },
    },
    "tasks/update": {
      nameParam: "taskId",
      handler(event, params) {
        const { taskId, owner } = resolve(event, params);
        const responses = params.inputResponses;
        if (typeof responses !== "object" || responses === null || Array.isArray(responses)) {
          throw invalidParams("params.inputResponses must be an object");
        }
        const answer = (snapshot: TaskSnapshotLike): TaskEvent => ({
          type: "input.answer",
          responses: wellFormedAnswers(snapshot.context.inputRequests, responses as JsonObject),
          at: deps.now(),
        });
        return after(store.send(taskId, owner, answer), (found) => {
          if (found === false) throw unknown();
          // The answer resumes the run in this request: keep it alive here as creation did.
          if (found !== true) {
            const alive = keepAliveFor(event);
            alive.waitUntil(untilIdle(found, alive.holdParkedMs));
          }
          return EMPTY_ACK;
        });
      },
    },
    "tasks/cancel": {
      nameParam: "taskId",
      handler(event, params) {
        const { taskId, owner } = resolve(event, params);
        return after(store.send(taskId, owner, { type: "task.cancel", at: deps.now() }), (found) => {
          if (found === false) throw unknown();
          return EMPTY_ACK;
        });
      },
    },
  };
}

/**
 * `taskIds` on subscriptions/listen: agrees to the caller's own known tasks, sends each one's current
 * state right after the ack (so a state reached before the listen is never missed), then each status
 * change. A running task's expiry is sent when it happens, by a timer of the stream's own.
 */
export function createTaskListenFilter(deps: TaskHandlerDeps): ListenFilter {
  return {
    key: "taskIds",
    agree(event, value, stream) {
      if (!declaresTasks(event)) throw missingCapability(REQUIRED);
      if (!Array.isArray(value)) throw invalidParams("notifications.taskIds must be an array of task ids");
      const owner = deps.owner(event);
      const ids = [...new Set(value)].filter((id): id is string => typeof id === "string");
      const agreed = ids.map((id) => agreeTo(deps, stream, id, owner));
      // A shared store answers later; the acknowledgement keeps the order the ids were asked in.
      if (!agreed.some((a) => a instanceof Promise)) return ids.filter((_, i) => agreed[i]);
      return Promise.all(agreed).then((ok) => ids.filter((_, i) => ok[i]));
    },
  };
}

// --- Internal ---

/**
 * The answers without those to outstanding requests that lack the outer shape of their result, as MRTR
 * takes them: a malformed answer counts as missing, so its key stays outstanding. Other keys pass (the
 * chart ignores keys that are not outstanding); the content stays unvalidated.
 */
function wellFormedAnswers(outstanding: Record<string, InputRequest>, responses: JsonObject): JsonObject {
  const malformed = (key: string) => Object.hasOwn(outstanding, key) && !hasAnswerShape(outstanding[key]!.method, responses[key]);
  if (!Object.keys(responses).some(malformed)) return responses;
  // Entries, not assignment: a key named __proto__ must stay an own key.
  return Object.fromEntries(Object.entries(responses).filter(([key]) => !malformed(key)));
}

/** Subscribes `stream` to one task and sends its current state; false when the caller may not have it. */
function agreeTo(deps: TaskHandlerDeps, stream: ListenStream, id: string, owner: unknown): boolean | Promise<boolean> {
  let stopTimer: (() => void) | undefined;
  // A shared store may deliver a change the current state below already showed: each status goes out once.
  let sent: string | undefined;
  const send = (snapshot: TaskSnapshotLike) => {
    if (snapshot.value === sent) return;
    sent = snapshot.value;
    stream.notify("notifications/tasks", toDetailedTask(snapshot));
  };
  const subscribed = deps.store.subscribe(id, owner, (snapshot) => {
    send(snapshot);
    if (isTerminalStatus(snapshot.value)) stopTimer?.();
  });
  return after(subscribed, (off) => {
    if (!off) return false;
    return after(deps.store.get(id, owner), (entry) => {
      if (!entry) {
        off();
        return false;
      }
      stream.onClose(off);
      if (entry instanceof FinishedTask) {
        if (sent === undefined) stream.notify("notifications/tasks", toDetailedTaskFromGetJson(entry.json));
        sent = entry.status;
        return true;
      }
      send(snapshotOf(entry));
      if (entry.expiresAt !== Infinity) {
        stopTimer = expiryTimer(deps, id, entry.expiresAt);
        stream.onClose(stopTimer);
      }
      return true;
    });
  });
}

/** `fn(value)`, after the value when it is a promise: the in-memory store stays synchronous. */
function after<T, R>(value: T | Promise<T>, fn: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}

// setTimeout's longest delay; a longer ttl waits in steps.
const MAX_DELAY = 2 ** 31 - 1;

/**
 * Fires the task's expiry at its time. The timer is the stream's: it lives only while the stream
 * is open and its task runs, and never holds the process open. The store itself runs no timer.
 */
function expiryTimer(deps: TaskHandlerDeps, id: string, expiresAt: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    timer = setTimeout(
      () => {
        timer = undefined;
        if (!deps.store.expire(id)) arm();
      },
      Math.min(MAX_DELAY, Math.max(0, expiresAt - deps.now())),
    );
    (timer as { unref?: () => void }).unref?.();
  };
  arm();
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}
