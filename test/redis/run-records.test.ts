// What only the Redis store promises of runs found by name (the task store kit checks the contract): the
// run record is sealed in Redis (no input or answer in the clear), a record changed there, moved to another
// task or sealed under another secret is refused, never run; runs need `secret`; a lease taken afresh
// never revives an old hold; and everything of a task with a run goes with it at its TTL.
import { randomUUID } from "node:crypto";
import { createClient } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { redisTaskStore, type RedisTaskStore, type RedisTaskStoreOptions } from "../../src/tasks/redis/index.ts";
import type { TaskEvent } from "../../machines/task.machine.ts";
import type { TaskRunRecord } from "../../src/tasks/store.ts";
import { freshId, snapshot, standIn } from "../../src/tasks/testing/stand-in.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { until } from "../helpers/wait.ts";

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());
const opened: RedisTaskStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** Instances of one logical server on a fresh prefix, each connected to a stand-in runtime with runs. */
function instances(n: number, options: Omit<RedisTaskStoreOptions, "url"> = {}) {
  const prefix = options.prefix ?? `runs-${randomUUID().slice(0, 8)}`;
  return Array.from({ length: n }, () => {
    const store = redisTaskStore({ url: redis.url, secret: "first-secret", leaseMs: 1000, ...options, prefix });
    opened.push(store);
    store.connect(standIn({ max: 100 }, true).runtime);
    return store;
  });
}

const record: TaskRunRecord = {
  name: "durable_steps",
  version: 1,
  input: { steps: 3, secretWord: "swordfish" },
  answers: { first: { action: "accept", content: { value: "my-private-answer" } } },
  client: { elicitation: { form: {} } },
};

async function create(store: RedisTaskStore, options: { ttlMs?: number; run?: TaskRunRecord } = {}) {
  const id = freshId();
  const at = Date.now();
  const ttlMs = options.ttlMs ?? 60_000;
  const created = await store.create({ id, owner: "", expiresAt: at + ttlMs, snapshot: snapshot(id, "working", at, at, { ttlMs }), run: options.run ?? record });
  expect(created).toBe("created");
  return id;
}

describe("run records in Redis", () => {
  it("are sealed: Redis holds neither the input nor the answers in the clear, only the run's name and version", async () => {
    const [a] = instances(1);
    const id = await create(a!);
    const key = `${a!.keyPrefix}task:${id}`;
    const sealed = await redis.cli("HGET", key, "r");
    expect(sealed).toMatch(/^1\.[A-Za-z0-9+/=]+$/);
    const dump = await redis.cli("HGETALL", key);
    for (const secret of ["swordfish", "secretWord", "my-private-answer", "elicitation"]) expect(dump).not.toContain(secret);
    expect(await redis.cli("HGET", key, "rn")).toBe("durable_steps");
    await expect(a!.loadRun(id)).resolves.toEqual({ outcome: "loaded", record });
  });

  it("a record changed in Redis, moved from another task, or sealed under another secret is refused, never given back", async () => {
    const [a, other] = [...instances(1), ...instances(1, { secret: "another-secret" })];
    const id = await create(a!);
    const key = `${a!.keyPrefix}task:${id}`;
    const sealed = await redis.cli("HGET", key, "r");
    const bytes = Buffer.from(sealed.slice(2), "base64");
    bytes[bytes.length - 20]! ^= 1;
    await redis.cli("HSET", key, "r", `1.${bytes.toString("base64")}`);
    const tampered = await a!.loadRun(id);
    expect(tampered).toMatchObject({ outcome: "refused", reason: expect.stringMatching(/failed authentication/) });
    expect(JSON.stringify(tampered)).not.toContain("swordfish");

    // Sealed for another task: valid under the secret, but bound to the task it was sealed for.
    const donor = await create(a!, { run: { ...record, input: { other: true } } });
    await redis.cli("HSET", key, "r", await redis.cli("HGET", `${a!.keyPrefix}task:${donor}`, "r"));
    await expect(a!.loadRun(id)).resolves.toMatchObject({ outcome: "refused" });
    await redis.cli("HSET", key, "r", "not a sealed record");
    await expect(a!.loadRun(id)).resolves.toMatchObject({ outcome: "refused", reason: expect.stringMatching(/not in a form/) });

    // Another secret (its own prefix, the same record copied over): refused.
    const foreign = await create(other!);
    await redis.cli("HSET", `${other!.keyPrefix}task:${foreign}`, "r", sealed);
    await expect(other!.loadRun(foreign)).resolves.toMatchObject({ outcome: "refused" });
  });

  it("need `secret`: a store without one refuses runs at connect and at creation, naming the option", async () => {
    const store = redisTaskStore({ url: redis.url, prefix: `runs-${randomUUID().slice(0, 8)}` });
    opened.push(store);
    expect(() => store.connect(standIn({ max: 10 }, true).runtime)).toThrow(/`secret`.*MCP_TASKS_SECRET/s);
    const closures = redisTaskStore({ url: redis.url, prefix: `runs-${randomUUID().slice(0, 8)}` });
    opened.push(closures);
    const runtime = standIn({ max: 10 }).runtime;
    closures.connect({ ...runtime, bound: false });
    const id = freshId();
    const at = Date.now();
    await expect(closures.create({ id, owner: "", expiresAt: at + 60_000, snapshot: snapshot(id, "working", at), run: record })).rejects.toThrow(/`secret`/);
    expect(await redis.cli("EXISTS", `${closures.keyPrefix}task:${id}`)).toBe("0");
  });
});

