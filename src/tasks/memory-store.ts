// The in-memory task store, the default: one process's tasks, bounded and swept lazily on access.
// Every task is in the TaskTable (outside the JS heap) in creation order, which with one TTL per store
// is expiry order: a sweep walks from the front and stops at the first task still alive, so its cost is
// what expired, never the store's size. A live task's record (version, snapshot, origin) sits beside it
// in the table until it finishes. No timer runs, so tasks never hold a process open.
import { fullGetTaskResultJson, shortGetTaskResultJson } from "./kept-json.ts";
import type {
  ClaimableTask,
  ClaimOutcome,
  CreateOutcome,
  FinalStatus,
  HoldOutcome,
  LoadedRun,
  NewTask,
  StoreRuntime,
  TaskFence,
  TaskHold,
  TaskOrigin,
  TaskRecord,
  TaskRunRecord,
  TaskSnapshot,
  TaskStore,
  TaskWrite,
  WriteOutcome,
} from "./store.ts";
import { TaskTable } from "./task-table.ts";

/** The in-memory store, with what it tells about itself for tests and tooling. */
export interface MemoryTaskStore extends TaskStore {
  readonly shared: false;
  create(task: NewTask): CreateOutcome;
  read(id: string, owner: string, listen?: boolean): TaskRecord | undefined;
  readHeld(id: string): TaskRecord | undefined;
  write(id: string, change: TaskWrite): WriteOutcome;
  wouldCreate(owner: string): CreateOutcome;
  claim(id: string): ClaimOutcome;
  release(id: string, fence: TaskFence): HoldOutcome;
  claimable(names: readonly string[], limit: number): ClaimableTask[];
  loadRun(id: string): LoadedRun;
  saveRun(id: string, record: TaskRunRecord, fence: TaskFence): HoldOutcome;
  /** Tasks held, after the same bounded sweep as any access (so expired live tasks beyond the bound still count). */
  readonly size: number;
  /**
   * Drops expired tasks, ending live ones through the runtime first; returns how many went. With
   * `maxLive`, stops after ending that many live tasks: the rest wait for the next sweep, unknown meanwhile.
   */
  sweep(maxLive?: number): number;
  /** Bytes held outside the JS heap (finished tasks), for memory figures. */
  readonly externalBytes: number;
}

/** A live task's record: what changes with every write. */
interface LiveRecord {
  version: number;
  snapshot: TaskSnapshot;
  readonly origin: TaskOrigin | undefined;
  /** For a run found by name: its record and which attempt holds it. */
  run?: RunHold;
}

/** A run's record and its hold. Only this process can claim, so a hold ends only by `release` (or the task's end). */
interface RunHold {
  record: TaskRunRecord;
  attempt: number;
  released: boolean;
  /** When it was released (the clock's ms). */
  since: number;
}

// A claim of a task this process holds can only be tried again once the holder released it, which the
// feed tells at once: this is a hint for callers that poll anyway.
const HELD_RETRY_MS = 1000;

// Ending a live task costs tens of µs (its actor transitions and stops, its signal aborts): a request
// pays for at most this many, so thousands expiring together never stall one request.
const MAX_EXPIRING_PER_ACCESS = 64;

/**
 * The default task store: this process's memory. Fast, and gone with the process; for several
 * instances use a shared store (`redisTaskStore()` from "h3-mcp/tasks/redis").
 *
 * @example
 * mcpTasks({ store: memoryTaskStore() }); // the same as mcpTasks()
 */
