import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TaskTable } from "../../src/tasks/task-table.ts";
import { createTaskStore, FinishedTask, type TaskEntry } from "../../src/tasks/store.ts";

const CHUNK = 1 << 20;

describe("TaskTable", () => {
  it("gives back exactly what it was given, in any script", () => {
    const table = new TaskTable();
    const ids = ["a", "héllo", "日本語", "🧪-id", "x".repeat(300)];
    const texts = ['{"a":1}', '{"t":"héllo wörld"}', '{"t":"日本語のテキスト"}', '{"t":"🧪 emoji \\u0000 escapes"}', "{}"];
    const statuses = ["completed", "failed", "cancelled"] as const;
    ids.forEach((id, i) => table.add(id, `owner-${i}`, 1000 + i));
    ids.forEach((id, i) => table.finish(table.find(id), statuses[i % 3]!, texts[i]!));
    ids.forEach((id, i) => {
      const p = table.find(id);
      expect(table.id(p)).toBe(id);
      expect(table.owner(p)).toBe(`owner-${i}`);
      expect(table.expiresAt(p)).toBe(1000 + i);
      expect(table.status(p)).toBe(statuses[i % 3]);
      expect(table.json(p)).toBe(texts[i]);
    });
    expect(table.find("missing")).toBe(-1);
  });

  it("keeps a task running until it is finished", () => {
    const table = new TaskTable();
    table.add("t", undefined, Infinity);
    expect(table.status(table.find("t"))).toBeUndefined();
    expect(() => table.finish(table.find("t"), "working", "{}")).toThrow(TypeError);
  });

  it("drops from the front in creation order, across growth, and finds every other task still", () => {
    const table = new TaskTable();
    const ids = Array.from({ length: 1000 }, (_, i) => `task-${i}`);
    // Interleave adds and drops so the ring wraps before it grows.
    let dropped = 0;
    ids.forEach((id, i) => {
      table.add(id, i % 2 ? "odd" : undefined, i);
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
    for (const id of ids) table.add(id, undefined, 0);
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
      table.add(`id-${i}`, undefined, i);
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
    table.add("small", undefined, 0);
    const before = table.externalBytes;
    const big = `{"big":"${"é".repeat(200_000)}"}`;
    table.add("big", undefined, 1);
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

describe("task store over the table", () => {
  it("compares owners with ===, running or finished", () => {
    const store = createTaskStore({ max: 10, now: () => 0, onExpire: () => {} });
    const alice = { user: "alice" };
    for (const [id, owner] of [["a", alice], ["n", NaN], ["z", 0]] as const) {
      const entry: TaskEntry = { id, owner, expiresAt: Infinity };
      store.create(entry);
      expect(store.get(id, owner)).toBe(id === "n" ? undefined : entry);
      store.finish(entry, "completed", () => "{}");
    }
    expect(store.get("a", alice)).toEqual(new FinishedTask(alice, Infinity, "completed", "{}"));
    expect(store.get("a", { user: "alice" })).toBeUndefined();
    expect(store.get("n", NaN)).toBeUndefined();
    expect(store.get("z", -0)).toBeDefined();
    expect(store.get("z", "0")).toBeUndefined();
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
  const OWNERS = [undefined, "alice", { user: "bob" }];

  it("answers like a plain map with expiry, whatever the order of creates, finishes, reads and clock steps", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), fc.integer({ min: 3, max: 40 }), (ops, max) => {
        let now = 0;
        const ttl = 1000;
        const store = createTaskStore({ max, now: () => now, onExpire: () => {} });
        const model = new Map<string, { owner: unknown; expiresAt: number; entry: TaskEntry; final?: { status: string; json: string } }>();
        const ids: string[] = [];
        for (const step of ops) {
          for (const [id, t] of model) if (t.expiresAt <= now) model.delete(id);
          if (step.op === "create") {
            const id = `t${ids.length}`;
            const entry: TaskEntry = { id, owner: OWNERS[step.owner], expiresAt: now + ttl };
            const created = store.create(entry);
            expect(created).toBe(model.size < max);
            if (created) {
              ids.push(id);
              model.set(id, { owner: entry.owner, expiresAt: entry.expiresAt, entry });
            }
          } else if (step.op === "finish" && ids.length) {
            const id = ids[step.pick % ids.length]!;
            const t = model.get(id);
            if (t && !t.final) {
              const json = JSON.stringify({ text: step.text });
              store.finish(t.entry, step.status, () => json);
              t.final = { status: step.status, json };
            }
          } else if (step.op === "get" && ids.length) {
            const id = ids[step.pick % ids.length]!;
            const owner = OWNERS[step.owner];
            const t = model.get(id);
            const got = store.get(id, owner);
            if (!t || t.owner !== owner) expect(got).toBeUndefined();
            else if (t.final) expect(got).toEqual(new FinishedTask(t.owner, t.expiresAt, t.final.status as never, t.final.json));
            else expect(got).toBe(t.entry);
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
