// The request path @modelcontextprotocol/ext-tasks needs from its host for a 2026-07-28 server: the SDK
// Client turns a tools/call answered with `resultType: "task"` into an error, so ext-tasks sends its own
// requests through this function. It owns the JSON-RPC ids, sends the headers every 2026-07-28 request
// carries, and reads the answer from a JSON or an SSE body.
import { DispatchError, type JsonRpcResponse, type RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";

export const PROTOCOL_VERSION = "2026-07-28";

/** A RawClientDispatch that POSTs each request to `url` with `fetch` (pass an OAuth-wrapped one to send a token). */
export function fetchDispatch(url: URL, fetchFn: (url: URL, init: RequestInit) => Promise<Response> = fetch): RawClientDispatch {
  let next = 0;
  return async (request, options) => {
    const { method, params } = request as { method: string; params?: { name?: unknown } };
    const id = `tasks-${++next}`;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL_VERSION,
      "mcp-method": method,
      // tools/call names its tool in Mcp-Name; ext-tasks gives tasks/* their `Mcp-Name: <taskId>` in the context.
      ...(method === "tools/call" && typeof params?.name === "string" ? { "mcp-name": params.name } : {}),
      ...options?.context?.headers,
    };
    let response: Response;
    try {
      response = await fetchFn(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ jsonrpc: "2.0", id, ...(request as object) }),
        signal: options?.signal,
      });
    } catch (error) {
      if (options?.signal?.aborted) throw error;
      throw new DispatchError(`${method}: the server could not be reached`, true, { cause: error });
    }
    const answer = (await messagesOf(response)).find((m) => m.id === id && ("result" in m || "error" in m));
    if (!answer) throw new DispatchError(`${method}: no answer in the HTTP ${response.status} response`, response.status >= 500);
    return (answer.error ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result }) as JsonRpcResponse;
  };
}

interface JsonRpcMessage {
  id?: string | number;
  result?: unknown;
  error?: unknown;
}

/** The JSON-RPC messages of a response: one JSON body, or the `data:` lines of each SSE event. */
async function messagesOf(response: Response): Promise<JsonRpcMessage[]> {
  const text = await response.text();
  if (!text) return [];
  if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) return [JSON.parse(text)];
  return text
    .split(/\r?\n\r?\n/)
    .map((event) => event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n"))
    .filter(Boolean)
    .map((data) => JSON.parse(data));
}
