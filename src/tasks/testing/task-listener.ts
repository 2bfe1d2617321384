// The test client's listen stream: the acknowledgement first (which tasks the server agreed to), then each
// notifications/tasks as a task view, in the order they arrive.
import { sseReader } from "./client.ts";
import { taskViewOf, type TaskStatus, type TaskView } from "./test-types.ts";

export interface TaskListener {
  /** The task ids the server agreed to follow (from its acknowledgement); ids it refused are left out. */
  readonly taskIds: string[];
  /** Every task notification read so far. */
  readonly seen: readonly TaskView[];
  /** The next task notification; throws when none arrives within `timeoutMs`. */
  next(timeoutMs?: number): Promise<TaskView>;
  /** Reads task notifications until one has this status (or passes `check`), and returns it. */
  until(check: TaskStatus | ((task: TaskView) => boolean), timeoutMs?: number): Promise<TaskView>;
  /** Ends the stream. */
  close(): Promise<void>;
}

export async function openTaskListener(res: Response, timeoutMs: number, onMessage: (message: any) => void): Promise<TaskListener> {
  const reader = sseReader(res);
  const read = async (ms: number) => {
    const message = await reader.next(ms);
    onMessage(message);
    return message;
  };
  const ack = await read(timeoutMs).catch(async (error: unknown) => {
    await reader.close();
    throw error;
  });
  const seen: TaskView[] = [];

  const next = async (ms = timeoutMs): Promise<TaskView> => {
    const end = Date.now() + ms;
    for (;;) {
      const message = await read(Math.max(1, end - Date.now()));
      if (message?.method !== "notifications/tasks") continue;
      const task = taskViewOf(message.params);
      seen.push(task);
      return task;
    }
  };

  return {
    taskIds: [...((ack?.params?.notifications?.taskIds as string[] | undefined) ?? [])],
    seen,
    next,
    async until(check, ms = timeoutMs) {
      const passes = typeof check === "function" ? check : (task: TaskView) => task.status === check;
      const end = Date.now() + ms;
      for (;;) {
        const task = await next(Math.max(1, end - Date.now()));
        if (passes(task)) return task;
      }
    },
    close: () => reader.close(),
  };
}
