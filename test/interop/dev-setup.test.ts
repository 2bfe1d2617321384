// The development setup on the Node this runs on (CI and this repository's machines include 20.19, the lowest
// `engines` admits): npm's install checks print nothing, the test authorization server prints nothing,
// `npm start` stops with the npm process that started it, and the scripts the docs name run. Real npm, real
// processes, each killed by its pid.
import { execFile, execFileSync, spawn } from "node:child_process";
import net from "node:net";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/doc-blocks.ts";
import { productionEnv } from "../helpers/demo-process.ts";

const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer().on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

/** Every process below `pid`, from `ps`. */
function descendants(pid: number): number[] {
  const rows = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of rows) if (ppid === parent) (found.push(child), walk(child));
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the development setup", () => {
  it("npm's install checks print no warning: no engine a dependency wants, no install script left unreviewed", async () => {
    const { stdout, stderr } = await run(npm, ["install", "--dry-run", "--package-lock-only", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: ROOT });
    expect(stderr, stdout).toBe("");
  }, 120_000);

  it("the tests' authorization server starts and issues a token without printing anything", async () => {
    const script = `
      const { startAuthorizationServer } = await import("./test/helpers/authorization-server.ts");
      const as = await startAuthorizationServer();
      await as.token("http://127.0.0.1:1/mcp", "mcp");
      await as.close();
      console.log("issued");`;
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT });
    expect(stdout.trim()).toBe("issued");
    expect(stderr).toBe("");
  }, 60_000);

  it.each(["SIGTERM", "SIGINT"] as const)("npm start stops with the npm process it was started by, killed by its pid with %s", async (signal) => {
    const port = await freePort();
    const child = spawn(npm, ["start"], { cwd: ROOT, env: productionEnv({ PORT: String(port) }), stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      for (let i = 0; i < 400 && !output.includes("listening on"); i++) await new Promise((r) => setTimeout(r, 50));
      expect(output).toContain(`listening on http://127.0.0.1:${port}/mcp`);
      const below = descendants(child.pid!);
      expect(below.length).toBeGreaterThan(0);
      process.kill(child.pid!, signal);
      await exited;
      for (let i = 0; i < 100 && below.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
      expect(below.filter(alive), output).toEqual([]);
      expect(await accepts(port)).toBe(false);
    } finally {
      for (const pid of [child.pid!, ...descendants(child.pid!)]) if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  }, 60_000);

  it.each([
    ["fuzz", { FUZZ_RUNS: "50", FUZZ_SEED: "1" }, /^fuzz: 50 cases, seed 1\b/m],
    ["soak", { SOAK_TASKS: "20", SOAK_SEED: "1" }, /^soak: 20 tasks, seed 1\b/m],
  ] as const)("npm run %s runs, at a size given by its variables", async (script, env, line) => {
    const { stdout, stderr } = await run(npm, ["run", "--silent", script], { cwd: ROOT, env: { ...process.env, ...env } });
    expect(stdout).toMatch(line);
    // Progress goes to stderr on purpose; a warning (from npm, Node or a dependency) must not.
    expect(stderr).not.toMatch(/warn|unsupported|node(\.js)? v?2[2-9]/i);
  }, 120_000);
});
