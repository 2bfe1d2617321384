// Whether the Redis suites (test/redis/, test/durability/) run: only with a `redis-server` on PATH. Without one, `npm test`
// leaves them out and says so loudly after its summary; under CI (or H3_MCP_REQUIRE_REDIS=1) they stay in
// and fail, because there a missing server is a broken machine, not a developer's laptop.
// Imported by vitest.config.ts and by the server helper, so nothing here imports vitest.
import { accessSync, constants } from "node:fs";
import path from "node:path";

/** The suites that start their own redis-server: the Redis store's, and real demo processes sharing one. */
export const REDIS_TESTS = ["test/redis/**/*.test.ts", "test/durability/**/*.test.ts"];

/** The `redis-server` executable on PATH, if any. */
export function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, "redis-server");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** True when a missing redis-server must fail the run rather than be reported. */
export function redisRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = (v: string | undefined) => v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
  return flag(env.CI) || flag(env.H3_MCP_REQUIRE_REDIS);
}

export const INSTALL_HINT = "install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)";
export const HOW_TO_RUN = `${INSTALL_HINT}, then run npm test again`;

/** What `startRedis()` throws when there is no server to start. */
export function missingServerMessage(): string {
  return `redis-server is not on PATH, and the Redis suites need a real one: ${HOW_TO_RUN}.` +
    (redisRequired() ? " (CI / H3_MCP_REQUIRE_REDIS is set, so this fails the run.)" : "");
}

/** The vitest pieces for the gate: files to leave out, and a reporter that prints the verdict last. */
export function redisGate() {
  const binary = findRedisServer();
  const required = redisRequired();
  const run = binary !== undefined || required;
  const reporter = {
    onTestRunEnd() {
      if (binary) return;
      const bar = "!".repeat(100);
      const lines = required
        ? [
            "REDIS SUITES FAILED: redis-server is not on PATH, and CI / H3_MCP_REQUIRE_REDIS requires it.",
            `The files in ${REDIS_TESTS.join(" and ")} ran and failed on purpose. To fix: ${HOW_TO_RUN}.`,
          ]
        : [
            "REDIS SUITES DID NOT RUN: redis-server is not on PATH, so the tests in test/redis/ and test/durability/ were left out.",
            "Everything else ran. The Redis task store (h3-mcp/tasks/redis) is NOT tested by this run.",
            `To run them: ${HOW_TO_RUN}.`,
          ];
      process.stderr.write(`\n${bar}\n${lines.map((l) => `!! ${l}`).join("\n")}\n${bar}\n\n`);
    },
  };
  return { exclude: run ? [] : REDIS_TESTS, reporter };
}
