// The declaration files a user's editor and compiler read: they carry what a user may touch and nothing else.
// The package is built into a temporary directory (tsdown, the same config as `npm run build`), then every
// `.d.mts` is read with the TypeScript parser.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** Types that live inside the package: what transport prepares at mount, and the request context it owns. */
const INTERNAL_TYPES = ["Mount", "HandlerMount", "RequestContext", "TransportContext"];

let out: string;
let files: { name: string; source: ts.SourceFile }[];

beforeAll(() => {
  out = mkdtempSync(path.join(tmpdir(), "h3-mcp-dts-"));
  execFileSync(process.execPath, [path.join(root, "node_modules/tsdown/dist/run.mjs"), "--out-dir", out, "--logLevel", "error"], {
    cwd: root,
    stdio: "pipe",
  });
  files = readdirSync(out)
    .filter((name) => name.endsWith(".d.mts"))
    .map((name) => ({ name, source: ts.createSourceFile(name, readFileSync(path.join(out, name), "utf8"), ts.ScriptTarget.Latest) }));
}, 300_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

/** Every member name declared in a file (interfaces, type literals, classes), with where it is. */
function memberNames(source: ts.SourceFile): { name: string; line: number }[] {
  const found: { name: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isPropertySignature(node) || ts.isMethodSignature(node) || ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) {
      const name = ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) ? node.name.text : node.name.getText(source);
      found.push({ name, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every type, interface and class a file declares. */
function declaredTypes(source: ts.SourceFile): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isClassDeclaration(node)) && node.name) names.push(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

describe("the declaration files", () => {
  it("are built for every entry", () => {
    const names = files.map((f) => f.name);
    for (const entry of ["index", "tasks", "tasks-redis", "tasks-testing", "auth", "machines", "otel"]) expect(names).toContain(`${entry}.d.mts`);
    // The walk reads members: Standard Schema's own `~standard` is among them, so a `~` member would be seen.
    expect(files.flatMap((f) => memberNames(f.source)).some((m) => m.name === "~standard")).toBe(true);
  });

  it("carry no `~` member but Standard Schema's `~standard`", () => {
    const tilde = files.flatMap((f) =>
      memberNames(f.source)
        .filter((m) => m.name.startsWith("~") && m.name !== "~standard")
        .map((m) => `${f.name}:${m.line} ${m.name}`),
    );
    expect(tilde).toEqual([]);
  });

  it("do not expose the internal mount or request-context types", () => {
    const exposed = files.flatMap((f) => declaredTypes(f.source).filter((t) => INTERNAL_TYPES.includes(t)).map((t) => `${f.name} ${t}`));
    expect(exposed).toEqual([]);
  });
});
