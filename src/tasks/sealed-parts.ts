// Besides its run record, what a store outside this process (Redis, Postgres, SQLite) holds sealed of a task with a run: its live snapshot once it holds
// anything of the run's or a client's (a status message, the questions asked and, between an answer and the
// next round, the answers), and its change messages (a client's answer travels as the event). Each is bound
// to its task and to what it is, so none can stand in for another. A snapshot holding none of that (a new
// task's: ids, times, the attempt) is kept in the clear, where those are anyway, and one in the clear is read
// only while it holds none of it, so a snapshot put there in the clear cannot ask or answer anything. A task
// without a run (a closure) keeps both in the clear.
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import type { TaskContext } from "../../machines/task.machine.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import type { TaskWrite } from "./store.ts";
import { isSealed, type RunSeal } from "./run-seal.ts";
import { decodeSnapshot, encodeSnapshot } from "./snapshot-codec.ts";

/** `taskKey` names a task as the store does (its key, or its schema and id): the seal binds to it. */
export function createSealedParts(taskKey: (id: string) => string, seal: RunSeal | undefined) {
  const snapshotBinding = (id: string) => `${taskKey(id)}#snapshot`;
  const changeBinding = (id: string) => `${taskKey(id)}#change`;
  return {
    /** A live snapshot as stored: sealed for a task with a run (when the store can seal) once it holds content. */
    snapshot(id: string, snapshot: TaskSnapshot, hasRun: boolean): string {
      const json = encodeSnapshot(snapshot);
      return hasRun && seal && holdsContent(snapshot.context) ? seal.sealText(snapshotBinding(id), json) : json;
    },
    /**
     * A stored live snapshot, opened and read into the chart; a clear -32603 when a sealed one does not
     * open, or when a task with a run has one in the clear that holds content (put there, not written by us).
     */
    readSnapshot(id: string, chartVersion: string, stored: string, hasRun: boolean): TaskSnapshot {
      if (!isSealed(stored)) {
        const snapshot = decodeSnapshot(id, chartVersion, stored);
        if (hasRun && holdsContent(snapshot.context)) throw unreadable(id, "its snapshot holds what is sealed, in the clear");
        return snapshot;
      }
      const opened = seal?.openText(snapshotBinding(id), stored) ?? { refused: "it is sealed and this server has no `secret`" };
      if ("text" in opened) return decodeSnapshot(id, chartVersion, opened.text);
      throw unreadable(id, opened.refused.replace("record", "snapshot"));
    },
    /**
     * How a change message of this task is sealed, if it is. A final change made where the task runs is
     * not: it carries no event, and its snapshot goes as `finalForChannel` leaves it.
     */
    changeSealer(id: string, hasRun: boolean, change: TaskWrite): ((text: string) => string) | undefined {
      if (change.json !== undefined && !change.event) return undefined;
      return hasRun && seal ? (text) => seal.sealText(changeBinding(id), text) : undefined;
    },
    /** A sealed change message's content, or undefined when it does not open. */
    openChange(id: string, sealed: string): string | undefined {
      const opened = seal?.openText(changeBinding(id), sealed);
      return opened && "text" in opened ? opened.text : undefined;
    },
  };
}

/**
 * A final change as the channel carries it in the clear: the snapshot without the last round's questions
 * and answers. What is left is what the task's kept `tasks/get` answer shows in the clear anyway (status,
 * message, result or error, times), and the chart's own counts.
 */
export function finalForChannel(change: TaskWrite): TaskWrite {
  const { context } = change.snapshot;
  if (isEmpty(context.inputRequests) && isEmpty(context.answers)) return change;
  const snapshot: TaskSnapshot = { value: change.snapshot.value, context: { ...context, inputRequests: {}, inputKeys: {}, answers: {} } };
  return { ...change, snapshot };
}

/** Whether a live snapshot holds anything of the run's or a client's, which a task with a run keeps sealed. */
function holdsContent(context: TaskContext): boolean {
  return context.statusMessage !== undefined || !isEmpty(context.inputRequests) || !isEmpty(context.answers) || context.result !== undefined || context.error !== undefined;
}

function isEmpty(record: Record<string, unknown>): boolean {
  for (const _ in record) return false;
  return true;
}

function unreadable(id: string, why: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InternalError, `Task ${id} cannot be read by this server: ${why}`);
}
