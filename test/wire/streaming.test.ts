import { describe, expect, it } from "vitest";
import { aborted, coreApp } from "../fixtures/core-app.ts";
import { expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest } from "../helpers/wire.ts";

const { app } = coreApp();

describe("per-request SSE for progress and logs", () => {
  it("answers JSON when the request asked for neither", async () => {
    const r = await call(app, "tools/call", { name: "progress" });
    expect(r.res.headers.get("content-type")).toBe("application/json");
    expect(r.messages).toHaveLength(1);
  });

  it("streams increasing progress for the request's token, then the response", async () => {
    const r = await call(app, "tools/call", { name: "progress" }, { meta: { progressToken: "tok" } });
    expect(r.res.headers.get("content-type")).toBe("text/event-stream");
    expect(r.res.headers.get("x-accel-buffering")).toBe("no");
    const progress = r.messages.filter((m) => m.method === "notifications/progress");
    for (const p of progress) expectShape(S.progress, p);
    expect(progress.map((p) => p.params.progress)).toEqual([0, 1, 2]);
    expect(progress.every((p) => p.params.progressToken === "tok")).toBe(true);
    expect(r.messages.filter((m) => m.method === "notifications/message")).toHaveLength(0);
    expect(r.messages.at(-1).result.content[0].text).toBe("finished");
  });

  it("sends logs only at or above the requested level", async () => {
    const r = await call(app, "tools/call", { name: "progress" }, { meta: { "io.modelcontextprotocol/logLevel": "info" } });
    const logs = r.messages.filter((m) => m.method === "notifications/message");
    for (const l of logs) expectShape(S.logMessage, l);
    expect(logs.map((l) => l.params.data)).toEqual(["warning line"]);
    expect(r.messages.filter((m) => m.method === "notifications/progress")).toHaveLength(0);
    const all = await call(app, "tools/call", { name: "progress" }, { meta: { "io.modelcontextprotocol/logLevel": "debug" } });
    expect(all.messages.filter((m) => m.method === "notifications/message")).toHaveLength(2);
  });

  it("aborts the handler's signal when the client closes the stream", async () => {
    const before = aborted.count;
    const res = await app.fetch(modernRequest("tools/call", { name: "hang_until_abort" }, { meta: { progressToken: 1 } }));
    const sse = sseReader(res);
    expect((await sse.next()).method).toBe("notifications/progress");
    await sse.close();
    await new Promise((r) => setTimeout(r, 10));
    expect(aborted.count).toBe(before + 1);
  });
});
