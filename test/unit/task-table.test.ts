import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TaskTable } from "../../src/tasks/task-table.ts";
import { memoryTaskStore } from "../../src/tasks/memory-store.ts";
import { getTaskResultJsonHead } from "../../src/tasks/kept-json.ts";
import type { NewTask, TaskFeed, TaskSnapshot } from "../../src/tasks/store.ts";

const CHUNK = 1 << 20;

describe("TaskTable", () => {
  it("gives back exactly what it was given, in any script", () => {
    const table = new TaskTable();
    const ids = ["a", "héllo", "日本語", "🧪-id", "x".repeat(300)];
    const texts = ['{"a":1}', '{"t":"héllo wörld"}', '{"t":"日本語のテキスト"}', '{"t":"🧪 emoji \\u0000 escapes"}', "{}"];
    const statuses = ["completed", "failed", "cancelled"] as const;
    ids.forEach((id, i) => table.add(id, `owner-${i}`, 1000 + i, { i }));
    expect(table.live(table.find(ids[1]!))).toEqual({ i: 1 });
    const origins = ['{"traceparent":"00-ab-cd-01"}', "", '{"é":"日本"}', "", '{"x":1}'];
    ids.forEach((id, i) => table.finish(table.find(id), statuses[i % 3]!, texts[i]!, origins[i]));
    ids.forEach((id, i) => {
      const p = table.find(id);
      expect(table.id(p)).toBe(id);
      expect(table.owner(p)).toBe(`owner-${i}`);
      expect(table.expiresAt(p)).toBe(1000 + i);
      expect(table.status(p)).toBe(statuses[i % 3]);
      expect(table.json(p)).toBe(texts[i]);
      expect(table.origin(p)).toBe(origins[i]);
      expect(table.live(p), "a finished task keeps no record").toBeUndefined();
    });
    expect(table.find("missing")).toBe(-1);
  });

  it("keeps a task running until it is finished", () => {
    const table = new TaskTable();
    table.add("t", "", Infinity, "record");
    expect(table.status(table.find("t"))).toBeUndefined();
    expect(table.live(table.find("t"))).toBe("record");
    expect(() => table.finish(table.find("t"), "working", "{}")).toThrow(TypeError);
  });

  it("drops from the front in creation order, across growth, and finds every other task still", () => {
    const table = new TaskTable();
    const ids = Array.from({ length: 1000 }, (_, i) => `task-${i}`);
    // Interleave adds and drops so the ring wraps before it grows.
    let dropped = 0;
    ids.forEach((id, i) => {
      table.add(id, i % 2 ? "odd" : "", i, i);
      if (i % 3 === 2) {
        expect(table.id(table.front())).toBe(ids[dropped]);
        table.dropFront();
        dropped++;
      }
    });
    expect(table.count).toBe(1000 - dropped);
    ids.forEach((id, i) => {
      const p = table.find(id);
      if (i < dropped) expect(p).toBe(-1);
      else {
        expect(table.id(p)).toBe(id);
        expect(table.expiresAt(p)).toBe(i);
        expect(table.live(p), "a live record follows its task across growth").toBe(i);
      }
    });
    while (table.front() !== -1) table.dropFront();
    expect(table.count).toBe(0);
    expect(table.owners).toBe(0);
    for (const id of ids) expect(table.find(id)).toBe(-1);
  });

  it("compares nothing but ids: colliding probe runs survive deletions in any order", () => {
    // Many ids in a small table make long probe runs; dropping from the front must not cut them.
    const table = new TaskTable();
    const ids = Array.from({ length: 60 }, (_, i) => String.fromCharCode(65 + (i % 26)) + i);
    for (const id of ids) table.add(id, "", 0, id);
    for (let k = 0; k < ids.length; k++) {
      table.dropFront();
      for (const [i, id] of ids.entries()) expect(table.find(id) !== -1, `${id} after ${k + 1} drops`).toBe(i > k);
    }
  });

  it("spreads bytes over chunks and frees a chunk once nothing in it is referenced", () => {
    const table = new TaskTable();
    const json = `{"pad":"${"x".repeat(10_000)}"}`;
    const n = 300;
    for (let i = 0; i < n; i++) {
      table.add(`id-${i}`, "", i, i);
      table.finish(table.find(`id-${i}`), "completed", json);
    }
    expect(table.externalBytes).toBeGreaterThan(2 * CHUNK);
    for (let i = 0; i < n; i++) expect(table.json(table.find(`id-${i}`))).toBe(json);
    const full = table.externalBytes;
    let freed = 0;
    for (let i = 0; i < n && table.externalBytes === full; i++, freed++) table.dropFront();
    expect(table.externalBytes, "the first chunk went with the last record in it").toBe(full - CHUNK);
    expect(freed).toBeGreaterThan(50);
    for (let i = freed; i < n; i++) expect(table.json(table.find(`id-${i}`))).toBe(json);
  });

  it("gives a large record a chunk of its own, and frees it with the record", () => {
    const table = new TaskTable();
    table.add("small", "", 0, 0);
    // A finished task's bytes open the shared chunk (a running task's id is on the heap).
    table.finish(table.find("small"), "completed", "{}");
    const before = table.externalBytes;
    const big = `{"big":"${"é".repeat(200_000)}"}`;
    table.add("big", "", 1, 1);
    table.finish(table.find("big"), "completed", big);
    expect(table.json(table.find("big"))).toBe(big);
    const grew = table.externalBytes - before;
    expect(grew).toBeGreaterThanOrEqual(Buffer.byteLength(big));
    expect(grew).toBeLessThan(Buffer.byteLength(big) + 1024);
    table.dropFront();
    table.dropFront();
    expect(table.externalBytes).toBeLessThanOrEqual(before);
    expect(table.externalBytes).toBeGreaterThan(CHUNK - 1);
  });

});

