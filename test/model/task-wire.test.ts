// The chart's paths replayed over the wire (task-wire-replay.ts) with the in-memory store.
import { expect } from "vitest";
import { FinishedTask } from "../../src/tasks/store.ts";
import { replaySuite } from "./task-wire-replay.ts";

replaySuite({
  label: "memory store",
  instances: () => [{}],
  remote: false,
  released([plugin], taskId) {
    expect(plugin!.store.get(taskId, undefined), "a finished task lets its actor go").toBeInstanceOf(FinishedTask);
  },
  gone([plugin]) {
    expect(plugin!.store.size).toBe(0);
  },
});
