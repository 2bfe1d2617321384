// An audit log as a plugin of hooks: one line per request (who, what, how it ended, how long), and one per
// task when it ends. Install it with defineMcpHandler(options, { plugins: [auditLog(console.log)] }).
import { defineMcpPlugin, getMcpContext, McpJsonRpcError, type McpPlugin } from "h3-mcp";
import { callerOf } from "./rate-limit.ts";

/** One audited request, or one task's end. */
export interface AuditEntry {
  at: string;
  caller: string;
  method: string;
  /** The tool or prompt, when there is one. */
  target?: string;
  /** `ok`, `tool_error` (a result with isError), or the JSON-RPC error code answered. */
  outcome: "ok" | "tool_error" | number;
  ms: number;
  /** The task a call created, or whose end this is. */
  taskId?: string;
}

/** Writes an entry per request and per finished task; what is written never holds arguments or results. */
export function auditLog(write: (entry: AuditEntry) => void): McpPlugin {
  return defineMcpPlugin({
    name: "audit-log",
    async wrapRequest(event, next) {
      const ctx = getMcpContext(event);
      const started = performance.now();
      const target = typeof ctx.params.name === "string" ? ctx.params.name : undefined;
      const entry = (outcome: AuditEntry["outcome"], taskId?: unknown): AuditEntry => ({
        at: new Date().toISOString(),
        caller: callerOf(event),
        method: ctx.method,
        ...(target === undefined ? {} : { target }),
        outcome,
        ms: Math.round(performance.now() - started),
        ...(typeof taskId === "string" ? { taskId } : {}),
      });
      try {
        const result = await next();
        write(entry(result.isError === true ? "tool_error" : "ok", result.resultType === "task" ? result.taskId : ctx.params.taskId));
        return result;
      } catch (error) {
        write(entry(McpJsonRpcError.isError(error) ? error.code : -32603));
        throw error;
      }
    },
    wrapTaskRun(task, next) {
      const started = performance.now();
      task.onStatus((status) => {
        if (status.status === "working" || status.status === "input_required") return;
        const failed = status.status === "failed" || status.expired === true;
        const isError = (status.result as { isError?: boolean } | undefined)?.isError === true;
        write({
          at: new Date().toISOString(),
          caller: "task",
          method: `task ${status.expired ? "expired" : status.status}`,
          target: task.tool.name,
          outcome: failed ? ((status.error as { code?: number } | undefined)?.code ?? -32603) : isError ? "tool_error" : "ok",
          ms: Math.round(performance.now() - started),
          taskId: task.taskId,
        });
      });
      return next();
    },
  });
}
