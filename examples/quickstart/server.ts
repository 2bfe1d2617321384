// The README's task server: one tool that answers with a task, which the client polls to its result.
//   npx tsx examples/quickstart/server.ts      (PORT to change from 3000)
import { H3, serve } from "h3";
import { z } from "zod";
import { defineMcpHandler, defineTool } from "h3-mcp";
import { canCreateTask, mcpTask, mcpTasks } from "h3-mcp/tasks";

const render = defineTool({
  name: "render",
  inputSchema: z.object({ frames: z.number().int().min(1).max(100).default(3) }),
  execution: { taskSupport: "optional" },
  handler: (event, { frames }) => {
    // A client that did not declare the tasks extension gets the answer in the call itself.
    if (!canCreateTask(event)) return `Rendered ${frames} frames.`;
    return mcpTask(event, {
      statusMessage: "Queued",
      async run(task) {
        for (let frame = 1; frame <= frames; frame++) {
          await task.sleep(500); // rejects at once if the client cancels the task
          task.update({ statusMessage: `Frame ${frame}/${frames}` });
        }
        return "Rendered.";
      },
    });
  },
});

const mcp = defineMcpHandler({ name: "my-server", version: "1.0.0", tools: [render] }, { extensionPlugins: [mcpTasks()] });
serve(new H3().all("/mcp", mcp), { port: Number(process.env.PORT ?? 3000), hostname: "127.0.0.1" });
