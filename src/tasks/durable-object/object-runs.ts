// The tasks object's part for runs found by name (`defineTaskRun`): a `runs` table beside `tasks` with
// each such task's run name and version, its sealed record, the attempt that holds it or held it last,
// whether it is released, and its holder (a store instance's worker id). The holder's lease is the
// `leases` row of that worker: the hold lives while that lease holds. A lease taken afresh (it had lapsed,
// or it was dropped) first gives up every hold of its worker, so a holder lost once never holds again.
// Every method is synchronous SQL inside the object's one-call-at-a-time execution: a claim, a fenced
// write and a release are each one atomic step.
import type { SqlStorage } from "cloudflare:workers";
import { GONE, HELD_FENCED, WRITTEN, type ClaimableRow, type ClaimAnswer, type StoredHold } from "./object-api.ts";

export const RUNS_SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, version INTEGER NOT NULL, record TEXT NOT NULL,
  attempt INTEGER NOT NULL, released INTEGER NOT NULL, since REAL NOT NULL, holder TEXT
);
CREATE INDEX IF NOT EXISTS runs_name ON runs(name, since);
CREATE INDEX IF NOT EXISTS runs_holder ON runs(holder);
`;

interface RunRow {
  name: string;
  version: number;
  attempt: number;
  released: number;
  since: number;
  holder: string | null;
  /** The holder's lease deadline (null without a lease row). */
  until: number | null;
}

/** The run's row of a live task: the task is there, not finished, not past its drop time. */
const LIVE_RUN = `
SELECT r.name, r.version, r.attempt, r.released, r.since, r.holder, l.until FROM runs r
JOIN tasks t ON t.id = r.id LEFT JOIN leases l ON l.worker = r.holder
WHERE r.id = ? AND t.json IS NULL AND (t.drop_at IS NULL OR t.drop_at > ?)`;

export class ObjectRuns {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Takes or extends `worker`'s lease; a lease taken afresh first gives up what the worker held under the old one. */
  takeLease(worker: string, leaseMs: number, at: number): void {
    if (this.#sql.exec("UPDATE leases SET until = ? WHERE worker = ? AND until > ?", at + leaseMs, worker, at).rowsWritten > 0) return;
    // Waiting since its old lease's deadline (when the holds were lost), or now when that is unknown.
    this.#sql.exec(
      "UPDATE runs SET holder = NULL, since = COALESCE((SELECT until FROM leases WHERE worker = ?), ?) WHERE holder = ? AND released = 0",
      worker,
      at,
      worker,
    );
    this.#sql.exec("INSERT INTO leases (worker, until) VALUES (?, ?) ON CONFLICT(worker) DO UPDATE SET until = excluded.until", worker, at + leaseMs);
  }

  /** Keeps a new task's run: held by `worker` as attempt 1, or released for a claim. */
  add(id: string, run: { name: string; version: number; record: string; released: boolean }, worker: string, at: number): void {
    this.#sql.exec(
      "INSERT INTO runs (id, name, version, record, attempt, released, since, holder) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      id,
      run.name,
      run.version,
      run.record,
      run.released ? 0 : 1,
      run.released ? 1 : 0,
      at,
      run.released ? null : worker,
    );
  }

  /** Who holds the task's run, as a read tells it; null for a task without one. */
  hold(id: string, at: number): StoredHold | null {
    const row = this.#row(id, at);
    if (!row) return null;
    const alive = row.released === 0 && holderAlive(row, at);
    return { name: row.name, version: row.version, attempt: row.attempt, released: row.released === 1, alive, waitingSince: alive ? null : waitingSince(row) };
  }

  /** Whether attempt `attempt` holds the task now: -1 gone (no live run), 0 fenced, 1 holds. */
  holds(id: string, attempt: number, at: number): number {
    const row = this.#row(id, at);
    if (!row) return GONE;
    return row.released === 0 && row.attempt === attempt && holderAlive(row, at) ? WRITTEN : HELD_FENCED;
  }

  claim(id: string, worker: string, leaseMs: number, at: number): ClaimAnswer {
    const row = this.#row(id, at);
    if (!row) return { outcome: GONE, value: 0 };
    if (row.released === 0 && holderAlive(row, at)) return { outcome: HELD_FENCED, value: Math.max(1, Math.ceil(row.until! - at)) };
    this.takeLease(worker, leaseMs, at);
    const attempt = row.attempt + 1;
    this.#sql.exec("UPDATE runs SET attempt = ?, released = 0, since = ?, holder = ? WHERE id = ?", attempt, at, worker, id);
    this.#sql.exec("UPDATE tasks SET worker = ? WHERE id = ?", worker, id);
    return { outcome: WRITTEN, value: attempt };
  }

  /** Gives the task up, fenced by `attempt`; answers the run's name when released (for the change log). */
  release(id: string, attempt: number, at: number): { outcome: number; name?: string } {
    const held = this.holds(id, attempt, at);
    if (held !== WRITTEN) return { outcome: held };
    this.#sql.exec("UPDATE runs SET released = 1, since = ?, holder = NULL WHERE id = ?", at, id);
    return { outcome: WRITTEN, name: this.#row(id, at)!.name };
  }

  /** Up to `limit` tasks of runs `names` waiting for a claim (released, or their holder lost), oldest first. */
  claimable(names: readonly string[], limit: number, at: number): ClaimableRow[] {
    const rows = this.#sql
      .exec<RunRow & { id: string }>(
        `SELECT r.id, r.name, r.version, r.attempt, r.released, r.since, r.holder, l.until FROM runs r
         JOIN tasks t ON t.id = r.id LEFT JOIN leases l ON l.worker = r.holder
         WHERE r.name IN (SELECT value FROM json_each(?)) AND t.json IS NULL AND (t.drop_at IS NULL OR t.drop_at > ?)
           AND (r.released = 1 OR r.holder IS NULL OR l.until IS NULL OR l.until <= ?)`,
        JSON.stringify(names),
        at,
        at,
      )
      .toArray();
    return rows
      .map((row) => ({ id: row.id, name: row.name, version: row.version, attempt: row.attempt, waitingSince: waitingSince(row) }))
      .sort((a, b) => a.waitingSince - b.waitingSince)
      .slice(0, limit);
  }

  /** The sealed record of a live task's run; null when gone. */
  load(id: string, at: number): string | null {
    if (!this.#row(id, at)) return null;
    return this.#sql.exec<{ record: string }>("SELECT record FROM runs WHERE id = ?", id).toArray()[0]!.record;
  }

  save(id: string, attempt: number, record: string, at: number): number {
    const held = this.holds(id, attempt, at);
    if (held === WRITTEN) this.#sql.exec("UPDATE runs SET record = ? WHERE id = ?", record, id);
    return held;
  }

  /** A task finished: its run record goes with its snapshot. */
  finished(id: string): void {
    this.#sql.exec("DELETE FROM runs WHERE id = ?", id);
  }

  /** Tasks about to be dropped take their runs with them. */
  dropping(at: number): void {
    this.#sql.exec("DELETE FROM runs WHERE id IN (SELECT id FROM tasks WHERE drop_at <= ?)", at);
  }

  /** Leases about to be dropped first give up their holds (waiting since their deadline). */
  droppingLeases(before: number): void {
    this.#sql.exec(
      "UPDATE runs SET holder = NULL, since = (SELECT until FROM leases WHERE worker = runs.holder) WHERE holder IN (SELECT worker FROM leases WHERE until <= ?)",
      before,
    );
  }

  #row(id: string, at: number): RunRow | undefined {
    return this.#sql.exec<RunRow>(LIVE_RUN, id, at).toArray()[0];
  }
}

function holderAlive(row: RunRow, at: number): boolean {
  return row.holder !== null && row.until !== null && row.until > at;
}

/** Since when a task no attempt holds waits: released or given up (`since`), or its holder's lease deadline. */
function waitingSince(row: RunRow): number {
  return row.released === 1 || row.holder === null || row.until === null ? row.since : row.until;
}
