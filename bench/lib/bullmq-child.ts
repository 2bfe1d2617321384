// A worker process of bench/bullmq.ts; prints `ready` once it takes jobs and stops on SIGTERM.
//   raw --url U --queue Q --concurrency C    a BullMQ Worker whose processor does nothing (BullMQ's ceiling)
//   tasks --url U --concurrency C            startTaskWorker() running the bench's `echo` run (bullmq-tasks.ts)
import { Worker } from "bullmq";
import { parseArgs } from "node:util";
import { benchConnection } from "./bullmq-raw.ts";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { url: { type: "string" }, queue: { type: "string" }, concurrency: { type: "string", default: "4" } },
});
const url = values.url!;
const concurrency = Number(values.concurrency);

if (positionals[0] === "raw") {
  const worker = new Worker(values.queue!, async () => "done", { connection: benchConnection(url) as never, concurrency });
  worker.on("error", () => {});
  await worker.waitUntilReady();
  console.log("ready");
  process.once("SIGTERM", () => void worker.close().then(() => process.exit(0)));
} else if (positionals[0] === "tasks") {
  const { startTaskWorker } = await import("h3-mcp/tasks/bullmq");
  const { BENCH_QUEUE, benchTasks } = await import("./bullmq-tasks.ts");
  const web = benchTasks(url, true);
  const worker = startTaskWorker({ host: web.tasks.host, url, queueName: BENCH_QUEUE, concurrency, shutdownOn: false });
  await worker.ready;
  console.log("ready");
  process.once("SIGTERM", () => void worker.close().then(() => web.close()).then(() => process.exit(0)));
} else {
  throw new Error(`unknown bench worker kind ${positionals[0]}`);
}
