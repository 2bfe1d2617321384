// Runs found by name, on the stores directly: a task created with its run record, claims (exactly one
// wins each attempt), hand-offs (release, and the feeds told), fencing (an attempt that no longer holds
// the task writes nothing), attempts counted, a cancel while released, and the kept record (checkpoint,
// answers). A store that declares no runs is checked to have none of these methods.
import type { TaskRunRecord, TaskStore, TaskWrite } from "../store.ts";
import { equal, includes, ok } from "./assert.ts";
import { kitTest, type KitCase, type TaskStoreKitOptions } from "./kit.ts";
import { asJson, connectStandIns, finalJson, freshId, snapshot } from "./stand-in.ts";
import { cancelled } from "../logic/task-events.ts";

const RUN_METHODS = ["claim", "release", "claimable", "readHeld", "loadRun", "saveRun"] as const;

/** A run record as the runtime keeps it: a run's name and version, its input and the creating client's capabilities. */
const record = (name: string, extra: Partial<TaskRunRecord> = {}): TaskRunRecord => ({
  name,
  version: 2,
  input: { steps: 3, note: "ünïcode ✓" },
  client: { elicitation: { form: {} } },
  ...extra,
});

/** A fresh run name per case: `claimable` then lists only this case's tasks. */
const runName = () => `run_${freshId().slice(-8)}`;

