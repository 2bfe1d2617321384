// The Redis store's part for runs found by name: claims, hand-offs, the claimable tasks, and the sealed
// run record, each one script (run-scripts.ts). The record is sealed here, before it leaves the process,
// and opened here; its content is never put in an error.
import type { RunSeal } from "../run-seal.ts";
import type { ClaimableTask, ClaimOutcome, HoldOutcome, LoadedRun, TaskFence, TaskRunRecord } from "../store.ts";
import { releasedMessage } from "../change-messages.ts";
import type { Connection } from "./connection.ts";
import type { StoreKeys } from "./keys.ts";
import { CLAIM, CLAIMABLE, LOAD_RUN, RELEASE, SAVE_RUN } from "./run-scripts.ts";

const HOLD_OUTCOMES: Record<number, HoldOutcome> = { 1: "written", 0: "fenced", [-1]: "gone" };

/** The error a run found by name meets on a store without a secret. */
export function runsNeedSecret(): TypeError {
  return new TypeError(
    "redisTaskStore: runs found by name (mcpTasks({ runs })) keep their input, checkpoint and answers in Redis, sealed " +
      "under the store's `secret`: give every instance the same random value, e.g. redisTaskStore({ url, secret: process.env.MCP_TASKS_SECRET })",
  );
}

export function createRunHolds(parts: { conn: Connection; keys: StoreKeys; seal: RunSeal | undefined; workerId: string; leaseMs: number }) {
  const { conn, keys, workerId, leaseMs } = parts;
  const sealer = () => parts.seal ?? throwRunsNeedSecret();

  return {
    /** The run's arguments of the create script (ARGV 13 to 18), "" when the task has none; the last two only for a released one. */
    createArgs(id: string, run: TaskRunRecord | undefined, released: boolean | undefined): (string | number)[] {
      if (!run) return [""];
      const args = [run.name, run.version, sealer().seal(keys.task(id), run)];
      return released ? [...args, "1", keys.changes, releasedMessage(id, run.name)] : args;
    },
    async claim(id: string): Promise<ClaimOutcome> {
      const [outcome, value] = await conn.run<[number, number?]>(CLAIM, [keys.task(id)], [keys.prefix, workerId, leaseMs, id]);
      if (outcome === 1) return { outcome: "claimed", attempt: Number(value) };
      return outcome === 0 ? { outcome: "taken", retryInMs: Number(value) } : { outcome: "gone" };
    },
    async release(id: string, fence: TaskFence): Promise<HoldOutcome> {
      const released = await conn.run<number>(RELEASE, [keys.task(id)], [keys.prefix, fence.attempt, id, keys.changes]);
      return HOLD_OUTCOMES[released]!;
    },
    async claimable(names: readonly string[], limit: number): Promise<ClaimableTask[]> {
      if (!names.length || limit <= 0) return [];
      const flat = await conn.run<string[]>(CLAIMABLE, [keys.instances], [keys.prefix, limit, ...names]);
      const found: ClaimableTask[] = [];
      for (let i = 0; i < flat.length; i += 5) {
        found.push({ id: flat[i]!, name: flat[i + 1]!, version: Number(flat[i + 2]), attempt: Number(flat[i + 3]), waitingSince: Number(flat[i + 4]) });
      }
      return found.sort((a, b) => a.waitingSince - b.waitingSince).slice(0, limit);
    },
    async loadRun(id: string): Promise<LoadedRun> {
      const sealed = await conn.run<string | null>(LOAD_RUN, [keys.task(id)], []);
      if (sealed === null) return { outcome: "gone" };
      const opened = sealer().open(keys.task(id), sealed);
      return "record" in opened ? { outcome: "loaded", record: opened.record } : { outcome: "refused", reason: `Task ${id}'s run cannot be run: ${opened.refused}` };
    },
    async saveRun(id: string, record: TaskRunRecord, fence: TaskFence): Promise<HoldOutcome> {
      const saved = await conn.run<number>(SAVE_RUN, [keys.task(id)], [keys.prefix, fence.attempt, sealer().seal(keys.task(id), record)]);
      return HOLD_OUTCOMES[saved]!;
    },
  };
}

function throwRunsNeedSecret(): never {
  throw runsNeedSecret();
}
