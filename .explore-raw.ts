import { serve } from "h3";
import { app } from "./examples/demo/app.ts";
const server = serve(app, { port: 0, hostname: "127.0.0.1", silent: true });
await server.ready();
const url = new URL("/mcp", server.url!);
const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } } };
async function rpc(method: string, params: any, name?: string) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }) });
  return res;
}
const h = await (await rpc("tools/call", { name: "render", arguments: { frames: 2, msPerFrame: 300 } }, "render")).json();
const id = h.result.taskId;
const l = await rpc("subscriptions/listen", { notifications: { taskIds: [id] } });
const reader = l.body!.getReader();
const dec = new TextDecoder();
let buf = "";
const t = setTimeout(() => reader.cancel(), 1200);
for (;;) { const { done, value } = await reader.read(); if (done) break; buf += dec.decode(value); }
clearTimeout(t);
console.log(buf);
const h2 = await (await rpc("tools/call", { name: "render", arguments: { frames: 50, msPerFrame: 1000 } }, "render")).json();
console.log(JSON.stringify(await (await rpc("tasks/cancel", { taskId: h2.result.taskId }, h2.result.taskId)).json()));
console.log(JSON.stringify(await (await rpc("tasks/get", { taskId: h2.result.taskId }, h2.result.taskId)).json()));
await server.close(true);