export function durableCases(kit: TaskStoreKitOptions, shared: boolean): void {
  const test = (name: string, body: (c: KitCase) => Promise<void>) => kitTest(kit, shared, name, body);

  if (!kit.runs) {
    test("a store that keeps no runs found by name has none of their methods (it serves closures only)", async (c) => {
      for (const store of await c.stores()) {
        for (const method of RUN_METHODS) equal(typeof store[method], "undefined", `the kit was told runs: false, yet the store has ${method}()`);
      }
    });
    return;
  }

  /** Stores connected to stand-ins that have runs, each checked to have every method of runs found by name. */
  const connected = async (c: KitCase) => {
    const { stores, standIns } = await connectStandIns(c, { max: 100 }, true);
    for (const store of stores) for (const method of RUN_METHODS) equal(typeof store[method], "function", `a store with runs has ${method}()`);
    const at = standIns[0]!.clock.now;
    /** Creates a task of run `name` on `store`: held by that instance as attempt 1, or released. */
    const create = async (store: TaskStore, name: string, released = false, run = record(name), owner = "") => {
      const id = freshId();
      equal(await store.create({ id, owner, expiresAt: at + 60_000, snapshot: snapshot(id, "working", at), run, released }), "created", "create");
      return id;
    };
    return { stores, standIns, at, create, all: <T>(each: (store: TaskStore, i: number) => Promise<T> | T) => Promise.all(stores.map(each)) };
  };
  /** A run's own write of the next version (fenced by `attempt`), or a client's change (no fence). */
  const change = (id: string, at: number, version: number, attempt?: number, json?: string): TaskWrite => ({
    version,
    // A task with a run carries its attempt in its snapshot, as the chart keeps it.
    snapshot: snapshot(id, json ? "cancelled" : "working", at, at + version, { statusMessage: `v${version}`, attempt: attempt ?? 1 }),
    statusChanged: json !== undefined,
    json,
    ...(attempt === undefined ? { event: cancelled(at + version) } : { fence: { attempt } }),
  });

  test("a task created with its run record is held by attempt 1, and every instance loads the record", async (c) => {
    const { stores, create, all } = await connected(c);
    const name = runName();
    const id = await create(stores[0]!, name);
    await all(async (store, i) => {
      const task = await store.read(id, "");
      ok(task && task.json === undefined, `instance ${i} reads the live task`);
      includes(task!, { workerAlive: true, hold: { name, version: 2, attempt: 1, released: false } }, `instance ${i}: the hold`);
      equal(task!.hold!.waitingSince, undefined, `instance ${i}: a held task waits for nothing`);
      equal(await store.loadRun!(id), { outcome: "loaded", record: record(name) }, `instance ${i}: the record as kept`);
      equal(await store.claimable!([name], 10), [], `instance ${i}: a held task is not claimable`);
      includes((await store.claim!(id)) as Record<string, unknown>, { outcome: "taken" }, `instance ${i}: claiming a held task`);
    });
    const taken = await stores[stores.length - 1]!.claim!(id);
    ok(taken.outcome === "taken" && taken.retryInMs > 0, `a taken claim says when to try again: ${JSON.stringify(taken)}`);
    equal(await stores[0]!.loadRun!(freshId()), { outcome: "gone" }, "loading the run of an unknown task");
    // The runtime's own read of a task it claimed: whoever owns it.
    const owned = await create(stores[0]!, name, false, record(name, { owner: "salice" }), "salice");
    await all(async (store, i) => {
      equal(await store.read(owned, "sbob"), undefined, `instance ${i}: another owner reads nothing`);
      equal(asJson(await store.readHeld!(owned)), asJson(await store.read(owned, "salice")), `instance ${i}: readHeld reads it as its owner does`);
      equal(await store.readHeld!(freshId()), undefined, `instance ${i}: readHeld of an unknown task`);
    });
    equal(await stores[0]!.loadRun!(owned), { outcome: "loaded", record: record(name, { owner: "salice" }) }, "the owner key kept with the record");
    equal(await stores[0]!.claim!(freshId()), { outcome: "gone" }, "claiming an unknown task");
  });

  test("of claims racing for a released task, exactly one wins attempt 1", async (c) => {
    const { stores, create, all } = await connected(c);
    const name = runName();
    const id = await create(stores[0]!, name, true);
    await all(async (store, i) => includes((await store.read(id, ""))!, { workerAlive: true, hold: { name, attempt: 0, released: true } }, `instance ${i}: released`));
    const listed = await stores[stores.length - 1]!.claimable!([name], 10);
    equal(listed.map(({ id, name, version, attempt }) => ({ id, name, version, attempt })), [{ id, name, version: 2, attempt: 0 }], "claimable lists it");
    ok(typeof listed[0]!.waitingSince === "number", "with the time since it waits");
    const outcomes = (await Promise.all(stores.flatMap((store) => [0, 1, 2].map(() => store.claim!(id))))).map((o) => o.outcome);
    equal([outcomes.filter((o) => o === "claimed").length, outcomes.filter((o) => o === "taken").length], [1, outcomes.length - 1], `one claim wins: ${outcomes.join(", ")}`);
    await all(async (store, i) => {
      includes((await store.read(id, ""))!, { hold: { attempt: 1, released: false } }, `instance ${i}: held by attempt 1`);
      equal(await store.claimable!([name], 10), [], `instance ${i}: no longer claimable`);
    });
  });

  test("release hands a task off at once: claimable on every instance, the feeds told, the next claim is attempt 2", async (c) => {
    const { stores, standIns, create, all } = await connected(c);
    const [name, other] = [runName(), runName()];
    const id = await create(stores[0]!, name);
    // Round trips on every instance first, so a shared store's subscriptions are under way.
    await all((store) => store.read(id, ""));
    equal(await stores[0]!.release!(id, { attempt: 1 }), "written", "the holder releases");
    await all(async (store, i) => {
      includes((await store.read(id, ""))!, { workerAlive: true, hold: { attempt: 1, released: true } }, `instance ${i}: released`);
      equal((await store.claimable!([other, name], 10)).map((t) => t.id), [id], `instance ${i}: claimable by its run's name`);
      equal(await store.claimable!([other], 10), [], `instance ${i}: not under another name`);
    });
    const last = standIns.length - 1;
    await c.until(() => ok(standIns[last]!.released.some((r) => r.id === id && r.name === name), "the feed heard `released`, with the run's name"));
    equal(await stores[0]!.release!(id, { attempt: 1 }), "fenced", "releasing again: no attempt holds it");
    equal(await stores[last]!.claim!(id), { outcome: "claimed", attempt: 2 }, "the next claim is attempt 2");
    equal(await stores[last]!.release!(id, { attempt: 1 }), "fenced", "the old attempt cannot release the new one's hold");
    equal(await stores[0]!.release!(freshId(), { attempt: 1 }), "gone", "releasing an unknown task");
  });

  test("a write, a release or a saved record from an attempt that no longer holds the task is fenced, the task unchanged", async (c) => {
    const { stores, at, create, all } = await connected(c);
    const name = runName();
    const id = await create(stores[0]!, name);
    const last = stores[stores.length - 1]!;
    equal(await stores[0]!.write(id, change(id, at, 2, 1)), "written", "attempt 1 writes while it holds");
    equal(await stores[0]!.release!(id, { attempt: 1 }), "written", "attempt 1 hands off");
    equal(await stores[0]!.write(id, change(id, at, 3, 1)), "fenced", "attempt 1 writes after its release");
    equal(await last.claim!(id), { outcome: "claimed", attempt: 2 }, "attempt 2 claims");
    // The right version, the wrong attempt: the fence refuses what the version would let through.
    equal(await stores[0]!.write(id, change(id, at, 3, 1)), "fenced", "attempt 1 writes after attempt 2 claimed");
    equal(await stores[0]!.saveRun!(id, record(name, { checkpoint: { stale: true } }), { attempt: 1 }), "fenced", "attempt 1 saves its record");
    equal(await stores[0]!.write(id, change(id, at, 4, 3)), "fenced", "an attempt not claimed yet");
    await all(async (store, i) => {
      includes((await store.read(id, ""))!, { version: 2, snapshot: asJson(change(id, at, 2, 1).snapshot) as Record<string, unknown> }, `instance ${i}: unchanged`);
      equal(await store.loadRun!(id), { outcome: "loaded", record: record(name) }, `instance ${i}: the record unchanged`);
    });
    equal(await last.write(id, change(id, at, 3, 2)), "written", "attempt 2 writes");
    equal(await last.write(id, change(id, at, 3, 2)), "conflict", "the version still counts for the holder");
    equal(await stores[0]!.write(id, change(id, at, 4)), "written", "a client's change (no fence) is written whoever holds the task");
  });

  test("attempts are counted by the claims: each claim after a hand-off is the next one, on any instance", async (c) => {
    const { stores, create } = await connected(c);
    const name = runName();
    const id = await create(stores[0]!, name, true);
    for (let attempt = 1; attempt <= 4; attempt++) {
      const store = stores[attempt % stores.length]!;
      const listed = await store.claimable!([name], 10);
      equal(listed.map((t) => [t.id, t.attempt]), [[id, attempt - 1]], `before attempt ${attempt}: claimable, with the attempt that held it last`);
      equal(await store.claim!(id), { outcome: "claimed", attempt }, `attempt ${attempt} claimed`);
      equal(await store.release!(id, { attempt }), "written", `attempt ${attempt} released`);
    }
  });

  test("a task cancelled while released is never claimed again, and its record goes", async (c) => {
    const { stores, at, create, all } = await connected(c);
    const name = runName();
    const id = await create(stores[0]!, name);
    equal(await stores[0]!.release!(id, { attempt: 1 }), "written", "handed off");
    const last = stores[stores.length - 1]!;
    equal(await last.write(id, change(id, at, 2, undefined, finalJson(id, "cancelled", at))), "written", "cancelled while released");
    await all(async (store, i) => {
      equal(await store.claimable!([name], 10), [], `instance ${i}: not claimable`);
      equal(await store.claim!(id), { outcome: "gone" }, `instance ${i}: claiming it`);
      equal(await store.loadRun!(id), { outcome: "gone" }, `instance ${i}: its record`);
      equal(await store.saveRun!(id, record(name), { attempt: 1 }), "gone", `instance ${i}: saving its record`);
      includes((await store.read(id, ""))!, { status: "cancelled" }, `instance ${i}: cancelled`);
    });
  });

  test("checkpoints and answers are kept with the task, for the next attempt on any instance", async (c) => {
    const { stores, create, all } = await connected(c);
    const name = runName();
    const id = await create(stores[0]!, name);
    const first = record(name, { checkpoint: { done: 1 }, answers: { first: { action: "accept", content: { value: "yes" } } } });
    equal(await stores[0]!.saveRun!(id, first, { attempt: 1 }), "written", "attempt 1 saves a checkpoint and an answer");
    await all(async (store, i) => equal(await store.loadRun!(id), { outcome: "loaded", record: first }, `instance ${i}: kept`));
    equal(await stores[0]!.release!(id, { attempt: 1 }), "written", "handed off");
    const next = stores[stores.length - 1]!;
    equal(await next.claim!(id), { outcome: "claimed", attempt: 2 }, "attempt 2");
    equal(await next.loadRun!(id), { outcome: "loaded", record: first }, "attempt 2 starts from what attempt 1 kept");
    const second = { ...first, checkpoint: { done: 2 }, answers: { ...first.answers, second: { action: "accept", content: { value: "no" } } } };
    equal(await next.saveRun!(id, second, { attempt: 2 }), "written", "attempt 2 saves");
    await all(async (store, i) => equal(await store.loadRun!(id), { outcome: "loaded", record: second }, `instance ${i}: the latest`));
  });

  if (!shared || !kit.loseInstance) return;

  test("a holder whose instance is lost: its task is claimable on the others, and the next claim fences the lost attempt", async (c) => {
    const { stores, at, create } = await connected(c);
    ok(stores.length >= 2, "two instances or more");
    const name = runName();
    const id = await create(stores[0]!, name);
    await kit.loseInstance!(stores[0]!);
    const other = stores[1]!;
    const task = await other.read(id, "");
    ok(task && task.json === undefined, "the task is live");
    includes(task, { workerAlive: false, hold: { attempt: 1, released: false } }, "the lost holder reads as gone");
    ok(typeof task.hold?.waitingSince === "number", "and the task as waiting");
    equal((await other.claimable!([name], 10)).map((t) => [t.id, t.attempt]), [[id, 1]], "claimable");
    equal(await other.claim!(id), { outcome: "claimed", attempt: 2 }, "the next attempt");
    includes((await other.read(id, ""))!, { workerAlive: true, hold: { attempt: 2, released: false } }, "held by attempt 2");
    equal(await other.write(id, change(id, at, 2, 1)), "fenced", "a write of the lost attempt, made from anywhere");
  });
}
