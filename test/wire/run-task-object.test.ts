// The object a task's run gets (`run(task)`), from a real tools/call: user code reaches its task by the
// members the tasks page documents and by nothing else, no other member and no path to the engine's record
// of the task (its actor, its write queue, who else follows it).
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { defineTaskRun, mcpTask, mcpTasks, memoryTaskStore } from "../../src/tasks/index.ts";
import { LocalTask } from "../../src/tasks/local-tasks.ts";
import { until } from "../helpers/wait.ts";
import { appFor, call, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} } };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function setup() {
  const seen: { closure?: object; named?: object } = {};
  const gate = deferred();
  const named = defineTaskRun({
    name: "named",
    async run(task) {
      seen.named = task;
      await gate.promise;
      return "named done";
    },
  });
  const tools = [
    defineTool({
      name: "closure",
      execution: { taskSupport: "required" },
      handler: (event) =>
        mcpTask(event, {
          async run(task) {
            seen.closure = task;
            await gate.promise;
            return "closure done";
          },
        }),
    }),
    defineTool({ name: "named", execution: { taskSupport: "required" }, handler: (event) => mcpTask(event, { run: named, input: {} }) }),
  ];
  const plugin = mcpTasks({ store: memoryTaskStore(), runs: [named], origin: () => ({ tenant: "t1" }) });
  const app = appFor(defineMcpHandler({ name: "view", version: "1", tools }, { extensionPlugins: [plugin] }));
  return { app, seen, gate };
}

/** Every object reachable from `root` by reading properties (own and inherited, getters included). */
function reachable(root: object): { objects: object[]; keys: Set<string> } {
  const objects: object[] = [];
  const keys = new Set<string>();
  const queue: object[] = [root];
  const visited = new Set<object>();
  while (queue.length) {
    const object = queue.shift()!;
    if (visited.has(object)) continue;
    visited.add(object);
    objects.push(object);
    for (let proto: object | null = object; proto && proto !== Object.prototype && proto !== Function.prototype; proto = Object.getPrototypeOf(proto)) {
      for (const key of Reflect.ownKeys(proto)) {
        if (typeof key === "string") keys.add(key);
        let value: unknown;
        try {
          value = Reflect.get(proto, key, object);
        } catch {
          continue;
        }
        if (value !== null && (typeof value === "object" || typeof value === "function")) queue.push(value);
      }
    }
  }
  return { objects, keys };
}

/** The names of `object`'s members, own and inherited (not Object's). */
function members(object: object): string[] {
  const names = new Set<string>();
  for (let proto: object | null = object; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const key of Reflect.ownKeys(proto)) if (key !== "constructor") names.add(String(key));
  }
  return [...names].sort();
}

/** What the tasks page and McpTaskContext document of a run's task; a run found by name also has its attempt's. */
const DOCUMENTED = ["origin", "requestInput", "signal", "sleep", "taskId", "update"];
const DOCUMENTED_ATTEMPT = [...DOCUMENTED, "attempt", "checkpoint", "saveCheckpoint"].sort();

/** The engine's record's own fields: none is a name user code can read through its task. */
const ENGINE_FIELDS = ["actor", "observer", "watch", "applied", "followers", "sync", "fence", "maxAttempts", "leaving", "stopped", "owner", "expiresAt"];

describe("the task a run gets", () => {
  for (const tool of ["closure", "named"] as const) {
    it(`${tool}: it has the documented members only, and no property path leads to the actor or the engine's record of the task`, async () => {
      const { app, seen, gate } = setup();
      const created = (await call(app, "tools/call", { name: tool }, { caps })).body.result;
      expect(created.resultType).toBe("task");
      await until(() => expect(seen[tool]).toBeDefined());
      const task = seen[tool]!;
      expect(members(task)).toEqual(tool === "closure" ? DOCUMENTED : DOCUMENTED_ATTEMPT);
      const { objects, keys } = reachable(task);
      expect(objects.some((object) => object instanceof LocalTask)).toBe(false);
      // An XState actor (and its system) is found by the methods every actor has.
      expect(objects.some((object) => typeof (object as { getSnapshot?: unknown }).getSnapshot === "function")).toBe(false);
      for (const field of ENGINE_FIELDS) expect(keys.has(field), `a path through "${field}"`).toBe(false);
      // What the page documents still works on that object.
      const run = task as { taskId: string; origin?: unknown; signal: AbortSignal; update(u: { statusMessage: string }): void };
      expect(run.taskId).toBe(created.taskId);
      expect(run.origin).toEqual({ tenant: "t1" });
      expect(run.signal.aborted).toBe(false);
      run.update({ statusMessage: "half way" });
      await until(async () => expect((await call(app, "tasks/get", { taskId: created.taskId }, { caps })).body.result.statusMessage).toBe("half way"));
      gate.resolve();
      await until(async () => expect((await call(app, "tasks/get", { taskId: created.taskId }, { caps })).body.result.status).toBe("completed"));
      expect(reachable(task).objects.some((object) => object instanceof LocalTask)).toBe(false);
    });
  }
});
