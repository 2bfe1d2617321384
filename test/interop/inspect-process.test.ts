// `npm run inspect` and docs/examples/inspector.ts as real processes: the inspector relay answers on
// 127.0.0.1 only, carries the task actors' events to a connected page, and the process exits cleanly on
// SIGINT and SIGTERM. The docs' recipe opens a browser only when asked to.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { overHttp, startDemo } from "../helpers/demo-process.ts";
import { call, TASKS } from "../helpers/wire.ts";

const RELAY_LINE = /open (http:\/\/127\.0\.0\.1:\d+)/i;

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

/** Whether every non-loopback IPv4 address of this machine refuses host:port. */
async function onlyLoopback(port: number): Promise<void> {
  expect(otherAddresses.length, "this machine needs a non-loopback IPv4 address for this check").toBeGreaterThan(0);
  for (const address of otherAddresses) expect(await accepts(address, port)).toBe(false);
}

/** Opens a WebSocket on the relay and collects what it relays. */
async function relayListener(port: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  const seen: string[] = [];
  ws.on("message", (m) => seen.push(m.toString()));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  return {
    async waitFor(text: string) {
      for (let i = 0; i < 300 && !seen.some((m) => m.includes(text)); i++) await new Promise((r) => setTimeout(r, 50));
      return seen.some((m) => m.includes(text));
    },
    close: () => ws.close(),
  };
}

describe("npm run inspect", () => {
  it("binds its relay to 127.0.0.1, relays task events, and exits with 0 on SIGTERM", async () => {
    const demo = await startDemo({ INSPECTOR_PORT: "0" }, "examples/demo/inspect.ts");
    try {
      const relay = new URL(await relayUrl(demo.output));
      const page = await fetch(relay);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("https://stately.ai/inspect");
      await onlyLoopback(Number(relay.port));

      // A page's WebSocket gets the actor events of a task the demo runs.
      const page2 = await relayListener(relay.port);
      const caps = { elicitation: {}, extensions: { [TASKS]: {} } };
      const created = await call(overHttp(demo.url) as never, "tools/call", { name: "render", arguments: { frames: 1, msPerFrame: 0 } }, { caps });
      expect(await page2.waitFor(created.body.result.taskId as string), demo.output()).toBe(true);
      page2.close();
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

describe("docs/examples/inspector.ts", () => {
  // A stand-in for the platform's "open this URL" command, first on PATH: it records what it was asked to open.
  const bin = mkdtempSync(path.join(os.tmpdir(), "h3-mcp-opener-"));
  const opened = path.join(bin, "opened");
  const opener = path.join(bin, process.platform === "darwin" ? "open" : "xdg-open");
  writeFileSync(opener, `#!/bin/sh\necho "$@" >> "${opened}"\n`);
  chmodSync(opener, 0o755);
  const env = { INSPECTOR_PORT: "0", PATH: `${bin}${path.delimiter}${process.env.PATH}` };
  const example = "docs/examples/inspector.ts";

  it("serves and relays on 127.0.0.1 only, opens no browser, and exits with 0 on SIGTERM", async () => {
    const server = await startDemo(env, example);
    try {
      const relay = new URL(await relayUrl(server.output));
      await onlyLoopback(Number(relay.port));
      await onlyLoopback(Number(new URL(server.url).port));
      const page = await relayListener(relay.port);
      const caps = { extensions: { [TASKS]: {} } };
      const created = await call(overHttp(server.url) as never, "tools/call", { name: "render", arguments: {} }, { caps });
      expect(await page.waitFor(created.body.result.taskId as string), server.output()).toBe(true);
      page.close();
      expect(existsSync(opened)).toBe(false);
    } finally {
      expect(await server.stop("SIGTERM"), server.output()).toEqual({ code: 0, signal: null });
    }
  });

  it("with --open, hands the relay's page to the platform's browser opener", async () => {
    const server = await startDemo(env, example, ["--open"]);
    try {
      const relay = await relayUrl(server.output);
      for (let i = 0; i < 200 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 25));
      expect(readFileSync(opened, "utf8").trim()).toBe(relay);
    } finally {
      expect(await server.stop("SIGINT"), server.output()).toEqual({ code: 0, signal: null });
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
