// Running a task's `run` and reporting its outcome to the chart as the event it is: a result (through
// the same result path as the synchronous call), a tool error, or a protocol error.
import type { JsonRpcErrorObject } from "../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import type { JsonObject } from "../protocol/types.ts";
import { describeThrown } from "../utils/describe.ts";
import { isThenable } from "../utils/is-thenable.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import type { McpTaskContext, McpTaskClosureOptions } from "../features/task-api.ts";
import { toolResultNow, type ResultCheck } from "../features/tool-result.ts";

/** What the outcome of a run is told to (the run's control, task-run.ts). */
export interface RunReport {
  complete(result: JsonObject, json: string): MaybePromise<void>;
  toolError(message: string): MaybePromise<void>;
  protocolError(error: JsonRpcErrorObject): MaybePromise<void>;
}

/** A task's result goes through the same path as the synchronous call's, with the tool that created it. */
export function resultPath(tool: ResultCheck | undefined): (value: unknown) => MaybePromise<JsonObject> {
  if (!tool) return () => { throw new McpJsonRpcError(ErrorCode.InternalError, "A task's result needs the tool that created it"); };
  return (value) => toolResultNow(tool, value);
}

/**
 * Runs the work and reports its outcome. A run that returns at once (not a promise) is finished in this
 * call, as the synchronous tools/call is: no promise, nothing left to keep alive. Returns what is still
 * pending, or undefined when nothing is.
 */
export function startRun(
  task: McpTaskContext,
  report: RunReport,
  run: McpTaskClosureOptions["run"],
  finish: (value: unknown) => MaybePromise<JsonObject>,
): Promise<void> | undefined {
  return settle(report, () => run(task), (value) => completed(report, value, finish));
}

/**
 * `startRun` inside the plugins' `wrapTaskRun`: the hooks' `next()` runs the work and gives its
 * normalised result (a result that is not one fails as a protocol error, as without hooks), and what the
 * outermost hook returns or throws is the run's outcome.
 */
export function startWrappedRun(
  task: McpTaskContext,
  report: RunReport,
  run: McpTaskClosureOptions["run"],
  finish: (value: unknown) => MaybePromise<JsonObject>,
  wrap: (work: () => MaybePromise<JsonObject>) => MaybePromise<JsonObject>,
): Promise<void> | undefined {
  const strictFinish = (value: unknown): MaybePromise<JsonObject> => {
    try {
      const result = finish(value);
      return isThenable(result) ? Promise.resolve(result).catch(notAResult) : result;
    } catch (error) {
      return notAResult(error);
    }
  };
  const work = (): MaybePromise<JsonObject> => {
    const value = run(task);
    return isThenable(value) ? Promise.resolve(value).then(strictFinish) : strictFinish(value);
  };
  return settle(report, () => wrap(work), (result) => withResult(report, result));
}

// --- Internal ---

const NOT_A_RESULT: JsonRpcErrorObject = { code: ErrorCode.InternalError, message: "The task's run returned something that is not a CallToolResult" };

/** What run returned goes through the synchronous call's result path; whatever fails there is a protocol error. */
function completed(report: RunReport, value: unknown, finish: (value: unknown) => MaybePromise<JsonObject>): MaybePromise<void> {
  let result: MaybePromise<JsonObject>;
  try {
    result = finish(value);
  } catch (error) {
    return report.protocolError(protocolErrorOf(error) ?? NOT_A_RESULT);
  }
  const failed = (error: unknown) => report.protocolError(protocolErrorOf(error) ?? NOT_A_RESULT);
  return isThenable(result) ? Promise.resolve(result).then((r) => withResult(report, r), failed) : withResult(report, result);
}

/** A result path failure as the protocol error it is reported as. */
function notAResult(error: unknown): never {
  if (McpJsonRpcError.isError(error)) throw error;
  throw new McpJsonRpcError(NOT_A_RESULT.code, NOT_A_RESULT.message);
}

function withResult(report: RunReport, result: JsonObject): MaybePromise<void> {
  // Only a complete CallToolResult ends a task, and the chart keeps only JSON data: serialised once here,
  // which both proves it and is the JSON the finished task keeps.
  const json = typeof result === "object" && result !== null && result.resultType === "complete" ? jsonOf(result) : undefined;
  return json === undefined ? report.protocolError(NOT_A_RESULT) : report.complete(result, json);
}

/** A run that threw: a McpJsonRpcError is a protocol error, anything else a tool error. */
function thrown(report: RunReport, error: unknown): MaybePromise<void> {
  const rpc = protocolErrorOf(error);
  return rpc ? report.protocolError(rpc) : report.toolError(describeThrown(error));
}

/**
 * A McpJsonRpcError as the plain JSON-RPC error object the chart keeps (a JSON copy); one whose `data` is
 * not JSON data keeps its code and message. Undefined for anything that is not a McpJsonRpcError.
 */
function protocolErrorOf(error: unknown): JsonRpcErrorObject | undefined {
  if (!McpJsonRpcError.isError(error)) return undefined;
  const json = jsonOf(error.toJSON());
  return json === undefined ? { code: error.code, message: describeThrown(error) } : (JSON.parse(json) as JsonRpcErrorObject);
}

/**
 * Calls `produce` and hands what it gives (at once, or once settled) to `use`; a throw or rejection is the
 * run's failure. Returns what is still pending, or undefined when nothing is.
 */
function settle<T>(report: RunReport, produce: () => T | PromiseLike<T>, use: (value: T) => MaybePromise<void>): Promise<void> | undefined {
  let value: T | PromiseLike<T>;
  try {
    value = produce();
  } catch (error) {
    return pending(thrown(report, error));
  }
  if (isThenable(value)) return Promise.resolve(value).then(use, (error) => thrown(report, error));
  return pending(use(value));
}

function pending(outcome: MaybePromise<void>): Promise<void> | undefined {
  return isThenable(outcome) ? Promise.resolve(outcome) : undefined;
}

/** The JSON of a value, or undefined when it is not JSON data (BigInt, cycles, …). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
