// Every command the README, docs/ (with the bench's, conformance's and sources' pages) and the READMEs of test/
// tell a reader to run (shell blocks, and inline `npm …`, `npx …`, `node <file>` and the like) exists, and is run
// by a test. COVERED says which test runs each one and a string that test must contain (the file it starts, the
// script it names); a command the suite does not run says why instead. A command added to the docs without a line
// here fails, and so does a line here for a command no page tells anyone to run any more.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { docBlocks, docFiles, read, ROOT, testReadmes } from "../helpers/doc-blocks.ts";

type Coverage = { by: string; shows: string } | { notRun: string };

const COVERED: Record<string, Coverage> = {
  "npm start": { by: "test/interop/dev-setup.test.ts", shows: '"start"' },
  "npm run worker": { by: "test/redis/demo-workers.ts", shows: "examples/demo/worker.ts" },
  "npm test": { notRun: "it is the suite itself" },
  "npm install": { notRun: "installs this repository's own dependencies; every test runs on them" },
  "npm run build": { by: "scripts/check-package.mjs", shows: "prepack" },
  "npm run bench": { notRun: "a measurement of about 25 minutes (4 with --quick); its figures are in bench/README.md" },
  "npm run conformance": { notRun: "the official conformance suite against the demo, a few minutes; results in docs/conformance.md" },
  "npm run conformance:legacy": { notRun: "as npm run conformance, for 2025-11-25 clients" },
  "npm run diagram": { by: "test/unit/diagram.test.ts", shows: "../../scripts/diagram.ts" },
  "npm run inspect": { by: "test/interop/inspect-process.test.ts", shows: "examples/demo/inspect.ts" },
  "npm run fuzz": { by: "test/interop/dev-setup.test.ts", shows: '"fuzz"' },
  "npm run soak": { by: "test/interop/dev-setup.test.ts", shows: '"soak"' },
  "npm run test:runtimes": { by: "vitest.runtimes.config.ts", shows: 'include: ["test/runtimes/*.smoke.ts"]' },
  "npx vitest run …": { notRun: "runs files of the suite itself (or, with vitest.runtimes.config.ts, of the runtime smokes)" },
  "npx tsc": { notRun: "the typecheck, which CI runs beside the suite; the tests that pin what must not compile rely on it" },
  "npm run typecheck": { notRun: "the typecheck, as npx tsc --noEmit" },
  "npx tsx docs/examples/first-task.ts": { by: "test/wire/docs-examples.test.ts", shows: "docs/examples/first-task.ts" },
  "npx tsx docs/examples/tasks.ts": { by: "test/wire/docs-examples.test.ts", shows: "../../docs/examples/tasks.ts" },
  "npx tsx docs/examples/inspector.ts": { by: "test/interop/inspect-process.test.ts", shows: "docs/examples/inspector.ts" },
  "npx tsx examples/official-client/render.ts": { by: "test/interop/official-client.test.ts", shows: '"render.ts"' },
  "npx tsx examples/official-client/oauth.ts": { by: "test/interop/official-client.test.ts", shows: '"oauth.ts"' },
  "npx tsx scripts/import-graph.ts": { by: "test/unit/import-graph.test.ts", shows: "scripts/import-graph.ts" },
  "npx nitro build": { by: "test/runtimes/nitro.smoke.ts", shows: '"build"' },
  "node .output/server/index.mjs": { by: "test/runtimes/nitro.smoke.ts", shows: ".output/server/index.mjs" },
  "node server.js": { notRun: "the reader's own build of server.ts; the Node smoke runs the same server from its TypeScript" },
  "node server.ts": { by: "test/runtimes/node.smoke.ts", shows: '["--import", tsx, "server.ts"]' },
  "node examples/demo/server.ts": { by: "test/helpers/demo-process.ts", shows: '["--import", "tsx", entry, ...args]' },
  "node bench/…": { notRun: "bench files measure (their figures are in bench/README.md); the typecheck covers them" },
  "bun server.ts": { by: "test/runtimes/bun.smoke.ts", shows: '["server.ts"]' },
  "deno run": { by: "test/runtimes/deno.smoke.ts", shows: '"run"' },
  "wrangler dev": { by: "test/runtimes/launch.ts", shows: '"dev"' },
  "wrangler deploy": { notRun: "deploys to Cloudflare's network, which needs an account" },
  "wrangler login": { notRun: "signs in to a Cloudflare account" },
  "wrangler secret": { notRun: "stores a secret in a Cloudflare account" },
  "npx @modelcontextprotocol/inspector": { notRun: "the MCP Inspector is not a dependency of this repository (it needs Node 22.19 or later); docs/official-client.md says what it did when run by hand against the demo" },
  "npx esbuild": { notRun: "a maintainer's look inside the conformance package, not a check" },
  "redis-cli --scan": { by: "test/redis/key-names.test.ts", shows: '"--scan", "--pattern"' },
  "curl (docs/tasks-curl.md)": { by: "test/interop/tasks-curl.test.ts", shows: "docs/tasks-curl.md" },
  "curl (README.md)": { by: "test/interop/readme-quickstart.test.ts", shows: 'b.code.includes("mcp() {")' },
  "npx tsx examples/quickstart/server.ts": { by: "test/interop/readme-quickstart.test.ts", shows: '"examples/quickstart/server.ts"' },
  "npm run check-package": { notRun: "packs, installs and runs the package in a scratch project, a minute or more; the lead runs it before landing a release" },
  "node examples/testing/tools.node-test.ts": { by: "test/interop/node-test-example.test.ts", shows: "examples/testing/tools.node-test.ts" },
};

