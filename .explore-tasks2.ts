import { serve } from "h3";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";
import { app } from "./examples/demo/app.ts";

const server = serve(app, { port: 0, hostname: "127.0.0.1", silent: true });
await server.ready();
const url = new URL("/mcp", server.url!);
const t0 = Date.now();
const log = (...a: any[]) => console.log(`[${Date.now() - t0}]`, ...a);
const logFetch: typeof fetch = async (input, init) => {
  const h = new Headers(init?.headers);
  log(">>", init?.method, [...h.entries()].filter(([k]) => k.startsWith("mcp")).map(([k,v])=>`${k}: ${v}`).join("; "), init?.body);
  const res = await fetch(input, init);
  log("<<", res.status, res.headers.get("content-type"));
  if (!(res.headers.get("content-type") ?? "").includes("event-stream")) log("  ", await res.clone().text());
  return res;
};
let nextId = 1;
const rawDispatch: RawClientDispatch = async (request: any, options) => {
  const id = `raw-${nextId++}`;
  const body = { jsonrpc: "2.0", id, ...request };
  const headers: Record<string, string> = {
    "content-type": "application/json", accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28", "mcp-method": request.method,
    ...(request.method === "tools/call" ? { "mcp-name": request.params.name } : {}),
    ...options?.context?.headers,
  };
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: options?.signal });
  const msg = await res.json();
  log("raw", request.method, JSON.stringify(msg.result ?? msg.error).slice(0, 200));
  return "error" in msg ? { kind: "error", error: msg.error } : { kind: "result", result: msg.result };
};
const clientInfo = { name: "t", version: "1" };
const clientCapabilities = { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } };
const client = new Client(clientInfo, { capabilities: clientCapabilities as any, versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(new StreamableHTTPClientTransport(url, { fetch: logFetch }));
// Plain SDK callTool on render with extension declared

const session = createTaskSessionFromClient(client, {
  endpointId: "demo", rawDispatch,
  v2RequestFraming: { protocolVersion: "2026-07-28", clientInfo, clientCapabilities },
  onError: (e) => log("ONERROR", e),
});
const ex = await session.callTool("render", { frames: 3, msPerFrame: 50 });
if (ex.kind !== "task") throw new Error("no task");
try {
  const sub = await client.listen({ taskIds: [ex.handle.taskId] } as any);
  log("honored", JSON.stringify(sub.honoredFilter));
  const { outcome } = await ex.settle({ onEvent: (e) => log("EVENT", e.type, e.type === "task" ? e.task.status : JSON.stringify(e.outcome)) });
  log("outcome", outcome.status, outcome.status === "failed" ? [outcome.error.message, (outcome.error.cause as any)?.message, JSON.stringify((outcome.error.cause as any)?.cause?.issues ?? (outcome.error.cause as any)?.issues)] : "");
  await sub.close();
} catch (e) { log("ERR", e); }
await session.close();
await client.close();
await server.close(true);
