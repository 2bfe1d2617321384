// What the kit's store-level cases share: a stand-in for the runtime a store connects to (its clock, its
// caps and what its feed heard), and the snapshots, ids and final JSON the runtime would write.
import type { TaskStatus } from "../../../machines/task.machine.ts";
import type { StoreRuntime, TaskChange, TaskSnapshot, TaskStore } from "../store.ts";
import type { KitCase } from "./kit.ts";

/** A stand-in runtime: its clock, its caps, and what its feed was told. */
export function standIn(limits: { max: number; maxPerOwner?: number }, runs = false) {
  const heard: TaskChange[] = [];
  const expired: string[] = [];
  const released: { id: string; name: string }[] = [];
  const clock = { now: Date.now() };
  const runtime: StoreRuntime = {
    now: () => clock.now,
    limits: { max: limits.max, maxPerOwner: limits.maxPerOwner ?? Infinity },
    bound: true,
    runs,
    feed: {
      wants: () => true,
      changed: (change) => void heard.push(change),
      expired: (id) => void expired.push(id),
      missed: () => {},
      released: (id, name) => void released.push({ id, name }),
    },
  };
  return { runtime, heard, expired, released, clock };
}

export type StandIn = ReturnType<typeof standIn>;

/** The stores of a fresh logical server, each connected to a stand-in of its own. */
export async function connectStandIns(c: KitCase, limits: { max: number; maxPerOwner?: number }, runs = false): Promise<{ stores: TaskStore[]; standIns: StandIn[] }> {
  const stores = await c.stores();
  const standIns = stores.map((store) => {
    const s = standIn(limits, runs);
    store.connect(s.runtime);
    return s;
  });
  return { stores, standIns };
}

/** A snapshot of a task created at `createdAt` with a 60 s ttl (so it expires at `createdAt + 60_000`). */
export function snapshot(id: string, value: TaskStatus, createdAt: number, lastUpdatedAt = createdAt, extra: Record<string, unknown> = {}): TaskSnapshot {
  return {
    value,
    context: { taskId: id, createdAt, lastUpdatedAt, ttlMs: 60_000, pollIntervalMs: 1000, inputRequests: {}, inputKeys: {}, issuedKeys: [], answers: {}, ...extra },
  };
}

/** A finished task's tasks/get JSON, as the runtime writes it. */
export const finalJson = (id: string, status: string, createdAt: number) =>
  JSON.stringify({ resultType: "complete", taskId: id, status, createdAt: new Date(createdAt).toISOString(), lastUpdatedAt: new Date(createdAt).toISOString(), ttlMs: 60_000, pollIntervalMs: 1000 });

let counter = 0;
export const freshId = () => `00000000-0000-4000-8000-${(Date.now() % 1e6).toString(16).padStart(6, "0")}${(++counter).toString(16).padStart(6, "0")}`;

/** Compares a snapshot as read back (JSON data) with the one written. */
export const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
