// `postgresTaskStore()`: one server instance's handle (own worker id and lease) on tasks every instance shares
// through one Postgres database. Creation with the caps, the compare-and-set, claims and hand-offs are each
// one call of a function the migration made (schema.ts): one round trip, one transaction. Changes reach the
// other instances over LISTEN/NOTIFY (change-feed.ts).
import { randomUUID } from "node:crypto";
import type { Hub } from "../../features/change-hub.ts";
import { taskStoreUnavailable } from "../../protocol/errors.ts";
import { checkOptions, type OptionNames } from "../../utils/options.ts";
import { changeMessage, releasedMessage } from "../change-messages.ts";
import { keyedOwnerHash } from "../owner-hash.ts";
import { isSealed, runSeal } from "../run-seal.ts";
import { createSealedParts, finalForChannel } from "../sealed-parts.ts";
import { CHART_VERSION } from "../snapshot-codec.ts";
import type { ClaimableTask, ClaimOutcome, CreateOutcome, FinalStatus, HoldOutcome, LoadedRun, StoreRuntime, TaskFence, TaskOrigin, TaskRecord, TaskRunRecord, TaskStore, TaskWrite, WriteOutcome } from "../store.ts";
import { readChanges, type FeedReader } from "./change-feed.ts";
import { openConnection, type PostgresPoolLike } from "./connection.ts";
import { createHubBridge } from "../hub-bridge.ts";
import { checkMigrated, migrate } from "./migration.ts";
import { createRuns, type ClaimedTask } from "./runs.ts";
import { notConnected, runsNeedSecret, secretRequired, throwRunsNeedSecret, WHERE } from "./setup-errors.ts";
import { channelsOf, quoteIdentifier } from "./schema.ts";

const CREATE_OUTCOMES: Record<number, CreateOutcome> = { 1: "created", 0: "full", 2: "owner-full" };
/** Finished tasks remembered, to read them again by their answer alone (about 150 bytes each). */
const FINISHED_KNOWN = 50_000;
const WRITE_OUTCOMES: Record<number, WriteOutcome> = { 1: "written", 0: "conflict", [-1]: "gone", [-2]: "fenced" };

export interface PostgresTaskStoreOptions {
  /** A node-postgres (8) `Pool`; the store never ends it, and opens one more connection alike for LISTEN. */
  pool?: PostgresPoolLike;
  /** `postgres://…` of the database, for a pool the store opens (and ends on `close()`); ignored with `pool`. */
  connectionString?: string;
  /**
   * Key of the hash (HMAC-SHA256) under which task owners are kept, so the database never names a
   * principal, and of the seal (AES-256-GCM) over what a run found by name keeps there: the same random
   * value on every instance. Required when tasks are bound to their callers or runs found by name are served.
   */
  secret?: string;
  /** The Postgres schema the tables live in (made by the migration); instances sharing it are one logical server. Default `"h3_mcp"`. */
  schema?: string;
  /**
   * How long an instance's claim on its running tasks lasts without renewal (renewed every third of it).
   * Once it lapses, other instances take those tasks for lost (a run with attempts left is claimed again).
   * Default 15 000.
   */
  leaseMs?: number;
  /** Longest wait for Postgres before a request gets the store-unavailable error (503 with Retry-After). Default 2000. */
  timeoutMs?: number;
  /** False to leave the migration to you (`store.migrate()`, or the SQL of `postgresTaskStoreSql()`): the store then checks the version only. Default true. */
  migrate?: boolean;
}

