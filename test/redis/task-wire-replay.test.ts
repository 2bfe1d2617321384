// The chart's paths replayed over the wire (test/model/task-wire-replay.ts) on two instances sharing Redis,
// requests alternating between them: the run lives on one, half the tasks/get, update and cancel reach the other.
import { expect } from "vitest";
import type { RedisTaskStore } from "../../src/tasks/redis/index.ts";
import { replaySuite } from "../model/task-wire-replay.ts";
import { twoRedisInstances } from "./instances.ts";

const storesOf = (plugins: readonly { store: unknown }[]) => plugins.map((p) => p.store as RedisTaskStore);

replaySuite({
  label: "two instances sharing Redis",
  instances: twoRedisInstances("replay"),
  remote: true,
  released(plugins) {
    for (const store of storesOf(plugins)) expect(store.stats).toMatchObject({ localTasks: 0, listeners: 0 });
  },
  gone(plugins) {
    for (const store of storesOf(plugins)) expect([store.size, store.stats.localTasks, store.stats.listeners]).toEqual([0, 0, 0]);
  },
});
