import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts", tasks: "src/tasks/index.ts", "tasks-redis": "src/tasks/redis/index.ts", machines: "machines/index.ts" },
  format: "esm",
  platform: "node",
  target: "node20",
  dts: true,
  clean: true,
  external: ["h3", "srvx", "xstate", "zod", "nanoid", "redis", "@cfworker/json-schema"],
});
