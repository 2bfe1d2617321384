// A Nitro route file: the file is the route (/mcp, every method) and its default export the handler.
// h3-mcp runs on the h3 Nitro brings (one copy: see docs/nitro.md), so Nitro's h3 helpers take the
// event a tool gets.
import { getRequestHeader } from "nitro/h3";
import { defineMcpHandler, defineTool, getMcpAuth, mcpElicit, mcpInput, mcpListChanged, mcpRequestState } from "h3-mcp";
import { mcpTask, mcpTasks } from "h3-mcp/tasks";
import { auth } from "../auth";

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const askColour = mcpElicit({
  message: "Which colour?",
  requestedSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
});
const askGo = mcpElicit({
  message: "Go on?",
  requestedSchema: { type: "object", properties: { go: { type: "boolean" } }, required: ["go"] },
});

const tools = [
  defineTool({
    name: "echo",
    description: "Answers with the text, and the user agent Nitro's getRequestHeader reads from the event",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    handler: (event, args) => ({
      content: [{ type: "text", text: `echo: ${(args as { text: string }).text}` }],
      _meta: { userAgent: getRequestHeader(event, "user-agent") ?? null },
    }),
  }),
  defineTool({
    name: "whoami",
    description: "Who the access token says the caller is",
    handler: (event) => getMcpAuth(event)?.subject ?? "anonymous",
  }),
  defineTool({
    name: "pick_colour",
    description: "An MRTR round whose state comes back signed",
    handler: (event) => {
      const input = mcpInput(event, { colour: askColour });
      if (!input.complete) return input.ask({ state: { step: "asked" } });
      const answer = input.answers.colour;
      return `colour ${answer?.action === "accept" ? answer.content?.colour : "none"}, state ${JSON.stringify(mcpRequestState(event))}`;
    },
  }),
  defineTool({
    name: "slow_task",
    description: "A task that waits twice, then completes",
    execution: { taskSupport: "required" },
    handler: (event) =>
      mcpTask(event, {
        async run(task) {
          await wait(300, task.signal);
          task.update({ statusMessage: "Half way" });
          await wait(300, task.signal);
          return { content: [{ type: "text", text: "slow task done" }] };
        },
      }),
  }),
  defineTool({
    name: "ask_task",
    description: "A task that asks through tasks/update",
    execution: { taskSupport: "required" },
    handler: (event) =>
      mcpTask(event, {
        async run(task) {
          const { go } = await task.requestInput({ go: askGo });
          return { content: [{ type: "text", text: go?.action === "accept" && go.content?.go === true ? "went on" : "stopped" }] };
        },
      }),
  }),
  defineTool({
    name: "block_task",
    description: "A task that works until cancelled",
    execution: { taskSupport: "required" },
    handler: (event) => mcpTask(event, { run: (task) => wait(120_000, task.signal).then(() => ({ content: [] })) }),
  }),
  defineTool({
    name: "announce",
    description: "Tells listening clients that the tool list changed",
    handler: (event) => (mcpListChanged(event, "tools"), "announced"),
  }),
];

export default defineMcpHandler({ name: "h3-mcp-nitro", version: "1.0.0", tools }, { auth, extensionPlugins: [mcpTasks({ pollIntervalMs: 100 })] });
