// OpenTelemetry for the demo, started only when OTEL_EXPORTER_OTLP_ENDPOINT is set (server.ts imports this
// file then, and nothing of OpenTelemetry otherwise). The Node SDK reads the standard variables itself:
// OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf by default, or http/json), OTEL_METRIC_EXPORT_INTERVAL,
// OTEL_TRACES_SAMPLER, OTEL_RESOURCE_ATTRIBUTES and the rest; the service name defaults to h3-mcp-demo.
import { NodeSDK } from "@opentelemetry/sdk-node";
import type { McpPlugin } from "h3-mcp";
import { mcpOpenTelemetry } from "h3-mcp/otel";
import type { McpTasksPlugin } from "h3-mcp/tasks";

export interface DemoTelemetry {
  /** One line for the start-up banner. */
  describe: string;
  /** The plugin to install first, given the tasks plugin (whose store size it then reports). */
  plugins(tasks: McpTasksPlugin): McpPlugin[];
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}

export function startTelemetry(env: NodeJS.ProcessEnv = process.env): DemoTelemetry {
  env.OTEL_SERVICE_NAME ||= "h3-mcp-demo";
  // Logs go through MCP's own logging in this demo; only traces and metrics are exported.
  env.OTEL_LOGS_EXPORTER ||= "none";
  const sdk = new NodeSDK();
  sdk.start();
  const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf";
  return {
    describe: `OpenTelemetry on: service ${env.OTEL_SERVICE_NAME}, OTLP ${protocol} to ${env.OTEL_EXPORTER_OTLP_ENDPOINT}`,
    plugins: (tasks) => [mcpOpenTelemetry({ tasks, recordToolPayloads: env.MCP_OTEL_RECORD_PAYLOADS === "1" })],
    shutdown: () => sdk.shutdown(),
  };
}
