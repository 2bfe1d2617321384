// (f) What one task actor costs by itself: the bare h3 target (bare-h3.ts) whose POST /mcp also
// runs one task actor's whole life, as h3-mcp does for a task whose run completes at once (create,
// subscribe, start, work.done, stop), then answers a task handle. No store, no handlers, no wire
// layer: h3-mcp's task creation cannot be faster than this.
import { H3, serve } from "h3";
import { taskMachine } from "h3-mcp/machines";
import { createActor } from "xstate";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";

const RESULT = { resultType: "complete", content: [{ type: "text", text: "hello" }] };

// h3-mcp formats a task's times once per millisecond (they are mostly the same one); so does this.
let isoMs = Number.NaN;
let isoText = "";
function iso(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

const app = new H3().post("/mcp", async (event) => {
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
    createdAt: iso(context.createdAt),
    lastUpdatedAt: iso(context.lastUpdatedAt),
    ttlMs: context.ttlMs,
    pollIntervalMs: context.pollIntervalMs,
  };
  actor.send({ type: "work.done", result: RESULT, at: Date.now() });
  // A chart that did not finish the task would make this row measure less than a task's life.
  if (status !== "completed") throw new Error(`bare-actor: the task ended ${String(status)}`);
  actor.stop();
  return { jsonrpc: "2.0", id: body.id ?? null, result: handle };
});

const server = serve(app, { port: targetPort(), hostname: HOST, silent: true });
await server.ready();
exitOnSignal(() => server.close(true));
announceReady({ target: "bare-actor", lib: import.meta.resolve("h3-mcp/machines") });
