// The throwaway cluster itself: it answers, keeps its data across a restart, and refuses connections
// while it is down (what the store's outage tests rely on).
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresServer } from "../helpers/postgres-server.ts";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(() => server?.destroy());

describe("the throwaway Postgres cluster", () => {
  it("runs as a non-root user, keeps its data across a restart, and refuses connections while stopped", async () => {
    const [who] = await server.query<{ version: string }>("SELECT current_setting('server_version_num') AS version");
    expect(Number(who!.version)).toBeGreaterThanOrEqual(150000);
    const uid = Number(execFileSync("ps", ["-o", "uid=", "-p", String(server.pid)], { encoding: "utf8" }).trim());
    expect(uid).not.toBe(0);
    await server.query("CREATE TABLE kept (n int)");
    await server.query("INSERT INTO kept VALUES (7)");
    await server.stop();
    await expect(server.query("SELECT 1")).rejects.toThrow();
    await server.start();
    expect(await server.query("SELECT n FROM kept")).toEqual([{ n: 7 }]);
  }, 60_000);
});
