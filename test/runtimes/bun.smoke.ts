import { inject } from "vitest";
import { launch } from "./launch.ts";
import { describeRuntime } from "./smoke.ts";

// Bun.serve's default 10 s idle timeout is left as it is: the keep-alive has to beat it.
describeRuntime("bun", () => {
  const dirs = inject("smokeDirs");
  return launch("bun", { command: inject("runtimes").bun, args: () => ["server.ts"], cwd: dirs.app, logDir: dirs.work });
});
