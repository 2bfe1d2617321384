// Reading a request's body within bounds: its size, and the time the client takes to send it. A body that
// fails because of the client (it hung up, or it is too slow) is the client's doing: the error says so, and
// never reaches `onError`.
import { McpJsonRpcError, ErrorCode } from "../protocol/errors.ts";
import type { BodyDeadlines } from "./body-deadline.ts";

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** What a client did to a body that never arrived whole: hung up, or sent it too slowly. */
export type ClientBodyFailure = "gone" | "body_timeout";

/**
 * Reads the request body as text, refusing more than `limit` bytes with a 413 before buffering
 * them, and a body not whole by its deadline with a 408: a declared Content-Length is checked first,
 * and a streamed body is counted as it arrives.
 */
export function readBodyText(request: Request, limit: number, deadlines: BodyDeadlines | undefined): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  // `text()` first when the length is declared: on Node, srvx then reads the socket directly, while
  // touching `request.body` would build a web stream over it for every request.
  if (declared !== null) return bounded(request, request.text(), limit, deadlines, undefined);
  const body = request.body;
  if (!body) return Promise.resolve("");
  const reader = body.getReader();
  return bounded(request, readStream(reader, limit), limit, deadlines, reader);
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
 * The body `read` gives, checked for size, unless it is not whole by its deadline: then a 408 (the stream
 * cancelled when there is one; Node closes the socket after the answer, which says `Connection: close`).
 * One promise beyond the read's.
 */
function bounded(
  request: Request,
  read: Promise<string>,
  limit: number,
  deadlines: BodyDeadlines | undefined,
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const deadline = deadlines?.watch(() => {
      reader?.cancel().catch(() => {});
      reject(bodyTimeout(deadlines.ms));
    });
    read.then(
      (text) => {
        deadline?.done();
        try {
          resolve(checkedText(text, limit));
        } catch (error) {
          reject(error);
        }
      },
      (error: unknown) => {
        deadline?.done();
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
