// The soak at full size: `npm run soak` (SOAK_TASKS, default 10 000; SOAK_SEED to replay). Runs under
// --expose-gc, so it also checks the heap after GC. test/reliability/soak.test.ts runs the same code smaller.
import { collectGarbage } from "../test/reliability/support.ts";
import { runSoak } from "../test/reliability/soak-run.ts";

const tasks = Number(process.env.SOAK_TASKS ?? 10_000);
const seed = Number(process.env.SOAK_SEED ?? (Date.now() % 1_000_000));
/** Heap growth tolerated after a full collection: a leak of even a few hundred bytes per task exceeds it. */
const HEAP_SLACK = 8 * 1024 * 1024;

await collectGarbage();
const heapBefore = process.memoryUsage().heapUsed;
const report = await runSoak({ tasks, seed, onProgress: (m) => console.error(`  ${m}`) });
await collectGarbage();
const heapAfter = process.memoryUsage().heapUsed;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

console.log(`soak: ${report.tasks} tasks, seed ${seed}, ${report.requests} requests in ${report.phases} phases, ${(report.ms / 1000).toFixed(1)} s (${Math.round((report.requests / report.ms) * 1000)} requests/s)`);
console.log(`  endings: ${JSON.stringify(report.endings)}`);
console.log(`  input rounds: ${report.roundsCompleted} completed, ${report.roundsLeft} left by their task; answers accepted: ${report.answersAccepted}`);
console.log(`  answer-vs-cancel races: answer first ${report.races.answerFirst}, cancel first ${report.races.cancelFirst}`);
console.log(`  notifications received: ${report.notifications}`);
console.log(`  still reachable after GC: ${report.reachable ?? "not checked"}; active resources grown: ${JSON.stringify(report.resourceGrowth)}`);
console.log(`  heap after GC: ${mb(heapBefore)} before, ${mb(heapAfter)} after (${mb(heapAfter - heapBefore)})`);
if (heapAfter - heapBefore > HEAP_SLACK) report.problems.push(`heap grew by ${mb(heapAfter - heapBefore)} after GC`);
if (report.problems.length) {
  console.error(`FAILED (replay with SOAK_SEED=${seed}):\n  ${report.problems.join("\n  ")}`);
  process.exitCode = 1;
} else {
  console.log("no problems");
}