/** Packages a page tells the reader to `npm install`: they must be this package or ones it names in package.json. */
const pkg = JSON.parse(read("package.json")) as { scripts: Record<string, string> } & Record<string, Record<string, string>>;
const known = new Set(["h3-mcp", ...["dependencies", "peerDependencies", "devDependencies"].flatMap((k) => Object.keys(pkg[k] ?? {}))]);

interface Command {
  readonly doc: string;
  readonly text: string;
}

const INLINE = /`((?:npm (?:run|start|test|install)|npx \S|node (?:--\S+ (?:tsx )?)*\S+\.(?:ts|mjs|js)\b|wrangler (?:dev|deploy)|deno run|bun \S+\.ts|redis-cli)[^`]*)`/g;
const SHELL = new Set(["sh", "bash", "shell", "console"]);

/** One command a line at a time: comments, env assignments and `&&` chains taken apart; continuation lines joined. */
function commands(): Command[] {
  const found: Command[] = [];
  for (const doc of [...docFiles(), ...testReadmes()]) {
    for (const block of docBlocks(doc).filter((b) => SHELL.has(b.lang))) {
      // A block that defines the `mcp` shell function is a curl session, run whole by the page's own test.
      if (block.code.includes("mcp() {")) {
        found.push({ doc, text: `curl session of ${doc}` });
        continue;
      }
      for (const line of block.code.replace(/\\\n/g, " ").split("\n")) {
        for (const part of line.replace(/(^|\s)#.*$/, "").split("&&")) {
          const text = part.trim().replace(/^(?:[A-Z_]+=\S+\s+)+/, "");
          if (text && !/^[A-Z_]+=/.test(text)) found.push({ doc, text });
        }
      }
    }
    for (const m of read(doc).matchAll(INLINE)) {
      for (const part of m[1]!.split("&&")) found.push({ doc, text: part.trim() });
    }
  }
  return found;
}

/** The COVERED key of a command; undefined for lines of a shell session (function bodies, variables). */
function keyOf({ doc, text }: Command): string | undefined {
  const words = text.split(/\s+/);
  if (doc === "docs/tasks-curl.md" || text === `curl session of ${doc}`) return `curl (${doc})`;
  if (words[0] === "npm") {
    if (words[1] === "start" || words[1] === "test") return `npm ${words[1]}`;
    if (words[1] === "run") return `npm run ${words[2]}`;
    if (words[1] === "install" || words[1] === "ls" || words[1] === "dedupe") return "npm install";
  }
  if (words[0] === "npx" && words[1] === "vitest") return `${words.slice(0, 3).join(" ")} …`;
  if (words[0] === "npx" && words[1] === "tsx") return words.slice(0, 3).join(" ");
  if (words[0] === "npx") return words.slice(0, words[1] === "nitro" ? 3 : 2).join(" ");
  if (words[0] === "node") {
    const file = words.filter((w) => !w.startsWith("-") && w !== "tsx")[1]!;
    return file.startsWith("bench/") ? "node bench/…" : `node ${file}`;
  }
  if (words[0] === "deno" || words[0] === "wrangler" || words[0] === "redis-cli") return words.slice(0, 2).join(" ");
  return words.slice(0, 2).join(" ");
}

const all = commands();
const keyed = all.map((c) => ({ ...c, key: keyOf(c) }));

describe("the commands the README, docs/ and the READMEs of test/ tell a reader to run", () => {
  it("are found", () => {
    expect(all.length).toBeGreaterThan(30);
  });

  it("each has a line in COVERED, and each line is still a command some page gives", () => {
    const missing = keyed.filter((c) => !c.key || !(c.key in COVERED)).map((c) => `${c.doc}: ${c.text}`);
    expect(missing, "add these to COVERED, with the test that runs them").toEqual([]);
    const given = new Set(keyed.map((c) => c.key));
    expect(Object.keys(COVERED).filter((k) => !given.has(k))).toEqual([]);
  });

  it("name npm scripts that exist, files that exist and packages package.json declares", () => {
    const wrong: string[] = [];
    for (const { doc, text, key } of keyed) {
      const words = text.split(/\s+/);
      if (key?.startsWith("npm run ") && !(words[2]! in pkg.scripts)) wrong.push(`${doc}: no script ${words[2]}`);
      if (key === "npm install" && words[1] === "install") {
        for (const name of words.slice(2).filter((w) => !w.startsWith("-"))) if (!known.has(name)) wrong.push(`${doc}: ${name} is not in package.json`);
      }
      // A path into this repository (not the reader's own server.ts, nor a build's output) must exist.
      for (const word of words) {
        if (/^(?:docs|examples|scripts|bench|test)\/\S+/.test(word) && !existsSync(path.join(ROOT, word.replace(/[*].*$/, "")))) {
          wrong.push(`${doc}: ${word} does not exist`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(Object.entries(COVERED))("%s: run by the test named, or says why not", (_key, coverage) => {
    if ("notRun" in coverage) {
      expect(coverage.notRun.length).toBeGreaterThan(10);
      return;
    }
    expect(existsSync(path.join(ROOT, coverage.by)), `${coverage.by} does not exist`).toBe(true);
    expect(read(coverage.by)).toContain(coverage.shows);
  });
});
