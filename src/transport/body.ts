// Reading a request's body within bounds: its size, and the time the client takes to send it. A body that
// fails because of the client (it hung up, or it is too slow) is the client's doing: the error says so, and
// never reaches `onError`.
import { McpJsonRpcError, ErrorCode } from "../protocol/errors.ts";

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** What a client did to a body that never arrived whole: hung up, or sent it too slowly. */
export type ClientBodyFailure = "gone" | "body_timeout";

/**
 * Reads the request body as text, refusing more than `limit` bytes with a 413 before buffering
 * them, and a body not whole within `timeoutMs` with a 408: a declared Content-Length is checked first,
 * and a streamed body is counted as it arrives.
 */
export function readBodyText(request: Request, limit: number, timeoutMs: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  // `text()` first when the length is declared: on Node, srvx then reads the socket directly, while
  // touching `request.body` would build a web stream over it for every request.
  if (declared !== null) return withDeadline(request, request.text(), timeoutMs, undefined).then((text) => checkedText(text, limit));
  const body = request.body;
  if (!body) return Promise.resolve("");
  const reader = body.getReader();
  return withDeadline(request, readStream(reader, limit), timeoutMs, reader);
}

/** `bodyTimeoutMs` as given, checked at mount; the default when not given. */
export function bodyDeadline(ms: number | undefined): number {
  if (ms === undefined) return DEFAULT_BODY_TIMEOUT_MS;
  // Past 2^31 - 1 ms setTimeout fires at once: a deadline that long is none.
  if (ms === Infinity || ms > 2 ** 31 - 1) return Infinity;
  // setTimeout would fire at once for 0, NaN or a negative number, and refuse every body.
  if (!Number.isFinite(ms) || ms < 1) throw new TypeError(`bodyTimeoutMs must be a number of milliseconds >= 1 (or Infinity), got ${ms}`);
  return ms;
}

/** Whether a body error is the client's doing, and which; undefined for any other error. */
export function clientBodyFailure(error: unknown): ClientBodyFailure | undefined {
  return typeof error === "object" && error !== null ? (error as { "~client"?: ClientBodyFailure })["~client"] : undefined;
}

// --- Internal ---

// Trust but verify: the runtime may still deliver more than declared. A UTF-8 body has between one and
// three bytes per UTF-16 unit, so the byte count is only needed in between.
function checkedText(text: string, limit: number): string {
  if (text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text) > limit)) throw tooLarge(limit);
  return text;
}

async function readStream(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `read`, unless the body is not whole within `ms`: then a 408 (the stream cancelled when there is one;
 * Node's socket is closed after the answer, which says `Connection: close`). One timer per body, cleared
 * when it arrives: no promise is made beyond the one returned.
 */
function withDeadline<T>(request: Request, read: Promise<T>, ms: number, reader: ReadableStreamDefaultReader<Uint8Array> | undefined): Promise<T> {
  if (ms === Infinity) return read.catch((error: unknown) => Promise.reject(failureOf(error, request)));
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reader?.cancel().catch(() => {});
      reject(bodyTimeout(ms));
    }, ms);
    read.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(failureOf(error, request));
      },
    );
  });
}

// The errors Node and the fetch runtimes give a body whose connection went away.
const HANG_UP_CODES = new Set(["ECONNRESET", "ECONNABORTED", "EPIPE", "ERR_STREAM_PREMATURE_CLOSE", "UND_ERR_SOCKET"]);

/** A body read's error: the client's hang-up said as such; anything else (the server's doing) as it is. */
function failureOf(error: unknown, request: Request): unknown {
  if (McpJsonRpcError.isError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  if ((typeof code === "string" && HANG_UP_CODES.has(code)) || name === "AbortError" || request.signal?.aborted === true) return clientGone();
  return error;
}

function tooLarge(limit: number): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InvalidRequest, `Request body larger than ${limit} bytes`, undefined, 413);
}

function clientGone(): McpJsonRpcError {
  // Nobody reads this answer: the connection is gone. It is a client error, not the server's.
  return markClient(new McpJsonRpcError(ErrorCode.InvalidRequest, "The client closed the connection before its request body arrived", undefined, 400), "gone");
}

function bodyTimeout(ms: number): McpJsonRpcError {
  const error = new McpJsonRpcError(ErrorCode.InvalidRequest, `Request body did not arrive within ${ms} ms`, undefined, 408, { connection: "close" });
  return markClient(error, "body_timeout");
}

function markClient(error: McpJsonRpcError, failure: ClientBodyFailure): McpJsonRpcError {
  Object.defineProperty(error, "~client", { value: failure });
  return error;
}
