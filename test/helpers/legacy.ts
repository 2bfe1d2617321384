import { messages, type Fetcher } from "./wire.ts";

/** A legacy POST of `body` (made a JSON-RPC 2.0 message) to http://localhost/mcp, with `headers` beside the usual ones. */
export function legacyRequest(body: Record<string, unknown>, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", ...body }),
  });
}

/** A legacy client's initialize request (`params` adds to or replaces its params). */
export function initializeRequest(params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Request {
  return legacyRequest({ id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "legacy", version: "1" }, ...params } }, headers);
}

/** A legacy (initialize-based) client on the same route. */
export async function legacyClient(app: Fetcher, protocolVersion = "2025-11-25", capabilities: Record<string, unknown> = {}) {
  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) => app.fetch(legacyRequest(body, headers));
  const init = await app.fetch(initializeRequest({ protocolVersion, capabilities }));
  const sessionId = init.headers.get("mcp-session-id")!;
  const initResult = (await init.json()).result;
  const headers = { "mcp-session-id": sessionId, ...(protocolVersion >= "2025-06-18" ? { "mcp-protocol-version": initResult.protocolVersion } : {}) };
  let id = 1;
  return {
    sessionId,
    initResult,
    initStatus: init.status,
    post: (body: Record<string, unknown>) => post(body, headers),
    async request(method: string, params: Record<string, unknown> = {}) {
      const res = await post({ id: id++, method, params }, headers);
      const msgs = await messages(res);
      return { status: res.status, body: msgs.at(-1), messages: msgs, res };
    },
    get: () => app.fetch(new Request("http://localhost/mcp", { method: "GET", headers: { accept: "text/event-stream", ...headers } })),
    del: () => app.fetch(new Request("http://localhost/mcp", { method: "DELETE", headers })),
  };
}
