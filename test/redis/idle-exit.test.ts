// A process that used the shared store and has nothing left to do exits by itself, even without close().
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { useRedisClusters } from "./cluster.ts";

const clusters = useRedisClusters();
const script = fileURLToPath(new URL("./idle-exit-child.ts", import.meta.url));

it("exits once its tasks are finished and its streams closed, with the store never closed", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", script, clusters.redis.url], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("exit", (c) => {
      clearTimeout(kill);
      resolve(c);
    });
  });
  expect(out).toContain("finished: completed");
  expect(code).toBe(0);
}, 30_000);
