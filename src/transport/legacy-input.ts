// Legacy clients cannot answer `input_required`. For them the server asks each input request as a
// server-to-client JSON-RPC request on the POST's SSE stream, collects the responses the client
// POSTs back, and runs the method again with them as `inputResponses` — the same handler code
// serves both eras.
import { ErrorCode, McpJsonRpcError } from "../protocol/errors.ts";
import type { TransportContext } from "./request.ts";
import type { LegacySession } from "./sessions.ts";
import type { JsonObject } from "../protocol/types.ts";
import { describeThrown } from "../utils/describe.ts";

const MAX_ROUNDS = 10;
const ANSWER_TIMEOUT_MS = 10 * 60_000;

export async function withInputBridge(
  ctx: TransportContext,
  session: LegacySession,
  run: () => Promise<JsonObject>,
): Promise<JsonObject> {
  const original = ctx.params;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const result = await run();
    if (result.resultType !== "input_required") return result;
    const requests = (result.inputRequests ?? {}) as Record<string, { method: string; params: JsonObject }>;
    const answers = await askClient(ctx, session, requests);
    const retry: JsonObject = { ...original, inputResponses: answers };
    if (result.requestState !== undefined) retry.requestState = result.requestState;
    (ctx as { params: JsonObject }).params = retry;
  }
  throw new McpJsonRpcError(ErrorCode.InternalError, "Too many rounds of client input");
}

/** Routes a response the client POSTed to the request waiting for it. */
export function deliverResponse(session: LegacySession, message: JsonObject): boolean {
  const id = message.id;
  const waiter = typeof id === "string" || typeof id === "number" ? session.pending.get(String(id)) : undefined;
  if (!waiter) return false;
  waiter(message as { result?: unknown; error?: { code: number; message: string } });
  return true;
}

// --- Internal ---

async function askClient(
  ctx: TransportContext,
  session: LegacySession,
  requests: Record<string, { method: string; params: JsonObject }>,
): Promise<JsonObject> {
  const entries = Object.entries(requests);
  const answers = await Promise.all(
    entries.map(([, request]) => {
      const id = `h3-mcp-${++session.requestsSent}`;
      return new Promise<unknown>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          session.pending.delete(id);
          ctx.signal.removeEventListener("abort", onAbort);
        };
        const onAbort = () => (done(), reject(new McpJsonRpcError(ErrorCode.InternalError, "The client went away")));
        const timer = setTimeout(() => (done(), reject(new McpJsonRpcError(ErrorCode.InternalError, "The client did not answer"))), ANSWER_TIMEOUT_MS);
        timer.unref?.();
        ctx.signal.addEventListener("abort", onAbort, { once: true });
        session.pending.set(id, (response) => {
          done();
          if (response.error) {
            reject(new McpJsonRpcError(ErrorCode.InternalError, `The client refused ${request.method}: ${describeThrown(response.error.message)}`));
          } else resolve(response.result);
        });
        if (!ctx.send(JSON.stringify({ jsonrpc: "2.0", id, method: request.method, params: request.params }))) {
          done();
          reject(new McpJsonRpcError(ErrorCode.InternalError, "Cannot ask the client for input on this request"));
        }
      });
    }),
  );
  return Object.fromEntries(entries.map(([key], i) => [key, answers[i]]));
}
