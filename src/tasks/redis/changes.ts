// A change to one task: the chart's answer to an event, computed in JavaScript from the snapshot the
// store holds, and written with a versioned compare-and-set that publishes it in the same step.
import type { TaskEvent } from "../../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError } from "../../protocol/errors.ts";
import { toGetTaskResultJson, type TaskSnapshotLike } from "../../protocol/wire.ts";
import { decodeSnapshot, encodeSnapshot, expiryOfSnapshot, nextSnapshot } from "./chart.ts";
import { type Connection, isWrongType } from "./connection.ts";
import { type FinishedFacts, FinishedTasks, parseFinished, storedFinalJson } from "./finished.ts";
import type { StoreKeys } from "./keys.ts";
import type { LocalTasks } from "./local-tasks.ts";
import { APPLY, READ } from "./scripts.ts";

/** A task as read from Redis. */
export interface ReadTask {
  readonly owner: string;
  readonly version: number;
  /** The final tasks/get JSON of a finished task. */
  readonly final?: string;
  /** A finished task's expiry and status. */
  readonly facts?: FinishedFacts;
  /** The snapshot of a live task. */
  readonly snapshot?: TaskSnapshotLike;
  /** Whether the lease of the instance running a live task is held. */
  readonly alive: boolean;
}

/**
 * A change on the channel: task id, new version, the event (for the actor running the task, unless the
 * change was made where it runs), the new status, and the snapshot when the status changed. The id and
 * the version come first, so an instance with no use for a message can tell without parsing it.
 */
export interface ChangeMessage {
  i: string;
  v: number;
  e?: TaskEvent;
  t: TaskSnapshotLike["value"];
  s?: TaskSnapshotLike;
}

// How long a change waits for the actor here to hear of the one before it.
const CATCH_UP_MS = 100;

const REFUSED = Symbol("refused");

type EventOf = (snapshot: TaskSnapshotLike) => TaskEvent | undefined;

// Finished tasks remembered for a plain GET: about 100 bytes each, a few MB at most.
const FINISHED_TASKS = 50_000;

// Enough for heavy contention on one task; past it the change is refused rather than retried forever.
const MAX_ATTEMPTS = 32;

/** The message's JSON; with the snapshot when the status changed, reusing its encoding when there is one. */
function messageJson(message: ChangeMessage, next: TaskSnapshotLike, was: TaskSnapshotLike["value"], encoded: string): string {
  if (next.value === was) return JSON.stringify(message);
  if (!encoded) return JSON.stringify({ ...message, s: next });
  return `${JSON.stringify(message).slice(0, -1)},"s":${encoded}}`;
}

/** A finished snapshot's facts, as its JSON would give them. */
function finalFacts(snapshot: TaskSnapshotLike): FinishedFacts {
  return { expiresAt: expiryOfSnapshot(snapshot), status: snapshot.value };
}

