import { describe, expect, it } from "vitest";
import { redisRequired } from "../helpers/redis-gate.ts";

describe("the Redis test gate", () => {
  it("requires redis-server under CI or H3_MCP_REQUIRE_REDIS, and not otherwise", () => {
    expect(redisRequired({})).toBe(false);
    expect(redisRequired({ CI: "true" })).toBe(true);
    expect(redisRequired({ CI: "1" })).toBe(true);
    expect(redisRequired({ H3_MCP_REQUIRE_REDIS: "1" })).toBe(true);
    expect(redisRequired({ CI: "false", H3_MCP_REQUIRE_REDIS: "0" })).toBe(false);
    expect(redisRequired({ CI: "" })).toBe(false);
  });
});
