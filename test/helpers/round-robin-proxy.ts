// A round-robin HTTP balancer for tests and the two-instance conformance run: each request goes to the next
// upstream in turn (per request, not per connection, as a cloud balancer with keep-alive does), and bodies
// stream through both ways chunk by chunk, so SSE frames reach the client as the upstream writes them.
// Nothing here imports vitest: scripts/conformance.mjs loads it too.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RoundRobinProxy {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly port: number;
  /** Requests sent to each upstream so far, in the order of `upstreams`. */
  readonly counts: readonly number[];
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not forwarded.
const HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"]);

function forwardable(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

/** Starts a balancer on a free 127.0.0.1 port in front of `upstreams` (origins such as http://127.0.0.1:3001). */
export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new TypeError("startRoundRobinProxy: at least one upstream");
  const targets = upstreams.map((u) => new URL(u));
  const counts = targets.map(() => 0);
  const agent = new http.Agent({ keepAlive: true });
  let next = 0;

  const server = http.createServer((req, res) => {
    const i = next;
    next = (next + 1) % targets.length;
    counts[i]!++;
    const target = targets[i]!;
    const upstream = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...forwardable(req.headers), host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.headers));
        res.flushHeaders();
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      },
    );
    upstream.on("error", (error) => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, { "content-type": "text/plain" }).end(`proxy: upstream ${target.host} failed: ${error.message}`);
    });
    // A client that goes away (a closed SSE stream) closes the upstream request too, as a real balancer does.
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    counts,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
