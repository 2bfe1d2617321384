// test/README.md is the map of the suite: every path it names in backticks exists (a bare file name exists
// under test/ or src/tasks/testing/), and every folder of test/ has its row, so the map cannot drift.
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { read, ROOT } from "../helpers/doc-blocks.ts";

const page = read("test/README.md");
const named = [...page.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? filesUnder(`${dir}/${d.name}`) : [d.name],
  );
}

it("names only paths that exist", () => {
  const known = new Set([...filesUnder("test"), ...filesUnder("src/tasks/testing")]);
  const missing = named.filter((p) => {
    if (/^(?:test|src|docs|examples|bench|scripts)\//.test(p)) return !existsSync(path.join(ROOT, p));
    if (/^[\w.-]+\.(?:ts|mjs)$/.test(p)) return !known.has(p);
    return false;
  });
  expect(missing).toEqual([]);
});

it("has a row for every folder of test/", () => {
  const folders = readdirSync(path.join(ROOT, "test"), { withFileTypes: true }).filter((d) => d.isDirectory());
  expect(folders.length).toBeGreaterThan(8);
  expect(folders.map((d) => `test/${d.name}/`).filter((f) => !named.includes(f))).toEqual([]);
});
