/** JSON-RPC and MCP error codes used on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/**
 * An error that reaches the client as a JSON-RPC error object.
 *
 * Throw it from a tool handler (or a task's `run`) to answer with a protocol error instead of
 * a tool result with `isError: true`.
 *
 * @example
 * throw new McpJsonRpcError(-32602, "Unknown city", { city });
 */
export class McpJsonRpcError extends Error {
  override name = "McpJsonRpcError";
  readonly code: number;
  readonly data?: unknown;
  /** HTTP status to answer with; chosen from the code when not given. */
  readonly status?: number;

  constructor(code: number, message: string, data?: unknown, status?: number) {
    super(message);
    this.code = code;
    if (data !== undefined) this.data = data;
    if (status !== undefined) this.status = status;
  }

  /** Name-based check, so errors thrown by another copy of the library are recognised too. */
  static isError(input: unknown): input is McpJsonRpcError {
    return (
      input instanceof Error &&
      input.name === "McpJsonRpcError" &&
      typeof (input as McpJsonRpcError).code === "number"
    );
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** `-32602` with an optional `data`. */
export function invalidParams(message: string, data?: unknown): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InvalidParams, message, data);
}

/** `-32021` naming the capabilities the client must declare on this request. */
export function missingCapability(requiredCapabilities: Record<string, unknown>): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.MissingRequiredClientCapability, "Missing required client capability", {
    requiredCapabilities,
  });
}

/** `-32601` for a method this server does not serve to this request. */
export function methodNotFound(method: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
}

/** `-32020`: a required header is missing, malformed or disagrees with the body. */
export function headerMismatch(message: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.HeaderMismatch, message);
}

/**
 * Misuse of the library that never reaches the wire as such (a helper called outside a
 * request, a task created where none can be). Carries a string code for programs to check.
 */
export class McpUsageError extends Error {
  override name = "McpUsageError";
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
