import { defineConfig } from "vitest/config";

// `npm run test:runtimes`: the runtime smokes (test/runtimes/*.smoke.ts), one file per runtime, run in
// parallel. Not part of `npm test`: the runtimes come from npm (some 420 MB) on first run.
export default defineConfig({
  test: {
    include: ["test/runtimes/*.smoke.ts"],
    globalSetup: ["test/runtimes/setup.ts"],
    // Every runtime at once: the files mostly wait (on a 20 s idle stream), so they overlap even on 2 cores.
    maxWorkers: 10,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
