// docs/official-client.md's code, run as written: examples/official-client/render.ts and oauth.ts as real
// processes (the official SDK client and the official tasks client) against h3-mcp servers on real HTTP, one
// of them behind a real authorization server. Then what the page says the official client does not do yet,
// each checked as it stands today: when the SDK changes, these fail and the page must say so.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { app } from "../../examples/demo/app.ts";
import { ROOT } from "../helpers/doc-blocks.ts";
import { useServedApp } from "../helpers/serve.ts";
import { useServedAuthApp } from "../helpers/served-auth-app.ts";
import { call, TASKS } from "../helpers/wire.ts";
import { overHttp } from "../helpers/demo-process.ts";

const run = promisify(execFile);
const demo = useServedApp(app);
const protectedServer = useServedAuthApp();

/** `npx tsx examples/official-client/<file> …args`, as the page says to run it; what it printed. */
async function example(file: string, args: string[], env: Record<string, string> = {}) {
  const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", `examples/official-client/${file}`, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  return { lines: stdout.trim().split("\n"), stderr };
}

describe("examples/official-client", () => {
  it("render.ts follows a task to its result, answers a task's question, and cancels a task", async () => {
    const { lines, stderr } = await example("render.ts", [demo.url().href]);
    expect(stderr).toBe("");
    expect(lines[0]).toMatch(/^render: task [0-9a-f-]{36}$/);
    expect(lines).toContain("render: working (Queued)");
    expect(lines).toContain("render: completed (Frame 3/3)");
    expect(lines.slice(-4)).toEqual(["render: Rendered.", "asked: Really delete everything?", "delete_everything: Deleted.", "long render: cancelled"]);
  }, 60_000);

  it("oauth.ts gets a token from the server's 401 alone and sends it with the SDK's calls and the task requests", async () => {
    const as = protectedServer.as();
    const { lines, stderr } = await example("oauth.ts", [protectedServer.url().href, "slow_task"], {
      MCP_CLIENT_ID: as.client.id,
      MCP_CLIENT_SECRET: as.client.secret,
      MCP_ISSUER: as.issuer,
    });
    expect(stderr).toBe("");
    expect(lines).toEqual([
      `whoami: ${JSON.stringify({ subject: as.client.id, clientId: as.client.id, scopes: ["mcp"] })}`,
      `slow_task: completed ${JSON.stringify({ resultType: "complete", content: [{ type: "text", text: "done" }] })}`,
    ]);
  }, 60_000);
});

describe("what the official client (@modelcontextprotocol/client 2.4) does not do yet", () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client(
      { name: "gaps", version: "1.0.0" },
      { capabilities: { extensions: { [TASKS]: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new StreamableHTTPClientTransport(demo.url()));
  });
  afterAll(() => client?.close());

  it("client.listTools() leaves out a tool's execution (taskSupport), which tools/list sends", async () => {
    const wire = await call(overHttp(demo.url().href) as never, "tools/list", {});
    expect(wire.body.result.tools.find((t: { name: string }) => t.name === "render").execution).toEqual({ taskSupport: "optional" });
    const listed = (await client.listTools()).tools.find((t) => t.name === "render")!;
    expect(listed).toBeDefined();
    expect("execution" in listed).toBe(false);
  });

  it("client.callTool() refuses a task handle: a client that declares the extension calls task tools through ext-tasks", async () => {
    await expect(client.callTool({ name: "render", arguments: { frames: 1, msPerFrame: 0 } })).rejects.toThrow("Unsupported result type 'task' for tools/call");
  });
});
