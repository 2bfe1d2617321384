/**
 * The import graph of the library's own files, and the circles in it.
 *
 * Every edge counts: `import`, `import type`, `export … from`, `import("…")`. A type-only circle still ties
 * the files together for a reader, so it is as much a circle as a run-time one. test/unit/import-graph.test.ts
 * fails on any circle in src/ and machines/, and on any import that runs against the layers.
 *
 * `tsx scripts/import-graph.ts` prints the circles, if any, and exits 1 when there are some.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** File → the files it imports (absolute paths); only relative specifiers, so packages are left out. */
export type ImportGraph = Map<string, string[]>;

/** The graph of every `.ts` file under `dirs`, resolving relative specifiers as written (with their extension). */
export function importGraph(dirs: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const dir of dirs) {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const file = path.join(entry.parentPath, entry.name);
      graph.set(file, importsOf(file, readFileSync(file, "utf8")));
    }
  }
  return graph;
}

/** The relative imports of one source text, resolved against its file. */
export function importsOf(file: string, text: string): string[] {
  // preProcessFile reads every import form, type-only ones and re-exports included, without a full parse.
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith("./") || spec.startsWith("../"))
    .map((spec) => path.resolve(path.dirname(file), spec));
}

/** Files that import each other, directly or not, and one closed path through them to show where to cut. */
export interface Circle {
  files: string[];
  path: string[];
}

/** Every circle, as one strongly connected component each (a file importing itself counts). */
export function findCircles(graph: ImportGraph): Circle[] {
  // Tarjan's algorithm, iterative so a long chain cannot overflow the stack.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++]!;
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) components.push(component);
      }
    }
  }
  return components.map((component) => ({ files: component.sort(), path: circleThrough(graph, new Set(component)) }));
}

/** One closed path through a component, found breadth-first from its first file (in sorted order). */
function circleThrough(graph: ImportGraph, members: Set<string>): string[] {
  const start = [...members].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const back: string[] = [];
        for (let at = node; at !== start; at = cameFrom.get(at)!) back.push(at);
        return [start, ...back.reverse(), start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const circles = findCircles(importGraph([path.join(root, "src"), path.join(root, "machines")]));
  const rel = (f: string) => path.relative(root, f);
  for (const circle of circles) {
    console.log(`${circle.files.length} files in one circle: ${circle.files.map(rel).join(", ")}`);
    console.log(`  for example ${circle.path.map(rel).join(" → ")}`);
  }
  if (circles.length) process.exit(1);
  console.log("no import circles in src/ or machines/");
}
