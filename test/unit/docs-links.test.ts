// Every link of the README, docs/ (with the bench's, conformance's and sources' pages) and the READMEs of test/ that points into this
// repository reaches a file that exists, and a `#fragment` into a markdown page reaches one of its headings:
// relative links from the page's own folder, absolute ones through the repository's GitHub address.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { docFiles, read, ROOT, testReadmes } from "../helpers/doc-blocks.ts";

const REPO = "https://github.com/h3-mcp/h3-mcp";
const OWN = [`${REPO}/blob/main/`, `${REPO}/tree/main/`, "https://raw.githubusercontent.com/h3-mcp/h3-mcp/main/"];

/** The anchor GitHub gives a heading: lower case, punctuation dropped, each space a dash. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** The anchors of a markdown page: its headings' (a repeated one gets -1, -2, … as on GitHub) and its `<a id>`s. */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  // Headings outside fenced blocks only.
  const text = read(page).replace(/^```[\s\S]*?^```/gm, "");
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n ? `${base}-${n}` : base);
  }
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) found.add(m[1]!);
  return found;
}

/** Each link of a page, as written, with the repository path it names (undefined: outside the repository). */
function links(doc: string): { target: string; file?: string; fragment?: string }[] {
  const text = read(doc).replace(/^```[\s\S]*?^```/gm, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => {
    const target = m[1]!;
    const [rawPath, fragment] = target.split("#") as [string, string | undefined];
    const own = OWN.find((prefix) => rawPath.startsWith(prefix));
    if (own) return { target, file: rawPath.slice(own.length), fragment };
    if (/^[a-z]+:/.test(rawPath)) return { target };
    const file = rawPath === "" ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), rawPath));
    return { target, file, fragment };
  });
}

const pages = [...docFiles(), ...testReadmes()];

describe("the links of the README and docs/", () => {
  it("are found", () => {
    expect(pages.flatMap(links).filter((l) => l.file).length).toBeGreaterThan(100);
  });

  it.each(pages)("%s links to files and headings that exist", (doc) => {
    const broken: string[] = [];
    for (const { target, file, fragment } of links(doc)) {
      if (file === undefined) continue;
      const full = path.join(ROOT, file.replace(/\/$/, ""));
      if (file.startsWith("..") || !existsSync(full)) {
        broken.push(`${target}: no ${file}`);
        continue;
      }
      if (fragment && file.endsWith(".md") && statSync(full).isFile() && !anchors(file).has(fragment)) {
        broken.push(`${target}: no heading #${fragment} in ${file}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
