// Tasks across a deploy (docs/durability.md). `steps` is a closure: it cannot leave its instance, so a
// drain fails it (with the shutdown reason) and a crash fails it (a lease later).
import { defineTool } from "h3-mcp";
import { mcpTask } from "h3-mcp/tasks";
import { z } from "zod";
import { sleep } from "../sleep.ts";

const stepsInput = z.object({
  steps: z.number().int().min(0).max(10_000).describe("How many steps"),
  stepMs: z.number().int().min(0).max(60_000).describe("How long each step takes, in ms"),
});

export const stepsTool = defineTool({
  name: "steps",
  description: "Counts steps in a task that is not retried: it fails when its instance goes",
  execution: { taskSupport: "required" },
  inputSchema: stepsInput,
  handler: (event, { steps, stepMs }) =>
    mcpTask(event, {
      statusMessage: "Queued",
      async run(task) {
        for (let done = 1; done <= steps; done++) {
          await sleep(stepMs, task.signal);
          task.update({ statusMessage: `Step ${done}/${steps}` });
        }
        return { content: [{ type: "text", text: `Did ${steps} steps.` }], structuredContent: { steps } };
      },
    }),
});

export const durableTools = [stepsTool];
