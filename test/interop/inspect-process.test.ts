// `npm run inspect` as a real process: its inspector relay answers on 127.0.0.1 only, carries the task
// actors' events to a connected page, and the process exits cleanly on SIGINT and SIGTERM.
import net from "node:net";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { overHttp, startDemo } from "../helpers/demo-process.ts";
import { call, TASKS } from "../helpers/wire.ts";

const RELAY_LINE = /Open (http:\/\/127\.0\.0\.1:\d+)/;

/** The relay's address, from the line the demo prints after its "listening on" line (it may come in a later chunk). */
async function relayUrl(output: () => string): Promise<string> {
  for (let i = 0; i < 200 && !RELAY_LINE.test(output()); i++) await new Promise((r) => setTimeout(r, 25));
  const match = RELAY_LINE.exec(output());
  if (!match) throw new Error(`the demo printed no relay address:\n${output()}`);
  return match[1]!;
}

/** True when something accepts a TCP connection on host:port. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });

const otherAddresses = Object.values(os.networkInterfaces())
  .flat()
  .filter((a) => a && a.family === "IPv4" && !a.internal)
  .map((a) => a!.address);

describe("npm run inspect", () => {
  it("binds its relay to 127.0.0.1, relays task events, and exits with 0 on SIGTERM", async () => {
    const demo = await startDemo({ INSPECTOR_PORT: "0" }, "examples/demo/inspect.ts");
    try {
      const relay = new URL(await relayUrl(demo.output));
      const page = await fetch(relay);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("https://stately.ai/inspect");
      expect(otherAddresses.length, "this machine needs a non-loopback IPv4 address for this check").toBeGreaterThan(0);
      for (const address of otherAddresses) expect(await accepts(address, Number(relay.port))).toBe(false);

      // A page's WebSocket gets the actor events of a task the demo runs.
      const ws = new WebSocket(`ws://127.0.0.1:${relay.port}`);
      const seen: string[] = [];
      ws.on("message", (m) => seen.push(m.toString()));
      await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
      const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
      const created = await call(overHttp(demo.url) as never, "tools/call", { name: "render", arguments: { frames: 1, msPerFrame: 0 } }, { caps });
      const taskId = created.body.result.taskId as string;
      for (let i = 0; i < 300 && !seen.some((m) => m.includes(taskId)); i++) await new Promise((r) => setTimeout(r, 50));
      expect(seen.some((m) => m.includes(taskId)), demo.output()).toBe(true);
      ws.close();
    } finally {
      const exit = await demo.stop("SIGTERM");
      expect(exit, demo.output()).toEqual({ code: 0, signal: null });
    }
  });

  it("exits with 0 on SIGINT", async () => {
    const demo = await startDemo({ INSPECTOR_PORT: "0" }, "examples/demo/inspect.ts");
    const exit = await demo.stop("SIGINT");
    expect(exit, demo.output()).toEqual({ code: 0, signal: null });
  });
});
