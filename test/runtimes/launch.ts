// Starts one runtime as a real process on a free port and waits until it answers HTTP.
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { inject } from "vitest";

export interface Launched {
  url: URL;
  stop(): Promise<void>;
  /** SIGKILL to its process group by pid (wrangler and its workerd): no shutdown of any kind. Resolves once it exited. */
  kill(): Promise<void>;
  log(): string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * What protects a runtime's route: the authorization server the smoke setup started, and the canonical URI
 * of the route on `port` (examples/runtimes/mcp.ts reads both from the environment).
 */
export function authEnv(port: number): { MCP_AUTH_ISSUER: string; MCP_AUTH_RESOURCE: string } {
  return { MCP_AUTH_ISSUER: inject("authServer").issuer, MCP_AUTH_RESOURCE: `http://127.0.0.1:${port}/mcp` };
}

/** Runs `command` in `cwd` with PORT/HOST and the route's authorization set; `args(port)` builds its arguments. */
export async function launch(name: string, opts: { command: string; args: (port: number) => string[]; cwd: string; env?: Record<string, string>; logDir: string; readyMs?: number }): Promise<Launched> {
  const port = await freePort();
  mkdirSync(opts.logDir, { recursive: true });
  const logFile = path.join(opts.logDir, `${name}.log`);
  const out = createWriteStream(logFile);
  const child = spawn(opts.command, opts.args(port), {
    cwd: opts.cwd,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", NO_COLOR: "1", ...authEnv(port), ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: wrangler's workerd and tsx's children go with it
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  let exited: string | undefined;
  const gone = new Promise<void>((resolve) => child.on("exit", (code, signal) => ((exited = `code ${code}, signal ${signal}`), resolve())));
  const log = () => readFileSync(logFile, "utf8");
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + (opts.readyMs ?? 60_000);
  for (;;) {
    if (exited) throw new Error(`${name} exited before answering (${exited}):\n${log()}`);
    if (Date.now() > deadline) throw new Error(`${name} did not answer within ${opts.readyMs ?? 60_000} ms:\n${log()}`);
    try {
      const res = await fetch(url, { method: "POST", body: "{}", headers: { "content-type": "application/json" }, signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    url,
    log,
    async kill() {
      signal("SIGKILL");
      await gone;
    },
    async stop() {
      if (exited) return;
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/**
 * A Worker entry of `app` under `wrangler dev` (local mode: workerd), with the Node >= 22.12 wrangler needs.
 * Each gets its own state folder and inspector port, so several run side by side.
 */
export async function launchWorker(
  name: string,
  opts: {
    script: string;
    app: string;
    work: string;
    node22: string;
    wrangler: string;
    /** The wrangler config in `app`. Default wrangler.jsonc. */
    config?: string;
    /** The state folder (Durable Objects' SQLite files). Default: one of this name's own. */
    persistTo?: string;
    env?: Record<string, string>;
    vars?: Record<string, string>;
  },
): Promise<Launched> {
  const inspectorPort = await freePort();
  return launch(name, {
    command: opts.node22,
    args: (port) => [
      opts.wrangler,
      "dev",
      opts.script,
      "--config",
      opts.config ?? "wrangler.jsonc",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      opts.persistTo ?? path.join(opts.work, `${name}-state`),
      "--show-interactive-dev-session=false",
      // A Worker sees its vars, not the process's environment.
      ...Object.entries({ ...authEnv(port), ...opts.vars }).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    cwd: opts.app,
    env: { WRANGLER_SEND_METRICS: "false", WRANGLER_LOG_PATH: path.join(opts.work, "wrangler-logs"), CI: "true", ...opts.env },
    logDir: opts.work,
    readyMs: 90_000,
  });
}
