// The Postgres store's part for runs found by name: claims, hand-offs, the claimable tasks and the sealed
// run record, each one statement (a function of schema.ts for those that decide). The record is sealed
// here, before it leaves the process, and opened here; its content is never put in an error.
import type { RunSeal } from "../run-seal.ts";
import type { ClaimableTask, ClaimOutcome, HoldOutcome, LoadedRun, TaskFence, TaskRunRecord } from "../store.ts";
import type { Connection } from "./connection.ts";

/** A task claimed by `claimNext`: this instance holds its attempt `attempt` now. */
export interface ClaimedTask {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  readonly attempt: number;
}

const HOLD_OUTCOMES: Record<number, HoldOutcome> = { 1: "written", [-2]: "fenced", [-1]: "gone" };

interface RunParts {
  readonly conn: Connection;
  /** The schema, quoted for SQL. */
  readonly s: string;
  readonly channel: string;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly sealer: () => RunSeal;
  /** What the seal of a task's record is bound to. */
  readonly taskKey: (id: string) => string;
  /** The runtime's clock, which tasks expire by. */
  readonly now: () => number;
  /** Waits for the tables (the migration at connect). */
  readonly ready: () => Promise<void>;
}

export function createRuns(parts: RunParts) {
  const { conn, s, channel, workerId, leaseMs, taskKey } = parts;
  const one = async <T>(sql: string, values: unknown[]): Promise<T> => {
    await parts.ready();
    const [row] = await conn.query<{ v: T }>(sql, values);
    return row!.v;
  };
  // FOR KEY SHARE SKIP LOCKED, not FOR UPDATE: instances listing at once share the rows, so each sees every
  // waiting task; a row whose claim (FOR UPDATE) is under way elsewhere is left out. The claim decides.
  const claimable = `SELECT t.id, t.run_name AS name, t.run_version AS version, t.attempt,
      CASE WHEN t.released OR t.worker IS NULL OR l.until IS NULL THEN t.since ELSE l.until END AS "waitingSince"
    FROM ${s}.mcp_tasks t LEFT JOIN ${s}.mcp_task_leases l ON l.worker = t.worker
    WHERE t.run_name = ANY($1) AND t.json IS NULL AND (t.expires_at IS NULL OR t.expires_at > $2)
      AND (t.released OR t.worker IS NULL OR l.until IS NULL OR l.until <= ${s}.mcp_now_ms())
    ORDER BY 5 LIMIT $3 FOR KEY SHARE OF t SKIP LOCKED`;
  const claimNext = `SELECT o_id AS id, o_name AS name, o_version AS version, o_attempt AS attempt FROM ${s}.mcp_task_claim_next($1, $2, $3, $4, $5)`;

  return {
    /** The run's sealed record, for creation. */
    sealRecord: (id: string, record: TaskRunRecord) => parts.sealer().seal(taskKey(id), record),
    async claim(id: string): Promise<ClaimOutcome> {
      const answer = await one<string>(`SELECT ${s}.mcp_task_claim($1, $2, $3, $4) AS v`, [id, workerId, leaseMs, parts.now()]);
      const [outcome, value] = answer.split(" ");
      if (outcome === "claimed") return { outcome: "claimed", attempt: Number(value) };
      return outcome === "taken" ? { outcome: "taken", retryInMs: Number(value) } : { outcome: "gone" };
    },
    async release(id: string, fence: TaskFence): Promise<HoldOutcome> {
      return HOLD_OUTCOMES[await one<number>(`SELECT ${s}.mcp_task_release($1, $2, $3, $4) AS v`, [id, fence.attempt, parts.now(), channel])]!;
    },
    async claimable(names: readonly string[], limit: number): Promise<ClaimableTask[]> {
      if (!names.length || limit <= 0) return [];
      await parts.ready();
      return conn.query<ClaimableTask>(claimable, [names, parts.now(), limit]);
    },
    async claimNext(names: readonly string[], limit: number): Promise<ClaimedTask[]> {
      if (!names.length || limit <= 0) return [];
      await parts.ready();
      return conn.query<ClaimedTask>(claimNext, [names, limit, workerId, leaseMs, parts.now()]);
    },
    async loadRun(id: string): Promise<LoadedRun> {
      await parts.ready();
      const [row] = await conn.query<{ record: string | null }>(
        `SELECT record FROM ${s}.mcp_tasks WHERE id = $1 AND json IS NULL AND run_name IS NOT NULL AND (expires_at IS NULL OR expires_at > $2)`,
        [id, parts.now()],
      );
      if (!row?.record) return { outcome: "gone" };
      const opened = parts.sealer().open(taskKey(id), row.record);
      return "record" in opened ? { outcome: "loaded", record: opened.record } : { outcome: "refused", reason: `Task ${id}'s run cannot be run: ${opened.refused}` };
    },
    async saveRun(id: string, record: TaskRunRecord, fence: TaskFence): Promise<HoldOutcome> {
      const sealed = parts.sealer().seal(taskKey(id), record);
      return HOLD_OUTCOMES[await one<number>(`SELECT ${s}.mcp_task_save_run($1, $2, $3, $4) AS v`, [id, fence.attempt, parts.now(), sealed])]!;
    },
  };
}
