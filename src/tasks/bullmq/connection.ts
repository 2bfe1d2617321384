// The Redis connection BullMQ is given: the app's own (anything BullMQ's `connection` option takes, never
// closed here), or a node-redis client opened from a URL (closed with the queue or worker that opened it).
// BullMQ's default driver (ioredis) is not required: node-redis is already the Redis store's client.
import type { ConnectionOptions } from "bullmq";
import { createClient } from "redis";
import type { OptionNames } from "../../utils/options.ts";

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
  /** Made here from `url`: a node-redis client that reconnects by itself until it is closed. */
  readonly ownClient: boolean;
  /** Starts connecting a client made here (BullMQ connects it otherwise, when it waits for it). */
  connect(): void;
  /**
   * Settles once a client made here has connected for the first time; undefined once it has (from then on
   * a command made while Redis is away fails at once), or when the client was not made here.
   */
  whenReady(): Promise<void> | undefined;
  close(): Promise<void>;
}

export const DEFAULT_QUEUE_NAME = "h3-mcp-tasks";

export const CONNECTION_OPTION_NAMES: OptionNames<BullmqConnectionOptions> = { url: true, connection: true, prefix: true, queueName: true };

/** The connection `options` names; a node-redis client made from `url` when it names none. */
export function openBullmqConnection(options: BullmqConnectionOptions, who: string): OpenedConnection {
  if (options.connection) return { connection: options.connection, ownClient: false, connect() {}, whenReady: () => undefined, close: async () => {} };
  if (!options.url) throw new TypeError(`${who} needs a url or a connection`);
  // Without a connection a command fails at once (the caller gets a clear error) instead of waiting.
  const client = createClient({ url: options.url, disableOfflineQueue: true });
  // node-redis reports trouble as events: an unheard `error` event would crash the process, and BullMQ
  // reports the same trouble on its own `error` event.
  client.on("error", () => {});
  // One wait shared by every caller: a single listener however many calls wait.
  let ready: Promise<void> | undefined;
  let connected = false;
  return {
    connection: client as unknown as ConnectionOptions,
    ownClient: true,
    connect() {
      if (!client.isOpen) client.connect().catch(() => {});
    },
    whenReady() {
      if (connected || client.isReady) return undefined;
      return (ready ??= new Promise<void>((resolve) =>
        client.once("ready", () => {
          connected = true;
          resolve();
        }),
      ));
    },
    async close() {
      if (client.isOpen) await client.close().catch(() => client.destroy());
    },
  };
}
