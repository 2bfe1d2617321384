import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRoundRobinProxy, type RoundRobinProxy } from "../helpers/round-robin-proxy.ts";

// Two upstreams that say who they are; /sse writes one frame and keeps the response open.
function upstream(name: string) {
  let closed: (() => void) | undefined;
  const server = http.createServer((req, res) => {
    if (req.url === "/sse") {
      res.writeHead(200, { "content-type": "text/event-stream", "x-upstream": name });
      res.write(`data: first from ${name}\n\n`);
      req.on("close", () => closed?.());
      return;
    }
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => res.writeHead(201, { "content-type": "application/json", "x-upstream": name }).end(JSON.stringify({ name, method: req.method, body, host: req.headers.host })));
  });
  return {
    server,
    closedOnce: () => new Promise<void>((r) => (closed = r)),
    listen: () => new Promise<string>((r) => server.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
  };
}

const a = upstream("a");
const b = upstream("b");
let proxy: RoundRobinProxy;
beforeAll(async () => {
  proxy = await startRoundRobinProxy([await a.listen(), await b.listen()]);
});
afterAll(async () => {
  await proxy.close();
  a.server.closeAllConnections();
  b.server.closeAllConnections();
  await Promise.all([a.server, b.server].map((s) => new Promise((r) => s.close(r))));
});

describe("the round-robin test proxy", () => {
  it("sends each request to the next upstream, with its method, body and status", async () => {
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy.origin}/x`, { method: "POST", body: `n${i}` });
      expect(res.status).toBe(201);
      const json = await res.json();
      expect(json).toMatchObject({ method: "POST", body: `n${i}` });
      expect(json.host).not.toBe(new URL(proxy.origin).host);
      names.push(json.name);
    }
    expect(names).toEqual(["a", "b", "a", "b"]);
  });

  it("streams SSE frames as they are written, and closing the client closes the upstream request", async () => {
    const res = await fetch(`${proxy.origin}/sse`);
    const who = res.headers.get("x-upstream")!;
    const side = who === "a" ? a : b;
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    // The upstream has not finished its response: the frame came through unbuffered.
    expect(first).toBe(`data: first from ${who}\n\n`);
    const closed = side.closedOnce();
    await reader.cancel();
    await closed;
  });

  it("answers 502 when an upstream is unreachable", async () => {
    const dead = http.createServer();
    const origin = await new Promise<string>((r) => dead.listen(0, "127.0.0.1", () => r(`http://127.0.0.1:${(dead.address() as AddressInfo).port}`)));
    await new Promise((r) => dead.close(r));
    const lonely = await startRoundRobinProxy([origin]);
    try {
      const res = await fetch(`${lonely.origin}/`);
      expect(res.status).toBe(502);
      expect(await res.text()).toMatch(/upstream .* failed/);
    } finally {
      await lonely.close();
    }
  });
});
