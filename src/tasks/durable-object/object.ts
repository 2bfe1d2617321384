// `McpTasksObject`: the Durable Object that holds one server's tasks in its SQLite storage. Every
// isolate of the Worker (and every Worker bound to the same class) reaches the same object, which runs one
// call at a time: creation with the caps and each compare-and-set are atomic because each method is
// synchronous SQL. It also keeps a short log of changes, which the stores of every isolate long-poll
// (`watch`) for the tasks they run or listen to, and an alarm that drops tasks past their expiry. Runs
// found by name keep their records and holds beside the tasks (object-runs.ts), and with
// `durableObjectExecutor()` their attempts execute here, kept going by the alarm (object-deliveries.ts).
import { DurableObject, type DurableObjectState, type SqlStorage } from "cloudflare:workers";
import {
  CONFLICT,
  CREATED,
  FULL,
  GONE,
  HELD_FENCED,
  ID_TAKEN,
  OWNER_FULL,
  WRITTEN,
  type ClaimAnswer,
  type ClaimableRow,
  type CreateArgs,
  type StoredTask,
  type TasksObjectApi,
  type WatchAnswer,
  type WriteArgs,
} from "./object-api.ts";
import { DELIVERIES_SCHEMA, ObjectDeliveries } from "./object-deliveries.ts";
import { ObjectRuns, RUNS_SCHEMA } from "./object-runs.ts";

