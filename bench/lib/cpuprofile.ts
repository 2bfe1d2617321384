// Reads a V8 .cpuprofile (from `node --cpu-prof`) into self and inclusive time per function, so
// the hot spots of a load run can be printed as a table instead of opened in a viewer.
import { readFileSync } from "node:fs";
import { relative } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface FrameStat {
  /** `function (file:line)`, file relative to the project or its package name. */
  frame: string;
  /** Microseconds sampled in the function itself. */
  selfUs: number;
  /** Microseconds sampled with the function anywhere on the stack (counted once per sample). */
  totalUs: number;
}

export interface ProfileSummary {
  /** Sampled time, microseconds, idle and GC included. */
  sampledUs: number;
  idleUs: number;
  gcUs: number;
  frames: FrameStat[];
  /** Self time grouped by where the code lives: project src/, machines/, node_modules package, node internals. */
  byOrigin: { origin: string; selfUs: number }[];
}

/**
 * @param window Only samples taken in [from, to], in microseconds of the monotonic clock the
 *   profile's timestamps use (on Linux and macOS, `process.hrtime.bigint() / 1000n` of any process).
 */
export function summarizeProfile(path: string, opts: { root?: string; window?: [number, number] } = {}): ProfileSummary {
  const root = opts.root ?? process.cwd();
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const keyOf = new Map<number, string>();
  const frameKey = (node: ProfileNode) => {
    let key = keyOf.get(node.id);
    if (key === undefined) {
      const { functionName, url, lineNumber } = node.callFrame;
      const where = url ? `${shortUrl(url, root)}:${lineNumber + 1}` : "native";
      const source = sourceOf(url, lineNumber, root);
      key = `${functionName || "(anonymous)"} (${source ? `${source} ← ${where}` : where})`;
      keyOf.set(node.id, key);
    }
    return key;
  };

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const origin = new Map<string, number>();
  let sampled = 0;
  let idle = 0;
  let gc = 0;
  const stackKeys = new Set<string>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    if (opts.window && (at < opts.window[0] || at > opts.window[1])) continue;
    // timeDeltas[i] is the time before sample i; attribute the following delta to it (the usual convention).
    const dt = profile.timeDeltas[i + 1] ?? 0;
    if (dt <= 0) continue;
    const node = byId.get(profile.samples[i]!)!;
    sampled += dt;
    const name = node.callFrame.functionName;
    if (name === "(idle)") {
      idle += dt;
      continue;
    }
    if (name === "(garbage collector)") gc += dt;
    const key = frameKey(node);
    self.set(key, (self.get(key) ?? 0) + dt);
    const o = originOf(node.callFrame.url, name, root, sourceOf(node.callFrame.url, node.callFrame.lineNumber, root));
    origin.set(o, (origin.get(o) ?? 0) + dt);
    stackKeys.clear();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id)!;
      if (n.callFrame.functionName === "(root)") break;
      stackKeys.add(frameKey(n));
    }
    for (const k of stackKeys) total.set(k, (total.get(k) ?? 0) + dt);
  }
  const frames = [...total.keys()].map((frame) => ({ frame, selfUs: self.get(frame) ?? 0, totalUs: total.get(frame)! }));
  const byOrigin = [...origin.entries()].map(([o, us]) => ({ origin: o, selfUs: us })).sort((a, b) => b.selfUs - a.selfUs);
  return { sampledUs: sampled, idleUs: idle, gcUs: gc, frames, byOrigin };
}

function shortUrl(url: string, root: string): string {
  if (!url) return "native";
  const path = url.startsWith("file://") ? decodeURIComponent(new URL(url).pathname) : url;
  const nm = path.lastIndexOf("/node_modules/");
  if (nm >= 0) return path.slice(nm + "/node_modules/".length);
  return path.startsWith("/") ? relative(root, path) : path;
}

/**
 * The source file a line of the project's bundle (dist/*.mjs) came from, read from the
 * `//#region src/…` comments the bundler leaves; undefined for anything else.
 */
const regionsByFile = new Map<string, { line: number; source: string }[]>();
function sourceOf(url: string, lineNumber: number, root: string): string | undefined {
  const short = url ? shortUrl(url, root) : "";
  if (!short.startsWith("dist/") || url.includes("/node_modules/")) return undefined;
  let regions = regionsByFile.get(url);
  if (!regions) {
    regions = [];
    try {
      const lines = readFileSync(new URL(url), "utf8").split("\n");
      lines.forEach((text, line) => {
        const m = /^\/\/#region (\S+)/.exec(text);
        if (m) regions!.push({ line, source: m[1]! });
      });
    } catch {}
    regionsByFile.set(url, regions);
  }
  let found: string | undefined;
  for (const r of regions) {
    if (r.line > lineNumber) break;
    found = r.source;
  }
  return found;
}

function originOf(url: string, functionName: string, root: string, source?: string): string {
  if (functionName === "(garbage collector)") return "(gc)";
  if (functionName === "(program)") return "(program)";
  if (!url) return "(native)";
  if (source) return `${source.split("/")[0]}/`;
  const short = shortUrl(url, root);
  if (short.startsWith("node:")) return "node internals";
  if (url.includes("/node_modules/")) {
    const parts = short.split("/");
    return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const top = short.split("/")[0]!;
  return top === "src" || top === "machines" || top === "bench" ? `${top}/` : short;
}

/** Markdown tables: top functions by self time, and by inclusive time restricted to `focus` (e.g. "src/"). */
export function formatProfile(summary: ProfileSummary, opts: { top?: number; focus?: RegExp; perRequestOf?: number } = {}): string {
  const top = opts.top ?? 25;
  const busy = summary.sampledUs - summary.idleUs;
  const pct = (us: number) => `${((us / busy) * 100).toFixed(1)}%`;
  const per = (us: number) => (opts.perRequestOf ? ` | ${(us / opts.perRequestOf).toFixed(2)}` : "");
  const perHead = opts.perRequestOf ? " | µs/req" : "";
  const perSep = opts.perRequestOf ? " | ---:" : "";
  const lines: string[] = [];
  lines.push(`busy ${(busy / 1e3).toFixed(0)} ms of ${(summary.sampledUs / 1e3).toFixed(0)} ms sampled; GC ${pct(summary.gcUs)} of busy`);
  lines.push("", `| origin | self${perHead} |`, `| --- | ---:${perSep} |`);
  for (const o of summary.byOrigin.slice(0, 12)) lines.push(`| ${o.origin} | ${pct(o.selfUs)}${per(o.selfUs)} |`);
  lines.push("", `| function (self time) | self | total${perHead} |`, `| --- | ---: | ---:${perSep} |`);
  for (const f of [...summary.frames].sort((a, b) => b.selfUs - a.selfUs).slice(0, top)) {
    lines.push(`| ${f.frame} | ${pct(f.selfUs)} | ${pct(f.totalUs)}${per(f.selfUs)} |`);
  }
  if (opts.focus) {
    lines.push("", `| function matching ${opts.focus} (inclusive) | total | self${perHead} |`, `| --- | ---: | ---:${perSep} |`);
    for (const f of summary.frames.filter((f) => opts.focus!.test(f.frame)).sort((a, b) => b.totalUs - a.totalUs).slice(0, top)) {
      lines.push(`| ${f.frame} | ${pct(f.totalUs)} | ${pct(f.selfUs)}${per(f.totalUs)} |`);
    }
  }
  return lines.join("\n");
}
