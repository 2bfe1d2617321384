// A task's run as a span and as metrics. The span starts when the run does, in a trace of its own linked
// to the call that created the task (through the trace context the task carries), and ends with the task:
// its final status as an attribute, each status change and input request as an event on the way. An
// attempt of a run found by name that leaves this instance with its task still going (handed off, fenced)
// ends its span there, saying why; the task is not counted as finished, since another attempt goes on.
import { context, SpanKind, SpanStatusCode, trace, type Meter, type Tracer } from "@opentelemetry/api";
import type { McpTaskLeaveReason, McpTaskRunInfo, McpTaskStatus } from "../features/extension-plugin.ts";
import type { JsonObject } from "../protocol/types.ts";
import { ATTR, DURATION_BUCKETS, EVENT, FENCED, METRIC, TOOL_ERROR } from "./conventions.ts";
import { spanContextOf } from "./trace-context.ts";

/** Tells how many tasks the store holds now. */
export type TaskStoreSize = () => number;

/** How a task ended, as `mcp.task.status` names it: a task whose ttl ran out is `expired`, not `failed`. */
type Ending = "completed" | "failed" | "cancelled" | "expired";

export function createTaskTracing(tracer: Tracer, meter: Meter, storeSize: TaskStoreSize | undefined) {
  const created = meter.createCounter(METRIC.tasksCreated, { unit: "{task}", description: "Tasks created (and run) by this instance" });
  const finished = meter.createCounter(METRIC.tasksFinished, { unit: "{task}", description: "Tasks run here that ended, by how they ended" });
  const duration = meter.createHistogram(METRIC.taskDuration, {
    unit: "s",
    description: "How long a task lived, from its creation to its end",
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const active = meter.createUpDownCounter(METRIC.tasksActive, { unit: "{task}", description: "Tasks run here that are working or waiting for input now" });
  if (storeSize) {
    meter
      .createObservableGauge(METRIC.storeSize, { unit: "{task}", description: "Tasks the store holds (live and finished, until they expire)" })
      .addCallback((result) => result.observe(storeSize()));
  }

  const wrapTaskRun = (task: McpTaskRunInfo, next: () => JsonObject | Promise<JsonObject>): JsonObject | Promise<JsonObject> => {
    const tool = task.tool.name;
    const creator = spanContextOf(task.origin) ?? trace.getActiveSpan()?.spanContext();
    const span = tracer.startSpan(
      `execute_tool ${tool}`,
      {
        kind: SpanKind.INTERNAL,
        root: true,
        links: creator && trace.isSpanContextValid(creator) ? [{ context: creator }] : undefined,
        attributes: {
          [ATTR.operation]: "execute_tool",
          [ATTR.toolName]: tool,
          [ATTR.taskId]: task.taskId,
          // Each attempt of a run found by name is a span of its own, wherever it runs.
          ...(task.attempt !== undefined && { [ATTR.taskAttempt]: task.attempt }),
        },
      },
      context.active(),
    );
    const started = performance.now();
    const toolAttributes = { [ATTR.toolName]: tool };
    // A later attempt runs a task created before (and counted by the instance that ran its first attempt).
    if ((task.attempt ?? 1) === 1) created.add(1, toolAttributes);
    let status: McpTaskStatus["status"] = "working";
    // The span ends once: with the task, or when the attempt leaves here (the runtime tells only one).
    let ended = false;
    active.add(1, { ...toolAttributes, [ATTR.taskStatus]: status });
    task.onStatus((change) => {
      if (ended) return;
      active.add(-1, { ...toolAttributes, [ATTR.taskStatus]: status });
      status = change.status;
      if (status === "working" || status === "input_required") {
        active.add(1, { ...toolAttributes, [ATTR.taskStatus]: status });
        span.addEvent(EVENT.status, { [ATTR.taskStatus]: status, ...messageOf(change) });
        if (status === "input_required") inputRequested(span, change);
        return;
      }
      const ending: Ending = change.expired ? "expired" : status;
      span.addEvent(EVENT.status, { [ATTR.taskStatus]: ending, ...messageOf(change) });
      span.setAttribute(ATTR.taskStatus, ending);
      markError(span, change, ending);
      ended = true;
      span.end();
      const endAttributes = { ...toolAttributes, [ATTR.taskStatus]: ending };
      finished.add(1, endAttributes);
      duration.record((performance.now() - started) / 1000, endAttributes);
    });
    task.onLeave((reason) => {
      if (ended) return;
      ended = true;
      active.add(-1, { ...toolAttributes, [ATTR.taskStatus]: status });
      span.addEvent(EVENT.left, { [ATTR.leaveReason]: reason, [ATTR.taskStatus]: status });
      span.setAttribute(ATTR.leaveReason, reason);
      markLeft(span, reason);
      span.end();
    });
    // The run's own spans (a fetch it makes, say) are children of its span.
    return context.with(trace.setSpan(context.active(), span), next);
  };
  return { wrapTaskRun };
}

// --- Internal ---

function messageOf(change: McpTaskStatus): Record<string, string> {
  return typeof change.statusMessage === "string" ? { [ATTR.taskStatusMessage]: change.statusMessage } : {};
}

/** What the task asks of the client: the keys and the methods, never their content. */
function inputRequested(span: ReturnType<Tracer["startSpan"]>, change: McpTaskStatus): void {
  const requests = (change.inputRequests ?? {}) as Record<string, { method?: unknown }>;
  const keys = Object.keys(requests);
  span.addEvent(EVENT.inputRequested, {
    [ATTR.inputKeys]: keys,
    [ATTR.inputMethods]: keys.map((key) => String(requests[key]?.method)),
  });
}

/** A failed task (expired included) and a tool error are errors; a cancelled task is not. */
function markError(span: ReturnType<Tracer["startSpan"]>, change: McpTaskStatus, ending: Ending): void {
  if (ending === "failed" || ending === "expired") {
    const error = change.error as { code?: unknown; message?: unknown } | undefined;
    const type = typeof error?.code === "number" ? String(error.code) : "_OTHER";
    span.setAttributes({ [ATTR.errorType]: type, [ATTR.statusCode]: type });
    span.setStatus({ code: SpanStatusCode.ERROR, message: typeof error?.message === "string" ? error.message : undefined });
  } else if (ending === "completed" && (change.result as JsonObject | undefined)?.isError === true) {
    span.setAttribute(ATTR.errorType, TOOL_ERROR);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
}

/**
 * A hand-off is the drain doing what it is for: not an error. A fenced attempt is one: this instance lost
 * its hold on the task (its lease lapsed or went unrenewed: the store unreachable, the process stalled or
 * cut off), the work done here since the last checkpoint is lost, and another attempt starts over. The task
 * itself may still complete; an error on the attempt's span is what shows the fault that cost it.
 */
function markLeft(span: ReturnType<Tracer["startSpan"]>, reason: McpTaskLeaveReason): void {
  if (reason !== "fenced") return;
  span.setAttribute(ATTR.errorType, FENCED);
  span.setStatus({ code: SpanStatusCode.ERROR, message: "The attempt lost its hold on the task; another attempt goes on" });
}
