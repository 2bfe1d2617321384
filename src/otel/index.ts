// The "h3-mcp/otel" entry: OpenTelemetry tracing and metrics as a plugin of hooks, per the semantic
// conventions for MCP. Its only dependency is `@opentelemetry/api` (an optional peer), loaded by this entry
// alone: a server that does not import it loads nothing of OpenTelemetry.
//   plugin.ts          mcpOpenTelemetry(options): request spans, operation and session durations
//   task-spans.ts      a task's run as a span linked to its creating call, and the task metrics
//   trace-context.ts   a span's W3C trace context as a task carries it, and back
//   conventions.ts     every attribute, metric and event name recorded, and the duration buckets
// Imports: features/, protocol/, utils/ (the plugin contract and the request context); never transport/ or tasks/.
export { mcpOpenTelemetry } from "./plugin.ts";
export type { McpOpenTelemetryOptions } from "./plugin.ts";
export { ATTR as MCP_OTEL_ATTRIBUTES, METRIC as MCP_OTEL_METRICS, DURATION_BUCKETS as MCP_DURATION_BUCKETS } from "./conventions.ts";
