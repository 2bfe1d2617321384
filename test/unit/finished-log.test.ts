import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FinishedLog, FinishedTask } from "../../src/tasks/finished-log.ts";
import { createTaskStore, type TaskEntry } from "../../src/tasks/store.ts";

const CHUNK = 1 << 20;
const record = (json: string, owner: unknown = undefined, expiresAt = Infinity, status: FinishedTask["status"] = "completed") =>
  new FinishedTask(owner, expiresAt, status, json);

describe("FinishedLog", () => {
  it("gives back exactly what it was given, in any script", () => {
    const log = new FinishedLog();
    const texts = ['{"a":1}', '{"t":"héllo wörld"}', '{"t":"日本語のテキスト"}', '{"t":"🧪 emoji \\u0000 escapes"}', "{}"];
    const statuses = ["completed", "failed", "cancelled"] as const;
    const slots = texts.map((json, i) => log.add(record(json, `owner-${i}`, 1000 + i, statuses[i % 3])));
    slots.forEach((slot, i) => {
      const task = log.read(slot);
      expect(task).toBeInstanceOf(FinishedTask);
      expect(task).toEqual(record(texts[i]!, `owner-${i}`, 1000 + i, statuses[i % 3]));
      expect(log.expiresAt(slot)).toBe(1000 + i);
    });
  });

  it("compares owners with ===", () => {
    const log = new FinishedLog();
    const alice = { user: "alice" };
    const a = log.add(record("{}", alice));
    const n = log.add(record("{}", NaN));
    const none = log.add(record("{}"));
    expect(log.ownedBy(a, alice)).toBe(true);
    expect(log.ownedBy(a, { user: "alice" })).toBe(false);
    expect(log.ownedBy(n, NaN)).toBe(false);
    expect(log.ownedBy(none, undefined)).toBe(true);
    expect(log.ownedBy(none, null)).toBe(false);
  });

  it("reuses slots and lets go of owners nobody refers to", () => {
    const log = new FinishedLog();
    const slots = Array.from({ length: 200 }, (_, i) => log.add(record(`{"i":${i}}`, `user-${i % 7}`)));
    expect(new Set(slots).size).toBe(200);
    expect(log.owners).toBe(7);
    for (const slot of slots.slice(0, 100)) log.remove(slot);
    const again = Array.from({ length: 100 }, (_, i) => log.add(record(`{"again":${i}}`)));
    expect(new Set([...again, ...slots.slice(100)]).size).toBe(200);
    for (const slot of slots.slice(100)) log.remove(slot);
    expect(log.owners).toBe(0);
    again.forEach((slot, i) => expect(log.read(slot).json).toBe(`{"again":${i}}`));
  });

  it("spreads records over chunks and frees a chunk once its last record goes", () => {
    const log = new FinishedLog();
    const json = `{"pad":"${"x".repeat(10_000)}"}`;
    const slots = Array.from({ length: 300 }, () => log.add(record(json)));
    // 300 records of ~10 KB need three 1 MiB chunks.
    expect(log.externalBytes).toBeGreaterThan(2 * CHUNK);
    for (const slot of slots) expect(log.read(slot).json).toBe(json);
    const full = log.externalBytes;
    const perChunk = Math.floor(CHUNK / json.length);
    for (const slot of slots.slice(0, perChunk - 1)) log.remove(slot);
    expect(log.externalBytes, "a chunk stays while one record is in it").toBe(full);
    log.remove(slots[perChunk - 1]!);
    expect(log.externalBytes, "the first chunk went with its last record").toBe(full - CHUNK);
    for (const slot of slots.slice(perChunk)) expect(log.read(slot).json).toBe(json);
  });

  it("gives a large record a chunk of its own, and frees it with the record", () => {
    const log = new FinishedLog();
    const small = log.add(record('{"small":true}'));
    const before = log.externalBytes;
    const big = `{"big":"${"é".repeat(200_000)}"}`;
    const slot = log.add(record(big));
    expect(log.read(slot).json).toBe(big);
    expect(log.externalBytes - before).toBe(new TextEncoder().encode(big).length);
    log.remove(slot);
    expect(log.externalBytes).toBe(before);
    // The shared chunk stays current: the next small record lands beside the first.
    const next = log.add(record('{"next":true}'));
    expect(log.externalBytes).toBe(before);
    expect(log.read(small).json).toBe('{"small":true}');
    expect(log.read(next).json).toBe('{"next":true}');
  });
});

describe("task store with finished tasks in the log", () => {
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
              store.finish(t.entry, step.status, json);
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
        expect(store.externalBytes).toBeLessThanOrEqual(CHUNK + 2048);
      }),
      { numRuns: 300 },
    );
  });
});
