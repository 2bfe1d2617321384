// The README's task server and its curl calls, as a reader follows them: examples/quickstart/server.ts (the
// file the README shows whole) as a real process, and the README's shell block run by bash and curl against
// it. The call answers with a task handle; tasks/get, asked again at the reader's pace, shows the frames and
// then the result the README shows.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docBlocks } from "../helpers/doc-blocks.ts";
import { startDemo, type DemoProcess } from "../helpers/demo-process.ts";

const run = promisify(execFile);
const blocks = docBlocks("README.md");
const session = blocks.find((b) => b.lang === "sh" && b.code.includes("mcp() {"))!;
const shown = JSON.parse(blocks[blocks.indexOf(session) + 1]!.code);

let server: DemoProcess;
beforeAll(async () => {
  // srvx prints its "Listening on" line, and handles signals, only outside CI and TEST.
  server = await startDemo({ CI: "", TEST: "" }, "examples/quickstart/server.ts", [], "Listening on");
}, 60_000);
afterAll(() => server?.stop());

describe("README.md: a task server, called with curl", () => {
  it("creates a task, and tasks/get shows its frames and then the result the README shows", async () => {
    const [define, call, poll] = session.code.replaceAll("http://127.0.0.1:3000/mcp", server.url).split(/\n(?=TASK=|mcp tasks\/get)/);
    expect(define).toMatch(/^mcp\(\) \{/);
    const bash = async (script: string) => (await run("bash", ["-c", script])).stdout;
    // The handle, as the README's first command receives it (it keeps only the id).
    const handle = JSON.parse(await bash(`${define}\n${call!.replace(/^TASK=\$\((.*) \| jq -r \.result\.taskId\)$/, "$1")}`)).result;
    expect(handle).toMatchObject({ resultType: "task", status: "working", statusMessage: "Queued" });
    const script = `${define}\nTASK=${handle.taskId}\n${poll}`;
    const seen: string[] = [];
    let last = JSON.parse(await bash(script));
    for (let i = 0; i < 200 && last.status === "working"; i++) {
      if (last.statusMessage && !seen.includes(last.statusMessage)) seen.push(last.statusMessage);
      await new Promise((r) => setTimeout(r, 50));
      last = JSON.parse(await bash(script));
    }
    expect(seen.every((m) => /^(Queued|Frame [12]\/3)$/.test(m)), seen.join(", ")).toBe(true);
    const times = (v: { createdAt: string; lastUpdatedAt: string }) => ({ ...v, taskId: "…", createdAt: "…", lastUpdatedAt: "…" });
    expect(times(last)).toEqual(shown);
  }, 60_000);
});
