import { McpJsonRpcError, ErrorCode } from "../protocol/errors.ts";

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

/**
 * Reads the request body as text, refusing more than `limit` bytes with a 413 before buffering
 * them: a declared Content-Length is checked first, and a streamed body is counted as it arrives.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  // `text()` first when the length is declared: on Node, srvx then reads the socket directly, while
  // touching `request.body` would build a web stream over it for every request.
  if (declared !== null) {
    // Trust but verify: the runtime may still deliver more than declared. A UTF-8 body has between
    // one and three bytes per UTF-16 unit, so the byte count is only needed in between.
    const text = await request.text();
    if (text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text) > limit)) throw tooLarge(limit);
    return text;
  }
  const body = request.body;
  if (!body) return "";
  const reader = body.getReader();
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

function tooLarge(limit: number): McpJsonRpcError {
  return new McpJsonRpcError(ErrorCode.InvalidRequest, `Request body larger than ${limit} bytes`, undefined, 413);
}
