// The store's two Redis connections (commands, and a subscriber for the change channels), every
// command bounded in time, and Redis trouble turned into one clear JSON-RPC error.
import { createClient } from "redis";
import { ErrorCode, McpJsonRpcError, taskStoreUnavailable as storeUnavailable } from "../../protocol/errors.ts";
import { createDeadlines, Pending } from "./deadlines.ts";
import type { Script } from "./scripts.ts";

/** The part of a node-redis client (v5 or later) the store uses. */
export interface RedisClientLike {
  readonly isReady: boolean;
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  sendCommand(args: string[], options?: { timeout?: number }): Promise<unknown>;
  duplicate(overrides?: Record<string, unknown>): RedisClientLike;
  subscribe(channels: string | string[], listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channels?: string | string[]): Promise<unknown>;
  on(event: string, listener: (...args: any[]) => void): unknown;
  ref?(): void;
  unref?(): void;
  off?(event: string, listener: (...args: any[]) => void): unknown;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy(): void;
}

const STORE_ERROR = "Task store error: ";

/** Whether a command failed because its key holds another type (as `failure` below says it). */
export function isWrongType(error: unknown): boolean {
  return McpJsonRpcError.isError(error) && error.message.startsWith(`${STORE_ERROR}WRONGTYPE`);
}

export interface Connection {
  /** One command, bounded by the timeout; rejects with `storeUnavailable`. */
  command<T = unknown>(args: string[]): Promise<T>;
  /** EVALSHA, loading the script on first use. */
  run<T = unknown>(script: Script, keys: string[], args: (string | number)[]): Promise<T>;
  /** Subscribes to `channels` on the subscriber connection; `onReady` runs after each (re)connect. */
  listen(channels: string[], onMessage: (message: string, channel: string) => void, onReady: () => void): Promise<void>;
  close(): Promise<void>;
}

export function openConnection(options: { url?: string; client?: RedisClientLike; timeoutMs: number }): Connection {
  const timeoutMs = options.timeoutMs;
  // Connections the store opened itself are closed by it; a client the app passed in never is.
  const owned: RedisClientLike[] = [];
  const connectionOptions = {
    // Without a connection a command fails at once instead of waiting for one.
    disableOfflineQueue: true,
    // No per-command timeout of node-redis's own (5 s by default): the store's timer bounds every command
    // (see `send`).
    commandOptions: { timeout: 0 },
    socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000) },
  };
  const client: RedisClientLike = options.client ?? (createClient({ url: options.url, ...connectionOptions }) as unknown as RedisClientLike);
  if (!options.client) owned.push(client);
  let subscriber: RedisClientLike | undefined;
  // node-redis reports trouble as events; an unheard `error` event would crash the process.
  const ignore = () => {};
  client.on("error", ignore);
  let closed = false;
  // An idle process must exit by itself: the connections the store opened count only while a command
  // is under way. An app's own client is left as the app set it.
  let inFlight = 0;
  let holding = true;
  const hold = () => {
    const want = inFlight > 0;
    if (want === holding) return;
    holding = want;
    for (const c of owned) want ? c.ref?.() : c.unref?.();
  };
  hold();
  let connecting: Promise<unknown> | undefined = client.isOpen ? undefined : client.connect().catch(ignore);

  const failure = (error: unknown): McpJsonRpcError => {
    if (McpJsonRpcError.isError(error)) return error;
    const message = (error as Error)?.message ?? String(error);
    // A script or data error is not an outage: it stays an internal error, said as such.
    if (/^(ERR|WRONGTYPE)/.test(message)) return new McpJsonRpcError(ErrorCode.InternalError, `${STORE_ERROR}${message}`);
    return storeUnavailable(message);
  };
  // Every command goes through here: one promise, and a place in the queue of deadlines (the time
  // bound, the error translation and the hold on the process all in one).
  const deadlines = createDeadlines((pending) => {
    pending.settle(false, storeUnavailable(`Redis did not answer within ${timeoutMs} ms`));
  });
  const bounded = <T>(work: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(storeUnavailable("the store was closed"));
    inFlight++;
    hold();
    return new Promise<T>((resolve, reject) => {
      const pending = new Pending(resolve as (value: unknown) => void, reject, timeoutMs, () => {
        if (--inFlight === 0) deadlines.clear();
        else deadlines.drop();
        hold();
      });
      deadlines.add(pending);
      const start = () => {
        try {
          work().then(
            (value) => pending.settle(true, value),
            (error) => pending.settle(false, failure(error)),
          );
        } catch (error) {
          pending.settle(false, failure(error));
        }
      };
      if (connecting && !client.isReady) {
        connecting.then(() => {
          connecting = undefined;
          if (!pending.settled) start();
        });
      } else {
        connecting = undefined;
        start();
      }
    });
  };
  // The client the store opened queues nothing while offline (a lost connection rejects everything
  // queued), so the store's own timer is its only bound, and node-redis's per-command timeout stays off:
  // it is an AbortSignal.timeout per command, whose timer fires even after the answer came. A client the
  // app passed in may queue commands while offline: there node-redis's timeout is set too, so that a
  // command the store gave up on is taken out of that queue and never sent after its caller was told it
  // failed.
  const commandOptions = options.client ? { timeout: timeoutMs } : undefined;
  const send = <T>(args: string[]) => client.sendCommand(args, commandOptions) as Promise<T>;

  return {
    command: (args) => bounded(() => send(args)),
    run: <T>(script: Script, keys: string[], args: (string | number)[]) =>
      bounded<T>(() => {
        const command = ["EVALSHA", script.sha, String(keys.length), ...keys];
        for (const arg of args) command.push(String(arg));
        return send<T>(command).catch((error) => {
          if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
          command[0] = "EVAL";
          command[1] = script.source;
          return send<T>(command);
        });
      }),
    async listen(channels, onMessage, onReady) {
      // The subscriber may queue its SUBSCRIBE until it connects: no request waits on it.
      const sub = client.duplicate({ ...connectionOptions, disableOfflineQueue: false });
      subscriber = sub;
      owned.push(sub);
      sub.on("error", ignore);
      sub.on("ready", onReady);
      if (!holding) sub.unref?.();
      sub.connect().catch(ignore);
      // node-redis subscribes again by itself after every reconnect.
      await withTimeout(Promise.resolve(sub.subscribe(channels, onMessage)), timeoutMs).catch(ignore);
    },
    async close() {
      if (closed) return;
      closed = true;
      // Closing is work too: the goodbyes must not be cut short by an idle process exiting.
      inFlight++;
      hold();
      if (subscriber?.isReady) await withTimeout(subscriber.unsubscribe(), timeoutMs).catch(ignore);
      for (const c of owned.reverse()) {
        try {
          if (c.isOpen) await withTimeout(Promise.resolve(c.close ? c.close() : c.quit?.()), timeoutMs);
        } catch {
          c.destroy();
        }
      }
    },
  };
}

// --- Internal ---

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storeUnavailable(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
