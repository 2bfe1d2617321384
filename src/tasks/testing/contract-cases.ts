// The contract itself, method by method, on the stores directly (each connected to a stand-in runtime):
// what create, read and write must do, so a store's author learns which promise a failure broke.
import type { CreateOutcome, TaskSnapshot, TaskWrite } from "../store.ts";
import { equal, includes, ok } from "./assert.ts";
import { kitTest, type KitCase, type TaskStoreKitOptions } from "./kit.ts";
import { asJson, connectStandIns, finalJson, freshId, snapshot } from "./stand-in.ts";
import { cancelled } from "../logic/task-events.ts";

export function contractCases(kit: TaskStoreKitOptions, shared: boolean): void {
  const test = (name: string, body: (c: KitCase) => Promise<void>) => kitTest(kit, shared, name, body);
  const connected = connectStandIns;

  test("create adds a task that every instance reads, for its owner only, with its origin", async (c) => {
    const { stores, standIns } = await connected(c, { max: 10 });
    const id = freshId();
    const at = standIns[0]!.clock.now;
    const origin = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
    const first = snapshot(id, "working", at, at, { statusMessage: "Queued" });
    equal(await stores[0]!.create({ id, owner: "salice", expiresAt: at + 60_000, snapshot: first, origin }), "created", "create");
    for (const [i, store] of stores.entries()) {
      const task = await store.read(id, "salice");
      ok(task && task.json === undefined, `instance ${i} reads the live task`);
      equal(asJson(task!.snapshot), asJson(first), `instance ${i}: the snapshot as written`);
      equal([task!.version, task!.expiresAt, task!.workerAlive], [1, at + 60_000, true], `instance ${i}: version, expiry, worker`);
      equal(task!.origin, origin, `instance ${i}: the origin`);
      equal(await store.read(id, "sbob"), undefined, `instance ${i}: another owner reads nothing`);
      equal(await store.read(freshId(), "salice"), undefined, `instance ${i}: an unknown id reads nothing`);
    }
    let threw = false;
    try {
      await stores[stores.length - 1]!.create({ id, owner: "sbob", expiresAt: at + 60_000, snapshot: first });
    } catch {
      threw = true;
    }
    ok(threw, "create throws for an id already in use");
    equal(await stores[0]!.read(id, "sbob"), undefined, "the refused create changed nothing");
  });

  test("write is a compare-and-set on the version, and a finished task keeps its JSON and its origin", async (c) => {
    const { stores, standIns } = await connected(c, { max: 10 });
    const id = freshId();
    const at = standIns[0]!.clock.now;
    const origin = { traceparent: "00-1-2-01" };
    await stores[0]!.create({ id, owner: "", expiresAt: at + 60_000, snapshot: snapshot(id, "working", at), origin });
    const last = stores[stores.length - 1]!;
    const parked = snapshot(id, "input_required", at, at + 1, { inputRequests: { q: { method: "roots/list" } }, inputKeys: { q: "q" }, issuedKeys: ["q"] });
    const write = (version: number, next: TaskSnapshot, json?: string): TaskWrite => ({ version, snapshot: next, statusChanged: true, json, event: cancelled(at + 1) });
    equal(await last.write(id, write(3, parked)), "conflict", "a write that skips a version");
    equal(await last.write(id, write(2, parked)), "written", "the next version");
    equal(await stores[0]!.write(id, write(2, parked)), "conflict", "the same version again");
    for (const store of stores) includes(await store.read(id, ""), { version: 2, snapshot: asJson(parked) as Record<string, unknown> }, "read after the write");
    const json = finalJson(id, "cancelled", at);
    equal(await stores[0]!.write(id, write(3, snapshot(id, "cancelled", at, at + 2), json)), "written", "the final write");
    for (const store of stores) equal(await store.read(id, ""), { expiresAt: at + 60_000, status: "cancelled", json, origin }, "a finished task as read");
    const after = await last.write(id, write(4, snapshot(id, "working", at, at + 3)));
    ok(after !== "written", "a finished task takes no more writes");
    equal(await last.write(freshId(), write(2, parked)), "gone", "a write to an unknown task");
  });

  test("create holds max and maxPerOwner across instances at the same moment, and counts no expired task", async (c) => {
    const { stores, standIns } = await connected(c, { max: 3, maxPerOwner: 2 });
    const at = standIns[0]!.clock.now;
    const make = (i: number, owner: string, ttl: number) => {
      const id = freshId();
      return stores[i % stores.length]!.create({ id, owner, expiresAt: at + ttl, snapshot: snapshot(id, "working", at, at, { ttlMs: ttl }) });
    };
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => make(i, "sgreedy", 1000)));
    const count = (all: CreateOutcome[], outcome: CreateOutcome) => all.filter((o) => o === outcome).length;
    equal([count(outcomes, "created"), count(outcomes, "owner-full")], [2, 6], `one owner's creations: ${outcomes.join(", ")}`);
    equal(await make(0, "sother", 60_000), "created", "another owner");
    equal(await make(1, "sthird", 60_000), "full", "past max");
    for (const s of standIns) s.clock.now = at + 1000;
    equal(await make(0, "sthird", 60_000), "created", "an expired task no longer counts");
    equal(await make(1, "sgreedy", 60_000), "created", "nor against its owner's cap");
  });

  if (!shared) return;

  test("a read with listen makes every later change reach that instance's feed, made here or away from the worker", async (c) => {
    const { stores, standIns } = await connected(c, { max: 10 });
    ok(stores.length >= 2, "a shared store's kit opens two instances or more");
    const [worker, listener] = [stores[0]!, stores[1]!];
    const heard = standIns[1]!.heard;
    const id = freshId();
    const at = standIns[0]!.clock.now;
    await worker.create({ id, owner: "", expiresAt: at + 60_000, snapshot: snapshot(id, "working", at) });
    ok(await listener.read(id, "", true), "the listen read finds the task");
    const parked = snapshot(id, "input_required", at, at + 1, { inputRequests: { q: { method: "roots/list" } }, inputKeys: { q: "q" }, issuedKeys: ["q"] });
    // Made where the task runs: no event, yet a listener elsewhere hears of it.
    equal(await worker.write(id, { version: 2, snapshot: parked, statusChanged: true }), "written");
    await c.until(() => ok(heard.some((h) => h.id === id && h.version === 2), "the listener heard version 2"));
    includes(heard.find((h) => h.version === 2), { id, version: 2, status: "input_required", snapshot: asJson(parked) as Record<string, unknown> });
    equal(heard.find((h) => h.version === 2)!.event, undefined, "a change made where the task runs carries no event");
    // Made elsewhere: with the event, for the worker's actor (the listener hears it too).
    const finished = snapshot(id, "cancelled", at, at + 2);
    const json = finalJson(id, "cancelled", at);
    equal(await listener.write(id, { version: 3, snapshot: finished, statusChanged: true, json, event: cancelled(at + 2) }), "written");
    await c.until(() => ok(standIns[0]!.heard.some((h) => h.id === id && h.version === 3), "the worker heard version 3"));
    includes(standIns[0]!.heard.find((h) => h.version === 3), { id, status: "cancelled", event: cancelled(at + 2) });
  });

  test("leases: create takes this instance's lease, renew extends it", async (c) => {
    const { stores, standIns } = await connected(c, { max: 10 });
    ok(typeof stores[0]!.renew === "function" && typeof stores[0]!.leaseMs === "number", "a shared store has leaseMs and renew()");
    const id = freshId();
    const at = standIns[0]!.clock.now;
    await stores[0]!.create({ id, owner: "", expiresAt: at + 60_000, snapshot: snapshot(id, "working", at) });
    equal(await stores[0]!.renew!(), true, "renew after create");
    const seen = await stores[1]!.read(id, "");
    equal(seen?.json === undefined && seen?.workerAlive, true, "another instance sees the worker alive");
  });
}
