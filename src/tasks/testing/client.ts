// A small MCP client over `app.fetch`, as the kit's tests speak to a server: 2026-07-28 requests with the
// headers and `_meta` a conforming client sends, their JSON or SSE answers, and a reader for listen streams.
import { H3 } from "h3";
import type { McpHandler } from "../../transport/handler.ts";

export const PROTOCOL_VERSION = "2026-07-28";
export const TASKS = "io.modelcontextprotocol/tasks";

/** Anything that answers a web Request: an h3 app, or several behind a round-robin. */
export interface Fetcher {
  fetch(request: Request): Response | Promise<Response>;
}

/** An h3 app serving `handler` at /mcp. */
export function appFor(handler: McpHandler): H3 {
  return new H3().all("/mcp", handler);
}

/**
 * One logical server made of several apps: each request goes to the next app in turn, as behind a
 * round-robin balancer. With one app it is that app.
 */
export function roundRobin(apps: readonly Fetcher[]): Fetcher {
  if (apps.length === 1) return apps[0]!;
  let next = 0;
  return {
    fetch(request) {
      const app = apps[next]!;
      next = (next + 1) % apps.length;
      return app.fetch(request);
    },
  };
}

/** The params field a client's `Mcp-Name` header mirrors, by method (from the specification). */
export const NAME_PARAM: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

export interface CallOptions {
  id?: string | number | null;
  caps?: Record<string, unknown>;
  meta?: Record<string, unknown>;
  /** Headers to add, replace, or (with null) leave out. */
  headers?: Record<string, string | null>;
  clientInfo?: Record<string, unknown>;
  /** Where the request goes; default `http://localhost/mcp`. */
  url?: string;
}

/** A 2026-07-28 request with the headers and `_meta` a conforming client sends. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, opts: CallOptions = {}): Request {
  const meta: Record<string, unknown> = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientCapabilities": opts.caps ?? {},
    ...(opts.clientInfo ? { "io.modelcontextprotocol/clientInfo": opts.clientInfo } : {}),
    ...opts.meta,
  };
  const body: Record<string, unknown> = { jsonrpc: "2.0", method, params: { ...params, _meta: meta } };
  if (opts.id !== null) body.id = opts.id ?? 1;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL_VERSION,
    "mcp-method": method,
  };
  const field = NAME_PARAM[method];
  const name = field === undefined ? undefined : params[field];
  if (typeof name === "string") headers["mcp-name"] = name;
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === null) delete headers[k.toLowerCase()];
    else headers[k.toLowerCase()] = v;
  }
  return new Request(opts.url ?? "http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) });
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

/** Sends one request; the answer's status, last message (`body`) and every message. */
export async function call(app: Fetcher, method: string, params: Record<string, unknown> = {}, opts: CallOptions = {}) {
  const res = await app.fetch(modernRequest(method, params, opts));
  const msgs = await messages(res);
  return { res, status: res.status, body: msgs[msgs.length - 1], messages: msgs };
}

/** Reads an SSE response as it arrives: `next()` resolves with each JSON message. */
export function sseReader(res: Response) {
  const queue: any[] = [];
  const waiting: ((m: any) => void)[] = [];
  let comments = 0;
  let buffer = "";
  const dispatch = (block: string) => {
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comments++;
      else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    }
    if (!data.length) return;
    const message = JSON.parse(data.join("\n"));
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  };
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          dispatch(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // The reader was cancelled (the stream closed by the test): the stream has ended.
    }
    ended = true;
  })();
  return {
    /** The next message; rejects after `timeoutMs`. */
    next(timeoutMs = 1000): Promise<any> {
      if (queue.length) return Promise.resolve(queue.shift());
      return new Promise((resolve, reject) => {
        const waiter = (m: any) => {
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          reject(new Error(`no SSE message within ${timeoutMs} ms`));
        }, timeoutMs);
        waiting.push(waiter);
      });
    },
    /** Resolves true if no message arrives within `ms`. */
    async quiet(ms = 50): Promise<boolean> {
      if (queue.length) return false;
      await new Promise((r) => setTimeout(r, ms));
      return queue.length === 0;
    },
    get ended() {
      return ended;
    },
    /** Comment frames (keep-alives) seen so far. */
    get comments() {
      return comments;
    },
    async close() {
      await reader.cancel();
      await pump;
    },
  };
}

export type SseReader = ReturnType<typeof sseReader>;
