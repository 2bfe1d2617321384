import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { findCircles, importGraph, importsOf, type ImportGraph } from "../../scripts/import-graph.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const rel = (file: string) => path.relative(root, file);
const graph = importGraph([path.join(root, "src"), path.join(root, "machines")]);

/**
 * What each folder may import, lowest first: protocol ← features ← transport ← tasks; machines and utils below
 * all. auth/ sits beside transport and tasks: it implements the features layer's guard contract, and nothing
 * in the core imports it.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  machines: ["machines"],
  "src/utils": ["src/utils"],
  "src/protocol": ["src/protocol", "src/utils", "machines"],
  "src/features": ["src/features", "src/protocol", "src/utils", "machines"],
  "src/transport": ["src/transport", "src/features", "src/protocol", "src/utils", "machines"],
  "src/tasks": ["src/tasks", "src/transport", "src/features", "src/protocol", "src/utils", "machines"],
  "src/auth": ["src/auth", "src/features", "src/protocol", "src/utils"],
  // The OpenTelemetry entry hooks in through the plugin contract, beside tasks, never into it.
  "src/otel": ["src/otel", "src/features", "src/protocol", "src/utils"],
};
const layerOf = (file: string) =>
  Object.keys(MAY_IMPORT)
    .filter((layer) => rel(file).startsWith(`${layer}/`))
    .sort((a, b) => b.length - a.length)[0];

describe("the import graph of src/ and machines/", () => {
  it("reads the files it checks, type imports and re-exports included", () => {
    const tasksIndex = graph.get(path.join(root, "src/tasks/index.ts"))!.map(rel);
    expect(tasksIndex).toContain("src/tasks/plugin.ts"); // export … from
    const tools = graph.get(path.join(root, "src/features/tools.ts"))!.map(rel);
    expect(tools).toContain("src/protocol/types.ts"); // import type
    expect(graph.size).toBeGreaterThan(30);
  });

  it("has no circle", () => {
    const circles = findCircles(graph).map((c) => `${c.files.length} files, e.g. ${c.path.map(rel).join(" → ")}`);
    expect(circles).toEqual([]);
  });

  it("only imports down the layers", () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const layer = layerOf(file);
      if (layer === undefined) {
        // Only the public entry sits outside a layer: it may re-export any of them.
        expect(rel(file)).toBe("src/index.ts");
        continue;
      }
      for (const target of imports) {
        const to = layerOf(target);
        if (to === undefined || !MAY_IMPORT[layer]!.includes(to)) wrong.push(`${rel(file)} → ${rel(target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("keeps the auth entry out of every other entry: only its own index reaches it, and it loads jose alone", () => {
    const intoAuth = [...graph].filter(([file, imports]) => !rel(file).startsWith("src/auth/") && imports.some((t) => rel(t).startsWith("src/auth/")));
    expect(intoAuth.map(([file]) => rel(file))).toEqual([]);
    const packages = new Set<string>();
    for (const file of [...graph.keys()].filter((f) => rel(f).startsWith("src/auth/"))) {
      for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) {
        if (!fileName.startsWith(".")) packages.add(fileName);
      }
    }
    expect([...packages].sort()).toEqual(["h3", "jose"]);
  });

  it("loads bullmq from the BullMQ entry alone, which nothing else imports", () => {
    const intoBullmq = [...graph].filter(([file, imports]) => !rel(file).startsWith("src/tasks/bullmq/") && imports.some((t) => rel(t).startsWith("src/tasks/bullmq/")));
    expect(intoBullmq.map(([file]) => rel(file))).toEqual([]);
    const loading = [...graph.keys()].filter((file) =>
      ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.some(({ fileName }) => fileName === "bullmq" || fileName.startsWith("bullmq/")),
    );
    expect(loading.length).toBeGreaterThan(0);
    expect(loading.map(rel).filter((file) => !file.startsWith("src/tasks/bullmq/"))).toEqual([]);
  });

  it("keeps the Durable Object entry on its own backend: it reaches no Redis or BullMQ file and loads neither package", () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    visit(path.join(root, "src/tasks/durable-object/index.ts"));
    const files = [...reached].map(rel);
    // The run records' seal is shared with the Redis store, from a file of neither backend.
    expect(files).toContain("src/tasks/run-seal.ts");
    expect(files.filter((file) => file.startsWith("src/tasks/redis/") || file.startsWith("src/tasks/bullmq/"))).toEqual([]);
    const packages = new Set<string>();
    for (const file of reached) {
      for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) if (!fileName.startsWith(".")) packages.add(fileName.split("/")[0]!);
    }
    expect([...packages].filter((name) => name === "redis" || name === "bullmq" || name.startsWith("@redis"))).toEqual([]);
  });

  it("keeps the SQLite entry on its own backend: it reaches no other backend's file and loads no package (the user passes the handle)", () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    visit(path.join(root, "src/tasks/sqlite/index.ts"));
    const files = [...reached].map(rel);
    expect(files).toContain("src/tasks/run-seal.ts");
    expect(files.filter((file) => /^src\/tasks\/(redis|bullmq|durable-object|postgres)\//.test(file))).toEqual([]);
    const packages = new Set<string>();
    for (const file of [...reached].filter((f) => rel(f).startsWith("src/tasks/sqlite/"))) {
      for (const { fileName } of ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles) if (!fileName.startsWith(".")) packages.add(fileName);
    }
    expect([...packages].sort()).toEqual(["node:crypto", "node:fs", "node:path"]);
  });

  it("keeps the Postgres entry on its own backend: it reaches no other backend's file, and only its files load pg", () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    visit(path.join(root, "src/tasks/postgres/index.ts"));
    const files = [...reached].map(rel);
    expect(files).toContain("src/tasks/run-seal.ts");
    expect(files.filter((file) => /^src\/tasks\/(redis|bullmq|durable-object|sqlite)\//.test(file))).toEqual([]);
    const loading = [...graph.keys()].filter((file) => ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.some(({ fileName }) => fileName === "pg"));
    expect(loading.length).toBeGreaterThan(0);
    expect(loading.map(rel).filter((file) => !file.startsWith("src/tasks/postgres/"))).toEqual([]);
  });

  it("keeps machines/ on xstate alone", () => {
    for (const file of [...graph.keys()].filter((f) => rel(f).startsWith("machines/"))) {
      const specs = ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles.map((f) => f.fileName);
      for (const spec of specs) expect(spec.startsWith("./") || spec === "xstate", `${rel(file)} imports ${spec}`).toBe(true);
    }
  });
});

describe("findCircles", () => {
  const graphOf = (files: Record<string, string>): ImportGraph =>
    new Map(Object.entries(files).map(([name, text]) => [path.resolve("/x", name), importsOf(path.resolve("/x", name), text)]));

  it("finds a circle made of a type import and a re-export", () => {
    const circles = findCircles(
      graphOf({
        "a.ts": 'import type { B } from "./b.ts";\nexport const a = 1;',
        "b.ts": 'export { a } from "./a.ts";\nexport type B = number;',
        "c.ts": 'import { a } from "./a.ts";',
      }),
    );
    expect(circles.map((c) => c.path.map((f) => path.basename(f)))).toEqual([["a.ts", "b.ts", "a.ts"]]);
  });

  it("finds a file that imports itself, and a long circle as one", () => {
    const circles = findCircles(
      graphOf({
        "self.ts": 'import type { S } from "./self.ts";',
        "p.ts": 'import "./q.ts";',
        "q.ts": 'const r = import("./r.ts");',
        "r.ts": 'import { p } from "./p.ts";',
      }),
    );
    expect(circles.map((c) => c.files.map((f) => path.basename(f)))).toEqual([["self.ts"], ["p.ts", "q.ts", "r.ts"]]);
  });

  it("passes a graph without circles", () => {
    expect(findCircles(graphOf({ "a.ts": 'import "./b.ts";', "b.ts": "", "c.ts": 'import "./a.ts";\nimport "./b.ts";' }))).toEqual([]);
  });
});
