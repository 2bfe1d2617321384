// How one store hears the changes other isolates write: it long-polls the tasks object (`watch`) for the
// tasks it runs or listens to, one call at a time, and hands each change to the runtime's feed. On Workers
// a promise belongs to the request that started it and stops with it, so a loop started by a request now
// over may wait forever without failing: every store call that needs the watch to run (a creation, a
// listen read) restarts it when its last call started longer ago than a call can last. A store serving
// runs found by name also hears every release (a hand-off, a task created for a claim) for a while after
// each of its calls, so that an instance serving the run claims it at once. A call answers with the cursor
// of the whole log, so a task (or the releases) taken up while a call that does not cover it waits would
// have its changes of meanwhile skipped: such an interest starts a new call at once, from the earliest
// cursor, and the answer of the call it replaces is let go.
import type { TaskChange, TaskFeed } from "../store.ts";
import type { TasksObjectStub } from "./namespace.ts";

/** How long one watch call waits for a change before it answers empty. */
const WAIT_MS = 2000;
/** A call not answered within its wait and this much more is taken for stopped. */
const STALL_MS = 1500;
/** The pause after a failed call (the object restarting, a network fault). */
const RETRY_MS = 250;

export interface Watcher {
  /** Watches `id` until `until` (epoch ms; Infinity until `forget`), from `cursor` at the latest. */
  watch(id: string, until: number, cursor: number): void;
  forget(id: string): void;
  /** Hears every release until `until` (epoch ms), from `cursor` at the latest. */
  hearReleases(until: number, cursor: number): void;
  /** Stops watching for good. */
  close(): void;
  readonly size: number;
}

export function createWatcher(stub: () => TasksObjectStub, feed: () => TaskFeed): Watcher {
  const watched = new Map<string, number>();
  let cursor: number | undefined;
  let generation = 0;
  let startedAt = 0;
  let running = false;
  let closed = false;
  let releasesUntil = 0;
  /** What the call waiting now covers: its tasks, and whether it hears releases. */
  let covered: { ids: ReadonlySet<string>; releases: boolean } | undefined;
  const wanted = () => watched.size > 0 || releasesUntil > Date.now();

  const prune = (at: number) => {
    for (const [id, until] of watched) if (until <= at) watched.delete(id);
  };

  const loop = async (mine: number) => {
    while (mine === generation && !closed) {
      prune(Date.now());
      if (!wanted() || cursor === undefined) {
        // Nothing left to hear: the next interest starts from the cursor its own call saw.
        cursor = undefined;
        break;
      }
      startedAt = Date.now();
      const ids = [...watched.keys()];
      const releases = releasesUntil > Date.now();
      covered = { ids: new Set(ids), releases };
      try {
        const answer = await stub().watch(cursor, ids, WAIT_MS, releases);
        if (mine !== generation) return;
        cursor = Math.max(cursor, answer.cursor);
        const to = feed();
        if (answer.missed) to.missed();
        for (const { id, name } of answer.released) to.released?.(id, name);
        for (const raw of answer.changes) {
          const change = JSON.parse(raw) as TaskChange;
          if (to.wants(change.id, change.version)) to.changed(change);
        }
      } catch {
        if (mine !== generation) return;
        // Whatever was written meanwhile is caught up with by the runtime's next read.
        feed().missed();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
    if (mine === generation) running = false;
  };

  /** Starts the loop unless it runs; `uncovered`: also when the call waiting now does not cover a new interest. */
  const start = (uncovered = false) => {
    if (closed || !wanted()) return;
    if (running && !uncovered && Date.now() - startedAt < WAIT_MS + STALL_MS) return;
    running = true;
    startedAt = Date.now();
    void loop(++generation);
  };

  return {
    watch(id, until, at) {
      // The earliest cursor any interested call saw: no change after it is skipped.
      cursor = cursor === undefined ? at : Math.min(cursor, at);
      watched.set(id, Math.max(watched.get(id) ?? 0, until));
      start(running && covered !== undefined && !covered.ids.has(id));
    },
    hearReleases(until, at) {
      cursor = cursor === undefined ? at : Math.min(cursor, at);
      releasesUntil = Math.max(releasesUntil, until);
      start(running && covered !== undefined && !covered.releases);
    },
    forget(id) {
      watched.delete(id);
    },
    close() {
      closed = true;
      generation++;
      watched.clear();
      releasesUntil = 0;
    },
    get size() {
      return watched.size;
    },
  };
}
