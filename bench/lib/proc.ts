// Target processes: spawn one per server under test, wait for its READY line, read its memory
// and CPU time from the OS, stop it by its own pid.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * What "h3-mcp" means in bench processes: `dist` (default) is the built package, reached through
 * package.json exports because bench/tsconfig.dist.json drops the tsconfig path mapping; `src`
 * is the TypeScript sources through tsx (quicker to iterate, but tsx adds esbuild's keepNames
 * helpers to every function, which the build does not).
 */
export function benchLib(): "dist" | "src" {
  return process.env.BENCH_LIB === "src" ? "src" : "dist";
}

/** Environment for a child process so that it resolves "h3-mcp" as `benchLib()` says. */
export function libEnv(root = ROOT): Record<string, string> {
  return benchLib() === "dist" ? { BENCH_LIB: "dist", TSX_TSCONFIG_PATH: join(root, "bench/tsconfig.dist.json") } : { BENCH_LIB: "src" };
}

export interface Target {
  name: string;
  pid: number;
  /** Every process that serves this target (several instances behind a proxy), for CPU and RSS; default [pid]. */
  pids?: number[];
  /** Where the target's "h3-mcp" resolved, when it uses it. */
  lib?: string;
  port: number;
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `npm run build`, so that `dist` benches the current sources. */
export async function buildDist(): Promise<void> {
  const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "--silent", "build"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (output += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (output += c));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`npm run build exited with ${code}\n${output}`);
}

/** Starts `bench/targets/<file>` under `node --import tsx`, with extra node flags, and waits until it listens. */
export async function startTarget(
  name: string,
  file: string,
  opts: { nodeFlags?: string[]; env?: Record<string, string>; readyTimeoutMs?: number; root?: string } = {},
): Promise<Target> {
  const port = await freePort();
  // `root`: another checkout (with its own dist/ and bench/targets/), for a target of another commit.
  const root = opts.root ?? ROOT;
  const child = spawn(process.execPath, [...(opts.nodeFlags ?? []), "--import", "tsx", `bench/targets/${file}`], {
    cwd: root,
    env: { ...process.env, ...libEnv(root), ...opts.env, PORT: String(port), NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  const ready = new Promise<{ pid: number; lib?: string; origin?: string }>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${name}: not ready after ${opts.readyTimeoutMs ?? 30_000} ms\n${stderr}`)), opts.readyTimeoutMs ?? 30_000);
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("READY "));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line.slice(6)) as { pid: number });
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready\n${stderr}`));
    });
  });
  // A target that picks its own port (the proxy) says where it listens.
  const { pid, lib, origin } = await ready;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    name,
    pid,
    lib,
    port,
    origin: origin ?? `http://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Resident set size in bytes, or undefined where /proc is unavailable. */
export function rssOf(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** `getconf CLK_TCK`: 100 on mainstream Linux kernels. */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of a process in microseconds, or undefined where /proc is unavailable. */
export function cpuTimeOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks / TICKS_PER_SECOND) * 1e6;
  } catch {
    return undefined;
  }
}

/** CPU time spent by the whole machine (all cores, not idle or waiting on I/O) in microseconds, or undefined without /proc. */
export function machineBusyUs(): number | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
    const [, ...fields] = line.trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number) as number[];
    return ((user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return undefined;
  }
}
