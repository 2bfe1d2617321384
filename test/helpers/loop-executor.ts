// A delivery loop in this process that calls a worker's `execute` and, for a released attempt, waits for a
// web instance to start the next one: an executor that does not redeliver by itself, for the executor kit
// on any shared store (test/redis/executor-kit.test.ts, test/sqlite/executor-kit.test.ts).
import type { TaskAttempt, TaskExecutionHost, TaskExecutor } from "../../src/tasks/index.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Delivers each attempt once (keyed by task id and attempt) to the served hosts in turn. */
export function loopExecutor() {
  const hosts: TaskExecutionHost[] = [];
  const keys = new Set<string>();
  let closed = false;
  let turn = 0;
  const deliver = async (taskId: string) => {
    while (!closed) {
      const host = hosts[turn++ % Math.max(1, hosts.length)];
      if (!host) {
        await pause(20);
        continue;
      }
      const execution = await host.execute(taskId).catch(() => ({ outcome: "taken" as const, retryInMs: 50 }));
      switch (execution.outcome) {
        case "taken":
          await pause(Math.min(execution.retryInMs, 200));
          continue;
        case "draining":
        case "unserved":
          await pause(20);
          continue;
        default:
          // finished, fenced, gone: done. released: a web instance starts the next attempt.
          return;
      }
    }
  };
  const executor: TaskExecutor = {
    name: "loop",
    redelivers: false,
    async start(attempt: TaskAttempt) {
      const key = `${attempt.taskId}:${attempt.attempt}`;
      if (keys.has(key)) return;
      keys.add(key);
      void deliver(attempt.taskId);
    },
  };
  return {
    executor,
    serve(host: TaskExecutionHost) {
      hosts.push(host);
      return {
        async stop() {
          hosts.splice(hosts.indexOf(host), 1);
          return host.drain({ deadlineMs: 0 });
        },
      };
    },
    close() {
      closed = true;
    },
  };
}
