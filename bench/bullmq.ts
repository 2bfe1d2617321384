// Named runs executed by BullMQ worker processes, beside BullMQ's own ceiling, on one throwaway
// redis-server in one run:
//  - creation: creating a task of a run found by name through the BullMQ executor (stored, then enqueued)
//    against running it in process, on the same Redis, paired round by round (lib/paired.ts);
//  - end to end: create → `completed` visible on tasks/get, for a run that returns at once, through one
//    worker process against in process, paired the same way;
//  - throughput: tasks completed per second by 4 worker processes against 1, from a full, paused queue;
//  - BullMQ alone: jobs accepted per second (`queue.add`, the executor's job shape), and jobs completed per
//    second by 1 and by 4 worker processes whose processor does nothing: the ceiling of the two above.
//   node --import tsx bench/bullmq.ts [--n 2000] [--concurrency 8] [--rounds 7] [--json]
import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import { startRedis } from "../test/helpers/redis-server.ts";
import { log, fmtInt } from "./lib/format.ts";
import { rawRates, startChild, stopChild, until } from "./lib/bullmq-raw.ts";
import { benchApp, benchTasks } from "./lib/bullmq-tasks.ts";
import { median, pairedRounds, spread } from "./lib/paired.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "8" },
    rounds: { type: "string", default: "7" },
    json: { type: "boolean", default: false },
  },
});
const N = Number(values.n);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);

const redis = await startRedis();
const here = benchTasks(redis.url, false);
const queued = benchTasks(redis.url, true);
const hereApp = benchApp(here.tasks);
const queuedApp = benchApp(queued.tasks);
const queue = queued.executor!.queue;
const workerArgs = ["tasks", "--url", redis.url, "--concurrency", String(CONCURRENCY)];
const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
/** Creates a task and polls tasks/get (every millisecond or so) until it reads completed. */
const endToEnd = (app: ReturnType<typeof benchApp>) => async () => {
  const id = await app.create();
  while ((await app.status(id)) !== "completed") await pause();
};

try {
  log(`- creation: in process against through the BullMQ executor, ${ROUNDS} rounds × 300`);
  const creation = await pairedRounds([{ name: "inProcess", serve: async () => void (await hereApp.create()) }, { name: "bullmq", serve: async () => void (await queuedApp.create()) }], ROUNDS, 300, 200);
  await queue.obliterate({ force: true });

  log(`- end to end (create → completed on tasks/get): in process against 1 worker process, ${ROUNDS} rounds × 50`);
  let worker: ChildProcess | undefined = await startChild(workerArgs);
  const e2e = await pairedRounds([{ name: "inProcess", serve: endToEnd(hereApp) }, { name: "bullmq", serve: endToEnd(queuedApp) }], ROUNDS, 50, 20);
  await stopChild(worker);
  worker = undefined;

  const throughput: Record<number, number> = {};
  for (const workers of [1, 4]) {
    log(`- throughput: ${N} tasks, ${workers} worker process${workers === 1 ? "" : "es"} × concurrency ${CONCURRENCY}`);
    await queue.obliterate({ force: true });
    await queue.pause();
    for (let i = 0; i < N; i += 64) await Promise.all(Array.from({ length: Math.min(64, N - i) }, () => queuedApp.create()));
    const children = await Promise.all(Array.from({ length: workers }, () => startChild(workerArgs)));
    const done = async () => N - (await queue.getJobCountByTypes("wait", "active", "prioritized", "delayed"));
    const started = performance.now();
    await queue.resume();
    throughput[workers] = N / (await until(done, N, started));
    await Promise.all(children.map(stopChild));
  }
  await queue.obliterate({ force: true });

  log(`- BullMQ alone: ${N} jobs`);
  const raw = await rawRates(redis.url, N, [1, 4], CONCURRENCY);

  const ratio = (lanes: Record<string, number[]>) => lanes.bullmq!.map((q, i) => q / lanes.inProcess![i]!);
  const report = {
    n: N,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
    creationUs: { inProcess: median(creation.inProcess!), bullmq: median(creation.bullmq!), ratio: median(ratio(creation)), spread: spread(ratio(creation)) },
    endToEndUs: { inProcess: median(e2e.inProcess!), bullmq: median(e2e.bullmq!), ratio: median(ratio(e2e)), spread: spread(ratio(e2e)) },
    tasksPerSec: throughput,
    raw,
  };
  if (values.json) console.log(JSON.stringify(report));
  else {
    const { creationUs: c, endToEndUs: e } = report;
    console.log(`| measure | in process | through BullMQ | BullMQ ÷ in process (median, rounds) |`);
    console.log(`| --- | ---: | ---: | ---: |`);
    console.log(`| creating a task of a run found by name, µs | ${c.inProcess.toFixed(0)} | ${c.bullmq.toFixed(0)} | ${c.ratio.toFixed(2)} (${c.spread}) |`);
    console.log(`| create → completed on tasks/get, run returns at once, µs | ${e.inProcess.toFixed(0)} | ${e.bullmq.toFixed(0)} | ${e.ratio.toFixed(2)} (${e.spread}) |`);
    console.log();
    console.log(`| measure | per second |`);
    console.log(`| --- | ---: |`);
    for (const [workers, rate] of Object.entries(throughput)) {
      console.log(`| tasks completed, ${workers} worker process${workers === "1" ? "" : "es"} × concurrency ${CONCURRENCY} | ${fmtInt(rate)} |`);
    }
    console.log(`| 4 workers ÷ 1 | ${(throughput[4]! / throughput[1]!).toFixed(2)} |`);
    console.log(`| BullMQ alone: jobs accepted (64 adds in flight) | ${fmtInt(raw.enqueuePerSec)} |`);
    for (const [workers, rate] of Object.entries(raw.processPerSec)) {
      console.log(`| BullMQ alone: jobs completed, ${workers} worker process${workers === "1" ? "" : "es"} × concurrency ${CONCURRENCY} | ${fmtInt(rate)} |`);
    }
  }
} finally {
  await here.close();
  await queued.close();
  await redis.stop();
}
