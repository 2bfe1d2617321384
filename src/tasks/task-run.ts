// What `run` works with (its `McpTaskContext`), and what follows the task's actor on its behalf: the
// snapshots it reports to input waiters, the end that aborts the signal. One object per running task,
// with nothing of the request that created it (a working task must not keep its request's context,
// headers or arguments alive). The object `run` gets has the documented members only: what the engine
// and an attempt do with a run besides (report its outcome, abort it) is its control, which only
// `controlOf` reaches.
import { canOpenRound, roundAnswers, type JsonRpcErrorObject, type TaskEvent, type TaskStatus } from "../../machines/task.machine.ts";
import { McpUsageError } from "../protocol/errors.ts";
import { assertCanAsk, type InputAnswers, type InputRequest } from "../features/mrtr/input-requests.ts";
import type { McpTaskContext } from "../features/task-api.ts";
import type { ClientCapabilities, JsonObject } from "../protocol/types.ts";
import { isTerminalStatus, type TaskSnapshot } from "./envelopes.ts";
import { abortableSleep } from "../utils/abortable-sleep.ts";
import { isThenable } from "../utils/is-thenable.ts";
import type { MaybePromise } from "../utils/maybe-promise.ts";
import type { RunReport } from "./run-outcome.ts";
import type { TaskOfRun } from "./run-view.ts";
import type { FinalStatus, TaskOrigin } from "./store.ts";
import { bytesOver, keptTooLarge, resultTooLarge } from "./task-bytes.ts";
import { inputRequested, statusUpdated, workDone, workProtocolError, workToolError } from "./logic/task-events.ts";

// Shared abort reasons: a per-task Error would keep its stopped actor reachable through the stack it captured.
const CANCELLED = new DOMException("The task was cancelled", "AbortError");
const ENDED = new DOMException("The task ended", "AbortError");

type Waiter = (snapshot: TaskSnapshot) => void;

// Set by TaskRun's static block, the one place its private control can be read from.
let readControl: (run: TaskRun) => RunControl;

/** The object `run` gets: the members `McpTaskContext` documents, and nothing else. */
export class TaskRun implements McpTaskContext {
  readonly taskId: string;
  readonly origin: TaskOrigin | undefined;
  #control: RunControl;

  static {
    readControl = (run) => run.#control;
  }

  constructor(task: TaskOfRun, caps: ClientCapabilities, now: () => number, origin: TaskOrigin | undefined) {
    this.taskId = task.id;
    this.origin = origin;
    this.#control = new RunControl(task, caps, now);
  }

  /** Aborted by cancellation and by failure; made on first read (most runs never read it). */
  get signal(): AbortSignal {
    return this.#control.signal;
  }

  update(update: { statusMessage: string }): void {
    this.#control.update(update);
  }

  sleep(ms: number): Promise<void> {
    return this.#control.sleep(ms);
  }

  requestInput<R extends Record<string, InputRequest>>(requests: R): Promise<InputAnswers<R>> {
    const control = this.#control;
    return control.quietOnEnd(control.askRound(requests, false)) as Promise<InputAnswers<R>>;
  }
}

/** The control of `run`: for the engine (its outcome, its end) and for an attempt built on it. */
export function controlOf(run: TaskRun): RunControl {
  return readControl(run);
}

/** What a run does that user code does not call: asking and waiting, aborting, reporting its outcome. */
export class RunControl implements RunReport {
  /**
   * The run's view of its task (run-view.ts). The run only reports through it; it learns what became of the
   * task by watching it (told by the runtime after it recorded each snapshot).
   */
  #task: TaskOfRun;
  #caps: ClientCapabilities;
  #now: () => number;
  #waiters: Set<Waiter> | undefined;
  #ended: TaskStatus | undefined;
  /** Why the signal aborts when it is not the task's end (this attempt lost its hold on the task). */
  #endReason: Error | undefined;
  #signal: AbortSignal | undefined;
  /** Aborted by cancel, failure and expiry; made when the run first reads its signal, unless it ended before. */
  #abort: AbortController | undefined;
  // A round being opened: with a shared store the chart shows it only after a round trip, and a second
  // call meanwhile must be refused, not mistake the first round for its own.
  #asking = false;

