// Drives a tool of yours along one path of the task chart (model-paths.ts) and checks, after every step,
// that the wire shows what the chart says. The client's steps (answers, cancels) are made over the wire;
// the tool's steps are the tool's own doing, so the driver waits for them to show (letting a held tool go
// first). The chart is fed the same steps and predicts, step by step, the status, the open input keys
// (renamed the way the wire must rename a repeated key), whether the result is an error, whether the task
// failed and its status message. A status message the tool set on its own (`task.update`, its progress) is
// a status update the chart takes where the wire shows it, never a mismatch. A final task must then refuse
// to change: a late cancel and late answers leave it exactly as it was.
import { initialTransition, transition } from "xstate";
import { taskMachine, type TaskEvent } from "../../../machines/task.machine.ts";
import type { JsonObject } from "../../protocol/types.ts";
import { BOGUS_KEY, describePath } from "./chart-paths.ts";
import type { Fetcher } from "./client.ts";
import type { ModelPath, ModelStep } from "./model-paths.ts";
import { createTestClient, type TestClient } from "./test-client.ts";
import type { InputRequest } from "../../../machines/task.machine.ts";
import type { TaskStatus, TaskView } from "./test-types.ts";
import { cancelled, inputAnswered, statusUpdated } from "../logic/task-events.ts";

/** What the wire showed that the chart did not predict, or a step that never showed. */
export class ModelPathError extends Error {
  override name = "ModelPathError";
}

export interface DriveOptions {
  /** The server. Give `client` instead to drive through a test client of yours (its token, its `onMessage`). */
  app?: Fetcher;
  client?: TestClient;
  /** The tool to call; it must answer with a task. */
  tool: string;
  arguments?: JsonObject;
  /**
   * The answer to one input request, by the key the wire shows. Default: an elicitation accepted with empty
   * content; other kinds of request need this.
   */
  answer?(request: InputRequest, key: string): unknown;
  /** Lets a held tool (`ToolModel.held`) take its next step; called before each of the tool's steps. */
  proceed?(): void | Promise<void>;
  /**
   * How long one step may take to show on the wire, in ms. Default 4000: below the 5 s test timeout of
   * vitest and jest, so that a step that never shows fails with the driver's own message.
   */
  timeoutMs?: number;
}

/** How long one step may take to show, unless `timeoutMs` says otherwise. */
const DRIVE_TIMEOUT_MS = 4000;

export interface DriveReport {
  taskId: string;
  /** The statuses the wire showed, in order, each once per change. */
  statuses: TaskStatus[];
  /** The status messages the wire showed, in order, each once per change: the tool's progress as the driver saw it. */
  messages: string[];
  /** The task as it ended. */
  task: TaskView;
}

/**
 * Calls `tool`, walks `path`, and throws a `ModelPathError` at the first step where the wire differs from
 * the chart (or never shows the step). Resolves with what the wire showed.
 *
 * @example
 * for (const path of getModelPaths({ tool: { rounds: [["confirm"]] } })) {
 *   it(path.name, () => driveModelPath(path, { app, tool: "deploy", answer: () => ({ action: "accept", content: { ok: true } }) }));
 * }
 */
