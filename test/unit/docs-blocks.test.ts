// Every TypeScript block of the README and docs/ compiles against the sources, with the project's own
// compiler options, as the page shows it. A block that is part of a page's story (it uses what the page
// defined before) says what it needs in an HTML comment right above it:
//   <!-- compile-with: declare const options: import("h3-mcp").McpHandlerOptions; -->
// A block fenced as ```ts dir=path is compiled as a file in that folder (its relative imports start there).
// A block fenced as ```ts file=path (or any language: ```jsonc file=path) shows that file whole, and must equal
// it (the file itself is typechecked and run with the project).
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { docBlocks, docFiles, read, ROOT, type DocBlock } from "../helpers/doc-blocks.ts";

const blocks = docFiles().flatMap(docBlocks).filter((b) => b.lang === "ts");
const compiled = blocks.filter((b) => !b.file);
// A block of any language fenced with file= shows that file (a wrangler config as well as a module).
const shown = docFiles().flatMap(docBlocks).filter((b) => b.file);

// Nitro is not a dependency of this repository (its smoke installs it in a scratch project and typechecks
// examples/nitro/ against it): its two entries are declared here as what they are, h3's own helpers and a config.
const NITRO_SHIM = `
declare module "nitro/h3" { export * from "h3"; }
declare module "nitro/config" {
  export function defineNitroConfig(config: { preset?: string; compatibilityDate?: string; [key: string]: unknown }): unknown;
}
`;

/** Beside the page (or in its `dir=`), so its relative imports resolve as the reader's would. */
const virtualName = (b: DocBlock) => path.join(ROOT, b.dir, `.block-${path.basename(b.doc, ".md")}-${b.line}.ts`);

/** Compiles every block in one program; the diagnostics by block, as "doc:line: message". */
function compileBlocks(): Map<DocBlock, string[]> {
  const configFile = ts.readConfigFile(path.join(ROOT, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  // A block may declare what it only shows (a tool defined for the next block), so unused names are fine.
  const compilerOptions = { ...options, noUnusedLocals: false, noEmit: true };
  const sources = new Map<string, { block?: DocBlock; text: string; offset: number }>();
  for (const block of compiled) {
    const prelude = block.compileWith ? `${block.compileWith}\n` : "";
    sources.set(virtualName(block), { block, text: `${prelude}${block.code}\nexport {};\n`, offset: prelude.split("\n").length - 1 });
  }
  const shim = path.join(ROOT, "docs", ".blocks", "nitro-shim.d.ts");
  sources.set(shim, { text: NITRO_SHIM, offset: 0 });

  const host = ts.createCompilerHost(compilerOptions);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => sources.has(path.resolve(f)) || fileExists.call(host, f);
  host.readFile = (f) => sources.get(path.resolve(f))?.text ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, ...rest) => {
    const own = sources.get(path.resolve(f));
    return own ? ts.createSourceFile(f, own.text, lang) : getSourceFile.call(host, f, lang, ...rest);
  };
  const program = ts.createProgram([...sources.keys()], compilerOptions, host);
  const byBlock = new Map<DocBlock, string[]>(compiled.map((b) => [b, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const own = d.file && sources.get(path.resolve(d.file.fileName));
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!own?.block) {
      byBlock.set(compiled[0]!, [...byBlock.get(compiled[0]!)!, `outside the blocks: ${d.file?.fileName ?? ""} ${message}`]);
      continue;
    }
    const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
    const where = line < own.offset ? "its compile-with comment" : `line ${own.block.line + 1 + line - own.offset}`;
    byBlock.get(own.block)!.push(`${own.block.doc} ${where}: ${message}`);
  }
  return byBlock;
}

describe("the TypeScript blocks of the README and docs/", () => {
  it("are found (the docs have some, and each is either compiled or shows a file)", () => {
    expect(compiled.length).toBeGreaterThan(20);
    expect(blocks.length).toBe(compiled.length + shown.filter((b) => b.lang === "ts").length);
  });

  it("compile against the sources", () => {
    const errors = [...compileBlocks().values()].flat();
    expect(errors, errors.join("\n")).toEqual([]);
  }, 120_000);

  it.each(shown.map((b) => [`${b.doc}:${b.line} shows ${b.file}`, b] as const))("%s whole", (_name, block) => {
    expect(block.code).toBe(read(block.file!));
  });
});
