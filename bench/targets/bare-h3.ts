// (a) The ceiling: an h3 v2 app whose POST /mcp parses the JSON body and answers a fixed JSON-RPC
// result. Whatever an h3 library adds costs on top of this.
import { H3, serve } from "h3";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";

const RESULT = { resultType: "complete", content: [{ type: "text", text: "hello" }] };

const app = new H3().post("/mcp", async (event) => {
  const body = (await event.req.json()) as { id?: string | number };
  return { jsonrpc: "2.0", id: body.id ?? null, result: RESULT };
});

const server = serve(app, { port: targetPort(), hostname: HOST, silent: true });
await server.ready();
exitOnSignal(() => server.close(true));
announceReady({ target: "bare-h3" });
