import { inject } from "vitest";
import { launch } from "./launch.ts";
import { describeRuntime } from "./smoke.ts";

describeRuntime("deno", () => {
  const dirs = inject("smokeDirs");
  return launch("deno", {
    command: inject("runtimes").deno,
    args: () => ["run", "--allow-net", "--allow-env", "--allow-read", "server.ts"],
    cwd: dirs.app,
    env: { DENO_NO_UPDATE_CHECK: "1", DENO_DIR: `${dirs.work}/deno-cache` },
    logDir: dirs.work,
  });
});
