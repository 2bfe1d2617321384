// The finished tasks a Redis store instance remembers, so it can read them with a plain GET: bounded,
// the oldest forgotten first, and what it remembers is what it was told.
import { describe, expect, it } from "vitest";
import { FinishedTasks } from "../../src/tasks/redis/finished.ts";

const facts = (n: number) => ({ expiresAt: n, status: "completed" as const });

describe("FinishedTasks", () => {
  it("keeps at most max, forgetting the oldest first, over many times its size", () => {
    const known = new FinishedTasks(3);
    for (let i = 0; i < 10; i++) known.remember(`t${i}`, facts(i));
    expect(known.size).toBe(3);
    expect(["t7", "t8", "t9"].map((id) => known.get(id)?.expiresAt)).toEqual([7, 8, 9]);
    for (let i = 0; i < 7; i++) expect(known.get(`t${i}`)).toBeUndefined();
  });

  it("keeps the first facts of an id remembered twice, and drops one forgotten", () => {
    const known = new FinishedTasks(4);
    known.remember("a", facts(1));
    known.remember("a", facts(2));
    expect(known.get("a")).toEqual(facts(1));
    expect(known.size).toBe(1);
    known.forget("a");
    expect(known.get("a")).toBeUndefined();
    known.remember("a", facts(3));
    expect(known.get("a")).toEqual(facts(3));
    // Never above max, even with an id that sits in the ring twice.
    for (let i = 0; i < 20; i++) known.remember(`x${i}`, facts(i));
    expect(known.size).toBeLessThanOrEqual(4);
    expect(known.get("x19")).toEqual(facts(19));
  });
});