describe("the snapshot and the changes of a task with a run", () => {
  it("are sealed in Redis and on the change channel, and read back whole by every instance", async () => {
    const prefix = `runs-${randomUUID().slice(0, 8)}`;
    const [a, b] = instances(2, { prefix });
    const listener = standIn({ max: 10 }, true);
    const c = redisTaskStore({ url: redis.url, secret: "first-secret", prefix, leaseMs: 1000 });
    opened.push(c);
    c.connect(listener.runtime);
    const raw: string[] = [];
    const sub = createClient({ url: redis.url });
    await sub.connect();
    await sub.subscribe(`{${prefix}}:changes`, (message) => void raw.push(message));
    try {
      const id = freshId();
      const at = Date.now();
      const first = snapshot(id, "working", at, at, { attempt: 1 });
      await a!.create({ id, owner: "", expiresAt: at + 60_000, snapshot: first, run: record });
      const answered = snapshot(id, "working", at, at + 1, { attempt: 1, answers: { first: { action: "accept", content: { value: "my-private-answer" } } } });
      const event: TaskEvent = { type: "input.answer", responses: { first: { action: "accept", content: { value: "my-private-answer" } } }, at: at + 1 };
      await until(async () => {
        expect(await c.read(id, "", true)).toBeDefined();
        const version = ((await b!.read(id, "")) as { version: number }).version;
        await expect(b!.write(id, { version: version + 1, snapshot: { ...answered }, statusChanged: true, event })).resolves.toBe("written");
        expect(listener.heard.some((h) => h.id === id)).toBe(true);
      });
      const heard = listener.heard.find((h) => h.id === id)!;
      expect(heard.event).toEqual(event);
      expect(heard.snapshot).toEqual(JSON.parse(JSON.stringify(answered)));
      expect(raw.length).toBeGreaterThan(0);
      for (const message of raw) expect(message).not.toContain("my-private-answer");
      const stored = await redis.cli("HGET", `${a!.keyPrefix}task:${id}`, "s");
      expect(stored.startsWith("1.")).toBe(true);
      expect(stored).not.toContain("my-private-answer");
      expect(((await a!.read(id, "")) as { snapshot: unknown }).snapshot).toEqual(JSON.parse(JSON.stringify(answered)));

      // A sealed snapshot changed in Redis is refused with a clear error, never read.
      const bytes = Buffer.from(stored.slice(2), "base64");
      bytes[bytes.length - 20]! ^= 1;
      await redis.cli("HSET", `${a!.keyPrefix}task:${id}`, "s", `1.${bytes.toString("base64")}`);
      await expect(a!.read(id, "")).rejects.toThrow(/cannot be read by this server: its snapshot failed authentication/);
    } finally {
      await sub.quit();
    }
  });

  it("are in the clear while they hold nothing of the run's or a client's, and a snapshot put there in the clear cannot ask or answer", async () => {
    const [a] = instances(1);
    const id = freshId();
    const at = Date.now();
    await a!.create({ id, owner: "", expiresAt: at + 60_000, snapshot: snapshot(id, "working", at, at, { attempt: 1 }), run: record });
    const key = `${a!.keyPrefix}task:${id}`;
    const fresh = await redis.cli("HGET", key, "s");
    // A new task's snapshot holds its id, times and attempt, which Redis holds in the clear anyway.
    expect(JSON.parse(fresh)).toMatchObject({ value: "working", context: { taskId: id, attempt: 1, inputRequests: {}, answers: {} } });
    expect(((await a!.read(id, "")) as { snapshot: unknown }).snapshot).toEqual(JSON.parse(fresh));

    // A status message is the run's: sealed from then on.
    const said = snapshot(id, "working", at, at + 1, { attempt: 1, statusMessage: "my-private-status" });
    await expect(a!.write(id, { version: 2, snapshot: said, statusChanged: false, fence: { attempt: 1 } })).resolves.toBe("written");
    const sealed = await redis.cli("HGET", key, "s");
    expect(sealed.startsWith("1.")).toBe(true);
    expect(sealed).not.toContain("my-private-status");

    // Questions, answers or a status message put there in the clear (by anyone but a server) are refused, never read.
    const question = { method: "elicitation/create", params: { message: "Your password?", requestedSchema: { type: "object", properties: {} } } };
    for (const planted of [{ inputRequests: { q: question }, inputKeys: { q: "q" } }, { answers: { first: { action: "accept" } } }, { statusMessage: "planted" }]) {
      const forged = JSON.parse(fresh);
      Object.assign(forged.context, planted);
      await redis.cli("HSET", key, "s", JSON.stringify({ ...forged, value: "inputRequests" in planted ? "input_required" : "working" }));
      await expect(a!.read(id, "")).rejects.toThrow(`Task ${id} cannot be read by this server: its snapshot holds what is sealed, in the clear`);
    }
  });
});

