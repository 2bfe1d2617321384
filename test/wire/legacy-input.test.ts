import { describe, expect, it } from "vitest";
import { coreApp } from "../fixtures/core-app.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { sseReader } from "../helpers/sse.ts";

describe("legacy sessions answer input requests as server-to-client requests", () => {
  it("asks on the POST's stream, takes the POSTed response, and reruns the tool with it", async () => {
    const { app } = coreApp();
    const c = await legacyClient(app, "2025-11-25", { elicitation: {} });
    const res = await c.post({ id: 7, method: "tools/call", params: { name: "greet_mrtr" } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const sse = sseReader(res);
    const ask = await sse.next();
    expect(ask).toMatchObject({ jsonrpc: "2.0", method: "elicitation/create", params: { message: "Your name?" } });
    expect(typeof ask.id).toBe("string");
    const ack = await c.post({ id: ask.id, result: { action: "accept", content: { name: "Grace" } } });
    expect(ack.status).toBe(202);
    expect(await sse.next()).toEqual({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "Hello Grace (round 1)" }] } });
  });

  it("asks several at once and fails the call cleanly when the client refuses", async () => {
    const { app } = coreApp();
    const c = await legacyClient(app, "2025-11-25", { sampling: {}, roots: {} });
    const sse = sseReader(await c.post({ id: 8, method: "tools/call", params: { name: "ask_all" } }));
    const first = await sse.next();
    const second = await sse.next();
    expect([first.method, second.method].sort()).toEqual(["roots/list", "sampling/createMessage"]);
    const roots = first.method === "roots/list" ? first : second;
    const sample = first === roots ? second : first;
    await c.post({ id: roots.id, result: { roots: [{ uri: "file:///x" }] } });
    await c.post({ id: sample.id, error: { code: -1, message: "user said no" } });
    const final = await sse.next();
    expect(final.id).toBe(8);
    expect(final.error.message).toMatch(/refused sampling\/createMessage/);
  });

  it("answers -32021 when the session did not declare the capability, and rejects stray responses", async () => {
    const { app } = coreApp();
    const c = await legacyClient(app, "2025-11-25", {});
    const r = await c.request("tools/call", { name: "greet_mrtr" });
    expect(r.body.error.code).toBe(-32021);
    const stray = await c.post({ id: "nobody-asked", result: {} });
    expect(stray.status).toBe(400);
  });
});
