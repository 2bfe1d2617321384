// The tasks-* fixtures (conformance/fixtures.md, section E): sync and task tools, failures of both
// kinds, input asked mid-task, and an MRTR round before the task is created.
import { defineTool, ErrorCode, getMcpContext, mcpElicit, mcpInput, mcpInputRequired, McpJsonRpcError } from "h3-mcp";
import { canCreateTask, mcpTask } from "h3-mcp/tasks";
import { z } from "zod";
import { elicited } from "../answers.ts";
import { sleep } from "../sleep.ts";

export const greetTool = defineTool({
  name: "greet",
  description: "Greets by name, synchronously (never a task)",
  inputSchema: z.object({ name: z.string().describe("Who to greet") }),
  // The suite checks this text exactly: "Hello, sep-2243!" for { name: "sep-2243" }.
  handler: (_event, { name }) => `Hello, ${name}!`,
});

export const slowComputeTool = defineTool({
  name: "slow_compute",
  description: "Sleeps for some seconds; a task when the client declares the tasks extension",
  execution: { taskSupport: "optional" },
  inputSchema: z.object({
    seconds: z.number().min(0).max(600).default(1).describe("How long the computation takes"),
    label: z.string().default("job").describe("A name for this computation"),
  }),
  handler: async (event, { seconds, label }) => {
    const done = () => ({ content: [{ type: "text" as const, text: `Computed ${label} in ${seconds}s.` }] });
    // A client without the extension must never get a task: it waits for the answer instead.
    if (!canCreateTask(event)) {
      await sleep(seconds * 1000, getMcpContext(event).signal);
      return done();
    }
    return mcpTask(event, {
      statusMessage: `Computing ${label}`,
      async run(task) {
        await sleep(seconds * 1000, task.signal); // rejects on tasks/cancel, so a cancelled task stops at once
        return done();
      },
    });
  },
});

export const failingJobTool = defineTool({
  name: "failing_job",
  description: "A task that ends as a tool error (completed, isError) after about a second",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      statusMessage: "Working",
      async run(task) {
        await sleep(1000, task.signal);
        // An Error is a tool error: the task completes with isError, it does not fail.
        throw new Error("The job failed on purpose");
      },
    }),
});

export const protocolErrorJobTool = defineTool({
  name: "protocol_error_job",
  description: "A task that fails with a JSON-RPC error",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      statusMessage: "Working",
      async run(task) {
        await sleep(200, task.signal);
        // A McpJsonRpcError is a protocol error: the task ends `failed` with `error`, and no result.
        throw new McpJsonRpcError(ErrorCode.InternalError, "internal failure");
      },
    }),
});

const askConfirm = (filename: string) =>
  mcpElicit({
    message: `Delete ${filename}?`,
    requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
  });

export const confirmDeleteTool = defineTool({
  name: "confirm_delete",
  description: "A task that asks for confirmation before pretending to delete a file",
  execution: { taskSupport: "required" },
  inputSchema: z.object({ filename: z.string().describe("The file to delete") }),
  handler: (event, { filename }) =>
    mcpTask(event, {
      statusMessage: "Waiting for confirmation",
      async run(task) {
        const request = askConfirm(filename);
        const answers = await task.requestInput({ confirm: request });
        const answer = elicited(request, answers.confirm);
        const ok = answer !== undefined && answer !== "refused" && answer.confirm === true;
        return { content: [{ type: "text", text: ok ? `Deleted ${filename}.` : `Kept ${filename}.` }] };
      },
    }),
});

const askName = mcpElicit({
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
});
const askProceed = mcpElicit({
  message: "Proceed?",
  requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
});

export const multiInputTool = defineTool({
  name: "multi_input",
  description: "A task that asks two questions at once; they may be answered one at a time",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      statusMessage: "Waiting for answers",
      async run(task) {
        // Both requests are pending together; the promise resolves once both have an answer.
        const answers = await task.requestInput({ name: askName, proceed: askProceed });
        const name = elicited(askName, answers.name);
        const proceed = elicited(askProceed, answers.proceed);
        const who = name === undefined || name === "refused" ? "someone" : name.name;
        const go = proceed !== undefined && proceed !== "refused" && proceed.confirm === true;
        return { content: [{ type: "text", text: `${who} ${go ? "proceeded" : "stopped"}.` }] };
      },
    }),
});

export const toolWithTask = defineTool({
  name: "test_tool_with_task",
  description: "Asks for your name (MRTR) first, then greets you from a task",
  execution: { taskSupport: "optional" },
  handler: (event) => {
    // The question is asked synchronously, before any task exists; the retry with the answer creates it.
    const answer = elicited(askName, mcpInput(event, { user_name: askName }).answers.user_name);
    if (answer === undefined) return mcpInputRequired(event, { user_name: askName });
    const name = answer === "refused" ? "stranger" : answer.name;
    const text = `Hello, ${name}! (greeted from a task)`;
    if (!canCreateTask(event)) return text;
    return mcpTask(event, {
      statusMessage: "Greeting",
      async run(task) {
        await sleep(200, task.signal);
        return { content: [{ type: "text", text }] };
      },
    });
  },
});

export const taskFixtureTools = [
  greetTool,
  slowComputeTool,
  failingJobTool,
  protocolErrorJobTool,
  confirmDeleteTool,
  multiInputTool,
  toolWithTask,
];
