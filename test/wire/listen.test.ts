import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineMcpPlugin } from "../../src/index.ts";
import { coreApp } from "../fixtures/core-app.ts";
import { expectError, expectShape, S, ownFields } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { appFor, modernRequest } from "../helpers/wire.ts";
import { mountOf } from "../../src/transport/handler.ts";

const SUB = "io.modelcontextprotocol/subscriptionId";

describe("subscriptions/listen", () => {
  it("acknowledges first with the agreed subset and tags every message with the subscriptionId", async () => {
    const { app, handler } = coreApp();
    const res = await app.fetch(
      modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true, promptsListChanged: true, bogus: true } }, { id: "L1" }),
    );
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const sse = sseReader(res);
    const ack = await sse.next();
    expectShape(S.listenAck, ack);
    expect(ack.params.notifications).toEqual({ toolsListChanged: true });
    expect(ack.params._meta[SUB]).toBe("L1");
    handler.notifyListChanged("tools");
    handler.notifyListChanged("prompts");
    const changed = await sse.next();
    expect(changed).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [SUB]: "L1" } } });
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });

  it("sends nothing for lists the client did not opt into, and no progress or logs ever", async () => {
    const { app, handler } = coreApp();
    const res = await app.fetch(modernRequest("subscriptions/listen", { notifications: {} }, { meta: { progressToken: "p", "io.modelcontextprotocol/logLevel": "debug" } }));
    const sse = sseReader(res);
    expect((await sse.next()).params.notifications).toEqual({});
    handler.notifyListChanged("tools");
    expect(await sse.quiet()).toBe(true);
    await sse.close();
  });

  it("answers -32602 without a notifications object", async () => {
    const { app } = coreApp();
    const res = await app.fetch(modernRequest("subscriptions/listen", {}));
    expectError(await res.json(), -32602);
  });

  it("removes a stream's subscriptions when the client disconnects", async () => {
    const { app, handler } = coreApp();
    const { hub, streams: open } = mountOf(handler);
    const streams = await Promise.all(
      [1, 2, 3].map(async (id) => {
        const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id })));
        await sse.next();
        return sse;
      }),
    );
    expect(hub.size).toBe(3);
    expect(open.size).toBe(3);
    for (const s of streams) await s.close();
    expect(hub.size).toBe(0);
    expect(open.size).toBe(0);
  });

  it("lets plugins add filters that agree to a subset", async () => {
    const plugin = defineMcpPlugin({
      id: "com.example/colors",
      listen: [
        {
          key: "colors",
          agree: (_event, value, stream) => {
            const agreed = (value as string[]).filter((c) => c !== "black");
            setTimeout(() => stream.notify("notifications/colors", { color: agreed[0] }), 1);
            return agreed;
          },
        },
      ],
    });
    const app = appFor(defineMcpHandler({ name: "x", version: "1" }, { extensionPlugins: [plugin] }));
    const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { colors: ["red", "black"] } }, { id: 9 })));
    expect((await sse.next()).params.notifications).toEqual({ colors: ["red"] });
    expect(await sse.next()).toEqual({ jsonrpc: "2.0", method: "notifications/colors", params: { color: "red", _meta: { [SUB]: 9 } } });
    await sse.close();
  });

  it("ends streams from the server side with the result first, then closes", async () => {
    const { app, handler } = coreApp();
    const sse = sseReader(await app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "end-me" })));
    await sse.next();
    handler.closeStreams();
    const end = await sse.next();
    expect({ ...end, result: ownFields(end.result) }).toEqual({ jsonrpc: "2.0", id: "end-me", result: { resultType: "complete", _meta: { [SUB]: "end-me" } } });
    await new Promise((r) => setTimeout(r, 5));
    expect(sse.ended).toBe(true);
    expect(mountOf(handler).streams.size).toBe(0);
    expect(mountOf(handler).hub.size).toBe(0);
  });
});
