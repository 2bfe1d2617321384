// Creating a retryable task (a run found by name, kept with its sealed record) against creating a closure
// task, on the Redis store, paired request by request in one process through app.fetch against a throwaway
// redis-server: each round serves both lanes in a fresh random order and keeps each request's time; a
// round's figure is the mean of its fastest 90% (lib/paired.ts). Both runs complete at once, so each lane
// is one creation plus the task's final write.
// A third lane prices the one cost a retryable task cannot shed on Redis: a closure task whose tool also
// seals a run record of the same shape, as the store seals the retryable task's (AES-256-GCM, the
// store's own seal), so "closure + seal" is the ceiling a retryable creation can reach.
//   node --import tsx bench/retryable-create.ts [--rounds 9] [--n 500] [--memory]
import { parseArgs } from "node:util";
import { H3 } from "h3";
import { defineMcpHandler, defineTool } from "h3-mcp";
import { defineTaskRun, mcpTask, mcpTasks, memoryTaskStore } from "h3-mcp/tasks";
import { redisTaskStore } from "h3-mcp/tasks/redis";
import { runSeal } from "../src/tasks/run-seal.ts";
import { startRedis } from "../test/helpers/redis-server.ts";
import { median, pairedRounds, spread } from "./lib/paired.ts";
import { mcpRequest, toWebRequest } from "./lib/wire.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "9" }, n: { type: "string", default: "500" }, memory: { type: "boolean", default: false } } });

const redis = await startRedis();
const echo = defineTaskRun({ name: "echo", maxAttempts: 3, run: (_task, input: { text: string }) => input.text });
// --memory: the same two lanes on the in-memory store, to tell the runtime's share from the store's.
const store = values.memory ? memoryTaskStore() : redisTaskStore({ url: redis.url, secret: "bench-secret", prefix: "bench-retryable" });
const tasks = mcpTasks({ store, runs: [echo], max: 1_000_000 });
const seal = runSeal("bench-secret")!;
let sealed = "";
const schema = { type: "object", properties: { text: { type: "string" } } } as const;
const tools = [
  defineTool({ name: "closure", execution: { taskSupport: "required" }, inputSchema: schema, handler: (event, args) => mcpTask(event, { run: () => String(args.text) }) }),
  defineTool({
    name: "closure_sealed",
    execution: { taskSupport: "required" },
    inputSchema: schema,
    handler: (event, args) => {
      const input = JSON.parse(JSON.stringify({ text: String(args.text) }));
      sealed = seal.seal(`{bench-retryable}:task:${crypto.randomUUID()}`, { name: "echo", version: 1, input, client: {}, tool: "retryable" });
      return mcpTask(event, { run: () => String(args.text) });
    },
  }),
  defineTool({ name: "retryable", execution: { taskSupport: "required" }, inputSchema: schema, handler: (event, args) => mcpTask(event, { run: echo, input: { text: String(args.text) } }) }),
];
const app = new H3().all("/mcp", defineMcpHandler({ name: "bench", version: "0", tools }, { extensionPlugins: [tasks] }));

const lane = (name: string) => {
  const raw = mcpRequest("tools/call", { name, arguments: { text: "hello" } }, { tasks: true });
  return async () => {
    const res = await app.fetch(toWebRequest(raw));
    const text = await res.text();
    if (res.status !== 200 || !text.includes('"resultType":"task"')) throw new Error(`${name}: HTTP ${res.status}: ${text}`);
  };
};

try {
  const lanes = ["closure", "closure_sealed", "retryable"].map((name) => ({ name, serve: lane(name) }));
  const perRound = await pairedRounds(lanes, Number(values.rounds), Number(values.n), 300);
  const ratio = (lane: string) => perRound.closure!.map((closure, i) => closure / perRound[lane]![i]!);
  const us = (lane: string) => median(perRound[lane]!).toFixed(1);
  console.log(`creation on ${values.memory ? "memory" : "Redis"}, µs per request (median of ${values.rounds} rounds × ${values.n}): closure ${us("closure")}, closure + seal ${us("closure_sealed")}, retryable ${us("retryable")}`);
  console.log(`retryable rate ÷ closure rate: median ${median(ratio("retryable")).toFixed(3)} (rounds ${spread(ratio("retryable"))})`);
  console.log(`closure + seal rate ÷ closure rate (the ceiling): median ${median(ratio("closure_sealed")).toFixed(3)} (rounds ${spread(ratio("closure_sealed"))}); sealed ${sealed.length} characters`);
} finally {
  if ("close" in store) await store.close();
  await redis.stop();
}
