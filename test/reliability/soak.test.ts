// The soak (test/reliability/soak-run.ts) at CI size: a few hundred concurrent tasks, fixed seed. `npm run soak`
// runs 10 000 under --expose-gc and also checks the heap; SOAK_TASKS and SOAK_SEED override both.
import { describe, expect, it } from "vitest";
import { runSoak } from "./soak-run.ts";

const TASKS = Number(process.env.SOAK_TASKS ?? 1000);
const SEED = Number(process.env.SOAK_SEED ?? 7);

describe(`soak (${TASKS} tasks, seed ${SEED})`, () => {
  it("ends every task in a state the chart allows, loses no accepted answer, and leaves nothing behind", async () => {
    const report = await runSoak({ tasks: TASKS, seed: SEED });
    expect(report.problems).toEqual([]);
    expect(report.reachable).toBe(0);
    expect(report.resourceGrowth).toEqual({});
    // The soak reached every ending and every kind of round, or it proved little.
    for (const ending of ["completed", "failed", "cancelled", "expired"]) expect(report.endings[ending] ?? 0, ending).toBeGreaterThan(0);
    expect(Object.values(report.endings).reduce((a, b) => a + b, 0)).toBe(TASKS);
    expect(report.roundsCompleted).toBeGreaterThan(0);
    expect(report.roundsLeft).toBeGreaterThan(0);
    expect(report.races.answerFirst).toBeGreaterThan(0);
    expect(report.races.cancelFirst).toBeGreaterThan(0);
    expect(report.notifications).toBeGreaterThan(0);
  }, 120_000);

  // The checks must be able to fail: plant a fault and the soak must report it.
  it("reports an answer a run never received", async () => {
    const report = await runSoak({ tasks: 60, seed: SEED, sabotage: { forgetAnswers: true } });
    expect(report.problems.join("\n")).toMatch(/lost answers/);
  });

  it("reports task contexts that stay reachable", async () => {
    const retain: object[] = [];
    const report = await runSoak({ tasks: 60, seed: SEED, sabotage: { retain } });
    expect(report.reachable).toBe(60 * 2); // each run's context, and its signal through it
    expect(report.problems.join("\n")).toMatch(/still reachable after GC/);
    retain.length = 0;
  });
});
