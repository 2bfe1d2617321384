import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { postgresGate } from "./test/helpers/postgres-gate.ts";
import { redisGate } from "./test/helpers/redis-gate.ts";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const redis = redisGate();
const postgres = postgresGate();

export default defineConfig({
  resolve: {
    // Examples and docs import the package by its public name; tests run them from source.
    alias: [
      { find: /^h3-mcp\/tasks\/redis$/, replacement: src("./src/tasks/redis/index.ts") },
      { find: /^h3-mcp\/tasks\/sqlite$/, replacement: src("./src/tasks/sqlite/index.ts") },
      { find: /^h3-mcp\/tasks\/postgres$/, replacement: src("./src/tasks/postgres/index.ts") },
      { find: /^h3-mcp\/tasks\/bullmq$/, replacement: src("./src/tasks/bullmq/index.ts") },
      { find: /^h3-mcp\/tasks\/testing$/, replacement: src("./src/tasks/testing/index.ts") },
      { find: /^h3-mcp\/tasks\/store$/, replacement: src("./src/tasks/store-entry.ts") },
      { find: /^h3-mcp\/tasks$/, replacement: src("./src/tasks/index.ts") },
      { find: /^h3-mcp\/auth$/, replacement: src("./src/auth/index.ts") },
      { find: /^h3-mcp\/machines$/, replacement: src("./machines/index.ts") },
      { find: /^h3-mcp\/otel$/, replacement: src("./src/otel/index.ts") },
      { find: /^h3-mcp$/, replacement: src("./src/index.ts") },
      // The package's own `imports`: the build for every runtime but workerd.
      { find: /^#workers-platform$/, replacement: src("./src/tasks/workers-platform.ts") },
    ],
  },
  test: {
    // The testing examples run as a user runs them, against the package entries (aliased to src above).
    include: ["test/**/*.test.ts", "examples/testing/*.test.ts"],
    // test/redis/ needs a redis-server, test/postgres/ Postgres's binaries; see test/helpers/redis-gate.ts and
    // postgres-gate.ts for who runs them and who is told.
    exclude: [...configDefaults.exclude, ...redis.exclude, ...postgres.exclude],
    reporters: ["default", redis.reporter, postgres.reporter],
    testTimeout: 20_000,
  },
});
