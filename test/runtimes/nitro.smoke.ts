import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { launch } from "./launch.ts";
import { describeRuntime } from "./smoke.ts";

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
  const h3Copies = new Set([...run("npm", ["ls", "h3", "--all", "--parseable"]).trim().split("\n")].filter(Boolean));
  if (h3Copies.size !== 1) throw new Error(`the Nitro app holds ${h3Copies.size} copies of h3:\n${[...h3Copies].join("\n")}`);
  run(process.execPath, [path.join(dirs.root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"]);
  run(process.execPath, [path.join(project, "node_modules/nitro/dist/cli/index.mjs"), "build"]);
  return launch("nitro", { command: process.execPath, args: () => [".output/server/index.mjs"], cwd: project, logDir: dirs.work });
});