/** How long changes stay in the log: a watcher away for longer is told it missed some and reads again. */
const LOG_KEEP_MS = 60_000;
/** The log is trimmed on one write in this many, and by every alarm. */
const TRIM_EVERY = 256;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, version INTEGER NOT NULL,
  expires_at REAL, drop_at REAL, snapshot TEXT, json TEXT, status TEXT, origin TEXT, worker TEXT
);
CREATE INDEX IF NOT EXISTS tasks_expiry ON tasks(expires_at);
CREATE INDEX IF NOT EXISTS tasks_owner ON tasks(owner, expires_at);
CREATE INDEX IF NOT EXISTS tasks_drop ON tasks(drop_at);
CREATE TABLE IF NOT EXISTS leases (worker TEXT PRIMARY KEY, until REAL NOT NULL);
CREATE TABLE IF NOT EXISTS changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, at REAL NOT NULL, change TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS changes_id ON changes(id, seq);
${RUNS_SCHEMA}${DELIVERIES_SCHEMA}`;
/** The change log's id for a release notice (no task has it): its change is `{ id, name }`. */
const RELEASED = "";

interface TaskRow {
  owner: string;
  version: number;
  expires_at: number | null;
  drop_at: number | null;
  snapshot: string | null;
  json: string | null;
  status: string | null;
  origin: string | null;
  worker: string | null;
}

/** A watch waiting for a change of one of its tasks. */
interface Waiter {
  readonly ids: ReadonlySet<string>;
  /** Woken by any release too. */
  readonly releases: boolean;
  readonly wake: () => void;
}

/**
 * The Durable Object class of `durableObjectTaskStore()`. Export it from your Worker's main module and bind
 * it (`durable_objects.bindings`, with a `new_sqlite_classes` migration): see docs/durable-objects.md.
 *
 * @example
 * export { McpTasksObject } from "h3-mcp/tasks/durable-object";
 */
export class McpTasksObject extends DurableObject implements TasksObjectApi {
  readonly #sql: SqlStorage;
  readonly #runs: ObjectRuns;
  readonly #deliveries: ObjectDeliveries;
  readonly #waiters = new Set<Waiter>();
  #lastSeq: number;
  #trimmedThrough: number;
  #writes = 0;
  /** When the alarm is set for, as far as this instance of the object knows (unknown after a restart). */
  #alarmAt: number | undefined;

  constructor(state: DurableObjectState, env: unknown) {
    super(state, env);
    this.#sql = state.storage.sql;
    this.#runs = new ObjectRuns(this.#sql);
    this.#deliveries = new ObjectDeliveries(this.#sql, () => this.#scheduleAlarm());
    for (const statement of SCHEMA.split(";").map((s) => s.trim()).filter(Boolean)) this.#sql.exec(statement);
    const [range] = this.#sql.exec<{ low: number | null; high: number | null }>("SELECT MIN(seq) AS low, MAX(seq) AS high FROM changes").toArray();
    this.#lastSeq = range?.high ?? 0;
    this.#trimmedThrough = range?.low == null ? this.#lastSeq : range.low - 1;
    // Deliveries an earlier instance of the object left: the alarm takes them up again.
    if (this.#deliveries.nextAt(Date.now()) !== null) this.#scheduleAlarm();
  }

  /** Keeps an attempt handed to `durableObjectExecutor()` and starts it at once (by the alarm). */
  deliver(id: string, server: string): void {
    this.#deliveries.add(id, server, Date.now());
    this.#scheduleAlarm();
  }

  create(args: CreateArgs): { outcome: number; cursor: number } {
    const at = Date.now();
    this.#dropExpired(at);
    const answer = (outcome: number) => ({ outcome, cursor: this.#lastSeq });
    if (this.#sql.exec("SELECT 1 FROM tasks WHERE id = ?", args.id).toArray().length) return answer(ID_TAKEN);
    if (this.#count("SELECT COUNT(*) AS n FROM tasks WHERE (expires_at IS NULL OR expires_at > ?)", args.now) >= args.max) return answer(FULL);
    if (args.maxPerOwner !== null && this.#count("SELECT COUNT(*) AS n FROM tasks WHERE owner = ? AND (expires_at IS NULL OR expires_at > ?)", args.owner, args.now) >= args.maxPerOwner) {
      return answer(OWNER_FULL);
    }
    // The object's own clock drops the task: its lifetime is relative, whatever the runtime's clock says.
    const dropAt = args.expiresAt === null ? null : at + Math.max(1, args.expiresAt - args.now);
    this.#sql.exec(
      "INSERT INTO tasks (id, owner, version, expires_at, drop_at, snapshot, origin, worker) VALUES (?, ?, 1, ?, ?, ?, ?, ?)",
      args.id,
      args.owner,
      args.expiresAt,
      dropAt,
      args.snapshot,
      args.origin,
      args.worker,
    );
    this.#runs.takeLease(args.worker, args.leaseMs, at);
    if (args.run) {
      this.#runs.add(args.id, args.run, args.worker, at);
      if (args.run.released) this.#log(RELEASED, JSON.stringify({ id: args.id, name: args.run.name }));
    }
    if (dropAt !== null && (this.#alarmAt === undefined || dropAt < this.#alarmAt)) this.#scheduleAlarm();
    return answer(CREATED);
  }

  read(id: string): { task: StoredTask | null; cursor: number } {
    const [row] = this.#sql.exec<TaskRow>("SELECT owner, version, expires_at, drop_at, snapshot, json, status, origin, worker FROM tasks WHERE id = ?", id).toArray();
    const cursor = this.#lastSeq;
    const at = Date.now();
    if (!row || (row.drop_at !== null && row.drop_at <= at)) return { task: null, cursor };
    const hold = row.json === null ? this.#runs.hold(id, at) : null;
    const task: StoredTask = {
      owner: row.owner,
      version: row.version,
      expiresAt: row.expires_at,
      snapshot: row.snapshot,
      json: row.json,
      status: row.status,
      origin: row.origin,
      // A released run waits for its claim: nothing was lost.
      workerAlive: row.json !== null || (hold ? hold.released || hold.alive : this.#leaseHolds(row.worker)),
      hold,
    };
    return { task, cursor };
  }

  write(args: WriteArgs): number {
    const [row] = this.#sql.exec<{ version: number; json: string | null; drop_at: number | null }>("SELECT version, json, drop_at FROM tasks WHERE id = ?", args.id).toArray();
    const at = Date.now();
    if (!row || (row.drop_at !== null && row.drop_at <= at)) return GONE;
    // The fence first: a stale attempt must stop, whatever the version says.
    if (args.attempt !== null && this.#runs.holds(args.id, args.attempt, at) === HELD_FENCED) return HELD_FENCED;
    if (row.json !== null || row.version !== args.expected) return CONFLICT;
    if (args.json !== null) {
      this.#sql.exec("UPDATE tasks SET version = ?, snapshot = NULL, json = ?, status = ? WHERE id = ?", args.expected + 1, args.json, args.status, args.id);
      this.#runs.finished(args.id);
    } else {
      this.#sql.exec("UPDATE tasks SET version = ?, snapshot = ? WHERE id = ?", args.expected + 1, args.snapshot, args.id);
    }
    this.#log(args.id, args.change);
    return WRITTEN;
  }

  claim(id: string, worker: string, leaseMs: number): ClaimAnswer & { cursor: number } {
    return { ...this.#runs.claim(id, worker, leaseMs, Date.now()), cursor: this.#lastSeq };
  }

  release(id: string, attempt: number): number {
    const released = this.#runs.release(id, attempt, Date.now());
    if (released.name !== undefined) this.#log(RELEASED, JSON.stringify({ id, name: released.name }));
    return released.outcome;
  }

  claimable(names: readonly string[], limit: number): { tasks: ClaimableRow[]; cursor: number } {
    return { tasks: this.#runs.claimable(names, limit, Date.now()), cursor: this.#lastSeq };
  }

  loadRun(id: string): string | null {
    return this.#runs.load(id, Date.now());
  }

  saveRun(id: string, attempt: number, record: string): number {
    return this.#runs.save(id, attempt, record, Date.now());
  }

  renew(worker: string, leaseMs: number): boolean {
    const at = Date.now();
    return this.#sql.exec("UPDATE leases SET until = ? WHERE worker = ? AND until > ?", at + leaseMs, worker, at).rowsWritten > 0;
  }

  versions(ids: readonly string[]): (number | null)[] {
    const rows = this.#sql.exec<{ id: string; version: number }>("SELECT id, version FROM tasks WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(ids)).toArray();
    const found = new Map(rows.map((row) => [row.id, row.version]));
    return ids.map((id) => found.get(id) ?? null);
  }

  /** The changes of `ids` after `cursor`; when there are none yet, waits up to `waitMs` for one. */
  async watch(cursor: number, ids: readonly string[], waitMs: number, releases = false): Promise<WatchAnswer> {
    const now = this.#changesSince(cursor, ids, releases);
    if (now.changes.length || now.released.length || now.missed || waitMs <= 0) return now;
    await new Promise<void>((resolve) => {
      const waiter: Waiter = {
        ids: new Set(ids),
        releases,
        wake: () => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, waitMs);
      this.#waiters.add(waiter);
    });
    return this.#changesSince(cursor, ids, releases);
  }

  /** Drops tasks past their expiry, lapsed leases and old changes, then sets itself for the next expiry. */
  async alarm(): Promise<void> {
    this.#alarmAt = undefined;
    this.#dropExpired(Date.now());
    const stale = Date.now() - LOG_KEEP_MS;
    this.#runs.droppingLeases(stale);
    this.#sql.exec("DELETE FROM leases WHERE until <= ?", stale);
    this.#trim();
    this.#deliveries.startDue(Date.now());
    this.#scheduleAlarm();
  }

  #changesSince(cursor: number, ids: readonly string[], releases: boolean): WatchAnswer {
    const missed = cursor < this.#trimmedThrough;
    const rows = this.#sql
      .exec<{ id: string; change: string }>(
        "SELECT id, change FROM changes WHERE seq > ? AND (id IN (SELECT value FROM json_each(?)) OR (? AND id = ?)) ORDER BY seq",
        cursor,
        JSON.stringify(ids),
        releases ? 1 : 0,
        RELEASED,
      )
      .toArray();
    const changes: string[] = [];
    const released: { id: string; name: string }[] = [];
    for (const row of rows) {
      if (row.id === RELEASED) released.push(JSON.parse(row.change) as { id: string; name: string });
      else changes.push(row.change);
    }
    return { cursor: this.#lastSeq, changes, missed, released };
  }

  /** Appends to the change log and wakes the watches waiting for it. */
  #log(id: string, change: string): void {
    this.#sql.exec("INSERT INTO changes (id, at, change) VALUES (?, ?, ?)", id, Date.now(), change);
    this.#lastSeq = this.#sql.exec<{ seq: number }>("SELECT last_insert_rowid() AS seq").toArray()[0]!.seq;
    for (const waiter of this.#waiters) if (id === RELEASED ? waiter.releases : waiter.ids.has(id)) waiter.wake();
    if (++this.#writes % TRIM_EVERY === 0) this.#trim();
  }

  #dropExpired(at: number): void {
    this.#runs.dropping(at);
    this.#sql.exec("DELETE FROM tasks WHERE drop_at <= ?", at);
  }

  #count(query: string, ...bindings: (string | number)[]): number {
    return this.#sql.exec<{ n: number }>(query, ...bindings).toArray()[0]!.n;
  }

  #leaseHolds(worker: string | null): boolean {
    if (!worker) return false;
    const [lease] = this.#sql.exec<{ until: number }>("SELECT until FROM leases WHERE worker = ?", worker).toArray();
    return !!lease && lease.until > Date.now();
  }

  #trim(): void {
    const [last] = this.#sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM changes WHERE at < ?", Date.now() - LOG_KEEP_MS).toArray();
    if (last?.seq == null) return;
    this.#sql.exec("DELETE FROM changes WHERE seq <= ?", last.seq);
    this.#trimmedThrough = Math.max(this.#trimmedThrough, last.seq);
  }

  #scheduleAlarm(): void {
    const [next] = this.#sql.exec<{ at: number | null }>("SELECT MIN(drop_at) AS at FROM tasks").toArray();
    const at = Math.min(next?.at ?? Infinity, this.#deliveries.nextAt(Date.now()) ?? Infinity);
    if (at === Infinity || at === this.#alarmAt) return;
    this.#alarmAt = at;
    // Set within the call, so the storage's output gate holds the answer until the alarm is stored too.
    void this.ctx.storage.setAlarm(at);
  }
}
