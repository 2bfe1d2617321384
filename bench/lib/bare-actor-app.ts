// Row (f)'s app: bare h3 whose POST /mcp also runs one task actor's whole life, as h3-mcp does for a
// task whose run completes at once (create, subscribe, start, work.done, stop), then answers a task
// handle. Served over HTTP by targets/bare-actor.ts, in-process by bench/ab.ts.
import { H3 } from "h3";
import { taskMachine } from "h3-mcp/machines";
import { createActor } from "xstate";

const RESULT = { resultType: "complete", content: [{ type: "text", text: "hello" }] };

export function createBareActorApp(): H3 {
  return new H3().post("/mcp", async (event) => {
    const body = (await event.req.json()) as { id?: string | number };
    const taskId = crypto.randomUUID();
    const now = Date.now();
    const actor = createActor(taskMachine, { id: taskId, input: { taskId, now, ttlMs: null, pollIntervalMs: 1000 } });
    let status: unknown;
    actor.subscribe((snapshot) => {
      status = snapshot.value;
    });
    actor.start();
    const { context } = actor.getSnapshot();
    const handle = {
      resultType: "task",
      taskId,
      status: "working",
      createdAt: new Date(context.createdAt).toISOString(),
      lastUpdatedAt: new Date(context.lastUpdatedAt).toISOString(),
      ttlMs: context.ttlMs,
      pollIntervalMs: context.pollIntervalMs,
    };
    actor.send({ type: "work.done", result: RESULT, at: Date.now() });
    // A chart that did not finish the task would make this row measure less than a task's life.
    if (status !== "completed") throw new Error(`bare-actor: the task ended ${String(status)}`);
    actor.stop();
    return { jsonrpc: "2.0", id: body.id ?? null, result: handle };
  });
}
