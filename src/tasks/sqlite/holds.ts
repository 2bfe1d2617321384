// Leases and holds in the SQLite file. An instance's lease is its row in `mcp_task_leases`, good until
// `until`; a task of a run found by name is held by the attempt numbered `attempt` while it is not
// released and its `worker`'s lease holds. A lease taken afresh (it had lapsed, or was deleted) first
// gives up every hold of its worker, waiting since its old deadline, so a holder lost once never holds
// again, even once its process takes a new lease. Leases are judged by this host's clock, which every
// process sharing the file reads.
import type { Database } from "./database.ts";

/** The SQL condition "the task's worker's lease holds at ?" on a row of mcp_tasks named `t`. */
export const HOLDER_ALIVE = "(t.worker IS NOT NULL AND EXISTS (SELECT 1 FROM mcp_task_leases l WHERE l.worker = t.worker AND l.until > ?))";

/**
 * The SQL condition "attempt ? still holds the task at ?" on a row of mcp_tasks named `t`; true for a
 * write without a fence (bind null twice, then the time) and for a task without a run.
 */
export const FENCE_HOLDS = `(? IS NULL OR t.run_name IS NULL OR (t.attempt = ? AND t.released = 0 AND ${HOLDER_ALIVE}))`;

/** A task's row as every read gives it, its worker's lease joined. */
export interface TaskRow {
  owner: string;
  version: number;
  expires_at: number | null;
  snapshot: string | null;
  json: string | null;
  status: string | null;
  origin: string | null;
  worker: string | null;
  run_name: string | null;
  run_version: number | null;
  attempt: number | null;
  released: number | null;
  since: number | null;
  /** The worker's lease deadline; null without a lease row, and for a finished task. */
  until: number | null;
}

// The lease is looked up only for a live task (SQLite evaluates CASE lazily): a finished task's read, most
// of what clients ask, is one lookup in one table.
export const READ_TASK = `SELECT t.owner, t.version, t.expires_at, t.snapshot, t.json, t.status, t.origin, t.worker,
  t.run_name, t.run_version, t.attempt, t.released, t.since,
  CASE WHEN t.json IS NULL THEN (SELECT l.until FROM mcp_task_leases l WHERE l.worker = t.worker) END AS until
FROM mcp_tasks t WHERE t.id = ?`;

export function holderAlive(row: TaskRow, at: number): boolean {
  return row.worker !== null && row.until !== null && row.until > at;
}

/** Whether attempt `attempt` holds the task of this row at `at`. */
export function holds(row: TaskRow, attempt: number, at: number): boolean {
  return row.released === 0 && row.attempt === attempt && holderAlive(row, at);
}

/** Since when a task no attempt holds waits: released or given up (`since`), or its holder's lease deadline. */
export function waitingSince(row: TaskRow): number {
  return row.released === 1 || row.worker === null || row.until === null ? row.since! : row.until;
}

export function createLeases(db: Database, workerId: string, leaseMs: number) {
  const extend = db.prepare("UPDATE mcp_task_leases SET until = ? WHERE worker = ? AND until > ?");
  const giveUp = db.prepare(
    `UPDATE mcp_tasks SET worker = NULL, since = COALESCE((SELECT until FROM mcp_task_leases WHERE worker = ?), ?)
     WHERE worker = ? AND run_name IS NOT NULL AND released = 0 AND json IS NULL`,
  );
  const take = db.prepare("INSERT OR REPLACE INTO mcp_task_leases (worker, until) VALUES (?, ?)");
  const dropLapsed = db.prepare(
    `UPDATE mcp_tasks SET worker = NULL, since = (SELECT until FROM mcp_task_leases l WHERE l.worker = mcp_tasks.worker)
     WHERE worker IN (SELECT worker FROM mcp_task_leases WHERE until <= ?) AND run_name IS NOT NULL AND released = 0 AND json IS NULL`,
  );
  const dropLeases = db.prepare("DELETE FROM mcp_task_leases WHERE until <= ?");
  // Until when this instance's lease is committed in the file. Only this instance extends its row, and
  // others delete a lease only long after it lapsed, so while half a lease is left a creation need not
  // write the row again: one page fewer per creation.
  let held = 0;
  return {
    /**
     * Takes or extends this instance's lease, inside the caller's transaction; answers the deadline it
     * wrote (to give `committed` once the transaction is), undefined when the committed one is good enough.
     */
    take(at: number): number | undefined {
      if (held - at >= leaseMs / 2) return undefined;
      if (extend.run(at + leaseMs, workerId, at) === 0) {
        giveUp.run(workerId, at, workerId);
        take.run(workerId, at + leaseMs);
      }
      return at + leaseMs;
    },
    /** The transaction that took the lease until `until` committed. */
    committed(until: number | undefined): void {
      if (until !== undefined && until > held) held = until;
    },
    /** Extends the lease; false when it had lapsed. */
    renew(at: number): boolean {
      const renewed = extend.run(at + leaseMs, workerId, at) > 0;
      held = renewed ? at + leaseMs : 0;
      return renewed;
    },
    /** Drops leases lapsed long ago, their holds given up first (waiting since their deadline). */
    dropLapsed(before: number): void {
      dropLapsed.run(before);
      dropLeases.run(before);
    },
  };
}
