// tasks/get, tasks/update, tasks/cancel and the `taskIds` listen filter. They only send events (through
// the runtime) and turn what the store holds into envelopes (envelopes.ts).
import type { H3Event } from "h3";
import type { InputRequest, TaskEvent } from "../../machines/task.machine.ts";
import { requireTasksDeclared } from "../features/task-api.ts";
import { invalidParams } from "../protocol/errors.ts";
import { hasAnswerShape } from "../features/mrtr/answers.ts";
import type { ListenFilter, ListenStream, McpPluginMethod } from "../features/extension-plugin.ts";
import type { JsonObject } from "../protocol/types.ts";
import { RawJson } from "../protocol/wire.ts";
import { EMPTY_ACK, isNotified, isTerminalStatus, toDetailedTask, toGetTaskResult, type TaskSnapshot } from "./envelopes.ts";
import { after, type MaybePromise } from "../utils/maybe-promise.ts";
import { unrefTimerAt } from "../utils/timers.ts";
import { isThenable } from "../utils/is-thenable.ts";
import { keepAliveFor, untilIdle } from "./keep-alive.ts";
import { snapshotFromKeptJson } from "./kept-json.ts";
import type { TaskRuntime } from "./runtime.ts";
import { cancelled, inputAnswered } from "./logic/task-events.ts";

export interface TaskHandlerDeps {
  runtime: TaskRuntime;
  /** The caller's owner key; undefined when `bind` answered something no task can be bound to. */
  owner(event: H3Event): string | undefined;
  now(): number;
  /** Told each task a tasks/cancel here reached (an executor may drop a delivery still queued for it). */
  cancelled?(taskId: string): void;
}

export function createTaskMethods(deps: TaskHandlerDeps): Record<string, McpPluginMethod> {
  const { runtime } = deps;
  // One error for unknown, expired and foreign ids, so a leaked id tells a third party nothing.
  const unknown = () => invalidParams("Unknown task");
  const resolve = (event: H3Event, params: JsonObject) => {
    requireTasksDeclared(event);
    const taskId = params.taskId;
    if (typeof taskId !== "string" || taskId === "") throw invalidParams("params.taskId must be a string");
    const owner = deps.owner(event);
    if (owner === undefined) throw unknown();
    return { taskId, owner };
  };

  return {
    "tasks/get": {
      nameParam: "taskId",
      handler(event, params) {
        const { taskId, owner } = resolve(event, params);
        return after(runtime.get(taskId, owner), (task) => {
          if (!task) throw unknown();
          return task.json !== undefined ? new RawJson(task.json) : toGetTaskResult(task.snapshot);
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
        const answer = (snapshot: TaskSnapshot): TaskEvent => inputAnswered(wellFormedAnswers(snapshot.context.inputRequests, responses as JsonObject), deps.now());
        return after(runtime.send(taskId, owner, answer), (found) => {
          if (found === false) throw unknown();
          // The answer resumes the run here: keep it alive as creation did.
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
        return after(runtime.send(taskId, owner, () => cancelled(deps.now())), (found) => {
          if (found === false) throw unknown();
          deps.cancelled?.(taskId);
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
      requireTasksDeclared(event);
      if (!Array.isArray(value)) throw invalidParams("notifications.taskIds must be an array of task ids");
      const owner = deps.owner(event);
      const ids = [...new Set(value)].filter((id): id is string => typeof id === "string");
      if (owner === undefined) return [];
      const agreed = ids.map((id) => agreeTo(deps, stream, id, owner));
      // A shared store answers later; the acknowledgement keeps the order the ids were asked in.
      if (!agreed.some(isThenable)) return ids.filter((_, i) => agreed[i]);
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
function agreeTo(deps: TaskHandlerDeps, stream: ListenStream, id: string, owner: string): MaybePromise<boolean> {
  let stopTimer: (() => void) | undefined;
  // A change may arrive before the current state below is sent: each status (and attempt) goes out once.
  let sent: TaskSnapshot | undefined;
  const send = (snapshot: TaskSnapshot) => {
    if (sent && !isNotified(sent, snapshot)) return;
    sent = snapshot;
    stream.notify("notifications/tasks", toDetailedTask(snapshot));
    if (isTerminalStatus(snapshot.value)) stopTimer?.();
  };
  return after(deps.runtime.subscribe(id, owner, send), (subscription) => {
    if (!subscription) return false;
    const { task, off } = subscription;
    stream.onClose(off);
    if (task.json !== undefined) {
      if (sent === undefined) send(snapshotFromKeptJson(task.json));
      return true;
    }
    // A change delivered meanwhile is newer than the state read: it stands.
    if (sent === undefined) send(task.snapshot);
    if (task.expiresAt !== Infinity && !isTerminalStatus(sent!.value)) {
      stopTimer = expiryTimer(deps, id, task.expiresAt);
      stream.onClose(stopTimer);
    }
    return true;
  });
}

/**
 * Fires the task's expiry at its time. The timer is the stream's: it lives only while the stream
 * is open and its task runs, and never holds the process open. The store itself runs no timer.
 */
function expiryTimer(deps: TaskHandlerDeps, id: string, expiresAt: number): () => void {
  return unrefTimerAt(expiresAt, deps.now, () => deps.runtime.expire(id));
}
