// The tasks page's own examples, runnable: a render that reports frames, and a delete that asks first.
import { defineTool, mcpElicit } from "h3-mcp";
import { canCreateTask, mcpTask } from "h3-mcp/tasks";
import { z } from "zod";
import { sleep } from "../sleep.ts";

export const renderTool = defineTool({
  name: "render",
  description: "Renders frames; answers with a task when the client supports tasks",
  execution: { taskSupport: "optional" },
  inputSchema: z.object({ frames: z.number().int().min(1).max(100).default(10), msPerFrame: z.number().int().min(0).max(5000).default(200) }),
  handler: (event, { frames, msPerFrame }) => {
    // A client that did not declare the extension must never get a task.
    if (!canCreateTask(event)) return `Rendered ${frames} frames synchronously.`;
    return mcpTask(event, {
      statusMessage: "Queued",
      async run(task) {
        for (let frame = 1; frame <= frames; frame++) {
          await sleep(msPerFrame, task.signal);
          task.update({ statusMessage: `Frame ${frame}/${frames}` });
        }
        return { content: [{ type: "text", text: "Rendered." }] };
      },
    });
  },
});

const askConfirm = mcpElicit({
  message: "Really delete everything?",
  requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
});

export const deleteEverythingTool = defineTool({
  name: "delete_everything",
  description: "Asks for confirmation mid-task, then pretends to delete",
  execution: { taskSupport: "required" },
  handler: (event) =>
    mcpTask(event, {
      statusMessage: "Waiting for confirmation",
      async run(task) {
        const answers = await task.requestInput({ confirm: askConfirm });
        const ok = answers.confirm?.action === "accept" && answers.confirm.content?.confirm === true;
        return { content: [{ type: "text", text: ok ? "Deleted." : "Cancelled." }] };
      },
    }),
});

export const taskTools = [renderTool, deleteEverythingTool];
