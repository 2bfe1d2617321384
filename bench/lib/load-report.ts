// The report of the load runs: the machine and method header, the table of every scenario's
// targets, what the references say (plain node:http, one task actor), the notes on machine load,
// and the two-instance table.
import os from "node:os";
import { fmtInt } from "./format.ts";
import type { BenchOptions } from "./options.ts";
import type { Results } from "./results.ts";
import { targetName } from "./target-kinds.ts";

export const cpuModel = () => os.cpus()[0]?.model ?? "unknown CPU";

/** The header, the targets table, the task-actor line and the notes on what else loaded the machine. */
export function loadTable(results: Results, options: BenchOptions): string[] {
  const { config } = options;
  const { rows } = results;
  const out: string[] = [
    `Node ${process.version}, ${os.type()} ${os.release()} ${os.arch()}, ${os.cpus().length} × ${cpuModel()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; ${new Date().toISOString().slice(0, 10)}`,
    `${config.rounds} round(s) × ${config.durationSec} s per target and scenario (after ${config.warmupSec} s warm-up), ${config.connections} connections, targets alternated each round; req/s is the median round, p50/p99 over all rounds' responses.`,
    "",
    `req/s ÷ ceiling is the median of the per-round ratios (each round's run against the same round's run of the scenario's ceiling: (a) bare h3; (r) for the Redis rows; (1) one instance for the two-instance rows). Server CPU is the target process's user + system time (all its threads, GC included) per answered request; (a) ÷ it is the throughput ratio a CPU-bound server would reach, and is less sensitive than req/s to other load on the machine. h3-mcp is ${options.lib === "dist" ? "the built package (dist/)" : "the TypeScript sources through tsx"}.`,
    "",
    "| scenario | target | req/s (min–max) | p50 ms | p99 ms | req/s ÷ ceiling | p50 ÷ ceiling | server CPU µs/req | CPU ceiling ÷ CPU | peak RSS MB |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const row of rows) {
    const id = row.scenario.id;
    const s = results.get(id, row.kind)!;
    const baseKind = results.baseOf(id);
    const base = results.get(id, baseKind);
    const vsBase = base !== undefined && row.kind !== baseKind;
    const firstOfScenario = rows.find((r) => r.scenario === row.scenario) === row;
    const spread = config.rounds > 1 ? ` (${fmtInt(s.rpsMin)}–${fmtInt(s.rpsMax)})` : "";
    const rpsRatio = vsBase ? results.ratio(id, row.kind) : undefined;
    const cpuRatio = vsBase && base.cpuUs && s.cpuUs ? base.cpuUs / s.cpuUs : undefined;
    out.push(
      `| ${firstOfScenario ? row.scenario.title : ""} | ${targetName(id, row.kind)} | ${fmtInt(s.rps)}${spread} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${
        rpsRatio !== undefined ? `${rpsRatio.toFixed(2)}×` : ""
      } | ${vsBase ? `${(s.p50 / base.p50).toFixed(2)}×` : ""} | ${s.cpuUs?.toFixed(1) ?? "–"} | ${cpuRatio !== undefined ? `${cpuRatio.toFixed(2)}×` : ""} | ${s.rssMb?.toFixed(0) ?? "–"} |`,
    );
  }
  const actorCap = results.ratio("task-create", "actor", "bare");
  if (actorCap !== undefined) {
    const cpu = results.cpuRatio("task-create", "actor", "bare");
    const mcp = results.ratio("task-create", "h3-mcp", "actor");
    out.push(
      "",
      `One XState actor per task, and nothing else, caps task creation at ${actorCap.toFixed(2)}× bare h3 (CPU ${cpu?.toFixed(2) ?? "–"}×); h3-mcp creates tasks at ${mcp?.toFixed(2) ?? "–"}× that cap.`,
    );
  }
  const all = [...results.statsOf.values()];
  const others = all.map((s) => s.otherCpu).filter((v): v is number => v !== undefined);
  if (others.length) {
    const worst = Math.max(...others);
    out.push(
      "",
      `CPU used by other processes during the runs: up to ${worst.toFixed(2)} cores${worst > 0.25 ? " (the machine was not quiet: req/s figures are disturbed, CPU per request much less so)" : ""}.`,
    );
  }
  const clientBound = [...results.statsOf.entries()].filter(([, s]) => s.clientCpu > 0.9).map(([k]) => k);
  if (clientBound.length) out.push("", `Load generator above 90% of a core during: ${clientBound.join(", ")} (figures there are a floor).`);
  return out;
}

/** Plain node:http against bare h3, and the two-instance table. */
export function comparisons(results: Results): string[] {
  const out: string[] = [];
  const nodeRatio = results.ratio("echo", "node", "bare");
  if (nodeRatio !== undefined) {
    out.push(
      "",
      `Plain node:http answers the echo request at ${nodeRatio.toFixed(2)}× bare h3's rate (CPU ${results.cpuRatio("echo", "node", "bare")?.toFixed(2)}×): h3-mcp's synchronous tools/call is ${results.ratio("echo", "h3-mcp", "node")?.toFixed(2)}× of that.`,
    );
  }
  const twoRows = results.rows.filter((r) => r.kind === "two");
  if (twoRows.length) {
    out.push(
      "",
      "Two instances sharing one Redis behind a round-robin proxy, against one instance behind the same proxy. On two cores the load generator, the proxy, Redis and the instances share the machine, so read this as the cost of going through a shared store and a balancer, not as a speedup:",
      "",
      "| scenario | instances | req/s | p50 ms | p99 ms | req/s ÷ one | server CPU µs/req (instances + proxy) |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const { scenario } of twoRows) {
      for (const kind of ["h3-mcp", "two"] as const) {
        const st = results.get(scenario.id, kind);
        if (!st) continue;
        const r = kind === "two" ? results.ratio(scenario.id, "two", "h3-mcp") : undefined;
        out.push(
          `| ${kind === "h3-mcp" ? scenario.title : ""} | ${kind === "two" ? 2 : 1} | ${fmtInt(st.rps)} | ${st.p50.toFixed(2)} | ${st.p99.toFixed(2)} | ${r === undefined ? "" : `${r.toFixed(2)}×`} | ${st.cpuUs?.toFixed(1) ?? "–"} |`,
        );
      }
    }
  }
  return out;
}
