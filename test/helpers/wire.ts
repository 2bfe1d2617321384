import { H3 } from "h3";
import type { McpHandler } from "../../src/transport/handler.ts";
import { NAME_PARAM } from "./name-params.ts";

export const V = "2026-07-28";
export const TASKS = "io.modelcontextprotocol/tasks";

export function appFor(handler: McpHandler): H3 {
  return new H3().all("/mcp", handler);
}

/**
 * One logical server made of several apps: each request goes to the next app in turn, as behind a
 * round-robin balancer. With one app it is that app.
 */
export function roundRobin(apps: readonly H3[]): H3 {
  if (apps.length === 1) return apps[0]!;
  let next = 0;
  const fetch = (request: Request) => {
    const app = apps[next]!;
    next = (next + 1) % apps.length;
    return app.fetch(request);
  };
  return { fetch } as unknown as H3;
}

export interface CallOptions {
  id?: string | number | null;
  caps?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  headers?: Record<string, string | null>;
  clientInfo?: Record<string, unknown>;
}

/** Builds a modern request with the headers and `_meta` a conforming client sends. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, opts: CallOptions = {}): Request {
  const meta: Record<string, unknown> = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": opts.caps ?? {},
    ...(opts.clientInfo ? { "io.modelcontextprotocol/clientInfo": opts.clientInfo } : {}),
    ...opts.meta,
  };
  const body: Record<string, unknown> = { jsonrpc: "2.0", method, params: { ...params, _meta: meta } };
  if (opts.id !== null) body.id = opts.id ?? 1;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": V,
    "mcp-method": method,
  };
  const field = NAME_PARAM[method];
  const name = field === undefined ? undefined : params[field];
  if (typeof name === "string") headers["mcp-name"] = name;
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === null) delete headers[k.toLowerCase()];
    else headers[k.toLowerCase()] = v;
  }
  return new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) });
}

export function rawRequest(body: string, headers: Record<string, string> = {}, method = "POST"): Request {
  return new Request("http://localhost/mcp", {
    method,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: method === "GET" || method === "DELETE" ? undefined : body,
  });
}

/** Parses a JSON or SSE response into its JSON-RPC messages. */
export async function messages(res: Response): Promise<any[]> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text
      .split("\n\n")
      .map((block) => block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n"))
      .filter(Boolean)
      .map((d) => JSON.parse(d));
  }
  return text ? [JSON.parse(text)] : [];
}

export async function call(app: H3, method: string, params: Record<string, unknown> = {}, opts: CallOptions = {}) {
  const res = await app.fetch(modernRequest(method, params, opts));
  const msgs = await messages(res);
  return { res, status: res.status, body: msgs[msgs.length - 1], messages: msgs };
}
