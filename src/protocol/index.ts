// The protocol layer: what MCP and JSON-RPC say, independent of how a request arrives.
//   types.ts         the protocol shapes the library and its users touch (results, capabilities, versions, _meta keys)
//   errors.ts        error codes, McpJsonRpcError (goes on the wire), McpUsageError (a programming mistake)
//   wire.ts          every JSON sent to a client: JSON-RPC envelopes, SSE frames, statuses, task envelopes
//   headers.ts       the Mcp-* header codec and the x-mcp-header parameter checks
//   schema.ts        the schema bridge: Standard Schema validation, JSON Schema generation
//   json-schema.ts   plain JSON Schema enforced: prepared at mount, checked without generated code
//   uri-template.ts  RFC 6570 URI templates for resource templates
// Imports: nothing else from src/ but utils/ (and the chart's types from machines/). Every other layer imports this one.
// This file is the layer's public face, re-exported by src/index.ts; code inside src/ imports the files themselves.
export { ErrorCode, McpJsonRpcError, McpUsageError, TaskStoreOutageError } from "./errors.ts";
export { LEGACY_VERSIONS, MODERN_VERSION, SUPPORTED_VERSIONS } from "./types.ts";
export type {
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  CreateTaskResult,
  Implementation,
  InputRequiredResult,
  LoggingLevel,
} from "./types.ts";
