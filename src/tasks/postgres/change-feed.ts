// The change feed over LISTEN/NOTIFY: every write and hand-off appends a change row and notifies the
// schema's channel at commit (the message itself when it fits a notification, else the row's number), and
// each store instance LISTENs on a connection of its own. When that connection drops (a database restart,
// a network cut), it connects again with a growing pause, LISTENs, and reads every change row written
// since shortly before it last heard from the channel: a notification lost with the connection never loses
// a change (a task finished meanwhile still reaches its listen streams). Then the runtime is told it may
// have missed changes, and reads again what it runs and listens to.
import type pg from "pg";
import { readChange, readReleased } from "../change-messages.ts";
import type { TaskFeed } from "../store.ts";
import type { Connection } from "./connection.ts";
import { quoteIdentifier } from "./schema.ts";

/** Rows read per statement while catching up. */
const PAGE = 500;

export interface FeedParts {
  readonly conn: Connection;
  readonly schema: string;
  readonly channels: { changes: string; hub: string };
  readonly feed: TaskFeed;
  readonly openChange: (id: string, sealed: string) => string | undefined;
  readonly onHub: (message: string) => void;
  /** How far before the last notification heard the catch-up reads (a statement's clock runs before its commit). */
  readonly marginMs: number;
}

export interface FeedReader {
  /** Resolves once the first LISTEN is in place (or failed: it goes on trying). */
  readonly listening: Promise<void>;
  close(): Promise<void>;
}

export function readChanges(parts: FeedParts): FeedReader {
  const { conn, feed, channels } = parts;
  const table = `${quoteIdentifier(parts.schema)}.mcp_task_changes`;
  let client: pg.Client | undefined;
  let closed = false;
  let retries = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  // The database's clock minus this one's, measured at each LISTEN; and when the channel was last heard (this clock).
  let skew = 0;
  let heardAt: number | undefined;
  let settleFirst!: () => void;
  const listening = new Promise<void>((resolve) => (settleFirst = resolve));

  const tellMessage = (message: string) => {
    const released = readReleased(message);
    if (released) return feed.released?.(released.id, released.name);
    const change = readChange(message, feed, parts.openChange);
    if (change) feed.changed(change);
  };
  const readRow = async (seq: string) => {
    const [row] = await conn.query<{ body: string }>(`SELECT body FROM ${table} WHERE seq = $1`, [seq]);
    if (row) tellMessage(row.body);
  };
  const onNotification = (note: pg.Notification) => {
    heardAt = Date.now();
    const payload = note.payload ?? "";
    if (note.channel === channels.hub) return parts.onHub(payload);
    const space = payload.indexOf(" ");
    const kind = payload[0];
    const seq = payload.slice(1, space);
    const rest = payload.slice(space + 1);
    if (kind === "c" || kind === "r") return tellMessage(rest);
    if (kind === "R") return void readRow(seq).catch(() => {});
    if (kind === "C") {
      // Too long for a notification: read from its row, only when this instance needs it.
      const [id, version] = rest.split(" ");
      if (id && feed.wants(id, Number(version))) void readRow(seq).catch(() => {});
    }
  };
  /** Every change row since shortly before the channel was last heard (rows older than a minute are gone: `missed` covers them). */
  const catchUp = async (since: number) => {
    const from = since + skew - parts.marginMs;
    let after = "0";
    for (;;) {
      const rows = await conn.query<{ seq: string; body: string }>(`SELECT seq, body FROM ${table} WHERE at >= $1 AND seq > $2 ORDER BY seq LIMIT ${PAGE}`, [from, after]);
      for (const row of rows) tellMessage(row.body);
      if (rows.length < PAGE) return;
      after = rows.at(-1)!.seq;
    }
  };

  const connect = async () => {
    if (closed) return;
    const next = conn.listener();
    next.on("error", () => {});
    next.on("notification", onNotification);
    next.on("end", () => dropped(next));
    try {
      await next.connect();
      // The listening connection alone never holds the process open.
      (next as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      await next.query(`LISTEN ${quoteIdentifier(channels.changes)}; LISTEN ${quoteIdentifier(channels.hub)}`);
      // The database's clock as schema.ts reads it (mcp_now_ms), without needing the tables yet.
      const [clock] = (await next.query<{ now: number }>("SELECT floor(extract(epoch FROM clock_timestamp()) * 1000) AS now")).rows;
      if (closed) return void next.end().catch(() => {});
      skew = (clock?.now ?? Date.now()) - Date.now();
      client = next;
      retries = 0;
      const since = heardAt;
      heardAt = Date.now();
      settleFirst();
      if (since === undefined) return;
      // Reconnected: what was written while nobody listened is read from the change rows.
      try {
        await catchUp(since);
      } finally {
        feed.missed();
      }
    } catch {
      next.removeAllListeners("end");
      void next.end().catch(() => {});
      if (client === next) client = undefined;
      settleFirst();
      schedule();
    }
  };
  const schedule = () => {
    if (closed || retry) return;
    const pause = Math.min(50 * 2 ** retries++, 2000);
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, pause);
    (retry as { unref?: () => void }).unref?.();
  };
  const dropped = (which: pg.Client) => {
    if (client !== which) return;
    client = undefined;
    heardAt ??= Date.now();
    schedule();
  };

  void connect();
  return {
    listening,
    async close() {
      closed = true;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      if (last) await last.end().catch(() => {});
    },
  };
}
