// The features layer: what a server serves, and the contracts the layers above share.
//   tools.ts, prompts.ts, resources.ts  the definitions and their compiled, mount-time form
//   compiled-server.ts                  McpServerOptions compiled once: tables, list pages, capabilities, discover
//   call-tool.ts, content-methods.ts    tools/call; prompts/get, resources/read, completion/complete (both eras)
//   tool-result.ts                      a tool's value as its result: the one path for calls and tasks alike
//   call-context.ts                     MethodCall: what a method implementation gets about the call it serves
//   mrtr/                               input requests, reading and validating answers, signing requestState
//   request-context.ts                  McpContext, the per-request context contract, and getMcpContext
//   extension-plugin.ts                 the plugin contract: hooks (McpPlugin), and extensions (McpExtensionPlugin)
//   hooks.ts                            the plugins' hooks composed at mount, one function per hook
//   mounted-handler.ts                  a handler's tools and hooks, offered at mount to plugins working away from requests
//   change-hub.ts                       list-changed and resource-updated announcements, fanned out to streams
//   list-changes.ts                     adding, replacing, removing tools/prompts/resources after mount
//   task-api.ts                         mcpTask, canCreateTask: they find the tasks plugin on the request
//   authorization.ts                    McpAuthInfo, the guard contract the handler calls, getMcpAuth
// Imports: protocol/ and utils/ only, never transport/ or tasks/.
// This file is the layer's public face, re-exported by src/index.ts; code inside src/ imports the files themselves.
export type { McpServerOptions } from "./compiled-server.ts";
export type { McpListItems, McpListKeys } from "./list-changes.ts";
export type { RequestStateOptions } from "./mrtr/request-state-signer.ts";

// Tools
export { defineTool } from "./tools.ts";
export type { ToolDefinition, ToolReturn } from "./tools.ts";

// Prompts and resources
export { definePrompt } from "./prompts.ts";
export type { Completer, GetPromptResult, PromptDefinition, PromptMessage, PromptReturn } from "./prompts.ts";
export { defineResource, defineResourceTemplate } from "./resources.ts";
export type { CacheHints, ResourceContents, ResourceDefinition, ResourceReturn, ResourceTemplateDefinition } from "./resources.ts";

// Request context
export { getMcpContext, mcpListChanged, mcpLog, mcpProgress, mcpResourceUpdated } from "./request-context.ts";
export type { McpContext } from "./request-context.ts";

// Client input (MRTR)
export { mcpElicit, mcpElicitUrl, mcpInputRequired, mcpListRoots, mcpSample } from "./mrtr/input-requests.ts";
export type { CreateMessageResult, ElicitResult, InputAnswers, InputRequest, ListRootsResult, RequestedSchema } from "./mrtr/input-requests.ts";
export { mcpInput, mcpInputResponses } from "./mrtr/answers.ts";
export { mcpValidateElicitation } from "./mrtr/validate-answers.ts";
export { mcpRequestState } from "./mrtr/request-state.ts";

// Authorization (the guard itself is mcpAuth() from "h3-mcp/auth")
export { getMcpAuth } from "./authorization.ts";
export type { McpAuthGuard, McpAuthInfo, McpAuthRefusal, McpTokenRefusalReason } from "./authorization.ts";

// Extension plugins
export { defineMcpPlugin } from "./define-plugin.ts";
export type {
  ListenFilter,
  ListenStream,
  McpClientFailure,
  McpExtensionPlugin,
  McpNext,
  McpPlugin,
  McpPluginHooks,
  McpPluginMethod,
  McpSessionEnd,
  McpSessionInfo,
  McpStoreAvailability,
  McpTaskLeaveReason,
  McpTaskRunInfo,
  McpTaskStatus,
} from "./extension-plugin.ts";

// Tasks (served only when mcpTasks() from "h3-mcp/tasks" is installed)
export { canCreateTask, mcpTask, TASKS_EXTENSION } from "./task-api.ts";
export type { McpTaskClosureOptions, McpTaskContext, McpTaskNamedRunOptions, McpTaskOptions, McpTaskRunContext, McpTaskRunDefinition } from "./task-api.ts";
