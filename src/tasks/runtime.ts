// Creating a task: its actor, its place in the store, its handle, and the user's `run`, whose outcome
// (a result, a tool error, a protocol error) is reported to the chart as the event it is.
import { createActor, type InspectionEvent, type Observer } from "xstate";
import { taskMachine } from "../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError, taskStoreFull } from "../protocol/errors.ts";
import { describeThrown } from "../utils/describe.ts";
import type { McpContext } from "../features/request-context.ts";
import type { McpTaskOptions } from "../features/task-api.ts";
import { toolResultNow } from "../features/tool-result.ts";
import type { CompiledTool } from "../features/tools.ts";
import type { CreateTaskResult, JsonObject } from "../protocol/types.ts";
import { toCreateTaskResult } from "../protocol/wire.ts";
import { snapshotOf, untilIdle, type KeepAlive } from "./keep-alive.ts";
import type { MaybePromise, TaskEntry, TaskStore } from "./store.ts";
import { TaskRun } from "./task-run.ts";

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
     * `keepAlive` gives the request's waitUntil, asked for only when the run goes on after this call: it gets
     * the work this request set going (see `untilIdle`), so a platform that ends work with the response
     * (Workers) lets the run go on.
     */
    create(owner: unknown, ctx: McpContext, task: McpTaskOptions, keepAlive?: () => KeepAlive): CreateTaskResult | Promise<CreateTaskResult> {
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
        const run = new TaskRun(entry, store, ctx.clientCapabilities, now);
        entry.observer = run.observer;
        actor.subscribe(run.observer);
        actor.start();
        const handle = toCreateTaskResult(snapshotOf(entry)) as unknown as CreateTaskResult;
        const ran = startRun(run, task, resultPath(ctx["~tool"]));
        // A run that ended in this call (and a store that recorded it at once) leaves nothing to keep alive.
        if (ran && keepAlive) {
          const alive = keepAlive();
          alive.waitUntil(Promise.race([ran, untilIdle(entry, alive.holdParkedMs)]));
        }
        return handle;
      };
      // A shared store holds the task before the handle exists, so another instance finds it at once.
      const created = store.create(entry);
      return typeof created === "boolean" ? begin(created) : created.then(begin);
    },
  };
}

// --- Internal ---

type ProtocolError = { code: number; message: string; data?: unknown };

/** A task's result goes through the same path as the synchronous call's, with the tool that created it. */
function resultPath(tool: CompiledTool | undefined): (value: unknown) => MaybePromise<JsonObject> {
  if (!tool) return () => { throw new McpJsonRpcError(ErrorCode.InternalError, "A task's result needs the tool that created it"); };
  return (value) => toolResultNow(tool, value);
}

/**
 * Runs the work and reports its outcome to the chart. A run that returns at once (not a promise) is
 * finished in this call, as the synchronous tools/call is: no promise, nothing left to keep alive.
 * Returns what is still pending, or undefined when nothing is.
 */
function startRun(run: TaskRun, task: McpTaskOptions, finish: (value: unknown) => MaybePromise<JsonObject>): Promise<void> | undefined {
  let value: unknown;
  try {
    value = task.run(run);
  } catch (error) {
    return pending(thrown(run, error));
  }
  if (isThenable(value)) {
    return Promise.resolve(value).then(
      (settled) => completed(run, settled, finish),
      (error) => thrown(run, error),
    );
  }
  return pending(completed(run, value, finish));
}

/** What run returned goes through the synchronous call's result path; whatever fails there is a protocol error. */
function completed(run: TaskRun, value: unknown, finish: (value: unknown) => MaybePromise<JsonObject>): MaybePromise<void> {
  let result: MaybePromise<JsonObject>;
  try {
    result = finish(value);
  } catch (error) {
    return resultFailed(run, error);
  }
  return result instanceof Promise ? result.then((r) => withResult(run, r), (error) => resultFailed(run, error)) : withResult(run, result);
}

function withResult(run: TaskRun, result: JsonObject): MaybePromise<void> {
  // Only a complete CallToolResult ends a task, and the chart keeps only JSON data: serialised once here,
  // which both proves it and is the JSON the finished task keeps.
  const json = result.resultType === "complete" ? jsonOf(result) : undefined;
  return json === undefined ? notAResult(run) : run.complete(result, json);
}

function resultFailed(run: TaskRun, error: unknown): MaybePromise<void> {
  const rpc = McpJsonRpcError.isError(error) ? toJsonData(error.toJSON()) : undefined;
  return rpc ? failWith(run, rpc as ProtocolError) : notAResult(run);
}

/** A run that threw: a McpJsonRpcError is a protocol error, anything else a tool error. */
function thrown(run: TaskRun, error: unknown): MaybePromise<void> {
  const rpc = McpJsonRpcError.isError(error) ? toJsonData(error.toJSON()) : undefined;
  if (rpc) return failWith(run, rpc as ProtocolError);
  if (McpJsonRpcError.isError(error)) return failWith(run, { code: error.code, message: describeThrown(error) });
  return run.toolError(describeThrown(error));
}

function failWith(run: TaskRun, error: ProtocolError): MaybePromise<void> {
  return run.protocolError(error);
}

function notAResult(run: TaskRun): MaybePromise<void> {
  return failWith(run, { code: ErrorCode.InternalError, message: "The task's run returned something that is not a CallToolResult" });
}

function pending(outcome: MaybePromise<void>): Promise<void> | undefined {
  return outcome instanceof Promise ? outcome : undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === "function";
}

/** The JSON of a value, or undefined when it is not JSON data (BigInt, cycles, …). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** A JSON copy of a value, or undefined when it is not JSON data. */
function toJsonData(value: unknown): JsonObject | undefined {
  const json = jsonOf(value);
  return json === undefined ? undefined : (JSON.parse(json) as JsonObject);
}
