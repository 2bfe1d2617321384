// Protocol types, as much of them as the library and its users touch. The official schema is
// the authority; these are kept structural and open so newer fields pass through.

export type JsonObject = Record<string, unknown>;
export type RequestId = string | number;

export const MODERN_VERSION = "2026-07-28";
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export const SUPPORTED_VERSIONS = [MODERN_VERSION, ...LEGACY_VERSIONS] as readonly string[];

/** Whether `version` is one of the 2025 protocol versions served to sessions. */
export function isLegacyVersion(version: unknown): version is (typeof LEGACY_VERSIONS)[number] {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(version);
}

/** `_meta` keys of the 2026-07-28 protocol. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
  /**
   * On a task whose run is found by name: the attempt that holds (or last held) it, 1-based; absent until
   * its first attempt is claimed (a task handed to an executor waits for a worker's claim).
   */
  attempt: "io.github.h3-mcp/attempt",
} as const;

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

export interface ClientCapabilities {
  elicitation?: { form?: JsonObject; url?: JsonObject } & JsonObject;
  sampling?: JsonObject;
  roots?: JsonObject;
  extensions?: Record<string, JsonObject>;
  experimental?: JsonObject;
  [key: string]: unknown;
}

export type TextContent = { type: "text"; text: string; annotations?: JsonObject; _meta?: JsonObject };
export type ImageContent = { type: "image"; data: string; mimeType: string; annotations?: JsonObject; _meta?: JsonObject };
export type AudioContent = { type: "audio"; data: string; mimeType: string; annotations?: JsonObject; _meta?: JsonObject };
export type ResourceLink = { type: "resource_link"; uri: string; name: string; [key: string]: unknown };
export type EmbeddedResource = {
  type: "resource";
  resource: { uri: string; mimeType?: string; text?: string; blob?: string; [key: string]: unknown };
  annotations?: JsonObject;
  _meta?: JsonObject;
};
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: JsonObject;
  [key: string]: unknown;
}

export type LoggingLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
export const LOG_LEVELS: readonly LoggingLevel[] = [
  "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
];

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

export type TaskSupport = "forbidden" | "optional" | "required";

/** A result that asks the client for input first (MRTR): the client answers and retries with `inputResponses`. */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests?: Record<string, { method: string; params: JsonObject }>;
  requestState?: string;
}

/** The flat task handle a `tools/call` answers with. */
export interface CreateTaskResult {
  resultType: "task";
  taskId: string;
  status: "working";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
}
