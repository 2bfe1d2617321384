// The chart's paths replayed over the wire (task-wire-replay.ts) with the in-memory store.
import { expect } from "vitest";
import { memoryStore } from "../helpers/memory-store.ts";
import { replaySuite } from "./task-wire-replay.ts";

replaySuite({
  label: "memory store",
  instances: () => [{}],
  remote: false,
  released([plugin], taskId) {
    expect(plugin!.stats.localTasks, "a finished task lets its actor go").toBe(0);
    expect(memoryStore(plugin!).read(taskId, "")?.json).toBeTypeOf("string");
  },
  gone([plugin]) {
    expect(memoryStore(plugin!).size).toBe(0);
  },
});
