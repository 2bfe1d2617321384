// The fenced code blocks of the README and docs/, as the docs tests read them: each with its file, line,
// language, `file=path` tag and the `<!-- compile-with: … -->` comment right above it, if any.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface DocBlock {
  /** The markdown file, relative to the repository root. */
  readonly doc: string;
  /** The line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  /** `file=path` on the fence: the block shows that file (relative to the root) whole. */
  readonly file?: string;
  /** Where the block's relative imports start: `dir=path` on the fence, else the page's own folder. */
  readonly dir: string;
  /** The TypeScript the block needs around it (declarations of what the page defined elsewhere). */
  readonly compileWith?: string;
  readonly code: string;
}

/** Folders whose markdown files are docs: the guides, the bench's figures and history, the conformance notes, the map of the sources. */
const DOC_DIRS = ["docs", "bench", "conformance", "src"];

/** README.md and every markdown file under docs/, bench/, conformance/ and src/, relative to the root. */
export function docFiles(): string[] {
  const found: string[] = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith(".md")) found.push(rel);
    }
  };
  for (const dir of DOC_DIRS) walk(dir);
  return found.sort();
}

/** test/README.md, the map of the suite, and the README.md of any folder of test/ (what that suite checks). */
export function testReadmes(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      if (entry.isDirectory()) walk(`${dir}/${entry.name}`);
      else if (entry.name === "README.md") found.push(`${dir}/${entry.name}`);
    }
  };
  walk("test");
  return found.sort();
}

const FENCE = /^```(\w*)([^\n]*)\n([\s\S]*?)^```/gm;
const COMPILE_WITH = /<!--\s*compile-with:((?:(?!-->)[\s\S])*)-->\s*$/;

export function docBlocks(doc: string): DocBlock[] {
  const text = readFileSync(path.join(ROOT, doc), "utf8");
  const blocks: DocBlock[] = [];
  for (const m of text.matchAll(FENCE)) {
    const before = text.slice(0, m.index);
    const file = /\bfile=(\S+)/.exec(m[2]!)?.[1];
    const dir = /\bdir=(\S+)/.exec(m[2]!)?.[1] ?? path.posix.dirname(doc);
    blocks.push({
      doc,
      line: before.split("\n").length,
      lang: m[1]!,
      ...(file ? { file } : {}),
      dir,
      ...(COMPILE_WITH.test(before) ? { compileWith: COMPILE_WITH.exec(before)![1]!.trim() } : {}),
      code: m[3]!,
    });
  }
  return blocks;
}

export const read = (rel: string) => readFileSync(path.join(ROOT, rel), "utf8");
