// Handler
export { defineMcpHandler } from "./handler.ts";
export type { McpHandler, McpHandlerConfig } from "./handler.ts";
export type { McpServerOptions, CacheHints } from "./server.ts";
export type { OriginPolicy } from "./security.ts";
export type { RequestStateOptions } from "./request-state.ts";
export type { SessionOptions } from "./sessions.ts";

// Tools
export { defineTool } from "./tools.ts";
export type { ToolDefinition, ToolReturn } from "./tools.ts";

// Prompts and resources
export { definePrompt } from "./prompts.ts";
export type { Completer, GetPromptResult, PromptDefinition, PromptMessage, PromptReturn } from "./prompts.ts";
export { defineResource, defineResourceTemplate } from "./resources.ts";
export type { ResourceContents, ResourceDefinition, ResourceReturn, ResourceTemplateDefinition } from "./resources.ts";

// Request context
export { getMcpContext, mcpListChanged, mcpLog, mcpProgress, mcpResourceUpdated } from "./context.ts";
export type { McpContext } from "./context.ts";

// Client input (MRTR)
export {
  mcpElicit,
  mcpElicitUrl,
  mcpInput,
  mcpInputRequired,
  mcpInputResponses,
  mcpListRoots,
  mcpRequestState,
  mcpSample,
  mcpValidateElicitation,
} from "./mrtr.ts";
export type {
  CreateMessageResult,
  ElicitResult,
  InputAnswers,
  InputRequest,
  InputRequiredResult,
  ListRootsResult,
  RequestedSchema,
} from "./mrtr.ts";

// Errors
export { ErrorCode, McpJsonRpcError, McpUsageError } from "./errors.ts";

// Extension plugins
export { defineMcpPlugin } from "./plugins.ts";
export type { ListenFilter, ListenStream, McpExtensionPlugin, McpPluginMethod } from "./plugins.ts";

// Tasks (served only when mcpTasks() from "h3-mcp/tasks" is installed)
export { canCreateTask, mcpTask, TASKS_EXTENSION } from "./task-api.ts";
export type { CreateTaskResult, McpTaskContext, McpTaskOptions } from "./task-api.ts";

// Protocol
export { LEGACY_VERSIONS, MODERN_VERSION, SUPPORTED_VERSIONS } from "./types.ts";
export type { CallToolResult, ClientCapabilities, ContentBlock, Implementation, LoggingLevel } from "./types.ts";
