// The change messages of a store outside this process: one per change that some instance needs, written in
// the same step as the change (Redis publishes it; Postgres keeps it for the notified instances to read),
// and one per hand-off of a run found by name.
import type { TaskEvent } from "../../machines/task.machine.ts";
import type { TaskSnapshot } from "./envelopes.ts";
import type { TaskChange, TaskFeed, TaskWrite } from "./store.ts";

/**
 * A change on the channel: task id, new version, the event (for the actor running the task, unless the
 * change was made where it runs), the new status, and the snapshot when the status changed. The id and
 * the version come first, so an instance with no use for a message can tell without parsing it.
 */
interface ChangeMessage {
  i: string;
  v: number;
  e?: TaskEvent;
  t: TaskSnapshot["value"];
  s?: TaskSnapshot;
  /** For a task with a run: `e` and `s` as one sealed JSON object (see ../run-seal.ts). */
  x?: string;
}

/**
 * The message of a write; with the snapshot when the status changed, reusing its encoding when there is
 * one. With `seal` (a task with a run) the event and the snapshot travel sealed.
 */
export function changeMessage(id: string, change: TaskWrite, encoded: string, seal?: (text: string) => string): string {
  const message: ChangeMessage = { i: id, v: change.version, t: change.snapshot.value };
  if (seal && (change.event || change.statusChanged)) {
    message.x = seal(JSON.stringify({ e: change.event, s: change.statusChanged ? change.snapshot : undefined }));
    return JSON.stringify(message);
  }
  if (change.event) message.e = change.event;
  if (!change.statusChanged) return JSON.stringify(message);
  if (!encoded) return JSON.stringify({ ...message, s: change.snapshot });
  return `${JSON.stringify(message).slice(0, -1)},"s":${encoded}}`;
}

/** A hand-off on the channel: the task id and its run's name, for the instances serving that run. */
export function releasedMessage(id: string, name: string): string {
  return JSON.stringify({ r: id, n: name });
}

/** A hand-off message as task id and run name; undefined for any other message. */
export function readReleased(raw: string): { id: string; name: string } | undefined {
  if (!raw.startsWith('{"r":')) return undefined;
  try {
    const message = JSON.parse(raw) as { r: unknown; n: unknown };
    return typeof message.r === "string" && typeof message.n === "string" ? { id: message.r, name: message.n } : undefined;
  } catch {
    return undefined;
  }
}

/** The start of a change message: its task id (one needing no JSON escape) and version. */
const MESSAGE_HEAD = /^\{"i":"([^"\\]+)","v":(\d+),/;

/** A message from the channel, as the feed's change; undefined for one nobody here needs, or garbage. */
export function readChange(raw: string, feed: TaskFeed, open?: (id: string, sealed: string) => string | undefined): TaskChange | undefined {
  // Most messages concern no task listened to or run here, or are this instance's own change, already
  // applied: those are let go unparsed.
  const head = MESSAGE_HEAD.exec(raw);
  if (head && !feed.wants(head[1]!, Number(head[2]))) return undefined;
  let message: ChangeMessage;
  try {
    message = JSON.parse(raw) as ChangeMessage;
  } catch {
    return undefined;
  }
  if (typeof message?.i !== "string" || typeof message.v !== "number") return undefined;
  if (typeof message.x === "string") {
    // Sealed: opened here, or let go (the runtime's catch-up reads the task instead).
    const opened = open?.(message.i, message.x);
    if (opened === undefined) return undefined;
    const { e, s } = JSON.parse(opened) as Pick<ChangeMessage, "e" | "s">;
    return { id: message.i, version: message.v, status: message.t, event: e, snapshot: s };
  }
  return { id: message.i, version: message.v, status: message.t, event: message.e, snapshot: message.s };
}
