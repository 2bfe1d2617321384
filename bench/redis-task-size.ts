// What Redis holds per task, measured with MEMORY USAGE on a throwaway redis-server: one task in each state
// the demo's tools reach, plus the per-store keys. Run against the real store through the wire.
//   node --import tsx bench/redis-task-size.ts [--many 1000]
import { parseArgs } from "node:util";
import { createDemo } from "../examples/demo/app.ts";
import { redisTaskStore } from "../src/tasks/redis/index.ts";
import { startRedis } from "../test/helpers/redis-server.ts";
import { call, TASKS } from "../test/helpers/wire.ts";

const { values } = parseArgs({ options: { many: { type: "string", default: "1000" } } });
const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const redis = await startRedis();
const store = redisTaskStore({ url: redis.url, prefix: "size", leaseMs: 15_000 });
const { app } = createDemo({ store, max: 100_000 });
const until = async (taskId: string, status: string) => {
  for (let i = 0; i < 400; i++) {
    if ((await call(app, "tasks/get", { taskId }, { caps })).body.result?.status === status) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${taskId} never reached ${status}`);
};
const usage = async (key: string) => Number(await redis.cli("MEMORY", "USAGE", key, "SAMPLES", "0"));
const create = async (name: string, args: Record<string, unknown>) => (await call(app, "tools/call", { name, arguments: args }, { caps })).body.result.taskId as string;
const rows: [string, string][] = [];

try {
  const working = await create("slow_compute", { seconds: 60, label: "job" });
  await until(working, "working");
  const asking = await create("delete_everything", {});
  await until(asking, "input_required");
  const done = await create("render", { frames: 1, msPerFrame: 0 });
  await until(done, "completed");
  const cancelled = await create("slow_compute", { seconds: 60 });
  await call(app, "tasks/cancel", { taskId: cancelled }, { caps });
  await until(cancelled, "cancelled");

  for (const [what, id] of [["working (running, snapshot)", working], ["input_required (one elicitation)", asking], ["completed (final JSON, short text result)", done], ["cancelled (final JSON)", cancelled]] as const) {
    rows.push([what, `${await usage(`${store.keyPrefix}task:${id}`)} B`]);
  }
  rows.push(["per-store count zset (4 tasks)", `${await usage(`${store.keyPrefix}tasks`)} B`]);
  rows.push(["lease key of a worker", `${await usage(store.leaseKey)} B`]);
  // Many finished tasks: what each adds to Redis as a whole (used_memory), the count zset included.
  const many = Number(values.many);
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.cli("INFO", "memory"))![1]);
  const before = await used();
  const ids: string[] = [];
  for (let i = 0; i < many; i++) ids.push(await create("render", { frames: 1, msPerFrame: 0 }));
  await until(ids.at(-1)!, "completed");
  for (const id of ids) await until(id, "completed");
  rows.push([`used_memory per completed task (${many})`, `${Math.round(((await used()) - before) / many)} B`]);
  rows.push([`count zset with ${many + 4} tasks, per task`, `${Math.round((await usage(`${store.keyPrefix}tasks`)) / (many + 4))} B`]);
  const keys = (await redis.cli("KEYS", `${store.keyPrefix}*`)).split("\n").filter((k) => !k.includes(":task:")).sort();
  console.log(`keys besides the task keys: ${keys.join(", ")}`);
  for (const [what, size] of rows) console.log(`${what.padEnd(45)} ${size}`);
} finally {
  await store.close();
  await redis.stop();
}