const OPTION_NAMES: OptionNames<PostgresTaskStoreOptions> = { pool: true, connectionString: true, secret: true, schema: true, leaseMs: true, timeoutMs: true, migrate: true };
export interface PostgresTaskStore extends TaskStore {
  readonly shared: true;
  readonly leaseMs: number;
  /** This instance's worker id, the key of its lease row. */
  readonly workerId: string;
  /** The Postgres schema of its tables. */
  readonly schema: string;
  readHeld(id: string): Promise<TaskRecord | undefined>;
  claim(id: string): Promise<ClaimOutcome>;
  release(id: string, fence: TaskFence): Promise<HoldOutcome>;
  claimable(names: readonly string[], limit: number): Promise<ClaimableTask[]>;
  /**
   * Claims up to `limit` waiting tasks of runs `names` (released, or whose holder's lease lapsed), each as its
   * next attempt, in one statement, oldest first: rows another instance is claiming are skipped (`FOR UPDATE
   * SKIP LOCKED`), so instances claiming at once get different tasks and never wait for one another.
   */
  claimNext(names: readonly string[], limit: number): Promise<ClaimedTask[]>;
  loadRun(id: string): Promise<LoadedRun>;
  saveRun(id: string, record: TaskRunRecord, fence: TaskFence): Promise<HoldOutcome>;
  /** Creates or brings up to date the store's tables (what it does at connect unless `migrate: false`); idempotent. */
  migrate(): Promise<void>;
  /** Stops listening and renewing, and ends the pool it opened (never one passed in). */
  close(): Promise<void>;
}

/** A task's row as every read gives it, its worker's lease judged by the database's clock. */
interface TaskRow {
  owner: string;
  version: number;
  expires_at: number | null;
  chart: string | null;
  snapshot: string | null;
  json: string | null;
  status: string | null;
  origin: string | null;
  run_name: string | null;
  run_version: number | null;
  attempt: number | null;
  released: boolean | null;
  alive: boolean;
  waiting_since: number | null;
}

/**
 * A task store shared through Postgres, for `mcpTasks({ store })`.
 *
 * @example
 * const store = postgresTaskStore({ connectionString: process.env.DATABASE_URL, secret: process.env.MCP_TASKS_SECRET });
 * defineMcpHandler(options, { extensionPlugins: [mcpTasks({ store })] });
 */
