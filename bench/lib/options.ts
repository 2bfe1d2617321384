// The command line of `npm run bench` and the run's configuration derived from it (quick mode
// shrinks every duration and store size).
import { parseArgs } from "node:util";

export interface BenchConfig {
  rounds: number;
  durationSec: number;
  warmupSec: number;
  connections: number;
  /** Store sizes of the task-get rows beyond the 1-task one. */
  fills: number[];
  /** N of the memory-per-task child. */
  memoryN: number;
}

export interface BenchOptions {
  quick: boolean;
  lib: "dist" | "src";
  /** Scenario id prefixes to run (all when undefined). */
  only?: string[];
  /** Where to save the data as JSON. */
  json?: string;
  memory: boolean;
  build: boolean;
  config: BenchConfig;
}

export function readOptions(argv = process.argv.slice(2)): BenchOptions {
  const { values: args } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      rounds: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      only: { type: "string" },
      json: { type: "string" },
      "no-memory": { type: "boolean", default: false },
      lib: { type: "string", default: "dist" },
      "no-build": { type: "boolean", default: false },
    },
  });
  if (args.lib !== "dist" && args.lib !== "src") throw new Error("--lib is dist or src");
  const quick = args.quick;
  return {
    quick,
    lib: args.lib,
    only: args.only?.split(","),
    json: args.json,
    memory: !args["no-memory"],
    build: !args["no-build"],
    config: {
      rounds: Number(args.rounds ?? (quick ? 1 : 10)),
      durationSec: Number(args.duration ?? (quick ? 1 : 2)),
      warmupSec: Number(args.warmup ?? (quick ? 0.5 : 1)),
      connections: Number(args.connections ?? 20),
      fills: quick ? [100, 1_000, 5_000] : [1_000, 100_000, 1_000_000],
      memoryN: quick ? 5_000 : 100_000,
    },
  };
}
