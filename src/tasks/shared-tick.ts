// With a shared store, what one instance keeps doing while it runs or listens to tasks, every third of a
// lease: renewing its lease (so no other instance takes its tasks for lost), and catching up with
// changes the feed did not bring (a lost message), for the actors here and the listen streams here. An
// instance serving runs found by name also looks for tasks waiting for a claim, on every tick.
import { snapshotFromKeptJson } from "./kept-json.ts";
import { readAs, type Changes } from "./changes.ts";
import type { Listeners } from "./listeners.ts";
import type { LocalTask, LocalTasks } from "./local-tasks.ts";
import type { LiveTaskRecord, TaskRecord, TaskStore } from "./store.ts";
import { unrefInterval } from "../utils/timers.ts";
import { instanceLost } from "./logic/task-events.ts";

export interface SharedTickParts {
  store: TaskStore;
  local: LocalTasks;
  listeners: Listeners;
  changes: Changes;
  now: () => number;
  /** A task whose holder's lease lapsed, as read: failed, claimed, or left waiting (the runtime's judgement). */
  lapsed(id: string, owner: string, task: LiveTaskRecord): Promise<TaskRecord | undefined>;
  /** This instance lost its lease: an attempt of a run found by name here stops (another instance claims it). */
  fence(task: LocalTask): void;
  /**
   * Claims tasks waiting for an attempt this instance serves; absent when it serves none, or when its
   * executor delivers lost attempts itself.
   */
  claimWaiting?: () => Promise<void>;
}

export function createSharedTick(parts: SharedTickParts) {
  const { store, local, listeners, changes, now } = parts;
  const leaseMs = store.leaseMs ?? 15_000;
  /** Stops the interval; undefined while the tick sleeps. */
  let stop: (() => void) | undefined;
  let ticking = false;
  let leasedAt = 0;
  const lost = () => instanceLost(now());

  /** Extends the lease; a lease found gone, or unrenewable for a whole lease, ends the tasks here. */
  const renew = async () => {
    const started = Date.now();
    try {
      if (!store.renew || (await store.renew())) leasedAt = started;
      else await leaseLost();
    } catch {
      if (Date.now() - leasedAt > leaseMs) {
        fenceAttempts();
        local.endAll(lost);
      }
    }
  };
  // An attempt of a run found by name is not failed: its writes are refused from now on, and another
  // instance (or this one, with its lease back) claims the next attempt.
  const fenceAttempts = () => {
    for (const id of local.ids()) {
      const task = local.get(id);
      if (task?.fence) parts.fence(task);
    }
  };
  // Another instance may already have failed these tasks; whoever did, the chart keeps the first ending.
  const leaseLost = async () => {
    fenceAttempts();
    await Promise.all(
      local.ids().map((id) => {
        const task = local.get(id);
        return task && changes.apply(id, task.owner, lost).catch(() => {});
      }),
    );
    local.endAll(lost);
  };

  /** Actors that missed a change restart from the stored state. */
  const catchUpLocal = async () => {
    const ids = local.ids();
    if (!ids.length) return;
    const versions = store.versions ? await store.versions(ids) : undefined;
    await Promise.all(
      ids.map(async (id, i) => {
        const stored = versions?.[i];
        const task = local.get(id);
        if (!task || (versions && (stored === undefined || !local.behind(id, stored)))) return;
        const record = await readAs(store, id, task.owner);
        if (!record) return;
        // A finished task's version is the last: whatever the actor reached, it ends.
        if (record.json !== undefined) local.resync(id, snapshotFromKeptJson(record.json), stored ?? Number.MAX_SAFE_INTEGER);
        else if (local.behind(id, record.version)) local.resync(id, record.snapshot, record.version);
      }),
    );
  };

  /** Listened tasks read again (which also renews their mark as listened): what a lost change did not tell. */
  const catchUpListeners = () =>
    Promise.all(
      listeners.entries().map(async ({ id, owner }) => {
        try {
          let task = await store.read(id, owner, true);
          if (task?.snapshot && !task.workerAlive) task = await parts.lapsed(id, owner, task);
          if (!task) listeners.gone(id, now());
          else if (task.json !== undefined) listeners.finished(id, snapshotFromKeptJson(task.json));
          else listeners.changed(id, task.version, task.snapshot);
        } catch {
          // The store is unreachable: the next tick tries again.
        }
      }),
    );

  const tick = async () => {
    if (ticking) return;
    ticking = true;
    try {
      if (local.size) await renew();
      await Promise.all([catchUpLocal().catch(() => {}), catchUpListeners(), parts.claimWaiting?.().catch(() => {})]);
    } finally {
      ticking = false;
      if (!local.size && !listeners.taskCount && !parts.claimWaiting && stop) {
        stop();
        stop = undefined;
      }
    }
  };

  return {
    /** Starts ticking (this instance took its first live task or its first listener). */
    wake() {
      if (stop) return;
      // An idle process must still exit: the interval never holds it open, and runs only while needed.
      stop = unrefInterval(Math.max(30, Math.floor(leaseMs / 3)), () => void tick());
    },
    /** The store took or extended this instance's lease (creating a task does). */
    leased() {
      leasedAt = Date.now();
    },
    /** Changes may have been lost: catch up at once. */
    missed() {
      if (local.size || listeners.taskCount) void tick();
    },
    get running() {
      return stop !== undefined;
    },
  };
}

export type SharedTick = ReturnType<typeof createSharedTick>;
