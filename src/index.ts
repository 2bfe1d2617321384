// Handler
export { defineMcpHandler } from "./transport/handler.ts";
export type { McpHandler, McpHandlerConfig } from "./transport/handler.ts";
export type { McpServerOptions } from "./features/compiled-server.ts";
export type { CacheHints } from "./features/resources.ts";
export type { OriginPolicy } from "./transport/security.ts";
export type { RequestStateOptions } from "./features/mrtr/request-state.ts";
export type { SessionOptions } from "./transport/sessions.ts";

// Tools
export { defineTool } from "./features/tools.ts";
export type { ToolDefinition, ToolReturn } from "./features/tools.ts";

// Prompts and resources
export { definePrompt } from "./features/prompts.ts";
export type { Completer, GetPromptResult, PromptDefinition, PromptMessage, PromptReturn } from "./features/prompts.ts";
export { defineResource, defineResourceTemplate } from "./features/resources.ts";
export type { ResourceContents, ResourceDefinition, ResourceReturn, ResourceTemplateDefinition } from "./features/resources.ts";

// Request context
export { getMcpContext, mcpListChanged, mcpLog, mcpProgress, mcpResourceUpdated } from "./features/request-context.ts";
export type { McpContext } from "./features/request-context.ts";

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
} from "./features/mrtr/input-requests.ts";
export type {
  CreateMessageResult,
  ElicitResult,
  InputAnswers,
  InputRequest,
  ListRootsResult,
  RequestedSchema,
} from "./features/mrtr/input-requests.ts";
export type { InputRequiredResult } from "./protocol/types.ts";

// Errors
export { ErrorCode, McpJsonRpcError, McpUsageError } from "./protocol/errors.ts";

// Extension plugins
export { defineMcpPlugin } from "./features/extension-plugin.ts";
export type { ListenFilter, ListenStream, McpExtensionPlugin, McpPluginMethod } from "./features/extension-plugin.ts";

// Tasks (served only when mcpTasks() from "h3-mcp/tasks" is installed)
export { canCreateTask, mcpTask, TASKS_EXTENSION } from "./features/task-api.ts";
export type { McpTaskContext, McpTaskOptions } from "./features/task-api.ts";
export type { CreateTaskResult } from "./protocol/types.ts";

// Protocol
export { LEGACY_VERSIONS, MODERN_VERSION, SUPPORTED_VERSIONS } from "./protocol/types.ts";
export type { CallToolResult, ClientCapabilities, ContentBlock, Implementation, LoggingLevel } from "./protocol/types.ts";
