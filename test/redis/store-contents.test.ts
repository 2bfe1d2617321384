// What docs/security.md says the Redis store holds for a task, read from a real redis-server: every key of
// the store and every message on its change channel, for a closure and for a run found by name that each ask
// a question, get an answer through another instance and set a status message. A closure's question, answer
// and status message are in the clear; a run found by name's are found nowhere (its record, snapshot and
// change messages are sealed); the final tasks/get answer of both is in the clear, and so is the final change
// a listen stream on another instance hears, which carries no question or answer.
import { randomUUID } from "node:crypto";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks, type McpTaskContext } from "../../src/tasks/index.ts";
import { redisTaskStore, type RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { startRedis, type RedisServer } from "../helpers/redis-server.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, call, modernRequest, TASKS } from "../helpers/wire.ts";
import { until } from "./cluster.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

/** Every value of every key under the prefix, as text. */
async function dump(prefix: string): Promise<string> {
  const keys = (await redis.cli("KEYS", `{${prefix}}:*`)).split("\n").filter(Boolean);
  const values: string[] = [];
  for (const key of keys) {
    const type = await redis.cli("TYPE", key);
    values.push(
      key,
      type === "hash" ? await redis.cli("HGETALL", key)
      : type === "string" ? await redis.cli("GET", key)
      : type === "zset" ? await redis.cli("ZRANGE", key, "0", "-1")
      : "",
    );
  }
  return values.join("\n");
}

/** What a task asks, answers, says and returns: each a distinct text, to be looked for in Redis. */
function texts(kind: string) {
  const tag = randomUUID().slice(0, 8);
  return { question: `question-${kind}-${tag}`, answer: `answer-${kind}-${tag}`, status: `status-${kind}-${tag}`, result: `result-${kind}-${tag}` };
}

/** Asks one question, says a status message once answered, waits for `gate`, then returns its result. */
async function askThenWait(task: Pick<McpTaskContext, "requestInput" | "update">, t: ReturnType<typeof texts>, gate: Promise<void>) {
  await task.requestInput({ value: mcpElicit({ message: t.question, requestedSchema: { type: "object", properties: { value: { type: "string" } } } }) });
  task.update({ statusMessage: t.status });
  await gate;
  return { content: [{ type: "text" as const, text: t.result }] };
}

describe("What the store holds for a task, on Redis", () => {
  it("a closure's question, answer and status message in the clear; a run found by name's nowhere; both final answers in the clear", async () => {
    const prefix = `contents-${randomUUID().slice(0, 8)}`;
    const closure = texts("closure");
    const named = texts("run");
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const run = defineTaskRun({ name: "ask", run: (task) => askThenWait(task, named, gate) });
    const tools = [
      defineTool({ name: "closure", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: (task) => askThenWait(task, closure, gate) }) }),
      defineTool({ name: "ask", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run, input: {} }) }),
    ];
    const stores: RedisTaskStore[] = [];
    const instance = () => {
      const store = redisTaskStore({ url: redis.url, secret: "contents-secret", prefix });
      stores.push(store);
      return appFor(defineMcpHandler({ name: "contents", version: "1", tools }, { extensionPlugins: [mcpTasks({ store, runs: [run] })] }));
    };
    // The tasks run on `a`; answered through `b`, so each answer travels on the change channel to `a`.
    const [a, b] = [instance(), instance()];
    const channel: string[] = [];
    const subscriber = createClient({ url: redis.url });
    await subscriber.connect();
    await subscriber.subscribe(`{${prefix}}:changes`, (message) => void channel.push(message));
    try {
      const ids = {
        closure: (await call(a, "tools/call", { name: "closure" }, { caps })).body.result.taskId as string,
        run: (await call(a, "tools/call", { name: "ask" }, { caps })).body.result.taskId as string,
      };
      const get = async (id: string) => (await call(b, "tasks/get", { taskId: id }, { caps })).body.result;
      await until(async () => (await get(ids.closure)).status === "input_required" && (await get(ids.run)).status === "input_required");
      const asking = await dump(prefix);
      expect(asking).toContain(closure.question);
      expect(asking).not.toContain(named.question);

      for (const [id, t] of [[ids.closure, closure], [ids.run, named]] as const) {
        const key = Object.keys((await get(id)).inputRequests)[0]!;
        const answered = await call(b, "tasks/update", { taskId: id, inputResponses: { [key]: { action: "accept", content: { value: t.answer } } } }, { caps });
        expect(answered.status).toBe(200);
      }
      await until(async () => (await get(ids.closure)).statusMessage === closure.status && (await get(ids.run)).statusMessage === named.status);
      const answered = await dump(prefix);
      for (const text of [closure.answer, closure.status]) expect(answered).toContain(text);
      for (const text of [named.question, named.answer, named.status]) expect(answered).not.toContain(text);
      const heard = channel.join("\n");
      expect(heard).toContain(closure.answer);
      for (const text of [named.question, named.answer, named.status]) expect(heard).not.toContain(text);

      // A listen stream on `b` makes `a` publish the run's own changes, its final one included.
      const sse = sseReader(await b.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [ids.run] } }, { caps, id: "watch" })));
      expect((await sse.next()).method).toBe("notifications/subscriptions/acknowledged");
      const heardBefore = channel.length;
      open();
      await until(async () => (await get(ids.closure)).status === "completed" && (await get(ids.run)).status === "completed");
      let told = await sse.next(10_000);
      while (told.params?.status !== "completed") told = await sse.next(10_000);
      expect(JSON.stringify(told.params.result)).toContain(named.result);
      await sse.close();
      const final = await dump(prefix);
      for (const text of [closure.result, named.result]) expect(final).toContain(text);
      // Once final, the run's record and snapshot are gone with its hash: its answer is nowhere still.
      expect(final).not.toContain(named.answer);
      // The final change went in the clear, as the kept answer is: its result, but no question or answer.
      const finalHeard = channel.slice(heardBefore).filter((message) => message.includes(ids.run)).join("\n");
      expect(finalHeard).toContain(named.result);
      for (const text of [named.question, named.answer]) expect(finalHeard).not.toContain(text);
    } finally {
      await subscriber.quit();
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
