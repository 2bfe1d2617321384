// JSON-RPC envelopes, SSE frames, HTTP responses and result `_meta`: the protocol's framing. The task
// envelopes and the format a finished task is kept in belong to the tasks layer (src/tasks/envelopes.ts,
// src/tasks/kept-json.ts).
import { FastResponse } from "srvx";
import type { JsonRpcErrorObject } from "../../machines/task.machine.ts";
import { ErrorCode, McpJsonRpcError } from "./errors.ts";
import type { JsonObject, RequestId } from "./types.ts";
import { META } from "./types.ts";

export type Era = "modern" | "legacy";

// --- JSON-RPC ---

/** A result message; with `meta`, the result carries the server's `_meta` too (2026-07-28 results). */
export function toResultMessage(id: RequestId, result: unknown, meta?: ResultMeta): string {
  const json = meta ? resultJsonWithMeta(result, meta) : result instanceof RawJson ? result.json : JSON.stringify(result);
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${json}}`;
}

/** A result already serialised (a finished task's envelope), with no top-level `_meta`: sent as is. */
export class RawJson {
  constructor(readonly json: string) {}
}

/** A result whose JSON was prepared at mount: the request path only splices the id in. */
export function toResultMessageRaw(id: RequestId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

export function toErrorMessage(id: RequestId | null | undefined, error: JsonRpcErrorObject): string {
  const body: JsonObject = { jsonrpc: "2.0" };
  if (id !== undefined) body.id = id;
  body.error = toErrorObject(error);
  try {
    return JSON.stringify(body);
  } catch {
    // `data` that is not JSON data (a BigInt, a cycle) cannot be sent; the code and message still are.
    body.error = { code: error.code, message: error.message };
    return JSON.stringify(body);
  }
}

export function toErrorObject(error: JsonRpcErrorObject): JsonRpcErrorObject {
  return error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data };
}

export function toNotificationMessage(method: string, params: JsonObject): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}

/** Turns anything thrown into the JSON-RPC error a client may see; unexpected throws say nothing about internals. */
export function toJsonRpcError(error: unknown): McpJsonRpcError {
  if (McpJsonRpcError.isError(error)) return error;
  return new McpJsonRpcError(ErrorCode.InternalError, "Internal error");
}

/**
 * HTTP status for a JSON-RPC error. The 2026-07-28 transport fixes 400 for header, version,
 * capability and envelope problems and 404 for an unknown method; legacy sessions answer 200
 * for errors that reached a method, as those clients expect.
 */
export function httpStatusFor(error: McpJsonRpcError, era: Era): number {
  if (error.status !== undefined) return error.status;
  switch (error.code) {
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
      return 400;
    case ErrorCode.MethodNotFound:
      return era === "modern" ? 404 : 200;
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    case ErrorCode.InvalidParams:
      return era === "modern" ? 400 : 200;
    default:
      return 200;
  }
}

// --- HTTP ---

const JSON_HEADERS = { "content-type": "application/json" } as const;

/** What the transport answers: a fast response for JSON, a web Response for streams. */
export type WireResponse = Response;

/**
 * A JSON answer, as srvx's FastResponse (what h3 itself answers with): Node writes the string in
 * one go with a Content-Length, where a global Response would be pumped through a web stream.
 */
export function jsonResponse(body: string, status = 200, headers?: Record<string, string>): WireResponse {
  return new FastResponse(body, { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS }) as Response;
}

/** An answer without a body (an accepted notification or response, a closed session). */
export function emptyResponse(status: number, headers?: Record<string, string>): WireResponse {
  return new FastResponse(null, headers ? { status, headers } : { status }) as Response;
}

export function errorResponse(
  id: RequestId | null | undefined,
  error: McpJsonRpcError,
  era: Era,
  headers?: Record<string, string>,
): WireResponse {
  const all = error.headers ? { ...error.headers, ...headers } : headers;
  return jsonResponse(toErrorMessage(id, error), httpStatusFor(error, era), all);
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

const encoder = new TextEncoder();

export function sseFrame(message: string): Uint8Array {
  return encoder.encode(`event: message\ndata: ${message}\n\n`);
}

export const SSE_KEEPALIVE = encoder.encode(": keep-alive\n\n");

// --- Results ---

/**
 * `_meta["io.modelcontextprotocol/serverInfo"]`, which a 2026-07-28 server SHOULD put on every result:
 * prepared at mount, as an object for results and as JSON members for kept answers (`RawJson`).
 */
export interface ResultMeta {
  readonly meta: JsonObject;
  /** `"io.modelcontextprotocol/serverInfo":{…}`: the inside of `_meta`, as JSON. */
  readonly members: string;
}

export function prepareResultMeta(serverInfo: JsonObject): ResultMeta {
  const meta = { [META.serverInfo]: serverInfo };
  return { meta, members: JSON.stringify(meta).slice(1, -1) };
}

/** How a kept tasks/get JSON of a run found by name ends, before the attempt number and two closing braces. */
const ATTEMPT_META = `"_meta":{${JSON.stringify(META.attempt)}:`;

/** A result's JSON with the server's `_meta` in it; a result's own `_meta` keys are kept beside it. */
function resultJsonWithMeta(result: unknown, meta: ResultMeta): string {
  // A kept answer is JSON text already: the members go in before its closing brace, not through a parse.
  if (result instanceof RawJson) {
    const json = result.json;
    if (json === "{}") return `{"_meta":{${meta.members}}}`;
    // A finished task of a run found by name ends with its attempt's `_meta`: the members join it.
    const own = json.lastIndexOf(ATTEMPT_META);
    if (own !== -1 && /^\d+\}\}$/.test(json.slice(own + ATTEMPT_META.length))) return `${json.slice(0, -2)},${meta.members}}}`;
    return `${json.slice(0, -1)},"_meta":{${meta.members}}}`;
  }
  if (typeof result !== "object" || result === null || Array.isArray(result)) return JSON.stringify(result);
  const own = (result as JsonObject)._meta as JsonObject | undefined;
  return JSON.stringify({ ...result, _meta: own === undefined ? meta.meta : { ...meta.meta, ...own } });
}
