// Row (a)'s app, the ceiling: an h3 v2 app whose POST /mcp parses the JSON body and answers a fixed
// JSON-RPC result. Served over HTTP by targets/bare-h3.ts, in-process by bench/ab.ts.
import { H3 } from "h3";

const RESULT = { resultType: "complete", content: [{ type: "text", text: "hello" }] };

export function createBareApp(): H3 {
  return new H3().post("/mcp", async (event) => {
    const body = (await event.req.json()) as { id?: string | number };
    return { jsonrpc: "2.0", id: body.id ?? null, result: RESULT };
  });
}