  constructor(task: TaskOfRun, caps: ClientCapabilities, now: () => number) {
    this.#task = task;
    this.#caps = caps;
    this.#now = now;
    task.watch((snapshot) => this.#watch(snapshot));
  }

  get signal(): AbortSignal {
    return (this.#signal ??= this.#newSignal());
  }

  update({ statusMessage }: { statusMessage: string }): void {
    if (typeof statusMessage !== "string") throw new TypeError("task.update needs a statusMessage string");
    const limit = this.#task.maxTaskBytes;
    const bytes = bytesOver(statusMessage, limit);
    if (bytes !== undefined) throw keptTooLarge("task.update: the status message", bytes, limit);
    void this.#send(statusUpdated(statusMessage, this.#now()));
  }

  sleep(ms: number): Promise<void> {
    return this.quietOnEnd(abortableSleep(ms, this.signal));
  }

  /**
   * The promise a run gets for its question (or its sleep): it settles as `asked` does, and when it rejects
   * because the task ended (or this run stopped), it is not reported as unhandled. A run may return without
   * awaiting it; under Node's default unhandled-rejection mode, that end's rejection would kill the process.
   * Any other rejection (a mistake in the call) is the run's to handle, as with any promise.
   */
  quietOnEnd<T>(asked: Promise<T>): Promise<T> {
    const settled: Promise<T> = new Promise<T>((resolve, reject) => {
      asked.then(resolve, (error: unknown) => {
        if (!this.#task.current() || this.#ended || this.#endReason) settled.catch(() => {});
        reject(error);
      });
    });
    return settled;
  }

  /**
   * Opens a round for `requests` and resolves with its answers. With `adopt`, the round is the one
   * already open in the chart (a later attempt asking what its previous attempt asked): nothing is sent,
   * its answers are waited for.
   */
  askRound(requests: Record<string, InputRequest>, adopt: boolean): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const state = this.#task.current();
      if (!state) return reject(new McpUsageError("TASK_ENDED", "The task has already ended"));
      // One round at a time: the chart only opens a round from `working`, and an answer must never
      // be handed to a call whose question the client was not shown.
      if (this.#asking || (adopt ? state.value !== "input_required" : !canOpenRound(state))) {
        return reject(new McpUsageError("INPUT_PENDING", "An input round is already open; await it before asking again"));
      }
      try {
        assertCanAsk(requests, this.#caps);
      } catch (error) {
        return reject(error);
      }
      const keys = Object.keys(requests);
      if (!keys.length) return resolve({});
      // The round counts as open once the chart shows it; with a shared store that may come after
      // the event is sent, and the answers may even arrive before its write settles.
      let opened = adopt;
      this.#asking = true;
      const waiters = (this.#waiters ??= new Set());
      const waiter: Waiter = (snapshot) => {
        if (snapshot.value === "input_required") opened = true;
        else if (snapshot.value === "working" && opened) {
          waiters.delete(waiter);
          this.#asking = false;
          resolve(roundAnswers(snapshot.context.answers, keys));
        } else if (isTerminalStatus(snapshot.value)) {
          waiters.delete(waiter);
          this.#asking = false;
          reject(new McpUsageError("TASK_ENDED", `The task ended (${snapshot.value}) while waiting for input`));
        }
      };
      waiters.add(waiter);
      if (adopt) return;
      const notOpened = () => {
        if (opened || !waiters.has(waiter)) return;
        waiters.delete(waiter);
        this.#asking = false;
        reject(new McpUsageError("INPUT_NOT_OPENED", "The task could not ask for this input"));
      };
      const wire = Object.fromEntries(
        keys.map((key) => {
          const r = requests[key] as InputRequest;
          return [key, { method: r.method, params: r.params }];
        }),
      );
      // Only the question is measured (its answers are the client's, bounded by the request body's cap).
      const limit = this.#task.maxTaskBytes;
      const bytes = bytesOver(JSON.stringify(wire), limit);
      if (bytes !== undefined) {
        waiters.delete(waiter);
        this.#asking = false;
        return reject(keptTooLarge("task.requestInput: the question", bytes, limit));
      }
      const sent = this.#send(inputRequested(wire, this.#now()));
      if (isThenable(sent)) sent.then(notOpened, notOpened);
      else notOpened();
    });
  }

  /** The task's snapshot as the actor here has it, or undefined once it ended. */
  current(): TaskSnapshot | undefined {
    return this.#task.current();
  }

  /** Whether an input round of this run is being opened or waited for. */
  get asking(): boolean {
    return this.#asking;
  }

  /** Why this run stopped without the task ending (fenced, handed off), once it did. */
  get stoppedReason(): Error | undefined {
    return this.#endReason;
  }

  /** Ends this run's hold on the task: its signal aborts with `reason` (its later writes are refused by the store). */
  abortWith(reason: Error): void {
    if (this.#ended) return;
    this.#ended = "failed";
    this.#endReason = reason;
    this.#abort?.abort(reason);
    if (this.#waiters) {
      for (const waiter of this.#waiters) waiter({ value: "failed", context: this.#task.snapshot.context });
    }
  }

  /**
   * The store has the task ended (`status`, when it could tell) before the actor here heard of
   * it: the signal aborts as that end's own would. The actor still takes the change when it arrives.
   */
  endedElsewhere(status: FinalStatus | undefined): void {
    if (this.#ended) return;
    this.#ended = status === "cancelled" ? "cancelled" : "failed";
    this.#abort?.abort(abortReason(this.#ended));
  }

  /** Ends the task with `result`, whose JSON the caller already made; one over the limit fails it. */
  complete(result: JsonObject, json: string): MaybePromise<void> {
    const limit = this.#task.maxTaskBytes;
    const bytes = bytesOver(json, limit);
    if (bytes !== undefined) return this.protocolError(resultTooLarge(bytes, limit));
    this.#task.keepResult(result, json);
    return this.#send(workDone(result, this.#now()));
  }

  /** The run threw or rejected with something other than a McpJsonRpcError. */
  toolError(message: string): MaybePromise<void> {
    // The message is the tool error's result text: kept as a result is.
    const limit = this.#task.maxTaskBytes;
    const bytes = bytesOver(message, limit);
    if (bytes !== undefined) return this.protocolError(resultTooLarge(bytes, limit));
    return this.#send(workToolError(message, this.#now()));
  }

  /** The run, or its result, failed with a protocol error. */
  protocolError(error: JsonRpcErrorObject): MaybePromise<void> {
    return this.#send(workProtocolError(error, this.#now()));
  }

  #send(event: TaskEvent): MaybePromise<void> {
    return this.#task.report(event);
  }

  /** Each snapshot the runtime recorded: input waiters hear it, and a final one aborts the signal. */
  #watch(snapshot: TaskSnapshot): void {
    if (this.#waiters) for (const waiter of this.#waiters) waiter(snapshot);
    if (!isTerminalStatus(snapshot.value) || this.#endReason) return;
    this.#ended = snapshot.value;
    const reason = abortReason(snapshot.value);
    if (reason) this.#abort?.abort(reason);
  }

  /** Made after the end, the signal is already aborted (unless the task completed). */
  #newSignal(): AbortSignal {
    const controller = new AbortController();
    const reason = this.#endReason ?? (this.#ended && abortReason(this.#ended));
    if (reason) controller.abort(reason);
    else if (!this.#ended) this.#abort = controller;
    return controller.signal;
  }
}

/** Why a task's signal aborts; a completed task's signal never does. */
function abortReason(status: TaskStatus): DOMException | undefined {
  return status === "cancelled" ? CANCELLED : status === "failed" ? ENDED : undefined;
}
