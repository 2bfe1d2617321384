import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { launch } from "./launch.ts";
import { describeRuntime } from "./smoke.ts";

/** The h3 Nitro 3.0.0 depends on, exactly. */
const NITRO_H3 = "2.0.1-rc.2";

// examples/nitro as its own project with the packed h3-mcp: installed, typechecked against Nitro's
// types, built with Nitro 3's node-server preset, and served by `node .output/server/index.mjs`.
describeRuntime("nitro (node-server)", async () => {
  const dirs = inject("smokeDirs");
  const project = path.join(dirs.work, "nitro");
  cpSync(path.join(dirs.root, "examples/nitro"), project, { recursive: true, filter: (src) => !/node_modules|\.output|\.nitro/.test(src) });
  const pkgFile = path.join(project, "package.json");
  const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
  pkg.dependencies["h3-mcp"] = `file:${dirs.tarball}`;
  writeFileSync(pkgFile, JSON.stringify(pkg, null, 2));
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: project, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  // The example's own typescript is a devDependency; the repo's compiler checks it here.
  run("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]);
  // No `overrides`: h3-mcp's peer range admits the h3 Nitro pins and the example's .npmrc prefers what the
  // tree holds, so npm installs that one copy and h3-mcp resolves the same one as Nitro does: one H3Event
  // class, which tsc checks against Nitro's types below.
  const h3Copies = new Set([...run("npm", ["ls", "h3", "--all", "--parseable"]).trim().split("\n")].filter(Boolean));
  if (h3Copies.size !== 1) throw new Error(`the Nitro app holds ${h3Copies.size} copies of h3:\n${[...h3Copies].join("\n")}`);
  const h3From = (pkg: string) => createRequire(path.join(project, "node_modules", pkg, "package.json")).resolve("h3/package.json");
  const h3Version = JSON.parse(readFileSync(h3From("nitro"), "utf8")).version;
  if (h3Version !== NITRO_H3 || h3From("h3-mcp") !== h3From("nitro")) {
    throw new Error(`the Nitro app's h3 is ${h3Version} at ${h3From("nitro")}, h3-mcp's at ${h3From("h3-mcp")}; expected ${NITRO_H3}, one copy`);
  }
  run(process.execPath, [path.join(dirs.root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"]);
  run(process.execPath, [path.join(project, "node_modules/nitro/dist/cli/index.mjs"), "build"]);
  // The build traces the h3 that h3-mcp and `nitro/h3` import into .output (Nitro's own runtime chunk
  // inlines the same version): that one copy, at Nitro's version.
  const traced = run("find", [".output/server", "-path", "*/node_modules/h3/package.json"]).trim().split("\n");
  const tracedVersions = traced.map((file) => JSON.parse(readFileSync(path.join(project, file), "utf8")).version);
  if (tracedVersions.join() !== NITRO_H3) throw new Error(`the Nitro build holds h3 ${tracedVersions.join(", ")} (${traced.join(", ")}), not ${NITRO_H3} once`);
  return launch("nitro", { command: process.execPath, args: () => [".output/server/index.mjs"], cwd: project, logDir: dirs.work });
});

// The other way in: h3-mcp added to an installed Nitro app, with npm's defaults (no .npmrc). Resolved
// into a lockfile only, which is what npm then installs.
describe("nitro: `npm install h3-mcp` in a Nitro app", () => {
  it(`keeps one h3, Nitro's ${NITRO_H3}, with npm's defaults`, () => {
    const dirs = inject("smokeDirs");
    const project = path.join(dirs.work, "nitro-add");
    mkdirSync(project, { recursive: true });
    const pkg = JSON.parse(readFileSync(path.join(dirs.root, "examples/nitro/package.json"), "utf8"));
    delete pkg.dependencies["h3-mcp"];
    writeFileSync(path.join(project, "package.json"), JSON.stringify(pkg, null, 2));
    const npm = (...args: string[]) =>
      execFileSync("npm", [...args, "--package-lock-only", "--omit=dev", "--prefer-dedupe=false", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
        cwd: project,
        stdio: ["ignore", "pipe", "pipe"],
      });
    npm("install");
    npm("install", `file:${dirs.tarball}`);
    const lock = JSON.parse(readFileSync(path.join(project, "package-lock.json"), "utf8"));
    const h3s = Object.keys(lock.packages).filter((p) => /(^|\/)node_modules\/h3$/.test(p));
    expect(h3s.map((p) => `${p} ${lock.packages[p].version}`)).toEqual([`node_modules/h3 ${NITRO_H3}`]);
    expect(lock.packages["node_modules/h3-mcp"]).toBeDefined();
  }, 60_000);
});
