// docs/getting-started.md's first screen: a task tool that asks a question, and a client that creates the
// task, polls it, answers the question and reads the result. `npx tsx docs/examples/first-task.ts`
import { H3 } from "h3";
import { z } from "zod";
import { defineMcpHandler, defineTool, mcpElicit } from "h3-mcp";
import { mcpTask, mcpTasks } from "h3-mcp/tasks";
import { createTestClient } from "h3-mcp/tasks/testing";

const confirm = mcpElicit({
  message: "Publish now?",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
});

const publish = defineTool({
  name: "publish",
  inputSchema: z.object({ pages: z.number().int().min(1) }),
  execution: { taskSupport: "required" },
  handler: (event, { pages }) =>
    mcpTask(event, {
      statusMessage: "Rendering",
      async run(task) {
        for (let page = 1; page <= pages; page++) {
          await task.sleep(100);
          task.update({ statusMessage: `Page ${page}/${pages}` });
        }
        const answers = await task.requestInput({ confirm }); // the task parks in input_required
        return answers.confirm?.action === "accept" && answers.confirm.content?.ok ? `Published ${pages} pages.` : "Kept as a draft.";
      },
    }),
});

const mcp = defineMcpHandler({ name: "publisher", version: "1.0.0", tools: [publish] }, { extensionPlugins: [mcpTasks()] });
export const app = new H3().all("/mcp", mcp);

// A client, here in the same process through app.fetch (a server on a port: createTestClient(fetch, { url: "http://127.0.0.1:3000/mcp" })).
const client = createTestClient(app);
const handle = await client.callTool("publish", { pages: 3 }); // tools/call answers at once, with a task
if (handle.resultType !== "task") throw new Error("no task: is mcpTasks() installed?");
const parked = await client.waitForTask(handle.taskId); // polls tasks/get; stops at input_required
console.log(parked.status, parked.inputRequests?.confirm?.params); // input_required { mode: "form", message: "Publish now?", … }
await client.updateTask(handle.taskId, { confirm: { action: "accept", content: { ok: true } } }); // tasks/update
const done = await client.waitForTask(handle.taskId); // polls again, to the end
console.log(done.status, done.result?.content); // completed [ { type: "text", text: "Published 3 pages." } ]
