// A real, throwaway Postgres cluster per test file: `initdb` into a temp folder, `postgres` on a free port
// of 127.0.0.1 (TCP only, trust auth, no fsync: nothing here needs to survive a power cut), run as a
// non-root user (Postgres refuses root: as root, the Debian package's `postgres` user). `restart()` stops
// it and starts it again on the same port with the same data, as a database restart in production does.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { findPostgresBin, missingPostgresMessage } from "./postgres-gate.ts";

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly port: number;
  /** The postmaster's pid while it runs. */
  readonly pid: number | undefined;
  /** Shuts the server down (fast mode: connections are cut) and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
  /** Starts it again after `stop()`, on the same port with the same data. */
  start(): Promise<void>;
  /** `stop()` then `start()`. */
  restart(): Promise<void>;
  /** One statement on a fresh connection; its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Stops the server and removes its folder. */
  destroy(): Promise<void>;
}

interface RunAs {
  uid?: number;
  gid?: number;
}

const live = new Set<ChildProcess>();
const folders = new Set<string>();
let exitHookInstalled = false;

/** Starts a throwaway cluster; throws with install instructions when there is no Postgres on this machine. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(missingPostgresMessage());
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A worker that dies without afterAll must not leave clusters behind: SIGQUIT is Postgres's immediate
    // shutdown, which takes its backends down with it.
    process.once("exit", () => {
      for (const child of live) child.kill("SIGQUIT");
      for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    });
  }
  const runAs = serverUser();
  const root = mkdtempSync(path.join(tmpdir(), "h3-mcp-pg-"));
  folders.add(root);
  const data = path.join(root, "data");
  if (runAs.uid !== undefined) chownSync(root, runAs.uid, runAs.gid!);
  const init = spawnSync(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C"], {
    ...runAs,
    encoding: "utf8",
  });
  if (init.status !== 0) throw new Error(`initdb failed (status ${init.status}):\n${init.stdout}\n${init.stderr}`);

  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      child = await launch(bin, data, port, runAs);
      break;
    } catch (error) {
      if (attempt >= 4) throw error; // the port was taken between the probe and the bind, four times over
    }
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    const c = child;
    child = undefined;
    if (c) await terminate(c);
  };
  const start = async () => {
    if (!child) child = await launch(bin, data, port, runAs);
  };
  return {
    url,
    port,
    get pid() {
      return child?.pid;
    },
    stop,
    start,
    async restart() {
      await stop();
      await start();
    },
    async query<Row>(sql: string, params?: unknown[]) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as Row[];
      } finally {
        await client.end();
      }
    },
    async destroy() {
      await stop();
      rmSync(root, { recursive: true, force: true });
      folders.delete(root);
    },
  };
}

// --- Internal ---

/** Whom the server runs as: this process, unless it is root (then the `postgres` user). */
function serverUser(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const uid = id("-u");
  const gid = id("-g");
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error("Postgres will not run as root and there is no `postgres` user: install Debian's postgresql package, or run the tests as another user");
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

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

/** Spawns the server and resolves once it answers a query; rejects (with its output) if it exits first. */
function launch(bin: string, data: string, port: number, runAs: RunAs): Promise<ChildProcess> {
  const settings = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    unix_socket_directories: "",
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    max_connections: "200",
    shared_buffers: "32MB",
    log_min_messages: "warning",
  };
  const args = ["-D", data, ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])];
  const child = spawn(path.join(bin, "postgres"), args, { ...runAs, stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  child.once("exit", () => live.delete(child));
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-4000);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`postgres on port ${port} exited (code ${code}) before it was ready:\n${output}`));
    child.once("exit", onExit);
    const deadline = Date.now() + 30_000;
    const probe = async () => {
      if (child.exitCode !== null) return;
      const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 1000 });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.query("SELECT 1");
        await client.end();
        child.off("exit", onExit);
        return resolve(child);
      } catch {
        await client.end().catch(() => {});
      }
      if (Date.now() > deadline) {
        child.kill("SIGQUIT");
        return reject(new Error(`postgres on port ${port} did not answer within 30 s:\n${output}`));
      }
      setTimeout(probe, 50);
    };
    void probe();
  });
}

/** Fast shutdown (SIGINT: clients are cut, the data is kept), SIGQUIT after 5 s, and waits for the exit. */
async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGQUIT"), 5000);
  await exited;
  clearTimeout(timer);
}
