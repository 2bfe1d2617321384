// How much one task may keep (`mcpTasks({ maxTaskBytes })`): the input of the call that creates it, its
// checkpoint, each status message and question, its result. Each piece is measured, in UTF-8 bytes, on the
// JSON the runtime makes of it anyway, and refused before any store sees it: every store behaves alike.
import type { JsonRpcErrorObject } from "../../machines/task.machine.ts";
import type { RequestContext } from "../features/request-context.ts";
import { ErrorCode, invalidParams, type McpJsonRpcError, McpUsageError } from "../protocol/errors.ts";

/** What one task may keep of each piece by default: 1 MiB. */
export const DEFAULT_MAX_TASK_BYTES = 1024 * 1024;

/** The UTF-8 size of `text` when it is over `limit` bytes, else undefined (uncounted when its length alone tells). */
export function bytesOver(text: string, limit: number): number | undefined {
  // A UTF-16 unit takes at most three UTF-8 bytes.
  if (text.length * 3 <= limit) return undefined;
  const bytes = utf8Length(text);
  return bytes > limit ? bytes : undefined;
}

/**
 * Refuses a task-creating call whose arguments are over `limit` (-32602), or whose first status message is
 * (a usage error). The arguments are part of the request body: a body short enough to fit needs no
 * measuring, so the usual call pays nothing.
 */
export function checkCreation(ctx: RequestContext, statusMessage: unknown, limit: number): void {
  const status = typeof statusMessage === "string" ? bytesOver(statusMessage, limit) : undefined;
  if (status !== undefined) throw keptTooLarge("mcpTask: the status message", status, limit);
  const body = ctx.bodyLength;
  if (body !== undefined && body * 3 <= limit) return;
  const args = ctx.params.arguments;
  if (args === undefined) return;
  const bytes = bytesOver(JSON.stringify(args), limit);
  if (bytes !== undefined) throw inputTooLarge("The call's arguments", bytes, limit);
}

/** -32602 for an input (the call's arguments, a named run's input) over the limit. */
export function inputTooLarge(what: string, bytes: number, limit: number): McpJsonRpcError {
  return invalidParams(`${what}: ${overLimit(bytes, limit)}`, { bytes, maxTaskBytes: limit });
}

/** What a run's `update`, `requestInput` or `saveCheckpoint` throws (or rejects with) for a piece over the limit. */
export function keptTooLarge(what: string, bytes: number, limit: number): McpUsageError {
  return new McpUsageError("TASK_TOO_LARGE", `${what}: ${overLimit(bytes, limit)}`);
}

/** The protocol error a task whose result is over the limit fails with. */
export function resultTooLarge(bytes: number, limit: number): JsonRpcErrorObject {
  return { code: ErrorCode.InternalError, message: `The task's result: ${overLimit(bytes, limit)}`, data: { bytes, maxTaskBytes: limit } };
}

// --- Internal ---

function overLimit(bytes: number, limit: number): string {
  return `${bytes} bytes, over the ${limit} bytes one task may keep (raise mcpTasks({ maxTaskBytes }) to allow more)`;
}

/** UTF-8 bytes of `text` as TextEncoder writes it (a lone surrogate as U+FFFD), counted without encoding it. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}
