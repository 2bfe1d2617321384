// What a run found by name works with on one attempt: the task's run context (task-run.ts) plus the
// attempt number, the checkpoint the previous attempt saved, and input rounds answered on earlier
// attempts given back without asking again. What must outlive the attempt (checkpoint, kept answers)
// is written to the store with the run's record, fenced: once this attempt lost its hold on the task,
// the store refuses its writes and its signal aborts.
import type { InputAnswers, InputRequest } from "../features/mrtr/input-requests.ts";
import type { McpTaskRunContext } from "../features/task-api.ts";
import type { ClientCapabilities } from "../protocol/types.ts";
import { taskEnded } from "./runtime-parts.ts";
import type { FollowedTask, TaskOfRun } from "./run-view.ts";
import type { FinalStatus, TaskOrigin, TaskRunRecord, TaskStore } from "./store.ts";
import { controlOf, TaskRun } from "./task-run.ts";
import { isAnsweredRoundUnkept, isOpenRoundAskedWith, lastRoundWireKeys, roundAnswers } from "../../machines/task.machine.ts";
import { bytesOver, keptTooLarge } from "./task-bytes.ts";

/**
 * One input round answered, as the run's record keeps it: the keys it asked with, the wire keys the chart
 * gave them (to tell this round from a later one asked with the same keys), and the answers.
 */
interface KeptRound {
  readonly keys: readonly string[];
  readonly wire: readonly string[];
  readonly answers: Record<string, unknown>;
}

/** The rounds a record keeps, in the order they were asked (`answers.rounds`; the store keeps them opaque). */
function roundsOf(record: TaskRunRecord): readonly KeptRound[] {
  const rounds = record.answers?.rounds;
  return Array.isArray(rounds) ? (rounds as KeptRound[]) : [];
}

/**
 * Keeps a run's record with its task in `store`, fenced by the attempt: a refusal as fenced stops the
 * attempt (`fenced`) and rejects with its reason; a task that ended elsewhere (cancelled, or failed on
 * another instance, before this one heard of it) aborts the run's signal as that end's own would, then
 * rejects.
 */
export async function keepRunRecord(store: TaskStore, task: FollowedTask, run: AttemptRun, record: TaskRunRecord, fenced: () => void): Promise<void> {
  const fence = task.fence;
  if (!task.current() || !fence) throw taskEnded();
  const kept = await store.saveRun!(task.id, record, fence);
  if (kept === "fenced") {
    fenced();
    throw fencedReason(run.attempt);
  }
  if (kept === "gone") {
    controlOf(run).endedElsewhere(await endedAs(store, task.id));
    throw taskEnded();
  }
}

/** How the store has a task ended, or undefined when it cannot tell (expired, or the read failed). */
async function endedAs(store: TaskStore, id: string): Promise<FinalStatus | undefined> {
  try {
    const found = await store.readHeld?.(id);
    return found?.json === undefined ? undefined : found.status;
  } catch {
    return undefined;
  }
}

/** The reason an attempt's signal aborts with once it lost its lease: its writes no longer land. */
export function fencedReason(attempt: number): Error {
  return new Error(`Attempt ${attempt} was fenced: it lost its lease on the task, and another attempt may hold it now`);
}

/** The reason an attempt's signal aborts with when a drain hands its task to another instance. */
export function shutdownReason(attempt: number): Error {
  return new Error(`Attempt ${attempt} was stopped: this server instance shut down (shutdown), and another instance takes the task`);
}

export class AttemptRun extends TaskRun implements McpTaskRunContext {
  readonly attempt: number;
  #record: TaskRunRecord;
  #task: TaskOfRun;
  /** Rounds asked in this attempt so far (a later attempt replays the kept ones in order). */
  #round = 0;
  /** Writes of the record, one after the other. */
  #keeping: Promise<void> = Promise.resolve();

  constructor(task: TaskOfRun, caps: ClientCapabilities, now: () => number, origin: TaskOrigin | undefined, attempt: number, record: TaskRunRecord) {
    super(task, caps, now, origin);
    this.attempt = attempt;
    this.#record = record;
    this.#task = task;
    const control = controlOf(this);
    task.onStopped((why) => control.abortWith(why === "fenced" ? fencedReason(this.attempt) : shutdownReason(this.attempt)));
  }

  get checkpoint(): unknown {
    return this.#record.checkpoint;
  }

  saveCheckpoint(value: unknown): Promise<void> {
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      json = undefined;
    }
    if (json === undefined) return Promise.reject(new TypeError("task.saveCheckpoint needs JSON data"));
    const limit = this.#task.maxTaskBytes;
    const bytes = bytesOver(json, limit);
    if (bytes !== undefined) return Promise.reject(keptTooLarge("task.saveCheckpoint: the checkpoint", bytes, limit));
    return this.#keep({ ...this.#record, checkpoint: JSON.parse(json) });
  }

  override requestInput<R extends Record<string, InputRequest>>(requests: R): Promise<InputAnswers<R>> {
    const keys = Object.keys(requests);
    const round = this.#round++;
    const rounds = roundsOf(this.#record);
    const kept = rounds[round];
    // A round answered on an earlier attempt, asked again with the same keys: its answers, not a new question.
    if (kept && sameKeys(kept.keys, keys)) return Promise.resolve(roundAnswers(kept.answers, keys) as InputAnswers<R>);
    const control = controlOf(this);
    const snapshot = control.current();
    let asked: Promise<Record<string, unknown>>;
    if (snapshot && !control.asking && isOpenRoundAskedWith(snapshot, keys)) {
      // The previous attempt's round is still open: it keeps its wire keys, and its answers come here.
      asked = control.askRound(requests, true);
    } else if (snapshot && !control.asking && isAnsweredRoundUnkept(snapshot, keys, rounds.flatMap((kept) => kept.wire))) {
      // The previous attempt's round was answered after that attempt was lost.
      asked = Promise.resolve(roundAnswers(snapshot.context.answers, keys));
    } else {
      asked = control.askRound(requests, false);
    }
    return control.quietOnEnd(
      asked.then(async (answers) => {
        const current = control.current();
        const wire = current ? lastRoundWireKeys(current.context, keys.length) : [];
        const next: KeptRound = { keys, wire, answers };
        await this.#keep({ ...this.#record, answers: { rounds: [...roundsOf(this.#record).slice(0, round), next] } });
        return answers as InputAnswers<R>;
      }),
    );
  }

  #keep(record: TaskRunRecord): Promise<void> {
    // An attempt that stopped writes nothing more, and says why.
    const stopped = controlOf(this).stoppedReason;
    if (stopped) return Promise.reject(stopped);
    const write = () => {
      this.#record = record;
      return this.#task.keepRun(this, record);
    };
    const done = this.#keeping.then(write, write);
    this.#keeping = done.catch(() => {});
    return done;
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key) => b.includes(key));
}
