// Runs found by name executing inside the tasks Durable Object under workerd (durable-object/runs-app.ts,
// `durableObjectExecutor`), the Worker exporting `serve(app, { manual: true }).fetch`: the web isolate stores
// each task and hands its attempt to the object, whose alarm keeps it going. Besides the essentials both
// entries pass (durable-object/runs-smoke.ts): after a SIGKILL of the wrangler process and a restart on the
// same --persist-to folder, the run lost with the object is executed again by the object's alarm as its
// next attempt, from its checkpoint, while a closure's task that died with its isolate fails as lost.
import { expect, it } from "vitest";
import { ATTEMPT, describeRunsInObject } from "./durable-object/runs-smoke.ts";

const LOST = { code: -32603, message: "The server instance running this task was lost" };

describeRunsInObject("runs found by name executing inside the tasks Durable Object under workerd", "workerd-do-runs", "runs-worker.ts", (smoke) => {
  it("after a SIGKILL and a restart on the same state, the object runs a named run again as its next attempt from its checkpoint; a closure fails as lost", async () => {
    const counting = await smoke.create("count", { steps: 30 });
    const blocked = await smoke.create("block_task");
    const before = await smoke.until(counting, ["working"], (t) => /^step ([3-9]|\d\d)$/.test(t.statusMessage ?? ""));
    expect(before._meta?.[ATTEMPT]).toBe(1);
    await smoke.worker().kill();
    await smoke.relaunch(2);

    const done = await smoke.until(counting, ["working"], (t) => t.status === "completed", 60_000);
    expect(done._meta?.[ATTEMPT]).toBe(2);
    const text = done.result.content[0].text as string;
    const from = Number(/^counted to 30 from (\d+) in attempt 2$/.exec(text)?.[1]);
    // Attempt 2 went on from the checkpoint attempt 1 saved, not from the start.
    expect(from).toBeGreaterThanOrEqual(3);
    const failed = await smoke.until(blocked, ["working"], (t) => t.status === "failed", 30_000);
    expect(failed.error).toEqual(LOST);
  }, 150_000);
});