export function postgresTaskStore(options: PostgresTaskStoreOptions): PostgresTaskStore {
  checkOptions(WHERE, options, OPTION_NAMES);
  const { pool, connectionString, secret, schema = "h3_mcp", leaseMs = 15_000, timeoutMs = 2000 } = options ?? {};
  if (!pool && !connectionString) throw new TypeError(`${WHERE} needs a pool or a connectionString, e.g. postgresTaskStore({ connectionString: process.env.DATABASE_URL, secret })`);
  if (pool !== undefined && (typeof pool !== "object" || pool === null || typeof pool.query !== "function")) throw new TypeError(`${WHERE}: pool must be a node-postgres Pool`);
  if (!(leaseMs >= 100)) throw new TypeError(`${WHERE}: leaseMs must be at least 100`);
  if (!(timeoutMs > 0)) throw new TypeError(`${WHERE}: timeoutMs must be positive`);
  if (typeof schema !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(schema)) throw new TypeError(`${WHERE}: schema must be a plain SQL name (letters, digits, _; at most 40), got ${JSON.stringify(schema)}`);
  if (secret !== undefined && (typeof secret !== "string" || secret === "")) throw new TypeError(`${WHERE}: secret must be a non-empty string`);
  const migrating = options.migrate ?? true;

  const s = quoteIdentifier(schema);
  const channels = channelsOf(schema);
  const workerId = randomUUID();
  const conn = openConnection({ pool, connectionString, timeoutMs });
  const seal = runSeal(secret);
  const taskKey = (id: string) => `postgres:${schema}:${id}`;
  const sealed = createSealedParts(taskKey, seal);
  const hub = createHubBridge((message) => conn.query("SELECT pg_notify($1, $2)", [channels.hub, message]), workerId);
  let runtime: StoreRuntime | undefined;
  let reader: FeedReader | undefined;
  let closed = false;
  const connected = () => {
    if (closed) throw taskStoreUnavailable(`this ${WHERE} was closed`);
    return runtime ?? notConnected();
  };
  // The tables, made or checked once; a failure (the database is down) is tried again by the next call.
  let prepared: Promise<void> | undefined;
  const ready = () =>
    (prepared ??= (migrating ? migrate(conn, schema, WHERE) : checkMigrated(conn, schema, WHERE)).catch((error) => {
      prepared = undefined;
      throw error;
    }));
  const ownerHash = (owner: string) => keyedOwnerHash(owner, secret, secretRequired);
  const runs = createRuns({ conn, s, channel: channels.changes, workerId, leaseMs, sealer: () => seal ?? throwRunsNeedSecret(), taskKey, now: () => connected().now(), ready });

  const READ = `SELECT t.owner, t.version, t.expires_at, t.chart, t.snapshot, t.json, t.status, t.origin,
      t.run_name, t.run_version, t.attempt, t.released,
      (t.worker IS NOT NULL AND l.until IS NOT NULL AND l.until > ${s}.mcp_now_ms()) AS alive,
      CASE WHEN t.released OR t.worker IS NULL OR l.until IS NULL THEN t.since ELSE l.until END AS waiting_since
    FROM ${s}.mcp_tasks t LEFT JOIN ${s}.mcp_task_leases l ON l.worker = t.worker WHERE t.id = $1`;
  const finished = new Map<string, { expiresAt: number; status: FinalStatus; origin: TaskOrigin | undefined }>();
  const remember = (id: string, facts: { expiresAt: number; status: FinalStatus; origin: TaskOrigin | undefined }) => {
    if (finished.size >= FINISHED_KNOWN) finished.delete(finished.keys().next().value!);
    finished.set(id, facts);
  };
  const READ_FINISHED = `SELECT owner, json FROM ${s}.mcp_tasks WHERE id = $1`;
  const recordOf = (id: string, row: TaskRow): TaskRecord => {
    const origin = row.origin ? (JSON.parse(row.origin) as TaskOrigin) : undefined;
    const expiresAt = row.expires_at ?? Infinity;
    if (row.json !== null) {
      const facts = { expiresAt, status: row.status as FinalStatus, origin };
      remember(id, facts);
      return { ...facts, json: row.json };
    }
    const hasRun = row.run_name !== null;
    const snapshot = sealed.readSnapshot(id, row.chart ?? "", row.snapshot!, hasRun);
    if (!hasRun) return { version: row.version, expiresAt, snapshot, origin, workerAlive: row.alive };
    const released = row.released === true;
    const hold = { name: row.run_name!, version: row.run_version!, attempt: row.attempt!, released };
    const waiting = released || !row.alive;
    return { version: row.version, expiresAt, snapshot, origin, workerAlive: released || row.alive, hold: waiting ? { ...hold, waitingSince: row.waiting_since! } : hold };
  };
  const readRow = async (id: string) => {
    await ready();
    const [row] = await conn.query<TaskRow>(READ, [id]);
    return row;
  };
  /** The task and its stored owner hash; a finished task this instance knows, by its answer alone. */
  const readTask = async (id: string): Promise<{ owner: string; record: TaskRecord } | undefined> => {
    const facts = finished.get(id);
    if (facts) {
      await ready();
      const [row] = await conn.query<{ owner: string; json: string | null }>(READ_FINISHED, [id]);
      if (row?.json != null) return { owner: row.owner, record: { ...facts, json: row.json } };
      finished.delete(id);
      if (!row) return undefined;
    }
    const row = await readRow(id);
    return row && { owner: row.owner, record: recordOf(id, row) };
  };
  const one = async <T>(sql: string, values: unknown[]): Promise<T> => {
    await ready();
    const [row] = await conn.query<{ v: T }>(sql, values);
    return row!.v;
  };

  const store: PostgresTaskStore = {
    shared: true,
    leaseMs,
    workerId,
    schema,
    connect(next) {
      if (runtime) throw new TypeError(`${WHERE}: this store already serves an mcpTasks(); each instance needs its own`);
      if (next.bound && !secret) throw secretRequired();
      if (next.runs && !secret) throw runsNeedSecret();
      runtime = next;
      ready().catch(() => {});
      reader = readChanges({
        conn,
        schema,
        channels,
        feed: next.feed,
        openChange: sealed.openChange,
        onHub: hub.onMessage,
        marginMs: timeoutMs + 1000,
      });
    },
    async create(task): Promise<CreateOutcome> {
      const { now, limits } = connected();
      const owner = ownerHash(task.owner);
      const run = task.run;
      const released = run !== undefined && task.released === true;
      await reader?.listening;
      const outcome = await one<number>(`SELECT ${s}.mcp_task_create($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) AS v`, [
        task.id,
        owner,
        task.expiresAt === Infinity ? null : task.expiresAt,
        CHART_VERSION,
        sealed.snapshot(task.id, task.snapshot, run !== undefined),
        task.origin ? JSON.stringify(task.origin) : null,
        workerId,
        leaseMs,
        now(),
        Math.min(limits.max, 2 ** 31 - 1),
        limits.maxPerOwner === Infinity ? null : Math.min(limits.maxPerOwner, 2 ** 31 - 1),
        run?.name ?? null,
        run?.version ?? null,
        run ? runs.sealRecord(task.id, run) : null,
        released,
        channels.changes,
        released ? releasedMessage(task.id, run.name) : null,
      ]);
      if (outcome === -1) throw new Error(`Task id ${task.id} is already in use`);
      return CREATE_OUTCOMES[outcome]!;
    },
    async read(id, owner, listen) {
      const hash = ownerHash(owner);
      connected();
      // Every change is notified to every listening instance: a listener needs only this one's LISTEN in place.
      if (listen) await reader?.listening;
      const task = await readTask(id);
      return task && task.owner === hash ? task.record : undefined;
    },
    async readHeld(id) {
      connected();
      return (await readTask(id))?.record;
    },
    async write(id, change: TaskWrite): Promise<WriteOutcome> {
      connected();
      const final = change.json !== undefined;
      const hasRun = change.snapshot.context.attempt !== undefined;
      const snapshot = final ? "" : sealed.snapshot(id, change.snapshot, hasRun);
      const message = changeMessage(id, final ? finalForChannel(change) : change, isSealed(snapshot) ? "" : snapshot, sealed.changeSealer(id, hasRun, change));
      const outcome = await one<number>(`SELECT ${s}.mcp_task_write($1, $2, $3, $4, $5, $6, $7, $8, $9) AS v`, [
        id,
        change.version,
        CHART_VERSION,
        final ? null : snapshot,
        final ? change.json : null,
        final ? change.snapshot.value : null,
        change.fence?.attempt ?? null,
        message,
        channels.changes,
      ]);
      return WRITE_OUTCOMES[outcome]!;
    },
    async renew() {
      const { now } = connected();
      return one<boolean>(`SELECT ${s}.mcp_task_renew($1, $2, $3) AS v`, [workerId, leaseMs, now()]);
    },
    async versions(ids) {
      connected();
      await ready();
      const rows = await conn.query<{ id: string; version: number }>(`SELECT id, version FROM ${s}.mcp_tasks WHERE id = ANY($1)`, [ids]);
      const found = new Map(rows.map((row) => [row.id, row.version]));
      return ids.map((id) => found.get(id));
    },
    claim: async (id) => (connected(), await reader?.listening, runs.claim(id)),
    release: (id, fence) => (connected(), runs.release(id, fence)),
    claimable: (names, limit) => (connected(), runs.claimable(names, limit)),
    claimNext: async (names, limit) => (connected(), await reader?.listening, runs.claimNext(names, limit)),
    loadRun: (id) => (connected(), runs.loadRun(id)),
    saveRun: (id, record, fence) => (connected(), runs.saveRun(id, record, fence)),
    relayAnnouncements: (h: Hub) => hub.attach(h),
    migrate: () => migrate(conn, schema, WHERE),
    async close() {
      if (closed) return;
      closed = true;
      await reader?.close();
      await conn.close();
    },
  };
  return store;
}
