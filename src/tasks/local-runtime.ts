// The runtime over a store only this process uses (memory): a task's actor takes each event first and
// what it became is written; such a write cannot conflict and is synchronous.
import type { TaskEvent } from "../../machines/task.machine.ts";
import { isNotified, type TaskSnapshot } from "./envelopes.ts";
import { afterEvent, interruptAttempt, type Interrupted, type InterruptKind } from "./interrupt.ts";
import { toGetTaskResultJson } from "./kept-json.ts";
import { after, type MaybePromise } from "../utils/maybe-promise.ts";
import type { EventOf } from "./changes.ts";
import type { LocalTask } from "./local-tasks.ts";
import { BaseTaskRuntime } from "./runtime-base.ts";
import type { TaskRuntimeOptions, TaskRuntimeStats } from "./runtime.ts";
import type { TaskRecord } from "./store.ts";
import type { JsonObject } from "../protocol/types.ts";
import { executorFailed } from "./logic/task-events.ts";

export class LocalTaskRuntime extends BaseTaskRuntime {
  constructor(options: TaskRuntimeOptions) {
    super(options);
    this.connect();
  }

  dispatch(task: LocalTask, event: TaskEvent): void {
    // After the final state the actor is gone: a late outcome changes nothing.
    task.actor?.send(event);
  }

  protected recorded(task: LocalTask, snapshot: TaskSnapshot, notified: boolean, final: boolean): void {
    const version = ++task.applied;
    let json: string | undefined;
    if (final) {
      // The run's result JSON, made when it finished, is used when the chart kept that very result.
      const result = task.result;
      task.result = undefined;
      json = toGetTaskResultJson(snapshot, result && snapshot.context.result === result.value ? result.json : undefined);
    }
    void this.store.write(task.id, { version, snapshot, statusChanged: notified, json });
    if (notified && this.listeners.taskCount) this.listeners.changed(task.id, version, snapshot);
  }

  protected judge(id: string, _owner: string, task: TaskRecord | undefined): TaskRecord | undefined {
    if (!task) return undefined;
    if (task.expiresAt > this.now()) return task;
    if (task.json === undefined) {
      const here = this.local.get(id);
      if (here) this.local.expireHere(here);
    }
    return undefined;
  }

  send(id: string, owner: string, eventOf: EventOf): MaybePromise<LocalTask | boolean> {
    const task = this.local.get(id);
    const actor = task?.actor;
    if (!actor || task.owner !== owner || task.expiresAt <= this.now()) return after(this.find(id, owner), (found) => !!found);
    const event = eventOf(task.snapshot);
    if (event) actor.send(event);
    return task;
  }

  /** Fails a task running here (a store only this process uses has no executor: nothing else can be). */
  async fail(id: string, message: string, data: JsonObject): Promise<void> {
    const task = this.local.get(id);
    if (task) this.dispatch(task, executorFailed(message, data, this.now()));
  }

  /** Stops the attempt running here as a crash or a drain of this process would, and runs the next one here (interrupt.ts). */
  interrupt(id: string, how: InterruptKind): Promise<Interrupted> {
    const { store, listeners, options } = this;
    return interruptAttempt(
      {
        store,
        now: this.now,
        local: (taskId) => this.local.get(taskId),
        leave: (task, why) => this.leave(task, why),
        async record(taskId, task, event, attempt) {
          const next = afterEvent(task, event);
          if (!next) return undefined;
          const notified = isNotified(task.snapshot, next.snapshot);
          if ((await store.write(taskId, { version: next.version, snapshot: next.snapshot, statusChanged: notified, fence: { attempt } })) !== "written") return undefined;
          if (notified && listeners.taskCount) listeners.changed(taskId, next.version, next.snapshot);
          return next;
        },
        runHere: async (taskId, owner, task, attempt) => {
          const loaded = await store.loadRun!(taskId);
          const run = loaded.outcome === "loaded" ? options.runs.get(loaded.record.name) : undefined;
          if (loaded.outcome !== "loaded" || !run) throw new Error(`interruptTask: the run record of task ${taskId} could not be loaded (${loaded.outcome})`);
          this.runAttemptHere(taskId, owner, task, loaded.record, run, attempt);
        },
      },
      id,
      how,
    );
  }

  get stats(): TaskRuntimeStats {
    return { localTasks: this.local.size, listenedTasks: this.listeners.taskCount, listeners: this.listeners.listenerCount, timer: false, casRetries: 0 };
  }
}
