// The SQLite store's change feed between two real demo processes on one file: how long a change made
// through one process takes to reach a listen stream open on the other (a task cancelled on A, the
// `cancelled` notification read on B's stream; timed from A's answer, which comes once the change is
// committed), and what the two processes cost while idle (CPU of both over `--idle` seconds, from
// /proc/<pid>/stat, with nothing running: the feed waits on fs.watch, no busy loop).
//   node --import tsx bench/sqlite-feed.ts [--n 50] [--idle 30]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createTestClient } from "h3-mcp/tasks/testing";
import { overHttp, startDemo } from "../test/helpers/demo-process.ts";

const { values } = parseArgs({ options: { n: { type: "string", default: "50" }, idle: { type: "string", default: "30" } } });
const dir = mkdtempSync(path.join(tmpdir(), "h3-mcp-bench-feed-"));
const env = { MCP_TASKS_SQLITE: path.join(dir, "tasks.db"), MCP_TASKS_SECRET: "bench-secret", MCP_REQUEST_STATE_SECRET: "bench-state" };
const load = () => loadavg().map((x) => x.toFixed(2)).join(" ");
const [a, b] = await Promise.all([startDemo(env), startDemo(env)]);
const clients = [a, b].map((demo) => createTestClient(overHttp(demo.url), { timeoutMs: 30_000 }));
const [onA, onB] = clients as [ReturnType<typeof createTestClient>, ReturnType<typeof createTestClient>];
const quantile = (xs: number[], q: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;
/** User + system CPU of `pid` so far, ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

try {
  console.log(`load average before: ${load()}`);
  const latencies: number[] = [];
  for (let i = 0; i < Number(values.n); i++) {
    const created = await onA.callTool("steps", { steps: 1000, stepMs: 1000 });
    if (created.resultType !== "task") throw new Error(`steps answered ${JSON.stringify(created)}`);
    const taskId = created.taskId;
    const listener = await onB.listen([taskId]);
    await onA.cancelTask(taskId);
    const answered = performance.now();
    await listener.until("cancelled", 5000);
    latencies.push(performance.now() - answered);
    await listener.close();
  }
  console.log(
    `push latency A → B's listen stream over ${latencies.length} changes: median ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
  );
  // Idle: the lease's tick stops once no task runs here, so give the last ones a lease to settle.
  await new Promise((r) => setTimeout(r, 3000));
  const before = [a.pid, b.pid].map(cpuMs);
  await new Promise((r) => setTimeout(r, Number(values.idle) * 1000));
  const spent = [a.pid, b.pid].map((pid, i) => cpuMs(pid) - before[i]!);
  console.log(`idle CPU over ${values.idle} s: A ${spent[0]} ms, B ${spent[1]} ms (${((spent[0]! + spent[1]!) / (Number(values.idle) * 10)).toFixed(3)}% of one core for both)`);
  console.log(`load average after: ${load()}`);
} finally {
  await Promise.all([a.stop("SIGKILL"), b.stop("SIGKILL")]);
  rmSync(dir, { recursive: true, force: true });
}
