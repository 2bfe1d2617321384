import path from "node:path";
import { inject } from "vitest";
import { launch } from "./launch.ts";
import { describeRuntime } from "./smoke.ts";

describeRuntime("node", () => {
  const dirs = inject("smokeDirs");
  const tsx = path.join(dirs.root, "node_modules/tsx/dist/loader.mjs");
  return launch("node", { command: process.execPath, args: () => ["--import", tsx, "server.ts"], cwd: dirs.app, logDir: dirs.work });
});
