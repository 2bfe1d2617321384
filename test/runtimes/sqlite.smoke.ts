// The SQLite store on the SQLite each runtime has of its own, over real HTTP against a real process serving
// examples/runtimes/sqlite-server.ts: node:sqlite on Node 22, bun:sqlite on Bun, node:sqlite on Deno. A
// task is created, polled to completed, the process killed (SIGKILL: no shutdown of any kind) and started
// again on the same file, and the new process answers for the task with its result.
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { expectResult, expectShape, S } from "../helpers/schemas.ts";
import { call } from "../helpers/wire.ts";
import { launch, type Launched } from "./launch.ts";
import { accessToken, withToken } from "./smoke.ts";

const TASKS = "io.modelcontextprotocol/tasks";
const caps = { extensions: { [TASKS]: {} } };

const runtimes: Record<string, { kind: string; command: () => string; args: (root: string) => string[]; env?: (work: string) => Record<string, string> }> = {
  "node 22": {
    kind: "node:sqlite",
    command: () => inject("runtimes").node22,
    // Node 22.13 and later have node:sqlite without the flag; the flag keeps older 22.x working.
    args: (root) => ["--experimental-sqlite", "--no-warnings", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), "sqlite-server.ts"],
  },
  bun: { kind: "bun:sqlite", command: () => inject("runtimes").bun, args: () => ["sqlite-server.ts"] },
  deno: {
    kind: "node:sqlite",
    command: () => inject("runtimes").deno,
    args: () => ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "sqlite-server.ts"],
    env: (work) => ({ DENO_NO_UPDATE_CHECK: "1", DENO_DIR: `${work}/deno-cache` }),
  },
};

describe.concurrent.each(Object.entries(runtimes))("the SQLite store on %s", (name, runtime) => {
  const started: Launched[] = [];
  afterAll(async () => {
    for (const server of started) await server.stop();
  });

  const start = async () => {
    const dirs = inject("smokeDirs");
    const tag = name.replace(/\W+/g, "-");
    const server = await launch(`sqlite-${tag}-${started.length + 1}`, {
      command: runtime.command(),
      args: () => runtime.args(dirs.root),
      cwd: dirs.app,
      env: { MCP_TASKS_SQLITE: path.join(dirs.work, `sqlite-${tag}.db`), MCP_TASKS_SECRET: "smoke-secret", ...runtime.env?.(dirs.work) },
      logDir: dirs.work,
    });
    started.push(server);
    const client = withToken(server.url.href, await accessToken(server.url.href));
    const post = async (method: string, params: Record<string, unknown>): Promise<any> => (await call(client, method, params, { caps })).body;
    return { server, post };
  };

  it("creates a task, polls it to completed, and answers for it after the process is killed and started again on the file", async () => {
    const first = await start();
    expect(first.server.log()).toContain(`(${runtime.kind})`);
    const created = (await first.post("tools/call", { name: "slow_task", arguments: {} })).result;
    expectShape(S.createTask, created);
    expect(created.status).toBe("working");
    const taskId = created.taskId as string;
    const deadline = Date.now() + 15_000;
    let got: any;
    for (;;) {
      got = expectResult(await first.post("tasks/get", { taskId }), S.getTask);
      if (got.status === "completed") break;
      expect(got.status).toBe("working");
      if (Date.now() > deadline) throw new Error(`task ${taskId} still ${got.status}\n${first.server.log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(JSON.stringify(got)).toContain("slow task done");
    await first.server.kill();

    const second = await start();
    const again = expectResult(await second.post("tasks/get", { taskId }), S.getTask);
    expect(again).toMatchObject({ taskId, status: "completed" });
    expect(JSON.stringify(again)).toContain("slow task done");
    // The file still takes new tasks after the restart.
    const next = (await second.post("tools/call", { name: "slow_task", arguments: {} })).result;
    expectShape(S.createTask, next);
    expect(next.taskId).not.toBe(taskId);
  });
});
