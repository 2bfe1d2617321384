// The chart's paths replayed over the wire (test/model/task-wire-replay.ts) on two instances sharing Redis,
// requests alternating between them: the run lives on one, half the tasks/get, update and cancel reach the other.
import { expect } from "vitest";
import { replaySuite } from "../model/task-wire-replay.ts";
import { twoRedisInstances } from "./instances.ts";

replaySuite({
  label: "two instances sharing Redis",
  instances: twoRedisInstances("replay"),
  remote: true,
  released(plugins) {
    for (const plugin of plugins) expect(plugin.stats).toMatchObject({ localTasks: 0, listeners: 0 });
  },
  gone(plugins) {
    for (const plugin of plugins) expect([plugin.stats.localTasks, plugin.stats.listeners]).toEqual([0, 0]);
  },
});