describe("the in-memory store over the table", () => {
  const snapshot = (id: string): TaskSnapshot => ({
    value: "working",
    context: { taskId: id, createdAt: 0, lastUpdatedAt: 0, ttlMs: 1000, pollIntervalMs: 1000, inputRequests: {}, inputKeys: {}, issuedKeys: [], answers: {} },
  });
  /** A store connected to a stand-in runtime that records which live tasks the store said expired. */
  const connected = (limits: { max: number; maxPerOwner?: number }, now: () => number) => {
    const store = memoryTaskStore();
    const expired: string[] = [];
    const feed: TaskFeed = { wants: () => false, changed: () => {}, expired: (id) => expired.push(id), missed: () => {} };
    store.connect({ now, limits: { max: limits.max, maxPerOwner: limits.maxPerOwner ?? Infinity }, bound: true, feed });
    return { store, expired };
  };
  const task = (id: string, owner: string, expiresAt: number, origin?: Record<string, unknown>): NewTask => ({ id, owner, expiresAt, snapshot: snapshot(id), origin });
  const finish = (id: string, json: string) => ({ version: 2, snapshot: { ...snapshot(id), value: "completed" as const }, statusChanged: true, json });

  it("compares owner keys exactly, running or finished, and keeps the origin", () => {
    const { store } = connected({ max: 10 }, () => 0);
    expect(store.create(task("a", "salice", Infinity, { traceparent: "00-1-2-01" }))).toBe("created");
    expect(store.read("a", "salice")).toMatchObject({ version: 1, expiresAt: Infinity, workerAlive: true, origin: { traceparent: "00-1-2-01" } });
    expect(store.read("a", "sbob")).toBeUndefined();
    expect(store.write("a", finish("a", "{}"))).toBe("written");
    expect(store.read("a", "salice")).toEqual({ expiresAt: Infinity, status: "completed", json: "{}", origin: { traceparent: "00-1-2-01" } });
    expect(store.read("a", "")).toBeUndefined();
    expect(() => store.create(task("a", "", Infinity))).toThrow(/already in use/);
  });

  it("gives a finished task's tasks/get JSON back whole (its head, which repeats the id, is not kept), and JSON of another shape as it was", () => {
    const { store } = connected({ max: 10 }, () => 0);
    const id = "3f6c1d2e-0a4b-4c8d-9e7f-112233445566";
    const json = `${getTaskResultJsonHead(id)},"status":"completed","result":{"content":[],"resultType":"complete"}}`;
    store.create(task(id, "", Infinity));
    store.write(id, finish(id, json));
    expect(store.read(id, "")).toMatchObject({ status: "completed", json });
    store.create(task("other", "", Infinity));
    store.write("other", finish("other", '{"taskId":"other"}'));
    expect(store.read("other", "")).toMatchObject({ json: '{"taskId":"other"}' });
  });

  it("writes by compare-and-set: the next version only, nothing after the end", () => {
    const { store } = connected({ max: 10 }, () => 0);
    store.create(task("a", "", Infinity));
    const next = { version: 2, snapshot: { ...snapshot("a"), value: "input_required" as const }, statusChanged: true };
    expect(store.write("a", { ...next, version: 3 })).toBe("conflict");
    expect(store.write("a", next)).toBe("written");
    expect(store.write("a", next)).toBe("conflict");
    expect(store.write("a", { ...finish("a", "{}"), version: 3 })).toBe("written");
    expect(store.write("a", { ...finish("a", "{}"), version: 4 })).toBe("conflict");
    expect(store.write("nope", next)).toBe("gone");
  });

  it("refuses past max and past maxPerOwner, counting only what has not expired, and tells wouldCreate the same", () => {
    let now = 0;
    const { store, expired } = connected({ max: 3, maxPerOwner: 2 }, () => now);
    expect(store.create(task("a1", "a", 100))).toBe("created");
    expect(store.create(task("a2", "a", 200))).toBe("created");
    expect(store.wouldCreate("a")).toBe("owner-full");
    expect(store.create(task("a3", "a", 200))).toBe("owner-full");
    expect(store.wouldCreate("b")).toBe("created");
    expect(store.create(task("b1", "b", 300))).toBe("created");
    expect(store.create(task("b2", "b", 300))).toBe("full");
    now = 100;
    expect(expired).toEqual([]);
    expect(store.wouldCreate("a")).toBe("created");
    expect(expired, "the live task that expired is ended through the runtime first").toEqual(["a1"]);
    expect(store.create(task("a3", "a", 400))).toBe("created");
  });

  type Op =
    | { op: "create"; owner: number }
    | { op: "finish"; pick: number; text: string; status: "completed" | "failed" | "cancelled" }
    | { op: "get"; pick: number; owner: number }
    | { op: "advance"; ms: number };

  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ op: fc.constant("create" as const), owner: fc.integer({ min: 0, max: 2 }) }),
    fc.record({
      op: fc.constant("finish" as const),
      pick: fc.nat(),
      text: fc.string({ unit: "binary", maxLength: 40 }),
      status: fc.constantFrom("completed" as const, "failed" as const, "cancelled" as const),
    }),
    fc.record({ op: fc.constant("get" as const), pick: fc.nat(), owner: fc.integer({ min: 0, max: 2 }) }),
    fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 400 }) }),
  );
  const OWNERS = ["", "salice", 'j{"user":"bob"}'];

  it("answers like a plain map with expiry and caps, whatever the order of creates, finishes, reads and clock steps", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), fc.integer({ min: 3, max: 40 }), fc.integer({ min: 1, max: 40 }), (ops, max, maxPerOwner) => {
        let now = 0;
        const ttl = 1000;
        const { store } = connected({ max, maxPerOwner }, () => now);
        const model = new Map<string, { owner: string; expiresAt: number; final?: { status: string; json: string } }>();
        const ids: string[] = [];
        for (const step of ops) {
          for (const [id, t] of model) if (t.expiresAt <= now) model.delete(id);
          if (step.op === "create") {
            const id = `t${ids.length}`;
            const owner = OWNERS[step.owner]!;
            const held = [...model.values()].filter((t) => t.owner === owner).length;
            const created = store.create(task(id, owner, now + ttl));
            expect(created).toBe(model.size >= max ? "full" : held >= maxPerOwner ? "owner-full" : "created");
            if (created === "created") {
              ids.push(id);
              model.set(id, { owner, expiresAt: now + ttl });
            }
          } else if (step.op === "finish" && ids.length) {
            const id = ids[step.pick % ids.length]!;
            const t = model.get(id);
            if (t && !t.final) {
              const json = JSON.stringify({ text: step.text });
              expect(store.write(id, { ...finish(id, json), snapshot: { ...snapshot(id), value: step.status } })).toBe("written");
              t.final = { status: step.status, json };
            }
          } else if (step.op === "get" && ids.length) {
            const id = ids[step.pick % ids.length]!;
            const owner = OWNERS[step.owner]!;
            const t = model.get(id);
            const got = store.read(id, owner);
            if (!t || t.owner !== owner) expect(got).toBeUndefined();
            else if (t.final) expect(got).toEqual({ expiresAt: t.expiresAt, status: t.final.status, json: t.final.json, origin: undefined });
            else expect(got).toMatchObject({ version: 1, expiresAt: t.expiresAt });
          } else if (step.op === "advance") now += step.ms;
        }
        expect(store.size).toBe([...model.values()].filter((t) => t.expiresAt > now).length);
        now += ttl;
        store.sweep();
        expect(store.size).toBe(0);
        // Only the current chunk and the (grown) typed arrays remain.
        expect(store.externalBytes).toBeLessThanOrEqual(CHUNK + 64 * 1024);
      }),
      { numRuns: 300 },
    );
  });
});
