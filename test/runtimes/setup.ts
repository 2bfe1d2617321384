// Global setup of the runtime smokes: the runtimes from npm (outside the project's dependencies), and
// the package as a consumer gets it: built, packed, installed from the tarball into a fresh project
// that holds examples/runtimes/. Each *.smoke.ts file then starts its runtime on that project, protected
// by a real authorization server (oidc-provider) started here, whose keys every runtime fetches itself
// (otel.smoke.ts makes a project of its own beside it, with the OpenTelemetry SDKs its runtimes need).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { startAuthorizationServer } from "../helpers/authorization-server.ts";
import { appProject } from "./app-project.ts";
// @ts-expect-error: a plain .mjs script without types
import { ensureRuntimes } from "../../scripts/runtimes/install.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

export default async function setup(project: TestProject) {
  const started = Date.now();
  const runtimes = ensureRuntimes({ log: (m: string) => console.log(m) });
  // Outside node_modules: Deno refuses to strip types from files under it.
  const work = path.join(root, ".scratch/runtime-smoke");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const run = (cmd: string, args: string[], cwd: string) =>
    execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });

  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  if (!pkg.scripts?.prepack) run("npm", ["run", "--silent", "build"], root);
  const tarball = path.join(work, run("npm", ["pack", "--silent", "--pack-destination", work], root).trim().split("\n").pop()!);

  const app = path.join(work, "app");
  await appProject({ root, dir: app, tarball });
  console.log(`runtime smokes: runtimes and the packed package ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  project.provide("runtimes", runtimes);
  project.provide("smokeDirs", { root, work, app, tarball });
  const authServer = await startAuthorizationServer();
  project.provide("authServer", { issuer: authServer.issuer, client: authServer.client });
  return () => authServer.close();
}

declare module "vitest" {
  export interface ProvidedContext {
    runtimes: { bun: string; deno: string; wrangler: string; node22: string };
    smokeDirs: { root: string; work: string; app: string; tarball: string };
    /** The authorization server every runtime's route trusts, and a client that may get tokens from it. */
    authServer: { issuer: string; client: { id: string; secret: string } };
  }
}
