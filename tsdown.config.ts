import { defineConfig } from "tsdown";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    tasks: "src/tasks/index.ts",
    "tasks-store": "src/tasks/store-entry.ts",
    "tasks-redis": "src/tasks/redis/index.ts",
    "tasks-sqlite": "src/tasks/sqlite/index.ts",
    "tasks-postgres": "src/tasks/postgres/index.ts",
    "tasks-bullmq": "src/tasks/bullmq/index.ts",
    "tasks-testing": "src/tasks/testing/index.ts",
    "tasks-durable-object": "src/tasks/durable-object/index.ts",
    auth: "src/auth/index.ts",
    machines: "machines/index.ts",
    otel: "src/otel/index.ts",
    // The two targets of package.json's `imports` "#workers-platform", which stays an import in dist so
    // that the app's bundler picks one by its conditions (workerd or not).
    "workers-platform": "src/tasks/workers-platform.ts",
    "workers-platform.workerd": "src/tasks/workers-platform.workerd.ts",
  },
  format: "esm",
  platform: "node",
  target: "node20",
  dts: true,
  clean: true,
  external: ["h3", "@opentelemetry/api", "srvx", "xstate", "zod", "nanoid", "redis", "bullmq", "pg", "@cfworker/json-schema", "jose", "#workers-platform", "cloudflare:workers"],
});
