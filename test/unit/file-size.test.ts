import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const LIMIT = 300;
/** Cohesive files allowed past the limit, each with the reason it stays one file. */
const EXCEPTIONS: Record<string, string> = {
  "machines/task.machine.ts": "the one task chart: its states, events, guards and actions are one statechart definition",
  "src/tasks/task-table.ts": "one off-heap data structure: its ring, index, byte chunks and owner counts share one record layout",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(full);
    return d.name.endsWith(".ts") ? [full] : [];
  });
}

it(`keeps every file of src/ and machines/ under ${LIMIT} lines, one concern each`, () => {
  const files = [...sourceFiles(path.join(root, "src")), ...sourceFiles(path.join(root, "machines"))];
  expect(files.length).toBeGreaterThan(40);
  const long = files
    .map((file) => ({ file: path.relative(root, file), lines: readFileSync(file, "utf8").split("\n").length }))
    .filter(({ file, lines }) => lines > LIMIT && !EXCEPTIONS[file]);
  expect(long).toEqual([]);
});
