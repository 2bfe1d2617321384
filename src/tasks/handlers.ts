// tasks/get, tasks/update, tasks/cancel, the `taskIds` listen filter and the taskSupport gate.
// They only send events to actors and turn snapshots into envelopes (in wire.ts).
import type { H3Event } from "h3";
import { getMcpContext } from "../features/request-context.ts";
import { ErrorCode, invalidParams, McpJsonRpcError, missingCapability } from "../protocol/errors.ts";
import type { ListenFilter, McpPluginMethod } from "../features/extension-plugin.ts";
import { TASKS_EXTENSION } from "../features/task-api.ts";
import type { ToolDefinition } from "../features/tools.ts";
import type { JsonObject } from "../protocol/types.ts";
import { EMPTY_ACK, RawJson, toDetailedTask, toGetTaskResult } from "../protocol/wire.ts";
import { snapshotOf } from "./runtime.ts";
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
        return after(store.send(taskId, owner, { type: "input.answer", responses: responses as JsonObject, at: deps.now() }), (known) => {
          if (!known) throw unknown();
          return EMPTY_ACK;
        });
      },
    },
    "tasks/cancel": {
      nameParam: "taskId",
      handler(event, params) {
        const { taskId, owner } = resolve(event, params);
        return after(store.send(taskId, owner, { type: "task.cancel", at: deps.now() }), (known) => {
          if (!known) throw unknown();
          return EMPTY_ACK;
        });
      },
    },
  };
}

/** `taskIds` on subscriptions/listen: agrees to the caller's own known tasks and pushes each status change. */
export function createTaskListenFilter(deps: TaskHandlerDeps): ListenFilter {
  return {
    key: "taskIds",
    agree(event, value, stream) {
      if (!declaresTasks(event)) throw missingCapability(REQUIRED);
      if (!Array.isArray(value)) throw invalidParams("notifications.taskIds must be an array of task ids");
      const owner = deps.owner(event);
      const agreed: string[] = [];
      const pending: Promise<void>[] = [];
      for (const id of new Set(value)) {
        if (typeof id !== "string") continue;
        const off = deps.store.subscribe(id, owner, (snapshot) => {
          stream.notify("notifications/tasks", toDetailedTask(snapshot));
        });
        const settle = (off: (() => void) | undefined) => {
          if (!off) return;
          stream.onClose(off);
          agreed.push(id);
        };
        if (off instanceof Promise) pending.push(off.then(settle));
        else settle(off);
      }
      // A shared store answers later; the acknowledgement keeps the order the ids were asked in.
      if (!pending.length) return agreed;
      return Promise.all(pending).then(() => value.filter((id, i) => agreed.includes(id) && value.indexOf(id) === i));
    },
  };
}

/** `taskSupport: "required"`: refused before the handler runs when no task can be created for the client. */
export function requireTaskGate(event: H3Event, tool: ToolDefinition<any>): void {
  if (tool.execution?.taskSupport !== "required") return;
  const ctx = getMcpContext(event);
  if (ctx.era !== "modern") {
    throw new McpJsonRpcError(
      ErrorCode.MethodNotFound,
      `Tool ${tool.name} can only run as a task, which protocol ${ctx.protocolVersion} does not support; use 2026-07-28 with the ${TASKS_EXTENSION} extension`,
    );
  }
  if (!declaresTasks(event)) throw missingCapability(REQUIRED);
}

// --- Internal ---

/** `fn(value)`, after the value when it is a promise: the in-memory store stays synchronous. */
function after<T, R>(value: T | Promise<T>, fn: (value: T) => R): R | Promise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
