import { createServer } from "node:net";
import { createWebSocketInspector } from "@statelyai/inspect";
import { createInspectorServer } from "@statelyai/inspect/server";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { InspectionEvent } from "xstate";
import { tasksApp } from "../../src/tasks/testing/tasks-app.ts";
import { call, TASKS } from "../helpers/wire.ts";

const caps = { extensions: { [TASKS]: {} }, elicitation: {} };
const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe("mcpTasks({ inspect })", () => {
  it("hands every task actor to the inspector: created, then each snapshot through to completed", async () => {
    const events: InspectionEvent[] = [];
    const { app } = tasksApp({ inspect: (e) => events.push(e) });
    const { taskId } = (await call(app, "tools/call", { name: "confirm_delete" }, { caps })).body.result;
    await until(() => events.some((e) => e.type === "@xstate.snapshot" && (e.snapshot as any).value === "input_required"));
    await call(app, "tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }, { caps });
    await until(() => events.some((e) => e.type === "@xstate.snapshot" && (e.snapshot as any).value === "completed"));
    const created = events.find((e) => e.type === "@xstate.actor");
    expect((created?.actorRef as { id?: string } | undefined)?.id).toBe(taskId);
    const values = events.filter((e) => e.type === "@xstate.snapshot").map((e) => (e.snapshot as any).value);
    expect(values).toEqual(["working", "input_required", "working", "completed"]);
    const sent = events.filter((e) => e.type === "@xstate.event").map((e) => (e as any).event.type);
    expect(sent).toEqual(expect.arrayContaining(["input.request", "input.answer", "work.done"]));
  });

  it("streams the same events through @statelyai/inspect's local relay, with no browser involved", async () => {
    const port = await freePort();
    const relay = createInspectorServer({ port, autoOpen: false });
    const received: any[] = [];
    const viewer = new WebSocket(`ws://127.0.0.1:${port}`);
    await new Promise((resolve, reject) => (viewer.once("open", resolve), viewer.once("error", reject)));
    viewer.on("message", (data) => received.push(JSON.parse(data.toString())));
    const inspector = createWebSocketInspector({ url: `ws://127.0.0.1:${port}` });
    try {
      const { app } = tasksApp({ inspect: inspector.inspect });
      const { taskId } = (await call(app, "tools/call", { name: "tool_error" }, { caps })).body.result;
      await until(() => received.some((e) => e.type === "@xstate.snapshot" && e.snapshot?.value === "completed"));
      expect(received.some((e) => e.type === "@xstate.actor" && e.sessionId && JSON.stringify(e).includes(taskId))).toBe(true);
    } finally {
      inspector.stop();
      viewer.close();
      relay.stop();
    }
  });
});
