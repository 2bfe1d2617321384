// docs/tasks-curl.md as a reader follows it: every shell block of the page run in order by bash and curl
// against the demo as a real process, each answer held against the JSON the page shows after it. Only what
// differs from run to run is put in: the demo's port, and the task ids the page says will differ (a line
// `TASK=<id>` gets the id the last call answered). Values that change with time (ids, timestamps, a poll's
// frame) are compared by shape; statuses, messages and results by value, a poll repeated until the status
// the page shows (the page polls by hand, at its own pace).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docBlocks } from "../helpers/doc-blocks.ts";
import { startDemo, type DemoProcess } from "../helpers/demo-process.ts";

const run = promisify(execFile);
const PAGE = "docs/tasks-curl.md";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Each shell block, with the block of output the page shows right after it, if any. */
function steps() {
  const blocks = docBlocks(PAGE);
  return blocks.flatMap((block, i) => {
    if (block.lang !== "sh") return [];
    const next = blocks[i + 1];
    return [{ line: block.line, code: block.code, shows: next && next.lang !== "sh" ? next : undefined }];
  });
}

/** The value with what changes from run to run replaced by its kind. */
function shape(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => shape(v));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v, k)]));
  if (typeof value === "string" && UUID.test(value)) return "<id>";
  if (key === "createdAt" || key === "lastUpdatedAt") return "<time>";
  if (key === "statusMessage" && typeof value === "string") return value.replace(/^Frame \d+\//, "Frame n/");
  if (key === "version") return "<version>";
  return value;
}

let demo: DemoProcess;
beforeAll(async () => {
  demo = await startDemo({});
});
afterAll(() => demo?.stop());

describe(PAGE, () => {
  it("every command answers what the page shows", async () => {
    const url = demo.url;
    let session = ""; // the lines that set up the shell: MCP, META, mcp()
    let lastId: string | undefined;
    const ids: string[] = [];
    for (const step of steps()) {
      const code = step.code
        .replaceAll("http://127.0.0.1:3000/mcp", url)
        .replace(/^(\w+)=[0-9a-f-]{36}$/gm, (_all, name: string) => `${name}=${lastId}`)
        // The page leaves the listen stream open until Ctrl-C; here it is closed after a while.
        .replace("curl -s -N ", "curl -s -N --max-time 4 ");
      if (/^mcp\(\) \{/m.test(code)) {
        session = code;
        continue;
      }
      // A variable the page sets (TASK=…) stays set for the blocks after it, as in the reader's shell.
      for (const assignment of code.match(/^\w+=[0-9a-f-]{36}$/gm) ?? []) session += `\n${assignment}`;
      const bash = async () => {
        const { stdout } = await run("bash", ["-c", `${session}\n${code}`]).catch((e: { stdout: string; code: number }) => {
          // curl's --max-time ends the listen stream with exit code 28 after it printed the frames.
          if (e.code === 28) return { stdout: e.stdout };
          throw e;
        });
        return stdout;
      };
      let out = await bash();
      const where = `${PAGE}:${step.line}`;
      if (!step.shows) continue;

      if (step.shows.lang === "json") {
        const expected = JSON.parse(step.shows.code);
        // A poll: asked again until it shows what the page shows (its status, and a frame's message).
        const progress = (message: { result?: { status?: string; statusMessage?: string } }) =>
          JSON.stringify(shape({ status: message.result?.status, statusMessage: message.result?.statusMessage }));
        for (let i = 0; i < 100 && progress(JSON.parse(out)) !== progress(expected); i++) {
          await new Promise((r) => setTimeout(r, 100));
          out = await bash();
        }
        const got = JSON.parse(out);
        expect.soft(shape(got), `${where}\n${out}`).toEqual(shape(expected));
        if (got.result?.resultType === "task") ids.push((lastId = got.result.taskId));
      } else {
        // The listen stream: the same frames, in the same order, as SSE.
        const frames = (text: string) =>
          text
            .split("\n")
            .filter((l) => l.startsWith("data: "))
            .map((l) => {
              const frame = JSON.parse(l.slice(6));
              // A running task's message is whatever frame it is at when the stream opens.
              if (frame.params?.status === "working") frame.params.statusMessage = "<progress>";
              return shape(frame);
            });
        expect.soft(frames(out), `${where}\n${out}`).toEqual(frames(step.shows.code));
      }
    }
    // The page's three tasks were made, and each later command used the one just made.
    expect(ids).toHaveLength(3);
  }, 60_000);
});
