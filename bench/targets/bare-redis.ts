// The Redis ceiling: bare h3 (as bare-h3.ts) whose POST /mcp answers after exactly one Redis round
// trip, an HGET of a field set at startup, on the same client library and redis-server as the
// h3-mcp Redis target. A Redis-backed task operation costs at least this.
import { H3, serve } from "h3";
import { createClient } from "redis";
import { announceReady, exitOnSignal, HOST, targetPort } from "../lib/target.ts";

const url = process.env.REDIS_URL;
if (!url) throw new Error("Set REDIS_URL to the redis-server to use");
const KEY = "bench:bare-redis";
// As h3-mcp's store configures its own client: no per-command timeout of node-redis's own (5 s by default,
// an AbortSignal.timeout per command), so the ceiling does not pay a cost the store does not.
const client = createClient({ url, commandOptions: { timeout: 0 } });
await client.connect();
await client.hSet(KEY, "status", "completed");

const RESULT = { resultType: "complete", content: [{ type: "text", text: "hello" }] };

const app = new H3().post("/mcp", async (event) => {
  const body = (await event.req.json()) as { id?: string | number };
  const status = await client.hGet(KEY, "status");
  if (status !== "completed") throw new Error(`bare-redis: unexpected ${status}`);
  return { jsonrpc: "2.0", id: body.id ?? null, result: RESULT };
});

const server = serve(app, { port: targetPort(), hostname: HOST, silent: true });
await server.ready();
exitOnSignal(async () => {
  await server.close(true);
  await client.quit();
});
announceReady({ target: "bare-redis" });
