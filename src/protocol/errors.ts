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
  /** HTTP headers to answer with (a 401's `WWW-Authenticate`, say). */
  readonly headers?: Record<string, string>;

  constructor(code: number, message: string, data?: unknown, status?: number, headers?: Record<string, string>) {
    super(message);
    this.code = code;
    if (data !== undefined) this.data = data;
    if (status !== undefined) this.status = status;
    if (headers !== undefined) this.headers = headers;
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

/**
 * `-32603` for a task that cannot be created because the store holds `max` tasks already. A JSON-RPC
 * error rather than a tool result, so a model does not read it as its own tool failing. Every task
 * store answers with this one.
 */
export function taskStoreFull(max: number): McpJsonRpcError {
  return new McpJsonRpcError(
    ErrorCode.InternalError,
    `The task store is full (${max} ${max === 1 ? "task" : "tasks"} retained); try again later`,
    { max },
  );
}

/**
 * `-32603` for a task that cannot be created because its caller holds `maxPerOwner` tasks already: the
 * full store's error, naming the per-caller cap instead (`data.maxPerOwner`).
 */
export function taskOwnerFull(maxPerOwner: number): McpJsonRpcError {
  return new McpJsonRpcError(
    ErrorCode.InternalError,
    `Too many tasks for this caller (${maxPerOwner} ${maxPerOwner === 1 ? "task" : "tasks"} retained, the most one caller may hold); try again later`,
    { maxPerOwner },
  );
}

/** HTTP status of the answer when the task store cannot be reached in time. */
export const STORE_UNAVAILABLE_STATUS = 503;

/** `Retry-After` of the 503 answered while the task store cannot be reached, in seconds. */
export const STORE_RETRY_AFTER_SECONDS = 2;

const STORE_RETRY_AFTER = Object.freeze({ "retry-after": String(STORE_RETRY_AFTER_SECONDS) });

/**
 * `-32603` with HTTP 503 and `Retry-After` for a task store that is down or too slow: what a store throws
 * then, so the request is answered at once, and the runtime retries the work's own changes meanwhile.
 */
export function taskStoreUnavailable(reason: string): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InternalError, `The task store is unavailable: ${reason}`, undefined, STORE_UNAVAILABLE_STATUS, STORE_RETRY_AFTER);
}

/**
 * What the handler's `onError` is told, once per outage, when the task store stops answering: the first
 * failure is its `cause`, `since` when it began. The requests that fail meanwhile are answered 503 and are not
 * told one by one; the end of the outage is told to plugins (`taskStoreAvailability`).
 */
export class TaskStoreOutageError extends Error {
  override name = "TaskStoreOutageError";
  constructor(
    /** When the outage began (epoch ms). */
    readonly since: number,
    cause: McpJsonRpcError,
  ) {
    super(cause.message, { cause });
  }
}

/** One outage of a task store, as its failures carry it to the transport (which tells `onError` once). */
export interface StoreOutage {
  readonly error: TaskStoreOutageError;
  /** Whether `onError` was told already. */
  told: boolean;
}

/** The outage a store's failure belongs to, set by whoever watches the store; undefined for any other error. */
export function outageOf(error: unknown): StoreOutage | undefined {
  return typeof error === "object" && error !== null ? (error as { "~outage"?: StoreOutage })["~outage"] : undefined;
}

/** Marks a store's failure as part of `outage`. */
export function markOutage(error: McpJsonRpcError, outage: StoreOutage): void {
  if (!Object.isFrozen(error)) Object.defineProperty(error, "~outage", { value: outage, configurable: true });
}

/**
 * `-32603` "Internal error" for an unexpected failure the client must not learn about; `cause` still
 * reaches the handler's `onError`.
 */
export function internalError(cause: unknown): McpJsonRpcError {
  const error = new McpJsonRpcError(ErrorCode.InternalError, "Internal error");
  Object.defineProperty(error, "~cause", { value: cause });
  return error;
}

/** What `internalError` hid from the client, for `onError`; undefined for any other error. */
export function hiddenCause(error: unknown): unknown {
  return typeof error === "object" && error !== null ? (error as { "~cause"?: unknown })["~cause"] : undefined;
}

/**
 * An h3 `HTTPError` with a 4xx status (a `bind` that refuses the h3 way) as a JSON-RPC `-32600` that
 * keeps its HTTP status and headers, and says what it is (Unauthenticated for 401, Forbidden for 403).
 * Undefined for anything else.
 */
export function fromHttpError(error: unknown): McpJsonRpcError | undefined {
  if (!(error instanceof Error) || error.name !== "HTTPError") return undefined;
  const { status, statusText, headers } = error as Error & { status?: unknown; statusText?: unknown; headers?: unknown };
  if (typeof status !== "number" || status < 400 || status > 499) return undefined;
  const what = status === 401 ? "Unauthenticated" : status === 403 ? "Forbidden" : typeof statusText === "string" && statusText ? statusText : `HTTP ${status}`;
  // h3's default message ("HTTPError 403") says nothing the status does not.
  const detail = error.message && error.message !== `HTTPError ${status}` && error.message !== what ? `: ${error.message}` : "";
  const kept: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, key) => (kept[key] = value));
  return new McpJsonRpcError(ErrorCode.InvalidRequest, `${what}${detail}`, undefined, status, Object.keys(kept).length ? kept : undefined);
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
