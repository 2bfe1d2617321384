// Tasks across a deploy (docs/durability.md). `steps` is a closure: it cannot leave its instance, so a
// drain fails it (with the shutdown reason) and a crash fails it (a lease later). `durable_steps` and
// `durable_ask` are runs found by name: another instance serving them runs their next attempt, from the
// checkpoint or with the answers kept so far. A worker process (examples/demo/worker.ts) imports
// `durableRuns` to serve the same runs.
import { defineTool } from "h3-mcp";
import { defineTaskRun, mcpElicit, McpJsonRpcError, mcpTask, type McpTaskRunDefinition } from "h3-mcp/tasks";
import { z } from "zod";
import { sleep } from "../sleep.ts";

const stepsInput = z.object({
  steps: z.number().int().min(0).max(10_000).describe("How many steps"),
  stepMs: z.number().int().min(0).max(60_000).describe("How long each step takes, in ms"),
});
type StepsInput = z.infer<typeof stepsInput>;

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

/** Steps with a checkpoint after each: a later attempt goes on from the last step an earlier one saved. */
export const durableStepsRun = defineTaskRun({
  name: "durable_steps",
  maxAttempts: 3,
  async run(task, { steps, stepMs }: StepsInput) {
    const resumedFrom = (task.checkpoint as { done: number } | undefined)?.done ?? 0;
    // A line when an attempt starts and when one stops early: a demo's output shows where each attempt ran,
    // what it took over and what it left.
    console.log(`durable_steps ${task.taskId}: attempt ${task.attempt} from step ${resumedFrom}`);
    let saved = resumedFrom;
    try {
      for (let done = resumedFrom + 1; done <= steps; done++) {
        await sleep(stepMs, task.signal);
        // Saved before it is reported: a step shown done is never done again.
        await task.saveCheckpoint({ done });
        saved = done;
        task.update({ statusMessage: `Step ${done}/${steps} (attempt ${task.attempt})` });
      }
    } catch (error) {
      if (task.signal.aborted) console.log(`durable_steps ${task.taskId}: attempt ${task.attempt} stopped after step ${saved}: ${stopReason(task.signal)}`);
      throw error;
    }
    return {
      content: [{ type: "text", text: `Did ${steps} steps; attempt ${task.attempt} went on from step ${resumedFrom}.` }],
      structuredContent: { steps, attempt: task.attempt, resumedFrom },
    };
  },
});

const stopReason = (signal: AbortSignal) => (signal.reason instanceof Error ? signal.reason.message : String(signal.reason));

const valueForm = (message: string) => mcpElicit({ message, requestedSchema: { type: "object", properties: { value: { type: "string" } }, required: ["value"] } });
const valueOf = (answer: { action: string; content?: Record<string, unknown> } | undefined): string | null =>
  answer?.action === "accept" && typeof answer.content?.value === "string" ? answer.content.value : null;

/**
 * Two rounds of input, `first` then `second`: the answers are kept with the task, so a later attempt asks
 * `first` again only to get the kept answer back at once, and waits on the same open `second`.
 */
export const durableAskRun = defineTaskRun({
  name: "durable_ask",
  maxAttempts: 3,
  async run(task) {
    console.log(`durable_ask ${task.taskId}: attempt ${task.attempt}`);
    const { first } = await task.requestInput({ first: valueForm("First value?") });
    const { second } = await task.requestInput({ second: valueForm("Second value?") });
    const result = { first: valueOf(first), second: valueOf(second), attempt: task.attempt };
    return { content: [{ type: "text", text: `First ${result.first}, second ${result.second}, attempt ${result.attempt}.` }], structuredContent: result };
  },
});

/** The runs found by name of the demo: list them in `mcpTasks({ runs })` on every instance and worker. */
export const durableRuns: readonly McpTaskRunDefinition[] = [durableStepsRun, durableAskRun];

/**
 * The durable tools. `served` are the runs the demo's tasks plugin lists: a run left out (Redis without
 * MCP_TASKS_SECRET, whose store cannot keep a run's sealed record) is still listed, and its call says why
 * it cannot run.
 */
export function durableTools(served: readonly McpTaskRunDefinition[]) {
  const unkept = (run: McpTaskRunDefinition) =>
    new McpJsonRpcError(
      -32603,
      `${run.name} is a run found by name, which this demo's task store does not keep: with REDIS_URL, MCP_TASKS_SQLITE or DATABASE_URL, set MCP_TASKS_SECRET (the same on every instance) to seal its record in the store`,
    );
  const startOf = <I>(run: McpTaskRunDefinition<I>) => {
    const here = served.includes(run);
    return (event: Parameters<typeof mcpTask>[0], input: I) => {
      if (!here) throw unkept(run);
      return mcpTask(event, { statusMessage: "Queued", run, input });
    };
  };
  const startSteps = startOf(durableStepsRun);
  const startAsk = startOf(durableAskRun);
  return [
    stepsTool,
    defineTool({
      name: "durable_steps",
      description: "Counts steps in a task retried on another instance (3 attempts), from the last step saved",
      execution: { taskSupport: "required" },
      inputSchema: stepsInput,
      handler: (event, input) => startSteps(event, input),
    }),
    defineTool({
      name: "durable_ask",
      description: "Asks for two values (first, then second) in a task retried on another instance (3 attempts), keeping the answers",
      execution: { taskSupport: "required" },
      handler: (event) => startAsk(event, undefined),
    }),
  ];
}
