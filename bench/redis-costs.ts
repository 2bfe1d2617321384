// What the Redis store costs besides time, in-process through app.fetch against a throwaway redis-server:
//  - memory: Redis's own MEMORY USAGE of a finished task's keys (its key, one string once finished, plus
//    its share of the count sorted set), beside the size of the tasks/get JSON it answers;
//  - contention: compare-and-set retries per 1,000 changes while the worker (status updates) and
//    tasks/update (answers) write the same task at once, the answers sent to the worker's instance and
//    then to a second instance on the same store.
//   node --import tsx bench/redis-costs.ts [--n 2000] [--rounds 300] [--json]
import { parseArgs } from "node:util";
import { defineMcpHandler, defineTool, mcpListRoots } from "h3-mcp";
import { mcpTask, mcpTasks } from "h3-mcp/tasks";
import { redisTaskStore } from "h3-mcp/tasks/redis";
import { H3 } from "h3";
import { startRedis } from "../test/helpers/redis-server.ts";
import { fillTasks, waitForStatus } from "./lib/fill.ts";
import { taskEchoTool } from "./lib/mcp-app.ts";
import { mcpRequest, requests, toWebRequest } from "./lib/wire.ts";

const { values } = parseArgs({
  options: { n: { type: "string", default: "2000" }, rounds: { type: "string", default: "300" }, json: { type: "boolean", default: false } },
});
const N = Number(values.n);
const ROUNDS = Number(values.rounds);

/** Answers `rounds` questions, one at a time, streaming status updates all the while each one is open. */
const raceTool = defineTool({
  name: "task_race",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      async run(task) {
        for (let i = 0; i < ROUNDS; i++) {
          let open = true;
          const answered = task.requestInput({ [`q${i}`]: mcpListRoots() }).finally(() => (open = false));
          for (let k = 0; open; k++) {
            task.update({ statusMessage: `round ${i}, step ${k}` });
            stats.workerUpdates++;
            // A busy worker reporting progress about once a millisecond.
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
          await answered;
        }
        return { content: [{ type: "text", text: "raced" }] };
      },
    }),
});
const stats = { workerUpdates: 0, answers: 0 };

const redis = await startRedis();
try {
  const store = redisTaskStore({ url: redis.url, prefix: "costs" });
  const tasks = mcpTasks({ store, max: 1_000_000, ttlMs: null });
  const handler = defineMcpHandler({ name: "costs", version: "0.0.0", tools: [taskEchoTool, raceTool] }, { extensionPlugins: [tasks] });
  const app = new H3().all("/mcp", handler);
  const call = async (raw: ReturnType<typeof mcpRequest>, via: H3 = app) => {
    const res = await via.fetch(toWebRequest(raw));
    const text = await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text}`);
    return { text, result: (JSON.parse(text) as { result: Record<string, unknown> }).result };
  };

  // Memory per finished task.
  const ids: string[] = [];
  await fillTasks(app, N, (id) => ids.push(id));
  await waitForStatus(app, ids.slice(-64), "completed");
  const sample = ids.filter((_, i) => i % Math.max(1, Math.floor(N / 200)) === 0);
  let keyBytes = 0;
  let jsonBytes = 0;
  for (const id of sample) {
    keyBytes += Number(await redis.cli("MEMORY", "USAGE", `${store.keyPrefix}task:${id}`, "SAMPLES", "0"));
    const { text } = await call(requests.getTask(id));
    jsonBytes += Buffer.byteLength(JSON.stringify((JSON.parse(text) as { result: unknown }).result));
  }
  const countSet = Number(await redis.cli("MEMORY", "USAGE", `${store.keyPrefix}tasks`, "SAMPLES", "0"));
  const countSize = Number(await redis.cli("ZCARD", `${store.keyPrefix}tasks`));
  const memory = {
    n: N,
    sampled: sample.length,
    // The task's own key (named hashBytes for the report's readers; a finished task's key is a string).
    hashBytes: keyBytes / sample.length,
    countShareBytes: countSet / countSize,
    jsonBytes: jsonBytes / sample.length,
  };

  // Contention: the worker's status updates against the client's answers, on one task, with the answers
  // sent to the worker's own instance and then to a second instance on the same store (its own
  // connections, as another process would have).
  const otherStore = redisTaskStore({ url: redis.url, prefix: "costs" });
  const otherTasks = mcpTasks({ store: otherStore, max: 1_000_000, ttlMs: null });
  const otherHandler = defineMcpHandler({ name: "costs", version: "0.0.0", tools: [taskEchoTool, raceTool] }, {
    extensionPlugins: [otherTasks],
  });
  const other = new H3().all("/mcp", otherHandler);
  const race = async (answerApp: H3) => {
    stats.workerUpdates = 0;
    stats.answers = 0;
    const before = tasks.stats.casRetries + otherTasks.stats.casRetries;
    const handle = (await call(mcpRequest("tools/call", { name: "task_race", arguments: {} }, { tasks: true, roots: true }))).result;
    const taskId = handle.taskId as string;
    for (let i = 0; i < ROUNDS; i++) {
      for (;;) {
        const got = (await call(requests.getTask(taskId), answerApp)).result as { status: string; inputRequests?: Record<string, unknown> };
        if (got.status === "input_required" && got.inputRequests?.[`q${i}`]) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await call(mcpRequest("tasks/update", { taskId, inputResponses: { [`q${i}`]: { roots: [] } } }, { tasks: true }), answerApp);
      stats.answers++;
    }
    await waitForStatus(app, [taskId], "completed", 30_000);
    const retries = tasks.stats.casRetries + otherTasks.stats.casRetries - before;
    const changes = stats.workerUpdates + stats.answers;
    return { rounds: ROUNDS, workerUpdates: stats.workerUpdates, answers: stats.answers, retries, perThousand: (retries / changes) * 1000 };
  };
  const contention = await race(app);
  const contentionAcross = await race(other);
  await otherStore.close();
  await store.close();

  const report = { redis: (await redis.cli("INFO", "server")).match(/redis_version:(\S+)/)?.[1], memory, contention, contentionAcross };
  if (values.json) console.log(JSON.stringify(report));
  else {
    console.log(
      `Redis ${report.redis}: a finished task holds ${memory.hashBytes.toFixed(0)} B in its key + ${memory.countShareBytes.toFixed(0)} B of the count set, ` +
        `for a ${memory.jsonBytes.toFixed(0)} B tasks/get result (${((memory.hashBytes + memory.countShareBytes) / memory.jsonBytes).toFixed(2)}×), sampled ${memory.sampled} of ${N}`,
    );
    for (const [where, c] of [["the worker's instance", contention], ["another instance", contentionAcross]] as const) {
      console.log(
        `answers through ${where}: ${c.retries} compare-and-set retries over ${c.workerUpdates + c.answers} changes (${c.workerUpdates} worker status updates, ${c.answers} answers): ${c.perThousand.toFixed(1)} per 1,000`,
      );
    }
  }
} finally {
  await redis.stop();
}
