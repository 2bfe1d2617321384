// Reading one task from Redis in one command: the read script the first time (it tells a live task's
// hash from a finished task's string and checks the worker's lease), then, for a task this instance has
// seen finished, a plain GET judged by the facts it remembered.
import { type Connection, isWrongType } from "./connection.ts";
import { type FinishedFacts, type FinishedRead, FinishedTasks, parseFinished } from "./finished.ts";
import type { StoreKeys } from "./keys.ts";
import { READ } from "./scripts.ts";
import { shortGetTaskResultJson } from "../kept-json.ts";
import type { TaskHold, TaskOrigin, TaskSnapshot } from "../store.ts";

/** A task as read from Redis: its stored owner hash, and its snapshot or its final answer. */
export interface ReadTask {
  readonly owner: string;
  readonly version: number;
  readonly origin: TaskOrigin | undefined;
  /** The snapshot of a live task. */
  readonly snapshot?: TaskSnapshot;
  /** Whether the lease of the instance running a live task is held. */
  readonly alive: boolean;
  /** A finished task's JSON and facts. */
  readonly finished?: FinishedRead;
  /** For a run found by name: who holds the live task. */
  readonly hold?: TaskHold;
}

/** The read script's answer for a live task (see READ). */
type LiveReply = [string, string, string, string, number, string, string?, string?, string?, string?, string?];

// Finished tasks remembered for a plain GET: about 100 bytes each, a few MB at most.
const FINISHED_TASKS = 50_000;

function holdOf([, , , , , , name, version, attempt, released, since]: LiveReply): TaskHold {
  const hold = { name: name!, version: Number(version), attempt: Number(attempt), released: released === "1" };
  return since ? { ...hold, waitingSince: Number(since) } : hold;
}

/** A stored live snapshot read into the chart, opened if sealed (../sealed-parts.ts). */
type ReadSnapshot = (id: string, chartVersion: string, stored: string, hasRun: boolean) => TaskSnapshot;

export function createReader(parts: { conn: Connection; keys: StoreKeys; leaseMs: number; readSnapshot: ReadSnapshot }) {
  const { conn, keys } = parts;
  const finished = new FinishedTasks(FINISHED_TASKS);

  const ofFinished = (task: FinishedRead): ReadTask => ({ owner: task.owner, version: task.version, origin: task.origin, alive: true, finished: task });

  const byScript = async (id: string, listen: boolean): Promise<ReadTask | undefined> => {
    const args = listen ? [keys.leasePrefix, keys.listen(id), parts.leaseMs, keys.prefix, id] : [keys.leasePrefix, "", "", keys.prefix, id];
    const reply = await conn.run<string | LiveReply | null>(READ, [keys.task(id)], args);
    if (!reply) return undefined;
    if (typeof reply === "string") {
      const task = parseFinished(id, reply);
      finished.remember(id, task.facts);
      return ofFinished(task);
    }
    const [owner, version, chart, snapshot, alive, origin, run] = reply;
    const task = {
      owner,
      version: Number(version),
      snapshot: parts.readSnapshot(id, chart, snapshot, run !== undefined),
      alive: Number(alive) === 1,
      origin: origin ? (JSON.parse(origin) as TaskOrigin) : undefined,
    };
    return run === undefined ? task : { ...task, hold: holdOf(reply) };
  };

  return {
    /** The task; with `listen`, a listen stream here waits on it from now on. */
    read(id: string, listen = false): Promise<ReadTask | undefined> {
      const facts = listen ? undefined : finished.get(id);
      if (!facts) return byScript(id, listen);
      return conn.command<unknown>(["GET", keys.task(id)]).then(
        (raw) => {
          if (typeof raw === "string") return ofFinished(parseFinished(id, raw, facts));
          finished.forget(id);
          return raw === null ? undefined : byScript(id, false);
        },
        (error: unknown) => {
          // The key holds something other than a finished task's string (it was replaced after this
          // instance saw the task finished): the read script reads whatever it holds.
          if (!isWrongType(error)) throw error;
          finished.forget(id);
          return byScript(id, false);
        },
      );
    },
    /** A task this instance wrote finished: read with a plain GET from now on. */
    remember(id: string, facts: FinishedFacts) {
      finished.remember(id, facts);
    },
    storedFinal: shortGetTaskResultJson,
    get finishedKnown() {
      return finished.size;
    },
  };
}
