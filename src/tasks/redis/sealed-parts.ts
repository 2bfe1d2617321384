// Besides its run record, what Redis holds sealed of a task with a run: its live snapshot (the questions
// asked and, between an answer and the next round, the answers) and its change messages (a client's answer
// travels as the event). Each is bound to its task and to what it is, so none can stand in for another.
// A task without a run (a closure) keeps both in the clear.
import { ErrorCode, McpJsonRpcError } from "../../protocol/errors.ts";
import type { TaskSnapshotLike } from "../envelopes.ts";
import type { StoreKeys } from "./keys.ts";
import { isSealed, type RunSeal } from "../run-seal.ts";
import { encodeSnapshot } from "./snapshot-codec.ts";

export function createSealedParts(keys: StoreKeys, seal: RunSeal | undefined) {
  const snapshotBinding = (id: string) => `${keys.task(id)}#snapshot`;
  const changeBinding = (id: string) => `${keys.task(id)}#change`;
  return {
    /** A live snapshot as stored: sealed for a task with a run (when the store can seal). */
    snapshot(id: string, snapshot: TaskSnapshotLike, hasRun: boolean): string {
      const json = encodeSnapshot(snapshot);
      return hasRun && seal ? seal.sealText(snapshotBinding(id), json) : json;
    },
    /** A stored snapshot's JSON; a clear -32603 when a sealed one does not open. */
    openSnapshot(id: string, stored: string): string {
      if (!isSealed(stored)) return stored;
      const opened = seal?.openText(snapshotBinding(id), stored) ?? { refused: "it is sealed and this server has no `secret`" };
      if ("text" in opened) return opened.text;
      throw new McpJsonRpcError(ErrorCode.InternalError, `Task ${id} cannot be read by this server: ${opened.refused.replace("record", "snapshot")}`);
    },
    /** How a change message of this task is sealed, if it is. */
    changeSealer(id: string, hasRun: boolean): ((text: string) => string) | undefined {
      return hasRun && seal ? (text) => seal.sealText(changeBinding(id), text) : undefined;
    },
    /** A sealed change message's content, or undefined when it does not open. */
    openChange(id: string, sealed: string): string | undefined {
      const opened = seal?.openText(changeBinding(id), sealed);
      return opened && "text" in opened ? opened.text : undefined;
    },
  };
}
