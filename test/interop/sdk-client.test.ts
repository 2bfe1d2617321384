// The official TypeScript SDK client (@modelcontextprotocol/client, 2026-07-28 era: stateless, no initialize)
// against the demo app served on a real ephemeral port.
import { Client, StreamableHTTPClientTransport, type ElicitRequest } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { app } from "../../examples/demo/app.ts";
import { useServedApp } from "../helpers/serve.ts";

const V = "2026-07-28";

const served = useServedApp(app);

/** One HTTP exchange as the client put it on the wire. */
interface Exchange {
  method: string;
  headers: Record<string, string>;
  body: any;
  status: number;
}

/** A client plus the wire log of its transport; closed after each test. */
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function newClient(opts: { mode?: "auto" | { pin: string }; elicit?: (req: ElicitRequest) => any } = {}) {
  const wire: Exchange[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    wire.push({ method: init?.method ?? "GET", headers, body: init?.body ? JSON.parse(String(init.body)) : undefined, status: res.status });
    return res;
  };
  const client = new Client(
    { name: "interop-test", version: "1.0.0" },
    { capabilities: opts.elicit ? { elicitation: {} } : {}, versionNegotiation: { mode: opts.mode ?? { pin: V } } },
  );
  const elicitations: ElicitRequest["params"][] = [];
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler("elicitation/create", async (request) => {
      elicitations.push(request.params);
      return answer(request);
    });
  }
  const transport = new StreamableHTTPClientTransport(served.url(), { fetch: recordingFetch });
  open.push(client);
  return { client, transport, wire, elicitations };
}

describe("official SDK client, 2026-07-28 era", () => {
  it("connects with server/discover only (no initialize) and learns the server", async () => {
    const { client, transport, wire } = newClient();
    await client.connect(transport);

    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getNegotiatedProtocolVersion()).toBe(V);
    expect(client.getServerVersion()).toEqual({ name: "h3-mcp-demo", version: "0.1.0" });
    expect(client.getInstructions()).toMatch(/render tool/);
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getDiscoverResult()?.supportedVersions).toContain(V);

    // One POST, server/discover, with the 2026 headers and _meta envelope; no initialize, no session.
    expect(wire.map((x) => x.body?.method)).toEqual(["server/discover"]);
    const [probe] = wire;
    expect(probe!.status).toBe(200);
    expect(probe!.headers["mcp-protocol-version"]).toBe(V);
    expect(probe!.headers["mcp-method"]).toBe("server/discover");
    expect(probe!.headers["mcp-session-id"]).toBeUndefined();
    expect(probe!.body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe(V);
  });

  it("selects the modern era in 'auto' mode too, and discover() works after connect", async () => {
    const { client, transport, wire } = newClient({ mode: "auto" });
    await client.connect(transport);
    expect(client.getProtocolEra()).toBe("modern");
    const discovered = await client.discover();
    expect(discovered.supportedVersions[0]).toBe(V);
    expect(wire.map((x) => x.body?.method)).toEqual(["server/discover", "server/discover"]);
    expect(wire.some((x) => x.body?.method === "initialize")).toBe(false);
  });

  it("lists the demo's tools and calls echo", async () => {
    const { client, transport, wire } = newClient();
    await client.connect(transport);

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "greet_user", "render", "delete_everything"]));
    expect(tools.find((t) => t.name === "echo")?.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
    // Note: the SDK's 2026 Tool decoding drops `execution` (taskSupport lives in the tasks extension now),
    // so the demo's taskSupport declarations are not visible here; ext-tasks reads tools/list raw.

    const result = await client.callTool({ name: "echo", arguments: { text: "hello over the wire" } });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "hello over the wire" }]);

    // Every request is self-describing: protocol version, method and name headers mirror the body.
    const call = wire.find((x) => x.body?.method === "tools/call")!;
    expect(call.headers).toMatchObject({ "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "echo" });
    expect(call.body.params._meta["io.modelcontextprotocol/clientInfo"]).toEqual({ name: "interop-test", version: "1.0.0" });
  });

  it("answers greet_user's MRTR elicitation through the registered handler and gets the greeting", async () => {
    const { client, transport, wire, elicitations } = newClient({
      elicit: () => ({ action: "accept", content: { name: "Ada" } }),
    });
    await client.connect(transport);

    const result = await client.callTool({ name: "greet_user", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);

    // The handler saw the server's form request...
    expect(elicitations).toHaveLength(1);
    expect(elicitations[0]).toMatchObject({ mode: "form", message: "What is your name?" });
    expect((elicitations[0] as any).requestedSchema.required).toEqual(["name"]);
    // ...and the client retried the call with inputResponses keyed like the inputRequests.
    const calls = wire.filter((x) => x.body?.method === "tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[0]!.body.params.inputResponses).toBeUndefined();
    expect(calls[1]!.body.params.inputResponses).toEqual({ name: { action: "accept", content: { name: "Ada" } } });
    expect(calls[1]!.body.id).not.toBe(calls[0]!.body.id);
  });

  it("passes a declined elicitation through to the tool", async () => {
    const { client, transport } = newClient({ elicit: () => ({ action: "decline" }) });
    await client.connect(transport);
    const result = await client.callTool({ name: "greet_user", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "No name, no greeting." }]);
  });

  it("gets render synchronously when it does not declare the tasks extension", async () => {
    const { client, transport } = newClient();
    await client.connect(transport);
    const result = await client.callTool({ name: "render", arguments: { frames: 3, msPerFrame: 0 } });
    expect(result.content).toEqual([{ type: "text", text: "Rendered 3 frames synchronously." }]);
  });
});
