// src/README.md's file map names every file of machines/ and src/ under its folder, and nothing that is gone:
// a file added, moved or removed without its line fails here.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"));
}

function mappedFiles(readme: string): { files: string[]; undescribed: string[] } {
  const section = readme.split("\n## File map\n")[1]?.split("\n## ")[0];
  if (section === undefined) throw new Error("src/README.md has no '## File map' section");
  const files: string[] = [];
  const undescribed: string[] = [];
  let folder: string | undefined;
  for (const line of section.split("\n")) {
    const heading = /^### (.+)\/$/.exec(line);
    if (heading) folder = heading[1];
    const item = /^- `([^`]+)`: ?(.*)$/.exec(line);
    if (!item) continue;
    if (folder === undefined) throw new Error(`file map line outside a folder: ${line}`);
    const file = `${folder}/${item[1]}`;
    files.push(file);
    if (item[2]!.trim().length < 10) undescribed.push(file);
  }
  return { files, undescribed };
}

describe("the file map of src/README.md", () => {
  const { files, undescribed } = mappedFiles(readFileSync(path.join(root, "src/README.md"), "utf8"));
  const actual = [...sourceFiles("machines"), ...sourceFiles("src")].sort();

  it("lists every file of machines/ and src/, and only those", () => {
    expect({ missing: actual.filter((file) => !files.includes(file)), gone: files.filter((file) => !actual.includes(file)) }).toEqual({ missing: [], gone: [] });
  });

  it("says what each file holds, once", () => {
    expect(undescribed).toEqual([]);
    expect(files.filter((file, i) => files.indexOf(file) !== i)).toEqual([]);
  });
});
