// The CORS recipe of docs/cors.md on the wire, over real HTTP: without it a preflight is refused with
// 405; with h3's handleCors in front of the route a browser app on the allowed origin gets through.
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { app as corsApp, mcp } from "../../docs/examples/cors.ts";
import { expectResult, S } from "../helpers/schemas.ts";
import { useServedApp } from "../helpers/serve.ts";
import { modernRequest } from "../helpers/wire.ts";

const APP = "https://app.example";
const served = useServedApp(corsApp);
const bare = useServedApp(new H3().all("/mcp", mcp));

const preflight = (url: URL, origin = APP) =>
  fetch(url, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,mcp-protocol-version,mcp-method,mcp-name" },
  });

async function post(url: URL, origin: string) {
  const request = modernRequest("tools/call", { name: "echo", arguments: { text: "hi" } });
  const headers = new Headers(request.headers);
  headers.set("origin", origin);
  return fetch(url, { method: "POST", headers, body: await request.text() });
}

describe("CORS in front of the MCP route", () => {
  it("without the recipe, a preflight gets 405 and no CORS headers", async () => {
    const res = await preflight(bare.url());
    expect(res.status).toBe(405);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers the preflight with 204 and the methods and headers an MCP client sends", async () => {
    const res = await preflight(served.url());
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase();
    for (const h of ["content-type", "mcp-protocol-version", "mcp-method", "mcp-name", "mcp-session-id"]) expect(allowed).toContain(h);
  });

  it("serves the allowed origin's POST with the CORS headers, and still refuses any other origin with 403", async () => {
    const ok = await post(served.url(), APP);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(APP);
    expect(ok.headers.get("access-control-expose-headers")?.toLowerCase()).toContain("mcp-session-id");
    expect(expectResult(await ok.json(), S.callTool).content).toEqual([{ type: "text", text: "echo: hi" }]);

    const other = await post(served.url(), "https://evil.example");
    expect(other.status).toBe(403);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});
