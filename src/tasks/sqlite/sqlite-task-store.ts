// `sqliteTaskStore()`: one server instance's handle on tasks kept in one SQLite file, which several
// processes on one host may share (a cluster, a rolling restart on one VM). Each call is one instance,
// with its own worker id and lease, so two apps in one process behave as two servers. Creation with the
// caps and each compare-and-set are one BEGIN IMMEDIATE transaction on the user's synchronous handle,
// which also appends the change to the feed the other processes read (change-feed.ts).
import { randomUUID } from "node:crypto";
import { taskStoreUnavailable } from "../../protocol/errors.ts";
import { checkOptions, type OptionNames } from "../../utils/options.ts";
import { keyedOwnerHash } from "../owner-hash.ts";
import { runSeal } from "../run-seal.ts";
import type { ClaimableTask, ClaimOutcome, CreateOutcome, FinalStatus, HoldOutcome, LoadedRun, StoreRuntime, TaskFence, TaskOrigin, TaskRecord, TaskRunRecord, TaskStore, TaskWrite, WriteOutcome } from "../store.ts";
import { changeBody, changeLog, readChanges, type FeedReader } from "./change-feed.ts";
import { openDatabase, type SqliteDatabaseLike, type SqliteKind } from "./database.ts";
import { createLeases, FENCE_HOLDS, holderAlive, holds, READ_TASK, waitingSince, type TaskRow } from "./holds.ts";
import { createRuns } from "./runs.ts";
import { ALL_OWNERS, prepareFile } from "./schema.ts";
import { finishedCache, ownerHashes } from "./read-caches.ts";
import { createSealing } from "./sealing.ts";

import { notConnected, runsNeedSecret, secretRequired, WHERE } from "./setup-errors.ts";
/** How often creations sweep expired tasks when no cap refuses them. */
const SWEEP_MS = 1000;

export interface SqliteTaskStoreOptions {
  /**
   * The open handle on the file: better-sqlite3's `Database` (Node 20+), `node:sqlite`'s `DatabaseSync`
   * (Node 22.5+, Deno) or `bun:sqlite`'s `Database` (Bun). Give each instance its own handle on the same
   * file; the store sets WAL mode and the lock wait on it, and never closes it.
   */
  database: SqliteDatabaseLike;
  /**
   * Key of the hash (HMAC-SHA256) under which task owners are kept, so the file never names a principal,
   * and of the seal (AES-256-GCM) over what a run found by name keeps there: the same random value in every
   * process. Required when tasks are bound to their callers or runs found by name are served.
   */
  secret?: string;
  /**
   * How long an instance's claim on its running tasks lasts without renewal (renewed every third of it).
   * Once it lapses, other processes take those tasks for lost (a run with attempts left is claimed again).
   * Default 15 000.
   */
  leaseMs?: number;
  /**
   * Longest wait for the file's write lock (SQLite's busy_timeout) before a request gets the
   * store-unavailable error (503 with Retry-After). The wait blocks this process, the handle being
   * synchronous. Default 2000.
   */
  timeoutMs?: number;
  /**
   * SQLite's `synchronous` level: "normal" (default) keeps every committed task through a crash of any
   * process; "full" also through a power loss, at the price of a disk flush per write.
   */
  synchronous?: "normal" | "full";
}
const OPTION_NAMES: OptionNames<SqliteTaskStoreOptions> = { database: true, secret: true, leaseMs: true, timeoutMs: true, synchronous: true };

export interface SqliteTaskStore extends TaskStore {
  readonly shared: true;
  readonly leaseMs: number;
  /** This instance's worker id, the key of its lease row. */
  readonly workerId: string;
  /** Which handle it was given. */
  readonly kind: SqliteKind;
  /** The database file's path ("" in memory). */
  readonly file: string;
  readHeld(id: string): TaskRecord | undefined;
  claim(id: string): ClaimOutcome;
  release(id: string, fence: TaskFence): HoldOutcome;
  claimable(names: readonly string[], limit: number): ClaimableTask[];
  loadRun(id: string): LoadedRun;
  saveRun(id: string, record: TaskRunRecord, fence: TaskFence): HoldOutcome;
  /** Stops reading the feed and renewing: this instance's tasks are lost elsewhere once its lease lapses. The handle stays open. */
  close(): void;
}
/**
 * A task store in one SQLite file, shared by the processes of one host, for `mcpTasks({ store })`.
 *
 * @example
 * import Database from "better-sqlite3";
 * const store = sqliteTaskStore({ database: new Database("tasks.db"), secret: process.env.MCP_TASKS_SECRET });
 * defineMcpHandler(options, { extensionPlugins: [mcpTasks({ store })] });
 */
