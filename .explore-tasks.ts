import { serve } from "h3";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, resultFromTaskOutcome, type RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";
import { app } from "./examples/demo/app.ts";

const server = serve(app, { port: 0, hostname: "127.0.0.1", silent: true });
await server.ready();
const url = new URL("/mcp", server.url!);
const t0 = Date.now();
const log = (...a: any[]) => console.log(`[${Date.now() - t0}]`, ...a);
let nextId = 1;
const rawDispatch: RawClientDispatch = async (request: any, options) => {
  const id = `raw-${nextId++}`;
  const body = { jsonrpc: "2.0", id, ...request };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": request.method,
    ...(request.method === "tools/call" ? { "mcp-name": request.params.name } : {}),
    ...options?.context?.headers,
  };
  log(">>", JSON.stringify(headers), JSON.stringify(body));
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: options?.signal });
  const text = await res.text();
  log("<<", res.status, res.headers.get("content-type"), text);
  const msg = JSON.parse(text);
  return "error" in msg ? { kind: "error", error: msg.error } : { kind: "result", result: msg.result };
};
const clientInfo = { name: "t", version: "1" };
const clientCapabilities = { elicitation: {} };
const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(new StreamableHTTPClientTransport(url));
const session = createTaskSessionFromClient(client, {
  endpointId: "demo",
  rawDispatch,
  v2RequestFraming: { protocolVersion: "2026-07-28", clientInfo, clientCapabilities },
  onInputRequest: async (req: any, ctx: any) => { log("INPUT", JSON.stringify(req), JSON.stringify(ctx)); return { action: "accept", content: { confirm: true } } as any; },
  onError: (e) => log("ONERROR", e),
});
log("caps", session.capabilities);
try {
  const ex = await session.callTool("render", { frames: 2, msPerFrame: 10 });
  log("kind", ex.kind, ex.handle);
  const { outcome } = await ex.settle({ onEvent: (e) => log("EVENT", JSON.stringify(e)) });
  log("outcome", JSON.stringify(outcome));
  const ex2 = await session.callTool("delete_everything", {});
  const s2 = await ex2.settle({ onEvent: (e) => log("EVENT", JSON.stringify(e)) });
  log("outcome2", JSON.stringify(s2.outcome));
  const ex3 = await session.callTool("render", { frames: 50, msPerFrame: 1000 });
  await ex3.cancel();
  const s3 = await ex3.settle();
  log("outcome3", JSON.stringify(s3));
} catch (e) { log("ERR", e); }
await session.close();
await client.close();
await server.close(true);