export function createChanges(parts: { conn: Connection; keys: StoreKeys; local: LocalTasks; workerId: string; now: () => number; listenMs: number }) {
  const { conn, keys, local, now } = parts;
  /** Compare-and-set writes refused because the task changed meanwhile (each one is retried). */
  let retries = 0;
  const finished = new FinishedTasks(FINISHED_TASKS);

  /** The task; with `listen`, a listen stream here waits on it from now on. */
  const read = (id: string, listen = false): Promise<ReadTask | undefined> => {
    const facts = listen ? undefined : finished.get(id);
    if (!facts) return readByScript(id, listen);
    return conn.command<unknown>(["GET", keys.task(id)]).then(
      (raw) => {
        if (typeof raw === "string") return parseFinished(id, raw, facts);
        finished.forget(id);
        return raw === null ? undefined : readByScript(id, false);
      },
      (error: unknown) => {
        // No longer a finished task's string: the key was replaced since this instance saw it.
        if (!isWrongType(error)) throw error;
        finished.forget(id);
        return readByScript(id, false);
      },
    );
  };
  const readByScript = async (id: string, listen: boolean): Promise<ReadTask | undefined> => {
    const args = listen ? [keys.leasePrefix, keys.listen(id), parts.listenMs] : [keys.leasePrefix];
    const reply = await conn.run<string | [string, string, string, string, number] | null>(READ, [keys.task(id)], args);
    if (!reply) return undefined;
    if (typeof reply === "string") {
      const task = parseFinished(id, reply);
      finished.remember(id, task.facts);
      return task;
    }
    const [owner, version, chart, snapshot, alive] = reply;
    return { owner, version: Number(version), snapshot: decodeSnapshot(id, chart, snapshot), alive: Number(alive) === 1 };
  };

  /**
   * One compare-and-set of the chart's answer to `eventOf` from `task`: the task as it then is (itself
   * when nothing changes), undefined when it is gone, REFUSED when it changed meanwhile (or, with
   * `lease`, when that lease is gone).
   */
  const attempt = async (id: string, task: ReadTask, eventOf: EventOf, lease = ""): Promise<ReadTask | undefined | typeof REFUSED> => {
    const event = eventOf(task.snapshot!);
    const step = event && nextSnapshot(task.snapshot!, event);
    if (!event || !step) return task;
    const version = task.version + 1;
    const message: ChangeMessage = { i: id, v: version, t: step.snapshot.value };
    // No other instance runs this task's actor, so a change made where it runs needs no event, and
    // is published only while a listen stream somewhere waits on the task.
    const here = local.has(id);
    if (!here) message.e = event;
    const final = step.final ? toGetTaskResultJson(step.snapshot) : "";
    const snapshot = final ? "" : encodeSnapshot(step.snapshot);
    const published = messageJson(message, step.snapshot, task.snapshot!.value, snapshot);
    const args = [task.version, snapshot, final && storedFinalJson(id, final), keys.changes, published, lease, here ? keys.listen(id) : ""];
    const written = await local.writing(id, () => conn.run<number>(APPLY, [keys.task(id)], args));
    if (written === -1) return undefined;
    if (written !== 1) return REFUSED;
    const facts = final ? finalFacts(step.snapshot) : undefined;
    if (facts) finished.remember(id, facts);
    local.feed(id, version, event);
    return facts ? { owner: task.owner, version, final, facts, alive: true } : { owner: task.owner, version, snapshot: step.snapshot, alive: task.alive };
  };

  /** Applies the chart's answer to `eventOf(snapshot)`, retried on a concurrent change; the task as it then is. */
  const apply = async (id: string, eventOf: EventOf, known?: ReadTask): Promise<ReadTask | undefined> => {
    for (let n = 0; n < MAX_ATTEMPTS; n++) {
      const task = n === 0 && known ? known : await read(id);
      if (!task?.snapshot) return task;
      // The actor here may lag behind a change whose message is still on its way: it gets a moment to
      // arrive; past that (a lost message) the actor restarts from the stored state.
      if (local.behind(id, task.version) && !(await local.reach(id, task.version, CATCH_UP_MS))) {
        local.resync(id, task.snapshot, task.version);
      }
      const done = await attempt(id, task, eventOf);
      if (done !== REFUSED) return done;
      retries++;
    }
    throw new McpJsonRpcError(ErrorCode.InternalError, `Task ${id} changed too often to apply this change; try again`);
  };

  /**
   * A change to a task whose actor runs here, tried first from the actor's snapshot and version (what
   * Redis holds, unless a change made elsewhere is still on its way), under this instance's lease:
   * no read. "refused" when it could not be decided that way; then the caller takes the reading path.
   */
  const applyLocal = async (id: string, eventOf: EventOf, owner?: string): Promise<"written" | "unchanged" | "foreign" | "refused"> => {
    const mine = local.current(id);
    if (!mine || mine.expiresAt <= now()) return "refused";
    if (owner !== undefined && owner !== mine.owner) return "foreign";
    const task: ReadTask = { owner: mine.owner, version: mine.version, snapshot: mine.snapshot, alive: true };
    const done = await attempt(id, task, eventOf, keys.lease(parts.workerId));
    if (done === REFUSED) {
      retries++;
      return "refused";
    }
    return done === task ? "unchanged" : done ? "written" : "refused";
  };

  return { read, apply, applyLocal, casRetries: () => retries };
}
