// The bound on what one task keeps, on the in-memory store (the cases are test/helpers/task-bounds.ts), and
// the option itself.
import { expect, it } from "vitest";
import { mcpTasks, memoryTaskStore } from "../../src/tasks/index.ts";
import { describeTaskBounds } from "../helpers/task-bounds.ts";

describeTaskBounds("memory store", () => memoryTaskStore());

it("refuses a maxTaskBytes that is not a positive integer at mcpTasks()", () => {
  for (const bad of [0, -1, 1.5, Number.NaN, Infinity, "1024"]) {
    expect(() => mcpTasks({ maxTaskBytes: bad as number })).toThrow(`mcpTasks: maxTaskBytes must be a positive integer, not ${String(bad)}`);
  }
  expect(() => mcpTasks({ maxTaskBytes: 16 * 1024 * 1024 })).not.toThrow();
});
