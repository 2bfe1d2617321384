// What an instance keeps in memory to answer reads without the file or a hash. The finished tasks it read
// lately: a finished task's row never changes (every write's compare-and-set needs a live task) and leaves
// the file only once expired, when the runtime answers "unknown" by its `expiresAt` anyway. So `tasks/get` of a finished task, most of what clients ask, reads
// the file once per instance. An entry past its expiry is dropped, not served: the id may be taken again.
import type { TaskRecord } from "../store.ts";

/** How many finished tasks an instance keeps: their `tasks/get` JSON is most of their size. */
export const FINISHED_KEPT = 2048;

interface Kept {
  readonly owner: string;
  readonly record: TaskRecord;
}

export function finishedCache(now: () => number) {
  const kept = new Map<string, Kept>();
  return {
    /** The kept record of `id`, if it is finished, not expired and `owner`'s (the stored owner hash). */
    get(id: string): Kept | undefined {
      const found = kept.get(id);
      if (found && found.record.expiresAt <= now()) kept.delete(id);
      else return found;
      return undefined;
    },
    keep(id: string, owner: string, record: TaskRecord): void {
      if (kept.size >= FINISHED_KEPT) kept.delete(kept.keys().next().value!);
      kept.set(id, { owner, record });
    },
    forget: (id: string) => void kept.delete(id),
  };
}

/** `hash` memoised for the callers seen lately: one HMAC per caller, not per request. */
export function ownerHashes(hash: (owner: string) => string): (owner: string) => string {
  const hashes = new Map<string, string>();
  return (owner) => {
    let found = hashes.get(owner);
    if (found === undefined) {
      found = hash(owner);
      if (hashes.size >= 1024) hashes.delete(hashes.keys().next().value!);
      hashes.set(owner, found);
    }
    return found;
  };
}
