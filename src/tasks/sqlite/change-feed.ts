// The change feed between the processes sharing one file: every write and hand-off appends a row to
// `mcp_task_changes` in its own transaction, and each store instance reads the rows after its cursor.
// It reads when the file's write-ahead log changes (fs.watch on the file's folder: inotify on Linux, the
// same on Node, Bun and Deno, no CPU while nothing is written), when another store of this process wrote
// (told at once, without waiting for the watch), and on a slow safety poll (a third of the lease), so a
// change reaches every process within milliseconds and an idle process does nothing. Each read first asks
// `PRAGMA data_version`, which moves only when another connection committed: the wakes an instance's own
// writes cause read no rows. Rows older than a minute are trimmed; an instance that fell further behind is
// told it missed changes.
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type { TaskChange, TaskFeed } from "../store.ts";
import type { Database } from "./database.ts";

/** How long change rows are kept: an instance away for longer catches up by reading its tasks again. */
export const CHANGES_KEEP_MS = 60_000;
/** The `version` of a hand-off row (a change row's is the task's version, at least 1). */
const RELEASED = -1;
/** Rows read per statement while catching up. */
const PAGE = 500;
/**
 * A second read this long after a wake: the log's frames are written before the commit is marked in the
 * shared index, so the first read may come too early to see the rows that woke it.
 */
const SETTLE_MS = 25;

interface ChangeRow {
  seq: number;
  id: string;
  version: number;
  name: string | null;
  body: string | null;
}

/** A change row's body: the status, the event and the snapshot (see `TaskChange`). */
interface ChangeBody {
  t: TaskChange["status"];
  e?: TaskChange["event"];
  s?: TaskChange["snapshot"];
}

export function changeBody(change: Omit<TaskChange, "id" | "version">): string {
  const body: ChangeBody = { t: change.status };
  if (change.event) body.e = change.event;
  if (change.snapshot) body.s = change.snapshot;
  return JSON.stringify(body);
}

/** Appending to the feed, inside a write's transaction, and trimming it. */
export function changeLog(db: Database) {
  const append = db.prepare("INSERT INTO mcp_task_changes (id, version, name, at, body) VALUES (?, ?, ?, ?, ?) RETURNING seq");
  const newest = db.prepare("SELECT max(seq) AS seq FROM mcp_task_changes");
  // By number, not by time: the feed has no index on `at`. The newest row stays, so numbers never restart.
  const trim = db.prepare("DELETE FROM mcp_task_changes WHERE seq <= ? AND seq < (SELECT max(seq) FROM mcp_task_changes)");
  /** The newest row at each trim, with when: the rows up to a mark older than CHANGES_KEEP_MS go. */
  const marks: { at: number; seq: number }[] = [];
  let last = 0;
  const appendRow = (id: string, version: number, name: string | null, at: number, body: string | null) => {
    last = append.get<{ seq: number }>(id, version, name, at, body)!.seq;
  };
  return {
    changed: (id: string, version: number, body: string, at: number) => appendRow(id, version, null, at, body),
    released: (id: string, name: string, at: number) => appendRow(id, RELEASED, name, at, null),
    /** The number of the row this instance appended last. */
    appended: () => last,
    trim(at: number): void {
      marks.push({ at, seq: newest.get<{ seq: number | null }>()?.seq ?? 0 });
      let upTo = 0;
      while (marks.length > 1 && marks[0]!.at < at - CHANGES_KEEP_MS) upTo = marks.shift()!.seq;
      if (upTo) trim.run(upTo);
    },
  };
}

// One watch per file in this process, shared by every store instance on it.
const watches = new Map<string, { watcher: FSWatcher | undefined; wakes: Set<() => void> }>();