describe("holds in Redis", () => {
  it("a lease that lapsed and is taken afresh does not revive the old hold: the old attempt stays fenced, its task claimable", async () => {
    const [a, b] = instances(2);
    const id = await create(a!);
    await redis.cli("DEL", a!.leaseKey);
    // A new task takes a's lease afresh, as a process waking from a pause would.
    await create(a!, { run: { ...record, name: "other_run" } });
    expect(await redis.cli("EXISTS", a!.leaseKey)).toBe("1");
    const at = Date.now();
    const write = { version: 2, snapshot: snapshot(id, "working", at, at + 1), statusChanged: false, fence: { attempt: 1 } };
    await expect(a!.write(id, write)).resolves.toBe("fenced");
    await expect(a!.saveRun(id, record, { attempt: 1 })).resolves.toBe("fenced");
    expect((await b!.claimable(["durable_steps"], 10)).map((t) => t.id)).toEqual([id]);
    await expect(b!.claim(id)).resolves.toEqual({ outcome: "claimed", attempt: 2 });
    await expect(b!.write(id, { ...write, fence: { attempt: 2 } })).resolves.toBe("written");
  });

  it("a hand-off reaches the other instances' feeds through the change channel", async () => {
    const prefix = `runs-${randomUUID().slice(0, 8)}`;
    const [a] = instances(1, { prefix });
    const listener = redisTaskStore({ url: redis.url, secret: "first-secret", prefix });
    opened.push(listener);
    const heard = standIn({ max: 10 }, true);
    listener.connect(heard.runtime);
    const id = await create(a!);
    // Released and claimed back in turn until the subscriber (connecting meanwhile) hears a release.
    await until(async () => {
      const task = await a!.read(id, "");
      const hold = task?.json === undefined ? task?.hold : undefined;
      if (!hold) throw new Error("the task is live, with a hold");
      if (hold.released) await a!.claim(id);
      else await a!.release(id, { attempt: hold.attempt });
      expect(heard.released.length).toBeGreaterThan(0);
    });
    expect(heard.released[0]).toEqual({ id, name: "durable_steps" });
  });

  it("everything of a task with a run goes with it at its TTL: the record, its place among the claimable and the held", async () => {
    const [a] = instances(1);
    const held = await create(a!, { ttlMs: 300 });
    const released = await create(a!, { ttlMs: 300 });
    await a!.release(released, { attempt: 1 });
    const keys = async () => (await redis.cli("KEYS", `${a!.keyPrefix}*`)).split("\n").filter(Boolean).sort();
    expect(await keys()).toEqual(
      expect.arrayContaining([`${a!.keyPrefix}task:${held}`, `${a!.keyPrefix}task:${released}`, `${a!.keyPrefix}runs:durable_steps`, `${a!.keyPrefix}held:${a!.workerId}`]),
    );
    // The lease and the instances set are this instance's, not the tasks': they go when it holds nothing.
    await until(async () => expect((await keys()).filter((key) => ![a!.leaseKey, `${a!.keyPrefix}instances`, `${a!.keyPrefix}tasks`].includes(key))).toEqual([]));
    await expect(a!.loadRun(held)).resolves.toEqual({ outcome: "gone" });
    await expect(a!.claimable(["durable_steps"], 10)).resolves.toEqual([]);
  });
});
