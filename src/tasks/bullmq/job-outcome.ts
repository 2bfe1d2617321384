// What becomes of a job once its `execute` call ended: done (BullMQ completes it), or delivered again
// at a given time (BullMQ delays it). Kept apart from the worker so the mapping reads as a table.
import type { TaskExecution } from "../executor.ts";

/**
 * When the job must be delivered again (epoch ms), or undefined when its delivery is done: the task
 * ended, or it is gone.
 */
export function redeliveryTime(execution: TaskExecution, now: number, unservedRetryMs: number): number | undefined {
  switch (execution.outcome) {
    case "finished":
    case "gone":
      return undefined;
    case "handed_off":
    case "draining":
      // Handed off: another worker takes it at once.
      return now;
    case "fenced":
      // This worker's lease went while BullMQ's lock on the job stayed its own, so no other worker has the
      // job: nothing else delivers the task's next attempt. The claim decides whether it runs.
      return now;
    case "taken":
      // The previous holder's lease has not lapsed yet (it may still be alive): try once it has.
      return now + Math.max(0, execution.retryInMs);
    case "unserved":
      // Left for a worker that serves this run's name and version (a newer deploy, perhaps).
      return now + unservedRetryMs;
  }
}