export function sqliteTaskStore(options: SqliteTaskStoreOptions): SqliteTaskStore {
  checkOptions(WHERE, options, OPTION_NAMES);
  const { secret, leaseMs = 15_000, timeoutMs = 2000, synchronous = "normal" } = options ?? {};
  if (!(leaseMs >= 100)) throw new TypeError(`${WHERE}: leaseMs must be at least 100`);
  if (!(timeoutMs >= 0)) throw new TypeError(`${WHERE}: timeoutMs must be 0 or more`);
  if (synchronous !== "normal" && synchronous !== "full") throw new TypeError(`${WHERE}: synchronous must be "normal" or "full"`);
  if (secret !== undefined && (typeof secret !== "string" || secret === "")) throw new TypeError(`${WHERE}: secret must be a non-empty string`);

  const db = openDatabase(options.database, WHERE);
  prepareFile(db, { timeoutMs, synchronous, where: WHERE });
  const workerId = randomUUID();
  const sealing = createSealing(runSeal(secret), runsNeedSecret);
  const leases = createLeases(db, workerId, leaseMs);
  const log = changeLog(db);
  let runtime: StoreRuntime | undefined;
  let reader: FeedReader | undefined;
  let closed = false;
  const connected = () => {
    if (closed) throw taskStoreUnavailable(`this ${WHERE} was closed`);
    return runtime ?? notConnected();
  };
  const ownerHash = ownerHashes((owner) => keyedOwnerHash(owner, secret, secretRequired));
  // The feed rows this instance appended skip its own reader; the other instances of this process read now.
  const wrote = () => reader?.wrote(log.appended());
  const runs = createRuns({ db, workerId, leases, log, sealing, now: () => connected().now(), wrote });
  const statements = {
    read: db.prepare(READ_TASK),
    sweep: db.prepare("DELETE FROM mcp_tasks WHERE expires_at <= ?"),
    taken: db.prepare("SELECT 1 AS one FROM mcp_tasks WHERE id = ?"),
    count: db.prepare("SELECT n FROM mcp_task_counts WHERE owner = ?"),
    insert: db.prepare(
      `INSERT INTO mcp_tasks (id, owner, version, expires_at, snapshot, origin, worker, run_name, run_version, record, attempt, released, since)
       VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // The compare-and-set: the version and the fence in the one UPDATE's condition.
    live: db.prepare(`UPDATE mcp_tasks AS t SET version = version + 1, snapshot = ? WHERE t.id = ? AND t.version = ? AND t.json IS NULL AND ${FENCE_HOLDS}`),
    final: db.prepare(
      `UPDATE mcp_tasks AS t SET version = version + 1, snapshot = NULL, json = ?, status = ?, record = NULL, released = 0
       WHERE t.id = ? AND t.version = ? AND t.json IS NULL AND ${FENCE_HOLDS}`,
    ),
    versions: db.prepare("SELECT id, version FROM mcp_tasks WHERE id IN (SELECT value FROM json_each(?))"),
  };
  const recordOf = (id: string, row: TaskRow): TaskRecord => {
    const origin = row.origin ? (JSON.parse(row.origin) as TaskOrigin) : undefined;
    const expiresAt = row.expires_at ?? Infinity;
    if (row.json !== null) return { expiresAt, status: row.status as FinalStatus, json: row.json, origin };
    const hasRun = row.run_name !== null;
    const snapshot = sealing.readSnapshot(id, row.snapshot!, hasRun);
    const at = Date.now();
    const alive = holderAlive(row, at);
    if (!hasRun) return { version: row.version, expiresAt, snapshot, origin, workerAlive: alive };
    const released = row.released === 1;
    const hold = { name: row.run_name!, version: row.run_version!, attempt: row.attempt!, released };
    const waiting = released || !alive;
    return { version: row.version, expiresAt, snapshot, origin, workerAlive: released || alive, hold: waiting ? { ...hold, waitingSince: waitingSince(row) } : hold };
  };
  const readRow = (id: string) => db.guard(() => statements.read.get<TaskRow>(id));
  const finished = finishedCache(() => connected().now());
  /** When a creation next sweeps expired tasks without a cap refusing it (by this host's clock). */
  let sweepAt = 0;
  const sweep = (at: number): true => {
    statements.sweep.run(connected().now());
    sweepAt = at + SWEEP_MS;
    return true;
  };
  /** The owner hash and record of `id`, from the finished tasks kept or from the file. */
  const lookUp = (id: string): { owner: string; record: TaskRecord } | undefined => {
    const kept = finished.get(id);
    if (kept) return kept;
    const row = readRow(id);
    if (!row) return undefined;
    const record = recordOf(id, row);
    if (row.json !== null) finished.keep(id, row.owner, record);
    return { owner: row.owner, record };
  };
  const store: SqliteTaskStore = {
    shared: true,
    leaseMs,
    workerId,
    kind: db.kind,
    file: db.file,
    connect(next) {
      if (runtime) throw new TypeError(`${WHERE}: this store already serves an mcpTasks(); each instance needs its own`);
      if (next.bound && !secret) throw secretRequired();
      if (next.runs && !secret) throw runsNeedSecret();
      runtime = next;
      reader = readChanges(db, { feed: next.feed, pollMs: Math.max(50, leaseMs / 3), openChange: sealing.openChange });
    },
    create(task): CreateOutcome {
      const { limits } = connected();
      // Thrown here, before the transaction: a bound task on a store without a secret is a setup mistake.
      const owner = ownerHash(task.owner);
      const run = task.run;
      const released = run !== undefined && task.released === true;
      const snapshot = sealing.snapshot(task.id, task.snapshot, run !== undefined);
      const record = run ? sealing.record(task.id, run) : null;
      // An expired task of this id may still be kept; the new one is read from the file.
      finished.forget(task.id);
      let lease: number | undefined;
      const capped = (): CreateOutcome | undefined => {
        if ((statements.count.get<{ n: number }>(ALL_OWNERS)?.n ?? 0) >= limits.max) return "full";
        if (limits.maxPerOwner !== Infinity && (statements.count.get<{ n: number }>(owner)?.n ?? 0) >= limits.maxPerOwner) return "owner-full";
        return undefined;
      };
      const outcome = db.guard(() =>
        db.transaction((): CreateOutcome => {
          const at = Date.now();
          // Expired tasks never count against the caps: they are swept before a cap refuses, and otherwise
          // at most once a second (and at each renewal), not by a statement of every creation.
          let swept = at >= sweepAt && sweep(at);
          let refused = capped();
          if (refused && !swept) {
            swept = sweep(at);
            refused = capped();
          }
          if (refused) return refused;
          lease = leases.take(at);
          const insert = () =>
            statements.insert.run(
              task.id,
              owner,
              task.expiresAt === Infinity ? null : task.expiresAt,
              snapshot,
              task.origin ? JSON.stringify(task.origin) : null,
              released ? null : workerId,
              run?.name ?? null,
              run?.version ?? null,
              record,
              run ? (released ? 0 : 1) : null,
              run ? (released ? 1 : 0) : null,
              at,
            );
          try {
            insert();
          } catch (error) {
            // The id's check is the primary key's: a taken id is looked at only once the insert failed,
            // and an expired task of that id goes first.
            if (!statements.taken.get(task.id)) throw error;
            if (!swept) sweep(at);
            if (statements.taken.get(task.id)) throw new Error(`Task id ${task.id} is already in use`);
            insert();
          }
          if (released) log.released(task.id, run.name, at);
          return "created";
        }),
      );
      leases.committed(lease);
      if (released && outcome === "created") wrote();
      return outcome;
    },
    read(id, owner, _listen) {
      const hash = ownerHash(owner);
      connected();
      const found = lookUp(id);
      return found && found.owner === hash ? found.record : undefined;
    },
    readHeld(id) {
      connected();
      return lookUp(id)?.record;
    },
    write(id, change: TaskWrite): WriteOutcome {
      connected();
      const final = change.json !== undefined;
      const hasRun = change.snapshot.context.attempt !== undefined;
      const snapshot = final ? null : sealing.snapshot(id, change.snapshot, hasRun);
      const body = sealing.change(id, changeBody({ status: change.snapshot.value, event: change.event, snapshot: change.statusChanged ? change.snapshot : undefined }), hasRun);
      const attempt = change.fence?.attempt ?? null;
      const outcome = db.guard(() =>
        db.transaction((): WriteOutcome => {
          const at = Date.now();
          const expected = change.version - 1;
          const written = final
            ? statements.final.run(change.json!, change.snapshot.value, id, expected, attempt, attempt, at)
            : statements.live.run(snapshot, id, expected, attempt, attempt, at);
          if (written === 0) {
            const row = statements.read.get<TaskRow>(id);
            if (!row) return "gone";
            // The fence first: a stale attempt must stop, whatever the version says.
            if (attempt !== null && row.run_name !== null && row.json === null && !holds(row, attempt, at)) return "fenced";
            return "conflict";
          }
          log.changed(id, change.version, body, at);
          return "written";
        }),
      );
      if (outcome === "written") wrote();
      return outcome;
    },
    renew() {
      const { now } = connected();
      return db.guard(() => {
        const at = Date.now();
        // The slow part of the sweep rides on the renewal: old change rows and long-lapsed leases.
        log.trim(at);
        leases.dropLapsed(at - 60_000);
        statements.sweep.run(now());
        return leases.renew(at);
      });
    },
    versions(ids) {
      connected();
      const rows = db.guard(() => statements.versions.all<{ id: string; version: number }>(JSON.stringify(ids)));
      const found = new Map(rows.map((row) => [row.id, row.version]));
      return ids.map((id) => found.get(id));
    },
    claim: (id) => (connected(), runs.claim(id)),
    release: (id, fence) => (connected(), runs.release(id, fence)),
    claimable: (names, limit) => (connected(), runs.claimable(names, limit)),
    loadRun: (id) => (connected(), runs.loadRun(id)),
    saveRun: (id, record, fence) => (connected(), runs.saveRun(id, record, fence)),
    close() {
      closed = true;
      reader?.close();
    },
  };
  return store;
}
