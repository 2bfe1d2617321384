// What the chart predicts a task looks like on the wire, spelled out here from the extension's rules rather
// than borrowed from src/tasks/envelopes.ts, so the model tests check the envelopes instead of repeating it.
import type { SnapshotFrom } from "xstate";
import type { taskMachine } from "../../../machines/task.machine.ts";

export type TaskSnapshot = SnapshotFrom<typeof taskMachine>;

const iso = (ms: number) => new Date(ms).toISOString();

/** The Task fields of a snapshot (what the CreateTaskResult handle carries besides `resultType`). */
export function taskFields(s: TaskSnapshot): Record<string, unknown> {
  const c = s.context;
  return {
    taskId: c.taskId,
    status: s.value,
    ...(c.statusMessage !== undefined && { statusMessage: c.statusMessage }),
    createdAt: iso(c.createdAt),
    lastUpdatedAt: iso(c.lastUpdatedAt),
    ttlMs: c.ttlMs,
    pollIntervalMs: c.pollIntervalMs,
  };
}

/** DetailedTask: the Task fields plus exactly the one its status calls for. */
export function detailedTask(s: TaskSnapshot): Record<string, unknown> {
  const c = s.context;
  return {
    ...taskFields(s),
    ...(s.value === "input_required" && { inputRequests: c.inputRequests }),
    // The inlined result is a 2026-07-28 CallToolResult, so it carries `resultType: "complete"` on the wire;
    // the chart keeps the tool's result without it.
    ...(s.value === "completed" && { result: { resultType: "complete", ...c.result } }),
    ...(s.value === "failed" && { error: c.error }),
  };
}

/** What every 2026-07-28 result carries besides its own fields: the server's serverInfo (the driven app's). */
export const RESULT_META = { _meta: { "io.modelcontextprotocol/serverInfo": { name: "driven-tasks", version: "1" } } };

/** The result of a tasks/get for this snapshot. */
export const predictedGet = (s: TaskSnapshot): Record<string, unknown> => ({ resultType: "complete", ...detailedTask(s), ...RESULT_META });

/** The empty acknowledgement tasks/update and tasks/cancel answer with. */
export const PREDICTED_ACK = { resultType: "complete", ...RESULT_META };
