/**
 * Draws the task chart from the chart itself, so the picture in the docs cannot drift from the code.
 *
 * `npm run diagram` (or `tsx scripts/diagram.ts`) writes docs/task-lifecycle.mmd (Mermaid source) and renders
 * docs/task-lifecycle.svg with beautiful-mermaid, a pure-JS renderer that needs no browser.
 * Importing this module only defines `toMermaid`; test/unit/diagram.test.ts uses it to fail on a stale .mmd.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AnyStateMachine, AnyStateNode } from "xstate";
import { taskMachine } from "../machines/task.machine.ts";

/**
 * A Mermaid `stateDiagram-v2` for a flat chart (top-level states only). Edges keep the chart's order: states
 * as declared, events as listed under `on`. Several events between the same two states share one edge, one
 * event per line; a guarded transition shows its guard in UML brackets, e.g. `input.answer [answersAll]`.
 *
 * @example
 * toMermaid(taskMachine).split("\n")[0]; // "stateDiagram-v2"
 */
export function toMermaid(machine: AnyStateMachine): string {
  const states = Object.values(machine.root.states) as AnyStateNode[];
  const lines = ["stateDiagram-v2"];
  const initial = machine.root.initial?.target[0];
  if (initial) lines.push(`  [*] --> ${initial.key}`);

  const edges = new Map<string, string[]>();
  for (const node of states) {
    if (Object.keys(node.states).length > 0) throw new Error(`toMermaid draws flat charts only; "${node.key}" has children`);
    if (node.always?.length || node.after.length || node.invoke.length) {
      throw new Error(`toMermaid draws only event transitions; "${node.key}" has always/after/invoke`);
    }
    for (const [eventType, transitions] of node.transitions) {
      for (const transition of transitions) {
        const targets = transition.target?.length ? transition.target : [node];
        for (const target of targets) {
          const edge = `${node.key} --> ${target.key}`;
          const guard = _guardName(transition.guard);
          edges.set(edge, [...(edges.get(edge) ?? []), guard ? `${eventType} [${guard}]` : eventType]);
        }
      }
    }
  }
  for (const [edge, labels] of edges) lines.push(`  ${edge} : ${labels.join("<br/>")}`);
  for (const node of states) if (node.type === "final") lines.push(`  ${node.key} --> [*]`);
  return `${lines.join("\n")}\n`;
}

// --- Internal ---

function _guardName(guard: unknown): string | undefined {
  if (guard === undefined) return undefined;
  if (typeof guard === "string") return guard;
  if (typeof guard === "function") return guard.name || "guard";
  if (typeof guard === "object" && guard !== null && "type" in guard && typeof guard.type === "string") return guard.type;
  return "guard";
}

async function _main(): Promise<void> {
  const mmdPath = fileURLToPath(new URL("../docs/task-lifecycle.mmd", import.meta.url));
  const svgPath = fileURLToPath(new URL("../docs/task-lifecycle.svg", import.meta.url));
  const text = toMermaid(taskMachine);
  writeFileSync(mmdPath, text);

  const { renderMermaidSVG } = await import("beautiful-mermaid");
  // The renderer links a web font; drop it so the picture makes no network request and falls back to system-ui.
  const svg = renderMermaidSVG(text).replace(/^\s*@import url\([^)]*\);\n/gm, "");
  writeFileSync(svgPath, svg.endsWith("\n") ? svg : `${svg}\n`);
  console.log(`wrote ${mmdPath}\nwrote ${svgPath}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await _main();
