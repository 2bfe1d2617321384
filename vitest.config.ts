import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // Examples and docs import the package by its public name; tests run them from source.
    alias: [
      { find: /^h3-mcp\/tasks\/redis$/, replacement: src("./src/tasks/redis/index.ts") },
      { find: /^h3-mcp\/tasks$/, replacement: src("./src/tasks/index.ts") },
      { find: /^h3-mcp\/machines$/, replacement: src("./machines/index.ts") },
      { find: /^h3-mcp$/, replacement: src("./src/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
  },
});
