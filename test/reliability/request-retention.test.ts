// What a task keeps of the request that created it: nothing, once the request is answered. A task lives far
// longer than its request, and a request holds its h3 event, its context and (over HTTP) Node's request and
// response objects; a task that kept them would weigh several KB more for as long as it lives, and each of
// them, once dead in the old generation, would keep its request alive through every scavenge.
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineMcpHandler, defineTool } from "../../src/index.ts";
import { mcpTask, mcpTasks } from "../../src/tasks/index.ts";
import { call, TASKS } from "../../src/tasks/testing/client.ts";
import { collectGarbage } from "./support.ts";

const forever = new Promise<never>(() => {});
const TASK_CAPS = { caps: { extensions: { [TASKS]: {} } } };

/** An app whose task tool stays working, with a weak reference to each creating request's event. */
function appKeeping(run: (event: object) => () => Promise<never>) {
  const events: WeakRef<object>[] = [];
  const tool = defineTool({
    name: "hang",
    description: "A task that stays working",
    execution: { taskSupport: "required" },
    inputSchema: z.object({ text: z.string() }),
    handler: (event) => {
      events.push(new WeakRef(event));
      return mcpTask(event, { run: run(event) });
    },
  });
  const handler = defineMcpHandler({ name: "s", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks()] });
  return { app: new H3().all("/mcp", handler), events };
}

async function createWorking(app: H3, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { body } = await call(app, "tools/call", { name: "hang", arguments: { text: "x" } }, TASK_CAPS);
    expect(body.result, JSON.stringify(body)).toMatchObject({ resultType: "task", status: "working" });
    ids.push(body.result.taskId);
  }
  return ids;
}

describe("a task and the request that created it", () => {
  it("a working task keeps nothing of its creating request once it is answered", async () => {
    const { app, events } = appKeeping(() => () => forever);
    const ids = await createWorking(app, 8);
    await collectGarbage(4);
    expect(events.filter((e) => e.deref() !== undefined).length).toBe(0);
    // The tasks are still there, working: what went is only the requests.
    const { body } = await call(app, "tasks/get", { taskId: ids[0] }, TASK_CAPS);
    expect(body.result.status).toBe("working");
  });

  // The check must be able to fail: a run that closes over its event keeps it, and the check sees it.
  it("sees a run that keeps its event", async () => {
    const { app, events } = appKeeping((event) => () => (void event, forever));
    await createWorking(app, 3);
    await collectGarbage(4);
    expect(events.filter((e) => e.deref() !== undefined).length).toBe(3);
  });
});
