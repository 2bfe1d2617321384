import { inject } from "vitest";
import { launch } from "./launch.ts";
import { describeRuntime } from "./smoke.ts";

// workerd through `wrangler dev` (local mode), which needs Node >= 22.12.
describeRuntime("workerd", () => {
  const dirs = inject("smokeDirs");
  const runtimes = inject("runtimes");
  return launch("workerd", {
    command: runtimes.node22,
    args: (port) => [runtimes.wrangler, "dev", "--config", "wrangler.jsonc", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"],
    cwd: dirs.app,
    env: { WRANGLER_SEND_METRICS: "false", WRANGLER_LOG_PATH: `${dirs.work}/wrangler-logs`, CI: "true" },
    logDir: dirs.work,
    readyMs: 90_000,
  });
});
