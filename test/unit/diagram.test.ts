import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createMachine } from "xstate";
import { taskMachine } from "../../machines/task.machine.ts";
import { toMermaid } from "../../scripts/diagram.ts";
import { ATTEMPT_EVENT_TYPES, TASK_EVENT_TYPES } from "../../src/tasks/testing/chart-paths.ts";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("docs/task-lifecycle", () => {
  const text = toMermaid(taskMachine);

  it("task-lifecycle.mmd is what the chart draws (run `npm run diagram` after changing the chart)", () => {
    expect(read("docs/task-lifecycle.mmd")).toBe(text);
  });

  it("docs/machines.md embeds the same diagram", () => {
    const block = /```mermaid\n([\s\S]*?)```/.exec(read("docs/machines.md"));
    expect(block?.[1]).toBe(text);
  });

  it("task-lifecycle.svg shows every state and every edge label of the .mmd", () => {
    const svg = read("docs/task-lifecycle.svg");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).not.toContain("@import");
    for (const state of Object.keys(taskMachine.root.states)) expect(svg).toContain(`>${state}<`);
    const labels = [...text.matchAll(/ : (.+)$/gm)].map((m) => m[1]!.replaceAll("<br/>", "\n"));
    for (const label of labels) for (const line of label.split("\n")) expect(svg).toContain(line);
  });

  it("starts in working, ends in the three final states, and labels edges with event types", () => {
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("stateDiagram-v2");
    expect(lines[1]).toBe("  [*] --> working");
    expect(lines.slice(-3)).toStrictEqual(["  completed --> [*]", "  failed --> [*]", "  cancelled --> [*]"]);
    expect(text).toContain("  input_required --> working : input.answer [answersAll]\n");
    expect(text).toContain("  working --> completed : work.done<br/>work.toolError\n");
    const events = new Set(
      [...text.matchAll(/ : (.+)$/gm)].flatMap((m) => m[1]!.split("<br/>").map((label) => label.split(" ")[0])),
    );
    expect(events).toStrictEqual(
      new Set([...TASK_EVENT_TYPES, ...ATTEMPT_EVENT_TYPES]),
    );
  });

  it("is deterministic and independent of the chart instance", () => {
    expect(toMermaid(taskMachine)).toBe(text);
    const toggle = createMachine({
      initial: "off",
      states: { off: { on: { flip: "on" } }, on: { on: { flip: "off", stop: "done" } }, done: { type: "final" } },
    });
    expect(toMermaid(toggle)).toBe(
      [
        "stateDiagram-v2",
        "  [*] --> off",
        "  off --> on : flip",
        "  on --> off : flip",
        "  on --> done : stop",
        "  done --> [*]",
        "",
      ].join("\n"),
    );
  });

  it("refuses charts it cannot draw faithfully", () => {
    const nested = createMachine({ initial: "a", states: { a: { initial: "b", states: { b: {} } } } });
    expect(() => toMermaid(nested)).toThrow(/flat charts only/);
  });
});
