// What the SQLite file holds sealed under the store's `secret` (AES-256-GCM, ../run-seal.ts): a run's
// record (its input, checkpoint and kept answers), and for a task with a run its live snapshot and its
// change rows, which hold the questions asked and the answers given. Each is bound to its task and to what
// it is, so none can stand in for another, nor move to another task. A closure's snapshot and changes are
// kept in the clear, as in the other shared stores.
import { ErrorCode, McpJsonRpcError } from "../../protocol/errors.ts";
import { isSealed, type RunSeal } from "../run-seal.ts";
import type { LoadedRun, TaskRunRecord, TaskSnapshot } from "../store.ts";

export type Sealing = ReturnType<typeof createSealing>;

export function createSealing(seal: RunSeal | undefined, runsNeedSecret: () => TypeError) {
  const sealer = () => {
    if (!seal) throw runsNeedSecret();
    return seal;
  };
  const binding = (id: string, part: string) => `sqlite:${id}#${part}`;
  return {
    record: (id: string, record: TaskRunRecord) => sealer().seal(binding(id, "run"), record),
    openRecord(id: string, stored: string): LoadedRun {
      const opened = sealer().open(binding(id, "run"), stored);
      return "record" in opened ? { outcome: "loaded", record: opened.record } : { outcome: "refused", reason: `Task ${id}'s run cannot be run: ${opened.refused}` };
    },
    /** A live snapshot as stored: sealed for a task with a run. */
    snapshot(id: string, snapshot: TaskSnapshot, hasRun: boolean): string {
      const json = JSON.stringify({ value: snapshot.value, context: snapshot.context });
      return hasRun ? sealer().sealText(binding(id, "snapshot"), json) : json;
    },
    /** A stored live snapshot; a clear -32603 when a task with a run has one that does not open (or one in the clear, put there by hand). */
    readSnapshot(id: string, stored: string, hasRun: boolean): TaskSnapshot {
      if (!hasRun) return JSON.parse(stored) as TaskSnapshot;
      if (!isSealed(stored)) throw unreadable(id, "its snapshot is in the clear, where this store keeps it sealed");
      const opened = seal?.openText(binding(id, "snapshot"), stored) ?? { refused: "it is sealed and this server has no `secret`" };
      if ("text" in opened) return JSON.parse(opened.text) as TaskSnapshot;
      throw unreadable(id, opened.refused.replace("record", "snapshot"));
    },
    /** A change row's body as stored: sealed for a task with a run. */
    change: (id: string, body: string, hasRun: boolean) => (hasRun ? sealer().sealText(binding(id, "change"), body) : body),
    /** A change row's body; undefined when a sealed one does not open (the runtime's catch-up reads the task instead). */
    openChange(id: string, stored: string): string | undefined {
      if (!isSealed(stored)) return stored;
      const opened = seal?.openText(binding(id, "change"), stored);
      return opened && "text" in opened ? opened.text : undefined;
    },
  };
}

function unreadable(id: string, why: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InternalError, `Task ${id} cannot be read by this server: ${why}`);
}
