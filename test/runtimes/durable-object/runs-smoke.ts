// What both runs smokes share (durable-object-runs.smoke.ts, durable-object-runs-app-fetch.smoke.ts): one
// Worker entry of runs-app.ts under `wrangler dev` on a state folder of its own, a client for it, and the
// essentials every entry must pass: a named run completes in the object as its first attempt, an input
// round answered after the creating request is long over resumes the run there, and workerd had no
// alarm of the object to cancel meanwhile.
import { copyFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { overHttp } from "../../helpers/demo-process.ts";
import { expectResult, S } from "../../helpers/schemas.ts";
import { call, TASKS } from "../../helpers/wire.ts";
import { launchWorker, type Launched } from "../launch.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
export const ATTEMPT = "io.github.h3-mcp/attempt";
/** The files of the runs Workers, copied into the smokes' app project. */
const FILES = ["runs-app.ts", "runs-worker.ts", "runs-worker-app-fetch.ts", "wrangler.runs.jsonc"];

export interface RunsSmoke {
  /** Starts the entry again on the same state folder (after `worker().kill()`), as launch number `run`. */
  relaunch(run: number): Promise<void>;
  worker(): Launched;
  post(method: string, params: Record<string, unknown>): Promise<any>;
  get(taskId: string): Promise<any>;
  /** Calls task tool `name`; its task id. */
  create(name: string, args?: Record<string, unknown>): Promise<string>;
  /** Reads the task until `done` says so, checking each status on the way is one of `along`. */
  until(taskId: string, along: string[], done: (task: any) => boolean, ms?: number): Promise<any>;
}

/**
 * Declares the runs smoke of Worker entry `script` (in durable-object/): the essentials, then the tests
 * `more` declares with the same client.
 */
export function describeRunsInObject(title: string, name: string, script: string, more: (smoke: RunsSmoke) => void = () => {}): void {
  describe(title, () => {
    const { app, work } = inject("smokeDirs");
    const state = path.join(work, `${name}-state`);
    let worker: Launched;
    const launch = (run: number) => launchWorker(`${name}-${run}`, { script, config: "wrangler.runs.jsonc", persistTo: state, app, work, ...inject("runtimes") });
    const smoke: RunsSmoke = {
      async relaunch(run) {
        worker = await launch(run);
      },
      worker: () => worker,
      post: async (method, params) => (await call(overHttp(worker.url.href), method, params, { caps })).body,
      get: async (taskId) => expectResult(await smoke.post("tasks/get", { taskId }), S.getTask),
      async create(tool, args = {}) {
        const created = await smoke.post("tools/call", { name: tool, arguments: args });
        expect(created.result?.resultType, JSON.stringify(created)).toBe("task");
        return created.result.taskId as string;
      },
      async until(taskId, along, done, ms = 30_000) {
        const deadline = Date.now() + ms;
        for (;;) {
          const task = await smoke.get(taskId);
          if (done(task)) return task;
          expect(along).toContain(task.status);
          if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} (${task.statusMessage})\n${worker.log().slice(-3000)}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      },
    };

    beforeAll(async () => {
      rmSync(state, { recursive: true, force: true });
      for (const file of FILES) copyFileSync(path.join(here, file), path.join(app, file));
      worker = await launch(1);
    }, 180_000);
    afterAll(async () => {
      await worker?.stop();
    });

    it("a named run completes in the object as its first attempt", async () => {
      const taskId = await smoke.create("count", { steps: 3 });
      const done = await smoke.until(taskId, ["working"], (t) => t.status === "completed");
      expect(done._meta?.[ATTEMPT], JSON.stringify(done)).toBe(1);
      expect(done.result.content).toEqual([{ type: "text", text: "counted to 3 from 0 in attempt 1" }]);
    }, 60_000);

    it("an input round answered long after the creating request resumes the run in the object, as its first attempt", async () => {
      const taskId = await smoke.create("ask_later");
      const asked = await smoke.until(taskId, ["working"], (t) => t.status === "input_required");
      // More than a lease: the object's own instance renews its hold meanwhile, and nothing of the
      // creating request is left.
      await new Promise((r) => setTimeout(r, 8000));
      expect((await smoke.get(taskId)).status).toBe("input_required");
      const key = Object.keys(asked.inputRequests)[0]!;
      expectResult(await smoke.post("tasks/update", { taskId, inputResponses: { [key]: { action: "accept", content: { go: true } } } }), S.updateTask);
      const done = await smoke.until(taskId, ["input_required", "working"], (t) => t.status === "completed");
      expect(done._meta?.[ATTEMPT], JSON.stringify(done)).toBe(1);
      expect(done.result.content).toEqual([{ type: "text", text: "went on in attempt 1" }]);
    }, 60_000);

    it("workerd ran the object's alarms as set: none canceled for being moved while it was due", () => {
      // The object's alarm follows the deliveries not executing; one that followed an executing delivery's
      // past due time was set again and again while the run went on, and moved when it ended.
      expect(worker.log()).not.toMatch(/alarm handler canceled|alarm overdue/);
    });

    more(smoke);
  });
}
