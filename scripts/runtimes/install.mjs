#!/usr/bin/env node
// Installs the runtimes the smokes run on (bun, deno, wrangler with workerd: some 420 MB) from npm into
// node_modules/.cache/runtimes, pinned by this folder's package-lock.json, plus the Node 22 wrangler
// needs. They stay out of the project's devDependencies so `npm install && npm start` stays lean.
//   node scripts/runtimes/install.mjs      prints the binaries' paths as JSON
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureNode22 } from "../lib/node22.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");

/** Paths of every runtime binary, installing what is missing or out of date. */
export function ensureRuntimes({ log = console.log } = {}) {
  const dir = path.resolve(root, process.env.RUNTIMES_DIR || "node_modules/.cache/runtimes");
  const lock = readFileSync(path.join(here, "package-lock.json"));
  const stamp = createHash("sha256").update(readFileSync(path.join(here, "package.json"))).update(lock).digest("hex");
  const stampFile = path.join(dir, ".installed");
  if (!existsSync(stampFile) || readFileSync(stampFile, "utf8") !== stamp) {
    log(`runtimes: installing bun, deno and wrangler into ${path.relative(root, dir)} (npm ci, once)`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    copyFileSync(path.join(here, "package.json"), path.join(dir, "package.json"));
    copyFileSync(path.join(here, "package-lock.json"), path.join(dir, "package-lock.json"));
    const r = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: dir,
      stdio: "inherit",
    });
    if (r.status !== 0) throw new Error(`npm ci in ${dir} failed`);
    writeFileSync(stampFile, stamp);
  }
  const bin = (name) => path.join(dir, "node_modules/.bin", name);
  // wrangler refuses Node < 22.12; the same Node 22 the conformance runner uses.
  const node22 = ensureNode22({ root, dir: path.resolve(root, process.env.NODE22_DIR || "node_modules/.cache/node22"), min: [22, 12], log });
  return { bun: bin("bun"), deno: bin("deno"), wrangler: path.join(dir, "node_modules/wrangler/bin/wrangler.js"), node22 };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(ensureRuntimes(), null, 2));
}
