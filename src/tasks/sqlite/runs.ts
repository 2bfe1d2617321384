// The SQLite store's part for runs found by name: claims, hand-offs, the claimable tasks and the sealed
// run record. A claim and a release are each one BEGIN IMMEDIATE transaction (read the hold, decide,
// write), a checkpoint one fenced UPDATE: exactly one of several processes claiming an attempt wins.
import type { ClaimableTask, ClaimOutcome, HoldOutcome, LoadedRun, TaskFence, TaskRunRecord } from "../store.ts";
import type { changeLog } from "./change-feed.ts";
import type { Database } from "./database.ts";
import { FENCE_HOLDS, holderAlive, holds, READ_TASK, type createLeases, type TaskRow } from "./holds.ts";
import type { Sealing } from "./sealing.ts";

interface RunParts {
  readonly db: Database;
  readonly workerId: string;
  readonly leases: ReturnType<typeof createLeases>;
  readonly log: ReturnType<typeof changeLog>;
  readonly sealing: Sealing;
  /** The runtime's clock, which tasks expire by. */
  readonly now: () => number;
  /** A store of this process wrote: the others read the feed now. */
  readonly wrote: () => void;
}

/** A live task with a run, not past its expiry, as `row` reads it; undefined otherwise. */
function liveRun(row: TaskRow | undefined, now: number): TaskRow | undefined {
  return row && row.json === null && row.run_name !== null && (row.expires_at === null || row.expires_at > now) ? row : undefined;
}

export function createRuns(parts: RunParts) {
  const { db, workerId, leases, log, sealing } = parts;
  const read = db.prepare(READ_TASK);
  const claimed = db.prepare("UPDATE mcp_tasks SET attempt = ?, released = 0, since = ?, worker = ? WHERE id = ?");
  const released = db.prepare("UPDATE mcp_tasks SET released = 1, since = ?, worker = NULL WHERE id = ?");
  const claimable = db.prepare(
    `SELECT t.id, t.run_name AS name, t.run_version AS version, t.attempt,
       CASE WHEN t.released = 1 OR t.worker IS NULL OR l.until IS NULL THEN t.since ELSE l.until END AS waitingSince
     FROM mcp_tasks t LEFT JOIN mcp_task_leases l ON l.worker = t.worker
     WHERE t.run_name IN (SELECT value FROM json_each(?)) AND t.json IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)
       AND (t.released = 1 OR t.worker IS NULL OR l.until IS NULL OR l.until <= ?)
     ORDER BY waitingSince LIMIT ?`,
  );
  const record = db.prepare("SELECT record FROM mcp_tasks WHERE id = ? AND json IS NULL AND run_name IS NOT NULL AND (expires_at IS NULL OR expires_at > ?)");
  const save = db.prepare(`UPDATE mcp_tasks AS t SET record = ? WHERE t.id = ? AND t.json IS NULL AND t.run_name IS NOT NULL AND ${FENCE_HOLDS}`);

  /** What a fenced step answers when it wrote nothing: the task is gone, or the attempt no longer holds it. */
  const refusal = (id: string): HoldOutcome => (liveRun(read.get<TaskRow>(id), parts.now()) ? "fenced" : "gone");

  return {
    claim(id: string): ClaimOutcome {
      let lease: number | undefined;
      const outcome = db.guard(() =>
        db.transaction((): ClaimOutcome => {
          const at = Date.now();
          const row = liveRun(read.get<TaskRow>(id), parts.now());
          if (!row) return { outcome: "gone" };
          if (row.released === 0 && holderAlive(row, at)) return { outcome: "taken", retryInMs: Math.max(1, Math.ceil(row.until! - at)) };
          lease = leases.take(at);
          const attempt = row.attempt! + 1;
          claimed.run(attempt, at, workerId, id);
          return { outcome: "claimed", attempt };
        }),
      );
      leases.committed(lease);
      return outcome;
    },
    release(id: string, fence: TaskFence): HoldOutcome {
      const outcome = db.guard(() =>
        db.transaction((): HoldOutcome => {
          const at = Date.now();
          const row = liveRun(read.get<TaskRow>(id), parts.now());
          if (!row) return "gone";
          if (!holds(row, fence.attempt, at)) return "fenced";
          released.run(at, id);
          log.released(id, row.run_name!, at);
          return "written";
        }),
      );
      if (outcome === "written") parts.wrote();
      return outcome;
    },
    claimable(names: readonly string[], limit: number): ClaimableTask[] {
      if (!names.length || limit <= 0) return [];
      const at = Date.now();
      return db.guard(() => claimable.all<ClaimableTask>(JSON.stringify(names), parts.now(), at, limit));
    },
    loadRun(id: string): LoadedRun {
      const found = db.guard(() => record.get<{ record: string | null }>(id, parts.now()));
      if (!found?.record) return { outcome: "gone" };
      return sealing.openRecord(id, found.record);
    },
    saveRun(id: string, next: TaskRunRecord, fence: TaskFence): HoldOutcome {
      const sealed = sealing.record(id, next);
      return db.guard(() => (save.run(sealed, id, fence.attempt, fence.attempt, Date.now()) > 0 ? "written" : refusal(id)));
    },
  };
}
