// What only shows when several requests (and instances) meet one store at once, when time passes, or when
// an instance goes away: the caps under concurrent creation, answers and cancels racing each other and the
// run, expiry, the origin a task carries, and a lost instance.
import { mcpListRoots } from "../../features/mrtr/input-requests.ts";
import { mcpTask } from "../../features/task-api.ts";
import { defineTool } from "../../features/tools.ts";
import { defineMcpHandler } from "../../transport/handler.ts";
import { UNBOUND } from "../owner.ts";
import { mcpTasks, type McpTasksOptions } from "../plugin.ts";
import { equal, includes, matches, ok, sleep } from "./assert.ts";
import { appFor, call, modernRequest, roundRobin, sseReader, type Fetcher } from "./client.ts";
import { caps, errorOf, kitTest, tasksClient, type KitCase, type TaskStoreKitOptions } from "./kit.ts";
import { tasksApp } from "./tasks-app.ts";

const LOST = { code: -32603, message: "The server instance running this task was lost" };

export function concurrencyCases(kit: TaskStoreKitOptions, shared: boolean): void {
  const test = (name: string, body: (c: KitCase) => Promise<void>) => kitTest(kit, shared, name, body);
  /** The kit's server on fresh instances, and each instance's own app. */
  const server = async (c: KitCase, options: McpTasksOptions = {}) => tasksApp(options, { instances: await c.instances() });
  const untilStatus = (c: KitCase, app: Fetcher, taskId: string, status: string) =>
    c.until(async () => {
      const task = (await tasksClient(app).get(taskId)).body.result;
      equal(task?.status, status, `task ${taskId}`);
      return task;
    });

  test("max holds across instances creating at the same moment, refused with the full store's error", async (c) => {
    const { apps } = await server(c, { max: 4 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => call(apps[i % apps.length]!, "tools/call", { name: "controlled" }, { caps, id: i })));
    const made = results.filter((r) => r.body.result?.resultType === "task");
    const refused = results.filter((r) => r.body.error);
    equal([made.length, refused.length], [4, 8], "tasks made and refused");
    for (const r of refused) {
      equal(r.status, 200);
      equal(r.body.error, { code: -32603, message: "The task store is full (4 tasks retained); try again later", data: { max: 4 } });
    }
  });

  test("maxPerOwner holds per caller across instances at the same moment, naming the per-caller cap", async (c) => {
    const { apps } = await server(c, { max: 100, maxPerOwner: 2, bind: (e) => e.req.headers.get("x-user") });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(apps[i % apps.length]!, "tools/call", { name: "controlled" }, { caps, id: i, headers: { "x-user": i < 8 ? "greedy" : "modest" } })),
    );
    const made = (user: "greedy" | "modest") => results.filter((r, i) => (i < 8) === (user === "greedy") && r.body.result?.resultType === "task").length;
    equal([made("greedy"), made("modest")], [2, 2], "tasks made per caller");
    for (const r of results.filter((r) => r.body.error)) {
      equal(r.body.error, { code: -32603, message: "Too many tasks for this caller (2 tasks retained, the most one caller may hold); try again later", data: { maxPerOwner: 2 } });
    }
  });

  test("answers sent through several instances at once are all applied", async (c) => {
    const { app, apps } = await server(c);
    const { taskId } = await tasksClient(app).create("two_rounds");
    await untilStatus(c, app, taskId, "input_required");
    const answers = [{ name: { action: "accept", content: { name: "Ada" } } }, { confirm: { action: "accept", content: { confirm: true } } }];
    const acks = await Promise.all(answers.map((answer, i) => tasksClient(apps[i % apps.length]!).update(taskId, answer)));
    for (const ack of acks) equal(ack.body.result?.resultType, "complete", "each answer acknowledged");
    // Both answers reached the run: its second round opens with the renamed key.
    await c.until(async () => equal(Object.keys((await tasksClient(app).get(taskId)).body.result.inputRequests ?? {}), ["confirm.2"]));
    await tasksClient(app).update(taskId, { "confirm.2": { action: "decline" } });
    const done = await untilStatus(c, app, taskId, "completed");
    equal(JSON.parse(done.result.content[0].text).a, { name: { action: "accept", content: { name: "Ada" } }, confirm: { action: "accept", content: { confirm: true } } });
  });

  test("a cancel racing the run's own end: the first ending stands, the same on every instance, and never changes", async (c) => {
    const { app, apps, gates } = await server(c);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await tasksClient(app).create("controlled")).taskId);
    await Promise.all(
      ids.map(async (id, i) => {
        const cancel = tasksClient(apps[(i + 1) % apps.length]!).cancel(id);
        gates.open(id, { content: [{ type: "text", text: "done" }] });
        equal((await cancel).body.result?.resultType, "complete", "the cancel is acknowledged");
      }),
    );
    for (const id of ids) {
      const ending = await c.until(async () => {
        const task = (await tasksClient(app).get(id)).body.result;
        ok(task.status === "completed" || task.status === "cancelled", `task ${id} ended, not ${task.status}`);
        return task;
      });
      await sleep(c.shared ? 50 : 0);
      for (const instance of apps) equal((await tasksClient(instance).get(id)).body.result, ending, `task ${id}'s ending, read again`);
    }
  });

  test("the run's status updates racing answers lose no answer", async (c) => {
    const ROUNDS = 5;
    const received: unknown[] = [];
    const race = defineTool({
      name: "race",
      handler: (event) =>
        mcpTask(event, {
          async run(task) {
            for (let i = 0; i < ROUNDS; i++) {
              let open = true;
              const answered = task.requestInput({ [`q${i}`]: mcpListRoots() }).finally(() => (open = false));
              for (let k = 0; open; k++) {
                task.update({ statusMessage: `round ${i}, step ${k}` });
                await sleep(1);
              }
              received.push(await answered);
            }
            return { content: [{ type: "text", text: "raced" }] };
          },
        }),
    });
    const apps = (await c.instances()).map((own) => appFor(defineMcpHandler({ name: "race", version: "1", tools: [race] }, { extensionPlugins: [mcpTasks(own)] })));
    const app = roundRobin(apps);
    const rootsCaps = { ...caps, roots: {} };
    const { taskId } = (await call(app, "tools/call", { name: "race" }, { caps: rootsCaps })).body.result;
    for (let i = 0; i < ROUNDS; i++) {
      await c.until(async () => ok((await call(app, "tasks/get", { taskId }, { caps: rootsCaps })).body.result.inputRequests?.[`q${i}`], `round ${i} open`));
      await call(app, "tasks/update", { taskId, inputResponses: { [`q${i}`]: { roots: [{ uri: `file:///r${i}` }] } } }, { caps: rootsCaps });
    }
    const done = await untilStatus(c, app, taskId, "completed");
    equal(done.result.content[0].text, "raced");
    equal(received, Array.from({ length: ROUNDS }, (_, i) => ({ [`q${i}`]: { roots: [{ uri: `file:///r${i}` }] } })), "every answer reached the run");
  });

  test("past its ttl a task is unknown on every instance, its run's signal aborted, and it no longer counts against max", async (c) => {
    // A clock of the test's own: the store's keys get the task's whole lifetime, whatever the test's pace.
    let now = Date.now();
    const { app, apps, seen } = await server(c, { ttlMs: 60_000, max: 2, clock: { now: () => now } });
    const old = await tasksClient(app).create("controlled");
    now += 30_000;
    const young = await tasksClient(app).create("controlled");
    matches((await call(app, "tools/call", { name: "try_task" }, { caps })).body.result.content[0].text, /full/);
    now += 30_001;
    for (const instance of apps) errorOf(c, (await tasksClient(instance).get(old.taskId)).body, -32602);
    await c.until(() => ok(seen.signalAborted.includes(old.taskId), "the expired task's run was aborted"));
    for (const instance of apps) equal((await tasksClient(instance).get(young.taskId)).body.result.status, "working");
    equal((await tasksClient(app).create("controlled"))?.resultType, "task", "room again once a task expired");
    now += 30_000;
    for (const instance of apps) {
      const client = tasksClient(instance);
      errorOf(c, (await client.get(young.taskId)).body, -32602);
      errorOf(c, (await client.update(young.taskId, {})).body, -32602);
      errorOf(c, (await client.cancel(young.taskId)).body, -32602);
    }
  });

  test("a listen stream is told a task's expiry when it happens, with nobody asking, then the id reads as unknown", async (c) => {
    const { app, seen } = await server(c, { ttlMs: 300 });
    const { taskId } = await tasksClient(app).create("controlled");
    const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "exp" })));
    try {
      equal((await sse.next(c.settleMs)).params.notifications, { taskIds: [taskId] }, "the acknowledgement");
      includes((await sse.next(c.settleMs)).params, { taskId, status: "working" });
      const frame = await sse.next(1000 + c.settleMs);
      c.shape("taskNotification", frame);
      includes(frame.params, { taskId, status: "failed", statusMessage: "Expired", error: { code: -32603, message: "Task expired before it finished" } });
    } finally {
      await sse.close();
    }
    await c.until(() => ok(seen.signalAborted.includes(taskId), "the run's signal aborted"));
    errorOf(c, (await tasksClient(app).get(taskId)).body, -32602);
  });

  test("a task carries its origin: run reads it, every instance's store gives it back, live and finished", async (c) => {
    const origins: unknown[] = [];
    const tool = defineTool({
      name: "traced",
      handler: (event) =>
        mcpTask(event, {
          async run(task) {
            origins.push(task.origin);
            await sleep(1);
            return { content: [] };
          },
        }),
    });
    const instances = await c.instances();
    const plugins = instances.map((own) => mcpTasks({ ...own, origin: (e) => ({ traceparent: e.req.headers.get("traceparent") ?? "none" }) }));
    const app = roundRobin(plugins.map((plugin) => appFor(defineMcpHandler({ name: "o", version: "1", tools: [tool] }, { extensionPlugins: [plugin] }))));
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const { taskId } = (await call(app, "tools/call", { name: "traced" }, { caps, headers: { traceparent } })).body.result;
    equal(origins, [{ traceparent }], "run's task.origin");
    for (const plugin of plugins) equal((await plugin.store.read(taskId, UNBOUND))?.origin, { traceparent }, "the origin as read");
    await untilStatus(c, app, taskId, "completed");
    for (const plugin of plugins) {
      const task = await plugin.store.read(taskId, UNBOUND);
      equal([task?.json === undefined, task?.origin], [false, { traceparent }], "a finished task's origin");
    }
  });

  if (!shared || !kit.loseInstance) return;

  test("a lost instance's task fails on the others with the lost-instance error, and its listeners are told", async (c) => {
    const instances = await c.instances();
    ok(instances.length >= 2, "two instances or more");
    const { apps } = tasksApp({}, { instances });
    const [worker, other] = [apps[0]!, apps[1]!];
    const { taskId } = await tasksClient(worker).create("controlled");
    const sse = sseReader(await other.fetch(modernRequest("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { caps, id: "lost" })));
    try {
      await sse.next(c.settleMs);
      includes((await sse.next(c.settleMs)).params, { taskId, status: "working" });
      await kit.loseInstance!(instances[0]!.store!);
      const leaseMs = instances[0]!.store!.leaseMs ?? 15_000;
      const frame = await sse.next(2 * leaseMs + c.settleMs);
      includes(frame.params, { taskId, status: "failed", error: LOST });
      const failed = (await tasksClient(other).get(taskId)).body.result;
      includes(failed, { status: "failed", error: LOST });
    } finally {
      await sse.close();
    }
  });
}
