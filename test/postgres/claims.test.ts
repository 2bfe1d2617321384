// Claims on the Postgres store beyond the kit: instances (each its own pool) claiming waiting tasks at once
// get different tasks (`claimNext`, FOR UPDATE SKIP LOCKED), never waiting for a row another one holds; the
// listing skips a row under a claim's lock yet shows every other waiting task to every instance; a claim of
// one task by id waits for that lock and then decides exactly.
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { PostgresTaskStore } from "../../src/tasks/postgres/index.ts";
import { freshId, snapshot, standIn } from "../../src/tasks/testing/stand-in.ts";
import { postgresStores } from "./stores.ts";

const cluster = postgresStores();

/** Two instances on a fresh schema, connected, and `count` tasks of a fresh run created released on the first. */
async function waiting(count: number) {
  const stores = cluster.stores(2);
  const clocks = stores.map((store) => {
    const s = standIn({ max: 10_000 }, true);
    store.connect(s.runtime);
    return s.clock;
  });
  const name = `run_${freshId().slice(-8)}`;
  const at = clocks[0]!.now;
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const id = freshId();
    const run = { name, version: 1, input: { n }, client: {} };
    expect(await stores[0]!.create({ id, owner: "", expiresAt: at + 60_000, snapshot: snapshot(id, "working", at), run, released: true })).toBe("created");
    ids.push(id);
  }
  return { stores, name, ids };
}

/** A transaction of its own holding row locks on `ids` (as a claim under way does) until `end()`. */
async function lockRows(store: PostgresTaskStore, ids: string[]) {
  const client = new pg.Client({ connectionString: cluster.server.url });
  await client.connect();
  await client.query("BEGIN");
  await client.query(`SELECT 1 FROM "${store.schema}".mcp_tasks WHERE id = ANY($1) FOR UPDATE`, [ids]);
  return {
    async end() {
      await client.query("ROLLBACK");
      await client.end();
    },
  };
}

describe("claims of waiting tasks on Postgres", () => {
  it("two instances claiming at once, several calls each, get different tasks: every task claimed once, as attempt 1", async () => {
    const { stores, name, ids } = await waiting(60);
    const claimed: { id: string; attempt: number; by: number }[] = [];
    for (;;) {
      const rounds = await Promise.all(stores.flatMap((store, by) => [0, 1, 2].map(async () => (await (store as PostgresTaskStore).claimNext([name], 4)).map((t) => ({ ...t, by })))));
      const got = rounds.flat();
      if (!got.length) break;
      for (const task of got) expect(task).toMatchObject({ name, version: 1, attempt: 1 });
      claimed.push(...got.map(({ id, attempt, by }) => ({ id, attempt, by })));
    }
    expect(claimed.map((t) => t.id).sort()).toEqual([...ids].sort());
    for (const { id, by } of claimed) {
      const task = await stores[1 - by]!.readHeld!(id);
      expect(task && "hold" in task ? task.hold : undefined).toEqual({ name, version: 1, attempt: 1, released: false });
      expect(await stores[1 - by]!.claim!(id)).toMatchObject({ outcome: "taken" });
    }
    expect(await stores[0]!.claimable!([name], 100)).toEqual([]);
  });

  it("a claim in batch skips the rows another transaction holds and returns without waiting for them", async () => {
    const { stores, name, ids } = await waiting(6);
    const [a] = stores as PostgresTaskStore[];
    const lock = await lockRows(a!, ids.slice(0, 3));
    try {
      // Were it waiting for the locks, it would fail with the store-unavailable error after timeoutMs.
      const first = await a!.claimNext([name], 10);
      expect(first.map((t) => t.id).sort()).toEqual(ids.slice(3).sort());
    } finally {
      await lock.end();
    }
    const rest = await stores[1]!.claimNext([name], 10);
    expect(rest.map((t) => [t.id, t.attempt])).toEqual(ids.slice(0, 3).map((id) => [id, 1]));
  });

  it("the listing leaves out a row under a claim's lock on every instance, and a claim of that task by id waits and decides", async () => {
    const { stores, name, ids } = await waiting(3);
    const [a, b] = stores as PostgresTaskStore[];
    const lock = await lockRows(a!, [ids[0]!]);
    let claim: Promise<unknown> | undefined;
    try {
      const [seenA, seenB] = await Promise.all([a!.claimable([name], 10), b!.claimable([name], 10)]);
      expect(seenA.map((t) => t.id)).toEqual(ids.slice(1));
      expect(seenB.map((t) => t.id)).toEqual(ids.slice(1));
      claim = b!.claim(ids[0]!);
      // The claim waits on the row's lock: seen in pg_stat_activity before the lock goes.
      for (;;) {
        const rows = await cluster.server.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%mcp_task_claim(%'`);
        if (Number(rows[0]!.n) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await lock.end();
    }
    expect(await claim).toEqual({ outcome: "claimed", attempt: 1 });
    expect(await a!.claim(ids[0]!)).toMatchObject({ outcome: "taken" });
    expect((await a!.claimable([name], 10)).map((t) => t.id)).toEqual(ids.slice(1));
  });

  it("claims by id and in batch racing over the same tasks: each task claimed exactly once", async () => {
    const { stores, name, ids } = await waiting(20);
    const [a, b] = stores as PostgresTaskStore[];
    const [byId, batch] = await Promise.all([Promise.all(ids.map((id) => a!.claim(id))), b!.claimNext([name], 20)]);
    const wonById = ids.filter((_, n) => byId[n]!.outcome === "claimed");
    expect(byId.every((o) => o.outcome === "claimed" || o.outcome === "taken")).toBe(true);
    expect([...wonById, ...batch.map((t) => t.id)].sort()).toEqual([...ids].sort());
  });

  it("a task whose holder's lease lapsed is claimed in batch as its next attempt, fencing the lost one", async () => {
    const stores = cluster.stores(2) as PostgresTaskStore[];
    const standIns = stores.map((store) => {
      const s = standIn({ max: 100 }, true);
      store.connect(s.runtime);
      return s;
    });
    const name = `run_${freshId().slice(-8)}`;
    const at = standIns[0]!.clock.now;
    const id = freshId();
    const run = { name, version: 1, input: {}, client: {} };
    expect(await stores[0]!.create({ id, owner: "", expiresAt: at + 60_000, snapshot: snapshot(id, "working", at, at, { attempt: 1 }), run })).toBe("created");
    expect(await stores[1]!.claimNext([name], 10)).toEqual([]);
    await stores[0]!.close();
    await cluster.server.query(`DELETE FROM "${stores[0]!.schema}".mcp_task_leases WHERE worker = $1`, [stores[0]!.workerId]);
    expect(await stores[1]!.claimNext([name], 10)).toEqual([{ id, name, version: 1, attempt: 2 }]);
    expect(await stores[1]!.saveRun(id, { ...run, input: { saved: true } }, { attempt: 1 })).toBe("fenced");
    expect(await stores[1]!.saveRun(id, { ...run, input: { saved: true } }, { attempt: 2 })).toBe("written");
  });
});
