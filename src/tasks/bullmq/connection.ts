// The Redis connection BullMQ is given: the app's own (anything BullMQ's `connection` option takes, never
// closed here), or a node-redis client opened from a URL (closed with the queue or worker that opened it).
// BullMQ's default driver (ioredis) is not required: node-redis is already the Redis store's client.
import type { ConnectionOptions } from "bullmq";
import { createClient } from "redis";

/** Where BullMQ's queue lives: a `redis://` URL, or a connection BullMQ accepts (a client, or its options). */
export interface BullmqConnectionOptions {
  /** `redis://…`; ignored when `connection` is given. */
  url?: string;
  /** What BullMQ's own `connection` option takes (an ioredis or node-redis client, or ioredis options); never closed here. */
  connection?: ConnectionOptions;
  /** BullMQ's key prefix. Default BullMQ's own, `"bull"`. */
  prefix?: string;
  /** The queue's name, the same for web instances and workers. Default `"h3-mcp-tasks"`. */
  queueName?: string;
}

/** A connection for one queue or worker, and how to close it when it was opened here. */
export interface OpenedConnection {
  readonly connection: ConnectionOptions;
  close(): Promise<void>;
}

export const DEFAULT_QUEUE_NAME = "h3-mcp-tasks";

/** The connection `options` names; a node-redis client made from `url` when it names none. */
export function openBullmqConnection(options: BullmqConnectionOptions, who: string): OpenedConnection {
  if (options.connection) return { connection: options.connection, close: async () => {} };
  if (!options.url) throw new TypeError(`${who} needs a url or a connection`);
  // Without a connection a command fails at once (the caller gets a clear error) instead of waiting.
  const client = createClient({ url: options.url, disableOfflineQueue: true });
  // node-redis reports trouble as events: an unheard `error` event would crash the process, and BullMQ
  // reports the same trouble on its own `error` event.
  client.on("error", () => {});
  return {
    connection: client as unknown as ConnectionOptions,
    async close() {
      if (client.isOpen) await client.close().catch(() => client.destroy());
    },
  };
}