function watchFile(file: string, wake: () => void): () => void {
  let entry = watches.get(file);
  if (!entry) {
    const names = new Set([basename(file), `${basename(file)}-wal`]);
    const found = { watcher: undefined as FSWatcher | undefined, wakes: new Set<() => void>() };
    try {
      // The folder, not the log itself: the log is deleted when the last connection closes and made again.
      found.watcher = watch(dirname(file), { persistent: false }, (_event, name) => {
        if (name === null || names.has(String(name))) for (const w of found.wakes) w();
      });
      found.watcher.on("error", () => {
        found.watcher?.close();
        found.watcher = undefined;
      });
    } catch {
      // No watch on this platform or folder: the safety poll alone carries the feed.
    }
    watches.set(file, (entry = found));
  }
  entry.wakes.add(wake);
  const held = entry;
  return () => {
    held.wakes.delete(wake);
    if (held.wakes.size) return;
    held.watcher?.close();
    watches.delete(file);
  };
}

/** Wakes every other store instance of this process on `file` (a store here wrote). */
function wakeOthers(file: string, self: () => void): void {
  const entry = watches.get(file);
  if (entry) for (const wake of entry.wakes) if (wake !== self) wake();
}

export interface FeedReader {
  /** This instance committed feed row `seq`: its own reader skips it, the others of this process read now. */
  wrote(seq: number): void;
  /** Stops reading: no watch, no poll. */
  close(): void;
}

/** Reads the feed for one store instance from now on, telling `feed` what it finds. */
export function readChanges(db: Database, parts: { feed: TaskFeed; pollMs: number; openChange: (id: string, stored: string) => string | undefined }): FeedReader {
  const { feed } = parts;
  const after = db.prepare("SELECT seq, id, version, name, body FROM mcp_task_changes WHERE seq > ? ORDER BY seq LIMIT ?");
  const last = db.prepare("SELECT max(seq) AS seq FROM mcp_task_changes");
  // Changes only when another connection committed: a wake by this instance's own write reads nothing.
  const dataVersion = db.prepare("PRAGMA data_version");
  const version = () => dataVersion.get<{ data_version: number }>()?.data_version;
  let seen = db.guard(version);
  let cursor = db.guard(() => last.get<{ seq: number | null }>()?.seq ?? 0);
  let soon: ReturnType<typeof setTimeout> | undefined;
  let settle: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const tell = (row: ChangeRow) => {
    if (row.version === RELEASED) return feed.released?.(row.id, row.name!);
    if (!feed.wants(row.id, row.version) || row.body === null) return;
    const opened = parts.openChange(row.id, row.body);
    if (opened === undefined) return;
    const body = JSON.parse(opened) as ChangeBody;
    feed.changed({ id: row.id, version: row.version, status: body.t, event: body.e, snapshot: body.s });
  };
  const drain = () => {
    if (closed) return;
    let rows: ChangeRow[];
    try {
      const now = db.guard(version);
      if (now === seen) return;
      do {
        rows = db.guard(() => after.all<ChangeRow>(cursor, PAGE));
        // Rows are numbered without gaps: a first row beyond the next number means older ones were trimmed.
        if (rows.length && rows[0]!.seq > cursor + 1) feed.missed();
        for (const row of rows) {
          cursor = row.seq;
          tell(row);
        }
      } while (rows.length === PAGE && !closed);
      // Only once read: a read cut short by a lock reads again at the next wake.
      seen = now;
    } catch {
      // The file is locked or gone for now: the next wake or poll reads again from the same cursor.
    }
  };
  const wake = () => {
    soon ??= setTimeout(() => {
      soon = undefined;
      drain();
    }, 0);
    settle ??= setTimeout(() => {
      settle = undefined;
      drain();
    }, SETTLE_MS);
  };
  const unwatch = db.file ? watchFile(db.file, wake) : () => {};
  const poll = setInterval(drain, parts.pollMs);
  (poll as { unref?: () => void }).unref?.();
  return {
    wrote(seq) {
      // Nothing of another instance between: the cursor moves past this one's own row unread.
      if (seq === cursor + 1) cursor = seq;
      if (db.file) wakeOthers(db.file, wake);
    },
    close() {
      closed = true;
      unwatch();
      clearInterval(poll);
      clearTimeout(soon);
      clearTimeout(settle);
    },
  };
}
