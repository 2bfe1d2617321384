// One MCP endpoint for every runtime: this module is the whole app. server.ts serves it with h3's
// serve() on Node, Bun and Deno; worker.ts and worker-app-fetch.ts export it for Cloudflare Workers;
// examples/nitro/ uses the same call as a Nitro route file. Nothing here runs at import but
// building tables: no clocks, randomness or I/O, which Workers forbid outside a request.
import { defineMcpHandler, defineTool, getMcpAuth, mcpElicit, mcpInput, mcpListChanged, mcpRequestState } from "h3-mcp";
import { jwtVerifier, mcpAuth } from "h3-mcp/auth";
import { mcpTask, mcpTasks, type McpTasksOptions } from "h3-mcp/tasks";

// Protected when MCP_AUTH_ISSUER names an authorization server (the runtime smokes always set it):
// every request then needs a JWT access token from it for MCP_AUTH_RESOURCE with scope `mcp`. Workers
// see their vars in process.env too (nodejs_compat). Building the guard fetches nothing: the issuer's
// keys are fetched at the first token.
const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
export const auth = env.MCP_AUTH_ISSUER
  ? mcpAuth({
      resource: env.MCP_AUTH_RESOURCE ?? "http://127.0.0.1:3000/mcp",
      verifier: jwtVerifier({ issuers: [{ issuer: env.MCP_AUTH_ISSUER, typ: "at+jwt" }] }),
      scopes: ["mcp"],
    })
  : undefined;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const whoami = defineTool({
  name: "whoami",
  description: "Who the access token says the caller is",
  handler: (event) => ({ content: [{ type: "text", text: getMcpAuth(event)?.subject ?? "anonymous" }] }),
});

const echo = defineTool({
  name: "echo",
  description: "Answers with the text it was given",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: (_event, args) => `echo: ${(args as { text: string }).text}`,
});

const askColour = mcpElicit({
  message: "Which colour?",
  requestedSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
});

// An MRTR round: the first call asks and puts a step into requestState; the retry reads it back.
const pickColour = defineTool({
  name: "pick_colour",
  description: "Asks for a colour, then names it together with the state it signed into the round",
  handler: (event) => {
    const input = mcpInput(event, { colour: askColour });
    if (!input.complete) return input.ask({ state: { step: "asked" } });
    const answer = input.answers.colour;
    const colour = answer?.action === "accept" ? answer.content?.colour : "none";
    return `colour ${colour}, state ${JSON.stringify(mcpRequestState(event))}`;
  },
});

// A task whose run awaits a timer after the response is sent: on Workers it finishes only because
// the run is handed to a waitUntil (the request's, or with worker-app-fetch.ts the one of cloudflare:workers).
const slowTask = defineTool({
  name: "slow_task",
  description: "A task that waits, then completes",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      statusMessage: "Waiting",
      async run(task) {
        await sleep(300, task.signal);
        task.update({ statusMessage: "Half way" });
        await sleep(300, task.signal);
        return { content: [{ type: "text", text: "slow task done" }] };
      },
    }),
});

const askGo = mcpElicit({
  message: "Go on?",
  requestedSchema: { type: "object", properties: { go: { type: "boolean" } }, required: ["go"] },
});

const askTask = defineTool({
  name: "ask_task",
  description: "A task that asks the client a question through tasks/update",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      async run(task) {
        const answers = await task.requestInput({ go: askGo });
        const go = answers.go?.action === "accept" && answers.go.content?.go === true;
        return { content: [{ type: "text", text: go ? "went on" : "stopped" }] };
      },
    }),
});

const blockTask = defineTool({
  name: "block_task",
  description: "A task that works until it is cancelled",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      async run(task) {
        await sleep(120_000, task.signal);
        return { content: [{ type: "text", text: "never cancelled" }] };
      },
    }),
});

// Announces a tools list change to every listening client (the frame an idle listen stream waits for).
const announce = defineTool({
  name: "announce",
  description: "Tells listening clients that the tool list changed",
  handler: (event) => {
    mcpListChanged(event, "tools");
    return "announced";
  },
});

/** The endpoint with its tasks kept as `tasks` says (by default in this process's memory). */
export function runtimeMcp(tasks: McpTasksOptions = {}) {
  return defineMcpHandler(
    { name: "h3-mcp-runtimes", version: "1.0.0", tools: [echo, whoami, pickColour, slowTask, askTask, blockTask, announce] },
    // The smokes reach the server as 127.0.0.1 or localhost, which the default Host/Origin check allows.
    { auth, extensionPlugins: [mcpTasks({ pollIntervalMs: 100, ...tasks })] },
  );
}

export default runtimeMcp();
