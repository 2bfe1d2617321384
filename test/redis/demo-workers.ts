// Demo web processes started with MCP_TASKS_EXECUTOR=bullmq and `npm run worker` processes on a real
// redis-server, for the worker tests: registers their start and their end (by pid) with the test file.
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { bullmqExecutor, type BullmqExecutor } from "../../src/tasks/bullmq/index.ts";
import { startDemo, overHttp, type DemoProcess } from "../helpers/demo-process.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { call, TASKS } from "../helpers/wire.ts";

export const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const LEASE_MS = 1000;
let redis: RedisServer;
let env: Record<string, string>;
export let web: DemoProcess[] = [];
const workers: DemoProcess[] = [];
/** The demo's queue, read as a dashboard would. */
export let probe: BullmqExecutor;

beforeAll(async () => {
  redis = await startRedis();
  env = { REDIS_URL: redis.url, MCP_TASKS_SECRET: "worker-test-secret", MCP_REQUEST_STATE_SECRET: "s", MCP_TASKS_EXECUTOR: "bullmq", MCP_TASKS_LEASE_MS: String(LEASE_MS) };
  web = await Promise.all([startDemo(env), startDemo(env)]);
  probe = bullmqExecutor({ url: redis.url });
}, 120_000);
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop("SIGKILL")));
});
afterAll(async () => {
  await probe?.close();
  await Promise.all(web.map((w) => w.stop("SIGKILL")));
  await redis?.stop();
});

/** A worker process as `npm run worker` starts it, once it printed that it is ready. */
export async function startWorker(extra: Record<string, string> = {}): Promise<DemoProcess> {
  const worker = await startDemo({ ...env, ...extra }, "examples/demo/worker.ts", [], "ready");
  workers.push(worker);
  return worker;
}

export const at = (i: number) => overHttp(web[i % web.length]!.url) as never;
export const create = async (i: number, name: string, args: Record<string, unknown> = {}) => {
  const res = await call(at(i), "tools/call", { name, arguments: args }, { caps });
  expect(res.body.result, JSON.stringify(res.body)).toMatchObject({ resultType: "task", status: "working" });
  return res.body.result.taskId as string;
};
export const get = async (i: number, taskId: string) => (await call(at(i), "tasks/get", { taskId }, { caps })).body.result;
/** Polls tasks/get on the web instances in turn until `check` passes. */
export async function until<T>(taskId: string, check: (task: any) => T | undefined | false, timeoutMs = 30_000): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (let i = 0; ; i++) {
    const task = await get(i, taskId);
    if (check(task)) return task;
    if (Date.now() > end) throw new Error(`task ${taskId} never got there; last seen ${JSON.stringify(task)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
/** The attempt lines a process printed for `taskId`. */
export const attemptsIn = (process: DemoProcess, taskId: string) => process.output().split("\n").filter((line) => line.includes(`${taskId}: attempt`));

