// A TCP relay in front of a redis-server that can hold back what Redis sends to subscribers (a store
// connected through it keeps its commands answered while its change channel goes quiet, as when a
// published message is still on its way to one instance; held bytes are delivered, in order, on release),
// and can reset a connection when it sends a given command (Redis going away just then).
import net from "node:net";
import type { AddressInfo } from "node:net";

export interface RedisRelay {
  /** redis://127.0.0.1:<port>, for the store that goes through the relay. */
  readonly url: string;
  /** Holds back what Redis sends on every subscribed connection from now on. */
  holdSubscribers(): void;
  /** Delivers what was held back, and lets the rest through again. */
  release(): void;
  /** Resets the next connection that sends one of `commands` (any case) instead of passing it on; once. */
  resetOn(...commands: string[]): void;
  close(): Promise<void>;
}

export async function startRedisRelay(redisPort: number): Promise<RedisRelay> {
  let holding = false;
  let resetOn: RegExp | undefined;
  const flushes = new Set<() => void>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const redis = net.connect(redisPort, "127.0.0.1");
    sockets.add(client).add(redis);
    // A subscriber's SUBSCRIBE goes as a RESP array of bulk strings (node-redis writes it in lower case).
    let subscribed = false;
    const held: Buffer[] = [];
    const flush = () => {
      for (const chunk of held.splice(0)) client.write(chunk);
    };
    flushes.add(flush);
    client.on("data", (chunk: Buffer) => {
      const text = chunk.toString("latin1");
      if (resetOn?.test(text)) {
        resetOn = undefined;
        client.resetAndDestroy();
        redis.destroy();
        return;
      }
      if (!subscribed && /\r\nsubscribe\r\n/i.test(text)) subscribed = true;
      redis.write(chunk);
    });
    redis.on("data", (chunk: Buffer) => {
      if (subscribed && holding) held.push(chunk);
      else client.write(chunk);
    });
    const end = () => {
      flushes.delete(flush);
      sockets.delete(client);
      sockets.delete(redis);
      client.destroy();
      redis.destroy();
    };
    client.on("close", end).on("error", end);
    redis.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    holdSubscribers: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const flush of flushes) flush();
    },
    resetOn: (...commands) => {
      resetOn = new RegExp(`\\r\\n(?:${commands.join("|")})\\r\\n`, "i");
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
