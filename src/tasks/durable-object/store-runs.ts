// The Durable Object store's part for runs found by name: claims, hand-offs, the claimable tasks, and the
// run record, each one call to the object (object-runs.ts decides them). The record is sealed here with
// AES-256-GCM under the store's secret, bound to the object's name and the task's id, before it leaves
// the isolate, and opened here: the object never holds a run's input, a user's answers or the owner key
// in the clear, and a record changed in storage is refused rather than run.
import type { ClaimableTask, ClaimOutcome, HoldOutcome, LoadedRun, TaskFence, TaskHold, TaskRunRecord } from "../store.ts";
import { runSeal } from "../run-seal.ts";
import { GONE, HELD_FENCED, WRITTEN, type NewRun, type StoredHold } from "./object-api.ts";
import type { TasksObjectStub } from "./namespace.ts";

const HOLD_OUTCOMES: Record<number, HoldOutcome> = { [WRITTEN]: "written", [HELD_FENCED]: "fenced", [GONE]: "gone" };

export interface RunCallParts {
  /** The object's name: a sealed record is bound to it and its task. */
  readonly name: string;
  readonly secret: string | undefined;
  readonly leaseMs: number;
  readonly worker: () => string;
  /** One call to the object, as the store makes it (bounded, its failure the store-unavailable error). */
  readonly call: <T>(send: (object: TasksObjectStub) => Promise<T>) => Promise<T>;
  /** The run claimed here must hear other instances' changes (answers, a cancel) from `cursor` on. */
  readonly watch: (id: string, cursor: number) => void;
  /** This instance hears releases for a while, from `cursor` on. */
  readonly hearReleases: (cursor: number) => void;
}

/** The error a store meets when runs found by name are served without a secret to seal their records. */
export function runsNeedSecret(): TypeError {
  return new TypeError(
    "durableObjectTaskStore: runs found by name (mcpTasks({ runs })) keep their input, checkpoint and answers in the Durable Object, " +
      "sealed under the store's `secret`: give it a random value from a Worker secret, e.g. durableObjectTaskStore(env.MCP_TASKS, { secret: env.MCP_TASKS_SECRET })",
  );
}

/** A stored hold as the contract tells it. */
export function holdOf(hold: StoredHold): TaskHold {
  const { name, version, attempt, released, waitingSince } = hold;
  return waitingSince === null ? { name, version, attempt, released } : { name, version, attempt, released, waitingSince };
}

export function createRunCalls(parts: RunCallParts) {
  const { call, worker, leaseMs } = parts;
  const seal = runSeal(parts.secret);
  const sealer = () => seal ?? throwRunsNeedSecret();
  const binding = (id: string) => `${parts.name}/${id}`;

  return {
    /** The run a task is created with, its record sealed; null for a closure. */
    newRun(id: string, run: TaskRunRecord | undefined, released: boolean | undefined): NewRun | null {
      return run ? { name: run.name, version: run.version, record: sealer().seal(binding(id), run), released: released === true } : null;
    },
    async claim(id: string): Promise<ClaimOutcome> {
      const answer = await call((object) => object.claim(id, worker(), leaseMs));
      parts.hearReleases(answer.cursor);
      if (answer.outcome === WRITTEN) {
        parts.watch(id, answer.cursor);
        return { outcome: "claimed", attempt: answer.value };
      }
      return answer.outcome === HELD_FENCED ? { outcome: "taken", retryInMs: answer.value } : { outcome: "gone" };
    },
    async release(id: string, fence: TaskFence): Promise<HoldOutcome> {
      return HOLD_OUTCOMES[await call((object) => object.release(id, fence.attempt))]!;
    },
    async claimable(names: readonly string[], limit: number): Promise<ClaimableTask[]> {
      if (!names.length || limit <= 0) return [];
      const { tasks, cursor } = await call((object) => object.claimable(names, limit));
      parts.hearReleases(cursor);
      return tasks;
    },
    async loadRun(id: string): Promise<LoadedRun> {
      const sealed = await call((object) => object.loadRun(id));
      if (sealed === null) return { outcome: "gone" };
      const opened = sealer().open(binding(id), sealed);
      return "record" in opened ? { outcome: "loaded", record: opened.record } : { outcome: "refused", reason: `Task ${id}'s run cannot be run: ${opened.refused}` };
    },
    async saveRun(id: string, record: TaskRunRecord, fence: TaskFence): Promise<HoldOutcome> {
      const sealed = sealer().seal(binding(id), record);
      return HOLD_OUTCOMES[await call((object) => object.saveRun(id, fence.attempt, sealed))]!;
    },
  };
}

function throwRunsNeedSecret(): never {
  throw runsNeedSecret();
}
