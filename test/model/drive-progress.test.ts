// driveModelPath on tools that report progress (task.update along their way), written as users write them:
// the tasks page's render tool, driven along every path it can take, and the driver's own failures for a
// hold the tool does not keep, told inside a 5 s test timeout with what it waited for and the hold it expected.
import { H3 } from "h3";
import { describe, expect, it } from "vitest";
import { defineMcpHandler, defineTool, mcpElicit } from "h3-mcp";
import { canCreateTask, mcpTask, mcpTasks } from "h3-mcp/tasks";
import { createHold, createTestClient, driveModelPath, getModelPaths, ModelPathError, type Hold } from "h3-mcp/tasks/testing";
import { officialShapes } from "../helpers/schemas.ts";

/** The tasks page's render tool; `renderFrame` is where a test holds it (frame 50, once: before its end). */
function renderServer(hold: Hold | undefined) {
  const renderSynchronously = () => "Rendered synchronously.";
  const renderFrame = async (frame: number, signal: AbortSignal) => {
    if (hold && frame === 50) await hold.step(signal);
    signal.throwIfAborted();
  };
  const renderTool = defineTool({
    name: "render",
    execution: { taskSupport: "optional" },
    handler: (event) => {
      if (!canCreateTask(event)) {
        return renderSynchronously();
      }
      return mcpTask(event, {
        statusMessage: "Queued",
        async run(task) {
          for (let frame = 1; frame <= 100; frame++) {
            await renderFrame(frame, task.signal);
            task.update({ statusMessage: `Frame ${frame}/100` });
          }
          return { content: [{ type: "text", text: "Rendered." }] };
        },
      });
    },
  });
  return new H3().all("/mcp", defineMcpHandler({ name: "my-server", version: "1.0.0", tools: [renderTool] }, { extensionPlugins: [mcpTasks()] }));
}

describe("driveModelPath on a tool that reports progress", () => {
  it("drives the tasks page's render tool, unheld, to its end: the progress is the tool's, the status and order the chart's", async () => {
    const shapes = officialShapes();
    const paths = getModelPaths({ tool: {} });
    expect(paths.map((p) => p.name)).toEqual(["work.done"]);
    const report = await driveModelPath(paths[0]!, { client: createTestClient(renderServer(undefined), shapes), tool: "render" });
    expect(report.statuses).toEqual(["working", "completed"]);
    expect(report.task).toMatchObject({ status: "completed", statusMessage: "Frame 100/100", result: { content: [{ type: "text", text: "Rendered." }] } });
    expect(report.messages[0]).toBe("Queued");
    expect(report.messages.at(-1)).toBe("Frame 100/100");
    expect(shapes.checked).toBeGreaterThan(2);
  });

  it("drives the render tool held at frame 50 along every path: cancelled mid-render keeps the frame it reached", async () => {
    const hold = createHold();
    const client = createTestClient(renderServer(hold), officialShapes());
    const paths = getModelPaths({ tool: { held: true } });
    expect(paths.map((p) => p.name).sort()).toEqual(["task.cancel", "work.done"]);
    for (const path of paths) {
      const report = await driveModelPath(path, { client, tool: "render", proceed: hold.release });
      expect(report.task.status).toBe(path.final);
      if (path.final === "completed") expect(report.task.statusMessage).toBe("Frame 100/100");
      // The cancel comes while the render runs: it stops at the frame it reached (49 at most, held before 50).
      else expect(report.task.statusMessage).toMatch(/^(Queued|Frame ([1-9]|[1-4]\d)\/100)$/);
      // Each message once per change, in the order the frames were rendered.
      const frames = report.messages.slice(1).map((m) => Number(/^Frame (\d+)/.exec(m)![1]));
      expect(frames).toEqual([...frames].sort((a, b) => a - b));
    }
  });

  it("still fails a final task whose message changes after the end", async () => {
    // A proxy that rewrites the message of a completed task on every later read, as a broken server would.
    let reads = 0;
    const app = renderServer(undefined);
    const lying = {
      async fetch(request: Request) {
        const res = await app.fetch(request);
        if (request.headers.get("mcp-method") !== "tasks/get") return res;
        const body = await res.json();
        if (body.result?.status === "completed") body.result.statusMessage = `Frame ${++reads}/100`;
        return Response.json(body);
      },
    };
    await expect(driveModelPath(getModelPaths({ tool: {} })[0]!, { app: lying, tool: "render" })).rejects.toThrow(/the completed task changed after a late cancel/);
  });
});

const ask = mcpElicit({ message: "Go on?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } });

/** A held tool that keeps its hold wrong: it waits twice before its round. */
function wrongHoldServer(hold: Hold) {
  const tool = defineTool({
    name: "asks",
    handler: (event) =>
      mcpTask(event, {
        statusMessage: "Queued",
        async run(task) {
          await hold.step(task.signal);
          await hold.step(task.signal);
          await task.requestInput({ ok: ask });
          await hold.step(task.signal);
          return "asked";
        },
      }),
  });
  return new H3().all("/mcp", defineMcpHandler({ name: "wrong-hold", version: "1", tools: [tool] }, { extensionPlugins: [mcpTasks()] }));
}

describe("driveModelPath's own failures, inside the test runner's 5 s", () => {
  const path = () => getModelPaths({ tool: { rounds: [["ok"]], held: true } }).find((p) => p.name === "input.request[ok] → input.answer[ok] → work.done")!;

  it("names the step it waited for and the hold it expected, for a tool that waits once too often", { timeout: 5000 }, async () => {
    const hold = createHold();
    const error = await driveModelPath(path(), { app: wrongHoldServer(hold), tool: "asks", proceed: hold.release }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelPathError);
    const message = (error as Error).message;
    expect(message).toMatch(/^asks along input\.request\[ok\] → input\.answer\[ok\] → work\.done, step 1 \(input\.request\[ok\]\): waited 4000 ms for the tool's input\.request\[ok\]/);
    expect(message).toMatch(/the wire still shows \{"status":"working","statusMessage":"Queued"\}/);
    expect(message).toMatch(/The tool is held: proceed\(\) let it go 1 time, once before each of its steps\. A held tool awaits hold\.step\(task\.signal\) exactly once before each input round/);
  });

  it("says the tool is driven unheld when a tool that waits on a hold gets no proceed", { timeout: 5000 }, async () => {
    const hold = createHold();
    const unheld = getModelPaths({ tool: { rounds: [["ok"]] } }).find((p) => p.final === "completed")!;
    const error = await driveModelPath(unheld, { app: wrongHoldServer(hold), tool: "asks", timeoutMs: 300 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/waited 300 ms for the tool's input\.request\[ok\]; the wire still shows .*The tool is driven unheld \(no proceed\): it must take this step on its own\. A tool that awaits a hold needs held: true/);
  });
});
