// examples/testing/tools.node-test.ts under node:test, in its own Node process (TypeScript through tsx, the
// package's entries resolved to src/ by tsconfig's paths), as a project without vitest runs it. The
// packed package runs it too (scripts/check-package.mjs).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

it("passes every case of examples/testing/tools.node-test.ts under node:test", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--test", "--test-reporter=tap", "examples/testing/tools.node-test.ts"], { cwd: root });
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(stdout)?.[1]);
  expect(count("fail")).toBe(0);
  // Five calls, then the deployment along each path the chart gives it: the paths are counted, not listed.
  expect(count("pass")).toBeGreaterThanOrEqual(5 + 4);
  expect(stdout).toMatch(/^    ok \d+ - input\.request\[confirm\] → input\.answer\[confirm\] → work\.done$/m);
}, 60_000);
