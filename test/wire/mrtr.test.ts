import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineMcpHandler, defineTool, mcpElicit, mcpElicitUrl, mcpInputRequired, mcpValidateElicitation } from "../../src/index.ts";
import { askName, coreApp } from "../fixtures/core-app.ts";
import { expectError, expectShape, S, ownFields } from "../helpers/schemas.ts";
import { appFor, call } from "../helpers/wire.ts";

const { app } = coreApp({ requestState: { secret: "test-secret", ttlMs: 60_000 } });
const form = { elicitation: {} };

async function firstRound() {
  const r = await call(app, "tools/call", { name: "greet_mrtr" }, { caps: form });
  return r.body.result;
}

describe("MRTR for synchronous tools", () => {
  it("asks with input_required, an elicitation request and a signed requestState", async () => {
    const result = await firstRound();
    expectShape(S.inputRequired, result);
    expect(result.resultType).toBe("input_required");
    expect(result.inputRequests.user_name).toEqual({ method: "elicitation/create", params: askName.params });
    expect(typeof result.requestState).toBe("string");
    expect(result.ttlMs).toBeUndefined();
  });

  it("finishes on the retry with typed answers and the verified state", async () => {
    const { requestState } = await firstRound();
    const r = await call(app, "tools/call", {
      name: "greet_mrtr",
      inputResponses: { user_name: { action: "accept", content: { name: "Ada" } }, stray: { action: "accept" } },
      requestState,
    }, { id: 2, caps: form });
    expect(ownFields(r.body.result)).toEqual({ resultType: "complete", content: [{ type: "text", text: "Hello Ada (round 1)" }] });
  });

  it.each([[12345], ["yes"], [{ action: "maybe" }], [{ action: "accept", content: [1] }]])(
    "treats the malformed answer %j as missing and asks again",
    async (answer) => {
      const r = await call(app, "tools/call", { name: "greet_mrtr", inputResponses: { user_name: answer } }, { caps: form });
      expect(r.body.result.resultType).toBe("input_required");
    },
  );

  it("asks again when the retry lacks an answer", async () => {
    const { requestState } = await firstRound();
    const r = await call(app, "tools/call", { name: "greet_mrtr", inputResponses: {}, requestState }, { caps: form });
    expect(r.body.result.resultType).toBe("input_required");
  });

  it.each([
    ["tampered", (s: string) => s.slice(0, -2) + (s.endsWith("AA") ? "BB" : "AA")],
    ["forged payload", (s: string) => Buffer.from(JSON.stringify({ s: { round: 9 }, m: "tools/call", d: "x", e: 9e15 })).toString("base64url") + "." + s.split(".")[1]],
    ["not a token", () => "plain"],
  ])("answers -32602 for a %s requestState", async (_what, mutate) => {
    const { requestState } = await firstRound();
    const r = await call(app, "tools/call", {
      name: "greet_mrtr",
      inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
      requestState: mutate(requestState),
    }, { caps: form });
    expectError(r.body, -32602);
  });

  it("answers -32602 when the state is replayed against other params or another tool", async () => {
    const { requestState } = await firstRound();
    const r = await call(app, "tools/call", { name: "greet_mrtr", arguments: { extra: 1 }, requestState }, { caps: form });
    expectError(r.body, -32602);
    const r2 = await call(app, "tools/call", { name: "echo", arguments: { text: "x" }, requestState }, { caps: form });
    expectError(r2.body, -32602);
  });

  it("answers -32602 for an expired state", async () => {
    const { app: quick } = coreApp({ requestState: { secret: "s", ttlMs: 1 } });
    const first = (await call(quick, "tools/call", { name: "greet_mrtr" }, { caps: form })).body.result;
    await new Promise((r) => setTimeout(r, 5));
    const r = await call(quick, "tools/call", { name: "greet_mrtr", requestState: first.requestState }, { caps: form });
    expect(r.body.error.message).toMatch(/Expired/);
  });

  it("lets another instance with the same secret finish the round", async () => {
    const { requestState } = await firstRound();
    const { app: other } = coreApp({ requestState: { secret: "test-secret" } });
    const r = await call(other, "tools/call", {
      name: "greet_mrtr",
      inputResponses: { user_name: { action: "accept", content: { name: "Bo" } } },
      requestState,
    }, { caps: form });
    expect(r.body.result.content[0].text).toBe("Hello Bo (round 1)");
  });

  it("answers -32021 naming what is missing when the client did not declare the input kinds", async () => {
    const error = expectError((await call(app, "tools/call", { name: "greet_mrtr" })).body, -32021);
    expect(error.data.requiredCapabilities).toEqual({ elicitation: { form: {} } });
    const error2 = expectError((await call(app, "tools/call", { name: "ask_all" }, { caps: { sampling: {} } })).body, -32021);
    expect(error2.data.requiredCapabilities).toEqual({ roots: {} });
  });

  it("asks for several kinds at once and reads every answer", async () => {
    const caps = { sampling: {}, roots: {} };
    const first = (await call(app, "tools/call", { name: "ask_all" }, { caps })).body.result;
    expect(Object.keys(first.inputRequests).sort()).toEqual(["roots", "sample"]);
    expect(first.inputRequests.roots.method).toBe("roots/list");
    expect(first.inputRequests.sample.method).toBe("sampling/createMessage");
    const r = await call(app, "tools/call", {
      name: "ask_all",
      inputResponses: {
        sample: { role: "assistant", content: { type: "text", text: "Paris" }, model: "m" },
        roots: { roots: [{ uri: "file:///a" }, { uri: "file:///b" }] },
      },
    }, { caps });
    expect(r.body.result.content[0].text).toBe("roots 2");
  });

  it("gates url-mode elicitation on elicitation.url", async () => {
    const h = defineMcpHandler({
      name: "x",
      version: "1",
      tools: [defineTool({ name: "u", handler: (e) => mcpInputRequired(e, { login: mcpElicitUrl({ message: "Sign in", url: "https://example.com/a" }) }) })],
    });
    const error = expectError((await call(appFor(h), "tools/call", { name: "u" }, { caps: { elicitation: {} } })).body, -32021);
    expect(error.data.requiredCapabilities).toEqual({ elicitation: { url: {} } });
    const ok = await call(appFor(h), "tools/call", { name: "u" }, { caps: { elicitation: { url: {} } } });
    expect(ok.body.result.inputRequests.login.params).toEqual({ mode: "url", message: "Sign in", url: "https://example.com/a" });
  });
});

describe("validating answers", () => {
  it("checks content against a JSON requestedSchema and a zod one", () => {
    expect(mcpValidateElicitation(askName, { action: "accept", content: { name: "Ada" } })).toEqual({ name: "Ada" });
    expect(mcpValidateElicitation(askName, { action: "decline" })).toBeUndefined();
    expect(() => mcpValidateElicitation(askName, { action: "accept", content: { name: 3 as never } })).toThrow(/name/);
    expect(() => mcpValidateElicitation(askName, { action: "accept", content: {} })).toThrow(/required/);
    const zodAsk = mcpElicit({ message: "Age?", requestedSchema: z.object({ age: z.number().int().min(0) }) });
    expect(zodAsk.params.requestedSchema).toEqual({ type: "object", properties: { age: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER } }, required: ["age"] });
    expect(mcpValidateElicitation(zodAsk, { action: "accept", content: { age: 3 } })).toEqual({ age: 3 });
    expect(() => mcpValidateElicitation(zodAsk, { action: "accept", content: { age: -1 } })).toThrow();
  });
});
