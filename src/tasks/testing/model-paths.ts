// The task chart's paths for your own tests: the chart's own (every state and transition over a small
// alphabet, as chart-paths.ts makes them), or those a tool of yours can take, from what it does with its
// task (its input rounds, how it ends, whether a test can hold it while it works). Each path is a list of
// steps saying who acts (the tool, the client or the clock), the chart event, and the status the wire must
// show after it.
import { transition, initialTransition } from "xstate";
import { createTestModel } from "xstate/graph";
import { taskMachine, type TaskEvent, type TaskStatus } from "../../../machines/task.machine.ts";
import { BOGUS_KEY, chartEventPaths, describePath, MODEL_ANSWER, MODEL_INPUT, modelRequest, stampTimes } from "./chart-paths.ts";
import { cancelled, inputAnswered, inputRequested, workDone, workProtocolError, workToolError } from "../logic/task-events.ts";

/** What a tool of yours does with its task, as far as the chart sees it. */
export interface ToolModel {
  /** The keys of each `task.requestInput(...)` call, in the order `run` makes them. Default: none. */
  rounds?: readonly (readonly string[])[];
  /**
   * How `run` ends once every round is answered: it returns a result (`"result"`), it throws an `Error`
   * (`"toolError"`: a completed task whose result has `isError`), or it throws an `McpJsonRpcError`
   * (`"protocolError"`: a failed task). Default `"result"`.
   */
  ends?: "result" | "toolError" | "protocolError";
  /**
   * Whether a test can hold `run` before each of its steps (each round it asks, and its end) until the
   * driver lets it go (`driveModelPath`'s `proceed`). Only then is a working task caught working, so only
   * then are the paths that cancel it there made. Default false.
   */
  held?: boolean;
}

export interface ModelPathOptions {
  /** Make the paths this tool can take. Without it, the chart's own paths (any tool, any client). */
  tool?: ToolModel;
  /** With the chart's own paths: keep those where the task outlives its ttl (your server's clock must move). Default false. */
  expiry?: boolean;
}

/** One step of a path. */
export interface ModelStep {
  /** Who makes it: the tool's `run`, the client (tasks/update, tasks/cancel), or the clock (the ttl running out). */
  by: "tool" | "client" | "clock";
  /**
   * The chart's event. An `input.request` names the keys the tool asks with; an `input.answer` the keys the
   * wire shows, where a key asked again is renamed (`confirm.2`).
   */
  event: TaskEvent;
  /** The task's status on the wire after this step. */
  status: TaskStatus;
}

export interface ModelPath {
  /** A readable name, e.g. `input.request[confirm] → task.cancel`. */
  name: string;
  steps: ModelStep[];
  /** The status after the last step. */
  final: TaskStatus;
}

/**
 * The task chart's paths. With `tool`, every path that tool can take: each round answered whole, one key
 * at a time, or with a key never asked; a cancel in every state the task can be caught in; and its end.
 * Every path of a tool ends in a final status. Without `tool`, the chart's own paths over its whole
 * alphabet (status updates, requests of one and two keys, every way out), as h3-mcp's own tests replay them.
 *
 * @example
 * for (const path of getModelPaths({ tool: { rounds: [["confirm"]] } })) it(path.name, () => driveModelPath(path, { app, tool: "deploy" }));
 */
export function getModelPaths(options: ModelPathOptions = {}): ModelPath[] {
  const paths = options.tool ? toolEventPaths(options.tool) : chartEventPaths().filter((events) => options.expiry || !events.some((e) => e.type === "task.expire"));
  return paths.map(toModelPath);
}

/** The events a model path holds: an instance claiming or losing a run (or being lost) is never one of them. */
type ModelEventType = Exclude<TaskEvent["type"], "attempt.claimed" | "attempt.lost" | "instance.lost">;

/** Who makes each kind of event. */
const MAKER: Readonly<Record<ModelEventType, ModelStep["by"]>> = {
  "status.update": "tool",
  "input.request": "tool",
  "work.done": "tool",
  "work.toolError": "tool",
  "work.protocolError": "tool",
  "input.answer": "client",
  "task.cancel": "client",
  "task.expire": "clock",
};

// --- Internal ---

function toModelPath(events: TaskEvent[]): ModelPath {
  let snapshot = initialTransition(taskMachine, MODEL_INPUT)[0];
  const steps = events.map((event) => {
    snapshot = transition(taskMachine, snapshot, event)[0];
    return { by: MAKER[event.type as ModelEventType], event, status: snapshot.value as TaskStatus };
  });
  return { name: describePath(events), steps, final: snapshot.value as TaskStatus };
}

type Snapshot = ReturnType<typeof initialTransition<typeof taskMachine>>[0];

/** The events the tool and its client may send in `snapshot`. */
function toolEvents(tool: ToolModel, snapshot: Snapshot): TaskEvent[] {
  const rounds = tool.rounds ?? [];
  const at = 0;
  if (snapshot.value === "working") {
    // How far run got: every round it asked issued one wire key per tool key.
    let issued = snapshot.context.issuedKeys.length;
    let asked = 0;
    while (asked < rounds.length && issued >= rounds[asked]!.length && rounds[asked]!.length > 0) issued -= rounds[asked++]!.length;
    const next: TaskEvent =
      asked < rounds.length
        ? inputRequested(Object.fromEntries(rounds[asked]!.map((key) => [key, modelRequest(key)])), at)
        : endOf(tool, at);
    return tool.held ? [next, cancelled(at)] : [next];
  }
  if (snapshot.value !== "input_required") return [];
  const open = Object.keys(snapshot.context.inputRequests);
  const answer = (keys: string[]) => Object.fromEntries(keys.map((key) => [key, MODEL_ANSWER]));
  const events: TaskEvent[] = [
    inputAnswered(answer(open), at),
    inputAnswered(answer([BOGUS_KEY]), at),
    cancelled(at),
  ];
  if (open.length > 1) events.push(inputAnswered(answer(open.slice(0, 1)), at));
  return events;
}

function endOf(tool: ToolModel, at: number): TaskEvent {
  if (tool.ends === "toolError") return workToolError("the tool's error", at);
  if (tool.ends === "protocolError") return workProtocolError({ code: -32603, message: "the tool's protocol error" }, at);
  return workDone({ content: [] }, at);
}

/** Every loop-free path of the tool into a final state; a step that changes nothing counts once per state. */
function toolEventPaths(tool: ToolModel): TaskEvent[][] {
  for (const round of tool.rounds ?? []) if (round.length === 0) throw new TypeError("getModelPaths: a round asks for at least one key");
  // The alphabet goes to the traversal itself: createTestModel's own would add every other event the chart
  // accepts, bare, and this tool never makes those.
  const model = createTestModel(taskMachine, { input: MODEL_INPUT });
  const paths = model.getSimplePaths({
    events: (snapshot) => toolEvents(tool, snapshot),
    serializeState: (s, event) => JSON.stringify([s.value, s.context.issuedKeys, s.context.inputKeys, event?.type === "input.answer" && Object.keys(event.responses).includes(BOGUS_KEY)]),
    toState: (s) => s.status === "done",
  });
  const seen = new Set<string>();
  const out: TaskEvent[][] = [];
  for (const path of paths) {
    const events = stampTimes(path.steps.map((step) => step.event as TaskEvent).filter((event) => (event.type as string) !== "xstate.init"));
    const key = describePath(events);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(events);
  }
  return out;
}
