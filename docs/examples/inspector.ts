// Every task actor of an MCP server, live in the Stately inspector. Run it with
//   npx tsx docs/examples/inspector.ts           (then open the address it prints)
//   npx tsx docs/examples/inspector.ts --open    (opens it in your browser)
// The server and the relay bind to 127.0.0.1 only: inspection events carry task inputs and results.
// Ctrl-C (SIGINT) or SIGTERM stops both and exits.
import { execFile } from "node:child_process";
import { createWebSocketInspector } from "@statelyai/inspect";
import { H3, serve } from "h3";
import { defineMcpHandler, defineTool } from "h3-mcp";
import { mcpTask, mcpTasks } from "h3-mcp/tasks";
import { startInspectorRelay } from "../../examples/demo/inspector-relay.ts";

const relay = await startInspectorRelay(Number(process.env.INSPECTOR_PORT ?? 8080));
const inspector = createWebSocketInspector({ url: relay.wsUrl });

const render = defineTool({
  name: "render",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      statusMessage: "Queued",
      async run(task) {
        for (let frame = 1; frame <= 3 && !task.signal.aborted; frame++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          task.update({ statusMessage: `Frame ${frame}/3` });
        }
        return "Rendered.";
      },
    }),
});

const mcp = defineMcpHandler(
  { name: "my-server", version: "1.0.0", tools: [render] },
  { extensionPlugins: [mcpTasks({ inspect: inspector.inspect })] },
);
const port = Number(process.env.PORT ?? 3000);
const server = serve(new H3().all("/mcp", mcp), { port, hostname: "127.0.0.1", silent: true, gracefulShutdown: false });
await server.ready();

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, async () => {
    inspector.stop();
    await Promise.all([relay.stop(), server.close(true)]);
    process.exit(0);
  });
}

console.log(`MCP server listening on http://127.0.0.1:${port}/mcp`);
console.log(`Inspector: open ${relay.url} in a browser (the UI itself comes from stately.ai)`);
if (process.argv.includes("--open")) openInBrowser(relay.url);

/** The platform's own "open this URL" command; nothing runs unless asked for with --open. */
function openInBrowser(url: string): void {
  const [command, args]: [string, string[]] =
    process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
  execFile(command, args, (error) => {
    if (error) console.error(`Could not open a browser (${error.message}); open ${url} yourself.`);
  });
}
