// A server whose `report` tool writes a report section by section as a run found by name: progress in the
// status message, a checkpoint after every section, and one question (whether to add an appendix) asked
// once the first sections are written. A later attempt (after a crash or a drain) starts after the last
// checkpoint, and asking the question again gives back the answer already given, without asking the
// client. The options are where a test holds the report; the real server passes none.
import { H3 } from "h3";
import { defineMcpHandler, defineTool, mcpElicit } from "h3-mcp";
import { defineTaskRun, mcpTask, mcpTasks, type McpTaskRunContext, type McpTasksPlugin } from "h3-mcp/tasks";

export interface ReportServerOptions {
  /** Awaited before the question and before the end (a model test's hold). */
  beforeStep?: (signal: AbortSignal) => Promise<void>;
  /** Awaited after each section's checkpoint is saved, with the attempt that wrote it. */
  afterSection?: (section: number, attempt: number, signal: AbortSignal) => Promise<void> | void;
}

interface ReportInput {
  sections: number;
  /** The question comes after this many sections. */
  askAfter: number;
}

interface Checkpoint {
  done: number;
  text: string[];
}

const appendix = mcpElicit({
  message: "Add an appendix?",
  requestedSchema: { type: "object", properties: { add: { type: "boolean" } }, required: ["add"] },
});

export function createReportServer(options: ReportServerOptions = {}): { app: H3; tasks: McpTasksPlugin } {
  const beforeStep = options.beforeStep ?? (async () => {});
  const afterSection = options.afterSection ?? (() => {});

  const report = defineTaskRun({
    name: "report",
    maxAttempts: 3,
    async run(task: McpTaskRunContext, input: ReportInput) {
      const saved = task.checkpoint as Checkpoint | undefined;
      const text = saved?.text ?? [];
      let done = saved?.done ?? 0;
      const writeUpTo = async (last: number) => {
        for (let section = done + 1; section <= last; section++) {
          await task.sleep(1);
          text.push(`Section ${section}`);
          task.update({ statusMessage: `Section ${section}/${input.sections} (attempt ${task.attempt})` });
          await task.saveCheckpoint({ done: section, text } satisfies Checkpoint);
          done = section;
          await afterSection(section, task.attempt, task.signal);
        }
      };
      await writeUpTo(input.askAfter);
      await beforeStep(task.signal);
      const answers = await task.requestInput({ appendix });
      const add = answers.appendix?.action === "accept" && answers.appendix.content?.add === true;
      await writeUpTo(input.sections);
      await beforeStep(task.signal);
      return { content: [{ type: "text", text: [...text, ...(add ? ["Appendix"] : [])].join("\n") }] };
    },
  });

  const tool = defineTool({
    name: "report",
    description: "Writes a report, section by section",
    execution: { taskSupport: "required" },
    inputSchema: { type: "object", properties: { sections: { type: "integer", minimum: 1, maximum: 30 } }, required: ["sections"] },
    handler: (event, args) => {
      const sections = args.sections as number;
      return mcpTask(event, { statusMessage: "Queued", run: report, input: { sections, askAfter: Math.min(2, sections) } satisfies ReportInput });
    },
  });
  const tasks = mcpTasks({ runs: [report] });
  const app = new H3().all("/mcp", defineMcpHandler({ name: "reports", version: "1.0.0", tools: [tool] }, { extensionPlugins: [tasks] }));
  return { app, tasks };
}
