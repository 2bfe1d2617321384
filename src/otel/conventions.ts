// The names this entry records under: the OpenTelemetry semantic conventions for MCP (docs/gen-ai/mcp.md)
// and GenAI tool execution, and, for tasks (which the conventions do not cover yet), names of our own in
// the same `mcp.` style. Kept in one place so the docs and the tests can name them too.

/** Span attributes. */
export const ATTR = {
  method: "mcp.method.name",
  requestId: "jsonrpc.request.id",
  protocolVersion: "mcp.protocol.version",
  sessionId: "mcp.session.id",
  resourceUri: "mcp.resource.uri",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operation: "gen_ai.operation.name",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  errorType: "error.type",
  statusCode: "rpc.response.status_code",
  networkTransport: "network.transport",
  networkProtocol: "network.protocol.name",
  networkProtocolVersion: "network.protocol.version",
  clientAddress: "client.address",
  serverAddress: "server.address",
  serverPort: "server.port",
  // Ours: tasks.
  taskId: "mcp.task.id",
  taskIds: "mcp.task.ids",
  taskStatus: "mcp.task.status",
  taskStatusMessage: "mcp.task.status_message",
  taskAttempt: "mcp.task.attempt",
  inputKeys: "mcp.task.input_request.keys",
  inputMethods: "mcp.task.input_request.methods",
  leaveReason: "mcp.task.leave.reason",
  // Ours: refusals and client failures.
  authReason: "mcp.auth.refusal.reason",
  authDetail: "mcp.auth.refusal.detail",
  authIssuer: "mcp.auth.issuer",
  clientFailure: "mcp.client.failure",
} as const;

/** Metric names. */
export const METRIC = {
  operationDuration: "mcp.server.operation.duration",
  sessionDuration: "mcp.server.session.duration",
  tasksCreated: "mcp.server.task.created",
  tasksFinished: "mcp.server.task.finished",
  taskDuration: "mcp.server.task.duration",
  tasksActive: "mcp.server.task.active",
  storeSize: "mcp.server.task.store.size",
  authRefusals: "mcp.server.auth.refusals",
  clientFailures: "mcp.server.client.failures",
} as const;

/** Span event names (ours: tasks). */
export const EVENT = {
  status: "mcp.task.status",
  inputRequested: "mcp.task.input_requested",
  left: "mcp.task.left",
  authRefused: "mcp.auth.refused",
} as const;

/** The conventions' bucket boundaries for MCP durations, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** `error.type` of a tool call that answered with `isError: true`. */
export const TOOL_ERROR = "tool_error";

/** `error.type` of an attempt's run span when the attempt was fenced (it lost its hold on the task). */
export const FENCED = "fenced";