export async function driveModelPath(path: ModelPath, options: DriveOptions): Promise<DriveReport> {
  const client = options.client ?? (options.app ? createTestClient(options.app) : undefined);
  if (!client) throw new TypeError("driveModelPath: give app or client");
  const timeoutMs = options.timeoutMs ?? DRIVE_TIMEOUT_MS;
  const fail = (where: string, message: string) => new ModelPathError(`${options.tool} along ${path.name}, ${where}: ${message}`);

  const handle = await client.callTool(options.tool, options.arguments);
  if (handle.resultType !== "task") throw fail("the call", `tools/call answered ${handle.resultType}, not a task`);
  const { taskId } = handle;
  let chart = initialTransition(taskMachine, {
    taskId,
    now: Date.parse(handle.createdAt),
    ttlMs: handle.ttlMs,
    pollIntervalMs: handle.pollIntervalMs,
    ...(handle.statusMessage !== undefined && { statusMessage: handle.statusMessage }),
  })[0];
  compare(viewOf(handle), viewOfChart(chart), (m) => fail("the handle", m));

  // The first read may already show the tool's first steps: the first step's wait judges it.
  let last: TaskView = await client.getTask(taskId);
  const statuses: TaskStatus[] = [handle.status];
  const messages: string[] = handle.statusMessage === undefined ? [] : [handle.statusMessage];
  const shownKeys = new Set<string>();
  let released = 0;
  const see = (task: TaskView, where: string) => {
    consistent(task, last, (m) => fail(where, m));
    if (task.status !== statuses.at(-1)) statuses.push(task.status);
    if (task.statusMessage !== undefined && task.statusMessage !== messages.at(-1)) messages.push(task.statusMessage);
    for (const key of Object.keys(task.inputRequests ?? {})) shownKeys.add(key);
    last = task;
  };
  see(last, "right after the handle");

  for (let i = 0; i < path.steps.length; i++) {
    const step = path.steps[i]!;
    const where = `step ${i + 1} (${describePath([step.event])})`;
    if (step.by === "tool" && options.proceed) released++;
    const event = await make(step, client, taskId, last, options, (m) => fail(where, m));
    let before = chart;
    chart = transition(taskMachine, chart, event)[0];
    if (chart.value !== step.status) throw fail(where, `the path says ${step.status}, the chart ${String(chart.value)}: the path was made for another chart`);

    // A tool that is not held may take its next steps before the wire is read: those count as shown.
    const events = [event];
    for (let j = i + 1; !options.proceed && path.steps[j]?.by === "tool"; j++) events.push(path.steps[j]!.event);
    let ahead = chainFrom(before, events);
    const end = Date.now() + timeoutMs;
    for (;;) {
      const task = await client.getTask(taskId);
      see(task, where);
      // A message of the tool's own, set at any time before this read: the chart takes it as the status
      // update it is, made before this step (an update changes nothing else, so where it fell does not matter).
      const progressed = progress(before, task);
      if (progressed) {
        before = progressed;
        ahead = chainFrom(before, events);
      }
      // The latest step the wire may show first: a step that changes nothing shows as soon as it is made.
      const shown = ahead.findLastIndex((snapshot) => same(viewOf(task), viewOfChart(snapshot)));
      if (shown >= 1) {
        chart = ahead[shown]!;
        i += shown - 1;
        break;
      }
      chart = ahead[1]!;
      // Until the step shows, the task may only still look as it did before it.
      if (shown !== 0) compare(viewOf(task), viewOfChart(chart), (m) => fail(where, m));
      if (Date.now() > end) throw fail(where, `${waitedFor(step, timeoutMs)}; the wire still shows ${JSON.stringify(viewOf(task))}. ${holdContract(step, options, released)}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  if (chart.status === "done") await afterTheEnd(client, taskId, last, shownKeys, (m) => fail("after the end", m));
  return { taskId, statuses, messages, task: last };
}

// --- Internal ---

type ChartSnapshot = ReturnType<typeof initialTransition<typeof taskMachine>>[0];

/** `snapshot`, then the chart after each of `events` in turn. */
function chainFrom(snapshot: ChartSnapshot, events: readonly TaskEvent[]): ChartSnapshot[] {
  const chain = [snapshot];
  for (const event of events) chain.push(transition(taskMachine, chain.at(-1)!, event)[0]);
  return chain;
}

/**
 * The chart before a step once it took the status message the wire shows (the tool's progress), or
 * undefined when the wire shows no new message: a failed task's message is its error's (`consistent`
 * checks it), and one the chart already has is no update.
 */
function progress(before: ChartSnapshot, task: TaskView): ChartSnapshot | undefined {
  const message = task.statusMessage;
  if (task.status === "failed" || message === undefined || message === before.context.statusMessage) return undefined;
  return transition(taskMachine, before, statusUpdated(message, Date.parse(task.lastUpdatedAt)))[0];
}

/** What the driver waited for, for a step that never showed. */
function waitedFor(step: ModelStep, timeoutMs: number): string {
  const what = describePath([step.event]);
  return step.by === "tool" ? `waited ${timeoutMs} ms for the tool's ${what}` : `waited ${timeoutMs} ms for the server to take the client's ${what}`;
}

/** The hold the driver expected of the tool, for a step that never showed. */
function holdContract(step: ModelStep, options: DriveOptions, released: number): string {
  if (step.by !== "tool") return "The client's step was sent; the server never showed its effect.";
  if (!options.proceed) {
    return "The tool is driven unheld (no proceed): it must take this step on its own. A tool that awaits a hold needs held: true in its ToolModel and proceed: hold.release here.";
  }
  return (
    `The tool is held: proceed() let it go ${released} time${released === 1 ? "" : "s"}, once before each of its steps. ` +
    "A held tool awaits hold.step(task.signal) exactly once before each input round it asks and once before it returns or throws, nowhere else; one more wait (or one less) than that leaves it stuck, or a step ahead."
  );
}

/** Makes one step: the client's over the wire, the tool's by letting it go. The event to feed the chart. */
async function make(step: ModelStep, client: TestClient, taskId: string, last: TaskView, options: DriveOptions, fail: (message: string) => Error): Promise<TaskEvent> {
  const at = Date.now();
  if (step.by === "clock") throw fail("a path with expiry needs the server's clock moved; driveModelPath drives paths without it");
  if (step.by === "tool") {
    await options.proceed?.();
    return { ...step.event, at };
  }
  if (step.event.type === "task.cancel") {
    await client.cancelTask(taskId);
    return cancelled(at);
  }
  if (step.event.type !== "input.answer") throw fail(`the client cannot make ${step.event.type}`);
  const open = last.inputRequests ?? {};
  const responses: Record<string, unknown> = {};
  for (const key of Object.keys(step.event.responses)) {
    if (key === BOGUS_KEY) {
      responses[key] = { action: "accept", content: {} };
      continue;
    }
    const request = open[key];
    if (!request) throw fail(`the path answers ${key}, but the wire asks for ${Object.keys(open).join(", ") || "nothing"}`);
    responses[key] = options.answer ? options.answer(request, key) : defaultAnswer(request, key, fail);
  }
  await client.updateTask(taskId, responses);
  return inputAnswered(responses, at);
}

function defaultAnswer(request: InputRequest, key: string, fail: (message: string) => Error): unknown {
  if (request.method === "elicitation/create") return { action: "accept", content: {} };
  throw fail(`${key} asks for ${request.method}: give driveModelPath an answer()`);
}

/** What the chart predicts of a task, and what the driver compares. */
interface View {
  status: string;
  statusMessage?: string;
  inputKeys?: string[];
  isError?: boolean;
  failed?: boolean;
}

function viewOf(task: { status: string; statusMessage?: string; inputRequests?: object; result?: { isError?: boolean }; error?: object }): View {
  return {
    status: task.status,
    // A failed task's message is its error's, which only the tool knows: `consistent` checks it.
    ...(task.status !== "failed" && task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    ...(task.inputRequests !== undefined && { inputKeys: Object.keys(task.inputRequests).sort() }),
    ...(task.result !== undefined && { isError: task.result.isError === true }),
    ...(task.error !== undefined && { failed: true }),
  };
}

function viewOfChart(snapshot: ChartSnapshot): View {
  const { context: c, value } = snapshot;
  return viewOf({
    status: value as string,
    statusMessage: c.statusMessage,
    ...(value === "input_required" && { inputRequests: c.inputRequests }),
    ...(value === "completed" && { result: c.result as { isError?: boolean } }),
    ...(value === "failed" && { error: c.error }),
  });
}

const same = (a: View, b: View) => JSON.stringify(a) === JSON.stringify(b);

function compare(shown: View, predicted: View, fail: (message: string) => Error): void {
  if (!same(shown, predicted)) throw fail(`the wire shows ${JSON.stringify(shown)}, the chart says ${JSON.stringify(predicted)}`);
}

/** What holds of every task on its own and against the one seen before it. */
function consistent(task: TaskView, before: TaskView, fail: (message: string) => Error): void {
  if (task.taskId !== before.taskId || task.createdAt !== before.createdAt) throw fail("the task's id or creation time changed");
  if (Date.parse(task.lastUpdatedAt) < Date.parse(before.lastUpdatedAt)) throw fail(`lastUpdatedAt went back from ${before.lastUpdatedAt} to ${task.lastUpdatedAt}`);
  if (Date.parse(task.lastUpdatedAt) < Date.parse(task.createdAt)) throw fail("lastUpdatedAt is before createdAt");
  if (task.status === "failed" && task.statusMessage !== task.error?.message) throw fail(`a failed task's statusMessage (${task.statusMessage}) is not its error's message (${task.error?.message})`);
  const final = (s: string) => s === "completed" || s === "failed" || s === "cancelled";
  if (final(before.status) && JSON.stringify(task) !== JSON.stringify(before)) throw fail(`a ${before.status} task changed`);
}

/** A final task accepts nothing: a late cancel and late answers (to every key it ever showed) change nothing. */
async function afterTheEnd(client: TestClient, taskId: string, last: TaskView, shownKeys: ReadonlySet<string>, fail: (message: string) => Error): Promise<void> {
  await client.cancelTask(taskId);
  await client.updateTask(taskId, { [BOGUS_KEY]: { action: "accept", content: {} }, ...Object.fromEntries([...shownKeys].map((k) => [k, { action: "decline" }])) });
  const again = await client.getTask(taskId);
  if (JSON.stringify(again) !== JSON.stringify(last)) throw fail(`the ${last.status} task changed after a late cancel and answer: ${JSON.stringify(again)}`);
}
