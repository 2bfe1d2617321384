// BullMQ's own ceiling on a Redis, with no h3-mcp in it: how fast a queue accepts jobs shaped like the
// executor's (job id = a task id, data = that id), and how fast worker processes with a processor that
// does nothing complete them. The executor's figures are read against these.
import { Queue } from "bullmq";
import { spawn, type ChildProcess } from "node:child_process";
import { createClient } from "redis";
import { ROOT } from "./proc.ts";

export interface RawRates {
  /** Jobs accepted per second by `queue.add`, `inFlight` adds at a time. */
  enqueuePerSec: number;
  /** Jobs completed per second by `workers` processes of `concurrency` each, from a full, paused queue. */
  processPerSec: Record<number, number>;
}

/** A node-redis connection as the executor opens one (offline queue off, errors reported per call). */
export function benchConnection(url: string) {
  const client = createClient({ url, disableOfflineQueue: true });
  client.on("error", () => {});
  return client;
}

/** Adds `n` jobs, `inFlight` at a time; jobs per second. */
export async function enqueueRate(queue: Queue, n: number, inFlight: number, prefix: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < n) {
      const id = `${prefix}-${next++}`;
      await queue.add("raw", { taskId: id }, { jobId: id });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return n / ((performance.now() - started) / 1000);
}

/** A worker child process (bench/lib/bullmq-child.ts) that prints `ready` once it takes jobs. */
export async function startChild(args: string[], env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/lib/bullmq-child.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.includes("ready")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`bench worker child exited with ${code} before ready`)));
  });
  return child;
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** Waits until `count()` reaches `n`, polling every 10 ms; the seconds it took since `since`. */
export async function until(count: () => Promise<number>, n: number, since: number): Promise<number> {
  while ((await count()) < n) await new Promise((resolve) => setTimeout(resolve, 10));
  return (performance.now() - since) / 1000;
}

/**
 * BullMQ alone: the enqueue rate, then for each worker count a full queue (paused while it fills and
 * while the workers start) processed by that many child processes.
 */
export async function rawRates(url: string, n: number, workerCounts: number[], concurrency: number): Promise<RawRates> {
  const connection = benchConnection(url);
  const queueName = "bench-raw";
  const queue = new Queue(queueName, { connection: connection as never, defaultJobOptions: { removeOnComplete: true } });
  queue.on("error", () => {});
  try {
    await queue.obliterate({ force: true });
    const enqueuePerSec = await enqueueRate(queue, n, 64, "enqueue");
    await queue.obliterate({ force: true });
    const processPerSec: Record<number, number> = {};
    for (const workers of workerCounts) {
      await queue.pause();
      await enqueueRate(queue, n, 64, `process-${workers}`);
      const children = await Promise.all(
        Array.from({ length: workers }, () => startChild(["raw", "--url", url, "--queue", queueName, "--concurrency", String(concurrency)])),
      );
      const done = async () => n - (await queue.getJobCountByTypes("wait", "active", "prioritized"));
      const started = performance.now();
      await queue.resume();
      const seconds = await until(done, n, started);
      processPerSec[workers] = n / seconds;
      await Promise.all(children.map(stopChild));
      await queue.obliterate({ force: true });
    }
    return { enqueuePerSec, processPerSec };
  } finally {
    await queue.close();
    if (connection.isOpen) await connection.close();
  }
}
