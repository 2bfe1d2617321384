// A project as a consumer of the package has it: examples/runtimes/ copied into `dir`, with the packed
// h3-mcp, h3 and any other dependencies installed from npm. The smoke setup makes the one most runtimes
// serve; otel.smoke.ts makes its own beside it, with the OpenTelemetry SDKs, while the others run.
import { execFile } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

export async function appProject(opts: { root: string; dir: string; tarball: string; dependencies?: Record<string, string> }): Promise<void> {
  cpSync(path.join(opts.root, "examples/runtimes"), opts.dir, { recursive: true });
  writeFileSync(
    path.join(opts.dir, "package.json"),
    JSON.stringify({ name: "runtime-smoke-app", private: true, type: "module", dependencies: { "h3-mcp": `file:${opts.tarball}`, h3: "^2.0.8", ...opts.dependencies } }),
  );
  // The app's own tsconfig: without one, wrangler's esbuild, Bun and tsx climb to the repo's, whose `paths`
  // send "h3-mcp" to src/ instead of the installed package.
  writeFileSync(
    path.join(opts.dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", strict: true, allowImportingTsExtensions: true, noEmit: true } }),
  );
  await promisify(execFile)("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: opts.dir });
}

/** The version of `name` this repository installed (its lockfile's): npm's cache has it. */
export function installedVersion(root: string, name: string): string {
  return JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")).version;
}
