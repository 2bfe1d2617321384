// The demo server (examples/demo/server.ts) as a real child process on a free port, as `npm start` runs it.
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

// The demos still running. One exit hook kills them all, rather than a hook per demo: a file that starts
// more than ten demos would otherwise pass Node's listener limit (MaxListenersExceededWarning) and keep a
// hook for every demo that has long exited.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

export interface DemoProcess {
  /** http://127.0.0.1:<port>/mcp */
  readonly url: string;
  readonly pid: number;
  /** What it printed so far. */
  output(): string;
  /** Sends `signal` and resolves with how it exited. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` to its pid and returns at once (SIGSTOP, SIGCONT, or a SIGTERM whose drain is watched). */
  signal(signal: NodeJS.Signals): void;
  /** True until it exits. */
  alive(): boolean;
  /** Settles with how it exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * This process's environment with `extra`, as a server child started in production sees it: without `CI` and
 * `TEST` (vitest sets `TEST`), under either of which srvx leaves its own signal handling out.
 */
export function productionEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.CI;
  delete env.TEST;
  return env;
}

/** Starts `entry` (the demo server, or another demo entry that prints `readyText` when ready: a worker prints "ready"). */
export async function startDemo(env: Record<string, string>, entry = "examples/demo/server.ts", args: string[] = [], readyText = "listening on"): Promise<DemoProcess> {
  const port = await new Promise<number>((resolve, reject) => {
    const srv = net.createServer().on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], {
    cwd: root,
    // A test's SIGTERM drains the demo: a second at most for the runs it leaves behind, unless it says otherwise.
    env: productionEnv({ MCP_DRAIN_MS: "1000", ...env, PORT: String(port), HOST: "127.0.0.1" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  live.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A worker that dies without afterAll must not leave demos behind.
    process.once("exit", () => {
      for (const running of live) running.kill("SIGKILL");
    });
  }
  // Generous: on a loaded machine (a CI runner running other suites) a start can take many seconds.
  const deadline = Date.now() + 60_000;
  while (!output.includes(readyText)) {
    if (child.exitCode !== null) throw new Error(`the demo exited (code ${child.exitCode}) before printing "${readyText}":\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the demo did not start within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid!,
    output: () => output,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    signal(signal) {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** An app-shaped handle on a server over real HTTP, so the wire helpers (`call`, `modernRequest`) reach it. */
export function overHttp(url: string): { fetch(request: Request): Promise<Response> } {
  return {
    fetch: async (request) =>
      fetch(url, {
        method: request.method,
        headers: request.headers,
        body: request.method === "GET" || request.method === "DELETE" ? undefined : await request.text(),
        signal: request.signal,
      }),
  };
}
