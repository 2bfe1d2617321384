// Streamable HTTP header rules of 2026-07-28: standard headers mirror the body, and tool
// arguments tagged `x-mcp-header` are mirrored in `Mcp-Param-*` headers.
import { headerMismatch } from "./errors.ts";
import type { JsonObject } from "./types.ts";

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A header value as the client meant it: `=?base64?…?=` values are decoded (UTF-8); anything
 * else is literal. Bad base64 is a `-32020`.
 */
export function decodeHeaderValue(raw: string, name: string): string {
  const value = raw.trim();
  if (!value.startsWith(SENTINEL_PREFIX) || !value.endsWith(SENTINEL_SUFFIX) || value.length < 11) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, -SENTINEL_SUFFIX.length);
  if (b64.length % 4 !== 0 || !BASE64.test(b64)) throw headerMismatch(`Invalid base64 in ${name} header`);
  const bytes = Buffer.from(b64, "base64");
  const text = new TextDecoder("utf-8", { fatal: true });
  try {
    return text.decode(bytes);
  } catch {
    throw headerMismatch(`Invalid UTF-8 in ${name} header`);
  }
}

/** Checks a required header against the body value. */
export function expectHeader(headers: Headers, name: string, expected: string): void {
  const raw = headers.get(name);
  if (raw === null) throw headerMismatch(`Missing ${name} header`);
  if (decodeHeaderValue(raw, name) !== expected) throw headerMismatch(`${name} header does not match the request body`);
}

/** Checks the `Mcp-Param-*` headers a tool's schema binds to its arguments. */
export function checkParamHeaders(headers: Headers, bindings: { header: string; path: string[] }[], args: unknown): void {
  for (const { header, path } of bindings) {
    const value = readPath(args, path);
    if (value === undefined || value === null) continue;
    const name = `Mcp-Param-${header}`;
    const raw = headers.get(name);
    if (raw === null) throw headerMismatch(`Missing ${name} header`);
    const decoded = decodeHeaderValue(raw, name);
    if (!sameValue(decoded, value)) throw headerMismatch(`${name} header does not match the argument`);
  }
}

// --- Internal ---

function readPath(value: unknown, path: string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as JsonObject)[key];
  }
  return cur;
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === "string") return header === value;
  if (typeof value === "number") return header.trim() !== "" && Number(header) === value;
  if (typeof value === "boolean") return header === String(value);
  // x-mcp-header binds primitives only; an object or array can never match a header.
  return false;
}
