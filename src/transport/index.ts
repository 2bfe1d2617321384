// The transport layer: how MCP arrives over HTTP and leaves again.
//   handler.ts        defineMcpHandler: the h3 handler, mount-time setup, era detection
//   body.ts, security.ts   the body with its size limit; Host and Origin checks
//   modern.ts         the 2026-07-28 path: headers, _meta, method lookup, capability checks
//   legacy.ts, legacy-input.ts, sessions.ts   the 2025-11-25 path: sessions, input asked as server-to-client requests
//   listen.ts         subscriptions/listen streams
//   request.ts        the per-request context and its SSE channel (progress, logs)
//   through-hooks.ts  requests through the plugins' request hooks, when some plugin has one
//   mount.ts          what a handler prepared at mount, shared by both paths
// Imports: features/, protocol/, utils/; never tasks/ (the core serves tasks only through the plugin contract).
// This file is the layer's public face, re-exported by src/index.ts; code inside src/ imports the files themselves.
export { defineMcpHandler } from "./handler.ts";
export type { McpHandler } from "./handler.ts";
export type { McpHandlerConfig } from "./handler-config.ts";
export type { OriginPolicy } from "./security.ts";
export type { SessionOptions } from "./sessions.ts";
