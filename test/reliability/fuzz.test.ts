// The wire fuzzer (test/reliability/fuzz-wire.ts) with 5 000 cases and a fixed seed, so CI is deterministic;
// FUZZ_RUNS and FUZZ_SEED override both. `npm run fuzz` runs 100 000 with a fresh seed.
import { describe, expect, it } from "vitest";
import { mountOf } from "../../src/transport/handler.ts";
import { KNOWN_DEVIATIONS, Ref, runCase, runFuzz, type FuzzCase, type Template } from "./fuzz-wire.ts";
import { modern, TASKS } from "./support.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 5_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20260728);

describe(`wire fuzzing (${RUNS} cases, seed ${SEED})`, () => {
  it("answers every generated and mutated message with a well-formed JSON-RPC answer, the spec's code and status, and leaves nothing behind", async () => {
    const report = await runFuzz({ runs: RUNS, seed: SEED });
    // The counterexample, shrunk, with the seed and path that replay it.
    expect(report.report ?? "").toBe("");
    expect(report.failed).toBe(false);
    expect(report.runs).toBe(RUNS);
    expect(report.unhandledRejections).toEqual([]);
    expect(Object.keys(report.known).every((k) => k in KNOWN_DEVIATIONS)).toBe(true);

    // The generator must keep reaching every layer: each transport error, each protocol error, results, SSE.
    if (RUNS >= 5_000) {
      const reached = Object.keys(report.signatures);
      for (const signature of [
        "200 result",
        "200 sse",
        "202",
        "400 -32700",
        "400 -32600",
        "403 -32600",
        "405 -32600",
        "413 -32600",
        "404 -32600",
        "400 -32602",
        "400 -32020",
        "400 -32021",
        "400 -32022",
        "404 -32601",
        "200 -32601",
        "200 -32000",
      ]) {
        expect(reached, `no case was answered ${signature}`).toContain(signature);
      }
    }
  }, 120_000);
});

// The oracle must be able to fail: each mutant below breaks one rule, and the case that meets it must say so.
describe("the fuzz oracle", () => {
  const template = (over: Partial<Template>): Template => ({
    label: "t",
    era: "modern",
    method: "tools/list",
    params: {},
    caps: { extensions: { [TASKS]: {} } },
    id: 7,
    caller: "alice",
    expect: { kind: "result", schema: "listTools" },
    ...over,
  });
  const untouched = (t: Template): FuzzCase => ({ kind: "request", template: t, body: [], headers: [], text: [] });
  const listTools = untouched(template({}));
  const unknownMethod = untouched(template({ method: "tasks/list", expect: { kind: "error", code: -32601, status: 404 } }));

  it("accepts the real server's answers to these cases", async () => {
    expect((await runCase(listTools)).problems).toEqual([]);
    expect((await runCase(unknownMethod)).problems).toEqual([]);
  });

  it("flags a 5xx", async () => {
    const { problems } = await runCase(listTools, { mutant: () => new Response("oops", { status: 500 }) });
    expect(problems).toContain("HTTP 500");
  });

  it("flags a code with the wrong HTTP status", async () => {
    const { problems } = await runCase(unknownMethod, {
      mutant: async (res) => new Response(await res.text(), { status: 400, headers: res.headers }),
    });
    expect(problems.join("\n")).toMatch(/code -32601 with HTTP 400/);
  });

  it("flags an unexpected exception turned into a generic -32603", async () => {
    const { problems } = await runCase(listTools, {
      mutant: () => Response.json({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: "Internal error" } }),
    });
    expect(problems).toContain("an unexpected exception became a generic -32603");
  });

  it("flags a result that breaks its schema or echoes another id", async () => {
    const { problems } = await runCase(listTools, {
      mutant: () => Response.json({ jsonrpc: "2.0", id: 8, result: { resultType: "complete", tools: "none" } }),
    });
    expect(problems.join("\n")).toMatch(/result id 8 for request id 7/);
    expect(problems.join("\n")).toMatch(/out of shape/);
  });

  it("flags an answer about another caller's task that differs from the unknown-id answer", async () => {
    const foreign = untouched(template({ method: "tasks/get", params: { taskId: new Ref("task.foreign") }, expect: { kind: "unknown-task" } }));
    expect((await runCase(foreign)).problems).toEqual([]);
    const { problems } = await runCase(foreign, {
      mutant: () => Response.json({ jsonrpc: "2.0", id: 7, error: { code: -32602, message: "Task belongs to someone else" } }, { status: 400 }),
    });
    expect(problems.join("\n")).toMatch(/differs from the unknown-id answer/);
  });

  it("flags a listen stream left open", async () => {
    let leaked: ReadableStream | undefined;
    let open: ReadonlySet<unknown> | undefined;
    const { problems } = await runCase(listTools, {
      mutant: async (res, _req, world) => {
        open = mountOf(world.handler).streams;
        leaked = (await world.app.fetch(modern("subscriptions/listen", { notifications: { toolsListChanged: true } }))).body!;
        return res;
      },
    });
    expect(problems).toContain("1 listen stream(s) left open");
    await leaked!.cancel();
    expect(open!.size).toBe(0);
  });

  it("flags a hang", async () => {
    const never = () => new Response(new ReadableStream({ start() {} }), { headers: { "content-type": "application/json" } });
    await expect(runCase(listTools, { mutant: never, hangMs: 50 })).rejects.toThrow(/hang: body did not settle/);
  });
});
