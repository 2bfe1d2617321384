// The verified identity downstream, against a real authorization server: in tools, in options given as
// a function of the event, in plugins' `enabled`, in `bind`; tasks bound to the token's issuer and subject
// by default, a per-caller cap counted per subject, and streams that end when their token does.
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineMcpPlugin, defineTool, getMcpAuth } from "h3-mcp";
import { jwtVerifier, mcpAuth } from "h3-mcp/auth";
import { authApp, bearer, RESOURCE } from "../fixtures/auth-app.ts";
import { expectPerSubjectCap, useTwoCallers } from "../helpers/auth-callers.ts";
import { legacyClient } from "../helpers/legacy.ts";
import { expectError, expectShape, S } from "../helpers/schemas.ts";
import { sseReader } from "../helpers/sse.ts";
import { call, modernRequest, TASKS } from "../helpers/wire.ts";

const callers = useTwoCallers();

const taskCaps = { extensions: { [TASKS]: {} } };

describe("the identity on the request", () => {
  it("reaches tools, options given as a function of the event, plugins' enabled and their methods, typed", async () => {
    const { as, alice, bob } = callers;
    const seen: Record<string, string | undefined> = {};
    const auth = mcpAuth({ resource: RESOURCE, verifier: jwtVerifier({ issuers: [{ issuer: as.issuer }] }), scopes: ["mcp"] });
    const plugin = defineMcpPlugin({
      id: "com.example/who",
      enabled: (event) => {
        seen.enabled = getMcpAuth(event)?.subject;
        return true;
      },
      methods: { "who/am-i": { handler: (event) => ({ resultType: "complete", subject: getMcpAuth(event)?.subject }) } },
    });
    const handler = defineMcpHandler(
      (event) => {
        seen.options = getMcpAuth(event)?.subject;
        return { name: "who", version: "1", tools: [defineTool({ name: "who", handler: (e) => getMcpAuth(e)!.issuer })] };
      },
      { auth, extensionPlugins: [plugin] },
    );
    const app = new H3().all("/mcp", handler);
    const tool = await call(app, "tools/call", { name: "who" }, { headers: bearer(alice) });
    expect(tool.body.result.content[0].text).toBe(as.issuer);
    expect(seen).toEqual({ options: as.client.id, enabled: as.client.id });
    const method = await call(app, "who/am-i", {}, { headers: bearer(bob) });
    expect(method.body.result.subject).toBe(as.otherClient.id);
  });

  it("serves lists of options given as a function of the event with a private cache scope", async () => {
    const { as, alice } = callers;
    const auth = mcpAuth({ resource: RESOURCE, verifier: jwtVerifier({ issuers: [{ issuer: as.issuer }] }) });
    const tools = [defineTool({ name: "t", handler: () => "t" })];
    const app = new H3().all("/mcp", defineMcpHandler(() => ({ name: "x", version: "1", tools }), { auth }));
    const list = await call(app, "tools/list", {}, { headers: bearer(alice) });
    expect(list.body.result.cacheScope).toBe("private");
    const discover = await call(app, "server/discover", {}, { headers: bearer(alice) });
    expect(discover.body.result.cacheScope).toBe("private");
  });
});

describe("tasks bound to the token's issuer and subject by default", () => {
  it("one caller never sees another's task; the same caller with a new token does", async () => {
    const { as, alice, bob } = callers;
    const { app } = authApp({ issuer: as.issuer });
    const created = await call(app, "tools/call", { name: "slow_task" }, { headers: bearer(alice), caps: taskCaps });
    expectShape(S.createTask, created.body.result);
    const taskId = created.body.result.taskId;
    const mine = await call(app, "tasks/get", { taskId }, { headers: bearer(alice), caps: taskCaps });
    expectShape(S.getTask, mine.body.result);
    for (const method of ["tasks/get", "tasks/cancel"]) {
      const theirs = await call(app, method, { taskId }, { headers: bearer(bob), caps: taskCaps });
      expect(theirs.status).toBe(400);
      expect(expectError(theirs.body, -32602).message).toBe("Unknown task");
    }
    const fresh = await as.token(RESOURCE, "mcp");
    expect((await call(app, "tasks/get", { taskId }, { headers: bearer(fresh), caps: taskCaps })).status).toBe(200);
  });

  it("caps each caller with maxPerOwner, counted per subject", async () => {
    const { app } = authApp({ issuer: callers.as.issuer, tasks: { maxPerOwner: 2 } });
    await expectPerSubjectCap([app], callers);
  });

  it("keeps an explicit bind, which reads the identity", async () => {
    const { as, alice, bob } = callers;
    const { app } = authApp({ issuer: as.issuer, tasks: { bind: (event) => getMcpAuth(event)?.issuer } });
    const created = await call(app, "tools/call", { name: "slow_task" }, { headers: bearer(alice), caps: taskCaps });
    // Bound by issuer only: another subject of the same issuer shares it, as this bind says.
    const other = await call(app, "tasks/get", { taskId: created.body.result.taskId }, { headers: bearer(bob), caps: taskCaps });
    expect(other.status).toBe(200);
  });
});

describe("streams end when their token does", () => {
  it("a listen stream ends with its result when the token that opened it expires", async () => {
    const { as } = callers;
    const { app } = authApp({ issuer: as.issuer });
    const token = await as.token(RESOURCE, "mcp", as.shortLivedClient);
    const res = await app.fetch(modernRequest("subscriptions/listen", { notifications: { toolsListChanged: true } }, { headers: bearer(token) }));
    expect(res.status).toBe(200);
    const reader = sseReader(res);
    expectShape(S.listenAck, await reader.next());
    const started = Date.now();
    const end = await reader.next(3000);
    expect(end.result).toMatchObject({ resultType: "complete" });
    expect(Date.now() - started).toBeLessThan(3000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reader.ended).toBe(true);
  });

  it("a legacy GET stream closes when its token expires", async () => {
    const { as } = callers;
    const { app } = authApp({ issuer: as.issuer });
    const token = await as.token(RESOURCE, "mcp", as.shortLivedClient);
    const legacy = await legacyClient({ fetch: (r: Request) => app.fetch(withBearer(r, token)) } as never);
    const res = await legacy.get();
    expect(res.status).toBe(200);
    const started = Date.now();
    const text = await res.text();
    expect(text.startsWith(":")).toBe(true);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

function withBearer(request: Request, token: string): Request {
  const headers = new Headers(request.headers);
  headers.set("authorization", `Bearer ${token}`);
  return new Request(request, { headers });
}
