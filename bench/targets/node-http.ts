// The second ceiling: plain `node:http`, no framework. POST /mcp reads the body, parses it as JSON
// and answers the same fixed JSON-RPC result as bare h3; what h3 itself costs shows as the gap.
import { createServer } from "node:http";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";

const RESULT = JSON.stringify({ resultType: "complete", content: [{ type: "text", text: "hello" }] });

const server = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    let id: unknown = null;
    try {
      id = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: unknown }).id ?? null;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${RESULT}}`;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(targetPort(), HOST, resolve));
exitOnSignal(() => {
  server.closeAllConnections();
  server.close();
});
announceReady({ target: "node-http" });
