// Tasks from the official client, against the demo server (`npm start`):
//   npx tsx examples/official-client/render.ts [http://127.0.0.1:3000/mcp]
// A task followed to its result, a task that asks a question (answered here without a user), and a task
// cancelled.
import { createApplicationInputHandler, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { connect } from "./connect.ts";

const url = new URL(process.argv[2] ?? "http://127.0.0.1:3000/mcp");
const { session, close } = await connect(url, {
  // One callback per kind of question a task may ask. A real client shows the form (request.params.message,
  // .requestedSchema) and sends what the user answered.
  onInputRequest: createApplicationInputHandler({
    elicitation: (request) => {
      console.log(`asked: ${request.params.message}`);
      return { action: "accept", content: { confirm: true } };
    },
    sampling: () => {
      throw new Error("this client does not sample");
    },
    roots: () => ({ roots: [] }),
  }),
});

try {
  // 1. Follow a task to its end. settle() polls tasks/get at the server's pollIntervalMs.
  const render = await session.callTool("render", { frames: 3, msPerFrame: 100 });
  if (render.kind !== "task") throw new Error("the server answered at once: does it serve the tasks extension?");
  console.log(`render: task ${render.handle.taskId}`);
  const { outcome } = await render.settle({
    onEvent: (event) => {
      if (event.type === "task") console.log(`render: ${event.task.status} (${event.task.statusMessage ?? ""})`);
    },
  });
  console.log(`render: ${textOf(resultFromTaskOutcome(outcome))}`);

  // 2. A task that parks in input_required: onInputRequest answers, ext-tasks sends tasks/update.
  const deletion = await session.callTool("delete_everything", {});
  if (deletion.kind === "task") console.log(`delete_everything: ${textOf(resultFromTaskOutcome((await deletion.settle()).outcome))}`);

  // 3. Cancel: tasks/cancel, then the task settles as cancelled.
  const long = await session.callTool("render", { frames: 100, msPerFrame: 1000 });
  if (long.kind === "task") {
    await long.cancel();
    console.log(`long render: ${(await long.settle()).outcome.status}`);
  }
} finally {
  await close();
}

function textOf(result: unknown): string {
  return ((result as { content?: { type: string; text?: string }[] }).content ?? []).map((block) => block.text ?? "").join("");
}
