// An instance lost without a drain: killed with SIGKILL, or paused with SIGSTOP past its lease and continued.
// Real demo processes on a real redis-server; a named run goes on elsewhere a lease later, a closure fails.
import { describe, expect, it } from "vitest";
import { createTask, demoCluster } from "./cluster.ts";

const cluster = demoCluster({ leaseMs: 1000, drainMs: 1000 });

describe("MCP_TASKS_LEASE_MS", () => {
  it("sets the instance's lease in Redis", async () => {
    const instance = await cluster.start("leased", { MCP_TASKS_LEASE_MS: "1500" });
    expect(instance.output()).toContain("lease 1500 ms");
    const id = await createTask(instance.client, "slow_compute", { seconds: 60, label: "leased" });
    const [lease] = (await cluster.redis.cli("KEYS", "{h3-mcp-demo}:lease:*")).split("\n");
    expect(lease).toMatch(/^\{h3-mcp-demo\}:lease:/);
    const ttl = Number(await cluster.redis.cli("PTTL", lease!));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1500);
    await instance.client.cancelTask(id);
    await instance.stop("SIGKILL");
  });

  it("refuses a value that is not a whole number of milliseconds, naming the variable", async () => {
    await expect(cluster.start("bad", { MCP_TASKS_LEASE_MS: "soon" })).rejects.toThrow(/MCP_TASKS_LEASE_MS must be a whole number of milliseconds, got "soon"/);
  });
});