export function memoryTaskStore(): MemoryTaskStore {
  // Plain JavaScript may still give it options it would ignore.
  const given: unknown = arguments[0];
  if (given !== undefined) {
    const keys = given !== null && typeof given === "object" ? Object.keys(given).join(", ") : String(given);
    throw new TypeError(`memoryTaskStore() takes no options, not ${keys || "{}"}: limits and lifetimes are mcpTasks()'s (mcpTasks({ ttlMs, max }))`);
  }
  const table = new TaskTable<LiveRecord>();
  let runtime: StoreRuntime | undefined;
  /** The front task's expiry, the earliest of all: until then a sweep has nothing to do. */
  let nextExpiry = Infinity;
  const connected = () => runtime ?? notConnected();
  /** Tasks released and not claimed since (some may have finished or expired meanwhile: checked when listed). */
  const releasedIds = new Set<string>();
  /** A live task's run hold, if it has one. */
  const holdOf = (id: string) => {
    const p = table.find(id);
    return p === -1 ? undefined : table.live(p)?.run;
  };
  const holds = (run: RunHold, fence: TaskFence) => !run.released && run.attempt === fence.attempt;
  const tellReleased = (id: string, name: string) => {
    releasedIds.add(id);
    const feed = connected().feed;
    // Told after the call returns, as a shared store's feed would be.
    if (feed.released) queueMicrotask(() => feed.released!(id, name));
  };

  const sweep = (maxLive = Infinity) => {
    const { now, feed } = connected();
    const at = now();
    if (at < nextExpiry) return 0;
    let dropped = 0;
    let ended = 0;
    for (let p = table.front(); p !== -1; p = table.front()) {
      if (table.expiresAt(p) > at) break;
      if (table.status(p) === undefined) {
        if (ended === maxLive) break;
        ended++;
        // The runtime ends it with the chart's task.expire (its last write), then it goes.
        feed.expired(table.id(p));
      }
      table.dropFront();
      dropped++;
    }
    const front = table.front();
    nextExpiry = front === -1 ? Infinity : table.expiresAt(front);
    return dropped;
  };
  const sweepOnAccess = () => sweep(MAX_EXPIRING_PER_ACCESS);

  /** What `create` answers for `owner` once the sweep made what room it could. */
  const room = (owner: string): CreateOutcome => {
    const { max, maxPerOwner } = connected().limits;
    if (table.count >= max) return "full";
    return maxPerOwner !== Infinity && table.ownerCount(owner) >= maxPerOwner ? "owner-full" : "created";
  };

  /** The task for `owner` (any owner when undefined), unless unknown or past its expiry. */
  const readTask = (id: string, owner: string | undefined): TaskRecord | undefined => {
    sweepOnAccess();
    const p = table.find(id);
    // Past its expiry but not swept yet (the sweep stopped at its bound): already gone for clients.
    if (p === -1 || (owner !== undefined && table.owner(p) !== owner)) return undefined;
    const expiresAt = table.expiresAt(p);
    if (expiresAt <= connected().now()) return undefined;
    const record = table.live(p);
    if (record) {
      const live = { version: record.version, expiresAt, snapshot: record.snapshot, origin: record.origin, workerAlive: true };
      return record.run ? { ...live, hold: holdView(record.run) } : live;
    }
    const status = table.status(p) as FinalStatus;
    const origin = table.origin(p);
    return { expiresAt, status, json: fullGetTaskResultJson(id, table.json(p)), origin: origin ? (JSON.parse(origin) as TaskOrigin) : undefined };
  };

  return {
    shared: false,
    connect(next) {
      if (runtime) throw new TypeError("memoryTaskStore: this store already serves an mcpTasks(); give each its own");
      runtime = next;
    },
    create(task: NewTask) {
      // Expired tasks sit at the front, so a bounded sweep that found any has made room.
      sweepOnAccess();
      const outcome = room(task.owner);
      if (outcome !== "created") return outcome;
      if (table.find(task.id) !== -1) throw new Error(`Task id ${task.id} is already in use`);
      const record: LiveRecord = { version: 1, snapshot: task.snapshot, origin: task.origin };
      if (task.run) {
        const released = task.released === true;
        record.run = { record: structuredClone(task.run), attempt: released ? 0 : 1, released, since: connected().now() };
      }
      table.add(task.id, task.owner, task.expiresAt, record);
      if (table.count === 1) nextExpiry = task.expiresAt;
      if (record.run?.released) tellReleased(task.id, task.run!.name);
      return outcome;
    },
    read(id, owner): TaskRecord | undefined {
      return readTask(id, owner);
    },
    readHeld(id): TaskRecord | undefined {
      return readTask(id, undefined);
    },
    write(id, change: TaskWrite): WriteOutcome {
      const p = table.find(id);
      if (p === -1) return "gone";
      const record = table.live(p);
      if (record?.run && change.fence && !holds(record.run, change.fence)) return "fenced";
      if (!record || record.version !== change.version - 1) return "conflict";
      if (change.json === undefined) {
        record.version = change.version;
        record.snapshot = change.snapshot;
      } else {
        // The id is the table's key already: its bytes are kept once.
        table.finish(p, change.snapshot.value, shortGetTaskResultJson(id, change.json), record.origin && JSON.stringify(record.origin));
      }
      return "written";
    },
    wouldCreate(owner) {
      // The same sweep as `create`'s, so this refuses exactly when creating would.
      sweepOnAccess();
      return room(owner);
    },
    claim(id): ClaimOutcome {
      sweepOnAccess();
      const run = holdOf(id);
      if (!run) return { outcome: "gone" };
      if (!run.released) return { outcome: "taken", retryInMs: HELD_RETRY_MS };
      run.attempt++;
      run.released = false;
      releasedIds.delete(id);
      return { outcome: "claimed", attempt: run.attempt };
    },
    release(id, fence): HoldOutcome {
      const run = holdOf(id);
      if (!run) return "gone";
      if (!holds(run, fence)) return "fenced";
      run.released = true;
      run.since = connected().now();
      tellReleased(id, run.record.name);
      return "written";
    },
    claimable(names, limit): ClaimableTask[] {
      sweepOnAccess();
      const found: ClaimableTask[] = [];
      for (const id of releasedIds) {
        const run = holdOf(id);
        if (!run?.released) {
          releasedIds.delete(id);
          continue;
        }
        if (!names.includes(run.record.name)) continue;
        found.push({ id, name: run.record.name, version: run.record.version, attempt: run.attempt, waitingSince: run.since });
      }
      // The set keeps the order of first release; a task released again waits since its later release, so
      // the list is sorted by that time to give the longest wait first.
      return found.sort((a, b) => a.waitingSince - b.waitingSince).slice(0, limit);
    },
    loadRun(id): LoadedRun {
      const run = holdOf(id);
      return run ? { outcome: "loaded", record: structuredClone(run.record) } : { outcome: "gone" };
    },
    saveRun(id, record, fence): HoldOutcome {
      const run = holdOf(id);
      if (!run) return "gone";
      if (!holds(run, fence)) return "fenced";
      run.record = structuredClone(record);
      return "written";
    },
    sweep,
    get size() {
      sweepOnAccess();
      return table.count;
    },
    get externalBytes() {
      return table.externalBytes;
    },
  };
}

function holdView(run: RunHold): TaskHold {
  const { name, version } = run.record;
  return run.released ? { name, version, attempt: run.attempt, released: true, waitingSince: run.since } : { name, version, attempt: run.attempt, released: false };
}

function notConnected(): never {
  throw new Error("memoryTaskStore: not connected to mcpTasks() yet");
}
