// A real, throwaway redis-server per test file: 127.0.0.1 on a free port, no persistence, DEBUG allowed
// locally (the fault tests make it slow with DEBUG SLEEP). `restart()` brings it back on the same port, empty.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { tmpdir } from "node:os";
import { findRedisServer, missingServerMessage } from "./redis-gate.ts";

export interface RedisServer {
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** Shuts the server down (SIGTERM, SIGKILL after 3 s) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
  /** Stops it and starts a fresh, empty one on the same port. */
  restart(): Promise<void>;
  /** Sends one command on a fresh connection; the reply as text (arrays one element a line, nil as ""). */
  cli(...args: string[]): Promise<string>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Starts a redis-server; throws with install instructions when there is none on PATH. */
export async function startRedis(): Promise<RedisServer> {
  const binary = findRedisServer();
  if (!binary) throw new Error(missingServerMessage());
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A worker that dies without afterAll must not leave servers behind.
    process.once("exit", () => {
      for (const child of live) child.kill("SIGKILL");
    });
  }

  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      child = await launch(binary, port);
      break;
    } catch (error) {
      if (attempt >= 4) throw error; // the port was taken between the probe and the bind, four times over
    }
  }

  const stop = async () => {
    const c = child;
    child = undefined;
    if (c) await terminate(c);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async restart() {
      await stop();
      child = await launch(binary, port);
    },
    cli: (...args) => command(port, args),
  };
}

// --- Internal ---

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Spawns the server and resolves once it accepts connections; rejects (with its output) if it exits first. */
function launch(binary: string, port: number): Promise<ChildProcess> {
  const args = [
    "--port", String(port),
    "--bind", "127.0.0.1",
    "--save", "",
    "--appendonly", "no",
    "--dir", tmpdir(),
    "--enable-debug-command", "local",
    "--daemonize", "no",
    "--logfile", "",
  ];
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  child.once("exit", () => live.delete(child));
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-4000);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`redis-server on port ${port} exited (code ${code}) before it was ready:\n${output}`));
    child.once("exit", onExit);
    const deadline = Date.now() + 10_000;
    const probe = async () => {
      if (child.exitCode !== null) return;
      try {
        if ((await command(port, ["PING"])) === "PONG") {
          child.off("exit", onExit);
          // Keep draining its output so a full pipe never stalls it.
          child.stdout!.resume();
          child.stderr!.resume();
          return resolve(child);
        }
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        return reject(new Error(`redis-server on port ${port} did not answer PING within 10 s:\n${output}`));
      }
      setTimeout(probe, 25);
    };
    void probe();
  });
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
  await exited;
  clearTimeout(timer);
}

/** One RESP command on its own connection (so a blocking DEBUG SLEEP never holds up another). */
function command(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let buffer = Buffer.alloc(0);
    socket.on("connect", () => {
      socket.write(`*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join(""));
    });
    socket.on("data", (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      const parsed = parseReply(buffer, 0);
      if (!parsed) return;
      socket.destroy();
      if (parsed.value instanceof Error) reject(parsed.value);
      else resolve(render(parsed.value));
    });
    socket.on("error", reject);
    socket.on("close", () => reject(new Error(`connection to redis on port ${port} closed before a reply`)));
  });
}

type Reply = string | number | null | Error | Reply[];

/** Parses one RESP2 reply at `at`; undefined while it is incomplete. */
function parseReply(buf: Buffer, at: number): { value: Reply; end: number } | undefined {
  const eol = buf.indexOf("\r\n", at);
  if (eol === -1) return undefined;
  const type = String.fromCharCode(buf[at]!);
  const line = buf.toString("utf8", at + 1, eol);
  const next = eol + 2;
  switch (type) {
    case "+":
      return { value: line, end: next };
    case "-":
      return { value: new Error(line), end: next };
    case ":":
      return { value: Number(line), end: next };
    case "$": {
      const n = Number(line);
      if (n < 0) return { value: null, end: next };
      if (buf.length < next + n + 2) return undefined;
      return { value: buf.toString("utf8", next, next + n), end: next + n + 2 };
    }
    case "*": {
      const n = Number(line);
      if (n < 0) return { value: null, end: next };
      const items: Reply[] = [];
      let end = next;
      for (let i = 0; i < n; i++) {
        const item = parseReply(buf, end);
        if (!item) return undefined;
        items.push(item.value);
        end = item.end;
      }
      return { value: items, end };
    }
    default:
      return { value: new Error(`unexpected RESP reply type ${JSON.stringify(type)}`), end: buf.length };
  }
}

function render(value: Reply): string {
  if (value === null) return "";
  if (Array.isArray(value)) return value.map(render).join("\n");
  return String(value);
}
