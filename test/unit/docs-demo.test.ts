// docs/demo.md's table of environment variables is the demo's: every variable a file of examples/demo/ reads
// has its row, and every row names only variables the demo reads.
import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { read, ROOT } from "../helpers/doc-blocks.ts";

function demoFiles(dir = "examples/demo"): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? demoFiles(`${dir}/${d.name}`) : d.name.endsWith(".ts") ? [`${dir}/${d.name}`] : [],
  );
}

/** `process.env.X`, `env.X` and `envMs(env, "X", …)`, in code (comments left out). */
function readVariables(): Set<string> {
  const found = new Set<string>();
  for (const file of demoFiles()) {
    const code = read(file).replace(/^\s*\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, "");
    for (const m of code.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|envMs\(\w+, "([A-Z][A-Z0-9_]+)"/g)) found.add(m[1] ?? m[2]!);
  }
  return found;
}

it("docs/demo.md has a row for every environment variable the demo reads, and none for others", () => {
  const page = read("docs/demo.md");
  const table = /## Environment\n[\s\S]*?\n((?:\|[^\n]*\n)+)/.exec(page)![1]!;
  const rows = table.split("\n").slice(2).filter(Boolean);
  const documented = new Set(rows.flatMap((row) => [...row.split("|")[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)));
  const variables = readVariables();
  expect(variables.size).toBeGreaterThan(10);
  expect([...variables].filter((v) => !documented.has(v)).sort()).toEqual([]);
  expect([...documented].filter((v) => !variables.has(v)).sort()).toEqual([]);
});
